// The shared conformance examples (/work/shared/examples/*.fuse) built by hand as core IR, for
// the validator, evaluator and brute-force tests, with each example's plan as the paper states
// it. Built with test/ir/builders.ts until the parser and lowering can produce them.

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

const x = v('x', 'f64');

/** `def simple1(is, xs): as = map(f, xs); bs = gather(is, as); return bs` — ids: as 0, bs 1. */
export function simple1(): Program {
  const n = nodes();
  return program('simple1', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f64', 1)], [
    n.map([arr('as', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', bin('*', x, x), f64(1)))),
    n.gather([arr('bs', 'f64', 1)], ['is'], ['as']),
  ], ['bs']);
}

/** simple2: as = gather(is1, xs) (0), bs = gather(is2, as) (1). */
export function simple2(): Program {
  const n = nodes();
  return program('simple2', [arrayParam('is1', 'i32', 1), arrayParam('is2', 'i32', 1), arrayParam('xs', 'f64', 1)], [
    n.gather([arr('as', 'f64', 1)], ['is1'], ['xs']),
    n.gather([arr('bs', 'f64', 1)], ['is2'], ['as']),
  ], ['bs']);
}

/** simple3: simple1 returning (as, bs). */
export function simple3(): Program {
  const n = nodes();
  return program('simple3', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f64', 1)], [
    n.map([arr('as', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', bin('*', x, x), f64(1)))),
    n.gather([arr('bs', 'f64', 1)], ['is'], ['as']),
  ], ['as', 'bs']);
}

/** simple4: as = fold(+, xs) over rank-2 xs (0), bs = gather(is, as) (1). */
export function simple4(): Program {
  const n = nodes();
  return program('simple4', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f64', 2)], [
    n.fold([arr('as', 'f64', 1)], opLam('+', 'f64'), [f64(0)], ['xs']),
    n.gather([arr('bs', 'f64', 1)], ['is'], ['as']),
  ], ['bs']);
}

/** simple5: as = map(+1, xs) (0), bs = gather(is, xs) (1), cs = zipWith(*, as, bs) (2). */
export function simple5(): Program {
  const n = nodes();
  return program('simple5', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f64', 1)], [
    n.map([arr('as', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', x, f64(1)))),
    n.gather([arr('bs', 'f64', 1)], ['is'], ['xs']),
    n.map([arr('cs', 'f64', 1)], ['as', 'bs'], opLam('*', 'f64')),
  ], ['cs']);
}

/**
 * singleLoop: n = size(as); inds = generate(n, n-i-1) (0); bs = gather(inds, as) (1);
 * cs = map(*2, as) (2); ds = map(+1, cs) (3); result = zipWith3(b+c+d, bs, cs, ds) (4).
 */
export function singleLoop(): Program {
  const n = nodes();
  const nn = v('n', 'i32');
  return program('singleLoop', [arrayParam('as', 'f64', 1)], [
    scalarStmt('n', dim('as', 0)),
    n.generate([arr('inds', 'i32', 1)], [nn], lam([['i', 'i32']], bin('-', bin('-', nn, v('i', 'i32')), i32(1)))),
    n.gather([arr('bs', 'f64', 1)], ['inds'], ['as']),
    n.map([arr('cs', 'f64', 1)], ['as'], lam([['x', 'f64']], bin('*', x, f64(2)))),
    n.map([arr('ds', 'f64', 1)], ['cs'], lam([['c', 'f64']], bin('+', v('c', 'f64'), f64(1)))),
    n.map([arr('result', 'f64', 1)], ['bs', 'cs', 'ds'],
      lam([['b', 'f64'], ['c', 'f64'], ['d', 'f64']], bin('+', bin('+', v('b', 'f64'), v('c', 'f64')), v('d', 'f64')))),
  ], ['result']);
}

/**
 * scatterExample: as = map(x ↦ (i32(x*2) % size(xs), x), xs) as components (as_i, as_v) (0);
 * bs = map(+1, xs) (1); result = scatter(+, bs, as) (2).
 */
export function scatterExample(): Program {
  const n = nodes();
  return program('scatterExample', [arrayParam('xs', 'f64', 1)], [
    n.map([arr('as_i', 'i32', 1), arr('as_v', 'f64', 1)], ['xs'],
      lam([['x', 'f64']], [bin('%', cast('i32', bin('*', x, f64(2))), dim('xs', 0)), x])),
    n.map([arr('bs', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', x, f64(1)))),
    n.scatter([arr('result', 'f64', 1)], opLam('+', 'f64'), ['bs'], ['as_i'], ['as_v']),
  ], ['result']);
}

/**
 * greedyBottomUpBad(xs, m): is = generate((n, m), (i, j) ↦ i) (0); large = gather(is, xs) (1);
 * ys = fold(+, large) (2); zs = fold(*, large) (3); result = map(y ↦ y + zs!0, ys) (4).
 */
export function greedyBottomUpBad(): Program {
  const n = nodes();
  return program('greedyBottomUpBad', [arrayParam('xs', 'f64', 1), scalarParam('m', 'i32')], [
    scalarStmt('n', dim('xs', 0)),
    n.generate([arr('is', 'i32', 2)], [v('n', 'i32'), v('m', 'i32')], lam([['i', 'i32'], ['j', 'i32']], v('i', 'i32'))),
    n.gather([arr('large', 'f64', 2)], ['is'], ['xs']),
    n.fold([arr('ys', 'f64', 1)], opLam('+', 'f64'), [f64(0)], ['large']),
    n.fold([arr('zs', 'f64', 1)], opLam('*', 'f64'), [f64(1)], ['large']),
    n.map([arr('result', 'f64', 1)], ['ys'], lam([['y', 'f64']], bin('+', v('y', 'f64'), idx('zs', [i32(0)], 'f64')))),
  ], ['result']);
}

/**
 * greedyTopDownBad(as): bs = map(*2, as) (0); cs = map(+1, bs) (1);
 * ds = generate(n, i ↦ f64(i) + bs!0) (2); es = zipWith(+, cs, ds) (3); result = fold(+, es) (4).
 */
export function greedyTopDownBad(): Program {
  const n = nodes();
  return program('greedyTopDownBad', [arrayParam('as', 'f64', 1)], [
    scalarStmt('n', dim('as', 0)),
    n.map([arr('bs', 'f64', 1)], ['as'], lam([['a', 'f64']], bin('*', v('a', 'f64'), f64(2)))),
    n.map([arr('cs', 'f64', 1)], ['bs'], lam([['b', 'f64']], bin('+', v('b', 'f64'), f64(1)))),
    n.generate([arr('ds', 'f64', 1)], [v('n', 'i32')], lam([['i', 'i32']], bin('+', cast('f64', v('i', 'i32')), idx('bs', [i32(0)], 'f64')))),
    n.map([arr('es', 'f64', 1)], ['cs', 'ds'], opLam('+', 'f64')),
    n.fold([arr('result', 'f64', 0)], opLam('+', 'f64'), [f64(0)], ['es']),
  ], ['result']);
}

/** gather.fuse: js = map(i ↦ (i*7) % size(xs), is) (0); ks = generate(size(js), k ↦ js!k) (1); ys = gather(ks, xs) (2). */
export function gatherByIndexing(): Program {
  const n = nodes();
  return program('gather', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f64', 1)], [
    n.map([arr('js', 'i32', 1)], ['is'], lam([['i', 'i32']], bin('%', bin('*', v('i', 'i32'), i32(7)), dim('xs', 0)))),
    n.generate([arr('ks', 'i32', 1)], [dim('js', 0)], lam([['k', 'i32']], idx('js', [v('k', 'i32')], 'i32'))),
    n.gather([arr('ys', 'f64', 1)], ['ks'], ['xs']),
  ], ['ys']);
}

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

/** reverse.fuse: n = size(xs); inds = generate(n, n-i-1) (0); result = gather(inds, xs) (1). */
export function reverse(): Program {
  const n = nodes();
  const nn = v('n', 'i32');
  return program('reverse', [arrayParam('xs', 'f64', 1)], [
    scalarStmt('n', dim('xs', 0)),
    n.generate([arr('inds', 'i32', 1)], [nn], lam([['i', 'i32']], bin('-', bin('-', nn, v('i', 'i32')), i32(1)))),
    n.gather([arr('result', 'f64', 1)], ['inds'], ['xs']),
  ], ['result']);
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
