// Well-formed programs shared by tests: one that uses every statement kind.

import type { Program } from '../../src/ir/types.js';
import {
  arr,
  arrayParam,
  arrayValue,
  bin,
  block,
  c,
  call,
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
  sel,
  sp,
  v,
} from './builders.js';

/** xs: f64[_], is: i32[_], m: f64[_,_], k: i32 → w: f64[_]; every statement kind, spans, ±inf. */
export function everyStatementProgram(): Program {
  const n = nodes();
  const body = block([arrayValue('bx', 'f64', 1)], [n.map([arr('bx2', 'f64', 1)], ['bx'], lam([['y', 'f64']], call('sqrt', v('y', 'f64'))))], ['bx2']);
  const cond = block([arrayValue('cx', 'f64', 1)], [scalarStmt('go', bin('<', idx('cx', [i32(0)], 'f64', sp(40, 45)), f64(1)))], ['go']);
  return program('every', [arrayParam('xs', 'f64', 1), arrayParam('is', 'i32', 1), arrayParam('m', 'f64', 2), scalarParam('k', 'i32')], [
    scalarStmt('s', bin('+', cast('f64', v('k', 'i32')), idx('xs', [i32(0)], 'f64')), sp(1, 9)),
    n.generate([arr('g', 'i32', 1)], [dim('xs', 0)], lam([['i', 'i32']], v('i', 'i32')), sp(10, 20)),
    n.map([arr('a', 'f64', 1)], ['xs'], lam([['x', 'f64']], sel(bin('>', v('x', 'f64'), v('s', 'f64')), v('x', 'f64'), f64(0)))),
    n.gather([arr('gm', 'f64', 1)], ['is', 'g'], ['m']),
    n.fold([arr('rows', 'f64', 1)], opLam('+', 'f64', 'p', 'q'), [f64(0)], ['m']),
    n.scanl([arr('pre', 'f64', 1)], opLam('+', 'f64', 'p1', 'q1'), null, ['rows']),
    n.scanr([arr('suf', 'f64', 1)], opLam('max', 'f64', 'p2', 'q2'), [c('f64', -Infinity)], ['a']),
    n.force([arr('fa', 'f64', 1)], ['gm']),
    n.scatter([arr('sc', 'f64', 1)], opLam('+', 'f64', 'old', 'new'), ['fa'], ['g'], ['pre']),
    n.if_([arrayValue('r', 'f64', 1)], bin('>', v('k', 'i32'), i32(0)), block([], [], ['sc']), block([], [], ['suf'])),
    n.while_([arrayValue('w', 'f64', 1)], ['r'], cond, body),
  ], ['w']);
}
