// The checker on JSON graphs (src/check/jsonGraph.ts): every plan planGraph makes of a program's
// graph JSON passes validateGraphPlan, for every strategy, on the shared examples and on random
// programs; the evaluator's cost of such a plan is the planner's objective and, on small
// graphs, the ILP's optimum is the brute force's minimum; hand-broken plans of JSON graphs are
// caught, each by the rule it breaks.

import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertValidGraphPlan,
  bruteForceGraph,
  evaluateGraphPlan,
  formatViolation,
  validateGraphPlan,
  validatePlan,
  type PlanViolation,
  type ViolationRule,
} from '../../src/check/index.js';
import { CompilerBug, SourceFile } from '../../src/diagnostics/index.js';
import { planGraph } from '../../src/driver/index.js';
import type { BlockJson, GraphJson } from '../../src/graph/jsonFormat.js';
import { simple1 } from '../plan/graphJsonFixtures.js';
import { graphToJson } from '../../src/graph/toJson.js';
import type { Program } from '../../src/ir/types.js';
import { lowerModule } from '../../src/lower/index.js';
import { parseCost } from '../../src/plan/cost.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { programGraphs } from '../../src/graph/program.js';
import { plan } from '../../src/plan/index.js';
import type { BlockPlan, Plan, Strategy } from '../../src/plan/types.js';
import { parseModule } from '../../src/syntax/index.js';
import { arbitraryCase } from '../util/index.js';

const solver = createSolverLoader();
const strategies: readonly Strategy[] = ['ilp', 'greedy-down', 'greedy-up', 'none'];
const examplesDir = new URL('../../examples/', import.meta.url);
const exampleNames = readdirSync(examplesDir).filter((f) => f.endsWith('.fuse')).map((f) => f.slice(0, -5)).sort();

function lowerExample(name: string): Program {
  const file = new SourceFile(`${name}.fuse`, readFileSync(new URL(`${name}.fuse`, examplesDir), 'utf8'));
  return lowerModule(parseModule(file), file);
}

/** The graph JSON a user would hand in: the program's graphs, written and parsed back as text. */
function jsonOf(program: Program, name?: string, weights = {}, shapes = {}): GraphJson {
  return JSON.parse(JSON.stringify(graphToJson(programGraphs(program, weights, shapes), name))) as GraphJson;
}

function describeViolations(vs: readonly PlanViolation[]): string {
  return vs.map(formatViolation).join('\n');
}

/** A plan of a JSON graph with only its root replaced (the stats do not matter to the checker). */
function withRoot(p: Plan, root: BlockPlan): Plan {
  return { ...p, root };
}

function rules(vs: readonly PlanViolation[]): ViolationRule[] {
  return [...new Set(vs.map((v) => v.rule))].sort();
}

