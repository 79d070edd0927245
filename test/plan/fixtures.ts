// The shared examples (examples/*.fuse) built by hand in core IR, as the lowering would produce
// them, for planner tests that must not wait for the parser and the lowering. Each fixture
// names the nodes the example's header talks about.

import type { Program } from '../../src/ir/types.js';
import {
  arr,
  arrayParam,
  bin,
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
  v,
} from '../ir/builders.js';

const sq = lam([['x', 'f64']], bin('+', bin('*', v('x', 'f64'), v('x', 'f64')), f64(1)));

export function simple1(): Program {
  const n = nodes();
  return program('simple1', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f64', 1)], [
    n.map([arr('as', 'f64', 1)], ['xs'], sq),
    n.gather([arr('bs', 'f64', 1)], ['is'], ['as']),
  ], ['bs']);
}

export function simple2(): Program {
  const n = nodes();
  return program('simple2', [arrayParam('is1', 'i32', 1), arrayParam('is2', 'i32', 1), arrayParam('xs', 'f64', 1)], [
    n.gather([arr('as', 'f64', 1)], ['is1'], ['xs']),
    n.gather([arr('bs', 'f64', 1)], ['is2'], ['as']),
  ], ['bs']);
}

export function simple3(): Program {
  const n = nodes();
  return program('simple3', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f64', 1)], [
    n.map([arr('as', 'f64', 1)], ['xs'], sq),
    n.gather([arr('bs', 'f64', 1)], ['is'], ['as']),
  ], ['as', 'bs']);
}

export function simple4(): Program {
  const n = nodes();
  return program('simple4', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f64', 2)], [
    n.fold([arr('as', 'f64', 1)], opLam('+', 'f64'), [f64(0)], ['xs']),
    n.gather([arr('bs', 'f64', 1)], ['is'], ['as']),
  ], ['bs']);
}

