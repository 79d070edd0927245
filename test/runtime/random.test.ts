// Invariant 3 of DESIGN.md: on random programs (the shared generator) and their inputs, fused
// execution under every strategy's plan equals the reference interpreter — bit for bit, floats
// included: folds and scans run left to right (right to left for scanr) exactly as the
// interpreter does, so no reassociation happens and no tolerance is needed.

import { describe, expect, test } from 'vitest';
import { interpret } from '../../src/interp/index.js';
import { plan } from '../../src/plan/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { validatePlan } from '../../src/check/validate.js';
import type { Strategy } from '../../src/plan/types.js';
import { compileProgram } from '../../src/runtime/index.js';
import { randomProgram } from '../util/index.js';
import { expectSameValues } from './equal.js';

const solver = createSolverLoader();
const strategies: readonly { readonly strategy: Strategy; readonly cost?: string }[] = [
  { strategy: 'none' },
  { strategy: 'greedy-down' },
  { strategy: 'greedy-up' },
  { strategy: 'ilp', cost: 'reads+writes' },
  { strategy: 'ilp', cost: 'intermediate-arrays' },
  { strategy: 'ilp', cost: 'fused-edges' },
  { strategy: 'ilp', cost: 'reads' },
  { strategy: 'ilp', cost: 'clusters' },
  { strategy: 'ilp', cost: 'everything' },
];

const seeds = Array.from({ length: 60 }, (_, k) => k + 1);

describe('fused execution equals the interpreter on random programs', () => {
  test.each(seeds)('seed %i, every strategy', async (seed) => {
    const c = randomProgram(seed, { combinators: { min: 2, max: 9 } });
    const expected = interpret(c.program, c.inputs);
    for (const s of strategies) {
      const label = `${s.strategy} ${s.cost ?? ''}\n${c.description}`;
      const p = await plan(c.program, { ...s, solver });
      expect(validatePlan(c.program, p), label).toEqual([]);
      let results;
      try {
        results = compileProgram(c.program, p).run(c.inputs).results;
      } catch (err) {
        throw new Error(`${label}\n${JSON.stringify(p.root)}\n${(err as Error).stack}`);
      }
      expectSameValues(results, expected, label);
    }
  });
});
