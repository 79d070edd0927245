// The JSON graph format (src/graph/fromJson.ts, docs/PLAN-FORMAT.md): a hand-written graph plans
// like the program it describes; program → graph JSON → planGraph gives the same graph and the
// same objective as plan(program), on the examples and on random programs with control flow;
// weights and sizes in the JSON and in the options count; every malformed graph is one
// UserError with its code and JSON path.

import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SourceFile, UserError, type Diagnostic } from '../../src/diagnostics/index.js';
import type { Program } from '../../src/ir/types.js';
import { lowerModule } from '../../src/lower/index.js';
import { parseGraphJson } from '../../src/graph/fromJson.js';
import { planGraph } from '../../src/driver/index.js';
import { maxGraphBlockDepth, type GraphJson } from '../../src/graph/jsonFormat.js';
import { graphToJson } from '../../src/graph/toJson.js';
import { simple1 } from './graphJsonFixtures.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { plan } from '../../src/plan/index.js';
import { programGraphs, type BlockGraphs } from '../../src/graph/program.js';
import { renderPlanDot, renderPlanJson, renderPlanText } from '../../src/report/render.js';
import { parseModule } from '../../src/syntax/index.js';
import { arbitraryCase } from '../util/index.js';
import { lowerText } from '../lower/helpers.js';
import { evaluateGraphPlan } from '../../src/check/evaluate.js';
import { formatViolation, validateGraphPlan } from '../../src/check/validate.js';
import { parseCost } from '../../src/plan/cost.js';
import { arr, arrayParam, bin, block, cast, i32, lam, nodes, program as buildProgram, scalarParam, scalarStmt, scalarValue, v } from '../ir/builders.js';

const solver = createSolverLoader();
const examplesDir = new URL('../../examples/', import.meta.url);
const exampleNames = readdirSync(examplesDir).filter((f) => f.endsWith('.fuse')).map((f) => f.slice(0, -5)).sort();

function lowerExample(name: string): Program {
  const file = new SourceFile(`${name}.fuse`, readFileSync(new URL(`${name}.fuse`, examplesDir), 'utf8'));
  return lowerModule(parseModule(file), file);
}

