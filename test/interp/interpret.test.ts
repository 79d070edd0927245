// The reference interpreter on hand-built IR: every combinator, every element type, with
// expected values written out or computed by plain loops in the test (never by the interpreter).

import { describe, expect, it } from 'vitest';
import { interpret } from '../../src/interp/index.js';
import { verifyProgram } from '../../src/ir/verify.js';
import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import type { Program, ScalarType } from '../../src/ir/types.js';
import {
  arr,
  array,
  arrayParam,
  arrayValue,
  bin,
  block,
  bool,
  c,
  call,
  cast,
  dim,
  f32,
  f64,
  i32,
  idx,
  lam,
  let_,
  nodes,
  opLam,
  program,
  scalar,
  scalarParam,
  scalarStmt,
  scalarValue,
  sel,
  tupleParam,
  u32,
  un,
  v,
} from '../ir/builders.js';

/** Interprets a program after checking that the hand-built IR is well-formed. */
function interpretChecked(p: Program, inputs: readonly InterfaceValue[]): InterfaceValue[] {
  verifyProgram(p, 'test');
  return interpret(p, inputs);
}
function only(values: InterfaceValue[]): RuntimeValue {
  expect(values.length).toBe(1);
  return values[0] as RuntimeValue;
}
function run1(p: Program, inputs: readonly InterfaceValue[]): { shape: readonly number[]; data: number[]; elem: ScalarType } {
  const r = only(interpretChecked(p, inputs));
  if (r.kind !== 'array') throw new Error('expected an array result');
  return { shape: r.shape, data: Array.from(r.data), elem: r.elem };
}
/** A one-map program over one rank-1 input of type t, `fn` applied to `x`. */
function mapProgram(t: ScalarType, out: ScalarType, body: (x: ReturnType<typeof v>) => Parameters<typeof lam>[1]): Program {
  const n = nodes();
  return program('m', [arrayParam('xs', t, 1)], [n.map([arr('ys', out, 1)], ['xs'], lam([['x', t]], body(v('x', t))))], ['ys']);
}
function binMap(t: ScalarType, op: Parameters<typeof bin>[0]): Program {
  const n = nodes();
  const out = op === '==' || op === '<' ? 'bool' : t;
  return program(
    'b',
    [arrayParam('as', t, 1), arrayParam('bs', t, 1)],
    [n.map([arr('cs', out, 1)], ['as', 'bs'], lam([['a', t], ['b', t]], bin(op, v('a', t), v('b', t))))],
    ['cs'],
  );
}

describe('generate', () => {
  it('applies the function to every index of a 2-D shape in row-major order', () => {
    const n = nodes();
    const p = program('g', [], [
      n.generate([arr('g', 'i32', 2)], [i32(2), i32(3)], lam([['i', 'i32'], ['j', 'i32']], bin('+', bin('*', v('i', 'i32'), i32(10)), v('j', 'i32')))),
    ], ['g']);
    expect(run1(p, [])).toEqual({ shape: [2, 3], elem: 'i32', data: [0, 1, 2, 10, 11, 12] });
  });

  it('takes its size from dim of an input and can produce a tuple', () => {
    const n = nodes();
    const t = 'i32';
    const p = program('rev', [arrayParam('xs', 'f64', 1)], [
      n.generate([arr('a', t, 1), arr('b', 'bool', 1)], [dim('xs', 0)], lam([['i', t]], [
        bin('-', bin('-', dim('xs', 0), v('i', t)), i32(1)),
        bin('==', bin('%', v('i', t), i32(2)), i32(0)),
      ])),
    ], ['a', 'b']);
    const [a, b] = interpretChecked(p, [array('f64', [4], [9, 9, 9, 9])]) as RuntimeValue[];
    expect(a).toMatchObject({ shape: [4] });
    expect(Array.from((a as { data: Int32Array }).data)).toEqual([3, 2, 1, 0]);
    expect(Array.from((b as { data: Uint8Array }).data)).toEqual([1, 0, 1, 0]);
    expect(b!.elem).toBe('bool');
  });

  it('makes rank-0 arrays, which hold one element', () => {
    const n = nodes();
    const p = program('z', [], [n.generate([arr('z', 'f64', 0)], [], lam([], f64(42)))], ['z']);
    expect(run1(p, [])).toEqual({ shape: [], elem: 'f64', data: [42] });
  });

  it('makes empty arrays of size 0', () => {
    const n = nodes();
    const p = program('e', [], [n.generate([arr('e', 'f64', 2)], [i32(3), i32(0)], lam([['i', 'i32'], ['j', 'i32']], f64(1)))], ['e']);
    expect(run1(p, [])).toEqual({ shape: [3, 0], elem: 'f64', data: [] });
  });
});

