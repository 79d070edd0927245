// `iotaFrom(start, stop)` and `iotaStep(start, stop, step)` (prelude): Python's range as an
// array, checked against an independent JS range in the interpreter and every strategy, with
// static and run-time arguments, empty and negative-step ranges, i32 extremes, and the errors
// of a zero step (E401 at the call) and a range too long for an array (E404).

import { describe, expect, test } from 'vitest';
import { compile } from '../../src/index.js';
import { diagnosticPosition, UserError } from '../../src/diagnostics/index.js';
import { plain, runAllModes, strategies } from './modes.js';

/** Python's range(start, stop, step), step ≠ 0. */
function pyRange(start: number, stop: number, step: number): number[] {
  const out: number[] = [];
  for (let x = start; step > 0 ? x < stop : x > stop; x += step) out.push(x);
  return out;
}

const ranges: [number, number, number][] = [
  [0, 5, 1], [5, 0, 1], [5, 0, -1], [0, 10, 3], [0, 9, 3], [10, 0, -3], [-5, 5, 2], [3, 3, 1], [3, 3, -1],
  [0, 1, 1000], [7, 8, -1], [-1, -10, -4],
  [2147483640, 2147483647, 4], [-2147483648, -2147483640, 3], [2147483647, -2147483648, -2147483647],
  [-2147483648, 2147483647, 2147483647], [0, 2147483647, 2147483646],
];

async function expectAllModes(src: string, inputs: Parameters<typeof runAllModes>[1], expected: unknown): Promise<void> {
  const all = await runAllModes(src, inputs);
  for (const [mode, r] of Object.entries(all)) {
    expect({ mode, result: plain(r['result']!) }).toEqual({ mode, result: expected });
  }
}

describe('iotaStep', () => {
  const staticArgs = 'def main(a: i32, b: i32, c: i32):\n  result = iotaStep(a, b, c)\n  return result\n';
  test.each(ranges)('iotaStep(%d, %d, %d), static arguments', async (a, b, c) => {
    await expectAllModes(staticArgs, { a, b, c }, pyRange(a, b, c));
  });

  const runtimeArgs = 'def main(v: i32[k]):\n  result = iotaStep(v[0], v[1], v[2])\n  return result\n';
  test.each(ranges)('iotaStep(%d, %d, %d), run-time arguments', async (a, b, c) => {
    await expectAllModes(runtimeArgs, { v: Int32Array.from([a, b, c]) }, pyRange(a, b, c));
  });

  test('literal arguments, fused into a consumer (one cluster under the ILP)', async () => {
    const src = 'def main(xs: f64[n]):\n  result = map(lam i: f64(i) * 0.5, iotaStep(9, -3, -2))\n  return result\n';
    await expectAllModes(src, { xs: new Float64Array(1) }, pyRange(9, -3, -2).map((i) => i * 0.5));
    expect((await compile(src).plan({ xs: new Float64Array(1) }, { strategy: 'ilp' })).clusters).toHaveLength(1);
  });
});

test('f64 arguments give an f64 array, as NumPy\'s arange', async () => {
  await expectAllModes('def main(x: f64):\n  result = iotaStep(x, 1.0, 0.25)\n  return result\n', { x: 0 }, [0, 0.25, 0.5, 0.75]);
  await expectAllModes('def main(x: f64):\n  result = iotaFrom(0.5, x)\n  return result\n', { x: 3 }, [0.5, 1.5, 2.5]);
});

describe('iotaFrom', () => {
  test.each([[0, 5], [5, 0], [3, 3], [-4, 2], [2147483645, 2147483647], [-2147483648, -2147483646]] as const)('iotaFrom(%d, %d)', async (a, b) => {
    await expectAllModes('def main(a: i32, b: i32):\n  result = iotaFrom(a, b)\n  return result\n', { a, b }, pyRange(a, b, 1));
    await expectAllModes('def main(v: i32[k]):\n  result = iotaFrom(v[0], v[1])\n  return result\n', { v: Int32Array.from([a, b]) }, pyRange(a, b, 1));
  });

  test('iotaFrom(0, n) is iota(n)', async () => {
    await expectAllModes('def main(xs: f64[n]):\n  result = map(lam a, b: a - b, iotaFrom(0, size(xs)), iota(size(xs)))\n  return result\n', { xs: new Float64Array(4) }, [0, 0, 0, 0]);
  });
});

/** The first diagnostic of a failed run, as `code line:col`. */
async function failure(src: string, inputs: Parameters<typeof runAllModes>[1], options: Parameters<ReturnType<typeof compile>['run']>[1]): Promise<string> {
  const e: unknown = await compile(src).run(inputs, options).catch((x: unknown) => x);
  if (!(e instanceof UserError)) throw new Error(`expected a UserError, got ${String(e)}`);
  const d = e.diagnostics[0]!;
  return `${d.code} ${diagnosticPosition(d)}`;
}

describe('errors', () => {
  const modes = [{ interpret: true }, ...strategies.map((strategy) => ({ strategy }))];

  test.each([
    ['a literal zero step', 'def main(xs: f64[n]):\n  return sum(map(lam i: f64(i), iotaStep(0, 5, 0)))\n', { xs: new Float64Array(1) }, 'E401 2:33'],
    ['a static zero step', 'def main(c: i32):\n  ys = iotaStep(1, 5, c)\n  return ys\n', { c: 0 }, 'E401 2:8'],
    ['an f64 zero step', 'def main(x: f64):\n  return iotaStep(0.0, 1.0, x)\n', { x: 0 }, 'E401 2:10'],
    ['a run-time zero step', 'def main(v: i32[k]):\n  return iotaStep(v[0], v[1], v[2])\n', { v: Int32Array.from([5, 0, 0]) }, 'E401 2:10'],
    ['a range of 2^32 - 1 elements', 'def main(v: i32[k]):\n  return iotaFrom(v[0], v[1])\n', { v: Int32Array.from([-2147483648, 2147483647]) }, 'E404 2:10'],
    ['a range of 2^31 elements', 'def main(a: i32, b: i32):\n  return iotaStep(a, b, 2)\n', { a: -2147483648, b: 2147483647 }, 'E404 2:10'],
  ] as const)('%s fails at the call in every mode', async (_, src, inputs, expected) => {
    for (const options of modes) expect({ options, error: await failure(src, inputs, options) }).toEqual({ options, error: expected });
  });
});
