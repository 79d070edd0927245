// The browser tests' wire format (test/web/page/wire.ts): what crosses from Node to the page and
// back keeps every value exactly, NaN, ±Infinity and -0 included, element types, shapes, tuple
// structure and names such as __proto__; and the batching of cases per page call.

import { describe, expect, it } from 'vitest';
import { batches, type Case } from './gpuPage.js';
import { decodeNumber, decodeRecord, decodeValue, encodeNumber, encodeRecord, encodeValue, sameWire, type PlainArray, type PlainValue } from './page/wire.js';

/** Through JSON, as page.evaluate carries it. */
function roundTrip(v: PlainValue): PlainValue {
  return decodeValue(JSON.parse(JSON.stringify(encodeValue(v))));
}

describe('wire', () => {
  it('keeps NaN, ±Infinity and -0, which JSON alone loses', () => {
    for (const x of [NaN, Infinity, -Infinity, -0, 0, 1.5, -2147483648, 4294967295, 3.4028234663852886e38, 5e-324]) {
      expect(Object.is(decodeNumber(JSON.parse(JSON.stringify(encodeNumber(x)))), x), String(x)).toBe(true);
    }
    const data = new Float32Array([NaN, Infinity, -Infinity, -0, 0, 1e-45, 3.4028234663852886e38]);
    const back = roundTrip({ data, shape: [7] }) as PlainArray;
    expect(back.data).toBeInstanceOf(Float32Array);
    expect(Array.from(back.data).map((x) => (Object.is(x, -0) ? '-0' : String(x)))).toEqual(['NaN', 'Infinity', '-Infinity', '-0', '0', String(data[5]), String(data[6])]);
  });

  it('keeps element types, shapes, tuples, scalars and booleans', () => {
    const cases: PlainValue[] = [
      { data: new Int32Array([-2147483648, 2147483647, -1]), shape: [3] },
      { data: new Uint32Array([4294967295, 0]), shape: [1, 2] },
      { data: new Uint8Array([1, 0, 1]), shape: [3] },
      { data: new Float64Array(0), shape: [0, 4] },
      [{ data: new Int32Array([1]), shape: [1] }, { data: new Float32Array([-0]), shape: [1] }],
      7,
      -0,
      true,
    ];
    for (const v of cases) {
      const back = roundTrip(v);
      expect(sameWire(encodeValue(back), encodeValue(v))).toBe(true);
      if (typeof v === 'object' && !Array.isArray(v)) expect((back as PlainArray).data.constructor).toBe((v as PlainArray).data.constructor);
    }
  });

  it('keeps names such as __proto__ as data, in order', () => {
    const values: Record<string, PlainValue> = {};
    Object.defineProperty(values, '__proto__', { value: 1, enumerable: true });
    Object.defineProperty(values, 'constructor', { value: 2, enumerable: true });
    const back = decodeRecord(JSON.parse(JSON.stringify(encodeRecord(values))));
    expect(Object.keys(back)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(back, '__proto__')?.value).toBe(1);
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
  });

  it('refuses what is not a value', () => {
    expect(() => decodeValue({ kind: 'array', elem: 'f32', shape: [2], data: [1] })).toThrow(/shape \[2\] with 1 elements/);
    expect(() => decodeNumber('nan' as never)).toThrow(TypeError);
    expect(() => encodeValue({} as never)).toThrow(TypeError);
  });
});

describe('batches', () => {
  const big = (name: string, n: number): Case => ({ name, source: '', inputs: { xs: { data: new Float32Array(n), shape: [n] }, k: 1 } });
  it('groups cases up to a number of input elements, a larger case alone, order kept', () => {
    const groups = batches([big('a', 10), big('b', 10), big('c', 100), big('d', 5), big('e', 5)], 30);
    expect(groups.map((g) => g.map((c) => c.name))).toEqual([['a', 'b'], ['c'], ['d', 'e']]);
    expect(batches([], 30)).toEqual([]);
  });
});
