// Faults on several threads report what a sequential run reports: a gather or scatter index out
// of range, an integer division by zero in a fold and a `while` over its iteration limit (E405)
// give the js back end's diagnostic (code, message, location), wherever the faulting element
// falls (the first, a middle or the last element, so the first, a middle or the last chunk of
// whichever split the run makes; two faults: the earlier one in source order), and the same
// executable then runs good inputs correctly.

import { describe, expect, test } from 'vitest';
import { UserError } from '../../../src/diagnostics/index.js';
import type { InterfaceValue } from '../../../src/ir/values.js';
import type { CompileOptions, Executable } from '../../../src/runtime/index.js';
import { jsBackend } from '../../../src/runtime/index.js';
import { compileOn, configOf, runOn, type BackendConfig } from '../backends.js';
import { expectSameValues } from '../equal.js';
import { f64Array, i32Array, mc, prepare, reference, type Prepared } from './harness.js';

const n = 1000;

async function failure(run: () => Promise<unknown>): Promise<UserError> {
  try {
    await run();
  } catch (e) {
    if (e instanceof UserError) return e;
    throw e;
  }
  throw new Error('expected the run to fail');
}

/** What a run of `inputs` on a fresh executable of `config` throws. */
async function faultOf(config: BackendConfig, p: Prepared, inputs: readonly InterfaceValue[], options: CompileOptions = {}): Promise<UserError> {
  const exe = await compileOn(config, p.program, p.plan, { file: p.file, ...options });
  try {
    return await failure(async () => exe.run(inputs));
  } finally {
    exe.dispose();
  }
}

/** Good inputs: indices in range, no zero divisor. */
function goodIndices(length: number, bound: number): Int32Array {
  return Int32Array.from({ length }, (_, i) => (i * 7 + 3) % bound);
}

/** `base` with `bad` written at each of `positions`. */
function withBad(base: Int32Array, positions: readonly number[], bad: number): Int32Array {
  const out = Int32Array.from(base);
  for (const p of positions) out[p] = bad;
  return out;
}

interface FaultCase {
  readonly name: string;
  readonly source: string;
  /** The inputs by name, with the index/divisor array `is` given. */
  readonly inputs: (is: Int32Array) => Record<string, InterfaceValue>;
  /** A good `is`, and the value that faults when put in it. */
  readonly good: Int32Array;
  readonly bad: number;
  readonly code: string;
}

const xsData = Float64Array.from({ length: n }, (_, i) => i * 0.5 - 3);
const xs = f64Array(xsData);

const cases: readonly FaultCase[] = [
  {
    name: 'gather out of range',
    source: 'def main(is: i32[n], xs: f64[m]):\n  return gather(is, map(lam x: x * 2.0, xs))\n',
    inputs: (is) => ({ is: i32Array(is), xs }),
    good: goodIndices(n, n),
    bad: n,
    code: 'E402',
  },
  {
    name: 'gather with a negative index, fused with a fold',
    source: 'def main(is: i32[n], xs: f64[m]):\n  ys = gather(is, xs)\n  return fold(+, ys), fold(max, ys)\n',
    inputs: (is) => ({ is: i32Array(is), xs }),
    good: goodIndices(n, n),
    bad: -1,
    code: 'E402',
  },
  {
    name: 'f64 scatter(+) out of range',
    source: 'def main(is: i32[n], xs: f64[n]):\n  return scatter(+, generate(17, lam i: 0.0), zip(is, xs))\n',
    inputs: (is) => ({ is: i32Array(is), xs }),
    good: goodIndices(n, 17),
    bad: 17,
    code: 'E402',
  },
  {
    name: 'i32 scatter(+) out of range (atomic)',
    source: 'def main(is: i32[n]):\n  return scatter(+, generate(17, lam i: 0), zip(is, map(lam i: i * 3, is)))\n',
    inputs: (is) => ({ is: i32Array(is) }),
    good: goodIndices(n, 17),
    bad: -5,
    code: 'E402',
  },
  {
    name: 'overwrite scatter out of range (owner split)',
    source: 'def main(is: i32[n], xs: f64[n]):\n  return scatter(lam o, v: v, generate(17, lam i: 0.0), zip(is, xs))\n',
    inputs: (is) => ({ is: i32Array(is), xs }),
    good: goodIndices(n, 17),
    bad: 1000000,
    code: 'E402',
  },
  {
    name: 'integer division by zero in a fold',
    source: 'def main(is: i32[n]):\n  return fold(+, map(lam i: 1000 // i, is))\n',
    inputs: (is) => ({ is: i32Array(is) }),
    good: Int32Array.from({ length: n }, (_, i) => (i % 9) + 1),
    bad: 0,
    code: 'E401',
  },
  {
    name: 'integer remainder by zero in a scan',
    source: 'def main(is: i32[n]):\n  return scanl(+, map(lam i: 1000 % i, is))\n',
    inputs: (is) => ({ is: i32Array(is) }),
    good: Int32Array.from({ length: n }, (_, i) => (i % 9) + 1),
    bad: 0,
    code: 'E401',
  },
];

