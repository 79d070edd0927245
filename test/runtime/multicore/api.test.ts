// The public API with `threads`: the same program compiled for 2, 3 and 4 threads (default fork
// threshold and chunk length) gives bit-identical results on inputs large enough to fork; one
// thread (the js back end) gives the interpreter's, and the threaded results are within the
// regrouping bound of it (determinism.test.ts states the float policy); integer results and
// faults (through the driver, which lets the interpreter decide: `execute().fallback`) are the
// same at every thread count.

import { describe, expect, test } from 'vitest';
import { compile, type Output } from '../../../src/index.js';
import { UserError } from '../../../src/diagnostics/index.js';
import { wideDoubles, wideInts } from './harness.js';

const n = 100_000;
const eps = 2 ** -52;

/** A result's elements; a whole-array fold's result (a number) as one element of its type. */
function data(o: Output | undefined, integer = false): Float64Array | Int32Array {
  if (typeof o === 'number') return integer ? Int32Array.of(o) : Float64Array.of(o);
  return (o as { data: Float64Array | Int32Array }).data;
}

describe('compile(source, { threads })', () => {
  const xs = wideDoubles(n, 4242);
  const is = wideInts(n, 99);
  const source = 'def main(xs: f64[n], is: i32[n]):\n  return fold(+, xs), scanl(+, xs), fold(+, is), scanr(+, is), map(lam x: x * 0.5, xs)\n';

  test('2, 3 and 4 threads agree bit for bit; 1 thread is the interpreter; the float gap is within n·ε·Σ|x|', async () => {
    const runs: Record<string, Output>[] = [];
    for (const threads of [1, 2, 3, 4]) {
      const program = compile(source, { threads });
      runs.push(await program.run({ xs, is }));
      await program.dispose();
    }
    const reference = await compile(source, { threads: 1 }).run({ xs, is }, { interpret: true });
    for (const [k, r] of runs.entries()) {
      for (const name of Object.keys(reference)) {
        // fold(+, is), the third result, is an i32 sum: compared exactly at every thread count.
        const integer = name === 'result2';
        const got = data(r[name], integer);
        const want = data(reference[name], integer);
        if (k === 0 || got instanceof Int32Array || name === 'result4') {
          expect(Array.from(got), `${name} at ${k + 1} thread(s)`).toEqual(Array.from(want));
        }
        if (k >= 2) expect(Array.from(got), `${name}: ${k + 1} threads vs 2`).toEqual(Array.from(data(runs[1]![name], integer)));
      }
    }
    const absSum = xs.reduce((s, x) => s + Math.abs(x), 0);
    const gap = Math.abs(data(runs[1]!.result0)[0]! - data(reference.result0)[0]!);
    expect(gap).toBeLessThanOrEqual(n * eps * absSum);
  });

  test('a fault: the interpreter’s diagnostic at every thread count; the program runs good inputs afterwards', async () => {
    const src = 'def main(is: i32[n], xs: f64[m]):\n  return fold(+, gather(is, xs)), fold(+, map(lam i: 1000 // i, is))\n';
    const good = Int32Array.from({ length: n }, (_, i) => 1 + (i % 97));
    const small = Float64Array.from({ length: 100 }, (_, i) => i);
    for (const bad of [[0, -1], [n - 1, 100]] as const) {
      const broken = Int32Array.from(good);
      broken[bad[0]] = bad[1];
      const messages: string[] = [];
      for (const threads of [1, 2, 3]) {
        const program = compile(src, { threads });
        let caught: unknown;
        try {
          await program.run({ is: broken, xs: small });
        } catch (e) {
          caught = e;
        }
        expect(caught, `${threads} thread(s)`).toBeInstanceOf(UserError);
        messages.push((caught as UserError).message);
        const after = await program.run({ is: good, xs: small });
        expect(data(after.result1)[0], `${threads} thread(s), after the fault`).toBe(good.reduce((s, i) => s + Math.trunc(1000 / i), 0));
        await program.dispose();
      }
      expect(new Set(messages).size, messages.join('\n')).toBe(1);
    }
  });

  test('a fault in an element no result needs: the interpreter’s values at every thread count (fallback set)', async () => {
    const src = 'def main(is: i32[n]):\n  ys = map(lam i: 1000 // i, is)\n  return size(ys), fold(+, map(lam i: i * 2, is))\n';
    const withZero = Int32Array.from({ length: n }, (_, i) => (i === n >> 1 ? 0 : i + 1));
    for (const threads of [1, 2, 3]) {
      const program = compile(src, { threads });
      const execution = await program.execute({ is: withZero });
      const sum = withZero.reduce((s, i) => (s + i * 2) | 0, 0);
      expect(data(execution.results.result1)[0], `${threads} thread(s)`).toBe(sum);
      await program.dispose();
    }
  });
});
