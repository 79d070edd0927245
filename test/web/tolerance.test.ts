// The browser differential suite's comparisons (test/web/tolerance.ts): the stated f32
// tolerances at their edges, NaN and infinities, exact integers, element types and shapes,
// bare numbers by name, and errors by their located diagnostic.

import { describe, expect, it } from 'vitest';
import type { Outcome } from './gpuPage.js';
import { allowance, closeFloat, elementwise, exact, outcomeDifferences, reduction, valueDifferences } from './tolerance.js';

const f32 = (...xs: number[]) => ({ data: new Float32Array(xs), shape: [xs.length] });
const i32 = (...xs: number[]) => ({ data: new Int32Array(xs), shape: [xs.length] });

describe('closeFloat', () => {
  it('allows 1e-5·(1+|want|) elementwise, and 1e-5·n·max|x| for reductions', () => {
    expect(allowance(0, elementwise)).toBe(1e-5);
    expect(closeFloat(1000 + 1e-5 * 1001 * 0.99, 1000, elementwise)).toBe(true);
    expect(closeFloat(1000 + 1e-5 * 1001 * 1.01, 1000, elementwise)).toBe(false);
    expect(closeFloat(0.5, 0, reduction(70000, 1))).toBe(true);
    expect(closeFloat(0.71, 0, reduction(70000, 1))).toBe(false);
  });
  it('wants NaN exactly where NaN, infinities equal, finite where finite', () => {
    expect(closeFloat(NaN, NaN, elementwise)).toBe(true);
    expect(closeFloat(0, NaN, reduction(1e9, 1e9))).toBe(false);
    expect(closeFloat(NaN, 0, reduction(1e9, 1e9))).toBe(false);
    expect(closeFloat(Infinity, Infinity, elementwise)).toBe(true);
    expect(closeFloat(-Infinity, Infinity, reduction(1e9, 1e9))).toBe(false);
    expect(closeFloat(3.4e38, Infinity, reduction(1e9, 1e30))).toBe(false);
    expect(closeFloat(Infinity, 3.4e38, reduction(1e9, 1e30))).toBe(false);
  });
  it('ignores the sign of zero under a tolerance, not under exact', () => {
    expect(closeFloat(-0, 0, elementwise)).toBe(true);
    expect(closeFloat(-0, 0, exact)).toBe(false);
    expect(closeFloat(1, 1 + 2 ** -23, exact)).toBe(false);
  });
});

describe('valueDifferences', () => {
  it('compares integers exactly whatever the tolerance, and lists the first differing elements', () => {
    expect(valueDifferences(i32(1, 2, 3), i32(1, 2, 3), reduction(1e9, 1e9), false, 'r', 'r')).toEqual([]);
    const [d] = valueDifferences(i32(1, 2, 4, 5, 6, 7, 8), i32(1, 2, 3, 0, 0, 0, 0), reduction(1e9, 1e9), false, 'r', 'r');
    expect(d).toBe('r (i32[7], exact): [2] got 4, want 3; [3] got 5, want 0; [4] got 6, want 0; [5] got 7, want 0, … (5 elements differ of 7)');
  });
  it('tells element types, shapes and kinds apart', () => {
    expect(valueDifferences(f32(1), i32(1), elementwise, false, 'r', 'r')).toEqual(['r: got element type f32, want i32']);
    expect(valueDifferences({ data: new Float32Array(6), shape: [2, 3] }, { data: new Float32Array(6), shape: [3, 2] }, elementwise, false, 'r', 'r')).toEqual([
      'r: got shape [2, 3], want [3, 2]',
    ]);
    expect(valueDifferences(1, f32(1), elementwise, false, 'r', 'r')).toEqual(['r: got the number 1, want an array']);
    expect(valueDifferences([f32(1), 2], [f32(1), 2], elementwise, false, 'r', 'r')).toEqual([]);
  });
  it('compares bare numbers as floats only where told, by result name and tuple component', () => {
    expect(valueDifferences(1.000001, 1, elementwise, false, 'r', 'r')).toEqual(['r: got 1.000001, want 1']);
    expect(valueDifferences(1.000001, 1, elementwise, true, 'r', 'r')).toEqual([]);
    expect(valueDifferences([1.000001, 2.000001], [1, 2], elementwise, new Set(['r[0]']), 'r', 'r')).toEqual(['r[1]: got 2.000001, want 2']);
  });
});

describe('outcomeDifferences', () => {
  const error = (located: string): Outcome => ({ ok: false, error: { name: 'UserError', code: 'E402', message: 'm', located } });
  it('wants the same located diagnostic, or results on both sides', () => {
    expect(outcomeDifferences(error('a.fuse:2:3: error[E402]: m'), error('a.fuse:2:3: error[E402]: m'), exact, false, 'c')).toEqual([]);
    expect(outcomeDifferences(error('a.fuse:2:4: error[E402]: m'), error('a.fuse:2:3: error[E402]: m'), exact, false, 'c')).toHaveLength(1);
    expect(outcomeDifferences({ ok: true, results: {} }, error('x'), exact, false, 'c')).toEqual(['c: got results, want error x']);
  });
  it('reports a fallback to the interpreter unless allowed, and result names in order', () => {
    const fallback: Outcome = { ok: true, results: { a: 1 }, fallback: { name: 'UserError', code: 'E402', message: 'm', located: 'f' } };
    expect(outcomeDifferences(fallback, { ok: true, results: { a: 1 } }, exact, false, 'c')).toHaveLength(1);
    expect(outcomeDifferences(fallback, { ok: true, results: { a: 1 } }, exact, false, 'c', true)).toEqual([]);
    expect(outcomeDifferences({ ok: true, results: { b: 1, a: 1 } }, { ok: true, results: { a: 1, b: 1 } }, exact, false, 'c')).toEqual(['c: got results [b, a], want [a, b]']);
  });
});
