// The π bounds and pruning of src/plan/ilp/structure.ts hold for every valid plan, not only the
// greedy ones: random sets of fused edges, closed by greedy.ts's exact feasibility check, give
// valid plans whose starting solution (π = longest-path level of the cluster DAG) must fit every
// bound and row of the model. A bound that cut off a valid plan fails here.
import { describe, expect, it } from 'vitest';
import { programGraphs, type BlockGraphs } from '../../src/plan/index.js';
import { buildModel, type IlpModel } from '../../src/plan/ilp/model.js';
import { startFromAssignment } from '../../src/plan/ilp/start.js';
import { feasibleAssignment } from '../../src/plan/greedy.js';
import { parseCost } from '../../src/plan/cost.js';
import { randomProgram } from '../util/index.js';
import { chance, seededRng } from '../util/rng.js';

function allBlocks(bg: BlockGraphs): BlockGraphs[] {
  return [bg, ...Object.values(bg.children).flatMap((bs) => bs.flatMap(allBlocks))];
}

function violations(model: IlpModel, values: Float64Array): string[] {
  const out: string[] = [];
  model.columns.forEach((c, i) => {
    if (values[i]! < c.lower - 1e-9 || values[i]! > c.upper + 1e-9) out.push(`bound ${c.name} = ${values[i]}`);
  });
  for (const row of model.rows) {
    const activity = row.cols.reduce((s, c, i) => s + row.coefs[i]! * values[c]!, 0);
    if (activity < row.lower - 1e-9 || activity > row.upper + 1e-9) out.push(`row ${row.name} = ${activity}`);
  }
  return out;
}

describe('every valid plan fits the model (random fused sets)', () => {
  it.each(Array.from({ length: 25 }, (_, i) => 700 + i))('seed %i', (seed) => {
    const { program } = randomProgram(seed, { combinators: { min: 4, max: 30 } });
    const rng = seededRng(seed);
    const spec = parseCost('reads+writes');
    for (const bg of allBlocks(programGraphs(program))) {
      const model = buildModel(bg.graph, spec, bg.weights);
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
