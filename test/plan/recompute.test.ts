// The `recompute` cost term (docs/PLANNING.md): work duplicated by evaluating a node in the
// order of a gather to a larger shape. Hand-worked values of the definition on small programs,
// then the ILP's encoding against the independent evaluator and the brute force on random
// programs with shapes (so that growth factors vary), and the warm start's exactness.

import { describe, expect, it } from 'vitest';
import type { EntrySizes } from '../../src/graph/sizes.js';
import { evaluateBlockPlan, evaluatePlan } from '../../src/check/evaluate.js';
import { parseCost } from '../../src/plan/cost.js';
import { plan } from '../../src/plan/index.js';
import { programGraphs } from '../../src/graph/program.js';
import { bruteForce } from '../../src/check/bruteforce.js';
import { planGraph } from '../../src/driver/index.js';
import { graphToJson } from '../../src/graph/toJson.js';
import { buildModel, type IlpModel } from '../../src/plan/ilp/model.js';
import { startFromAssignment } from '../../src/plan/ilp/start.js';
import { createSolverLoader, solveModel } from '../../src/plan/ilp/solver.js';
import { toLpText } from '../../src/plan/ilp/lpfile.js';
import { greedyAssignment, noFusionAssignment } from '../../src/plan/greedy.js';
import { blockPlanFromAssignment } from '../../src/plan/clusters.js';
import { blockPlanCost } from '../../src/plan/objective.js';
import { formatViolation, validatePlan } from '../../src/check/validate.js';
import { componentsOf } from '../../src/ir/values.js';
import type { Expr, Program, Stmt } from '../../src/ir/types.js';
import { arr, arrayParam, bin, dim, f64, i32, lam, nodes, opLam, program, program as buildProgram, scalarParam, v } from '../ir/builders.js';
import { seededRng } from '../util/rng.js';
import { verifyProgram } from '../../src/ir/verify.js';
import { randomProgram } from '../util/index.js';
import { blockPlan, simple1 } from './fixtures-validate.js';
import { allBlocks, violations } from './modelCheck.js';

const solver = createSolverLoader();
const recompute = parseCost('recompute');
const rwr = parseCost('reads+writes+recompute');

/** simple1 fused: as (node 0) carries bs's label (node 1). */
const simple1Fused = blockPlan([[[0, 1], ['bs']]], { 0: { gather: 1 }, 1: 0 });
const simple1Apart = blockPlan([[[0], ['as']], [[1], ['bs']]], { 0: 0, 1: 0 });

/**
 * A row sum spread back over its rows, as in naiveAttention's softmax:
 *   ys = map (*2) xs  [r, c];  s = fold (+) ys  [r];  inds = generate (r, k) (i, j ↦ i);  bs = gather inds s  [r, k]
 * Nodes: ys 0, s 1, inds 2, bs 3.
 */
function rowSpread(): Program {
  const n = nodes();
  return program('rowSpread', [arrayParam('xs', 'f64', 2), scalarParam('k', 'i32')], [
    n.map([arr('ys', 'f64', 2)], ['xs'], lam([['x', 'f64']], bin('*', v('x', 'f64'), f64(2)))),
    n.fold([arr('s', 'f64', 1)], opLam('+', 'f64'), [f64(0)], ['ys']),
    n.generate([arr('inds', 'i32', 2)], [dim('xs', 0), v('k', 'i32')], lam([['i', 'i32'], ['j', 'i32']], v('i', 'i32'))),
    n.gather([arr('bs', 'f64', 2)], ['inds'], ['s']),
  ], ['bs']);
}
const rowSpreadFused = blockPlan([[[0, 1, 2, 3], ['bs']]], { 0: { gather: 3 }, 1: { gather: 3 }, 2: 0, 3: 0 });

