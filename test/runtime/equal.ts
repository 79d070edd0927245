// Exact comparison of run-time values for the differential tests: same shapes, same element
// types, and bit-identical elements (Object.is, so NaN equals NaN and -0 differs from 0).

import { expect } from 'vitest';
import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';

function components(v: InterfaceValue): readonly RuntimeValue[] {
  return Array.isArray(v) ? (v as readonly RuntimeValue[]) : [v as RuntimeValue];
}

export function expectSameValues(actual: readonly InterfaceValue[], expected: readonly InterfaceValue[], label = ''): void {
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
        expect(Object.is(x.value, y.value), `${where}: ${x.value} vs ${y.value}`).toBe(true);
        return;
      }
      if (x.kind !== 'array' || y.kind !== 'array') return;
      expect([...x.shape], where).toEqual([...y.shape]);
      expect(x.data.constructor, where).toBe(y.data.constructor);
      const bad = Array.from(x.data).findIndex((e, j) => !Object.is(e, y.data[j]));
      expect(bad, `${where}: element ${bad} is ${x.data[bad]}, expected ${y.data[bad]}`).toBe(-1);
    });
  });
}
