// u8 and i8 in lowering (docs/LANGUAGE.md §2–§3): annotations, casts, weak literals taking the
// type and having to fit it (E312), no mixing with another integer type (E310), promotion to
// floats, `/` as f64, the bit counts refused, fold identities at the type's limits, constants
// folded with the run-time meaning; and the same programs run in every mode (interpreter and
// every planning strategy) against values computed here.

import { describe, expect, test } from 'vitest';
import { compile, type Output } from '../../src/index.js';
import { constantValue as value, lowerError, lowerText } from './helpers.js';
import { plain, runAllModes } from './modes.js';

const d = (body: string, params: string): string => `def main(${params}):\n${body}`;

describe('typing errors, located', () => {
  const cases: [string, string, string, string][] = [
    // [source, code, message fragment, line:col]
    [d('  return map(lam x: x + i, xs)\n', 'xs: u8[n], i: i32'), 'E310', "operator '+' cannot combine u8 and i32", '2:21'],
    [d('  return map(lam x: x * y, xs)\n', 'xs: i8[n], y: u8'), 'E310', "operator '*' cannot combine i8 and u8", '2:21'],
    [d('  return map(lam x: x & y, xs)\n', 'xs: u8[n], y: u32'), 'E310', "operator '&' cannot combine u8 and u32", '2:21'],
    [d('  return map(lam x: x + 256, xs)\n', 'xs: u8[n]'), 'E312', 'the integer constant 256 does not fit in u8 (0..255)', '2:25'],
    [d('  return map(lam x: x - -1, xs)\n', 'xs: u8[n]'), 'E312', 'the integer constant -1 does not fit in u8 (0..255)', '2:25'],
    [d('  return map(lam x: x + 128, xs)\n', 'xs: i8[n]'), 'E312', 'the integer constant 128 does not fit in i8 (-128..127)', '2:25'],
    [d('  return map(lam x: max(x, 100 + 100), xs)\n', 'xs: i8[n]'), 'E312', 'the integer constant 200 does not fit in i8', '2:28'],
    [d('  return map(lam x: popcount(x), xs)\n', 'xs: u8[n]'), 'E310', "'popcount' needs an i32 or u32 argument, found u8 (widen it: popcount(i32(x)) or popcount(u32(x)))", '2:21'],
    [d('  return map(lam x: clz(x), xs)\n', 'xs: i8[n]'), 'E310', "'clz' needs an i32 or u32 argument, found i8", '2:21'],
    [d('  return map(lam x: x and True, xs)\n', 'xs: u8[n]'), 'E301', 'expected bool, found u8', '2:21'],
    [d('  return xs[0] + 1\n', 'xs: u9[n]'), 'E117', "unknown element type 'u9'; expected f64, f32, i32, u32, u8, i8, bool", '1:14'],
  ];
  test.each(cases)('%#: %s → %s', (src, code, fragment, at) => {
    const e = lowerError(src);
    expect({ code: e.code, at: e.at }).toEqual({ code, at });
    expect(e.message).toContain(fragment);
  });
});


describe('constants', () => {
  test.each([
    // casts convert by the bit pattern (wrapping), floats truncated toward zero first
    ['  return u8(300)\n', 44],
    ['  return u8(-1)\n', 255],
    ['  return i8(200)\n', -56],
    ['  return i8(-129)\n', 127],
    ['  return u8(-1.5)\n', 255],
    ['  return u8(255.9)\n', 255],
    ['  return i8(f64(1) / 0.0)\n', 0],
    ['  return u8(1e10)\n', 0],
    ['  return i32(i8(255))\n', -1],
    ['  return u8(i8(-2))\n', 254],
    // arithmetic in the type, modulo 2^8, at compile time as at run time
    ['  return u8(200) + 100\n', 44],
    ['  return u8(3) - 5\n', 254],
    ['  return i8(100) * 3\n', 44],
    ['  return i8(-128) // -1\n', -128],
    ['  return i8(-7) // 2\n', -4],
    ['  return i8(-7) % 2\n', 1],
    ['  return u8(7) % 3\n', 1],
    ['  return u8(3) ** 5\n', 243],
    ['  return u8(2) ** 8\n', 0],
    ['  return -i8(-128)\n', -128],
    ['  return abs(i8(-128))\n', -128],
    ['  return ~u8(5)\n', 250],
    ['  return ~i8(5)\n', -6],
    ['  return u8(1) << 7\n', 128],
    ['  return u8(1) << 8\n', 0],
    ['  return u8(200) >> 4\n', 12],
    ['  return i8(-128) >> 3\n', -16],
    ['  return i8(-1) >> 31\n', -1],
    ['  return i8(64) << 1\n', -128],
    ['  return u8(255) & 15 | 64\n', 79],
    // promotion and division
    ['  return u8(200) * 1.5\n', 300],
    ['  return i8(-3) / 2\n', -1.5],
    ['  return f32(u8(255))\n', 255],
    ['  return u8(250) < u8(5)\n', 0],
    ['  return i8(-1) < 0\n', 1],
    // literals take the type where they meet it and must fit
    ['  return u8(1) + 255\n', 0],
    ['  return i8(0) - 127 - 1\n', -128],
  ])('%s is %s', async (body, want) => {
    expect(await value(body)).toBe(want);
  });
});