describe('map and element types', () => {
  it('maps several inputs to several outputs', () => {
    const n = nodes();
    const p = program('sd', [arrayParam('as', 'f64', 2), arrayParam('bs', 'f64', 2)], [
      n.map([arr('s', 'f64', 2), arr('d', 'f64', 2)], ['as', 'bs'], lam([['a', 'f64'], ['b', 'f64']], [
        bin('+', v('a', 'f64'), v('b', 'f64')),
        bin('-', v('a', 'f64'), v('b', 'f64')),
      ])),
    ], ['s', 'd']);
    const [s, d] = interpretChecked(p, [array('f64', [2, 2], [1, 2, 3, 4]), array('f64', [2, 2], [10, 20, 30, 40])]) as RuntimeValue[];
    expect(s).toMatchObject({ shape: [2, 2] });
    expect(Array.from((s as { data: Float64Array }).data)).toEqual([11, 22, 33, 44]);
    expect(Array.from((d as { data: Float64Array }).data)).toEqual([-9, -18, -27, -36]);
  });

  it('evaluates lets in order and math functions on f64', () => {
    const p = mapProgram('f64', 'f64', (x) => v('t', 'f64'));
    const withLets = {
      ...p,
      body: {
        ...p.body,
        stmts: [{
          ...(p.body.stmts[0] as Extract<Program['body']['stmts'][number], { kind: 'map' }>),
          fn: lam([['x', 'f64']], bin('+', v('t', 'f64'), f64(1)), [let_('s', call('sqrt', v('x', 'f64'))), let_('t', bin('*', v('s', 'f64'), f64(3)))]),
        }],
      },
    };
    expect(run1(withLets, [array('f64', [3], [4, 9, 2])]).data).toEqual([4 * 0 + 7, 10, Math.sqrt(2) * 3 + 1]);
  });

  it('wraps i32 arithmetic', () => {
    const as = [2147483647, -2147483648, 65536, 123456789];
    const bs = [1, -1, 65536, 1000];
    expect(run1(binMap('i32', '+'), [array('i32', [4], as), array('i32', [4], bs)]).data).toEqual([-2147483648, 2147483647, 131072, 123457789]);
    expect(run1(binMap('i32', '*'), [array('i32', [4], as), array('i32', [4], bs)]).data).toEqual([2147483647, -2147483648, 0, -1097262584]);
    // 123456789 * 1000 = 123456789000; 123456789000 mod 2^32 = 3197704712, as i32: 3197704712 - 2^32.
    expect(3197704712 - 4294967296).toBe(-1097262584);
  });

  it('wraps u32 arithmetic', () => {
    const p = binMap('u32', '-');
    expect(run1(p, [array('u32', [3], [0, 5, 4294967295]), array('u32', [3], [1, 3, 4294967295])]).data).toEqual([4294967295, 2, 0]);
  });

  it('rounds every f32 operation', () => {
    const p = mapProgram('f32', 'f32', (x) => bin('+', bin('*', x, f32(0.1)), f32(1e-8)));
    const xs = [3, 1 / 3, 16777217];
    const expected = xs.map((x) => {
      const r = Math.fround;
      return r(r(r(x) * r(0.1)) + r(1e-8));
    });
    expect(run1(p, [array('f32', [3], xs)]).data).toEqual(expected);
    // and the f32 result differs from the f64 one, so rounding really happened
    expect(expected[1]).not.toBe((1 / 3) * 0.1 + 1e-8);
  });

  it('floors integer division and gives the remainder the sign of the divisor', () => {
    const as = [7, -7, 7, -7];
    const bs = [2, 2, -2, -2];
    expect(run1(binMap('i32', '//'), [array('i32', [4], as), array('i32', [4], bs)]).data).toEqual([3, -4, -4, 3]);
    expect(run1(binMap('i32', '%'), [array('i32', [4], as), array('i32', [4], bs)]).data).toEqual([1, 1, -1, -1]);
    expect(run1(binMap('f64', '%'), [array('f64', [2], [-7.5, 7.5]), array('f64', [2], [2, -2])]).data).toEqual([0.5, -0.5]);
    expect(run1(binMap('f64', '//'), [array('f64', [2], [-7.5, 7.5]), array('f64', [2], [2, -2])]).data).toEqual([-4, -4]);
  });

  it('computes comparisons, bool logic, casts and selects', () => {
    const t = 'f64';
    const n = nodes();
    const p = program('cmp', [arrayParam('xs', t, 1)], [
      n.map([arr('b', 'bool', 1), arr('k', 'i32', 1), arr('s', 'f64', 1), arr('u', 'u32', 1)], ['xs'], lam([['x', t]], [
        bin('and', bin('<', v('x', t), f64(2)), un('not', bin('==', v('x', t), f64(0)))),
        cast('i32', v('x', t)),
        sel(bin('>', v('x', t), f64(0)), v('x', t), un('neg', v('x', t))),
        cast('u32', cast('i32', v('x', t))),
      ])),
    ], ['b', 'k', 's', 'u']);
    const outs = interpretChecked(p, [array('f64', [4], [0, 1.5, -2.7, 3.9])]) as RuntimeValue[];
    const data = outs.map((o) => Array.from((o as { data: ArrayLike<number> }).data));
    expect(data).toEqual([
      [0, 1, 1, 0],
      [0, 1, -2, 3],
      [-0, 1.5, 2.7, 3.9], // neg(0) is -0, as in IEEE arithmetic
      [0, 1, 4294967294, 3],
    ]);
    expect(outs.map((o) => o.elem)).toEqual(['bool', 'i32', 'f64', 'u32']);
  });

  it('evaluates only the chosen branch of a select', () => {
    // ys[i] = xs[i + 1] if i + 1 < n else 0.0, with n = dim(xs, 0): the else branch guards the read.
    const n = nodes();
    const t = 'i32';
    const p = program('shift', [arrayParam('xs', 'f64', 1)], [
      n.generate([arr('ys', 'f64', 1)], [dim('xs', 0)], lam([['i', t]],
        sel(bin('<', bin('+', v('i', t), i32(1)), dim('xs', 0)), idx('xs', [bin('+', v('i', t), i32(1))], 'f64'), f64(0)))),
    ], ['ys']);
    expect(run1(p, [array('f64', [3], [1, 2, 3])]).data).toEqual([2, 3, 0]);
  });

  it('maps over rank-0 arrays and indexes them with no indices', () => {
    const n = nodes();
    const p = program('r0', [arrayParam('z', 'i32', 0)], [
      n.map([arr('w', 'i32', 0)], ['z'], lam([['x', 'i32']], bin('+', v('x', 'i32'), idx('z', [], 'i32')))),
    ], ['w']);
    expect(run1(p, [array('i32', [], [21])])).toEqual({ shape: [], elem: 'i32', data: [42] });
  });

  it('computes integer powers by wrapping multiplication and float powers with Math.pow', () => {
    expect(run1(binMap('i32', '**'), [array('i32', [3], [3, 2, -2]), array('i32', [3], [4, 31, 3])]).data).toEqual([81, -2147483648, -8]);
    expect(run1(binMap('f64', '**'), [array('f64', [2], [2, 9]), array('f64', [2], [0.5, 0.5])]).data).toEqual([Math.SQRT2, 3]);
  });
});

