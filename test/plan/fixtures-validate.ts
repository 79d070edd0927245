// The paper's plans for the hand-built examples (./fixtures.ts), by node id, and small programs
// for the validator, evaluator and brute-force tests, each targeting one rule or cost term.

import type { Program } from '../../src/ir/types.js';
import type { BlockPlan, Order } from '../../src/plan/types.js';
import {
  arr,
  arrayParam,
  arrayValue,
  bin,
  block,
  cast,
  dim,
  f64,
  i32,
  idx,
  lam,
  nodes,
  opLam,
  program,
  scalarParam,
  scalarStmt,
  tupleParam,
  v,
} from '../ir/builders.js';

// The paper's examples, hand-built once for all planner tests (the stated plans below use their node ids).
import { simple1, simple2, simple3, simple4, simple5, singleLoop, scatterExample, greedyBottomUpBad, greedyTopDownBad, gatherByIndexing, reverse } from './fixtures.js';

export { simple1, simple2, simple3, simple4, simple5, singleLoop, scatterExample, greedyBottomUpBad, greedyTopDownBad, gatherByIndexing, reverse };

const x = v('x', 'f64');

/**
 * A while loop doubling `acc` while `acc!0 < 100`, nested blocks: start (0), body's b_next (1),
 * the while (2), final (3).
 */
