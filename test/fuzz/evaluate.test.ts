// The fuzzer's own evaluator on issue 9's reproducers: it must know the right answer where
// every mode of the compiler was wrong, or the fuzzer could not have caught them.

import { describe, expect, test } from 'vitest';
import type { Expr, Prog } from './ast.js';
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