export function simple5(): Program {
  const n = nodes();
  return program('simple5', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f64', 1)], [
    n.map([arr('as', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', v('x', 'f64'), f64(1)))),
    n.gather([arr('bs', 'f64', 1)], ['is'], ['xs']),
    n.map([arr('cs', 'f64', 1)], ['as', 'bs'], opLam('*', 'f64')),
  ], ['cs']);
}

/** reverse(as) is generate + gather (paper §2). */
export function singleLoop(): Program {
  const n = nodes();
  const size = dim('as', 0);
  return program('singleLoop', [arrayParam('as', 'f64', 1)], [
    n.generate([arr('inds', 'i32', 1)], [size], lam([['i', 'i32']], bin('-', bin('-', size, v('i', 'i32')), i32(1)))),
    n.gather([arr('bs', 'f64', 1)], ['inds'], ['as']),
    n.map([arr('cs', 'f64', 1)], ['as'], lam([['x', 'f64']], bin('*', v('x', 'f64'), f64(2)))),
    n.map([arr('ds', 'f64', 1)], ['cs'], lam([['c', 'f64']], bin('+', v('c', 'f64'), f64(1)))),
    n.map([arr('result', 'f64', 1)], ['bs', 'cs', 'ds'], lam([['b', 'f64'], ['c', 'f64'], ['d', 'f64']], bin('+', bin('+', v('b', 'f64'), v('c', 'f64')), v('d', 'f64')))),
  ], ['result']);
}

export function scatterExample(): Program {
  const n = nodes();
  return program('scatterExample', [arrayParam('xs', 'f64', 1)], [
    n.map([arr('as_0', 'i32', 1), arr('as_1', 'f64', 1)], ['xs'], lam([['x', 'f64']], [
      bin('%', cast('i32', bin('*', v('x', 'f64'), f64(2))), dim('xs', 0)),
      v('x', 'f64'),
    ])),
    n.map([arr('bs', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', v('x', 'f64'), f64(1)))),
    n.scatter([arr('result', 'f64', 1)], opLam('+', 'f64'), ['bs'], ['as_0'], ['as_1']),
  ], ['result']);
}

export function greedyTopDownBad(): Program {
  const n = nodes();
  return program('greedyTopDownBad', [arrayParam('as', 'f64', 1)], [
    n.map([arr('bs', 'f64', 1)], ['as'], lam([['a', 'f64']], bin('*', v('a', 'f64'), f64(2)))),
    n.map([arr('cs', 'f64', 1)], ['bs'], lam([['b', 'f64']], bin('+', v('b', 'f64'), f64(1)))),
    n.generate([arr('ds', 'f64', 1)], [dim('as', 0)], lam([['i', 'i32']], bin('+', cast('f64', v('i', 'i32')), idx('bs', [i32(0)], 'f64')))),
    n.map([arr('es', 'f64', 1)], ['cs', 'ds'], opLam('+', 'f64')),
    n.fold([arr('result', 'f64', 0)], opLam('+', 'f64'), [f64(0)], ['es']),
  ], ['result']);
}

/** `result` reads zs through the scalar statement `z = zs!0`: the transitive indexing case. */
export function greedyBottomUpBad(): Program {
  const n = nodes();
  return program('greedyBottomUpBad', [arrayParam('xs', 'f64', 1), scalarParam('m', 'i32')], [
    n.generate([arr('is', 'i32', 2)], [dim('xs', 0), v('m', 'i32')], lam([['i', 'i32'], ['j', 'i32']], v('i', 'i32'))),
    n.gather([arr('large', 'f64', 2)], ['is'], ['xs']),
    n.fold([arr('ys', 'f64', 1)], opLam('+', 'f64'), [f64(0)], ['large']),
    n.fold([arr('zs', 'f64', 1)], opLam('*', 'f64'), [f64(1)], ['large']),
    scalarStmt('z', idx('zs', [i32(0)], 'f64')),
    n.map([arr('result', 'f64', 1)], ['ys'], lam([['y', 'f64']], bin('+', v('y', 'f64'), v('z', 'f64')))),
  ], ['result']);
}

export function reverse(): Program {
  const n = nodes();
  const size = dim('xs', 0);
  return program('reverse', [arrayParam('xs', 'f64', 1)], [
    n.generate([arr('inds', 'i32', 1)], [size], lam([['i', 'i32']], bin('-', bin('-', size, v('i', 'i32')), i32(1)))),
    n.gather([arr('result', 'f64', 1)], ['inds'], ['xs']),
  ], ['result']);
}

/** gather written with backpermute: the index array is read by indexing. */
export function gatherByIndexing(): Program {
  const n = nodes();
  return program('gather', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f64', 1)], [
    n.map([arr('js', 'i32', 1)], ['is'], lam([['i', 'i32']], bin('%', bin('*', v('i', 'i32'), i32(7)), dim('xs', 0)))),
    n.generate([arr('ks', 'i32', 1)], [dim('js', 0)], lam([['k', 'i32']], idx('js', [v('k', 'i32')], 'i32'))),
    n.gather([arr('ys', 'f64', 1)], ['ks'], ['xs']),
  ], ['ys']);
}

export function backpermute(): Program {
  const n = nodes();
  return program('backpermute', [arrayParam('xs', 'f64', 1)], [
    n.map([arr('ys', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('*', v('x', 'f64'), f64(3)))),
    n.generate([arr('is', 'i32', 1)], [bin('//', dim('xs', 0), i32(2))], lam([['i', 'i32']], bin('*', i32(2), v('i', 'i32')))),
    n.gather([arr('zs', 'f64', 1)], ['is'], ['ys']),
  ], ['zs']);
}

/** The paper's examples with the number of clusters their headers state (cost reads+writes). */
export const paperExamples: readonly { readonly name: string; readonly build: () => Program; readonly clusters: number; readonly manifest: readonly string[] }[] = [
  { name: 'simple1', build: simple1, clusters: 1, manifest: ['bs'] },
  { name: 'simple2', build: simple2, clusters: 1, manifest: ['bs'] },
  { name: 'simple3', build: simple3, clusters: 2, manifest: ['as', 'bs'] },
  { name: 'simple4', build: simple4, clusters: 1, manifest: ['bs'] },
  { name: 'simple5', build: simple5, clusters: 1, manifest: ['cs'] },
  { name: 'singleLoop', build: singleLoop, clusters: 1, manifest: ['result'] },
  { name: 'scatterExample', build: scatterExample, clusters: 2, manifest: ['bs', 'result'] },
  { name: 'greedyTopDownBad', build: greedyTopDownBad, clusters: 2, manifest: ['bs', 'result'] },
  { name: 'greedyBottomUpBad', build: greedyBottomUpBad, clusters: 2, manifest: ['zs', 'ys', 'result'] },
  { name: 'reverse', build: reverse, clusters: 1, manifest: ['result'] },
  { name: 'gather', build: gatherByIndexing, clusters: 2, manifest: ['js', 'ys'] },
  { name: 'backpermute', build: backpermute, clusters: 1, manifest: ['zs'] },
];
