// Invariant 6 of DESIGN.md, in the normal suite: random source-level programs (test/fuzz) give
// the same answer — values, or the same diagnostic — in the interpreter and under every
// strategy, never an internal error, and the answer the fuzzer's own evaluator expects.
// `npm run test:fuzz` runs the same check on 10^5 programs; FUZZ_PROGRAMS and FUZZ_SEED set
// the count per seed and the first of the four seeds (a failure prints the seed and a shrunk reproducer per group).

import { describe, expect, test } from 'vitest';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { report, reproduce, scan } from './campaign.js';

const programs = Number(process.env.FUZZ_PROGRAMS ?? 500);
const firstSeed = Number(process.env.FUZZ_SEED ?? 20261123);
/** Four seeds of `programs` each (2,000 programs by default), so a failure names a smaller campaign. */
const seeds = [0, 1, 2, 3].map((k) => firstSeed + k);

describe('source-level differential fuzzing', () => {
  test.each(seeds)(`${programs} random programs (seed %i), 3 input sets each: interpreter, ilp, greedy-down, greedy-up, none and the evaluator agree`, async (seed) => {
    const solver = createSolverLoader();
    const started = performance.now();
    const result = await scan({ count: programs, seed, solver });
    const seconds = (performance.now() - started) / 1000;
    // Shrinking costs many checks per group: a few groups, briefly, are enough to start from
    // (`npm run test:fuzz -- --count N --seed S` shrinks every group further).
    const reproducers = [];
    for (const g of result.groups.slice(0, 3)) reproducers.push(await reproduce(seed, g, solver, 80));
    const text = report(seed, result, reproducers, seconds);
    if (result.agreed !== result.runs) console.log(text);
    expect({ internal: result.counts.internal, mismatch: result.counts.mismatch, evaluator: result.counts.evaluator }, text).toEqual({ internal: 0, mismatch: 0, evaluator: 0 });
  }, 600_000);
});
