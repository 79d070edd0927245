// Invariant 4 of DESIGN.md: with counters on, the arrays written and the (array, order) reads
// performed are exactly what the plan says, and the elements moved equal the plan's
// size-weighted estimate, computed here from the plan and the array sizes alone. Also: only
// manifest arrays are ever allocated (fused-away ones never are).

import { describe, expect, test } from 'vitest';
import type { CombinatorNode, NodeId, Program, Value, VarName } from '../../src/ir/types.js';
import { sizeOf, type InterfaceValue, type RuntimeValue } from '../../src/ir/values.js';
import type { Order, Plan } from '../../src/plan/types.js';
import { compileProgram } from '../../src/runtime/index.js';
import { array } from '../ir/builders.js';
import { nonePlan, paperCases } from '../codegen/paper.js';
import { interpret } from '../../src/interp/index.js';
import { plan } from '../../src/plan/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { validatePlan } from '../../src/check/validate.js';
import { randomProgram } from '../util/index.js';

const solver = createSolverLoader();

const key = (o: Order | 'unordered'): string => (typeof o === 'object' ? `g${o.gather}` : String(o));

/** The reads a node makes, by role, in the order PLANNING.md's table gives them. */
function roleReads(n: CombinatorNode, order: (id: NodeId) => Order): readonly (readonly [VarName, string])[] {
  const o = key(order(n.id));
  switch (n.kind) {
    case 'generate':
      return [];
    case 'map':
      return n.inputs.map((a) => [a, o] as const);
    case 'gather':
      return [...n.indices.map((a) => [a, o] as const), ...n.source.map((a) => [a, key({ gather: n.id })] as const)];
    case 'scatter':
      return [...n.index.map((a) => [a, o] as const), ...n.values.map((a) => [a, o] as const), ...n.dest.map((a) => [a, 'unordered'] as const)];
    case 'fold':
    case 'scanl':
    case 'scanr':
      return n.input.map((a) => [a, o] as const);
    case 'force':
      return n.input.map((a) => [a, 'unordered'] as const);
    default:
      return n satisfies never;
  }
}

/** Expected traffic of a plan: one stream per (cluster, array, read order) from memory. */
function expectedTraffic(p: Program, plan: Plan, sizes: ReadonlyMap<VarName, number>) {
  const byId = new Map(p.body.stmts.filter((s): s is CombinatorNode => 'outs' in s && s.kind !== 'if' && s.kind !== 'while').map((s) => [s.id, s]));
  const reads: Record<string, Record<string, number>> = {};
  const writes: Record<string, number> = {};
  for (const cluster of plan.root.clusters) {
    const nodes = cluster.nodes.map((id) => byId.get(id)!);
    const produced = new Set(nodes.flatMap((n) => n.outs.map((o) => o.name)));
    const streams = new Set<string>();
    for (const n of nodes) {
      for (const [a, o] of roleReads(n, (id) => plan.root.orders[id]!)) {
        if (produced.has(a) || streams.has(`${a}\u0000${o}`)) continue;
        streams.add(`${a}\u0000${o}`);
        (reads[a] ??= {})[o] = (reads[a]![o] ?? 0) + (o === 'unordered' && n.kind === 'scatter' ? sizes.get(n.index[0]!)! : sizes.get(a)!);
      }
      // A scatter writes (and reads its destination) once per source element.
      const written = (name: VarName): number => (n.kind === 'scatter' ? sizes.get(n.index[0]!)! : sizes.get(name)!);
      for (const out of n.outs) if (cluster.manifest.includes(out.name)) writes[out.name] = (writes[out.name] ?? 0) + written(out.name);
    }
  }
  return { reads, writes };
}

/** Sizes of every array, from the interpreter's run of the program with every array a result. */
function sizesOf(p: Program, inputs: readonly InterfaceValue[]): Map<VarName, number> {
  const arrays = [
    ...p.params.flatMap((i) => i.components),
    ...p.body.stmts.flatMap((s): Value[] => (s.kind === 'scalar' || s.kind === 'if' || s.kind === 'while' ? [] : s.outs.map((o) => ({ kind: 'array', ...o })))),
  ].filter((v) => v.kind === 'array');
  const all: Program = {
    ...p,
    body: { ...p.body, results: arrays.map((a) => a.name) },
    results: arrays.map((a) => ({ name: a.name, components: [a] })),
  };
  const values = interpret(all, inputs) as RuntimeValue[];
  return new Map(values.map((v, k) => [arrays[k]!.name, v.kind === 'array' ? sizeOf(v.shape) : 1]));
}

