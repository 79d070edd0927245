// `replicate(n, xs)` (prelude): n copies of xs along a new outer dimension, for xs of any rank
// (rank 1 as before), checked against independent JS copies in the interpreter and every
// strategy, with static and run-time n and shapes, and fused into its consumer by the ILP.

import { describe, expect, test } from 'vitest';
import { compile } from '../../src/index.js';
import { lowerError } from './helpers.js';
import { plain, runAllModes } from './modes.js';

/** n copies of the row-major data of xs, one after another. */
function copies(n: number, data: readonly number[]): number[] {
  return Array.from({ length: Math.max(0, n) }, () => data).flat();
}

async function expectAllModes(src: string, inputs: Parameters<typeof runAllModes>[1], expected: unknown, shape?: readonly number[]): Promise<void> {
  const all = await runAllModes(src, inputs);
  for (const [mode, r] of Object.entries(all)) {
    const result = r['result']!;
    expect({ mode, result: plain(result) }).toEqual({ mode, result: expected });
    if (shape !== undefined) expect({ mode, shape: (result as { shape: readonly number[] }).shape }).toEqual({ mode, shape });
  }
}

const ranked = (rank: number): string => ['n', 'm', 'p', 'q'].slice(0, rank).join(', ');

describe('replicate', () => {
  test.each([
    [1, [3], 3], [1, [3], 0], [1, [0], 4], [1, [1], 1],
    [2, [2, 3], 2], [2, [2, 3], 0], [2, [0, 3], 5], [2, [3, 0], 2],
    [3, [2, 1, 3], 3], [4, [1, 2, 2, 1], 2],
  ] as const)('rank %d of shape %j, n = %d', async (rank, shape, n) => {
    const count = shape.reduce((a: number, b: number) => a * b, 1);
    const data = Array.from({ length: count }, (_, i) => i * 1.5 - 2);
    const src = `def main(xs: f64[${ranked(rank)}], n: i32):\n  result = replicate(n, xs)\n  return result\n`;
    const xs = rank === 1 ? Float64Array.from(data) : { data: Float64Array.from(data), shape: [...shape] };
    await expectAllModes(src, { xs, n }, copies(n, data), [n, ...shape]);
  });

  test('a run-time n and a run-time shape (filter)', async () => {
    const src = 'def main(xs: f64[k], ns: i32[m]):\n  result = replicate(ns[0], filter(lam x: x > 0.0, xs))\n  return result\n';
    const data = [3, -1, 4, -1, 5];
    await expectAllModes(src, { xs: Float64Array.from(data), ns: Int32Array.from([3]) }, copies(3, [3, 4, 5]), [3, 3]);
    await expectAllModes(src, { xs: Float64Array.from(data), ns: Int32Array.from([0]) }, [], [0, 3]);
  });

  test('tuple elements, and replicate of replicate', async () => {
    const src = 'def main(a: i32[n], b: f64[n]):\n  p, q = unzip(replicate(2, zip(a, b)))\n  result = map(lam x, y: f64(x) + y, p, q)\n  return result\n';
    await expectAllModes(src, { a: Int32Array.from([1, 2]), b: Float64Array.from([0.5, 0.25]) }, [1.5, 2.25, 1.5, 2.25], [2, 2]);
    const twice = 'def main(xs: f64[n]):\n  result = replicate(2, replicate(3, xs))\n  return result\n';
    await expectAllModes(twice, { xs: Float64Array.from([7, 8]) }, copies(6, [7, 8]), [2, 3, 2]);
  });

  test('sums of the copies of a matrix: replicate fuses into the fold (one cluster under the ILP)', async () => {
    const src = 'def main(xs: f64[n, m]):\n  result = sum(replicate(2, xs))\n  return result\n';
    const xs = { data: Float64Array.from([1, 2, 3, 4, 5, 6]), shape: [2, 3] };
    await expectAllModes(src, { xs }, [6, 15, 6, 15], [2, 2]);
    expect((await compile(src).plan({ xs }, { strategy: 'ilp' })).clusters).toHaveLength(1);
  });

  test('a negative n fails at run time (E404), as a negative generate does', async () => {
    const e: unknown = await compile('def main(xs: f64[n], k: i32):\n  return replicate(k, xs)\n').run({ xs: Float64Array.from([1]), k: -1 }).catch((x: unknown) => x);
    expect(String(e)).toContain('E404');
  });

  test('a scalar is not replicated: fill(n, x) makes n copies of one', () => {
    const e = lowerError('def main(x: f64):\n  return replicate(3, x)\n');
    expect({ code: e.code, at: e.at }).toEqual({ code: 'E302', at: '2:10' });
  });
});
