// The ILP strategy under a time limit (src/plan/index.ts, docs/PLANNING.md "Solving"): whatever
// the limit, the plan is valid and always has a finite bound ≤ its objective and a finite gap,
// with notes saying where plan and bound came from; it never costs more than the better greedy
// plan unless the limit stopped the greedy walks (a note says so). Progress reports
// (PlanOptions.onProgress) and the limit on a real program (NAS MG) are checked too. Deterministic checks only: the overshoot at 1,000–2,000 statements is
// measured in bench/plan/time-limit.test.ts, not here. Also: weights must be non-negative
// (the 0 bound relies on it).

import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/diagnostics/index.js';
import type { Program } from '../../src/ir/types.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Compiler } from '../../src/driver/index.js';
import { plan, type PlanOptions } from '../../src/plan/index.js';
import type { PlanProgress } from '../../src/plan/progress.js';
import { createSolverLoader, solveModel } from '../../src/plan/ilp/solver.js';
import { buildModel } from '../../src/plan/ilp/model.js';
import { parseCost, defaultCostText } from '../../src/plan/cost.js';
import { programGraphs } from '../../src/graph/program.js';
import { validatePlan } from '../../src/check/validate.js';
import type { Plan } from '../../src/plan/types.js';
import { randomProgram } from '../util/index.js';

const solver = createSolverLoader();

/** The plan of `p` under the ILP with `options`, checked, with both greedy objectives. */
async function planChecked(p: Program, options: PlanOptions): Promise<{ readonly ilp: Plan; readonly greedy: number }> {
  const ilp = await plan(p, { solver, ...options });
  expect(validatePlan(p, ilp)).toEqual([]);
  const down = await plan(p, { solver, strategy: 'greedy-down', cost: options.cost });
  const up = await plan(p, { solver, strategy: 'greedy-up', cost: options.cost });
  const s = ilp.stats;
  expect(Number.isFinite(s.bound)).toBe(true);
  expect(Number.isFinite(s.gap)).toBe(true);
  expect(s.bound!).toBeLessThanOrEqual(s.objective + 1e-6);
  expect(s.gap!).toBeGreaterThanOrEqual(0);
  return { ilp, greedy: Math.min(down.stats.objective, up.stats.objective) };
}

describe('the ILP under a time limit', () => {
  it.each([
    ['one block of 300 combinators', 11, false],
    ['nested blocks, 300 combinators', 12, true],
  ])('%s, 0.5 s: a valid plan no worse than either greedy plan, with a bound and a gap', async (_, seed, controlFlow) => {
    const { program: p } = randomProgram(seed, { combinators: 300, controlFlow });
    const { ilp, greedy } = await planChecked(p, { timeLimitSeconds: 0.5 });
    // On a loaded machine the limit may stop the walks themselves; then the notes say so.
    if (!ilp.stats.notes.some((n) => n.includes('stopped the greedy walks'))) expect(ilp.stats.objective).toBeLessThanOrEqual(greedy + 1e-9);
  });

  it('HiGHS stopped before its root LP: the bound is the model\'s, every variable at its cheapest bound', async () => {
    const { program: p } = randomProgram(13, { combinators: 60, controlFlow: false });
    // highsOptions are set last, so HiGHS itself stops at once while the walks and the model run.
    const { ilp, greedy } = await planChecked(p, { timeLimitSeconds: 60, ilpTuning: { highsOptions: { time_limit: 0 } } });
    expect(ilp.stats.status).toBe('time-limit');
    expect(ilp.stats.objective).toBeLessThanOrEqual(greedy + 1e-9);
    expect(Number.isFinite(ilp.stats.bound)).toBe(true);
    expect(ilp.stats.notes.join(' ')).toContain('every variable at its cheapest bound');
  });

  it('a zero limit: the walks stop before their first step, no model is built, the plan fuses nothing, the bound is 0 and the notes say why', async () => {
    const { program: p } = randomProgram(14, { combinators: 40, controlFlow: true });
    const { ilp } = await planChecked(p, { timeLimitSeconds: 0 });
    const none = await plan(p, { solver, strategy: 'none' });
    expect(ilp.stats.status).toBe('fallback-greedy');
    expect(ilp.stats.objective).toBe(none.stats.objective);
    expect(ilp.stats.bound).toBe(0);
    expect(ilp.stats.gap).toBe(ilp.stats.objective > 0 ? 1 : 0);
    const notes = ilp.stats.notes.join(' ');
    expect(notes).toContain('no model was built in time');
    expect(notes).toContain('stopped the greedy walks');
  });

  it('NAS MG (class S) with a 0.05 s limit stops early with a finite bound and gap, well within 10× the limit + 1 s', async () => {
    const file = join(import.meta.dirname, '..', '..', 'bench', 'programs', 'mg.fuse');
    const compiler = new Compiler(readFileSync(file, 'utf8'), { fileName: file, solver });
    const signature = { v: { kind: 'array', elem: 'f64', shape: [32, 32, 32] }, nit: { kind: 'scalar', elem: 'i32', value: 4 } } as const;
    compiler.lower(signature); // lowering is not planning: outside the limit
    await solver.load();
    const t0 = performance.now();
    const { stats } = await compiler.plan(signature, { timeLimitSeconds: 0.05 });
    const wallMs = performance.now() - t0;
    expect(stats.status).not.toBe('optimal');
    expect(Number.isFinite(stats.bound)).toBe(true);
    expect(Number.isFinite(stats.gap)).toBe(true);
    expect(stats.bound!).toBeLessThanOrEqual(stats.objective);
    // A loose sanity bound, not a timing test: the unlimited plan takes over 1 s.
    expect(wallMs).toBeLessThan(10 * 50 + 1000);
  });

  it('timeMs counts building the graphs: it is at least the wall time of a zero-limit call less loading', async () => {
    const { program: p } = randomProgram(15, { combinators: 40, controlFlow: false });
    await solver.load();
    const t0 = performance.now();
    const result = await plan(p, { solver, timeLimitSeconds: 0 });
    expect(result.stats.timeMs).toBeLessThanOrEqual(performance.now() - t0);
    expect(result.stats.timeMs).toBeGreaterThan(0);
  });
});