/** Everything the planner sees of a graph, by names (statement IR and spans left out). */
function summary(bg: BlockGraphs): unknown {
  const g = bg.graph;
  const name = (id: number): string => g.nodes.find((n) => n.id === id)!.name;
  const group = (i: number): string => g.groups[i]!.name;
  return {
    nodes: g.nodes.map((n) => ({ id: n.id, index: n.index, kind: n.kind, name: n.name, outs: n.outs, label: n.label, group: n.group === null ? null : group(n.group) })),
    groups: g.groups
      .map((v) => ({ name: v.name, names: v.names, elems: v.elems, producer: v.producer, definedBy: v.definedBy }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    reads: g.reads.map((r) => ({ consumer: name(r.consumer), group: group(r.group), role: r.role, order: r.order, arrays: r.arrays })),
    edges: g.edges.map((e) => ({ from: name(e.from), to: name(e.to), fusible: e.fusible, reasons: [...e.reasons].sort(), reads: e.reads.length })),
    precedences: g.precedences.map((p) => `${name(p.before)}<${name(p.scatter)}`).sort(),
    results: g.resultGroups.map(group).sort(),
    gatherCount: g.gatherCount,
    children: Object.fromEntries(Object.entries(bg.children).map(([id, blocks]) => [id, blocks.map(summary)])),
  };
}

/** A graph of `depth` `if` nodes, each in the then-block of the one before (built without recursion). */
function nestedIfs(depth: number): GraphJson {
  let inner: GraphJson['nodes'] = [];
  for (let i = 0; i < depth; i++) inner = [{ name: `c${i}`, kind: 'if', blocks: [{ nodes: inner }, { nodes: [] }] }];
  return { format: 'arrayfuse-graph', version: 1, nodes: inner };
}

/** nestedIfs as text, for depths JSON.stringify cannot write (its recursion overflows). */
function nestedIfsText(depth: number): string {
  return `{"format": "arrayfuse-graph", "version": 1, "nodes": ${'[{"name": "c", "kind": "if", "blocks": [{"nodes": '.repeat(depth)}[]${'}, {"nodes": []}]}]'.repeat(depth)}}`;
}

/** A deep copy of simple1 changed by `edit`, for the error table. */
function broken(edit: (g: Record<string, any>) => void): unknown {
  const g = structuredClone(simple1) as Record<string, any>;
  edit(g);
  return g;
}

/** `ab` makes the tuple (p0, p1); `u0` scatters into p0, `u1` into `dest1`; `reader` reads p0. */
function twoScatters(dest1: readonly string[]): GraphJson {
  return {
    format: 'arrayfuse-graph',
    version: 1,
    inputs: [{ name: 'xs' }, { name: 'is', elems: ['i32'] }],
    nodes: [
      { name: 'ab', kind: 'map', outs: ['p0', 'p1'] },
      { name: 'reader', kind: 'map' },
      { name: 'u0', kind: 'scatter' },
      { name: 'u1', kind: 'scatter' },
    ],
    edges: [
      { from: 'xs', to: 'ab', role: 'map-input' },
      { from: 'ab', to: 'reader', role: 'map-input', arrays: ['p0'] },
      { from: 'ab', to: 'u0', role: 'scatter-dest', arrays: ['p0'] },
      { from: 'is', to: 'u0', role: 'scatter-index' },
      { from: 'xs', to: 'u0', role: 'scatter-values' },
      { from: 'ab', to: 'u1', role: 'scatter-dest', arrays: [...dest1] },
      { from: 'is', to: 'u1', role: 'scatter-index' },
      { from: 'xs', to: 'u1', role: 'scatter-values' },
    ],
    results: ['reader', 'u0', 'u1'],
  };
}

describe('planGraph on hand-written graphs', () => {
  it('simple1: one cluster, `as` fused into the gather in its label order, only `bs` written', async () => {
    const p = await planGraph(simple1, { solver });
    expect(p.stats.status).toBe('optimal');
    expect(p.root.clusters).toHaveLength(1);
    expect(p.root.clusters[0]!.manifest).toEqual(['bs']);
    // Node ids default to positions: as = 0, bs = 1; `as` is produced in the gather's order ℓ.
    expect(p.root.orders[0]).toEqual({ gather: 1 });
    expect(p.root.orders[1]).toBe(0);
    expect(p.stats.objective).toBe(3); // reads of is and xs, one write of bs
  });

  it('accepts the graph as JSON text, and nodes listed out of dependence order', async () => {
    const reordered = { ...simple1, nodes: [...simple1.nodes].reverse() };
    const p = await planGraph(JSON.stringify(reordered), { solver });
    expect(p.stats.objective).toBe(3);
    expect(p.root.clusters).toHaveLength(1);
  });

  it('the same graph with `as` a result keeps it manifest, in two clusters (simple3)', async () => {
    const p = await planGraph({ ...simple1, results: ['as', 'bs'] }, { solver });
    expect(p.root.clusters.map((c) => c.manifest)).toEqual([['as'], ['bs']]);
  });

  it('a stated infusible edge with a reason is respected', async () => {
    const g = { ...simple1, edges: simple1.edges!.map((e) => (e.from === 'as' ? { ...e, fusible: false, reason: 'force-output' as const } : e)) };
    const p = await planGraph(g, { solver });
    expect(p.root.clusters).toHaveLength(2);
    expect(parseGraphJson(g).graph.edges[0]!.reasons).toEqual(['force-output']);
  });

  it('edge weights steer fused-edges; options.weights override the JSON', async () => {
    // Cost fused-edges + writes with the only fusible edge weighted 0: fusing it saves nothing.
    const weighted = { ...simple1, edges: simple1.edges!.map((e) => (e.from === 'as' ? { ...e, weight: 0 } : e)) };
    expect((await planGraph(weighted, { solver, cost: 'fused-edges' })).stats.objective).toBe(0);
    const none = await planGraph(weighted, { solver, cost: 'fused-edges', strategy: 'none' });
    expect(none.stats.objective).toBe(0);
    const overridden = await planGraph(weighted, { solver, cost: 'fused-edges', strategy: 'none', weights: { edges: { 'as->bs': 5 } } });
    expect(overridden.stats.objective).toBe(5);
  });

  it('array weights and sizes: `bytes` weighs size × bytes per element; options.shapes override', async () => {
    const sized: GraphJson = {
      ...simple1,
      inputs: [{ name: 'is', elems: ['i32'], size: 10 }, { name: 'xs', size: 100, weight: 7 }],
      nodes: [{ name: 'as', kind: 'map', size: 100 }, { name: 'bs', kind: 'gather', size: 10 }],
    };
    // Fused: read is (40 bytes) and xs (800 bytes), write bs (80 bytes).
    expect((await planGraph(sized, { solver, cost: 'bytes' })).stats.objective).toBe(40 + 800 + 80);
    expect((await planGraph(sized, { solver, cost: 'bytes', shapes: { xs: [2, 3] } })).stats.objective).toBe(40 + 48 + 80);
    // Plain weights: xs weighs 7.
    expect((await planGraph(sized, { solver })).stats.objective).toBe(1 + 7 + 1);
    expect((await planGraph(sized, { solver, weights: { arrays: { xs: 2 } } })).stats.objective).toBe(1 + 2 + 1);
  });

  it('byte arrays weigh one byte an element under `bytes`', async () => {
    const sized: GraphJson = {
      ...simple1,
      inputs: [{ name: 'is', elems: ['i32'], size: 10 }, { name: 'xs', elems: ['u8'], size: 100 }],
      nodes: [{ name: 'as', kind: 'map', elems: ['i8'], size: 100 }, { name: 'bs', kind: 'gather', elems: ['i8'], size: 10 }],
    };
    // Fused: read is (40 bytes) and xs (100 bytes), write bs (10 bytes).
    expect((await planGraph(sized, { solver, cost: 'bytes' })).stats.objective).toBe(40 + 100 + 10);
  });

  it('a scatter: its destination is written first; another reader of it runs before the scatter', async () => {
    // scatterExample plus `cs`, which reads the destination bs and is listed after the scatter.
    const g: GraphJson = {
      format: 'arrayfuse-graph',
      version: 1,
      inputs: [{ name: 'xs' }],
      nodes: [
        { name: 'as', kind: 'map', outs: ['as.0', 'as.1'], elems: ['i32', 'f64'] },
        { name: 'bs', kind: 'map' },
        { name: 'result', kind: 'scatter' },
        { name: 'cs', kind: 'map' },
      ],
      edges: [
        { from: 'xs', to: 'as', role: 'map-input' },
        { from: 'xs', to: 'bs', role: 'map-input' },
        { from: 'bs', to: 'result', role: 'scatter-dest' },
        { from: 'as', to: 'result', role: 'scatter-index', arrays: ['as.0'] },
        { from: 'as', to: 'result', role: 'scatter-values', arrays: ['as.1'] },
        { from: 'bs', to: 'cs', role: 'map-input' },
      ],
      results: ['result', 'cs'],
    };
    const graphs = parseGraphJson(g);
    const id = (name: string): number => graphs.graph.nodes.find((n) => n.name === name)!.id;
    expect(graphs.graph.precedences).toEqual([{ before: id('cs'), scatter: id('result') }]);
    expect(graphs.graph.nodes.map((n) => n.name)).toEqual(['as', 'bs', 'cs', 'result']);
    const p = await planGraph(g, { solver });
    const clusterOf = (name: string): number => p.root.clusters.findIndex((c) => c.nodes.includes(id(name)));
    expect(clusterOf('cs')).toBeLessThan(clusterOf('result'));
    expect(clusterOf('as')).toBe(clusterOf('result'));
    expect(p.root.clusters.flatMap((c) => c.manifest).sort()).toEqual(['bs', 'cs', 'result']);
  });

  it('a scatter on one component of an input of tuples orders the readers of that component only', () => {
    // Per array (PLANNING.md rule 3): `up` updates p0 in place; p1 is another array.
    const g: GraphJson = {
      format: 'arrayfuse-graph',
      version: 1,
      inputs: [{ name: 'ps', components: ['p0', 'p1'] }, { name: 'is', elems: ['i32'] }],
      nodes: [{ name: 'up', kind: 'scatter' }, { name: 'other', kind: 'map' }, { name: 'same', kind: 'map' }],
      edges: [
        { from: 'ps', to: 'up', role: 'scatter-dest', arrays: ['p0'] },
        { from: 'is', to: 'up', role: 'scatter-index' },
        { from: 'is', to: 'up', role: 'scatter-values' },
        { from: 'ps', to: 'other', role: 'map-input', arrays: ['p1'] },
        { from: 'ps', to: 'same', role: 'map-input', arrays: ['p0'] },
      ],
      results: ['up', 'other', 'same'],
    };
    const { graph } = parseGraphJson(g);
    expect(graph.nodes.map((n) => n.name)).toEqual(['other', 'same', 'up']);
    expect(graph.precedences).toEqual([{ before: 2, scatter: 0 }]);
  });

  it('scatters into two components of one tuple-producing node plan, and the plan is valid (per array)', async () => {
    const g = twoScatters(['p1']);
    const graphs = parseGraphJson(g);
    expect(graphs.graph.nodes.filter((n) => n.kind === 'scatter').map((n) => `${n.name}:${n.dest.join(',')}`)).toEqual(['u0:p0', 'u1:p1']);
    // `reader` reads p0, which u0 updates: it alone runs before a scatter.
    const id = (name: string): number => graphs.graph.nodes.find((n) => n.name === name)!.id;
    expect(graphs.graph.precedences).toEqual([{ before: id('reader'), scatter: id('u0') }]);
    for (const strategy of ['ilp', 'greedy-down', 'greedy-up', 'none'] as const) {
      const p = await planGraph(g, { solver, strategy, cost: 'reads+writes' });
      expect(validateGraphPlan(g, p).map(formatViolation), strategy).toEqual([]);
      expect(evaluateGraphPlan(g, p, parseCost('reads+writes')).total, strategy).toBe(p.stats.objective);
    }
  });

  it('two scatters into one component of a tuple are E622, naming that component and both scatters', () => {
    expect(() => parseGraphJson(twoScatters(['p0']))).toThrow('$.edges[5]: `p0` is the destination of two scatters, `u0` and `u1`');
  });

  it('an `order` edge orders two nodes without a read, and is never fused', async () => {
    // ys is sized by a count computed from as (a `shape` ordering); nothing else joins them.
    const g: GraphJson = {
      format: 'arrayfuse-graph',
      version: 1,
      inputs: [{ name: 'xs' }],
      nodes: [{ name: 'ys', kind: 'generate' }, { name: 'as', kind: 'map' }],
      edges: [{ from: 'xs', to: 'as', role: 'map-input' }, { from: 'as', to: 'ys', role: 'order', reason: 'shape' }],
      results: ['as', 'ys'],
    };
    const { graph } = parseGraphJson(g);
    expect(graph.nodes.map((n) => n.name)).toEqual(['as', 'ys']);
    expect(graph.edges).toEqual([{ from: 1, to: 0, fusible: false, reasons: ['shape'], reads: [], weight: 1 }]);
    const p = await planGraph(g, { solver, cost: 'clusters' });
    expect(p.stats.objective).toBe(2);
    expect(p.root.clusters.map((c) => c.nodes)).toEqual([[1], [0]]);
  });

  it('a result named by its node gives all the node\'s arrays', async () => {
    const g: GraphJson = {
      format: 'arrayfuse-graph',
      version: 1,
      inputs: [{ name: 'xs' }],
      nodes: [{ name: 'pair', kind: 'map', outs: ['p0', 'p1'] }, { name: 'ys', kind: 'map' }],
      edges: [{ from: 'xs', to: 'pair', role: 'map-input' }, { from: 'pair', to: 'ys', role: 'map-input', arrays: ['p1'] }],
      results: ['pair', 'ys'],
    };
    const p = await planGraph(g, { solver });
    expect(p.root.clusters.flatMap((c) => c.manifest).sort()).toEqual(['p0', 'p1', 'ys']);
  });

  it('nested blocks: an if node with [then, else], each planned on its own', async () => {
    const g: GraphJson = {
      format: 'arrayfuse-graph',
      version: 1,
      inputs: [{ name: 'xs' }],
      nodes: [
        { name: 'ys', kind: 'map' },
        {
          name: 'if', kind: 'if', outs: ['zs'],
          blocks: [
            { inputs: [{ name: 'ys' }], nodes: [{ name: 'a', kind: 'map' }, { name: 'b', kind: 'map' }], edges: [{ from: 'ys', to: 'a', role: 'map-input' }, { from: 'a', to: 'b', role: 'map-input' }], results: ['b'] },
            { inputs: [{ name: 'ys' }], nodes: [], results: ['ys'] },
          ],
        },
        { name: 'ws', kind: 'map' },
      ],
      edges: [
        { from: 'xs', to: 'ys', role: 'map-input' },
        { from: 'ys', to: 'if', role: 'control' },
        { from: 'if', to: 'ws', role: 'map-input', arrays: ['zs'] },
      ],
      results: ['ws'],
    };
    const p = await planGraph(g, { solver });
    expect(p.root.clusters.map((c) => c.nodes.length)).toEqual([1, 1, 1]);
    const ifId = parseGraphJson(g).graph.nodes.find((n) => n.kind === 'if')!.id;
    const [then, otherwise] = p.root.children[ifId]!;
    expect(then!.clusters).toHaveLength(1);
    expect(otherwise!.clusters).toHaveLength(0);
    // root: xs read, ys written, ys read by if (unordered), zs read, ws written; then: ys read, b written.
    expect(p.stats.objective).toBe(5 + 2);
  });
});

describe('round trip: program → graph JSON → planGraph', () => {
  it.each(exampleNames)('%s: the same graph, and the same objective for every strategy and three costs', async (name) => {
    const program = lowerExample(name);
    const graphs = programGraphs(program);
    const json = JSON.parse(JSON.stringify(graphToJson(graphs, name))) as unknown;
    expect(summary(parseGraphJson(json))).toEqual(summary(graphs));
    for (const cost of ['reads+writes', 'everything', 'fused-edges']) {
      for (const strategy of ['ilp', 'greedy-down', 'greedy-up', 'none'] as const) {
        const direct = await plan(program, { solver, cost, strategy });
        const viaJson = await planGraph(json, { solver, cost, strategy });
        expect(viaJson.stats.objective, `${strategy}, ${cost}`).toBe(direct.stats.objective);
        expect(viaJson.root.clusters.length, `${strategy}, ${cost}`).toBe(direct.root.clusters.length);
      }
    }
  });

  it('orderings without a read (a scalar of an `if` used by a map) survive the trip', async () => {
    const n = nodes();
    const program = buildProgram(
      'scalarOut',
      [arrayParam('xs', 'f64', 1), scalarParam('c', 'bool')],
      [
        n.if_([scalarValue('k', 'i32')], v('c', 'bool'), block([], [scalarStmt('k1', i32(1))], ['k1']), block([], [scalarStmt('k2', i32(2))], ['k2'])),
        n.map([arr('ys', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', v('x', 'f64'), cast('f64', v('k', 'i32'))))),
      ],
      ['ys'],
    );
    const graphs = programGraphs(program);
    const json = graphToJson(graphs);
    expect(json.edges).toContainEqual({ from: 'if#0', to: 'ys', role: 'order', fusible: false, reason: 'control-flow' });
    expect(summary(parseGraphJson(json))).toEqual(summary(graphs));
    for (const cost of ['clusters', 'everything']) {
      expect((await planGraph(json, { solver, cost })).stats.objective).toBe((await plan(program, { solver, cost })).stats.objective);
    }
  });

  it.each([
    ['two scatters into the two components of one map', 'def main(xs: f64[n], is: i32[m]):\n  a, b = map(lam x: (x, x + 1.0), xs)\n  r = scatter(+, a, zip(is, xs))\n  q = scatter(+, b, zip(is, xs))\n  return r, q\n'],
    ['a scatter into one component, a reader of the other', 'def main(xs: f64[n], is: i32[m]):\n  a, b = map(lam x: (x, x + 1.0), xs)\n  r = scatter(+, a, zip(is, xs))\n  return map(lam x: x + 2.0, b), r\n'],
    ['a reader of the scatter\'s result and of the other component', 'def main(xs: f64[n], is: i32[m]):\n  a, b = map(lam x: (x, x + 1.0), xs)\n  r = scatter(+, a, zip(is, xs))\n  return map(lam x, y: x + y, zip(r, b))\n'],
  ])('scatter precedences are per array on both entries: %s', async (_, source) => {
    const program = lowerText(source);
    const graphs = programGraphs(program);
    const json = graphToJson(graphs);
    expect(summary(parseGraphJson(json))).toEqual(summary(graphs));
    for (const cost of ['reads+writes', 'everything']) {
      for (const strategy of ['ilp', 'greedy-down'] as const) {
        const direct = await plan(program, { solver, cost, strategy });
        expect((await planGraph(json, { solver, cost, strategy })).stats.objective, `${strategy}, ${cost}`).toBe(direct.stats.objective);
      }
    }
  });

  it('weights and byte sizes survive the trip', async () => {
    const program = lowerExample('greedyBottomUpBad');
    const weights = { arrays: { large: 50, xs: 3 }, edges: { 'ys->result': 4 } };
    const shapes = { xs: [10], m: 20 };
    const json = graphToJson(programGraphs(program, weights, shapes));
    for (const cost of ['bytes', 'everything', 'reads+writes']) {
      const direct = await plan(program, { solver, cost, weights, shapes });
      expect((await planGraph(json, { solver, cost })).stats.objective).toBe(direct.stats.objective);
    }
  });

  it('random programs with control flow (80 cases)', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryCase({ combinators: { min: 1, max: 10 } }), async ({ program }) => {
        const graphs = programGraphs(program);
        const json = graphToJson(graphs);
        expect(summary(parseGraphJson(JSON.stringify(json)))).toEqual(summary(graphs));
        const direct = await plan(program, { solver, cost: 'everything' });
        expect((await planGraph(json, { solver, cost: 'everything' })).stats.objective).toBeCloseTo(direct.stats.objective, 9);
      }),
      { numRuns: 80, seed: 9 },
    );
  });
});

describe('malformed graphs: one UserError each, with its code and JSON path', () => {
  const cases: readonly (readonly [string, string, string, unknown])[] = [
    ['not JSON', 'E610', '$: the graph is not valid JSON', '{"format": "arrayfuse-graph",'],
    ['not an object', 'E612', '$: expected a graph', '[1, 2]'],
    ['wrong format', 'E611', '$.format: expected "arrayfuse-graph"', broken((g) => (g.format = 'dot'))],
    ['future version', 'E611', '$.version: this arrayfuse reads graph format version 1, not 2', broken((g) => (g.version = 2))],
    ['unknown top-level field', 'E628', '$.nodez: unknown field `nodez`', broken((g) => (g.nodez = []))],
    ['no nodes', 'E612', '$: a block needs `nodes`', broken((g) => delete g.nodes)],
    ['unknown node kind', 'E613', '$.nodes[0].kind: unknown node kind "zipWith"', broken((g) => (g.nodes[0].kind = 'zipWith'))],
    ['node without a name', 'E612', '$.nodes[1].name: expected a non-empty string', broken((g) => delete g.nodes[1].name)],
    ['misspelt edge field', 'E628', '$.edges[2].fusable: unknown field', broken((g) => (g.edges[2].fusable = true))],
    ['two nodes named alike', 'E614', '$.nodes[1].name: two nodes are named `as`', broken((g) => (g.nodes[1].name = 'as'))],
    ['a node named like an input', 'E614', '$.nodes[0].name: `xs` is also the name of input `xs`', broken((g) => (g.nodes[0].name = 'xs'))],
    ['duplicate ids', 'E614', '$.nodes[1].id: id 4 is also the id of $.nodes[0].id', broken((g) => { g.nodes[0].id = 4; g.nodes[1].id = 4; })],
    ['negative id', 'E612', '$.nodes[0].id: an id is a whole number', broken((g) => (g.nodes[0].id = -1))],
    ['edge from an unknown node', 'E615', '$.edges[2].from: `cs` is neither a node nor an input', broken((g) => (g.edges[2].from = 'cs'))],
    ['edge to an unknown node', 'E615', '$.edges[2].to: `cs` is not a node of this block', broken((g) => (g.edges[2].to = 'cs'))],
    ['edge to an input', 'E615', '$.edges[2].to: `xs` is an input; edges end at nodes', broken((g) => (g.edges[2].to = 'xs'))],
    ['unknown role', 'E616', '$.edges[0].role: unknown read role "input"', broken((g) => (g.edges[0].role = 'input'))],
    ['role of another kind', 'E616', '$.edges[0].role: a map does not read in role `scanl-input`', broken((g) => (g.edges[0].role = 'scanl-input'))],
    ['array the producer lacks', 'E617', '$.edges[2].arrays[1]: `as` does not produce `bs`', broken((g) => (g.edges[2].arrays = ['as', 'bs']))],
    ['indexed read said fusible', 'E618', '$.edges[2].fusible: this edge cannot be fused: indexed', broken((g) => { g.edges[2].role = 'indexed'; g.edges[2].fusible = true; })],
    ['input read said fusible', 'E618', '$.edges[0].fusible: `xs` is an input', broken((g) => (g.edges[0].fusible = true))],
    ['infusible without a reason', 'E619', '$.edges[2]: say why this edge is infusible', broken((g) => (g.edges[2].fusible = false))],
    ['unknown reason', 'E619', '$.edges[2].reason: unknown reason "slow"', broken((g) => { g.edges[2].fusible = false; g.edges[2].reason = 'slow'; })],
    ['cycle', 'E620', '$: the graph has a cycle: as -> bs -> as', broken((g) => g.edges.push({ from: 'bs', to: 'as', role: 'map-input' }))],
    ['cycle with a node downstream of it listed first', 'E620', '$: the graph has a cycle: as -> bs -> as', broken((g) => { g.nodes.unshift({ name: 'ds', kind: 'map' }); g.edges.push({ from: 'bs', to: 'as', role: 'map-input' }, { from: 'bs', to: 'ds', role: 'map-input' }); })],
    ['cycle of three with a chain below it', 'E620', '$: the graph has a cycle: as -> cs -> ds -> as', broken((g) => { g.nodes.push({ name: 'cs', kind: 'map' }, { name: 'ds', kind: 'map' }, { name: 'es', kind: 'map' }); g.nodes.unshift({ name: 'fs', kind: 'map' }); g.edges.push({ from: 'as', to: 'cs', role: 'map-input' }, { from: 'cs', to: 'ds', role: 'map-input' }, { from: 'ds', to: 'as', role: 'map-input' }, { from: 'ds', to: 'es', role: 'map-input' }, { from: 'es', to: 'fs', role: 'map-input' }); })],
    ['self loop', 'E620', '$: `as` depends on itself', broken((g) => g.edges.push({ from: 'as', to: 'as', role: 'indexed' }))],
    ['scatter without a dest', 'E621', '$.nodes[2]: the scatter `cs` has no destination', broken((g) => { g.nodes.push({ name: 'cs', kind: 'scatter' }); g.edges.push({ from: 'bs', to: 'cs', role: 'scatter-values' }); })],
    ['scatter with two dests', 'E621', '$.edges[4]: the scatter `cs` already has the destination `bs`', broken((g) => { g.nodes.push({ name: 'cs', kind: 'scatter' }); g.edges.push({ from: 'bs', to: 'cs', role: 'scatter-dest' }, { from: 'xs', to: 'cs', role: 'scatter-dest' }); })],
    ['two scatters on one dest', 'E622', '$.edges[4]: `bs` is the destination of two scatters', broken((g) => { g.nodes.push({ name: 'c1', kind: 'scatter' }, { name: 'c2', kind: 'scatter' }); g.edges.push({ from: 'bs', to: 'c1', role: 'scatter-dest' }, { from: 'bs', to: 'c2', role: 'scatter-dest' }); })],
    ['reading a dest after its scatter', 'E620', 'the graph has a cycle: cs -> ds -> cs', broken((g) => { g.nodes.push({ name: 'cs', kind: 'scatter' }, { name: 'ds', kind: 'map' }); g.edges.push({ from: 'as', to: 'cs', role: 'scatter-dest' }, { from: 'cs', to: 'ds', role: 'map-input' }, { from: 'as', to: 'ds', role: 'map-input' }); })],
    ['negative weight', 'E623', '$.inputs[1].weight: a weight is a finite non-negative number, not -1', broken((g) => (g.inputs[1].weight = -1))],
    ['text weight', 'E623', '$.edges[2].weight: a weight is a finite non-negative number, not "heavy"', broken((g) => (g.edges[2].weight = 'heavy'))],
    ['disagreeing edge weights', 'E623', '$.edges[3].weight: the edges from `as` to `bs` state different weights (2 and 3)', broken((g) => { g.edges[2].weight = 2; g.edges.push({ from: 'as', to: 'bs', role: 'indexed', weight: 3 }); })],
    ['fractional size', 'E624', '$.nodes[0].size: a size is a whole number', broken((g) => (g.nodes[0].size = 1.5))],
    ['unknown result', 'E625', '$.results[0]: the result `cs` is not an array (or node) of this block', broken((g) => (g.results = ['cs']))],
    ['order edge from an input', 'E615', '$.edges[3].from: `xs` is an input; an `order` edge comes from a node', broken((g) => g.edges.push({ from: 'xs', to: 'bs', role: 'order', reason: 'shape' }))],
    ['order edge with arrays', 'E617', '$.edges[3].arrays: an `order` edge reads no arrays', broken((g) => g.edges.push({ from: 'as', to: 'bs', role: 'order', arrays: ['as'], reason: 'shape' }))],
    ['order edge said fusible', 'E618', '$.edges[3].fusible: an `order` edge reads nothing', broken((g) => g.edges.push({ from: 'as', to: 'bs', role: 'order', fusible: true }))],
    ['order edge without a reason', 'E619', '$.edges[3]: say why the consumer must come after the producer', broken((g) => g.edges.push({ from: 'as', to: 'bs', role: 'order' }))],
    ['if without blocks', 'E626', '$.nodes[2]: an `if` node needs `blocks`', broken((g) => g.nodes.push({ name: 'c', kind: 'if' }))],
    ['while with one block', 'E626', '$.nodes[2].blocks: a `while` node has two blocks', broken((g) => g.nodes.push({ name: 'c', kind: 'while', blocks: [{ nodes: [] }] }))],
    ['map with blocks', 'E626', '$.nodes[0].blocks: only `if` and `while` nodes have blocks', broken((g) => (g.nodes[0].blocks = []))],
    ['error inside a nested block', 'E613', '$.nodes[2].blocks[0].nodes[0].kind: unknown node kind "mop"', broken((g) => g.nodes.push({ name: 'c', kind: 'if', blocks: [{ nodes: [{ name: 'k', kind: 'mop' }] }, { nodes: [] }] }))],
    ['blocks nested too deep', 'E629', `blocks are nested more than ${maxGraphBlockDepth} deep`, nestedIfs(maxGraphBlockDepth + 1)],
    ['blocks nested far too deep', 'E629', `blocks are nested more than ${maxGraphBlockDepth} deep`, nestedIfsText(5000)],
    ['a deeply nested value where a string belongs', 'E612', '$.name: expected a non-empty string, found [[[[…]]]]', `{"format": "arrayfuse-graph", "version": 1, "name": ${'['.repeat(100_000)}${']'.repeat(100_000)}, "nodes": []}`],
    ['unknown element type', 'E627', '$.inputs[0].elems[0]: unknown element type "int"', broken((g) => (g.inputs[0].elems = ['int']))],
    ['elems of the wrong length', 'E627', '$.nodes[0].elems: expected 1 element type(s), one per array, found 2', broken((g) => (g.nodes[0].elems = ['f64', 'f64']))],
  ];

  it.each(cases)('%s → %s', (_, code, message, json) => {
    let error: unknown;
    try {
      parseGraphJson(json);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UserError);
    const u = error as UserError;
    expect(u.diagnostics).toHaveLength(1);
    expect(u.code).toBe(code);
    expect(u.diagnostics[0]!.message).toContain(message);
  });

  /** The diagnostic of parsing `json` as pretty-printed text. */
  const textDiagnostic = (json: unknown): Diagnostic => {
    try {
      parseGraphJson(JSON.stringify(json, null, 2), {}, 'input.json');
    } catch (e) {
      return (e as UserError).diagnostics[0]!;
    }
    throw new Error('no error');
  };

  it.each(cases.filter((c) => typeof c[3] !== 'string'))('given as text, %s (%s) points into the text', (_, code, message, json) => {
    const d = textDiagnostic(json);
    expect(d.code).toBe(code);
    expect(d.message).toContain(message);
    expect(d.file?.name).toBe('input.json');
    expect(d.span).toBeDefined();
  });

  type Edit = (g: Record<string, any>) => void;
  /** Line of the first (or last) occurrence of `anchor` in `text`, found independently of spans. */
  const lineOf = (text: string, anchor: string, last = false): number =>
    text.slice(0, last ? text.lastIndexOf(anchor) : text.indexOf(anchor)).split('\n').length;
  const spanCases: readonly (readonly [string, Edit, string, string, boolean])[] = [
    ['the bad value', (g) => (g.nodes[0].kind = 'zipWith'), '"zipWith"', '"kind": "zipWith"', false],
    ['the value of an unknown field', (g) => (g.edges[2].fusable = true), 'true', '"fusable": true', false],
    ['the object lacking a field', (g) => delete g.nodes[1].name, '{\n      "kind": "gather"\n    }', '{\n      "kind": "gather"', false],
    ['the second of two ids', (g) => { g.nodes[0].id = 4; g.nodes[1].id = 4; }, '4', '"id": 4', true],
  ];
  it.each(spanCases)('the span of an error in text is %s', (_, edit, spanned, anchor, last) => {
    const text = JSON.stringify(broken(edit), null, 2);
    const d = textDiagnostic(JSON.parse(text));
    expect(text.slice(d.span!.start, d.span!.end)).toBe(spanned);
    expect(d.file!.lineCol(d.span!.start).line).toBe(lineOf(text, anchor, last));
  });

  it('malformed text points at the offending character', () => {
    const text = '{\n  "format": "arrayfuse-graph",\n  "version": 1 2\n}';
    try {
      parseGraphJson(text, {}, 'input.json');
      expect.unreachable();
    } catch (e) {
      const d = (e as UserError).diagnostics[0]!;
      expect(d.code).toBe('E610');
      expect(d.file?.name).toBe('input.json');
      expect(d.file?.lineCol(d.span!.start)).toEqual({ line: 3, col: 16 });
    }
  });

  it(`blocks nested ${maxGraphBlockDepth} deep plan under every strategy and render`, async () => {
    const graphs = parseGraphJson(nestedIfs(maxGraphBlockDepth));
    for (const strategy of ['ilp', 'greedy-down', 'greedy-up', 'none'] as const) {
      const p = await planGraph(nestedIfs(maxGraphBlockDepth), { solver, strategy });
      expect(p.stats.objective).toBe(0);
      expect(renderPlanText(graphs, p)).toContain(`then block of c${maxGraphBlockDepth - 1}`);
      expect(JSON.stringify(renderPlanJson(graphs, p))).toContain('"c0"');
      expect(renderPlanDot(graphs, p)).toContain(`c${maxGraphBlockDepth - 1}`);
    }
    expect(JSON.stringify(graphToJson(graphs, 'deep'))).toContain('"c0"');
  });

  it('planGraph rejects the same way (no plan is made from a bad graph)', async () => {
    await expect(planGraph(broken((g) => (g.edges[2].from = 'cs')), { solver })).rejects.toThrow(/E615/);
  });
});
