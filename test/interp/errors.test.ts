// Run-time errors of the reference interpreter: code, message and the line:col they point at,
// in a made-up source text whose spans the hand-built IR carries.

import { describe, expect, it } from 'vitest';
import { SourceFile, UserError, diagnosticPosition, type Span } from '../../src/diagnostics/index.js';
import { interpret } from '../../src/interp/index.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import type { Program } from '../../src/ir/types.js';
import {
  arr,
  array,
  arrayParam,
  arrayValue,
  bin,
  block,
  f64,
  i32,
  idx,
  lam,
  nodes,
  opLam,
  program,
  scalar,
  scalarParam,
  scalarStmt,
  scalarValue,
  v,
} from '../ir/builders.js';

const source = [
  'def f(xs, ys, is, k):', // line 1
  '  zs = map(lam x, y: x + y, xs, ys)', // line 2
  '  gs = gather(is, xs)', // line 3
  '  ss = scatter(+, xs, is, ys)', // line 4
  '  ws = map(lam x: x // k, is)', // line 5
  '  es = generate(k - 10, lam i: xs[i * 2])', // line 6
  '  while go(zs):', // line 7
].join('\n');
const file = new SourceFile('made-up.fuse', source);

/** The span of the `nth` occurrence of `fragment` in the source. */
function at(fragment: string, nth = 0): Span {
  let start = -1;
  for (let i = 0; i <= nth; i++) start = source.indexOf(fragment, start + 1);
  if (start < 0) throw new Error(`fragment ${fragment} not in source`);
  return { start, end: start + fragment.length };
}

function errorOf(p: Program, inputs: readonly InterfaceValue[], maxWhileIterations?: number): UserError {
  try {
    interpret(p, inputs, { file, maxWhileIterations });
  } catch (e) {
    if (e instanceof UserError) return e;
    throw e;
  }
  throw new Error('expected a UserError');
}

const n = nodes(100);
const f64s = (...xs: number[]) => array('f64', [xs.length], xs);
const i32s = (...xs: number[]) => array('i32', [xs.length], xs);

const zipAdd = program('f', [arrayParam('xs', 'f64', 1), arrayParam('ys', 'f64', 1)], [
  n.map([arr('zs', 'f64', 1)], ['xs', 'ys'], opLam('+', 'f64', 'x', 'y'), at('map(lam x, y: x + y, xs, ys)')),
], ['zs']);

const gatherProg = program('f', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f64', 1)], [
  n.gather([arr('gs', 'f64', 1)], ['is'], ['xs'], at('gather(is, xs)')),
], ['gs']);

const scatterProg = program('f', [arrayParam('xs', 'f64', 1), arrayParam('is', 'i32', 1), arrayParam('ys', 'f64', 1)], [
  n.scatter([arr('ss', 'f64', 1)], opLam('+', 'f64'), ['xs'], ['is'], ['ys'], at('scatter(+, xs, is, ys)')),
], ['ss']);

const divProg = program('f', [arrayParam('is', 'i32', 1), scalarParam('k', 'i32')], [
  n.map([arr('ws', 'i32', 1)], ['is'], lam([['x', 'i32']], bin('//', v('x', 'i32'), v('k', 'i32'), at('x // k'))), at('map(lam x: x // k, is)')),
], ['ws']);

const genProg = program('f', [arrayParam('xs', 'f64', 1), scalarParam('k', 'i32')], [
  n.generate(
    [arr('es', 'f64', 1)],
    [{ ...bin('-', v('k', 'i32'), i32(10)), span: at('k - 10') }],
    lam([['i', 'i32']], idx('xs', [bin('*', v('i', 'i32'), i32(2))], 'f64', at('xs[i * 2]'))),
    at('generate(k - 10, lam i: xs[i * 2])'),
  ),
], ['es']);

// while true: zs = zs (never ends)
const loopProg = program('f', [arrayParam('zs', 'f64', 1)], [
  n.while_(
    [arrayValue('out', 'f64', 1)],
    ['zs'],
    block([arrayValue('cz', 'f64', 1)], [scalarStmt('go', bin('<', f64(0), f64(1)))], ['go']),
    block([arrayValue('bz', 'f64', 1)], [], ['bz']),
    at('while go(zs):'),
  ),
], ['out']);

