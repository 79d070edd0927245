// The verifier accepts well-formed IR and names each broken invariant of hand-built bad IR.

import { describe, expect, it } from 'vitest';
import { CompilerBug } from '../../src/diagnostics/index.js';
import type { Program, Stmt } from '../../src/ir/types.js';
import { verifyProgram } from '../../src/ir/verify.js';
import { everyStatementProgram } from './fixtures.js';
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
  scalarValue,
  sel,
  v,
} from './builders.js';

const params = [arrayParam('xs', 'f64', 1), arrayParam('is', 'i32', 1), arrayParam('m', 'f64', 2), scalarParam('k', 'i32')];
/** A program over xs: f64[_], is: i32[_], m: f64[_,_], k: i32 whose body is `stmts`. */
function prog(stmts: readonly Stmt[], results: readonly string[]): Program {
  return program('p', params, stmts, results);
}
function bug(p: Program): string {
  try {
    verifyProgram(p, 'test-pass');
  } catch (e) {
    if (e instanceof CompilerBug) {
      expect(e.pass).toBe('test-pass');
      return e.message;
    }
    throw e;
  }
  return 'no error';
}

describe('accepts', () => {
  it('a program using every statement kind', () => {
    expect(bug(everyStatementProgram())).toBe('no error');
  });
});

