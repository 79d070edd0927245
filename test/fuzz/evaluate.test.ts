// The fuzzer's own evaluator on issue 9's reproducers: it must know the right answer where
// every mode of the compiler was wrong, or the fuzzer could not have caught them.

import { describe, expect, test } from 'vitest';
import type { ArrOp, Expr, Prog } from './ast.js';
import { evaluate, type FuzzInputs } from './evaluate.js';
import { wellScoped } from './shrink.js';

const x = (name = 'x'): Expr => ({ k: 'ref', t: 'f64', name });
const i32 = (name: string): Expr => ({ k: 'ref', t: 'i32', name });
const f64 = (text: string): Expr => ({ k: 'lit', t: 'f64', text, value: Number(text) });
const int = (text: string): Expr => ({ k: 'lit', t: 'i32', text, value: Number(text) });
const size = (arr: string): Expr => ({ k: 'size', t: 'i32', arr });
const params: Prog['params'] = [
  { name: 'xs', elem: 'f64', rank: 1 },
  { name: 'is', elem: 'i32', rank: 1 },
  { name: 'ix', elem: 'i32', rank: 1 },
];
const inputs: FuzzInputs = new Map([
  ['xs', { elem: 'f64', data: [1, 2, 3, 4, 5] }],
  ['is', { elem: 'i32', data: [1, 1, 0] }],
  ['ix', { elem: 'i32', data: [0, 1] }],
]);

describe('the fuzz evaluator knows the answers issue 9 found wrong', () => {
  test('W1: a permute that reads its own destination sees the old values', () => {
    // ys = map(lam x: x + 1.0, xs); return permute(lam o, w: w, ys, lam i: size(ys) - 1 - i, ys)
    const reversed: Expr = { k: 'arith', t: 'i32', op: '-', a: { k: 'arith', t: 'i32', op: '-', a: size('ys'), b: int('1') }, b: i32('i') };
    const p: Prog = {
      params,
      body: [
        { k: 'let', names: ['ys'], op: { k: 'map', f: { params: ['x'], body: [{ k: 'arith', t: 'f64', op: '+', a: x(), b: f64('1.0') }] }, args: ['xs'] } },
        { k: 'let', names: ['zs'], op: { k: 'permute', op: { k: 'lam', f: { params: ['o', 'w'], body: [x('w')] } }, dest: 'ys', f: { params: ['i'], body: [reversed] }, src: 'ys' } },
      ],
      rets: ['zs'],
    };
    expect(wellScoped(p)).toBe(true);
    expect(evaluate(p, inputs)).toEqual({ k: 'values', values: [{ elem: 'f64', shape: [5], data: [6, 5, 4, 3, 2] }], mayFault: false, mayReject: false });
  });

  test('W2: an integer literal beyond i32 in a float context keeps its value (or is rejected)', () => {
    const p: Prog = {
      params,
      body: [{ k: 'let', names: ['ys'], op: { k: 'map', f: { params: ['x'], body: [{ k: 'arith', t: 'f64', op: '+', a: x(), b: int('3000000000') }] }, args: ['xs'] } }],
      rets: ['ys'],
    };
    expect(evaluate(p, inputs)).toMatchObject({ k: 'values', values: [{ data: [3000000001, 3000000002, 3000000003, 3000000004, 3000000005] }], mayReject: true });
  });

  test('W2: one beyond i32 in an integer context must be rejected', () => {
    const p: Prog = {
      params,
      body: [{ k: 'let', names: ['ys'], op: { k: 'generate', size: int('4294967297'), f: { params: ['i'], body: [f64('1.0')] } } }],
      rets: ['ys'],
    };
    expect(evaluate(p, inputs)).toEqual({ k: 'reject' });
  });

  test('W3: a fault in an element nothing reads allows the values or the fault; one that is read must fail', () => {
    const div: Expr = { k: 'arith', t: 'i32', op: '//', a: int('10'), b: i32('i') };
    const a = { k: 'let', names: ['a'], op: { k: 'map', f: { params: ['i'], body: [div] }, args: ['is'] } } as const;
    const unread: Prog = { params, body: [a, { k: 'let', names: ['g'], op: { k: 'gather', idx: 'ix', src: 'a' } }], rets: ['g'] };
    expect(evaluate(unread, inputs)).toEqual({ k: 'values', values: [{ elem: 'i32', shape: [2], data: [10, 10] }], mayFault: true, mayReject: false });
    const read: Prog = { params, body: [a], rets: ['a'] };
    expect(evaluate(read, inputs)).toEqual({ k: 'fault', mayReject: false });
  });
});