describe('progress reports', () => {
  const program = randomProgram(16, { combinators: 120, controlFlow: true }).program;

  it('every 0 ms: reports from every stage, blocks counted from 1, elapsed time non-decreasing, gaps as SolverStats computes them', async () => {
    const reports: PlanProgress[] = [];
    const result = await plan(program, { solver, progressEveryMs: 0, onProgress: (p) => reports.push(p) });
    expect(reports.length).toBeGreaterThan(0);
    const blocks = reports[0]!.blocks;
    expect(blocks).toBeGreaterThan(1);
    expect(new Set(reports.map((r) => r.stage))).toEqual(new Set(['greedy', 'model', 'solve']));
    for (const [k, r] of reports.entries()) {
      expect(r.blocks).toBe(blocks);
      expect(r.block).toBeGreaterThanOrEqual(1);
      expect(r.block).toBeLessThanOrEqual(blocks);
      if (k > 0) expect(r.elapsedMs).toBeGreaterThanOrEqual(reports[k - 1]!.elapsedMs);
      expect(r.elapsedMs).toBeLessThanOrEqual(result.stats.timeMs);
      if (r.incumbent !== null && r.bound !== null) {
        expect(r.bound).toBeLessThanOrEqual(r.incumbent + 1e-6);
        expect(r.gap).toBeCloseTo(Math.max(0, (r.incumbent - r.bound) / Math.max(1, Math.abs(r.incumbent))), 12);
      } else {
        expect(r.gap).toBeNull();
      }
    }
    // Blocks are planned in order.
    expect(reports.map((r) => r.block)).toEqual([...reports.map((r) => r.block)].sort((a, b) => a - b));
  });

  it('the default interval reports nothing for a plan made in well under 0.5 s', async () => {
    const reports: PlanProgress[] = [];
    const small = randomProgram(17, { combinators: 5 }).program;
    await solver.load();
    const result = await plan(small, { solver, onProgress: (p) => reports.push(p) });
    if (result.stats.timeMs < 400) expect(reports).toEqual([]);
  });

  it('a listener that throws stops planning with its error, whether it is called by the planner or by HiGHS', async () => {
    // The first report of a block's solve stage comes from the planner, the later ones from HiGHS' callbacks.
    for (const [stage, nth] of [['greedy', 1], ['solve', 2]] as const) {
      const boom = new Error(`listener failed at ${stage}`);
      const seen = new Map<number, number>();
      const err = await plan(program, {
        solver,
        progressEveryMs: 0,
        onProgress: (p) => {
          if (p.stage !== stage) return;
          seen.set(p.block, (seen.get(p.block) ?? 0) + 1);
          if (seen.get(p.block) === nth) throw boom;
        },
      }).catch((e: unknown) => e);
      expect(err).toBe(boom);
    }
    // HiGHS is usable afterwards.
    expect((await plan(program, { solver })).stats.status).toBe('optimal');
  });

  it('a deadline already past interrupts HiGHS at its first MIP checkpoint, with no time limit of its own', async () => {
    const handle = await solver.load();
    const model = buildModel(programGraphs(randomProgram(18, { combinators: 60 }).program).graph, parseCost(defaultCostText));
    const free = solveModel(handle, model, {});
    const stopped = solveModel(handle, model, { deadline: performance.now() - 1 });
    // HiGHS' presolve may finish a model alone; then there is nothing to interrupt.
    if (free.nodes > 0 || free.outcome !== 'optimal') {
      expect(['time-limit', 'no-solution']).toContain(stopped.outcome);
      expect(stopped.nodes).toBe(0);
    }
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('progressEveryMs %s → E603', async (every) => {
    const err = await plan(program, { solver, progressEveryMs: every }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as UserError).code).toBe('E603');
  });
});

describe('weights', () => {
  it.each([
    [{ arrays: { xs: -1 } }, 'E609', 'the array weight of `xs` must be a finite non-negative number, not -1'],
    [{ edges: { 'a->b': Number.NaN } }, 'E609', 'the edge weight of `a->b` must be a finite non-negative number, not NaN'],
    [{ arrays: { xs: Number.POSITIVE_INFINITY } }, 'E609', 'not Infinity'],
  ])('%j → %s', async (weights, code, fragment) => {
    const { program: p } = randomProgram(1, { combinators: 3 });
    for (const strategy of ['ilp', 'greedy-down'] as const) {
      const err = await plan(p, { solver, strategy, weights }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UserError);
      expect((err as UserError).code).toBe(code);
      expect((err as UserError).message).toContain(fragment);
    }
  });
});