describe('recompute: the definition on hand-worked programs', () => {
  it.each([
    // |bs| / |as| = 10 / 4: as is evaluated 2.5 times as often, 1.5 arrays extra.
    { what: 'a gather to a larger shape of a map is charged (factor − 1)', is: [10], xs: [4], fused: 1.5 },
    { what: 'a gather to the same shape costs nothing', is: [4], xs: [4], fused: 0 },
    { what: 'a gather to a smaller shape costs nothing', is: [2], xs: [4], fused: 0 },
  ])('$what', ({ is, xs, fused }) => {
    const shapes = { is, xs };
    expect(evaluateBlockPlan(simple1(), simple1Fused, recompute, { shapes }).total).toBe(fused);
    // Unfused, as is evaluated in its own order: nothing duplicated.
    expect(evaluateBlockPlan(simple1(), simple1Apart, recompute, { shapes }).total).toBe(0);
  });

  it('a fold fused into a row-spreading gather: the fold and its input, each by the row factor', () => {
    // bs: [3, 5], s: [3]: factor 5; ys and s each carry ℓ_bs, 4 arrays extra each.
    const e = evaluateBlockPlan(rowSpread(), rowSpreadFused, recompute, { shapes: { xs: [3, 7], k: 5 } });
    expect(e.terms.recompute).toBe(8);
    // Byte weights: ys 21 × 8 bytes, s 3 × 8 bytes, each × 4.
    expect(e.byteTerms.recompute).toBe((168 + 24) * 4);
  });

  it('user array weights scale it like writes', () => {
    const e = evaluateBlockPlan(rowSpread(), rowSpreadFused, recompute, { shapes: { xs: [3, 7], k: 5 }, weights: { arrays: { ys: 10 } } });
    expect(e.total).toBe(10 * 4 + 4);
  });

  it('sizes unknown at compile time: nothing is charged, and the plan says so', async () => {
    expect(evaluateBlockPlan(rowSpread(), rowSpreadFused, recompute, { shapes: { xs: [3, 7] } }).total).toBe(0);
    expect(evaluateBlockPlan(simple1(), simple1Fused, recompute).total).toBe(0);
    const p = await plan(rowSpread(), { cost: rwr, solver, shapes: { xs: [3, 7] } });
    expect(p.stats.notes.join('\n')).toMatch(/recompute: the sizes of `bs` .*not known at compile time/);
    const sized = await plan(rowSpread(), { cost: rwr, solver, shapes: { xs: [3, 7], k: 5 } });
    expect(sized.stats.notes).toEqual([]);
  });

  it('the ILP stops fusing a fold into a gather once the duplicated work outweighs a write and a read', async () => {
    // reads+writes alone fuses everything (reads xs, writes bs: 2).
    const rw = await plan(rowSpread(), { cost: 'reads+writes', solver, shapes: { xs: [3, 7], k: 5 } });
    expect(rw.root.orders[1]).toEqual({ gather: 3 });
    // With recompute, s is written (1) and read (1) instead of recomputed (2 × 4).
    const p = await plan(rowSpread(), { cost: rwr, solver, shapes: { xs: [3, 7], k: 5 } });
    expect(p.stats.status).toBe('optimal');
    expect(p.root.orders[1] === 0).toBe(true);
    expect(p.root.clusters.flatMap((c) => c.manifest)).toContain('s');
    expect(p.stats.objective).toBe(4);
    // A factor of 2: recomputing ys and s (1 + 1) costs what writing and reading s saves, so 4 either way.
    const small = await plan(rowSpread(), { cost: rwr, solver, shapes: { xs: [3, 7], k: 2 } });
    expect(small.stats.objective).toBe(4);
  });

  it('survives the JSON graph round trip (sizes travel with the graph)', async () => {
    const shapes = { xs: [3, 7], k: 5 };
    const json = graphToJson(programGraphs(rowSpread(), {}, shapes));
    for (const cost of ['recompute', 'reads+writes+recompute']) {
      const direct = await plan(rowSpread(), { cost, solver, shapes });
      expect((await planGraph(json, { cost, solver })).stats.objective, cost).toBe(direct.stats.objective);
    }
    // Without sizes the graph knows no factor: nothing is charged.
    expect((await planGraph(graphToJson(programGraphs(rowSpread())), { cost: 'recompute', solver })).stats.notes.join()).toMatch(/not known/);
  });

  it('the LP text export states the same optimum (r columns are continuous)', async () => {
    const handle = await solver.load();
    const bg = programGraphs(rowSpread(), {}, { xs: [3, 7], k: 5 });
    const model = buildModel(bg.graph, rwr);
    // ys can carry ℓ_bs through s; s, bs's source, pays through 1 − x(s, bs) instead.
    expect(model.layout.recompute.map((r) => bg.graph.nodes[r.node]!.name)).toEqual(['ys']);
    const fromText = handle.solveText('lp', toLpText(model), { mip_rel_gap: 0 });
    expect(fromText.optimal).toBe(true);
    expect(fromText.objective).toBeCloseTo(solveModel(handle, model).objective!, 6);
  });

  it('is a cost name of its own and combines in weighted sums', () => {
    expect(parseCost('2*reads + writes + 0.5*recompute').terms).toEqual([
      { term: 'reads', coefficient: 2, byteWeighted: false },
      { term: 'intermediate-arrays', coefficient: 1, byteWeighted: false },
      { term: 'recompute', coefficient: 0.5, byteWeighted: false },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// The ILP's encoding against the evaluator and the brute force
// ---------------------------------------------------------------------------------------------

/** Entry shapes and scalar values of a generated case, by component name. */
function entrySizes(program: Program, inputs: ReturnType<typeof randomProgram>['inputs']): EntrySizes {
  const sizes: Record<string, readonly number[] | number> = {};
  program.params.forEach((p, i) => {
    componentsOf(inputs[i]!).forEach((value, k) => {
      sizes[p.components[k]!.name] = value.kind === 'array' ? value.shape : value.value;
    });
  });
  return sizes;
}

const costs = ['reads+writes+recompute', 'recompute', '2*reads + writes + 3*recompute'];

/**
 * A random program of 3–6 nodes built for this term: maps, row folds and gathers (each with a
 * generate of its indices) to random static shapes, so that growth factors |g| / |src(g)| vary
 * above and below 1 and work can be fused into gathers through maps, folds and index inputs.
 * Planned only, never run, so index values need only be well typed.
 */
function gatherHeavyProgram(seed: number): { readonly program: Program; readonly shapes: EntrySizes } {
  const rng = seededRng(seed);
  const extent = (): number => rng.int(1, 5);
  const shapes = { xs: [extent(), extent()], ys: [extent()] };
  interface Arr { readonly name: string; readonly shape: readonly number[] }
  const pool: Arr[] = [{ name: 'xs', shape: shapes.xs }, { name: 'ys', shape: shapes.ys }];
  // Mostly the newest array, so that chains (map → fold → gather) are common.
  const recent = (from: readonly Arr[]): Arr => from[Math.max(0, from.length - 1 - (rng.int(0, 4) < 3 ? 0 : rng.int(1, 2)))]!;
  const n = nodes();
  const stmts: Stmt[] = [];
  const budget = rng.int(3, 6);
  let used = 0;
  while (used < budget) {
    const name = `a${stmts.length}`;
    const kind = rng.int(0, 9);
    const rank2 = pool.filter((a) => a.shape.length === 2);
    const produced = pool.slice(2);
    // A gather once there is a chain to fuse into it (or when only room for the gather is left).
    if (budget - used >= 2 && produced.length > 0 && (kind < 5 || budget - used === 2) && (produced.length >= 2 || budget - used === 2)) {
      // gather: a generate of one index array per source dimension, then the gather. Mostly of
      // an array made here, so that the source's producer can be fused into it.
      const src = recent(rng.int(0, 4) > 0 ? produced : pool);
      // Rank 1 of up to twice the source's elements (factors near 1, where chains decide), or rank 2.
      const elements = src.shape.reduce((a, b) => a * b, 1);
      const shape = rng.int(0, 1) === 0 ? [rng.int(1, 2 * elements + 1)] : [rng.int(1, 6), rng.int(1, 6)];
      const ps = shape.map((_, k): [string, 'i32'] => [`${name}_p${k}`, 'i32']);
      const sum = ps.map(([p]): Expr => v(p, 'i32')).reduce((a, b) => bin('+', a, b));
      const inds = src.shape.map((_, d) => arr(`${name}_i${d}`, 'i32', shape.length));
      stmts.push(n.generate(inds, shape.map((e) => i32(e)), lam(ps, src.shape.map((extentD, d) => bin('%', bin('+', sum, i32(d)), i32(extentD))))));
      stmts.push(n.gather([arr(name, 'f64', shape.length)], inds.map((a) => a.name), [src.name]));
      pool.push({ name, shape });
      used += 2;
    } else if (kind < 6 && rank2.length > 0) {
      const src = recent(rank2);
      stmts.push(n.fold([arr(name, 'f64', 1)], opLam('+', 'f64', `${name}_a`, `${name}_b`), [f64(0)], [src.name]));
      pool.push({ name, shape: [src.shape[0]!] });
      used++;
    } else {
      const first = recent(pool);
      const partners = pool.filter((a) => a !== first && a.shape.join() === first.shape.join());
      const second = partners.length > 0 && rng.int(0, 1) === 1 ? recent(partners) : null;
      const [px, py] = [`${name}_x`, `${name}_y`];
      const fn = second === null ? lam([[px, 'f64']], bin('*', v(px, 'f64'), f64(2))) : lam([[px, 'f64'], [py, 'f64']], bin('+', v(px, 'f64'), v(py, 'f64')));
      stmts.push(n.map([arr(name, 'f64', first.shape.length)], second === null ? [first.name] : [first.name, second.name], fn));
      pool.push({ name, shape: first.shape });
      used++;
    }
  }
  const last = pool[pool.length - 1]!.name;
  const program = buildProgram('gatherHeavy', [arrayParam('xs', 'f64', 2), arrayParam('ys', 'f64', 1)], stmts, [last]);
  verifyProgram(program);
  return { program, shapes };
}

/** Problems found checking the ILP's plan against the validator, evaluator and brute force. */
async function exactnessProblems(program: Program, shapes: EntrySizes, label: string): Promise<string[]> {
  const problems: string[] = [];
  for (const cost of costs) {
    const spec = parseCost(cost);
    const p = await plan(program, { cost, solver, shapes });
    const violations = validatePlan(program, p).map(formatViolation);
    const evaluated = evaluatePlan(program, p, spec, { shapes }).total;
    const best = bruteForce(program, spec, { shapes }).objective;
    if (p.stats.status !== 'optimal' || violations.length > 0 || Math.abs(p.stats.objective - evaluated) > 1e-6 || Math.abs(p.stats.objective - best) > 1e-6) {
      problems.push(`${label} ${cost}: ${p.stats.status}, ilp ${p.stats.objective}, evaluated ${evaluated}, brute force ${best} ${violations.join('; ')}`);
    }
  }
  return problems;
}

describe('recompute: ILP optimum = brute force = evaluated cost on random programs with shapes', () => {
  const batches = Array.from({ length: 5 }, (_, b) => Array.from({ length: 20 }, (_, i) => 9000 + b * 20 + i));
  it.each(batches.map((seeds) => ({ seeds, first: seeds[0]! })))('gather-heavy programs, seeds $first…', async ({ seeds }) => {
    const problems: string[] = [];
    let charged = 0;
    for (const seed of seeds) {
      const { program, shapes } = gatherHeavyProgram(seed);
      problems.push(...(await exactnessProblems(program, shapes, `seed ${seed}`)));
      // The term must be exercised: reads+writes alone often fuses work into growing gathers.
      const rw = await plan(program, { solver, shapes });
      if (evaluatePlan(program, rw, recompute, { shapes }).total > 0) charged++;
    }
    expect(problems).toEqual([]);
    expect(charged, 'programs whose reads+writes optimum recomputes work').toBeGreaterThan(0);
  });

  it('the shared random programs (control flow, scatters, scans), seeds 9100…', async () => {
    const problems: string[] = [];
    for (let seed = 9100; seed < 9130; seed++) {
      const { program, inputs } = randomProgram(seed, { combinators: { min: 2, max: 6 } });
      problems.push(...(await exactnessProblems(program, entrySizes(program, inputs), `seed ${seed}`)));
    }
    expect(problems).toEqual([]);
  });
});

describe('recompute: a greedy or unfused plan as a starting solution sets r exactly', () => {
  const cases = Array.from({ length: 15 }, (_, i) => 9500 + i).flatMap((seed) => {
    const shared = randomProgram(seed, { combinators: { min: 4, max: 25 } });
    return [
      { name: `shared ${seed}`, program: shared.program, shapes: entrySizes(shared.program, shared.inputs) },
      { name: `gather-heavy ${seed}`, ...gatherHeavyProgram(seed) },
    ];
  });
  it.each(cases)('$name', ({ program, shapes }) => {
    for (const bg of allBlocks(programGraphs(program, {}, shapes))) {
      for (const cost of costs) {
        const spec = parseCost(cost);
        const model = buildModel(bg.graph, spec);
        for (const a of [greedyAssignment(bg.graph, 'down'), greedyAssignment(bg.graph, 'up'), noFusionAssignment(bg.graph)]) {
          const values = startFromAssignment(bg.graph, model, a);
          expect(values, cost).not.toBeNull();
          expect(violations(model, values!), cost).toEqual([]);
          // The start's objective is at most the plan's cost (read streams may merge on read-back).
          const objectiveOf = (m: IlpModel, xs: Float64Array): number => m.offset + m.columns.reduce((s, c, i) => s + c.cost * xs[i]!, 0);
          const planned = blockPlanFromAssignment(bg.graph, a);
          expect(objectiveOf(model, values!), cost).toBeLessThanOrEqual(blockPlanCost(bg.graph, planned, spec) + 1e-6);
        }
      }
      // recompute alone: the start's objective is exactly the plan's (r is the indicator, not above it).
      const model = buildModel(bg.graph, recompute);
      for (const a of [greedyAssignment(bg.graph, 'down'), greedyAssignment(bg.graph, 'up'), noFusionAssignment(bg.graph)]) {
        const values = startFromAssignment(bg.graph, model, a)!;
        const objective = model.offset + model.columns.reduce((s, c, i) => s + c.cost * values[i]!, 0);
        expect(objective).toBeCloseTo(blockPlanCost(bg.graph, blockPlanFromAssignment(bg.graph, a), recompute), 6);
      }
    }
  });
});
