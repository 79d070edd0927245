// The brute-force planner finds the paper's optimal plans, every plan it returns is valid and
// costs what the evaluator says, it is never beaten by a stated plan, and it stays fast.

import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { SourceFile, UserError } from '../../src/diagnostics/index.js';
import { lowerModule } from '../../src/lower/index.js';
import { parseModule } from '../../src/syntax/index.js';
import type { Program } from '../../src/ir/types.js';
import { programGraph, readOrderOf, type BlockGraph } from '../../src/check/reads.js';
import { generatorSizes, randomProgram } from '../util/index.js';
import { type Rng, seededRng } from '../util/rng.js';
import { bruteForce } from '../../src/check/bruteforce.js';
import { parseCost } from '../../src/plan/cost.js';
import { combine, evaluateBlock, evaluateBlockPlan, evaluatePlan, evaluationContext } from '../../src/check/evaluate.js';
import { plan } from '../../src/plan/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import type { BlockPlan, Order } from '../../src/plan/types.js';
import { formatViolation, validateBlock, validateBlockPlan, validatePlan, type PlanViolation } from '../../src/check/validate.js';
import {
  diagonal,
  dimOnlyInBranch,
  gatherByIndexing,
  greedyBottomUpBad,
  greedyTopDownBad,
  mapChain,
  mapFan,
  outerScalarInBranch,
  reverse,
  scalarBetween,
  scatterExample,
  scatterWithReader,
  simple3,
  singleLoop,
  statedPlans,
  tupleEntry,
  twoMapsOfOneSource,
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
    expect(manifestArrays(r.plan)).not.toContain('as_0');
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

describe('limits and speed', () => {
  it('refuses blocks of more than 7 nodes with a clear error', () => {
    expect(() => bruteForce(mapChain(8), rw)).toThrow(UserError);
    expect(() => bruteForce(mapChain(8), rw)).toThrow(/at most 7 nodes; root has 8/);
  });

  it.each([
    ['a chain of 7 maps', () => mapChain(7), 2],
    ['7 independent maps over one array', () => mapFan(7), 8],
  ])('%s is solved in well under a second', (_, make, objective) => {
    // Warm up the JIT, then count CPU time: the property is the enumeration's size, not compile
    // time or how busy the machine is.
    bruteForce(make(), rw);
    const t0 = process.cpuUsage();
    const r = bruteForce(make(), rw);
    const used = process.cpuUsage(t0);
    expect((used.user + used.system) / 1000).toBeLessThan(1000);
    expect(r.objective).toBe(objective);
  });
});

describe('brute force against the planner strategies (DESIGN.md invariants 1 and 2)', () => {
  const solver = createSolverLoader();
  const costs = ['reads+writes', 'intermediate-arrays', 'everything', 'clusters + 2*reads + 0.5*fused-edges'];
  const programs = [
    ...statedPlans.map((s) => [s.name, s.program] as const),
    ['twoMaps', twoMapsOfOneSource] as const,
    ['diagonal', diagonal] as const,
    ['scatterWithReader', scatterWithReader] as const,
    ['fan5', () => mapFan(5)] as const,
    ['dimOnlyInBranch', dimOnlyInBranch] as const,
    ['outerScalarInBranch', outerScalarInBranch] as const,
    ['scalarBetween', scalarBetween] as const,
  ];
  const cases = programs.flatMap(([name, make]) => costs.map((c) => [name, c, make] as const));

  it.each(cases)('%s under %s: brute force and ILP plans valid, ILP objective = evaluated cost = brute-force minimum', async (name, costText, make) => {
    const program = make();
    const cost = parseCost(costText);
    const brute = bruteForce(program, cost);
    expect(validateBlockPlan(program, brute.plan)).toEqual([]);
    expect(evaluateBlockPlan(program, brute.plan, cost).total).toBeCloseTo(brute.objective, 9);
    const stated = statedPlans.find((s) => s.name === name);
    if (stated !== undefined) expect(brute.objective).toBeLessThanOrEqual(evaluateBlockPlan(program, stated.plan, cost).total + 1e-9);

    const p = await plan(program, { cost, solver });
    expect(validatePlan(program, p).map(formatViolation)).toEqual([]);
    const evaluated = evaluatePlan(program, p, cost).total;
    expect(p.stats.objective).toBeCloseTo(evaluated, 6);
    expect(evaluated).toBeCloseTo(brute.objective, 6);
  });

  it('an entry array of tuples under bytes: the ILP objective is the evaluated cost', async () => {
    const cost = parseCost('bytes');
    const shapes = { ps: [4] };
    const p = await plan(tupleEntry(), { cost, solver, shapes });
    expect(validatePlan(tupleEntry(), p)).toEqual([]);
    const evaluated = evaluatePlan(tupleEntry(), p, cost, { shapes }).total;
    expect(evaluated).toBe(80);
    expect(p.stats.objective).toBe(evaluated);
    expect(bruteForce(tupleEntry(), cost, { shapes }).objective).toBe(evaluated);
  });

  it.each(programs.flatMap(([name, make]) => (['greedy-up', 'greedy-down', 'none'] as const).map((s) => [name, s, make] as const)))(
    '%s: the %s plan is valid and costs what it says',
    async (_, strategy, make) => {
      const program = make();
      const p = await plan(program, { strategy });
      expect(validatePlan(program, p).map(formatViolation)).toEqual([]);
      expect(p.stats.objective).toBeCloseTo(evaluatePlan(program, p, rw).total, 6);
    },
  );
});

describe('the shared examples, parsed and lowered: optimal plans as their headers state', () => {
  const solver = createSolverLoader();
  const lowered = (name: string) => {
    const file = new SourceFile(`${name}.fuse`, readFileSync(new URL(`../../examples/${name}.fuse`, import.meta.url), 'utf8'));
    return lowerModule(parseModule(file), file);
  };
  it.each([
    ['backpermute', 1, ['zs']],
    ['gather', 2, ['js', 'ys']],
    ['greedyBottomUpBad', 2, ['result', 'ys', 'zs']],
    ['greedyTopDownBad', 2, ['bs', 'result']],
    ['reverse', 1, ['result']],
    ['scatterExample', 2, ['bs', 'result']],
    ['simple1', 1, ['bs']],
    ['simple2', 1, ['bs']],
    ['simple3', 2, ['as', 'bs']],
    ['simple4', 1, ['bs']],
    ['simple5', 1, ['cs']],
    ['singleLoop', 1, ['result']],
  ] as const)('%s: %i cluster(s), manifest %j; the ILP agrees', async (name, clusters, manifest) => {
    const program = lowered(name);
    const r = bruteForce(program, rw);
    expect(r.plan.clusters).toHaveLength(clusters);
    expect(manifestArrays(r.plan).sort()).toEqual([...manifest]);
    const p = await plan(program, { cost: rw, solver });
    expect(validatePlan(program, p).map(formatViolation)).toEqual([]);
    expect(evaluatePlan(program, p, rw).total).toBe(r.objective);
  });
});

describe('random programs of up to 7 combinators (DESIGN.md invariant 2)', () => {
  const solver = createSolverLoader();
  const seeds = Array.from({ length: 30 }, (_, i) => i + 1);
  it.each(seeds.flatMap((seed) => (seed <= 10 ? ['reads+writes', 'everything'] : ['reads+writes']).map((c) => [seed, c] as const)))(
    'seed %i under %s: the ILP plan is valid, costs what it says, and is as cheap as the brute force',
    async (seed, costText) => {
      const { program } = randomProgram(seed, generatorSizes.small);
      const cost = parseCost(costText);
      const p = await plan(program, { cost, solver });
      expect(validatePlan(program, p).map(formatViolation)).toEqual([]);
      const evaluated = evaluatePlan(program, p, cost).total;
      expect(p.stats.objective).toBeCloseTo(evaluated, 6);
      expect(evaluated).toBeCloseTo(bruteForce(program, cost).objective, 6);
    },
  );
});

describe('no valid plan beats the brute force', () => {
  // Random plans (random partitions, orders, voluntary manifest arrays) of programs without
  // control flow: whichever the validator accepts must cost at least the brute-force minimum.
  // This checks the enumeration's shortcuts (orders chosen cluster by cluster, no voluntary
  // manifest) against plans built without them.
  const randomPlan = (g: BlockGraph, rng: Rng): BlockPlan => {
    const count = rng.int(1, g.nodes.length);
    const clusterOf = new Map(g.nodes.map((n) => [n.id, rng.int(0, count - 1)] as const));
    const gathers = g.nodes.filter((n) => n.kind === 'gather').map((n): Order => ({ gather: n.id }));
    const orderChoices: Order[] = [0, 1, ...gathers];
    // Consumers first; a node usually (not always) takes the order a fused consumer reads it in.
    const orders: Record<number, Order> = {};
    for (const n of [...g.nodes].reverse()) {
      const fused = g.edges.find((e) => e.producer === n.id && clusterOf.get(e.consumer) === clusterOf.get(n.id));
      const inherited = fused === undefined ? null : readOrderOf(fused.reads[0]!, orders[fused.consumer]);
      orders[n.id] = inherited !== null && rng.int(0, 3) > 0 ? inherited : orderChoices[rng.int(0, orderChoices.length - 1)]!;
    }
    const manifest = (id: number): boolean =>
      g.results.has(id) ||
      !g.edges.some((e) => e.producer === id) ||
      g.edges.some((e) => e.producer === id && clusterOf.get(e.consumer) !== clusterOf.get(id)) ||
      rng.int(0, 3) === 0;
    const clusters = [...new Set(clusterOf.values())]
      .map((c) => g.nodes.filter((n) => clusterOf.get(n.id) === c))
      .filter((members) => members.length > 0)
      .sort((a, b) => a[0]!.index - b[0]!.index)
      .map((members) => ({
        nodes: members.map((n) => n.id),
        manifest: members.flatMap((n) => (n.kind !== 'if' && n.kind !== 'while' && manifest(n.id) ? n.outs.map((o) => o.name) : [])),
      }));
    return { clusters, orders, children: {} };
  };

  const programs: readonly (readonly [string, () => Program])[] = [
    ['singleLoop', singleLoop],
    ['greedyBottomUpBad', greedyBottomUpBad],
    ['greedyTopDownBad', greedyTopDownBad],
    ['scatterWithReader', scatterWithReader],
    ['simple5', statedPlans.find((s) => s.name === 'simple5')!.program],
    ...Array.from({ length: 8 }, (_, i) => [`random seed ${i + 1}`, () => randomProgram(i + 1, { combinators: { min: 3, max: 6 }, controlFlow: false }).program] as const),
  ];
  it.each(programs)('%s', (_, make) => {
    const program = make();
    const g = programGraph(program);
    const ctx = evaluationContext(program);
    const rng = seededRng(7);
    let valid = 0;
    for (const costText of ['reads+writes', 'everything']) {
      const cost = parseCost(costText);
      const best = bruteForce(program, cost).objective;
      for (let i = 0; i < 200; i++) {
        const candidate = randomPlan(g, rng);
        const violations: PlanViolation[] = [];
        validateBlock(g, candidate, violations);
        if (violations.length > 0) continue;
        valid++;
        expect(combine(evaluateBlock(g, candidate, ctx), cost).total).toBeGreaterThanOrEqual(best - 1e-9);
      }
    }
    expect(valid).toBeGreaterThan(0);
  });
});

describe('brute force and orderings without a read', () => {
  // Two programs test:long found (a `while` whose scalar output a later node uses): partitions
  // that the ordering makes cyclic used to reach the evaluator, which threw "the cluster order
  // has a cycle" (a CompilerBug), because the brute force's cluster sequence left orderings out.
  it.each([112880339, 10])('random program %i (7 nodes): the brute force equals the ILP for every cost', async (seed) => {
    const { program } = randomProgram(seed, { ...generatorSizes.small, combinators: 7 });
    for (const text of ['reads+writes', 'clusters', 'everything', 'fused-edges', 'intermediate-arrays', 'reads', 'writes']) {
      const cost = parseCost(text);
      const ilp = await plan(program, { cost });
      expect(bruteForce(program, cost).objective, text).toBe(ilp.stats.objective);
    }
  });
});
