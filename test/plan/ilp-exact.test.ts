// The strengthened ILP (src/plan/ilp/model.ts + structure.ts) stays exact: on hundreds of small
// random programs and every cost function its optimum equals the brute force's minimum, its plan
// validates and costs what the independent evaluator says; with the valid cuts switched off it
// finds the same optimum; and the LP text export, solved by HiGHS from text, states the same
// optimum as the in-memory model.
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/index.js';
import { programGraphs } from '../../src/graph/program.js';
import { buildModel } from '../../src/plan/ilp/model.js';
import { toLpText } from '../../src/plan/ilp/lpfile.js';
import { createSolverLoader, solveModel } from '../../src/plan/ilp/solver.js';
import { parseCost } from '../../src/plan/cost.js';
import { evaluatePlan } from '../../src/check/evaluate.js';
import { validatePlan, formatViolation } from '../../src/check/validate.js';
import { bruteForce } from '../../src/check/bruteforce.js';
import { randomProgram } from '../util/index.js';
import { paperExamples } from './fixtures.js';
import { allBlocks } from './modelCheck.js';

const solver = createSolverLoader();
const costs = ['reads+writes', 'clusters', 'fused-edges', 'intermediate-arrays', 'reads', 'everything', '2*reads + 0.5*fused-edges'];

describe('ILP optimum = brute force on 200 random programs of 1–6 combinators, every cost', () => {
  // Batches of 20 seeds keep each case short and let failures name their seeds.
  const batches = Array.from({ length: 10 }, (_, b) => Array.from({ length: 20 }, (_, i) => 5000 + b * 20 + i));
  it.each(batches.map((seeds) => ({ seeds, first: seeds[0]! })))('seeds $first…', async ({ seeds }) => {
    const problems: string[] = [];
    for (const seed of seeds) {
      const { program } = randomProgram(seed, { combinators: { min: 1, max: 6 } });
      for (const cost of costs) {
        const spec = parseCost(cost);
        const p = await plan(program, { cost, solver });
        const violations = validatePlan(program, p).map(formatViolation);
        const evaluated = evaluatePlan(program, p, spec).total;
        const best = bruteForce(program, spec).objective;
        if (p.stats.status !== 'optimal' || violations.length > 0 || Math.abs(p.stats.objective - evaluated) > 1e-6 || Math.abs(p.stats.objective - best) > 1e-6) {
          problems.push(`seed ${seed} ${cost}: ${p.stats.status}, ilp ${p.stats.objective}, evaluated ${evaluated}, brute force ${best} ${violations.join('; ')}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('variants and exports describe the same optimum', () => {
  it.each(Array.from({ length: 10 }, (_, i) => 7000 + i))('seed %i: no cuts, LP text', async (seed) => {
    const handle = await solver.load();
    const { program } = randomProgram(seed, { combinators: { min: 4, max: 12 } });
    for (const cost of ['reads+writes', 'everything']) {
      const spec = parseCost(cost);
      const withCuts = await plan(program, { cost, solver });
      const withoutCuts = await plan(program, { cost, solver, ilpTuning: { cuts: false, feasibilityJump: true } });
      expect(withoutCuts.stats.objective, cost).toBeCloseTo(withCuts.stats.objective, 6);
      let total = 0;
      for (const bg of allBlocks(programGraphs(program))) {
        const model = buildModel(bg.graph, spec);
        const fromText = handle.solveText('lp', toLpText(model), { mip_rel_gap: 0 });
        expect(fromText.optimal).toBe(true);
        expect(fromText.objective).toBeCloseTo(solveModel(handle, model).objective!, 6);
        total += fromText.objective;
      }
      expect(total, cost).toBeCloseTo(withCuts.stats.objective, 6);
    }
  });
});

describe('paper examples', () => {
  it.each(paperExamples)('$name: optimal at the root or nearly (the model is tight)', async ({ build }) => {
    const p = await plan(build(), { solver });
    expect(p.stats.status).toBe('optimal');
    expect(p.stats.nodes ?? 0).toBeLessThanOrEqual(1);
  });
});