describe('every plan of a JSON graph passes the checker', () => {
  it.each(exampleNames)('%s: every strategy under three costs; evaluated cost = objective; the IR plan passes too', async (name) => {
    const program = lowerExample(name);
    const json = jsonOf(program, name);
    for (const cost of ['reads+writes', 'everything', 'reads+writes+recompute']) {
      for (const strategy of strategies) {
        const p = await planGraph(json, { solver, cost, strategy });
        const violations = validateGraphPlan(json, p);
        expect(violations, `${strategy}, ${cost}:\n${describeViolations(violations)}`).toEqual([]);
        expect(evaluateGraphPlan(json, p, parseCost(cost)).total, `${strategy}, ${cost}`).toBeCloseTo(p.stats.objective, 9);
        // The program's own plan names the same node ids: the JSON checker accepts it as well.
        const direct = await plan(program, { solver, cost, strategy });
        expect(validateGraphPlan(json, direct), `${strategy}, ${cost} (IR plan)`).toEqual([]);
        expect(validatePlan(program, p), `${strategy}, ${cost} (JSON plan, IR checker)`).toEqual([]);
      }
    }
  });

  it('weights and byte sizes in the JSON (and in the options) are costed as the planner costs them', async () => {
    const program = lowerExample('greedyBottomUpBad');
    const weights = { arrays: { large: 50, xs: 3 }, edges: { 'ys->result': 4 } };
    const json = jsonOf(program, 'greedyBottomUpBad', weights, { xs: [10], m: 20 });
    for (const cost of ['bytes', 'everything', 'reads+writes']) {
      for (const strategy of strategies) {
        const p = await planGraph(json, { solver, cost, strategy });
        expect(validateGraphPlan(json, p)).toEqual([]);
        expect(evaluateGraphPlan(json, p, parseCost(cost)).total, `${strategy}, ${cost}`).toBeCloseTo(p.stats.objective, 9);
        const overrides = { weights: { arrays: { xs: 9 } }, shapes: { xs: [3] } };
        const q = await planGraph(json, { solver, cost, strategy, ...overrides });
        expect(evaluateGraphPlan(json, q, parseCost(cost), overrides).total, `${strategy}, ${cost}, overridden`).toBeCloseTo(q.stats.objective, 9);
      }
    }
  });

  it('random programs with control flow, scatters and scans (40 cases, every strategy)', async () => {
    const kinds = new Set<string>();
    const collectKinds = (b: BlockJson): void => {
      for (const n of b.nodes) {
        kinds.add(n.kind);
        n.blocks?.forEach(collectKinds);
      }
    };
    await fc.assert(
      fc.asyncProperty(arbitraryCase({ combinators: { min: 1, max: 12 } }), async ({ program }) => {
        const json = jsonOf(program);
        collectKinds(json);
        for (const strategy of strategies) {
          const p = await planGraph(json, { solver, cost: 'everything', strategy });
          const violations = validateGraphPlan(json, p);
          expect(violations, `${strategy}:\n${describeViolations(violations)}`).toEqual([]);
          expect(evaluateGraphPlan(json, p, parseCost('everything')).total, strategy).toBeCloseTo(p.stats.objective, 9);
        }
      }),
      { numRuns: 40, seed: 10 },
    );
    // The cases reach every construct the checker's JSON graph handles.
    for (const kind of ['if', 'while', 'scatter', 'gather', 'scanl', 'fold']) expect(kinds, kind).toContain(kind);
  });

  it('a scatter into one component of a tuple does not order readers of the others, in the reader and the checker alike, so nested ids agree', async () => {
    // R reads p1, S scatters into p0: per array (PLANNING.md rule 3) R need not precede S, so Ia
    // (reading S) comes before Ib in both the reader's and the checker's order, and the
    // unnumbered nodes of their blocks get the same ids on both sides (when the reader ordered
    // per tuple and the checker per array, they got each other's: a CompilerBug on a valid plan).
    const inner = (k: number): BlockJson => ({
      inputs: [{ name: 'z' }],
      nodes: Array.from({ length: k }, (_, i) => ({ name: `m${i}`, kind: 'map' as const })),
      edges: Array.from({ length: k }, (_, i) => ({ from: i === 0 ? 'z' : `m${i - 1}`, to: `m${i}`, role: 'map-input' as const })),
      results: [`m${k - 1}`],
    });
    const g: GraphJson = {
      format: 'arrayfuse-graph',
      version: 1,
      inputs: [{ name: 'xs' }, { name: 'is' }],
      nodes: [
        { name: 'P', kind: 'map', outs: ['p0', 'p1'] },
        { name: 'S', kind: 'scatter' },
        { name: 'Ia', kind: 'if', blocks: [inner(1), inner(1)] },
        { name: 'R', kind: 'map' },
        { name: 'Ib', kind: 'if', blocks: [inner(3), inner(2)] },
        { name: 'Q', kind: 'map' },
      ],
      edges: [
        { from: 'xs', to: 'P', role: 'map-input' },
        { from: 'P', to: 'S', role: 'scatter-dest', arrays: ['p0'] },
        { from: 'is', to: 'S', role: 'scatter-index' },
        { from: 'xs', to: 'S', role: 'scatter-values' },
        { from: 'S', to: 'Ia', role: 'control' },
        { from: 'P', to: 'R', role: 'map-input', arrays: ['p1'] },
        { from: 'Q', to: 'R', role: 'map-input' },
        { from: 'xs', to: 'Q', role: 'map-input' },
        { from: 'xs', to: 'Ib', role: 'control' },
      ],
      results: ['R', 'S'],
    };
    for (const strategy of strategies) {
      const p = await planGraph(g, { solver, strategy });
      expect(validateGraphPlan(g, p), strategy).toEqual([]);
      // Ia's blocks are numbered first (ids 6 and 7): Ib's then-block holds ids 8, 9, 10.
      expect(p.root.children[4]![0]!.clusters.flatMap((c) => c.nodes).sort((a, b) => a - b), strategy).toEqual([8, 9, 10]);
    }
  });

  it('a scatter naming its destination arrays in several edges updates all of them (readers of each come first)', async () => {
    const blk: BlockJson = { inputs: [{ name: 'z' }], nodes: [], results: ['z'] };
    const g: GraphJson = {
      format: 'arrayfuse-graph',
      version: 1,
      inputs: [{ name: 'xs' }, { name: 'is' }],
      nodes: [
        { name: 'C', kind: 'if', outs: ['o1', 'o2'], blocks: [blk, blk] },
        { name: 'S', kind: 'scatter' },
        { name: 'R', kind: 'map' },
      ],
      edges: [
        { from: 'xs', to: 'C', role: 'control' },
        { from: 'C', to: 'S', role: 'scatter-dest', arrays: ['o1'] },
        { from: 'C', to: 'S', role: 'scatter-dest', arrays: ['o2'] },
        { from: 'is', to: 'S', role: 'scatter-index' },
        { from: 'xs', to: 'S', role: 'scatter-values' },
        { from: 'C', to: 'R', role: 'map-input', arrays: ['o1'] },
      ],
      results: ['R', 'S'],
    };
    for (const strategy of strategies) {
      const p = await planGraph(g, { solver, strategy });
      expect(validateGraphPlan(g, p), strategy).toEqual([]);
      expect(p.root.clusters.map((c) => c.nodes), strategy).toEqual([[0], [2], [1]]);
    }
    // A second scatter into o1 is E622, whichever of S's edges names o1.
    const twice: GraphJson = {
      ...g,
      nodes: [...g.nodes, { name: 'T', kind: 'scatter' }],
      edges: [...g.edges!, { from: 'C', to: 'T', role: 'scatter-dest', arrays: ['o1'] }, { from: 'is', to: 'T', role: 'scatter-index' }, { from: 'xs', to: 'T', role: 'scatter-values' }],
    };
    await expect(planGraph(twice, { solver })).rejects.toThrow(/E622|destination of two scatters/);
  });

  it('small random graphs: the ILP optimum equals the brute force minimum of the JSON graph (30 cases)', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryCase({ combinators: { min: 1, max: 6 } }), async ({ program }) => {
        const json = jsonOf(program);
        for (const cost of ['reads+writes', 'everything']) {
          const p = await planGraph(json, { solver, cost });
          const best = bruteForceGraph(json, parseCost(cost));
          expect(validateGraphPlan(json, withRoot(p, best.plan))).toEqual([]);
          expect(p.stats.objective, cost).toBeCloseTo(best.objective, 9);
        }
      }),
      { numRuns: 30, seed: 11 },
    );
  });
});