export function doubling(): Program {
  const n = nodes();
  const start = n.map([arr('start', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', x, f64(1))));
  const body = block([{ kind: 'array', name: 'b_acc', elem: 'f64', rank: 1 }], [
    n.map([arr('b_next', 'f64', 1)], ['b_acc'], lam([['x', 'f64']], bin('*', x, f64(2)))),
  ], ['b_next']);
  const cond = block([{ kind: 'array', name: 'c_acc', elem: 'f64', rank: 1 }], [
    scalarStmt('c_go', bin('<', idx('c_acc', [i32(0)], 'f64'), f64(100))),
  ], ['c_go']);
  return program('doubling', [arrayParam('xs', 'f64', 1)], [
    start,
    n.while_([{ kind: 'array', name: 'out', elem: 'f64', rank: 1 }], ['start'], cond, body),
    n.map([arr('final', 'f64', 1)], ['out'], lam([['x', 'f64']], bin('-', x, f64(1)))),
  ], ['final']);
}

/** A BlockPlan from `[[ids], [manifest names]]` per cluster and orders by id. */
export function blockPlan(
  clusters: readonly (readonly [readonly number[], readonly string[]])[],
  orders: Readonly<Record<number, Order>>,
  children: Readonly<Record<number, readonly BlockPlan[]>> = {},
): BlockPlan {
  return { clusters: clusters.map(([ids, manifest]) => ({ nodes: ids, manifest })), orders, children };
}

/** The paper's stated plans (reads+writes optimal) for the examples above. */
export const statedPlans: readonly { readonly name: string; readonly program: () => Program; readonly plan: BlockPlan }[] = [
  { name: 'simple1', program: simple1, plan: blockPlan([[[0, 1], ['bs']]], { 0: { gather: 1 }, 1: 0 }) },
  { name: 'simple2', program: simple2, plan: blockPlan([[[0, 1], ['bs']]], { 0: { gather: 1 }, 1: 0 }) },
  { name: 'simple3', program: simple3, plan: blockPlan([[[0], ['as']], [[1], ['bs']]], { 0: 0, 1: 0 }) },
  { name: 'simple4', program: simple4, plan: blockPlan([[[0, 1], ['bs']]], { 0: { gather: 1 }, 1: 0 }) },
  { name: 'simple5', program: simple5, plan: blockPlan([[[0, 1, 2], ['cs']]], { 0: 0, 1: 0, 2: 0 }) },
  {
    name: 'singleLoop',
    program: singleLoop,
    plan: blockPlan([[[0, 1, 2, 3, 4], ['result']]], { 0: 0, 1: 0, 2: 0, 3: 0, 4: 0 }),
  },
  {
    name: 'scatterExample',
    program: scatterExample,
    plan: blockPlan([[[1], ['bs']], [[0, 2], ['result']]], { 0: 0, 1: 0, 2: 0 }),
  },
  {
    name: 'greedyBottomUpBad',
    program: greedyBottomUpBad,
    plan: blockPlan([[[0, 1, 2, 3], ['ys', 'zs']], [[4], ['result']]], { 0: 0, 1: 0, 2: 0, 3: 0, 4: 0 }),
  },
  {
    name: 'greedyTopDownBad',
    program: greedyTopDownBad,
    plan: blockPlan([[[0], ['bs']], [[1, 2, 3, 4], ['result']]], { 0: 0, 1: 0, 2: 0, 3: 0, 4: 0 }),
  },
  {
    name: 'gather',
    program: gatherByIndexing,
    plan: blockPlan([[[0], ['js']], [[1, 2], ['ys']]], { 0: 0, 1: 0, 2: 0 }),
  },
  {
    name: 'doubling',
    program: doubling,
    plan: blockPlan([[[0], ['start']], [[2], []], [[3], ['final']]], { 0: 0, 3: 0 }, {
      2: [blockPlan([], {}), blockPlan([[[1], ['b_next']]], { 1: 0 })],
    }),
  },
];

/** ys = scanl(+, xs) (0): a fixed-order combinator. */
export function scanOnly(): Program {
  const n = nodes();
  return program('scanOnly', [arrayParam('xs', 'f64', 1)], [
    n.scanl([arr('ys', 'f64', 1)], opLam('+', 'f64'), null, ['xs']),
  ], ['ys']);
}

/** A force and a gather: fs = force(xs) (0), ys = gather(is, xs) (1), both results. */
export function forceBesideGather(): Program {
  const n = nodes();
  return program('forceBesideGather', [arrayParam('xs', 'f64', 1), arrayParam('is', 'i32', 1)], [
    n.force([arr('fs', 'f64', 1)], ['xs']),
    n.gather([arr('ys', 'f64', 1)], ['is'], ['xs']),
  ], ['fs', 'ys']);
}

/** Two maps over one source: ys = map(+1, xs) (0), zs = map(*2, xs) (1), both results. */
export function twoMapsOfOneSource(): Program {
  const n = nodes();
  return program('twoMaps', [arrayParam('xs', 'f64', 1)], [
    n.map([arr('ys', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', x, f64(1)))),
    n.map([arr('zs', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('*', x, f64(2)))),
  ], ['ys', 'zs']);
}

/** Two maps over different sources: ys = map(+1, xs) (0), zs = map(+1, ws) (1), both results. */
export function twoUnrelatedMaps(): Program {
  const n = nodes();
  return program('unrelated', [arrayParam('xs', 'f64', 1), arrayParam('ws', 'f64', 1)], [
    n.map([arr('ys', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', x, f64(1)))),
    n.map([arr('zs', 'f64', 1)], ['ws'], lam([['x', 'f64']], bin('+', x, f64(1)))),
  ], ['ys', 'zs']);
}

/** Diagonal: as = map(+1, xs) (0), bs = map(*2, as) (1), returns (as, bs). */
export function diagonal(): Program {
  const n = nodes();
  return program('diagonal', [arrayParam('xs', 'f64', 1)], [
    n.map([arr('as', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', x, f64(1)))),
    n.map([arr('bs', 'f64', 1)], ['as'], lam([['x', 'f64']], bin('*', x, f64(2)))),
  ], ['as', 'bs']);
}

/**
 * A scatter whose destination has another reader: ids = map(i32, xs) (0), bs = map(+1, xs)
 * (1), cs = map(*2, bs) (2), result = scatter(+, bs, ids, xs) (3); returns (result, cs).
 */
export function scatterWithReader(): Program {
  const n = nodes();
  return program('scatterWithReader', [arrayParam('xs', 'f64', 1)], [
    n.map([arr('ids', 'i32', 1)], ['xs'], lam([['x', 'f64']], cast('i32', x))),
    n.map([arr('bs', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', x, f64(1)))),
    n.map([arr('cs', 'f64', 1)], ['bs'], lam([['x', 'f64']], bin('*', x, f64(2)))),
    n.scatter([arr('result', 'f64', 1)], opLam('+', 'f64'), ['bs'], ['ids'], ['xs']),
  ], ['result', 'cs']);
}

/** A scatter whose values are its own destination bs (lowering would have copied bs). */
export function scatterReadingItsDestination(): Program {
  const n = nodes();
  return program('scatterReadingItsDestination', [arrayParam('xs', 'f64', 1)], [
    n.map([arr('ids', 'i32', 1)], ['xs'], lam([['x', 'f64']], cast('i32', x))),
    n.map([arr('bs', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', x, f64(1)))),
    n.scatter([arr('result', 'f64', 1)], opLam('+', 'f64'), ['bs'], ['ids'], ['bs']),
  ], ['result']);
}

/** A scatter straight into the entry input xs (lowering would have copied xs). */
export function scatterIntoInput(): Program {
  const n = nodes();
  return program('scatterIntoInput', [arrayParam('xs', 'f64', 1)], [
    n.map([arr('ids', 'i32', 1)], ['xs'], lam([['x', 'f64']], cast('i32', x))),
    n.scatter([arr('result', 'f64', 1)], opLam('+', 'f64'), ['xs'], ['ids'], ['xs']),
  ], ['result']);
}

/** A scatter into p of `p, q = map(…)`, q read after it: the order is per array, so valid. */
export function scatterIntoTupleComponent(): Program {
  const n = nodes();
  return program('scatterIntoTupleComponent', [arrayParam('xs', 'f64', 1)], [
    n.map([arr('p', 'f64', 1), arr('q', 'f64', 1)], ['xs'], lam([['x', 'f64']], [x, bin('+', x, f64(1))])),
    n.map([arr('ids', 'i32', 1)], ['xs'], lam([['x', 'f64']], cast('i32', x))),
    n.scatter([arr('result', 'f64', 1)], opLam('+', 'f64'), ['p'], ['ids'], ['xs']),
    n.map([arr('cs', 'f64', 1)], ['q', 'result'], opLam('+', 'f64')),
  ], ['cs']);
}

/** A chain of `length` maps over xs, the last one the result: ids 0 … length-1. */
export function mapChain(length: number): Program {
  const n = nodes();
  const stmts = Array.from({ length }, (_, i) =>
    n.map([arr(`m${i}`, 'f64', 1)], [i === 0 ? 'xs' : `m${i - 1}`], lam([['x', 'f64']], bin('+', x, f64(i)))),
  );
  return program('chain', [arrayParam('xs', 'f64', 1)], stmts, [`m${length - 1}`]);
}

/** `count` independent maps over xs, every one a result: the most partitions stay feasible. */
export function mapFan(count: number): Program {
  const n = nodes();
  const stmts = Array.from({ length: count }, (_, i) =>
    n.map([arr(`f${i}`, 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', x, f64(i)))),
  );
  return program('fan', [arrayParam('xs', 'f64', 1)], stmts, stmts.map((s) => s.outs[0]!.name));
}

/**
 * A branch that only asks for ys's size: ys = map(+1, xs) (0); r = if c then
 * generate(dim(ys, 0), f64) (1) else xs (2); returns (r, ys). `dim` is not a read: no edge ys → if.
 */
export function dimOnlyInBranch(): Program {
  const n = nodes();
  const ys = n.map([arr('ys', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', x, f64(1))));
  const then = block([], [n.generate([arr('zs', 'f64', 1)], [dim('ys', 0)], lam([['i', 'i32']], cast('f64', v('i', 'i32'))))], ['zs']);
  const otherwise = block([], [], ['xs']);
  return program('dimOnly', [arrayParam('xs', 'f64', 1), scalarParam('c', 'bool')], [
    ys,
    n.if_([{ kind: 'array', name: 'r', elem: 'f64', rank: 1 }], v('c', 'bool'), then, otherwise),
  ], ['r', 'ys']);
}

/**
 * An outer scalar used in a branch: s = xs!0; r = if c then map(x ↦ x + s, xs) (0) else xs (1).
 * `xs!0` is evaluated by the outer block: the if reads xs, the map in the branch does not index it.
 */
export function outerScalarInBranch(): Program {
  const n = nodes();
  const then = block([], [n.map([arr('ys', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', x, v('s', 'f64'))))], ['ys']);
  return program('outerScalar', [arrayParam('xs', 'f64', 1), scalarParam('c', 'bool')], [
    scalarStmt('s', idx('xs', [i32(0)], 'f64')),
    n.if_([{ kind: 'array', name: 'r', elem: 'f64', rank: 1 }], v('c', 'bool'), then, block([], [], ['xs'])),
  ], ['r']);
}

/** A scalar statement between two maps: ys = map(+1, xs) (0); t = ys!0; zs = map(x ↦ x * t, xs) (1). */
export function scalarBetween(): Program {
  const n = nodes();
  return program('scalarBetween', [arrayParam('xs', 'f64', 1)], [
    n.map([arr('ys', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', x, f64(1)))),
    scalarStmt('t0', idx('ys', [i32(0)], 'f64')),
    scalarStmt('t', bin('*', v('t0', 'f64'), f64(2))),
    n.map([arr('zs', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('*', x, v('t', 'f64')))),
  ], ['zs']);
}

/**
 * An entry array of tuples, its second component read first: ps = (ps_0: i32, ps_1: f64)[n];
 * ys = map((b, a) ↦ b + f64(a), ps_1, ps_0) (0).
 */
export function tupleEntry(): Program {
  const n = nodes();
  return program('tupleEntry', [tupleParam('ps', [arrayValue('ps_0', 'i32', 1), arrayValue('ps_1', 'f64', 1)])], [
    n.map([arr('ys', 'f64', 1)], ['ps_1', 'ps_0'], lam([['b', 'f64'], ['a', 'i32']], bin('+', v('b', 'f64'), cast('f64', v('a', 'i32'))))),
  ], ['ys']);
}
