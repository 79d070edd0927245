// Planner invariants on random programs (DESIGN.md "Invariants" 1 and 2), with the shared
// generator (test/util): every plan of every strategy under every cost function is valid by the
// independent validator and reports the cost the independent evaluator computes; on programs
// of up to 7 graph nodes the ILP's optimum equals the brute-force minimum, for every cost
// function and for random weights.
//
// Budget: about half a minute on two cores. The long run (twenty times the cases) is
// `npx vitest run test/property/plan.property.test.ts --mode long` (Vite's mode, not an
// environment variable): meant for the `test:long` npm script.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Program } from '../../src/ir/types.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { bruteForce } from '../../src/plan/bruteforce.js';
import { parseCost, type CostWeights } from '../../src/plan/cost.js';
import { evaluatePlan, type EntrySizes } from '../../src/plan/evaluate.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { plan, programGraphs, type BlockGraphs } from '../../src/plan/index.js';
import type { Strategy } from '../../src/plan/types.js';
import { formatViolation, validatePlan } from '../../src/plan/validate.js';
import { forEachStmt, stmtReads } from '../../src/ir/walk.js';
import { arbitraryCase, generatorSizes } from '../util/index.js';
import { arr, arrayParam, arrayValue, bin, block, cast, dim, lam, i32, nodes, program as buildProgram, scalarParam, scalarStmt, scalarValue, tupleParam, v } from '../ir/builders.js';

/** One HiGHS instance for the whole file. */
const solver = createSolverLoader();

const long = (import.meta as { readonly env?: { readonly MODE?: string } }).env?.MODE === 'long';
const runs = (n: number): number => (long ? 20 * n : n);
const timeout = (ms: number): number => (long ? 40 * ms : ms);

const strategies: readonly Strategy[] = ['ilp', 'greedy-down', 'greedy-up', 'none'];
/** Every named cost and a weighted sum with a fractional coefficient. */
const costs = ['clusters', 'fused-edges', 'intermediate-arrays', 'reads', 'reads+writes', 'everything', 'bytes', '2*reads + writes + 0.5*fused-edges'];

/** The generated inputs' shapes (and scalar values), by component name, for `bytes`. */
function shapesOf(program: Program, inputs: readonly InterfaceValue[]): EntrySizes {
  const out: Record<string, readonly number[] | number> = {};
  program.params.forEach((param, i) => {
    const value = inputs[i]!;
    const values = Array.isArray(value) ? value : [value];
    param.components.forEach((c, k) => {
      const v = values[k]!;
      out[c.name] = v.kind === 'array' ? v.shape : v.value;
    });
  });
  return out;
}

/** Every array group and fusible edge of every block, by the names weights are keyed by. */
function weightKeys(bg: BlockGraphs, arrays = new Set<string>(), edges = new Set<string>()): { arrays: Set<string>; edges: Set<string> } {
  const { graph } = bg;
  const name = (id: number): string => graph.nodes.find((n) => n.id === id)!.name;
  for (const g of graph.groups) arrays.add(g.name);
  for (const e of graph.edges) if (e.fusible) edges.add(`${name(e.from)}->${name(e.to)}`);
  for (const blocks of Object.values(bg.children)) for (const b of blocks) weightKeys(b, arrays, edges);
  return { arrays, edges };
}

/** Does any statement inside an `if` or `while` block query a shape with dim(…)? */
function dimInControlFlow(program: Program): boolean {
  let found = false;
  forEachStmt(program.body, (s) => {
    if (s.kind !== 'if' && s.kind !== 'while') return;
    for (const b of s.kind === 'if' ? [s.then, s.else] : [s.cond, s.body]) forEachStmt(b, (t) => (found ||= stmtReads(t).dims.size > 0));
  });
  return found;
}

/** Is a scalar output of an `if` or `while` used by any statement (directly, or captured)? */
function controlScalarUsed(program: Program): boolean {
  const scalarsOut = new Set<string>();
  forEachStmt(program.body, (s) => {
    if (s.kind === 'if' || s.kind === 'while') for (const o of s.outs) if (o.kind === 'scalar') scalarsOut.add(o.name);
  });
  let found = false;
  forEachStmt(program.body, (s) => {
    const r = stmtReads(s);
    for (const name of [...r.scalars, ...r.captured]) found ||= scalarsOut.has(name);
  });
  return found;
}

