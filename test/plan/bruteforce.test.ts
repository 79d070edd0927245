import { describe, expect, it } from 'vitest';
import { bruteForce } from '../../src/plan/bruteforce.js';
import { parseCost } from '../../src/plan/cost.js';
import { evaluateBlockPlan } from '../../src/plan/evaluate.js';
import { statedPlans } from './fixtures-validate.js';

describe('sanity', () => {
  it.each(statedPlans.map((s) => [s.name, s] as const))('%s', (_, s) => {
    const cost = parseCost('reads+writes');
    const t0 = performance.now();
    const r = bruteForce(s.program(), cost);
    const stated = evaluateBlockPlan(s.program(), s.plan, cost);
    console.log(s.name, (performance.now() - t0).toFixed(1), 'ms', r.objective, stated.total, r.clusterings, JSON.stringify(r.plan));
    expect(r.objective).toBe(stated.total);
  });
});
