// `rotate(k, xs)` (prelude): xs rotated left by k along its outer dimension, for any i32 k and
// any rank, checked against an independent JS rotation in the interpreter and every strategy
// (fused results bit-equal to the interpreter's), and fused into its consumer by the ILP.

import { describe, expect, test } from 'vitest';
import { compile } from '../../src/index.js';
import { lowerError } from './helpers.js';
import { plain, runAllModes } from './modes.js';

/** The expected rotation of rows: row i of the result is row ((i + k) mod n) of `rows`. */
function rotateRows<T>(rows: readonly T[], k: number): T[] {
  const n = rows.length;
  if (n === 0) return [];
  const r = ((k % n) + n) % n;
  return rows.map((_, i) => rows[(i + r) % n]!);
}

const xs5 = Float64Array.from([1.5, -2, 3.25, 4, 5]);
const ks = [0, 1, 2, -1, -3, 4, 5, -5, 7, -12, 10, 1000003, -1000003, 2147483647, -2147483648];

async function expectAllModes(src: string, inputs: Parameters<typeof runAllModes>[1], expected: unknown): Promise<void> {
  const all = await runAllModes(src, inputs);
  for (const [mode, r] of Object.entries(all)) {
    expect({ mode, result: plain(r['result']!) }).toEqual({ mode, result: expected });
  }
}

describe('rotate, rank 1', () => {
  const staticK = 'def main(xs: f64[n], k: i32):\n  result = rotate(k, xs)\n  return result\n';
  test.each(ks)('k = %d (a static argument)', async (k) => {
    await expectAllModes(staticK, { xs: xs5, k }, rotateRows(Array.from(xs5), k));
  });

  // k read from an array is a run-time value: the modulo is computed where the program runs.
  const runtimeK = 'def main(xs: f64[n], ks: i32[m]):\n  result = rotate(ks[0], xs)\n  return result\n';
  test.each(ks)('k = %d (known only at run time)', async (k) => {
    await expectAllModes(runtimeK, { xs: xs5, ks: Int32Array.from([k]) }, rotateRows(Array.from(xs5), k));
  });

  test.each([0, 1, -1, 2147483647, -2147483648])('an empty array stays empty (k = %d; no division by zero)', async (k) => {
    await expectAllModes(staticK, { xs: new Float64Array(0), k }, []);
    await expectAllModes(runtimeK, { xs: new Float64Array(0), ks: Int32Array.from([k]) }, []);
  });

  test('a one-element array is itself for every k', async () => {
    for (const k of [0, 1, -1, 99]) await expectAllModes(staticK, { xs: Float64Array.from([7]), k }, [7]);
  });

  // The outer extent known only at run time (filter's output), empty included.
  test.each([[[1, -2, 3, 4, -5, 6], 2], [[1, -2, 3, 4, -5, 6], -7], [[-1, -2], 3]] as const)('a run-time size: filter of %j, k = %d', async (data, k) => {
    const src = 'def main(xs: f64[n], k: i32):\n  result = rotate(k, filter(lam x: x > 0.0, xs))\n  return result\n';
    await expectAllModes(src, { xs: Float64Array.from(data), k }, rotateRows(data.filter((x) => x > 0), k));
  });

  test('i32 and tuple elements', async () => {
    const ints = Int32Array.from([10, 20, 30, 40]);
    await expectAllModes('def main(xs: i32[n]):\n  result = rotate(-1, xs)\n  return result\n', { xs: ints }, [40, 10, 20, 30]);
    const src = 'def main(a: i32[n], b: f64[n]):\n  p, q = unzip(rotate(3, zip(a, b)))\n  result = map(lam x, y: f64(x) + y, p, q)\n  return result\n';
    await expectAllModes(src, { a: ints, b: Float64Array.from([0.5, 0.25, 0.125, 0.0625]) }, [40.0625, 10.5, 20.25, 30.125]);
  });
});

describe('rotate, higher ranks: whole rows move', () => {
  const rows = [[1, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]];
  const matrix = { data: Float64Array.from(rows.flat()), shape: [4, 3] };
  test.each([0, 1, -1, 4, -9, 2147483647])('rank 2, k = %d', async (k) => {
    await expectAllModes('def main(xs: f64[n, m], k: i32):\n  result = rotate(k, xs)\n  return result\n', { xs: matrix, k }, rotateRows(rows, k).flat());
  });

  test('rank 3, and an empty outer dimension', async () => {
    const cube = Array.from({ length: 3 }, (_, i) => Array.from({ length: 4 }, (_, j) => i * 100 + j));
    const src = 'def main(xs: f64[a, b, c], k: i32):\n  result = rotate(k, xs)\n  return result\n';
    await expectAllModes(src, { xs: { data: Float64Array.from(cube.flat()), shape: [3, 2, 2] }, k: 2 }, rotateRows(cube, 2).flat());
    await expectAllModes(src, { xs: { data: new Float64Array(0), shape: [0, 2, 2] }, k: 5 }, []);
  });

  test('rotate of transpose equals the transpose rotated along its columns', async () => {
    const src = 'def main(xs: f64[n, m]):\n  result = rotate(2, transpose(xs))\n  return result\n';
    const cols = [0, 1, 2].map((j) => rows.map((r) => r[j]!));
    await expectAllModes(src, { xs: matrix }, rotateRows(cols, 2).flat());
  });
});

describe('rotate fuses', () => {
  test('into its consumer: one cluster under the ILP, and into a fold', async () => {
    const consumer = compile('def main(xs: f64[n], k: i32):\n  ys = rotate(k, xs)\n  return map(lam y: y * 2.0, ys)\n');
    const plan = await consumer.plan({ xs: xs5, k: 2 }, { strategy: 'ilp' });
    expect(plan.clusters).toHaveLength(1);
    const folded = compile('def main(xs: f64[n], k: i32):\n  return sum(map(lam a, b: a * b, xs, rotate(k, xs)))\n');
    expect((await folded.plan({ xs: xs5, k: 2 }, { strategy: 'ilp' })).clusters).toHaveLength(1);
  });

  test('with its producer and its consumer: map, rotate, map is one cluster, and runs right', async () => {
    const src = 'def main(xs: f64[n], k: i32):\n  result = map(lam y: y + 1.0, rotate(k, map(lam x: x * 2.0, xs)))\n  return result\n';
    expect((await compile(src).plan({ xs: xs5, k: -2 }, { strategy: 'ilp' })).clusters).toHaveLength(1);
    await expectAllModes(src, { xs: xs5, k: -2 }, rotateRows(Array.from(xs5, (x) => x * 2 + 1), -2));
  });
});

test('k must be an integer: a float k is a type error at the call', () => {
  const e = lowerError('def main(xs: f64[n]):\n  return rotate(1.5, xs)\n');
  expect({ code: e.code, at: e.at }).toEqual({ code: 'E305', at: '2:10' });
  expect(e.message).toContain('found f64');
});

test('the helpers rotate is built from are the prelude\'s own: a user program cannot name them', () => {
  for (const name of ['outer', 'inner', 'withOuter']) {
    expect(lowerError(`def main(xs: f64[n]):\n  return ${name}(shape(xs))\n`).code).toBe('E201');
  }
});