/**
 * Three known bugs of the ILP's graph (src/graph/build.ts) make its plans or costs differ from
 * the independent validator's and evaluator's on some programs; the regression tests at the end
 * pin each one down. Until they are fixed the properties leave out exactly those cases:
 *  - byte weights of an entry array of tuples (its group lacks components);
 *  - `reads` when a control-flow block uses dim(xs) of an outer array (counted as a read);
 *  - any cost when a scalar output of an `if`/`while` is used later (no edge to the user).
 */
function knownMismatch(program: Program, costText: string): boolean {
  const { terms } = parseCost(costText);
  const tuples = program.params.some((p) => p.components.length > 1);
  return (
    (tuples && terms.some((t) => t.byteWeighted)) ||
    (dimInControlFlow(program) && terms.some((t) => t.term === 'reads')) ||
    controlScalarUsed(program)
  );
}

const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));

describe('every plan of every strategy and cost function', () => {
  it(
    'is valid and reports the cost the evaluator computes; the ILP proves it optimal',
    async () => {
      await fc.assert(
        fc.asyncProperty(arbitraryCase({ combinators: { min: 1, max: 12 } }), async ({ program, inputs }) => {
          const shapes = shapesOf(program, inputs);
          for (const strategy of strategies) {
            for (const costText of costs.filter((c) => !knownMismatch(program, c))) {
              const cost = parseCost(costText);
              const p = await plan(program, { solver, strategy, cost, shapes });
              const where = `${strategy}, ${costText}`;
              expect(validatePlan(program, p).map(formatViolation), where).toEqual([]);
              const evaluated = evaluatePlan(program, p, cost, { shapes }).total;
              expect(close(p.stats.objective, evaluated), `${where}: reported ${p.stats.objective}, evaluated ${evaluated}`).toBe(true);
              if (strategy === 'ilp') {
                expect(p.stats.status, where).toBe('optimal');
                expect(p.stats.bound, where).toBe(p.stats.objective);
              } else {
                expect(p.stats.status, where).toBe('heuristic');
              }
            }
          }
        }),
        { numRuns: runs(25), seed: 42 },
      );
    },
    timeout(60_000),
  );
});

describe('the ILP optimum equals the brute-force minimum (programs of up to 7 nodes)', () => {
  it(
    'for every cost function',
    async () => {
      await fc.assert(
        fc.asyncProperty(arbitraryCase(generatorSizes.small), async ({ program, inputs }) => {
          const shapes = shapesOf(program, inputs);
          for (const costText of costs.filter((c) => !knownMismatch(program, c))) {
            const cost = parseCost(costText);
            const ilp = await plan(program, { solver, cost, shapes });
            const brute = bruteForce(program, cost, { shapes });
            expect(close(ilp.stats.objective, brute.objective), `${costText}: ILP ${ilp.stats.objective}, brute force ${brute.objective}`).toBe(true);
            // No heuristic may beat the optimum either.
            for (const strategy of ['greedy-down', 'greedy-up', 'none'] as const) {
              const h = await plan(program, { solver, cost, shapes, strategy });
              expect(h.stats.objective + 1e-9, `${strategy} beat the optimum under ${costText}`).toBeGreaterThanOrEqual(brute.objective);
            }
          }
        }),
        { numRuns: runs(120), seed: 7 },
      );
    },
    timeout(60_000),
  );

  it(
    'under random array and edge weights (0 to 5, halves included)',
    async () => {
      const weightsArb = fc.array(fc.integer({ min: 0, max: 10 }), { minLength: 64, maxLength: 64 });
      await fc.assert(
        fc.asyncProperty(arbitraryCase(generatorSizes.small), weightsArb, async ({ program }, draws) => {
          const keys = weightKeys(programGraphs(program));
          const pickWeight = (i: number): number => draws[i % draws.length]! / 2;
          const weights: CostWeights = {
            arrays: Object.fromEntries([...keys.arrays].map((k, i) => [k, pickWeight(i)])),
            edges: Object.fromEntries([...keys.edges].map((k, i) => [k, pickWeight(i + 32)])),
          };
          for (const costText of ['reads+writes', 'everything', 'fused-edges + intermediate-arrays'].filter((c) => !knownMismatch(program, c))) {
            const cost = parseCost(costText);
            const ilp = await plan(program, { solver, cost, weights });
            const brute = bruteForce(program, cost, { weights });
            expect(close(ilp.stats.objective, brute.objective), `${costText}: ILP ${ilp.stats.objective}, brute force ${brute.objective}`).toBe(true);
            expect(close(evaluatePlan(program, ilp, cost, { weights }).total, ilp.stats.objective), costText).toBe(true);
          }
        }),
        { numRuns: runs(60), seed: 11 },
      );
    },
    timeout(60_000),
  );
});

