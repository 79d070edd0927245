// Integer literals are typed exactly (LANGUAGE.md §2): a literal takes the type its context
// needs, exact where that is a float, an error (E312) where it does not fit an integer type;
// arithmetic among literals is exact; static sizes and `for` ranges never wrap.

import { describe, expect, test } from 'vitest';
import type { InputSignature } from '../../src/lower/index.js';
import { lowerError } from './helpers.js';
import { plain, runAllModes } from './modes.js';

const f64 = (...shape: number[]): InputSignature => ({ kind: 'array', elem: 'f64', shape });
const d = (body: string, params = 'xs'): string => `def main(${params}):\n${body}`;

const errors: [string, string, string, string, Record<string, InputSignature>?][] = [
  // [source, code, message fragment, line:col, signature]
  [d('  return 2147483648\n'), 'E312', 'the integer constant 2147483648 does not fit in i32 (-2147483648..2147483647)', '2:10'],
  [d(`  return ${'1'.repeat(1000)}\n`), 'E312', 'is too large for every number type', '2:10'],
  [d('  return 1e999\n'), 'E312', 'the number 1e999 is too large', '2:10'],
  [d('  return generate(5000000000, lam i: 1.0)\n'), 'E312', 'the integer constant 5000000000 does not fit in i32', '2:19'],
  [d('  return map(lam x: x + 3000000000, xs)\n', 'xs: i32[n]'), 'E312', '3000000000 does not fit in i32', '2:25'],
  [d('  return map(lam x: x + 4294967296, xs)\n', 'xs: u32[n]'), 'E312', '4294967296 does not fit in u32 (0..4294967295)', '2:25'],
  [d('  return map(lam x: x + -1, xs)\n', 'xs: u32[n]'), 'E312', 'the integer constant -1 does not fit in u32', '2:25'],
  // Folded exactly, then checked where the type is decided (at the folded expression).
  [d('  return 2147483647 + 1\n'), 'E312', 'the integer constant 2147483648 does not fit in i32', '2:10'],
  // Exact, or an error: never a rounded value beyond 2^53.
  [d('  return (2 ** 53 + 1) % 2\n'), 'E312', 'the integer constant 9007199254740993 is not exact as a number', '2:11'],
  [d('  return 100000000000000001 - 100000000000000000\n'), 'E312', 'the integer constant 100000000000000001 is not exact', '2:10'],
  [d('  return 3 ** 34 % 1000\n'), 'E312', 'the integer constant 16677181699666569 is not exact', '2:10'],
  [d('  return xs ! (65536 * 65536)\n'), 'E312', 'the integer constant 4294967296 does not fit', '2:16'],
  [d('  n = 3000000000\n  return xs ! n\n'), 'E312', '3000000000 does not fit in i32', '2:7'],
  [d('  for i in range(7 // (2 - 2)):\n    xs = xs\n  return xs\n'), 'E213', 'but it divides by zero', '2:18'],
  // Sizes never wrap.
  [d('  return generate((100000, 100000), lam i, j: 1.0)\n'), 'E313', 'has 10000000000 elements, more than the 2147483647', '2:19'],
  [d('  n = size(xs)\n  return generate((n, n), lam i, j: 1.0)\n'), 'E313', 'has 2500000000 elements', '3:19', { xs: f64(50000) }],
  // `for` ranges are i32 and bounded at compile time.
  [d('  for i in range(2.5):\n    xs = xs\n  return xs\n'), 'E301', 'type mismatch in a range bound: expected i32, found f64', '2:18'],
  [d('  for i in range(0, 3, 0.5):\n    xs = xs\n  return xs\n'), 'E301', 'a range bound', '2:24'],
  [d('  for i in range(3000000000):\n    xs = xs\n  return xs\n'), 'E312', '3000000000 does not fit in i32', '2:18'],
  [d('  for i in range(2147483647):\n    xs = xs\n  return xs\n'), 'E220', 'it has 2147483647 iterations: compilation evaluates at most 200000 statements', '2:3'],
  [d('  for i in range(-2147483648, 2147483647, 7):\n    pass\n  return xs\n'), 'E220', 'it has 613566757 iterations', '2:3'],
  [d('  for i in range(1000):\n    for j in range(1000):\n      xs = xs\n  return xs\n'), 'E220', 'its iterations, with the loops and calls inside them, evaluate too many statements', '3:5'],
];

test.each(errors)('%#: → %s', (src, code, fragment, at, signature) => {
  const e = lowerError(src, signature === undefined ? {} : { signature });
  expect(e.message).toContain(fragment);
  expect({ code: e.code, at: e.at }).toEqual({ code, at });
});

describe('literals beyond i32 in every mode', () => {
  const xs = [1, 2, 3, 4, 5];
  const cases: [string, string, (x: number) => number][] = [
    ['x + 3000000000', 'def main(xs):\n  return map(lam x: x + 3000000000, xs)\n', (x) => x + 3e9],
    ['x * 10000000000', 'def main(xs):\n  return map(lam x: x * 10000000000, xs)\n', (x) => x * 1e10],
    ['x - 2 ** 40', 'def main(xs):\n  return map(lam x: x - 2 ** 40, xs)\n', (x) => x - 2 ** 40],
    ['(2147483647 + 1) * x', 'def main(xs: f64[n]):\n  return map(lam x: (2147483647 + 1) * x, xs)\n', (x) => 2147483648 * x],
    ['x + f64(-2147483648)', 'def main(xs):\n  return map(lam x: x + f64(-2147483648), xs)\n', (x) => x - 2147483648],
    ['f32 exact', 'def main(xs: f64[n]):\n  return map(lam x: f64(f32(x) * 16777216), xs)\n', (x) => x * 16777216],
  ];
  test.each(cases)('%s', async (_, src, f) => {
    const all = await runAllModes(src, { xs: Float64Array.from(xs) });
    for (const [mode, r] of Object.entries(all)) expect({ mode, r: plain(r['result']!) }).toEqual({ mode, r: xs.map(f) });
  });

  test('u32 and i32 at their limits', async () => {
    const src = 'def main(us: u32[n], is: i32[n]):\n  return map(lam u: u + 4294967290, us), map(lam i: i + -2147483648, is), -2147483648, u32(4294967295) - 1\n';
    const all = await runAllModes(src, { us: Uint32Array.from([1, 5]), is: Int32Array.from([0, 2147483647]) });
    for (const [mode, r] of Object.entries(all)) {
      expect({ mode, r: Object.values(r).map(plain) }).toEqual({ mode, r: [[4294967291, 4294967295], [-2147483648, -1], -2147483648, 4294967294] });
    }
  });
});
