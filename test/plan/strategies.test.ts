// Every strategy's plan validates and reports the cost the independent evaluator computes; the
// ILP's optimum equals the brute force's on small random programs, for every cost function.
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { parseCost } from '../../src/plan/cost.js';
import { evaluatePlan } from '../../src/check/evaluate.js';
import { validatePlan, formatViolation } from '../../src/check/validate.js';
import { bruteForce } from '../../src/check/bruteforce.js';
import type { Strategy } from '../../src/plan/types.js';
import { randomProgram } from '../util/index.js';
import { paperExamples } from './fixtures.js';

const solver = createSolverLoader();
const costs = ['reads+writes', 'clusters', 'fused-edges', 'intermediate-arrays', 'reads', 'everything', '2*reads + 0.5*fused-edges'];
const strategies: readonly Strategy[] = ['ilp', 'greedy-down', 'greedy-up', 'none'];

describe('every strategy on the paper examples', () => {
  const cases = paperExamples.flatMap((ex) => strategies.flatMap((strategy) => costs.map((cost) => ({ ...ex, strategy, cost }))));
  it.each(cases)('$name, $strategy, $cost: valid, objective = evaluated cost', async ({ build, strategy, cost }) => {
    const program = build();
    const p = await plan(program, { strategy, cost, solver });
    expect(validatePlan(program, p).map(formatViolation)).toEqual([]);
    expect(p.stats.objective).toBeCloseTo(evaluatePlan(program, p, parseCost(cost)).total, 6);
  });
});

describe('random programs of up to 7 nodes: ILP optimum = brute force, all plans valid', () => {
  const seeds = Array.from({ length: 12 }, (_, i) => i + 1);
  it.each(seeds)('seed %i', async (seed) => {
    const { program } = randomProgram(seed, { combinators: { min: 2, max: 7 } });
    for (const cost of costs) {
      const spec = parseCost(cost);
      const ilp = await plan(program, { cost, solver });
      expect(validatePlan(program, ilp).map(formatViolation), cost).toEqual([]);
      expect(ilp.stats.objective, cost).toBeCloseTo(evaluatePlan(program, ilp, spec).total, 6);
      expect(ilp.stats.objective, cost).toBeCloseTo(bruteForce(program, spec).objective, 6);
      for (const strategy of ['greedy-down', 'greedy-up', 'none'] as const) {
        const h = await plan(program, { cost, strategy });
        expect(validatePlan(program, h).map(formatViolation), `${strategy} ${cost}`).toEqual([]);
        expect(h.stats.objective).toBeGreaterThanOrEqual(ilp.stats.objective - 1e-9);
      }
    }
  });
});
