// The element-level meaning of u8 and i8 (src/ir/scalarOps.ts, docs/LANGUAGE.md §2–§3) on every
// value of the types, against a definition written here independently on BigInt bit patterns:
// arithmetic modulo 2^8, `//` and `%` with floor semantics (by zero: an error), `**` as repeated
// multiplication, bit operations on the value widened to 32 bits with the shift count modulo 32
// and the result reduced modulo 2^8, conversions from floats by truncation toward zero (NaN and
// ±∞ give 0) then modulo 2^8.

import { describe, expect, test } from 'vitest';
import { ScalarDivisionByZero, allocate, binary, cast, elementBytes, fitsInteger, integerRange, mathFn, unary, wrap } from '../../src/ir/scalarOps.js';
import type { BinaryOp } from '../../src/ir/types.js';
import { programFromJson, programToJson } from '../../src/ir/json.js';
import { printProgram } from '../../src/ir/printer.js';
import { lowerText } from '../lower/helpers.js';

type Byte = 'u8' | 'i8';

const valuesOf = (t: Byte): number[] => Array.from({ length: 256 }, (_, k) => (t === 'u8' ? k : k - 128));

/** The value of type t whose bit pattern is the exact integer x modulo 2^8. */
const reduce = (t: Byte, x: bigint): number => Number(t === 'u8' ? BigInt.asUintN(8, x) : BigInt.asIntN(8, x));

const floorDiv = (a: bigint, b: bigint): bigint => {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
};

/** The documented meaning of `a op b` on type t, or 'fault' for an integer division by zero. */
function expected(t: Byte, op: BinaryOp, a: number, b: number): number | 'fault' {
  const x = BigInt(a);
  const y = BigInt(b);
  const count = BigInt(((b % 32) + 32) % 32);
  switch (op) {
    case '+':
      return reduce(t, x + y);
    case '-':
      return reduce(t, x - y);
    case '*':
      return reduce(t, x * y);
    case '//':
      return y === 0n ? 'fault' : reduce(t, floorDiv(x, y));
    case '%':
      return y === 0n ? 'fault' : reduce(t, x - y * floorDiv(x, y));
    case '&':
      return reduce(t, x & y);
    case '|':
      return reduce(t, x | y);
    case '^':
      return reduce(t, x ^ y);
    case '<<':
      return reduce(t, x << count);
    case '>>':
      // The widened value: u8 zero-extended (logical), i8 sign-extended (arithmetic).
      return reduce(t, x >> count);
    case 'min':
      return Math.min(a, b);
    case 'max':
      return Math.max(a, b);
    case '==':
      return a === b ? 1 : 0;
    case '<':
      return a < b ? 1 : 0;
    default:
      throw new Error(`no expectation for ${op}`);
  }
}

function actual(t: Byte, op: BinaryOp, a: number, b: number): number | 'fault' {
  try {
    return binary(op, t, a, b);
  } catch (e) {
    if (e instanceof ScalarDivisionByZero) return 'fault';
    throw e;
  }
}

describe.each(['u8', 'i8'] as const)('%s', (t) => {
  const values = valuesOf(t);

  test('the type: its range, one byte, its typed array', () => {
    expect(integerRange(t)).toEqual(t === 'u8' ? [0, 255] : [-128, 127]);
    expect(elementBytes(t)).toBe(1);
    expect(allocate(t, 3)).toBeInstanceOf(t === 'u8' ? Uint8Array : Int8Array);
    for (const v of values) expect(fitsInteger(t, v)).toBe(true);
    for (const v of t === 'u8' ? [-1, 256, 0.5] : [-129, 128, -0.5]) expect(fitsInteger(t, v)).toBe(false);
  });

  test.each(['+', '-', '*', '//', '%', '&', '|', '^', '<<', '>>', 'min', 'max', '==', '<'] as const)('%s on every pair of values', (op) => {
    const wrong: string[] = [];
    for (const a of values) {
      for (const b of values) {
        const got = actual(t, op, a, b);
        const want = expected(t, op, a, b);
        if (got !== want && wrong.length < 5) wrong.push(`${a} ${op} ${b}: ${got}, expected ${want}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  test('** is repeated multiplication modulo 2^8', () => {
    for (const a of values) {
      for (let e = 0; e <= 9; e++) expect(binary('**', t, a, e)).toBe(reduce(t, BigInt(a) ** BigInt(e)));
    }
  });

  test('negation, ~ and abs wrap', () => {
    for (const a of values) {
      expect(unary('neg', t, a)).toBe(reduce(t, -BigInt(a)));
      expect(unary('bitnot', t, a)).toBe(reduce(t, ~BigInt(a)));
      expect(mathFn('abs', t, a)).toBe(reduce(t, BigInt(Math.abs(a))));
    }
    if (t === 'i8') expect([unary('neg', t, -128), mathFn('abs', t, -128)]).toEqual([-128, -128]);
  });

  test('conversions: integers modulo 2^8, floats truncated toward zero first, NaN and ±∞ to 0', () => {
    const samples = [0, -0, 1, -1, 127, 128, 255, 256, 300, -129, 2 ** 31, 2 ** 32 + 5, -(2 ** 40) - 3, 1.5, -1.5, 255.9, -128.9, 1e10, 1e300, NaN, Infinity, -Infinity];
    for (const x of samples) {
      const want = Number.isFinite(x) ? reduce(t, BigInt(Math.trunc(x))) : 0;
      expect(cast(t, x)).toBe(want === 0 ? 0 : want);
      expect(Object.is(cast(t, x), -0)).toBe(false);
    }
    expect([cast(t, 300), cast(t, -1)]).toEqual(t === 'u8' ? [44, 255] : [44, -1]);
    // Every value of the other 8-bit type and of i32 reaches this one by its bit pattern.
    for (const v of valuesOf(t === 'u8' ? 'i8' : 'u8')) expect(wrap(t, v)).toBe(reduce(t, BigInt(v)));
  });
});

describe('a byte program in the IR', () => {
  const text = 'def main(px: u8[n], ds: i8[n]):\n  return map(lam p, d: (p + u8(200), d - 1, i32(p) * i32(d)), zip(px, ds))\n';

  test('round-trips through the JSON IR and prints its byte constants as casts', () => {
    const p = lowerText(text);
    const again = programFromJson(programToJson(p), 'p.json');
    expect(programToJson(again)).toBe(programToJson(p));
    expect(printProgram(p)).toContain('u8(200)');
    expect(printProgram(p)).toContain('i8(1)');
  });

  test('a bad element type in the JSON IR names the types, u8 and i8 among them', () => {
    const json = programToJson(lowerText(text)).replace('"u8"', '"u7"');
    expect(() => programFromJson(json, 'p.json')).toThrow(/u8, i8/);
  });
});