// Inputs whose gathers are permutations (index arrays as long as their sources), so that
// every stream moves exactly as many elements as its array has: the estimate is exact.
const inputs: Record<string, readonly InterfaceValue[]> = {
  singleLoop: [array('f64', [5], [1, 2, 3, 4, 5])],
  simple1: [array('i32', [3], [2, 0, 1]), array('f64', [3], [0.5, 1.5, -2])],
  simple2: [array('i32', [3], [2, 1, 0]), array('i32', [3], [0, 2, 1]), array('f64', [3], [7, 8, 9])],
  simple3: [array('i32', [3], [2, 0, 1]), array('f64', [3], [0.5, 1.5, -2])],
  simple4: [array('i32', [3], [2, 0, 1]), array('f64', [3, 4], Array.from({ length: 12 }, (_, i) => i))],
  simple5: [array('i32', [3], [2, 1, 0]), array('f64', [3], [1, 2, 3])],
  scatterExample: [array('f64', [4], [1, 2.5, 3, -1])],
};

describe.each(paperCases.map((c) => c()))('$name', (c) => {
  test.each([
    ['its optimal plan', c.plan],
    ['no fusion', nonePlan(c.program)],
  ])('under %s, counters match the plan and its size-weighted estimate', (_, plan) => {
    const args = inputs[c.name]!;
    const expected = expectedTraffic(c.program, plan, sizesOf(c.program, args));
    const { stats } = compileProgram(c.program, plan).run(args, { counters: true });
    const counters = stats.counters!;
    const reads = Object.fromEntries(Object.entries(counters).filter(([, t]) => Object.keys(t.reads).length > 0).map(([a, t]) => [a, { ...t.reads }]));
    const writes = Object.fromEntries(Object.entries(counters).filter(([, t]) => t.writes > 0).map(([a, t]) => [a, t.writes]));
    expect(reads).toEqual(expected.reads);
    expect(writes).toEqual(expected.writes);
  });

  test('only manifest arrays are allocated; fused-away arrays never are', () => {
    const { stats } = compileProgram(c.program, c.plan).run(inputs[c.name]!);
    const manifest = new Set(c.plan.root.clusters.flatMap((k) => k.manifest));
    const scatterOuts = new Set(c.program.body.stmts.flatMap((s) => (s.kind === 'scatter' ? s.outs.map((o) => o.name) : [])));
    // A scatter updates its destination in place: no allocation of its own.
    const expected = [...manifest].filter((a) => !scatterOuts.has(a)).sort();
    expect(stats.allocations.map((a) => a.array).sort()).toEqual(expected);
    expect(stats.bytesAllocated).toBe(stats.allocations.reduce((s, a) => s + a.bytes, 0));
  });
});

test('singleLoop allocates exactly one array of 5 f64 under its optimal plan, five without fusion', () => {
  const c = paperCases[0]!();
  const fused = compileProgram(c.program, c.plan).run(inputs['singleLoop']!);
  expect(fused.stats.allocations).toEqual([{ array: 'result', count: 1, elements: 5, bytes: 40, largestBytes: 40 }]);
  const none = compileProgram(c.program, nonePlan(c.program)).run(inputs['singleLoop']!);
  expect(none.stats.allocations.map((a) => a.array)).toEqual(['inds', 'bs', 'cs', 'ds', 'result']);
});

test('stats give time per cluster and no counters unless asked', () => {
  const c = paperCases[3]!();
  const { stats } = compileProgram(c.program, c.plan).run(inputs['simple3']!);
  expect(stats.counters).toBeNull();
  expect(stats.clusters.map((k) => [k.nodes, k.runs])).toEqual([[[0], 1], [[1], 1]]);
  expect(stats.clusters.every((k) => k.timeMs >= 0)).toBe(true);
});

describe('on random programs, the streams counted are the plan\'s streams', () => {
  test.each(Array.from({ length: 25 }, (_, k) => k + 1))('seed %i', async (seed) => {
    const c = randomProgram(seed, { combinators: { min: 2, max: 8 }, controlFlow: false });
    for (const strategy of ['none', 'greedy-down', 'ilp'] as const) {
      const p = await plan(c.program, { strategy, solver }).catch(() => null);
      if (p === null || validatePlan(c.program, p).length > 0) continue;
      const expected = expectedTraffic(c.program, p, sizesOf(c.program, c.inputs));
      const counters = compileProgram(c.program, p).run(c.inputs, { counters: true }).stats.counters!;
      const streams = (reads: Record<string, Record<string, number>>) =>
        Object.entries(reads).flatMap(([a, byOrder]) => Object.keys(byOrder).filter((o) => o !== 'indexed').map((o) => `${a} ${o}`)).sort();
      expect(streams(Object.fromEntries(Object.entries(counters).map(([a, t]) => [a, t.reads]))), `${strategy} ${c.description}`).toEqual(streams(expected.reads));
      // Every element of every manifest array is written exactly once.
      const written = Object.fromEntries(Object.entries(counters).filter(([, t]) => t.writes > 0).map(([a, t]) => [a, t.writes]));
      expect(written).toEqual(Object.fromEntries(Object.entries(expected.writes).filter(([, n]) => n > 0)));
    }
  });
});
