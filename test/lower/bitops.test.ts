// Bit operations in lowering (docs/LANGUAGE.md §3): only i32 and u32 operands, of one type; a
// type still unknown becomes i32; constants computed exactly as Python does, their shift counts
// in 0..31; typed values wrap and take the count modulo 32, at compile time as at run time.

import { describe, expect, test } from 'vitest';
import { compile } from '../../src/index.js';
import type { ScalarType } from '../../src/ir/types.js';
import { constantValue as value, lowerError, lowerText } from './helpers.js';

const d = (body: string, params = 'xs'): string => `def main(${params}):\n${body}`;

describe('typing errors name the operator and the type, at the expression', () => {
  const cases: [string, string, string, string][] = [
    // [source, code, message fragment, line:col]
    [d('  return map(lam x: x & 1, xs)\n', 'xs: f64[n]'), 'E310', "operator '&' needs integer operands (i32, u32, u8 or i8), found f64", '2:21'],
    [d('  return map(lam x: 1 | x, xs)\n', 'xs: f32[n]'), 'E310', "operator '|' needs integer operands (i32, u32, u8 or i8), found f32", '2:21'],
    [d('  return map(lam b: b ^ True, xs)\n', 'xs: bool[n]'), 'E310', "operator '^' needs integer operands (i32, u32, u8 or i8), found bool", '2:21'],
    [d('  return map(lam x: x << 2.0, xs)\n', 'xs: i32[n]'), 'E310', "operator '<<' needs integer operands (i32, u32, u8 or i8), found f64", '2:21'],
    [d('  return map(lam x: ~x, xs)\n', 'xs: f64[n]'), 'E310', "operator '~' needs integer operands (i32, u32, u8 or i8), found f64", '2:21'],
    [d('  return map(lam b: ~b, xs)\n', 'xs: bool[n]'), 'E310', "operator '~' needs integer operands (i32, u32, u8 or i8), found bool", '2:21'],
    [d('  return map(lam x: x >> k, xs)\n', 'xs: u32[n], k: i32'), 'E310', "operator '>>' cannot combine u32 and i32", '2:21'],
    [d('  return fold(&, xs)\n', 'xs: f64[n]'), 'E310', "operator '&' needs integer operands (i32, u32, u8 or i8), found f64", '2:10'],
    [d('  return map(lam x: x + (1 << 32), xs)\n', 'xs: i32[n]'), 'E312', 'a shift of integer constants needs a count in 0..31, found 32', '2:26'],
    [d('  return map(lam x: x + (1 >> -1), xs)\n', 'xs: i32[n]'), 'E312', 'found -1', '2:26'],
    [d('  return map(lam x: x & 1 << 31, xs)\n', 'xs: i32[n]'), 'E312', 'the integer constant 2147483648 does not fit in i32', '2:25'],
    [d('  return map(lam x: x & ~4294967295, xs)\n', 'xs: u32[n]'), 'E312', 'the integer constant -4294967296 does not fit in u32', '2:25'],
    [d('  return map(lam x: popcount(x), xs)\n', 'xs: f64[n]'), 'E310', "'popcount' needs an i32 or u32 argument, found f64", '2:21'],
    [d('  return map(lam b: clz(b), xs)\n', 'xs: bool[n]'), 'E310', "'clz' needs an i32 or u32 argument, found bool", '2:21'],
    [d('  return map(lam x: x + popcount(4294967295), xs)\n', 'xs: u32[n]'), 'E312', 'the integer constant 4294967295 does not fit in i32', '2:34'],
  ];
  test.each(cases)('%#: %s → %s', (src, code, fragment, at) => {
    const e = lowerError(src);
    expect({ code: e.code, at: e.at }).toEqual({ code, at });
    expect(e.message).toContain(fragment);
  });
});