describe('rejects', () => {
  const n = nodes();
  const double = (out: string, input: string) => n.map([arr(out, 'f64', 1)], [input], lam([[`${out}_x`, 'f64']], bin('*', v(`${out}_x`, 'f64'), f64(2))));
  const cases: [string, Program, string][] = [
    ['a name bound twice', prog([double('a', 'xs'), { ...double('a2', 'xs'), outs: [arr('a', 'f64', 1)] }], ['a']), 'a is bound twice'],
    ['a lambda parameter reusing a name', prog([n.map([arr('a', 'f64', 1)], ['xs'], lam([['k', 'f64']], v('k', 'f64')))], ['a']), 'k is bound twice'],
    ['a use before its definition', prog([double('b', 'a'), double('a', 'xs')], ['b']), 'a is not in scope'],
    ['a use of a name from a sibling block', prog([
      n.if_([arrayValue('r', 'f64', 1)], c('bool', 1), block([], [double('t', 'xs')], ['t']), block([], [], ['t'])),
    ], ['r']), 't is not in scope'],
    ['an unbound result', { ...prog([], []), body: { ...prog([], []).body, results: ['nowhere'] } }, 'nowhere is not in scope'],
    ['a scalar used as an array', prog([n.map([arr('a', 'f64', 1)], ['k'], lam([['x', 'f64']], v('x', 'f64')))], ['a']), 'k is a scalar where an array is expected'],
    ['mixed operand types', prog([scalarStmt('s', { kind: 'binary', op: '+', lhs: f64(1), rhs: i32(1), type: 'f64' })], []), 'operands of + have types f64 and i32'],
    ['a wrong comparison result type', prog([scalarStmt('s', { kind: 'binary', op: '<', lhs: f64(1), rhs: f64(2), type: 'f64' })], []), 'expected bool'],
    ['integer true division', prog([scalarStmt('s', bin('/', i32(1), i32(2)))], []), '/ on i32'],
    ['arithmetic on bool', prog([scalarStmt('s', bin('+', c('bool', 1), c('bool', 0)))], []), '+ on bool'],
    ['sqrt of an integer', prog([scalarStmt('s', call('sqrt', i32(4)))], []), 'sqrt of i32'],
    ['a var with the wrong type', prog([scalarStmt('s', v('k', 'f64'))], []), 'k has type i32 but is used as f64'],
    ['an unwrapped constant', prog([scalarStmt('s', c('i32', 2 ** 31))], []), 'not a value of type i32'],
    ['a non-bool select condition', prog([scalarStmt('s', sel(i32(1), f64(1), f64(2)))], []), 'select condition of type i32'],
    ['indexing with too few indices', prog([scalarStmt('s', idx('m', [i32(0)], 'f64'))], []), 'm has rank 2 but is indexed with 1 indices'],
    ['dim beyond the rank', prog([scalarStmt('s', dim('xs', 1))], []), 'dim(xs, 1) of an array of rank 1'],
    ['a map lambda of the wrong arity', prog([n.map([arr('a', 'f64', 1)], ['xs'], opLam('+', 'f64'))], ['a']), 'takes 2 parameters, expected 1'],
    ['map inputs of different ranks', prog([n.map([arr('a', 'f64', 1)], ['xs', 'm'], opLam('+', 'f64'))], ['a']), 'inputs have different ranks'],
    ['a map output of the wrong rank', prog([n.map([arr('a', 'f64', 2)], ['xs'], lam([['x', 'f64']], v('x', 'f64')))], ['a']), 'output a has rank 2, expected 1'],
    ['a lambda result of the wrong type', prog([n.map([arr('a', 'i32', 1)], ['xs'], lam([['x', 'f64']], v('x', 'f64')))], ['a']), 'lambda result 0 has type f64, expected i32'],
    ['a generate lambda per dimension', prog([n.generate([arr('g', 'f64', 2)], [i32(2), i32(2)], lam([['i', 'i32']], f64(0)))], ['g']), 'takes 1 parameters, expected 2'],
    ['a gather with too few index arrays', prog([n.gather([arr('g', 'f64', 1)], ['is'], ['m'])], ['g']), '1 index arrays for a source of rank 2'],
    ['a gather with float indices', prog([n.gather([arr('g', 'f64', 1)], ['xs'], ['xs'])], ['g']), 'index arrays must be i32'],
    ['a scatter with too many index arrays', prog([n.scatter([arr('s', 'f64', 1)], opLam('+', 'f64'), ['xs'], ['is', 'is'], ['xs'])], ['s']), '2 index arrays for a destination of rank 1'],
    ['a scatter into an entry parameter', prog([
      n.scatter([arr('s', 'f64', 1)], opLam('+', 'f64', 'o1', 'n1'), ['xs'], ['is'], ['xs']),
    ], ['s']), 'destination xs is not an array a combinator of this block produces'],
    ['a scatter destination used afterwards', prog([
      double('d', 'xs'),
      n.scatter([arr('s', 'f64', 1)], opLam('+', 'f64', 'o1', 'n1'), ['d'], ['is'], ['xs']),
      double('after', 'd'),
    ], ['s', 'after']), 'destination d is used after it (by a map'],
    ['a scatter reading its destination as its values', prog([
      double('d', 'xs'),
      n.scatter([arr('s', 'f64', 1)], opLam('+', 'f64', 'o1', 'n1'), ['d'], ['is'], ['d']),
    ], ['s']), 'reads its destination d as its index or values'],
    ['a scatter whose op indexes its destination', prog([
      double('d', 'xs'),
      n.scatter([arr('s', 'f64', 1)], lam([['o1', 'f64'], ['n1', 'f64']], bin('+', idx('d', [i32(0)], 'f64'), v('n1', 'f64'))), ['d'], ['is'], ['xs']),
    ], ['s']), 'its op reads its destination d'],
    ['a scatter whose op reads its destination through a scalar', prog([
      double('d', 'xs'),
      scalarStmt('d0', idx('d', [i32(0)], 'f64')),
      n.scatter([arr('s', 'f64', 1)], lam([['o1', 'f64'], ['n1', 'f64']], bin('+', v('d0', 'f64'), v('n1', 'f64'))), ['d'], ['is'], ['xs']),
    ], ['s']), 'its op reads its destination d'],
    ['a scalar result read from a scatter destination', prog([
      double('d', 'xs'),
      scalarStmt('d0', idx('d', [i32(0)], 'f64')),
      n.scatter([arr('s', 'f64', 1)], opLam('+', 'f64', 'o1', 'n1'), ['d'], ['is'], ['xs']),
    ], ['s', 'd0']), 'is a result of the block, or read by one'],
    ['a scatter into an if output', prog([
      double('d', 'xs'),
      n.if_([arrayValue('r', 'f64', 1)], c('bool', 1), block([], [], ['d']), block([], [], ['xs'])),
      n.scatter([arr('s', 'f64', 1)], opLam('+', 'f64', 'o1', 'n1'), ['r'], ['is'], ['xs']),
    ], ['s']), 'destination r is not an array a combinator of this block produces'],
    ['a scatter into an array an if output may share', prog([
      double('d', 'xs'),
      n.if_([arrayValue('r', 'f64', 1)], c('bool', 1), block([], [], ['d']), block([], [], ['xs'])),
      n.scatter([arr('s', 'f64', 1)], opLam('+', 'f64', 'o1', 'n1'), ['d'], ['is'], ['r']),
    ], ['s']), 'destination d may share its memory with r'],
    ['a scatter into an array a while output may share', prog([
      double('d', 'xs'),
      n.while_([arrayValue('w', 'f64', 1)], ['d'],
        block([arrayValue('c1', 'f64', 1)], [scalarStmt('go', c('bool', 0))], ['go']), block([arrayValue('b1', 'f64', 1)], [], ['b1'])),
      n.scatter([arr('s', 'f64', 1)], opLam('+', 'f64', 'o1', 'n1'), ['d'], ['is'], ['xs']),
    ], ['s', 'w']), 'destination d may share its memory with w'],
    ['a fold of a rank-0 array', prog([
      n.fold([arr('s0', 'f64', 0)], opLam('+', 'f64', 'p', 'q'), [f64(0)], ['xs']),
      n.fold([arr('s1', 'f64', 0)], opLam('+', 'f64', 'p1', 'q1'), [f64(0)], ['s0']),
    ], ['s1']), 'input of rank 0'],
    ['a fold output of the input rank', prog([n.fold([arr('s', 'f64', 1)], opLam('+', 'f64'), [f64(0)], ['xs'])], ['s']), 'output s has rank 1, expected 0'],
    ['a fold seed of the wrong type', prog([n.fold([arr('s', 'f64', 0)], opLam('+', 'f64'), [i32(0)], ['xs'])], ['s']), 'seed 0 has type i32, expected f64'],
    ['a scan with a seed per component missing', prog([n.scanl([arr('s', 'f64', 1)], opLam('+', 'f64'), [], ['xs'])], ['s']), '0 seeds for 1 components'],
    ['duplicate node ids', prog([
      { ...double('a', 'xs'), id: 7 } as Stmt,
      { ...double('b', 'xs'), id: 7 } as Stmt,
    ], ['a', 'b']), 'node id 7 is used twice'],
    ['an if with a non-bool condition', prog([n.if_([arrayValue('r', 'f64', 1)], i32(1), block([], [], ['xs']), block([], [], ['xs']))], ['r']), 'condition is not bool'],
    ['if branches of different types', prog([n.if_([arrayValue('r', 'f64', 1)], c('bool', 1), block([], [], ['xs']), block([], [], ['is']))], ['r']), 'result 0 is i32[rank 1], output r is f64[rank 1]'],
    ['a while cond returning an array', prog([n.while_([arrayValue('w', 'f64', 1)], ['xs'],
      block([arrayValue('c1', 'f64', 1)], [], ['c1']), block([arrayValue('b1', 'f64', 1)], [], ['b1']))], ['w']), 'must return one bool scalar'],
    ['a while body params not matching', prog([n.while_([arrayValue('w', 'f64', 1)], ['xs'],
      block([arrayValue('c1', 'f64', 1)], [scalarStmt('go', c('bool', 0))], ['go']), block([scalarValue('b1', 'f64')], [], ['b1']))], ['w']), 'body: its parameters do not match'],
    ['program results declared with the wrong type', { ...prog([], ['xs']), results: [{ name: 'xs', components: [arrayValue('xs', 'f64', 2)] }] }, 'xs is declared f64[rank 2] but is f64[rank 1]'],
    ['interface params not matching the block', { ...prog([], ['xs']), params: params.slice(1) }, '3 interface components for 4 block params'],
  ];
  it.each(cases)('%s', (_name, p, fragment) => {
    expect(bug(p)).toContain(fragment);
  });
});
