// The multicore back end's results do not depend on the thread count.
//
// Float policy (docs/EXECUTION.md, "Threads"): a loop that carries a value (a whole-array fold,
// a scan) is cut into fixed chunks of `chunkLength` iterations, whatever the thread count, and
// the per-chunk partials are combined in chunk order on the calling thread. So:
//   - f64/f32 folds and scans are bit-identical for every thread count (2, 3, 4 here);
//   - they are within n·ε·Σ|xᵢ| of the interpreter's left-to-right result (regrouping a sum of n
//     terms moves it by at most that much; for a scan, element k within k·ε·Σ_{i≤k}|xᵢ|);
//   - integer folds and scans (wrapping) are exact, as are min/max (NaN included: they propagate
//     it whatever the grouping);
//   - scatters give exactly the `js` back end's result (float combines keep source order per
//     destination element).
// The inputs are 10^5 values with exponents over 30 decades, so regrouping does change float
// sums, and 10^5 is several chunks at the default chunk length (16384).

import { describe, expect, test } from 'vitest';
import type { InterfaceValue, RuntimeValue } from '../../../src/ir/values.js';
import { jsBackend } from '../../../src/runtime/index.js';
import { configOf, runOn, type BackendConfig } from '../backends.js';
import { expectSameValues } from '../equal.js';
import { f64Array, i32Array, mc, prepare, reference, uniform, wideDoubles, wideInts, type Prepared } from './harness.js';

const n = 100_000;
const threadCounts = [2, 3, 4];
const eps = 2 ** -52;

/** The only result's elements (a scalar as one element). */
function elements(v: InterfaceValue): Float64Array {
  const r = v as RuntimeValue;
  return r.kind === 'scalar' ? Float64Array.of(r.value) : Float64Array.from(r.data);
}

async function runAll(p: Prepared, configs: readonly BackendConfig[]): Promise<InterfaceValue[][]> {
  const out: InterfaceValue[][] = [];
  // One after another: the pool is shared, and a run's timing is no concern here.
  for (const c of configs) out.push((await runOn(c, p.program, p.plan, p.inputs, { file: p.file })).results);
  return out;
}

/** Every configuration's results bit-identical to the first's. */
function expectAllSame(results: readonly InterfaceValue[][], configs: readonly BackendConfig[]): void {
  for (let k = 1; k < results.length; k++) expectSameValues(results[k]!, results[0]!, `${configs[k]!.name} vs ${configs[0]!.name}`);
}

/** |got − want| ≤ (k+1)·ε·Σ_{i≤k}|xᵢ| per element k, `prefix` the running sums of |x| (a fold: one element, the whole sum). */
function expectWithinRegrouping(got: Float64Array, want: Float64Array, absPrefix: (k: number) => number, terms: (k: number) => number): void {
  expect(got.length).toBe(want.length);
  for (let k = 0; k < got.length; k++) {
    const bound = terms(k) * eps * absPrefix(k);
    const diff = Math.abs(got[k]! - want[k]!);
    if (!(diff <= bound)) expect.fail(`element ${k}: ${got[k]} vs the interpreter's ${want[k]} (|Δ| ${diff} > ${bound})`);
  }
}

