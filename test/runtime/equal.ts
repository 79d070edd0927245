// Comparison of run-time values for the differential tests: same shapes, same element types,
// and elements either bit-identical (`expectSameValues`: Object.is, so NaN equals NaN and -0
// differs from 0) or, for floats, close (`expectCloseValues`: runs whose float folds and scans
// group their sums differently, the multicore back end's small chunks).

import { expect } from 'vitest';
import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';

function components(v: InterfaceValue): readonly RuntimeValue[] {
  return Array.isArray(v) ? (v as readonly RuntimeValue[]) : [v as RuntimeValue];
}

/** Compares results component by component: kinds, element types, shapes and array types equal; elements by `same`. */
function expectValues(
  actual: readonly InterfaceValue[],
  expected: readonly InterfaceValue[],
  label: string,
  same: (elem: RuntimeValue['elem'], a: number, b: number) => boolean,
): void {
  expect(actual.length, label).toBe(expected.length);
  actual.forEach((a, i) => {
    const as = components(a);
    const es = components(expected[i]!);
    expect(as.length, label).toBe(es.length);
    as.forEach((x, k) => {
      const y = es[k]!;
      const where = `${label} result ${i} component ${k}`;
      expect(x.kind, where).toBe(y.kind);
      expect(x.elem, where).toBe(y.elem);
      if (x.kind === 'scalar' && y.kind === 'scalar') {
        expect(same(x.elem, x.value, y.value), `${where}: ${x.value} vs ${y.value}`).toBe(true);
        return;
      }
      if (x.kind !== 'array' || y.kind !== 'array') return;
      expect([...x.shape], where).toEqual([...y.shape]);
      expect(x.data.constructor, where).toBe(y.data.constructor);
      const bad = Array.from(x.data).findIndex((e, j) => !same(x.elem, e, y.data[j]!));
      expect(bad, `${where}: element ${bad} is ${x.data[bad]}, expected ${y.data[bad]}`).toBe(-1);
    });
  });
}

export function expectSameValues(actual: readonly InterfaceValue[], expected: readonly InterfaceValue[], label = ''): void {
  expectValues(actual, expected, label, (_, a, b) => Object.is(a, b));
}

/**
 * How far a float may be from the expected one: |a − b| ≤ rel · max(|a|, |b|) + abs. A sum of n
 * terms regrouped is off by at most about n·ε·Σ|xᵢ|, so a test whose results cancel (a result
 * small against Σ|xᵢ|) passes an `abs` of that size.
 */
export interface Tolerance {
  readonly rel: number;
  readonly abs?: number;
}

/** Whether float `a` is within `tol` of `b`: NaN only matches NaN, an infinity only itself; zeros of either sign match. */
export function closeFloat(a: number, b: number, tol: Tolerance): boolean {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
  return Math.abs(a - b) <= tol.rel * Math.max(Math.abs(a), Math.abs(b)) + (tol.abs ?? 0);
}

/**
 * As `expectSameValues`, but f64 and f32 elements need only be within `tol` (the default 1e-12
 * relative suits test sizes: n·ε stays far below it); integers and bools stay exact.
 */
export function expectCloseValues(actual: readonly InterfaceValue[], expected: readonly InterfaceValue[], label = '', tol: Tolerance = { rel: 1e-12 }): void {
  expectValues(actual, expected, label, (elem, a, b) => (elem === 'f64' || elem === 'f32' ? closeFloat(a, b, tol) : Object.is(a, b)));
}