/** a → b → c, three maps (ids 0, 1, 2); only c is a result. */
const chain: GraphJson = {
  format: 'arrayfuse-graph',
  version: 1,
  inputs: [{ name: 'xs' }],
  nodes: [{ name: 'a', kind: 'map' }, { name: 'b', kind: 'map' }, { name: 'c', kind: 'map' }],
  edges: [
    { from: 'xs', to: 'a', role: 'map-input' },
    { from: 'a', to: 'b', role: 'map-input' },
    { from: 'b', to: 'c', role: 'map-input' },
  ],
  results: ['c'],
};

const fusedSimple1: BlockPlan = { clusters: [{ nodes: [0, 1], manifest: ['bs'] }], orders: { 0: { gather: 1 }, 1: 0 }, children: {} };

describe('hand-broken plans of JSON graphs are caught', () => {
  const check = async (json: GraphJson, root: BlockPlan): Promise<ViolationRule[]> =>
    rules(validateGraphPlan(json, withRoot(await planGraph(json, { solver }), root)));

  it('the planner\'s plan of simple1 is the paper\'s, and valid', async () => {
    const p = await planGraph(simple1, { solver });
    expect(p.root).toEqual(fusedSimple1);
    expect(validateGraphPlan(simple1, p)).toEqual([]);
  });

  it('a fused edge the JSON states infusible', async () => {
    const infusible: GraphJson = { ...simple1, edges: simple1.edges!.map((e) => (e.from === 'as' ? { ...e, fusible: false, reason: 'force-output' as const } : e)) };
    const vs = validateGraphPlan(infusible, withRoot(await planGraph(infusible, { solver }), fusedSimple1));
    expect(rules(vs)).toContain('infusible-edge');
    expect(describeViolations(vs)).toContain('the graph states it infusible (force-output)');
  });

  it('a fused edge the roles make infusible (indexed read)', async () => {
    const indexed: GraphJson = { ...simple1, edges: simple1.edges!.map((e) => (e.from === 'as' ? { ...e, role: 'indexed' as const } : e)) };
    expect(await check(indexed, { clusters: [{ nodes: [0, 1], manifest: ['bs'] }], orders: { 0: 0, 1: 0 }, children: {} })).toContain('infusible-edge');
  });

  it('a gather order mismatch: the fused source is produced in order 0, read in the gather\'s label', async () => {
    expect(await check(simple1, { ...fusedSimple1, orders: { 0: 0, 1: 0 } })).toEqual(['order']);
  });

  it('an order naming a node that is no gather', async () => {
    expect(await check(simple1, { ...fusedSimple1, orders: { 0: { gather: 0 }, 1: 0 } })).toContain('gather-label');
  });

  it('a cycle among clusters: {a, c} and {b}, where b reads a and c reads b', async () => {
    const vs = validateGraphPlan(chain, withRoot(await planGraph(chain, { solver }), {
      clusters: [{ nodes: [0, 2], manifest: ['a', 'c'] }, { nodes: [1], manifest: ['b'] }],
      orders: { 0: 0, 1: 0, 2: 0 },
      children: {},
    }));
    expect(rules(vs)).toContain('dependence');
    expect(describeViolations(vs)).toContain('reads map b (#1), which comes later, in cluster 1');
  });

  it('an output in a forbidden order: a manifest array in a gather\'s label', async () => {
    const bothResults: GraphJson = { ...simple1, results: ['as', 'bs'] };
    expect(await check(bothResults, { ...fusedSimple1, clusters: [{ nodes: [0, 1], manifest: ['as', 'bs'] }] })).toEqual(['manifest']);
  });

  it('a scanr in order 0, and a scan fused into a consumer in the other order', async () => {
    const scan: GraphJson = {
      format: 'arrayfuse-graph',
      version: 1,
      inputs: [{ name: 'xs' }],
      nodes: [{ name: 's', kind: 'scanr' }, { name: 'm', kind: 'map' }],
      edges: [{ from: 'xs', to: 's', role: 'scanr-input' }, { from: 's', to: 'm', role: 'map-input' }],
      results: ['m'],
    };
    expect(await check(scan, { clusters: [{ nodes: [0], manifest: ['s'] }, { nodes: [1], manifest: ['m'] }], orders: { 0: 0, 1: 0 }, children: {} })).toEqual(['order']);
    expect(await check(scan, { clusters: [{ nodes: [0, 1], manifest: ['m'] }], orders: { 0: 1, 1: 0 }, children: {} })).toEqual(['order']);
  });

  it('a missing manifest array, and a node in no cluster', async () => {
    expect(await check(chain, { clusters: [{ nodes: [0], manifest: [] }, { nodes: [1, 2], manifest: ['c'] }], orders: { 0: 0, 1: 0, 2: 0 }, children: {} })).toEqual(['manifest']);
    expect(await check(chain, { clusters: [{ nodes: [0, 1], manifest: ['b'] }], orders: { 0: 0, 1: 0 }, children: {} })).toContain('partition');
  });

  it('a reader of a scatter\'s destination in the scatter\'s cluster or after it', async () => {
    const g: GraphJson = {
      format: 'arrayfuse-graph',
      version: 1,
      inputs: [{ name: 'xs' }, { name: 'is', elems: ['i32'] }],
      nodes: [{ name: 'd', kind: 'map' }, { name: 'up', kind: 'scatter' }, { name: 'r', kind: 'map' }],
      edges: [
        { from: 'xs', to: 'd', role: 'map-input' },
        { from: 'd', to: 'up', role: 'scatter-dest' },
        { from: 'is', to: 'up', role: 'scatter-index' },
        { from: 'is', to: 'up', role: 'scatter-values' },
        { from: 'd', to: 'r', role: 'map-input' },
      ],
      results: ['up', 'r'],
    };
    const p = await planGraph(g, { solver });
    expect(validateGraphPlan(g, p)).toEqual([]);
    const late: BlockPlan = { clusters: [{ nodes: [0], manifest: ['d'] }, { nodes: [1], manifest: ['up'] }, { nodes: [2], manifest: ['r'] }], orders: { 0: 0, 1: 0, 2: 0 }, children: {} };
    expect(rules(validateGraphPlan(g, withRoot(p, late)))).toEqual(['scatter-uniqueness']);
  });

  it('a scatter updating an input is no violation in a JSON graph (the format has no memory)', async () => {
    const g: GraphJson = {
      format: 'arrayfuse-graph',
      version: 1,
      inputs: [{ name: 'ps', components: ['p0', 'p1'] }, { name: 'is', elems: ['i32'] }],
      nodes: [{ name: 'up', kind: 'scatter' }, { name: 'reader', kind: 'map' }],
      edges: [
        { from: 'ps', to: 'up', role: 'scatter-dest', arrays: ['p0'] },
        { from: 'is', to: 'up', role: 'scatter-index' },
        { from: 'is', to: 'up', role: 'scatter-values' },
        { from: 'ps', to: 'reader', role: 'map-input', arrays: ['p0'] },
      ],
      results: ['up', 'reader'],
    };
    for (const strategy of strategies) expect(validateGraphPlan(g, await planGraph(g, { solver, strategy }))).toEqual([]);
    // The reader of p0 must still run before the scatter.
    const wrong: BlockPlan = { clusters: [{ nodes: [0], manifest: ['up'] }, { nodes: [1], manifest: ['reader'] }], orders: { 0: 0, 1: 0 }, children: {} };
    expect(await check(g, wrong)).toEqual(['scatter-uniqueness']);
  });

  it('an `order` edge: its consumer fused with, or before, its producer', async () => {
    const g: GraphJson = {
      format: 'arrayfuse-graph',
      version: 1,
      inputs: [{ name: 'xs' }],
      nodes: [{ name: 'ys', kind: 'generate' }, { name: 'as', kind: 'map' }],
      edges: [{ from: 'xs', to: 'as', role: 'map-input' }, { from: 'as', to: 'ys', role: 'order', reason: 'shape' }],
      results: ['as', 'ys'],
    };
    const p = await planGraph(g, { solver, cost: 'clusters' });
    expect(validateGraphPlan(g, p)).toEqual([]);
    expect(evaluateGraphPlan(g, p, parseCost('clusters')).total).toBe(2);
    const together: BlockPlan = { clusters: [{ nodes: [1, 0], manifest: ['as', 'ys'] }], orders: { 0: 0, 1: 0 }, children: {} };
    expect(await check(g, together)).toContain('dependence');
    const before: BlockPlan = { clusters: [{ nodes: [0], manifest: ['ys'] }, { nodes: [1], manifest: ['as'] }], orders: { 0: 0, 1: 0 }, children: {} };
    expect(await check(g, before)).toEqual(['dependence']);
  });

  it('nested blocks without ids: numbered as the reader numbers them; a broken child plan names its block', async () => {
    const g: GraphJson = {
      format: 'arrayfuse-graph',
      version: 1,
      inputs: [{ name: 'xs' }],
      nodes: [
        { name: 'ws', kind: 'map' },
        {
          name: 'if', kind: 'if', outs: ['zs'],
          blocks: [
            { inputs: [{ name: 'ys' }], nodes: [{ name: 'b', kind: 'map' }, { name: 'a', kind: 'map' }], edges: [{ from: 'ys', to: 'a', role: 'map-input' }, { from: 'a', to: 'b', role: 'map-input' }], results: ['b'] },
            { inputs: [{ name: 'ys' }], nodes: [], results: ['ys'] },
          ],
        },
        { name: 'ys', kind: 'map', id: 0 },
      ],
      edges: [
        { from: 'xs', to: 'ys', role: 'map-input' },
        { from: 'ys', to: 'if', role: 'control' },
        { from: 'if', to: 'ws', role: 'map-input', arrays: ['zs'] },
      ],
      results: ['ws'],
    };
    for (const strategy of strategies) {
      const p = await planGraph(g, { solver, strategy });
      expect(validateGraphPlan(g, p), strategy).toEqual([]);
      expect(evaluateGraphPlan(g, p, parseCost('reads+writes')).total).toBe(p.stats.objective);
    }
    // ids: ys 0 (given), ws 1, if 2; in the then-block b 3, a 4.
    const p = await planGraph(g, { solver });
    expect(p.root.children[2]![0]!.clusters).toEqual([{ nodes: [4, 3], manifest: ['b'] }]);
    const broken = withRoot(p, { ...p.root, children: { 2: [{ ...p.root.children[2]![0]!, orders: { 3: 0, 4: 1 } }, p.root.children[2]![1]!] } });
    const vs = validateGraphPlan(g, broken);
    expect(rules(vs)).toEqual(['order']);
    expect(vs[0]!.block).toBe('root/if #2 then');
  });

  it('assertValidGraphPlan throws a CompilerBug listing the violations, and passes valid plans', async () => {
    const p = await planGraph(simple1, { solver });
    expect(() => assertValidGraphPlan(simple1, p)).not.toThrow();
    const bad = withRoot(p, { ...fusedSimple1, orders: { 0: 0, 1: 0 } });
    expect(() => assertValidGraphPlan(simple1, bad)).toThrow(CompilerBug);
    expect(() => assertValidGraphPlan(simple1, bad)).toThrow(/the ilp plan for the graph simple1 breaks the fusion rules:\n {2}\[order\] root, cluster 0: map as \(#0\) is produced in order 0/);
  });
});