describe('types in the IR', () => {
  test('annotated parameters, casts and results keep their 8-bit types', () => {
    const p = lowerText(d('  return map(lam x, y: (x + 1, y - 1, i32(x) + i32(y)), zip(xs, ys))\n', 'xs: u8[n], ys: i8[n]'));
    expect(p.params.map((q) => q.components.map((c) => c.elem))).toEqual([['u8'], ['i8']]);
    expect(p.results.flatMap((r) => r.components.map((c) => c.elem))).toEqual(['u8', 'i8', 'i32']);
  });

  test('a division of bytes by zero is a run-time fault (E401), not a compile-time one', async () => {
    const program = compile(d('  return map(lam x: x // y, xs)\n', 'xs: u8[n], y: u8'));
    await expect(program.run({ xs: new Uint8Array([1, 2]), y: 0 }, { interpret: true })).rejects.toMatchObject({ code: 'E401' });
  });
});

describe('folds and scans start from the type’s limits', () => {
  const source = `def main(xs: u8[n], ys: i8[n]):
  return (fold(min, xs), fold(max, xs), fold(&, xs), fold(+, xs), fold(*, xs), fold(min, ys), fold(max, ys), fold(&, ys), fold(+, ys), scanl(+, xs), scanl(-, ys))
`;
  test.each([
    ['empty', [], []],
    ['edges', [0, 1, 254, 255, 128, 127], [-128, 127, -1, 0, 1, 100]],
    ['sums that wrap', Array.from({ length: 40 }, (_, i) => (i * 37) % 256), Array.from({ length: 40 }, (_, i) => ((i * 53) % 256) - 128)],
  ])('%s, in every mode', async (_name, xs, ys) => {
    const u = (x: number): number => ((x % 256) + 256) % 256;
    const s = (x: number): number => ((u(x) + 128) % 256) - 128;
    const fold = (a: number[], f: (p: number, q: number) => number, z: number): number => a.reduce(f, z);
    const scan = (a: number[], f: (p: number, q: number) => number): number[] => {
      const out: number[] = [];
      a.forEach((x, k) => out.push(k === 0 ? x : f(out[k - 1]!, x)));
      return out;
    };
    const want = [
      fold(xs, (p, q) => Math.min(p, q), 255), fold(xs, (p, q) => Math.max(p, q), 0), fold(xs, (p, q) => p & q, 255), fold(xs, (p, q) => u(p + q), 0), fold(xs, (p, q) => u(p * q), 1),
      fold(ys, (p, q) => Math.min(p, q), 127), fold(ys, (p, q) => Math.max(p, q), -128), fold(ys, (p, q) => s(p & q), -1), fold(ys, (p, q) => s(p + q), 0),
      scan(xs, (p, q) => u(p + q)), scan(ys, (p, q) => s(p - q)),
    ];
    const modes = await runAllModes(source, { xs: new Uint8Array(xs), ys: new Int8Array(ys) });
    for (const [mode, out] of Object.entries(modes)) expect(Object.values(out).map((o) => plain(o as Output)), mode).toEqual(want);
  });
});