describe('constants', () => {
  test.each([
    // Python's meaning on the exact integers, then the type they take
    ['  return ~0\n', -1],
    ['  return -1 & 255\n', 255],
    ['  return -8 >> 1\n', -4],
    ['  return -1 >> 31\n', -1],
    ['  return 3 << 4 | 1\n', 49],
    ['  return 6 ^ 3\n', 5],
    ['  return u32(1 << 31)\n', 2147483648],
    ['  return (1 << 31) - 1\n', 2147483647],
    ['  return 4294967295 & 65535\n', 65535],
    // typed values wrap and take the count modulo 32, at compile time as at run time
    ['  return i32(1) << 32\n', 1],
    ['  return i32(1) << 31\n', -2147483648],
    ['  return i32(-1) >> 40\n', -1],
    ['  return u32(4294967295) >> 31\n', 1],
    ['  return u32(1) << u32(4294967295)\n', 2147483648],
    ['  return ~u32(0)\n', 4294967295],
    ['  return ~i32(2147483647)\n', -2147483648],
    ['  return i32(5) & -2\n', 4],
    // bit counts: a constant is an i32, the count an untyped constant
    ['  return popcount(-1)\n', 32],
    ['  return clz(0)\n', 32],
    ['  return clz(-1)\n', 0],
    ['  return clz(1) + u32(0)\n', 31],
    ['  return popcount(u32(4294967295))\n', 32],
    ['  return popcount(i32(-2147483648))\n', 1],
  ] as const)('%s is %d', async (body, want) => {
    expect(await value(body)).toBe(want);
  });

  test('~ of a constant is exact: ~-2147483649 is 2147483648, no i32', async () => {
    await expect(value('  return ~-2147483649\n')).rejects.toThrow(/E312/);
    expect(await value('  return u32(~-2147483649)\n')).toBe(2147483648);
  });
});

describe('types', () => {
  const elemOf = (src: string): ScalarType => {
    return lowerText(src).params[0]!.components[0]!.elem;
  };

  test('an unannotated parameter used in a bit operation is i32', () => {
    expect(elemOf(d('  return map(lam x: x & 1, xs)\n'))).toBe('i32');
    expect(elemOf(d('  return map(lam x: ~x, xs)\n'))).toBe('i32');
    expect(elemOf(d('  return fold(^, xs)\n'))).toBe('i32');
    expect(elemOf(d('  return map(lam x: popcount(x), xs)\n'))).toBe('i32');
  });

  test('a u32 operand keeps u32, with literal operands', () => {
    expect(elemOf(d('  return map(lam x: x >> 31 | 1 << 31, xs)\n', 'xs: u32[n]'))).toBe('u32');
  });

  test('folds with & | ^ start from their identity on both integer types', async () => {
    const src = d('  return fold(&, xs), fold(|, xs), fold(^, xs), fold(&, us), fold(|, us)\n', 'xs: i32[n], us: u32[n]');
    const program = compile(src);
    const empty = await program.run({ xs: new Int32Array(0), us: new Uint32Array(0) }, { interpret: true });
    expect(Object.values(empty)).toEqual([-1, 0, 0, 4294967295, 0]);
    const some = await program.run({ xs: Int32Array.from([-1, 6, 12]), us: Uint32Array.from([2 ** 32 - 1, 2 ** 31]) }, { strategy: 'ilp' });
    expect(Object.values(some)).toEqual([4, -1, -1 ^ 6 ^ 12, 2 ** 31, 2 ** 32 - 1]);
  });
});

test("docs/LANGUAGE.md's examples compute what they say", async () => {
  const src = `def popcount8(bytes: u32[n]):
  return map(lam b: (b & 1) + (b >> 1 & 1) + (b >> 2 & 1) + (b >> 3 & 1) + (b >> 4 & 1) + (b >> 5 & 1) + (b >> 6 & 1) + (b >> 7 & 1), bytes)

def hash(keys: u32[n]):
  return map(lam x: (lam y: (lam z: z ^ z << 5)(y ^ y >> 17))(x ^ x << 13), keys)
`;
  const words = [0, 1, 255, 170, 2463534242, 4294967295];
  const counts = await compile(src, { entry: 'popcount8' }).run({ bytes: Uint32Array.from(words) });
  expect(Array.from((Object.values(counts)[0] as { data: Uint32Array }).data)).toEqual(words.map((w) => [...(w & 255).toString(2)].filter((c) => c === '1').length));
  // xorshift32 on BigInt, independently of JavaScript's 32-bit operators
  const xorshift = (w: number): number => {
    const m = (v: bigint): bigint => BigInt.asUintN(32, v);
    let x = BigInt(w);
    x = m(x ^ (x << 13n));
    x = m(x ^ (x >> 17n));
    x = m(x ^ (x << 5n));
    return Number(x);
  };
  const hashes = await compile(src, { entry: 'hash' }).run({ keys: Uint32Array.from(words) });
  expect(Array.from((Object.values(hashes)[0] as { data: Uint32Array }).data)).toEqual(words.map(xorshift));
});
