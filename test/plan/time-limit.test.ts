// The ILP strategy under a time limit (src/plan/index.ts, docs/PLANNING.md "Solving"): whatever
// the limit, the plan is valid, never costs more than the better greedy plan, and always has a bound ≤ its objective and a gap, with notes saying where plan and
// bound came from. Deterministic checks only: the overshoot at 1,000–2,000 statements is
// measured in bench/plan/time-limit.test.ts, not here. Also: weights must be non-negative
// (the 0 bound relies on it).

import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/diagnostics/index.js';
import type { Program } from '../../src/ir/types.js';
import { plan, type PlanOptions } from '../../src/plan/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
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
  expect(s.bound).not.toBeNull();
  expect(s.gap).not.toBeNull();
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
    expect(ilp.stats.objective).toBeLessThanOrEqual(greedy + 1e-9);
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

  it('a zero limit: no model is built, the bound is 0 and the notes say why', async () => {
    const { program: p } = randomProgram(14, { combinators: 40, controlFlow: true });
    const { ilp, greedy } = await planChecked(p, { timeLimitSeconds: 0 });
    expect(ilp.stats.status).toBe('fallback-greedy');
    expect(ilp.stats.objective).toBe(greedy);
    expect(ilp.stats.bound).toBe(0);
    expect(ilp.stats.gap).toBe(ilp.stats.objective > 0 ? 1 : 0);
    expect(ilp.stats.notes.join(' ')).toContain('no model was built in time');
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
