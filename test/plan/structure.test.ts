// The π bounds and pruning of src/plan/ilp/structure.ts hold for every valid plan, not only the
// greedy ones: random sets of fused edges, closed by greedy.ts's exact feasibility check, give
// valid plans whose starting solution (π = longest-path level of the cluster DAG) must fit every
// bound and row of the model. A bound that cut off a valid plan fails here.
import { describe, expect, it } from 'vitest';
import { programGraphs } from '../../src/graph/program.js';
import { buildModel } from '../../src/plan/ilp/model.js';
import { startFromAssignment } from '../../src/plan/ilp/start.js';
import { feasibleAssignment } from '../../src/plan/greedy.js';
import { parseCost } from '../../src/plan/cost.js';
import { randomProgram } from '../util/index.js';
import { chance, seededRng } from '../util/rng.js';
import { allBlocks, violations } from './modelCheck.js';

describe('every valid plan fits the model (random fused sets)', () => {
  it.each(Array.from({ length: 25 }, (_, i) => 700 + i))('seed %i', (seed) => {
    const { program } = randomProgram(seed, { combinators: { min: 4, max: 30 } });
    const rng = seededRng(seed);
    const spec = parseCost('reads+writes');
    for (const bg of allBlocks(programGraphs(program))) {
      const model = buildModel(bg.graph, spec);
      const fusible = bg.graph.edges.flatMap((e, k) => (e.fusible ? [k] : []));
      for (let trial = 0; trial < 20; trial++) {
        // Each fusible edge with probability 1/2, dropped one by one until feasible.
        const chosen = fusible.filter(() => chance(rng, 0.5));
        let a = feasibleAssignment(bg.graph, new Set(chosen));
        while (a === null) {
          chosen.splice(rng.int(0, chosen.length - 1), 1);
          a = feasibleAssignment(bg.graph, new Set(chosen));
        }
        const values = startFromAssignment(bg.graph, model, a);
        expect(values).not.toBeNull();
        expect(violations(model, values!)).toEqual([]);
      }
    }
  });
});