describe('regressions: known differences between the ILP\'s graph and the validator\'s', () => {
  // Each `it.fails` passes while its bug is there; once src/graph/build.ts is fixed it fails:
  // then make it a plain `it` and drop its case from knownMismatch.
  const n = nodes();

  // Entry parameter ps = (p0: f64, p1: bool), read p1 first. build.ts creates the group on the
  // read of p1 and registers it under the group's name p0, so the read of p0 finds the group and
  // returns without adding p0 to its names and element types: `bytes` weighs ps as 6 × 1 bytes
  // instead of 6 × (8 + 1). PLANNING.md groups all components of an entry parameter.
  const tuples = buildProgram(
    'tuples',
    [tupleParam('ps', [arrayValue('p0', 'f64', 1), arrayValue('p1', 'bool', 1)])],
    [n.map([arr('ys', 'f64', 1)], ['p1', 'p0'], lam([['b', 'bool'], ['x', 'f64']], v('x', 'f64')))],
    ['ys'],
  );
  it.fails('bytes on an entry array of tuples: the ILP optimum equals the brute force (102)', async () => {
    const cost = parseCost('bytes');
    const shapes = { p0: [6], p1: [6] };
    expect(bruteForce(tuples, cost, { shapes }).objective).toBe(54 + 48);
    expect((await plan(tuples, { solver, cost, shapes })).stats.objective).toBe(54 + 48);
  });

  // dim(ys, 0) inside the `then` block: stmtReads' `captured` includes shape queries (the block
  // needs ys to exist), and build.ts turns every captured array into a `control` read, so the
  // ILP counts a read stream of ys that PLANNING.md ("dim is not a read") and the evaluator don't.
  const shapeInBranch = buildProgram(
    'shapeInBranch',
    [arrayParam('xs', 'f64', 1), arrayParam('ys', 'f64', 1), scalarParam('c', 'bool')],
    [
      n.if_(
        [arrayValue('zs', 'f64', 1)],
        v('c', 'bool'),
        block([], [n.map([arr('z1', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', v('x', 'f64'), cast('f64', dim('ys', 0)))))], ['z1']),
        block([], [n.map([arr('z2', 'f64', 1)], ['xs'], lam([['x', 'f64']], v('x', 'f64')))], ['z2']),
      ),
    ],
    ['zs'],
  );
  it.fails('reads with dim() of an outer array in a branch: the ILP optimum equals the brute force (3)', async () => {
    const cost = parseCost('reads');
    // xs: once by the if (unordered), once in each branch; ys: not read at all.
    expect(bruteForce(shapeInBranch, cost).objective).toBe(3);
    expect((await plan(shapeInBranch, { solver, cost })).stats.objective).toBe(3);
  });

  // k, a scalar output of an `if`, is used by the map after it, so the map must run after the
  // `if`. build.ts adds edges only for arrays, so the ILP's graph has no edge if → ys: the
  // `clusters` cost counts a chain of 1 where there are 2, and nothing keeps ys after the if.
  const scalarOut = buildProgram(
    'scalarOut',
    [arrayParam('xs', 'f64', 1), scalarParam('c', 'bool')],
    [
      n.if_([scalarValue('k', 'i32')], v('c', 'bool'), block([], [scalarStmt('k1', i32(1))], ['k1']), block([], [scalarStmt('k2', i32(2))], ['k2'])),
      n.map([arr('ys', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', v('x', 'f64'), cast('f64', v('k', 'i32'))))),
    ],
    ['ys'],
  );
  it.fails('a scalar output of an if used by a map: the ILP optimum equals the brute force (2 clusters)', async () => {
    const cost = parseCost('clusters');
    expect(bruteForce(scalarOut, cost).objective).toBe(2);
    expect((await plan(scalarOut, { solver, cost })).stats.objective).toBe(2);
  });

  it('the predicates of knownMismatch recognise the three programs', () => {
    expect(knownMismatch(scalarOut, 'fused-edges')).toBe(true);
    expect(knownMismatch(shapeInBranch, 'reads+writes')).toBe(true);
    expect(knownMismatch(tuples, 'bytes')).toBe(true);
    expect(knownMismatch(tuples, 'reads+writes')).toBe(false);
    expect(knownMismatch(shapeInBranch, 'reads')).toBe(true);
    expect(knownMismatch(shapeInBranch, 'fused-edges')).toBe(false);
  });
});