describe('run-time errors', () => {
  it.each<[string, Program, readonly InterfaceValue[], string, string, string]>([
    ['map shapes', zipAdd, [f64s(1, 2, 3), f64s(1, 2, 3, 4)], 'E403', 'map: shapes [3] and [4] differ', '2:8'],
    ['gather index', gatherProg, [i32s(0, 1, 7), f64s(1, 2, 3, 4, 5)], 'E402', 'gather: index 7 is out of range for an array of shape [5] (position 2 of the index array)', '3:8'],
    ['gather negative index', gatherProg, [i32s(-1), f64s(1)], 'E402', 'gather: index -1 is out of range', '3:8'],
    ['scatter index', scatterProg, [f64s(0, 0), i32s(1, 2), f64s(5, 6)], 'E402', 'scatter: index 2 is out of range for a destination of shape [2] (position 1 of the source)', '4:8'],
    ['scatter shapes', scatterProg, [f64s(0, 0), i32s(1, 1), f64s(5)], 'E403', 'scatter: shapes [2] and [1] differ', '4:8'],
    ['integer division by zero', divProg, [i32s(4, 5), scalar('i32', 0)], 'E401', 'map: integer division by zero', '5:19'],
    ['generate negative size', genProg, [f64s(1), scalar('i32', 3)], 'E404', 'generate: size -7 of dimension 0 is not a non-negative integer', '6:17'],
    ['indexing out of range', genProg, [f64s(1, 2, 3), scalar('i32', 13)], 'E402', 'generate: index 4 is out of range for xs of shape [3]', '6:32'],
    ['while iteration limit', loopProg, [f64s(1)], 'E405', 'while: the loop did not finish within 50 iterations', '7:3'],
  ])('%s', (_name, p, inputs, code, message, position) => {
    const err = errorOf(p, inputs, 50);
    expect(err.code).toBe(code);
    expect(err.diagnostics[0]!.message).toContain(message);
    expect(diagnosticPosition(err.diagnostics[0]!)).toBe(position);
  });
});

describe('input checks', () => {
  const two = program('two', [arrayParam('xs', 'f64', 2), scalarParam('k', 'i32')], [], ['xs']);
  it.each<[string, readonly InterfaceValue[], string, string]>([
    ['too few inputs', [array('f64', [1, 1], [0])], 'E410', 'two takes 2 inputs (xs, k), got 1'],
    ['scalar for an array', [scalar('f64', 1), scalar('i32', 1)], 'E411', 'input xs: expected an array of f64 of rank 2, got a scalar f64'],
    ['array for a scalar', [array('f64', [1, 1], [0]), i32s(1)], 'E411', 'input k: expected a scalar i32, got an array of i32 of shape [1]'],
    ['tuple for a plain array', [[array('f64', [1, 1], [0]), array('f64', [1, 1], [0])], scalar('i32', 1)], 'E411', 'input xs: expected 1 component, got 2'],
    ['element type', [array('f32', [1, 1], [0]), scalar('i32', 1)], 'E412', 'input xs: expected element type f64, got f32'],
    ['rank', [f64s(1, 2), scalar('i32', 1)], 'E413', 'input xs: expected rank 2, got shape [2] of rank 1'],
    ['data length', [{ kind: 'array', elem: 'f64', shape: [2, 2], data: new Float64Array(3) }, scalar('i32', 1)], 'E414', 'shape [2, 2] needs 4 elements, the data has 3'],
    ['typed array class', [{ kind: 'array', elem: 'f64', shape: [1, 1], data: new Float32Array(1) }, scalar('i32', 1)], 'E414', 'f64 data must be a Float64Array'],
    ['scalar value', [array('f64', [1, 1], [0]), scalar('i32', 2.5)], 'E414', 'input k: 2.5 is not a value of type i32'],
  ])('%s', (_name, inputs, code, message) => {
    const err = errorOf(two, inputs);
    expect(err.code).toBe(code);
    expect(err.diagnostics[0]!.message).toContain(message);
  });

  it('accepts a one-element list for a single-component parameter', () => {
    const out = interpret(two, [[array('f64', [1, 1], [3])], scalar('i32', 1)]);
    expect(out).toHaveLength(1);
    expect(scalarValue('x', 'f64').kind).toBe('scalar');
  });
});