describe('a fault on several threads is the sequential run’s diagnostic', () => {
  const js = configOf(jsBackend);
  const positions: readonly (readonly number[])[] = [[0], [n >> 1], [n - 1], [n - 1, 3], [1, n >> 1]];

  describe.each(cases)('$name', (c) => {
    test.each([2, 3])('%i threads: the first, a middle, the last element, two of them; then good inputs', async (threads) => {
      const goodRun = await prepare(c.source, c.inputs(c.good));
      const want = reference(goodRun);
      for (const chunkLength of [16, 1]) {
        const config = mc(threads, { chunkLength });
        const exe: Executable = await compileOn(config, goodRun.program, goodRun.plan, { file: goodRun.file });
        try {
          for (const at of positions) {
            const bad = goodRun.inputs.map((v, k) => (k === 0 ? c.inputs(withBad(c.good, at, c.bad)).is! : v));
            const expected = await faultOf(js, goodRun, bad);
            expect(expected.code).toBe(c.code);
            const got = await failure(async () => exe.run(bad));
            expect(got.diagnostics, `${config.name}, bad at ${at.join(' and ')}`).toEqual(expected.diagnostics);
            // The same executable, good inputs again: right.
            expectSameValues((await exe.run(goodRun.inputs)).results, want, `${config.name}, after the fault at ${at.join(' and ')}`);
          }
        } finally {
          exe.dispose();
        }
      }
    });
  });

  test.each([
    ['f64 scatter(+)', 'def main(is: i32[n], xs: f64[n], d: f64[k]):\n  return scatter(+, map(lam x: x, d), zip(is, xs))\n'],
    ['overwrite scatter', 'def main(is: i32[n], xs: f64[n], d: f64[k]):\n  return scatter(lam o, v: v, map(lam x: x, d), zip(is, xs))\n'],
    ['i32 scatter(+)', 'def main(is: i32[n], xs: f64[n], d: i32[k]):\n  return scatter(+, map(lam x: x, d), zip(is, map(lam x: i32(x), xs)))\n'],
  ])('%s into an empty destination: every index is out of range (E402 as js), and an empty source is fine', async (_, source) => {
    const empty = (name: string): InterfaceValue => (name === 'd' && source.includes('d: i32') ? i32Array([]) : f64Array([]));
    for (const length of [1, 2, n]) {
      const p = await prepare(source, { is: i32Array(goodIndices(length, 5)), xs: f64Array(xsData.subarray(0, length)), d: empty('d') });
      const expected = await faultOf(js, p, p.inputs);
      expect(expected.code).toBe('E402');
      for (const threads of [2, 3]) {
        const got = await faultOf(mc(threads, { chunkLength: 16 }), p, p.inputs);
        expect(got.diagnostics, `${threads} threads, ${length} updates`).toEqual(expected.diagnostics);
      }
    }
    const none = await prepare(source, { is: i32Array([]), xs: f64Array([]), d: empty('d') });
    expectSameValues((await runOn(mc(2), none.program, none.plan, none.inputs)).results, reference(none));
  });

  test.each([2, 3])('E405 in a while whose body runs on %i threads; the next run is right', async (threads) => {
    // The bound comes from an array, so it is a run-time value (a scalar parameter's value may be compiled in).
    const source = 'def main(xs: f64[n], ms: i32[j]):\n  k = 0\n  ys = xs\n  while k < ms[0]:\n    ys = map(lam y: y * 0.5 + 1.0, ys)\n    s = fold(+, ys)\n    k = k + 1\n  return ys, fold(+, ys)\n';
    const p = await prepare(source, { xs, ms: i32Array([3]) });
    const limit: CompileOptions = { file: p.file, maxWhileIterations: 5 };
    const tooMany = [p.inputs[0]!, i32Array([9])];
    const expected = await faultOf(js, p, tooMany, limit);
    expect(expected.code).toBe('E405');
    const exe = await compileOn(mc(threads, { chunkLength: 64 }), p.program, p.plan, limit);
    try {
      const got = await failure(async () => exe.run(tooMany));
      expect(got.diagnostics).toEqual(expected.diagnostics);
      const again = (await exe.run(p.inputs)).results;
      const js3 = await compileOn(js, p.program, p.plan, limit);
      expectSameValues(again, (await js3.run(p.inputs)).results);
      js3.dispose();
    } finally {
      exe.dispose();
    }
  });
});