describe('results do not depend on the thread count', () => {
  const configs = threadCounts.map((t) => mc(t));
  const xs = wideDoubles(n, 1201);
  const absSums = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) absSums[i + 1] = absSums[i]! + Math.abs(xs[i]!);

  test('f64 fold(+): 2 == 3 == 4 threads bit for bit, within n·ε·Σ|x| of the interpreter', async () => {
    const p = await prepare('def main(xs: f64[n]):\n  return fold(+, xs)\n', { xs: f64Array(xs) });
    const results = await runAll(p, configs);
    expectAllSame(results, configs);
    expectWithinRegrouping(elements(results[0]![0]!), elements(reference(p)[0]!), () => absSums[n]!, () => n);
  });

  test('f64 scanl(+) with a seed and without: 2 == 3 == 4 threads, each prefix within its regrouping bound', async () => {
    const p = await prepare('def main(xs: f64[n]):\n  return scanl(+, 0.5, xs), scanl(+, xs)\n', { xs: f64Array(xs) });
    const results = await runAll(p, configs);
    expectAllSame(results, configs);
    const want = reference(p);
    for (const r of [0, 1]) {
      const got = elements(results[0]![r]!);
      // Element k of either scan sums at most k + 2 terms (the seed 0.5 included), all among xs[0..k] and the seed.
      expectWithinRegrouping(got, elements(want[r]!), (k) => absSums[Math.min(n, k + 1)]! + 0.5, (k) => k + 2);
    }
  });

  test('f64 fold and scan fused in one loop, and a per-row fold: thread-count independent', async () => {
    const rows = 40;
    const p = await prepare(
      'def main(xs: f64[n], m: f64[r, c]):\n  ys = map(lam x: x * 1.5 - 2.0, xs)\n  return fold(+, ys), scanl(+, ys), fold(+, m)\n',
      { xs: f64Array(xs), m: f64Array(xs.subarray(0, rows * 2500), [rows, 2500]) },
    );
    const results = await runAll(p, configs);
    expectAllSame(results, configs);
    // Rows are folded whole, each left to right: exactly the interpreter's.
    expectSameValues([results[0]![2]!], [reference(p)[2]!], 'per-row fold');
  });

  test('i32 fold(+), scanl(+), scanr(+) and a scan of a scan wrap and are exact (interpreter and every thread count), many chunks', async () => {
    const ints = wideInts(n, 77);
    const p = await prepare('def main(xs: i32[n]):\n  return fold(+, xs), scanl(+, xs), scanr(+, 7, xs), fold(*, map(lam x: x * 2 + 1, xs)), scanl(+, scanl(+, xs))\n', { xs: i32Array(ints) });
    const want = reference(p);
    for (const c of [...configs, mc(2, { chunkLength: 1000 }), mc(3, { chunkLength: 999 })]) {
      expectSameValues((await runOn(c, p.program, p.plan, p.inputs)).results, want, c.name);
    }
  });

  test('min and max folds are exact, NaN and -0 included, wherever the NaN falls', async () => {
    const src = 'def main(xs: f64[n]):\n  return fold(min, xs), fold(max, xs), minimum(map(lam x: -x, xs))\n';
    for (const at of [-1, 0, 16383, 16384, 50_000, n - 1]) {
      const data = Float64Array.from(xs);
      data[12345] = -0;
      if (at >= 0) data[at] = NaN;
      const p = await prepare(src, { xs: f64Array(data) });
      const want = reference(p);
      for (const c of [configs[0]!, configs[1]!, mc(2, { chunkLength: 7 })]) {
        expectSameValues((await runOn(c, p.program, p.plan, p.inputs)).results, want, `${c.name}, NaN at ${at}`);
      }
    }
  });

  test('f64 scatter(+) with many duplicate indices: bit-identical to the js back end at every thread count', async () => {
    const r = uniform(5);
    const is = Int32Array.from({ length: n }, () => Math.floor(r() * 13));
    const p = await prepare('def main(d: f64[m], is: i32[n], xs: f64[n]):\n  return scatter(+, d, zip(is, xs)), scatter(lam o, v: o * 0.5 + v, d, zip(is, xs))\n', {
      d: f64Array(new Float64Array(13).fill(0.25)),
      is: i32Array(is),
      xs: f64Array(xs),
    });
    const want = await runAll(p, [configOf(jsBackend)]);
    const results = await runAll(p, configs);
    for (let k = 0; k < configs.length; k++) expectSameValues(results[k]!, want[0]!, configs[k]!.name);
  });

  test('f64 overwrite scatter with duplicates keeps the last write in source order, as js does', async () => {
    const r = uniform(9);
    const is = Int32Array.from({ length: n }, () => Math.floor(r() * 1000));
    const p = await prepare('def main(d: f64[m], is: i32[n], xs: f64[n]):\n  return scatter(lam o, v: v, d, zip(is, xs))\n', {
      d: f64Array(new Float64Array(1000)),
      is: i32Array(is),
      xs: f64Array(xs),
    });
    const want = reference(p);
    for (const c of configs) expectSameValues((await runOn(c, p.program, p.plan, p.inputs)).results, want, c.name);
  });
});
