// Invariant 6 of DESIGN.md, in the normal suite: random source-level programs (test/fuzz) give
// the same answer — values, or the same diagnostic — in the interpreter and under every
// strategy, never an internal error, and the answer the fuzzer's own evaluator expects.
// `npm run test:fuzz` runs the same check on 10^5 programs; FUZZ_PROGRAMS and FUZZ_SEED set
// the count per seed and the first of the four seeds (a failure prints the seed and a shrunk reproducer per group).
// FUZZ_THREADED_PROGRAMS programs (default 100) of a fifth seed also run on the multicore back
// end with 2 and 3 threads (check.ts `threadedModes`), and as many of a sixth seed with fastMath
// (check.ts `fastMathModes`: float folds regrouped, within the float tolerance), and as many of a
// seventh seed with every cluster the WebAssembly translator accepts run as a kernel (check.ts
// `wasmModes`).

import { describe, expect, test } from 'vitest';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { report, reproduce, scan } from './campaign.js';
import { fastMathModes, threadedModes, wasmModes, type ThreadedMode } from './check.js';

const programs = Number(process.env.FUZZ_PROGRAMS ?? 500);
const firstSeed = Number(process.env.FUZZ_SEED ?? 20261123);
/** Four seeds of `programs` each (2,000 programs by default), so a failure names a smaller campaign. */
const seeds = [0, 1, 2, 3].map((k) => firstSeed + k);
const threadedPrograms = Number(process.env.FUZZ_THREADED_PROGRAMS ?? 100);

async function campaign(seed: number, count: number, threaded: readonly ThreadedMode[]): Promise<void> {
  const solver = createSolverLoader();
  const started = performance.now();
  const result = await scan({ count, seed, solver, threaded });
  const seconds = (performance.now() - started) / 1000;
  // Shrinking costs many checks per group: a few groups, briefly, are enough to start from
  // (`npm run test:fuzz -- --count N --seed S` shrinks every group further).
  const reproducers = [];
  for (const g of result.groups.slice(0, 3)) reproducers.push(await reproduce(seed, g, solver, 80, threaded));
  const text = report(seed, result, reproducers, seconds, threaded);
  if (result.agreed !== result.runs) console.log(text);
  expect({ internal: result.counts.internal, mismatch: result.counts.mismatch, evaluator: result.counts.evaluator }, text).toEqual({ internal: 0, mismatch: 0, evaluator: 0 });
}

describe('source-level differential fuzzing', () => {
  test.each(seeds)(`${programs} random programs (seed %i), 3 input sets each: interpreter, ilp, greedy-down, greedy-up, none and the evaluator agree`, async (seed) => {
    await campaign(seed, programs, []);
  }, 600_000);

  test(`${threadedPrograms} random programs (seed ${firstSeed + 4}) also agree on 2 and 3 threads (chunks of 2 and 3)`, async () => {
    await campaign(firstSeed + 4, threadedPrograms, threadedModes(3));
  }, 600_000);

  test(`${threadedPrograms} random programs (seed ${firstSeed + 5}) also agree with fastMath, on js and on 2 threads (chunks of 2)`, async () => {
    await campaign(firstSeed + 5, threadedPrograms, fastMathModes());
  }, 600_000);

  test(`${threadedPrograms} random programs (seed ${firstSeed + 6}) also agree with WebAssembly kernels (wasm 'on'), fused by the ILP and unfused`, async () => {
    await campaign(firstSeed + 6, threadedPrograms, wasmModes());
  }, 600_000);
});
