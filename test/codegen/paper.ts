// The paper's example programs (§1 singleLoop, §3.2 simple1…simple5, §3.3 scatterExample) as
// hand-built core IR, each with the plan the paper (and shared/examples/*.fuse) says is optimal,
// and the `none` plan. Shared by the golden, differential and counter tests.

import type { Order, Plan, BlockPlan } from '../../src/plan/types.js';
import type { CombinatorNode, NodeId, Program } from '../../src/ir/types.js';
import {
  arr, arrayParam, bin, dim, f64, i32, lam, nodes, opLam, program, v, cast,
} from '../ir/builders.js';

export function planOf(
  clusters: readonly { readonly nodes: readonly NodeId[]; readonly manifest: readonly string[] }[],
  orders: Readonly<Record<NodeId, Order>>,
): Plan {
  const root: BlockPlan = { clusters, orders, children: {} };
  return {
    strategy: 'ilp',
    cost: 'reads+writes',
    stats: { status: 'optimal', objective: 0, bound: null, gap: null, nodes: null, timeMs: 0, notes: [] },
    root,
  };
}

/** Every node alone, every output manifest, order 0 (scanr 1): the `none` plan. */
export function nonePlan(p: Program): Plan {
  const combinators = p.body.stmts.filter((s): s is CombinatorNode => s.kind !== 'scalar' && s.kind !== 'if' && s.kind !== 'while');
  const orders: Record<NodeId, Order> = {};
  for (const n of combinators) orders[n.id] = n.kind === 'scanr' ? 1 : 0;
  return planOf(
    combinators.map((n) => ({ nodes: [n.id], manifest: n.outs.map((o) => o.name) })),
    orders,
  );
}

export interface PaperCase {
  readonly name: string;
  readonly program: Program;
  readonly plan: Plan;
}

const x = (name = 'x') => v(name, 'f64');

export function singleLoop(): PaperCase {
  const n = nodes();
  const inds = n.generate([arr('inds', 'i32', 1)], [dim('as', 0)], lam([['i', 'i32']], bin('-', bin('-', dim('as', 0), v('i', 'i32')), i32(1))));
  const bs = n.gather([arr('bs', 'f64', 1)], ['inds'], ['as']);
  const cs = n.map([arr('cs', 'f64', 1)], ['as'], lam([['x', 'f64']], bin('*', x(), f64(2))));
  const ds = n.map([arr('ds', 'f64', 1)], ['cs'], lam([['c', 'f64']], bin('+', x('c'), f64(1))));
  const result = n.map(
    [arr('result', 'f64', 1)],
    ['bs', 'cs', 'ds'],
    lam([['b', 'f64'], ['c', 'f64'], ['d', 'f64']], bin('+', bin('+', x('b'), x('c')), x('d'))),
  );
  const program1 = program('singleLoop', [arrayParam('as', 'f64', 1)], [inds, bs, cs, ds, result], ['result']);
  return {
    name: 'singleLoop',
    program: program1,
    plan: planOf([{ nodes: [0, 1, 2, 3, 4], manifest: ['result'] }], { 0: 0, 1: 0, 2: 0, 3: 0, 4: 0 }),
  };
}

const square = lam([['x', 'f64']], bin('+', bin('*', x(), x()), f64(1)));

export function simple1(): PaperCase {
  const n = nodes();
  const as = n.map([arr('as', 'f64', 1)], ['xs'], square);
  const bs = n.gather([arr('bs', 'f64', 1)], ['is'], ['as']);
  return {
    name: 'simple1',
    program: program('simple1', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f64', 1)], [as, bs], ['bs']),
    plan: planOf([{ nodes: [0, 1], manifest: ['bs'] }], { 0: { gather: 1 }, 1: 0 }),
  };
}

export function simple2(): PaperCase {
  const n = nodes();
  const as = n.gather([arr('as', 'f64', 1)], ['is1'], ['xs']);
  const bs = n.gather([arr('bs', 'f64', 1)], ['is2'], ['as']);
  return {
    name: 'simple2',
    program: program(
      'simple2',
      [arrayParam('is1', 'i32', 1), arrayParam('is2', 'i32', 1), arrayParam('xs', 'f64', 1)],
      [as, bs],
      ['bs'],
    ),
    plan: planOf([{ nodes: [0, 1], manifest: ['bs'] }], { 0: { gather: 1 }, 1: 0 }),
  };
}

export function simple3(): PaperCase {
  const n = nodes();
  const as = n.map([arr('as', 'f64', 1)], ['xs'], square);
  const bs = n.gather([arr('bs', 'f64', 1)], ['is'], ['as']);
  return {
    name: 'simple3',
    program: program('simple3', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f64', 1)], [as, bs], ['as', 'bs']),
    plan: planOf(
      [
        { nodes: [0], manifest: ['as'] },
        { nodes: [1], manifest: ['bs'] },
      ],
      { 0: 0, 1: 0 },
    ),
  };
}

export function simple4(): PaperCase {
  const n = nodes();
  const as = n.fold([arr('as', 'f64', 1)], opLam('+', 'f64', 'acc', 'x'), [f64(0)], ['xs']);
  const bs = n.gather([arr('bs', 'f64', 1)], ['is'], ['as']);
  return {
    name: 'simple4',
    program: program('simple4', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f64', 2)], [as, bs], ['bs']),
    plan: planOf([{ nodes: [0, 1], manifest: ['bs'] }], { 0: { gather: 1 }, 1: 0 }),
  };
}

export function simple5(): PaperCase {
  const n = nodes();
  const as = n.map([arr('as', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', x(), f64(1))));
  const bs = n.gather([arr('bs', 'f64', 1)], ['is'], ['xs']);
  const cs = n.map([arr('cs', 'f64', 1)], ['as', 'bs'], lam([['a', 'f64'], ['b', 'f64']], bin('*', x('a'), x('b'))));
  return {
    name: 'simple5',
    program: program('simple5', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f64', 1)], [as, bs, cs], ['cs']),
    plan: planOf([{ nodes: [0, 1, 2], manifest: ['cs'] }], { 0: 0, 1: 0, 2: 0 }),
  };
}

/** §3.3: `as` fused into the scatter's cluster; `bs` (the destination) computed before. */
export function scatterExample(): PaperCase {
  const n = nodes();
  const as = n.map(
    [arr('as_0', 'i32', 1), arr('as_1', 'f64', 1)],
    ['xs'],
    lam([['x', 'f64']], [bin('%', cast('i32', bin('*', x(), f64(2))), dim('xs', 0)), x()]),
  );
  const bs = n.map([arr('bs', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', x(), f64(1))));
  const result = n.scatter([arr('result', 'f64', 1)], opLam('+', 'f64', 'old', 'new'), ['bs'], ['as_0'], ['as_1']);
  return {
    name: 'scatterExample',
    program: program('scatterExample', [arrayParam('xs', 'f64', 1)], [as, bs, result], ['result']),
    plan: planOf(
      [
        { nodes: [1], manifest: ['bs'] },
        { nodes: [0, 2], manifest: ['result'] },
      ],
      { 0: 0, 1: 0, 2: 0 },
    ),
  };
}

export const paperCases: readonly (() => PaperCase)[] = [singleLoop, simple1, simple2, simple3, simple4, simple5, scatterExample];
