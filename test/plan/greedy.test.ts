// The greedy planners' feasibility check is exact: on random small programs and random sets of
// fused edges it agrees with HiGHS solving the ILP with those edges' x fixed to 0.
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/index.js';
import { programGraphs } from '../../src/graph/program.js';
import { feasibleAssignment } from '../../src/plan/greedy.js';
import { buildModel } from '../../src/plan/ilp/model.js';
import { createSolverLoader, solveModel } from '../../src/plan/ilp/solver.js';
import { parseCost } from '../../src/plan/cost.js';
import { seededRng, randomProgram } from '../util/index.js';
import { greedyTopDownBad, greedyBottomUpBad } from './fixtures.js';
import { allBlocks } from './modelCheck.js';

const solver = createSolverLoader();

describe('greedy feasibility = HiGHS feasibility', () => {
  it.each(Array.from({ length: 25 }, (_, i) => i + 100))('seed %i', async (seed) => {
    const highs = await solver.load();
    const rng = seededRng(seed);
    const { program } = randomProgram(seed, { combinators: { min: 3, max: 9 } });
    for (const bg of allBlocks(programGraphs(program))) {
      const fusible = bg.graph.edges.map((e, k) => (e.fusible ? k : -1)).filter((k) => k >= 0);
      const model = buildModel(bg.graph, parseCost('fused-edges'));
      for (let trial = 0; trial < 6; trial++) {
        const chosen = new Set(fusible.filter(() => rng.int(0, 1) === 1));
        const fixed = {
          ...model,
          columns: model.columns.map((c, i) => (model.layout.fused.some((col, k) => col === i && chosen.has(k)) ? { ...c, lower: 0, upper: 0 } : c)),
        };
        const ilpFeasible = solveModel(highs, fixed).outcome !== 'infeasible';
        expect(feasibleAssignment(bg.graph, chosen) !== null, `edges ${[...chosen]}`).toBe(ilpFeasible);
      }
    }
  });
});

describe('the greedy traps of §5', () => {
  it('greedy-down fuses cs diagonally into bs and so makes cs manifest', async () => {
    const p = await plan(greedyTopDownBad(), { strategy: 'greedy-down' });
    expect(p.root.clusters.flatMap((c) => c.manifest)).toContain('cs');
    const best = await plan(greedyTopDownBad(), { solver });
    expect(best.root.clusters.flatMap((c) => c.manifest)).not.toContain('cs');
    expect(best.stats.objective).toBeLessThan(p.stats.objective);
  });
  it('greedy-up fuses ys into result first and so makes large manifest', async () => {
    const p = await plan(greedyBottomUpBad(), { strategy: 'greedy-up' });
    expect(p.root.clusters.flatMap((c) => c.manifest)).toContain('large');
    const best = await plan(greedyBottomUpBad(), { solver });
    expect(best.root.clusters.flatMap((c) => c.manifest)).not.toContain('large');
  });
  it('none: one cluster per node, everything manifest', async () => {
    const p = await plan(greedyTopDownBad(), { strategy: 'none' });
    expect(p.root.clusters.map((c) => c.nodes.length)).toEqual([1, 1, 1, 1, 1]);
    expect(p.stats.status).toBe('heuristic');
  });
});