// The combinators of issue #16 item 8, on answers worked out by hand from their documentation.
describe('the fuzz evaluator knows scatterDrop, hist, the segmented scans and foldSeg', () => {
  const segInputs: FuzzInputs = new Map([
    ['xs', { elem: 'f64', data: [1, 2, 3, 4, 5] }],
    ['is', { elem: 'i32', data: [2, -1, 0, 7, 2, 5] }],
    ['ix', { elem: 'i32', data: [1, 0, -3, 2] }],
  ]);
  const let1 = (name: string, op: ArrOp): Prog['body'][number] => ({ k: 'let', names: [name], op });
  const values = (p: Prog): unknown => {
    expect(wellScoped(p)).toBe(true);
    const v = evaluate(p, segInputs);
    return v.k === 'values' ? v.values.map((e) => e.data) : v;
  };

  test('scatterDrop drops the updates outside the destination, faulting on none', () => {
    const vals = let1('vs', { k: 'map', f: { params: ['x'], body: [{ k: 'cast', t: 'f64', a: i32('x') }] }, args: ['is'] });
    const p: Prog = { params, body: [vals, let1('d', { k: 'scatterDrop', op: { k: 'op', op: '+' }, dest: 'xs', idx: 'is', vals: 'vs' })], rets: ['d'] };
    // is = [2, -1, 0, 7, 2, 5]: -1, 7 and 5 are dropped; xs[2] += 2 twice, xs[0] += 0.
    expect(values(p)).toEqual([[1, 2, 7, 4, 5]]);
  });

  test('hist starts every bin at ne and drops indices outside the bins; a function meeting itself is open', () => {
    const p: Prog = { params, body: [let1('h', { k: 'hist', op: { k: 'op', op: 'max' }, ne: f64('2.5'), bins: int('3'), idx: 'ix', vals: 'xs4' })], rets: ['h'] };
    const xs4 = let1('xs4', { k: 'gather', idx: 'ix2', src: 'xs' });
    const ix2 = let1('ix2', { k: 'generate', size: int('4'), f: { params: ['i'], body: [i32('i')] } });
    // ix = [1, 0, -3, 2] with values [1, 2, 3, 4]: bin 1 max(2.5, 1), bin 0 max(2.5, 2), -3 dropped, bin 2 max(2.5, 4).
    expect(values({ ...p, body: [ix2, xs4, ...p.body] })).toEqual([[2.5, 2.5, 4]]);
    const twice: Prog = { params, body: [let1('h', { k: 'hist', op: { k: 'lam', f: { params: ['o', 'w'], body: [x('w')] } }, ne: f64('0.0'), bins: int('3'), idx: 'is', vals: 'fs' })], rets: ['h'] };
    const fs = let1('fs', { k: 'map', f: { params: ['x'], body: [{ k: 'cast', t: 'f64', a: i32('x') }] }, args: ['is'] });
    expect(evaluate({ ...twice, body: [fs, ...twice.body] }, segInputs)).toMatchObject({ k: 'unknown', unspecified: true });
  });

  const flags = { params: ['x'], body: [{ k: 'cmp', t: 'bool', op: '>=', a: x(), b: f64('3.0') } as Expr] };

  test('scanlSeg and scanrSeg restart at every true flag', () => {
    // xs = [1, 2, 3, 4, 5], flags x >= 3: segments [1, 2], [3], [4], [5].
    const l: Prog = { params, body: [let1('s', { k: 'scanSeg', dir: 'l', op: '+', flags, flagSrc: 'xs', src: 'xs' })], rets: ['s'] };
    expect(values(l)).toEqual([[1, 3, 3, 4, 5]]);
    const r: Prog = { params, body: [let1('s', { k: 'scanSeg', dir: 'r', op: '+', flags, flagSrc: 'xs', src: 'xs' })], rets: ['s'] };
    expect(values(r)).toEqual([[3, 2, 3, 4, 5]]);
    // x < 3: flags [T, T, F, F, F], segments [1], [2, 3, 4, 5] (the first flag decides nothing).
    const lt = { ...flags, body: [{ k: 'cmp', t: 'bool', op: '<', a: x(), b: f64('3.0') } as Expr] };
    expect(values({ ...l, body: [let1('s', { k: 'scanSeg', dir: 'l', op: '*', flags: lt, flagSrc: 'xs', src: 'xs' })] })).toEqual([[1, 2, 6, 24, 120]]);
    expect(values({ ...l, body: [let1('s', { k: 'scanSeg', dir: 'r', op: 'max', flags: lt, flagSrc: 'xs', src: 'xs' })] })).toEqual([[1, 5, 5, 5, 5]]);
  });

  test('foldSeg: negative lengths are empty, a segment past the end is cut, the rest belongs to none', () => {
    const lens = (data: string[]): Prog['body'][number] =>
      let1('ls', { k: 'map', f: { params: ['x'], body: [{ k: 'sel', t: 'i32', c: { k: 'cmp', t: 'bool', op: '==', a: i32('x'), b: int('2') }, a: int(data[0]!), b: int(data[1]!) }] }, args: ['is'] });
    // is = [2, -1, 0, 7, 2, 5] → lengths [2, -4, -4, -4, 2, -4]: segments [1, 2], [], [], [], [3, 4], [].
    const p: Prog = { params, body: [lens(['2', '-4']), let1('f', { k: 'foldSeg', op: '+', z: f64('0.5'), src: 'xs', lens: 'ls' })], rets: ['f'] };
    expect(values(p)).toEqual([[3.5, 0.5, 0.5, 0.5, 7.5, 0.5]]);
    // Lengths [3, 0, 0, 0, 3, 0]: [1, 2, 3], then [4, 5] cut at the end.
    expect(values({ ...p, body: [lens(['3', '0']), p.body[1]!] })).toEqual([[6.5, 0.5, 0.5, 0.5, 9.5, 0.5]]);
  });

  test('foldSeg of a broken array: an empty segment reads nothing of it, a non-empty one faults', () => {
    // A scatter to index 7 of five elements breaks xb; foldSeg consumes only its lengths whole.
    const broken = let1('xb', { k: 'scatter', op: { k: 'op', op: '+' }, dest: 'xs', idx: 'is', vals: 'fs' });
    const fs = let1('fs', { k: 'map', f: { params: ['x'], body: [{ k: 'cast', t: 'f64', a: i32('x') }] }, args: ['is'] });
    const lens = (len: string): Prog['body'][number] => let1('ls', { k: 'generate', size: int('2'), f: { params: ['i'], body: [int(len)] } });
    const fold = let1('f', { k: 'foldSeg', op: 'max', z: f64('0.5'), src: 'xb', lens: 'ls' });
    expect(values({ params, body: [fs, broken, lens('0'), fold], rets: ['f'] })).toEqual([[0.5, 0.5]]);
    expect(values({ params, body: [fs, broken, lens('1'), fold], rets: ['f'] })).toEqual({ k: 'fault', mayReject: false });
  });
});
