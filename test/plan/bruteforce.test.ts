// The brute-force planner finds the paper's optimal plans, every plan it returns is valid and
// costs what the evaluator says, it is never beaten by a stated plan, and it stays fast.

import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/diagnostics/index.js';
import { bruteForce } from '../../src/plan/bruteforce.js';
import { parseCost } from '../../src/plan/cost.js';
import { evaluateBlockPlan } from '../../src/plan/evaluate.js';
import type { BlockPlan } from '../../src/plan/types.js';
import { validateBlockPlan } from '../../src/plan/validate.js';
import {
  gatherByIndexing,
  greedyBottomUpBad,
  greedyTopDownBad,
  mapChain,
  mapFan,
  reverse,
  scatterExample,
  simple3,
  singleLoop,
  statedPlans,
} from './fixtures-validate.js';

const rw = parseCost('reads+writes');
const manifestArrays = (p: BlockPlan): string[] => p.clusters.flatMap((c) => c.manifest);
const clusterOfNode = (p: BlockPlan, id: number): number => p.clusters.findIndex((c) => c.nodes.includes(id));

describe("brute force finds the paper's optimal plans (reads+writes)", () => {
  it('singleLoop: one cluster, only result manifest, as read twice', () => {
    const r = bruteForce(singleLoop(), rw);
    expect(r.plan.clusters).toHaveLength(1);
    expect(manifestArrays(r.plan)).toEqual(['result']);
    expect(r.objective).toBe(3);
  });

  it.each(['reads+writes', 'intermediate-arrays', 'bytes'])('greedyBottomUpBad (%s): large never manifest', (cost) => {
    const r = bruteForce(greedyBottomUpBad(), parseCost(cost), { shapes: { xs: [100], m: 1000 } });
    expect(manifestArrays(r.plan)).not.toContain('large');
    expect(clusterOfNode(r.plan, 1)).toBe(clusterOfNode(r.plan, 2));
  });

  it.each(['reads+writes', 'intermediate-arrays'])('scatterExample (%s): two clusters, as fused into the scatter', (cost) => {
    const r = bruteForce(scatterExample(), parseCost(cost));
    expect(r.plan.clusters).toHaveLength(2);
    expect(clusterOfNode(r.plan, 0)).toBe(clusterOfNode(r.plan, 2));
    expect(manifestArrays(r.plan)).not.toContain('as_i');
    expect(r.plan.clusters[0]!.nodes).toEqual([1]);
  });

  it('greedyTopDownBad: [bs] then [cs, ds, es, result], cs fused vertically', () => {
    const r = bruteForce(greedyTopDownBad(), rw);
    expect(r.plan.clusters.map((c) => c.nodes)).toEqual([[0], [1, 2, 3, 4]]);
    expect(manifestArrays(r.plan)).toEqual(['bs', 'result']);
  });

  it('simple3 needs two clusters; gather.fuse two; reverse one', () => {
    expect(bruteForce(simple3(), rw).plan.clusters).toHaveLength(2);
    expect(bruteForce(gatherByIndexing(), rw).plan.clusters.map((c) => c.nodes)).toEqual([[0], [1, 2]]);
    expect(bruteForce(reverse(), rw).plan.clusters).toHaveLength(1);
  });
});

describe('brute force agrees with the validator and the evaluator', () => {
  const costs = ['reads+writes', 'reads', 'intermediate-arrays', 'fused-edges', 'clusters', 'everything', '2*reads + 0.5*writes'];
  const cases = statedPlans.flatMap((s) => costs.map((c) => [s.name, c, s] as const));
  it.each(cases)('%s under %s', (_, costText, s) => {
    const cost = parseCost(costText);
    const r = bruteForce(s.program(), cost);
    expect(validateBlockPlan(s.program(), r.plan)).toEqual([]);
    expect(evaluateBlockPlan(s.program(), r.plan, cost).total).toBeCloseTo(r.objective, 9);
    expect(r.objective).toBeLessThanOrEqual(evaluateBlockPlan(s.program(), s.plan, cost).total + 1e-9);
    expect(r.clusterings).toBeGreaterThan(0);
  });
});

describe('limits and speed', () => {
  it('refuses blocks of more than 7 nodes with a clear error', () => {
    expect(() => bruteForce(mapChain(8), rw)).toThrow(UserError);
    expect(() => bruteForce(mapChain(8), rw)).toThrow(/at most 7 nodes; root has 8/);
  });

  it.each([
    ['a chain of 7 maps', () => mapChain(7), 2],
    ['7 independent maps over one array', () => mapFan(7), 8],
  ])('%s is solved in well under a second', (_, make, objective) => {
    const t0 = performance.now();
    const r = bruteForce(make(), rw);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(r.objective).toBe(objective);
  });
});
