// A fixed-seed slice of the loop-shape fuzzer (loopGen.ts, loopCheck.ts): random stencils whose
// neighbours wrap, clamp, restrict, prolong and fault at an edge, and random contractions, each
// run fused on every back-end configuration and compared with the reference interpreter bit
// for bit. `npm run test:fuzz -- --loops N` runs many more (run.ts); LOOP_FUZZ_PROGRAMS and
// LOOP_FUZZ_SEED set this slice's count and seed.

import { describe, expect, test } from 'vitest';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { backends } from '../runtime/backends.js';
import { checkLoopCase } from './loopCheck.js';
import { loopCase } from './loopCampaign.js';

const programs = Number(process.env.LOOP_FUZZ_PROGRAMS ?? 16);
const seed = Number(process.env.LOOP_FUZZ_SEED ?? 20261124);
const solver = createSolverLoader();

describe('loop-shape fuzzing: stencils and contractions, fused on every configuration, equal the interpreter bit for bit', () => {
  test.each(Array.from({ length: programs }, (_, k) => k))(`program %i of seed ${seed}`, async (k) => {
    const findings = await checkLoopCase(loopCase(seed, k), { solver, configs: backends });
    expect(findings.map((f) => `=== ${f.where}\n${f.detail}`).join('\n\n')).toBe('');
  });
});
