// Every plan is expressible in the ILP: the starting solution built from a greedy or unfused
// plan (src/plan/ilp/start.ts) satisfies every row and bound of the model; its objective is the
// exact cost of the plan the planner reads back from it (clusters of one π level that read an
// array in the same order merge, so that plan never costs more than the one it started from),
// for random programs and every cost function.
import { describe, expect, it } from 'vitest';
import { programGraphs } from '../../src/graph/program.js';
import { buildModel } from '../../src/plan/ilp/model.js';
import { startFromAssignment } from '../../src/plan/ilp/start.js';
import { blockPlanFromAssignment, splitByPi } from '../../src/plan/clusters.js';
import { greedyAssignment, noFusionAssignment } from '../../src/plan/greedy.js';
import { blockPlanCost } from '../../src/plan/objective.js';
import { parseCost } from '../../src/plan/cost.js';
import { randomProgram } from '../util/index.js';
import { allBlocks, violations } from './modelCheck.js';

const costs = ['reads+writes', 'clusters', 'fused-edges', 'everything', '2*reads + 0.5*fused-edges'];

describe('a starting solution encodes its plan exactly', () => {
  it.each(Array.from({ length: 30 }, (_, i) => 300 + i))('seed %i', (seed) => {
    const { program } = randomProgram(seed, { combinators: { min: 2, max: 30 } });
    for (const bg of allBlocks(programGraphs(program))) {
      for (const cost of costs) {
        const spec = parseCost(cost);
        const model = buildModel(bg.graph, spec);
        for (const a of [greedyAssignment(bg.graph, 'down'), greedyAssignment(bg.graph, 'up'), noFusionAssignment(bg.graph)]) {
          const values = startFromAssignment(bg.graph, model, a);
          expect(values, cost).not.toBeNull();
          expect(violations(model, values!), cost).toEqual([]);
          const objective = model.offset + model.columns.reduce((s, c, i) => s + c.cost * values![i]!, 0);
          const pi = model.layout.pi.map((c) => values![c]!);
          const order = model.layout.order.map((c) => (c < 0 ? -1 : values![c]!));
          const fused = model.layout.fused.map((c) => values![c]! < 0.5);
          const readBack = { cluster: splitByPi(bg.graph, pi, fused, order), level: pi, order, manifest: a.manifest };
          expect(objective, cost).toBeCloseTo(blockPlanCost(bg.graph, blockPlanFromAssignment(bg.graph, readBack), spec), 6);
          expect(objective, cost).toBeLessThanOrEqual(blockPlanCost(bg.graph, blockPlanFromAssignment(bg.graph, a), spec) + 1e-9);
        }
      }
    }
  });
});