describe('gather', () => {
  it('reads the source at each index (reverse)', () => {
    const n = nodes();
    const p = program('g', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f32', 1)], [n.gather([arr('ys', 'f32', 1)], ['is'], ['xs'])], ['ys']);
    expect(run1(p, [array('i32', [4], [3, 2, 1, 1]), array('f32', [4], [0.5, 1.5, 2.5, 3.5])])).toEqual({ shape: [4], elem: 'f32', data: [3.5, 2.5, 1.5, 1.5] });
  });

  it('takes one index array per source dimension; the output has the index arrays shape', () => {
    const n = nodes();
    const p = program('g2', [arrayParam('r', 'i32', 2), arrayParam('c', 'i32', 2), arrayParam('m', 'u32', 2)], [
      n.gather([arr('ys', 'u32', 2)], ['r', 'c'], ['m']),
    ], ['ys']);
    const m = array('u32', [2, 3], [0, 1, 2, 10, 11, 12]);
    const out = run1(p, [array('i32', [2, 2], [1, 0, 1, 1]), array('i32', [2, 2], [2, 0, 0, 1]), m]);
    expect(out).toEqual({ shape: [2, 2], elem: 'u32', data: [12, 0, 10, 11] });
  });

  it('gathers every component of a tuple source', () => {
    const n = nodes();
    const p = program('gt', [arrayParam('is', 'i32', 1), tupleParam('ps', [arrayValue('ps0', 'i32', 1), arrayValue('ps1', 'bool', 1)])], [
      n.gather([arr('q0', 'i32', 1), arr('q1', 'bool', 1)], ['is'], ['ps0', 'ps1']),
    ], [{ name: 'q', components: [arrayValue('q0', 'i32', 1), arrayValue('q1', 'bool', 1)] }]);
    const [q] = interpretChecked(p, [array('i32', [2], [1, 0]), [array('i32', [2], [5, 6]), array('bool', [2], [0, 1])]]);
    expect((q as RuntimeValue[]).map((x) => Array.from((x as { data: ArrayLike<number> }).data))).toEqual([[6, 5], [1, 0]]);
  });
});

describe('scatter', () => {
  const plus = opLam('+', 'f64', 'old', 'new');
  function scatterProgram(op: ReturnType<typeof lam>): Program {
    const n = nodes();
    // The IR's scatter updates its destination in place, so (as lowering does) it scatters
    // into a copy of the input: the update must be unobservable (src/ir/updates.ts).
    return program('s', [arrayParam('dest', 'f64', 1), arrayParam('is', 'i32', 1), arrayParam('vs', 'f64', 1)], [
      n.map([arr('d', 'f64', 1)], ['dest'], lam([['x', 'f64']], v('x', 'f64'))),
      n.scatter([arr('out', 'f64', 1)], op, ['d'], ['is'], ['vs']),
    ], ['out']);
  }

  it('combines every source element into the destination with the operator', () => {
    const out = run1(scatterProgram(plus), [array('f64', [4], [1, 1, 1, 1]), array('i32', [3], [0, 2, 0]), array('f64', [3], [1, 2, 3])]);
    expect(out.data).toEqual([5, 1, 3, 1]);
  });

  it('applies updates in source order', () => {
    // op(old, new) = old * 10 + new: the order of the two updates at index 1 shows in the digits.
    const op = lam([['old', 'f64'], ['new', 'f64']], bin('+', bin('*', v('old', 'f64'), f64(10)), v('new', 'f64')));
    const out = run1(scatterProgram(op), [array('f64', [2], [0, 0]), array('i32', [3], [1, 0, 1]), array('f64', [3], [1, 5, 2])]);
    expect(out.data).toEqual([5, 12]);
  });

  it('does not change its destination input', () => {
    const dest = array('f64', [2], [7, 7]);
    run1(scatterProgram(plus), [dest, array('i32', [1], [0]), array('f64', [1], [1])]);
    expect(Array.from(dest.data)).toEqual([7, 7]);
  });

  it('scatters into a 2-D destination with two index arrays', () => {
    const n = nodes();
    const p = program('s2', [arrayParam('d', 'i32', 2), arrayParam('r', 'i32', 1), arrayParam('c', 'i32', 1), arrayParam('vs', 'i32', 1)], [
      n.map([arr('d1', 'i32', 2)], ['d'], lam([['x', 'i32']], v('x', 'i32'))),
      n.scatter([arr('out', 'i32', 2)], opLam('max', 'i32'), ['d1'], ['r', 'c'], ['vs']),
    ], ['out']);
    const out = run1(p, [array('i32', [2, 2], [0, 0, 0, 0]), array('i32', [2], [1, 1]), array('i32', [2], [0, 0]), array('i32', [2], [4, 3])]);
    expect(out).toEqual({ shape: [2, 2], elem: 'i32', data: [0, 0, 4, 0] });
  });
});

describe('fold', () => {
  function foldProgram(rank: number, init: number, op = opLam('+', 'f64', 'acc', 'x')): Program {
    const n = nodes();
    return program('f', [arrayParam('xs', 'f64', rank)], [n.fold([arr('s', 'f64', rank - 1)], op, [f64(init)], ['xs'])], ['s']);
  }

  it('reduces the innermost dimension of a matrix', () => {
    expect(run1(foldProgram(2, 0), [array('f64', [2, 3], [1, 2, 3, 4, 5, 6])])).toEqual({ shape: [2], elem: 'f64', data: [6, 15] });
  });

  it('reduces a vector to a rank-0 array, starting from the seed', () => {
    expect(run1(foldProgram(1, 100), [array('f64', [3], [1, 2, 3])])).toEqual({ shape: [], elem: 'f64', data: [106] });
  });

  it('gives the seed for empty rows', () => {
    expect(run1(foldProgram(2, 5), [array('f64', [2, 0], [])]).data).toEqual([5, 5]);
  });

  it('folds left to right: acc = op(acc, x)', () => {
    const op = lam([['acc', 'f64'], ['x', 'f64']], bin('+', bin('*', v('acc', 'f64'), f64(10)), v('x', 'f64')));
    expect(run1(foldProgram(1, 0, op), [array('f64', [3], [1, 2, 3])]).data).toEqual([123]);
  });

  it('folds tuples: the maximum and where it is', () => {
    const n = nodes();
    const op = lam([['m', 'f64'], ['at', 'i32'], ['x', 'f64'], ['i', 'i32']], [
      sel(bin('>', v('x', 'f64'), v('m', 'f64')), v('x', 'f64'), v('m', 'f64')),
      sel(bin('>', v('x', 'f64'), v('m', 'f64')), v('i', 'i32'), v('at', 'i32')),
    ]);
    const p = program('argmax', [arrayParam('xs', 'f64', 1), arrayParam('is', 'i32', 1)], [
      n.fold([arr('best', 'f64', 0), arr('where', 'i32', 0)], op, [c('f64', -Infinity), i32(-1)], ['xs', 'is']),
    ], ['best', 'where']);
    const [m, at] = interpretChecked(p, [array('f64', [4], [3, 9, 2, 9]), array('i32', [4], [0, 1, 2, 3])]) as RuntimeValue[];
    expect(Array.from((m as { data: Float64Array }).data)).toEqual([9]);
    expect(Array.from((at as { data: Int32Array }).data)).toEqual([1]);
  });
});

describe('scans', () => {
  // op(a, b) = a - b is not commutative, so the expected values pin down order and direction.
  const minus = opLam('-', 'i32');
  function scanProgram(kind: 'scanl' | 'scanr', seed: number | null, rank = 1): Program {
    const n = nodes();
    const init = seed === null ? null : [i32(seed)];
    const node = kind === 'scanl' ? n.scanl([arr('s', 'i32', rank)], minus, init, ['xs']) : n.scanr([arr('s', 'i32', rank)], minus, init, ['xs']);
    return program(kind, [arrayParam('xs', 'i32', rank)], [node], ['s']);
  }
  const xs = array('i32', [3], [1, 2, 3]);

  it.each([
    ['scanl', null, [1, 1 - 2, 1 - 2 - 3]],
    ['scanl', 10, [10, 10 - 1, 10 - 1 - 2]],
    ['scanr', null, [1 - (2 - 3), 2 - 3, 3]],
    ['scanr', 10, [2 - (3 - 10), 3 - 10, 10]],
  ] as const)('%s with seed %s', (kind, seed, expected) => {
    expect(run1(scanProgram(kind, seed), [xs])).toEqual({ shape: [3], elem: 'i32', data: expected });
  });

  it('scans each innermost row of a matrix independently', () => {
    const out = run1(scanProgram('scanl', null, 2), [array('i32', [2, 2], [5, 1, 7, 2])]);
    expect(out).toEqual({ shape: [2, 2], elem: 'i32', data: [5, 4, 7, 5] });
  });

  it('scans empty rows to empty rows', () => {
    expect(run1(scanProgram('scanr', 0, 2), [array('i32', [2, 0], [])])).toEqual({ shape: [2, 0], elem: 'i32', data: [] });
  });

  it('computes a prefix sum of bool flags as i32 (the filter pattern)', () => {
    const n = nodes();
    const p = program('flags', [arrayParam('fs', 'bool', 1)], [
      n.map([arr('ks', 'i32', 1)], ['fs'], lam([['f', 'bool']], cast('i32', v('f', 'bool')))),
      n.scanl([arr('pos', 'i32', 1)], opLam('+', 'i32'), [i32(0)], ['ks']),
    ], ['pos']);
    expect(run1(p, [array('bool', [5], [1, 0, 1, 1, 0])]).data).toEqual([0, 1, 1, 2, 3]);
  });
});

describe('force, scalars and control flow', () => {
  it('force copies its input', () => {
    const n = nodes();
    const p = program('f', [arrayParam('xs', 'u32', 1)], [n.force([arr('ys', 'u32', 1)], ['xs'])], ['ys']);
    const xs = array('u32', [2], [1, 2]);
    const out = only(interpretChecked(p, [xs]));
    expect(out).toMatchObject({ shape: [2], elem: 'u32' });
    expect((out as { data: Uint32Array }).data).not.toBe(xs.data);
    expect(Array.from((out as { data: Uint32Array }).data)).toEqual([1, 2]);
  });

  it('evaluates array-level scalars (indexing included) and lets lambdas use them', () => {
    const n = nodes();
    const p = program('sc', [arrayParam('xs', 'f64', 1), scalarParam('k', 'f64')], [
      scalarStmt('first', idx('xs', [i32(0)], 'f64')),
      scalarStmt('w', bin('*', v('first', 'f64'), v('k', 'f64'))),
      n.map([arr('ys', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', v('x', 'f64'), v('w', 'f64')))),
    ], ['ys', 'w']);
    const [ys, w] = interpretChecked(p, [array('f64', [2], [3, 4]), scalar('f64', 2)]) as RuntimeValue[];
    expect(Array.from((ys as { data: Float64Array }).data)).toEqual([9, 10]);
    expect(w).toEqual({ kind: 'scalar', elem: 'f64', value: 6 });
  });

  it('runs the branch of an if that its condition picks', () => {
    const n = nodes();
    const thenMap = n.map([arr('t', 'i32', 1)], ['xs'], lam([['x', 'i32']], bin('+', v('x', 'i32'), i32(1))));
    const elseMap = n.map([arr('e', 'i32', 1)], ['xs'], lam([['y', 'i32']], bin('*', v('y', 'i32'), i32(2))));
    const p = program('branch', [arrayParam('xs', 'i32', 1), scalarParam('b', 'bool')], [
      n.if_([arrayValue('r', 'i32', 1)], v('b', 'bool'), block([], [thenMap], ['t']), block([], [elseMap], ['e'])),
    ], ['r']);
    const xs = array('i32', [2], [5, 6]);
    expect(run1(p, [xs, scalar('bool', 1)]).data).toEqual([6, 7]);
    expect(run1(p, [xs, scalar('bool', 0)]).data).toEqual([10, 12]);
  });

  it('runs a while loop until its condition fails, carrying arrays and scalars', () => {
    // while k < 3: xs = map(x * 2, xs); k = k + 1
    const n = nodes();
    const cond = block([arrayValue('cx', 'f64', 1), scalarValue('ck', 'i32')], [scalarStmt('go', bin('<', v('ck', 'i32'), i32(3)))], ['go']);
    const body = block(
      [arrayValue('bx', 'f64', 1), scalarValue('bk', 'i32')],
      [
        n.map([arr('bx2', 'f64', 1)], ['bx'], lam([['x', 'f64']], bin('*', v('x', 'f64'), f64(2)))),
        scalarStmt('bk2', bin('+', v('bk', 'i32'), i32(1))),
      ],
      ['bx2', 'bk2'],
    );
    const p = program('loop', [arrayParam('xs', 'f64', 1)], [
      scalarStmt('k0', i32(0)),
      n.while_([arrayValue('r', 'f64', 1), scalarValue('k', 'i32')], ['xs', 'k0'], cond, body),
    ], ['r', 'k']);
    const [r, k] = interpretChecked(p, [array('f64', [2], [1, 3])]) as RuntimeValue[];
    expect(Array.from((r as { data: Float64Array }).data)).toEqual([8, 24]);
    expect(k).toEqual({ kind: 'scalar', elem: 'i32', value: 3 });
  });

  it('returns the components of a tuple result together', () => {
    const n = nodes();
    const p = program('t', [arrayParam('xs', 'i32', 1)], [
      n.map([arr('a', 'i32', 1), arr('b', 'u32', 1)], ['xs'], lam([['x', 'i32']], [v('x', 'i32'), u32(7)])),
    ], [{ name: 'pair', components: [arrayValue('a', 'i32', 1), arrayValue('b', 'u32', 1)] }]);
    const out = interpretChecked(p, [array('i32', [1], [4])]);
    expect(out).toHaveLength(1);
    expect((out[0] as RuntimeValue[]).map((x) => x.elem)).toEqual(['i32', 'u32']);
  });

  it('stores bool results as 0 and 1 in a Uint8Array', () => {
    const p = mapProgram('bool', 'bool', (x) => un('not', x));
    const out = only(interpretChecked(p, [array('bool', [3], [1, 0, 1])]));
    expect((out as { data: Uint8Array }).data).toBeInstanceOf(Uint8Array);
    expect(Array.from((out as { data: Uint8Array }).data)).toEqual([0, 1, 0]);
    expect(bool(true).value).toBe(1);
  });
});
