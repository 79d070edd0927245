// The graph as a stage (docs/DESIGN.md "The pipeline"): its two entries — built from the core IR
// (programGraphs) and read from JSON (parseGraphJson) — meet in src/graph and give the same
// IR-free value, so plan(program) and planGraph(graphToJson(graphs)) are one path and give the
// same plan; the driver returns the graphs with every plan.

import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SourceFile } from '../../src/diagnostics/index.js';
import { Compiler, entrySizes, planGraph, planGraphJson, planProgram, valueSignature } from '../../src/driver/index.js';
import { parseGraphJson } from '../../src/graph/fromJson.js';
import { programGraphs, type BlockGraphs } from '../../src/graph/program.js';
import { graphToJson } from '../../src/graph/toJson.js';
import type { Program } from '../../src/ir/types.js';
import { lowerModule } from '../../src/lower/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { plan } from '../../src/plan/index.js';
import type { Plan, Strategy } from '../../src/plan/types.js';
import { parseModule } from '../../src/syntax/index.js';
import { arbitraryCase } from '../util/index.js';

const solver = createSolverLoader();
const examplesDir = new URL('../../examples/', import.meta.url);
const exampleNames = readdirSync(examplesDir).filter((f) => f.endsWith('.fuse')).map((f) => f.slice(0, -5)).sort();
const strategies: readonly Strategy[] = ['ilp', 'greedy-down', 'greedy-up', 'none'];

function exampleSource(name: string): string {
  return readFileSync(new URL(`${name}.fuse`, examplesDir), 'utf8');
}

function lowerExample(name: string): Program {
  const file = new SourceFile(`${name}.fuse`, exampleSource(name));
  return lowerModule(parseModule(file), file);
}

/** A plan without its wall-clock time, the one field two runs may not share. */
function timeless(p: Plan): unknown {
  return { ...p, stats: { ...p.stats, timeMs: 0 } };
}

/** The graphs with spans left out: a graph read from JSON has no source to point at. */
function spanless(bg: BlockGraphs): unknown {
  return {
    graph: { ...bg.graph, nodes: bg.graph.nodes.map(({ span: _span, ...node }) => node) },
    children: Object.fromEntries(Object.entries(bg.children).map(([id, blocks]) => [id, blocks.map(spanless)])),
  };
}

describe('the two entries of the graph stage give the same graphs', () => {
  it.each(exampleNames)('%s: programGraphs and parseGraphJson(graphToJson(…)) are equal, sizes and weights included', (name) => {
    const program = lowerExample(name);
    const graphs = programGraphs(program, { arrays: { xs: 3 } }, { xs: [12] });
    const read = parseGraphJson(JSON.stringify(graphToJson(graphs, name)));
    expect(spanless(read)).toEqual(spanless(graphs));
  });

  it('a node carries facts, never IR: element types and a scatter\'s destination', () => {
    const program = lowerExample('scatterExample');
    const { graph } = programGraphs(program);
    for (const n of graph.nodes) expect(Object.keys(n).sort()).toEqual(['dest', 'elems', 'group', 'id', 'index', 'kind', 'label', 'name', 'outs', 'span']);
    const scatter = graph.nodes.find((n) => n.kind === 'scatter');
    expect(scatter?.dest.length).toBeGreaterThan(0);
    expect(graph.nodes.filter((n) => n.kind !== 'scatter').every((n) => n.dest.length === 0)).toBe(true);
  });
});

describe('a scalar output of an `if`/`while` is no array', () => {
  // `it` leaves the first loop as a scalar and enters the second as its initial value. Once
  // build.ts (a dangling `else` where element types are collected) made it an array group of
  // the first loop: its use cost a read stream (reads+writes 7, where the checker said 6), and
  // graphToJson wrote an edge naming it as an array, which the reader refused (E617).
  const source = [
    'def main(xs: f64[n], k: i32):',
    '  ys = xs',
    '  it = 0',
    '  while it < k:',
    '    ys = map(lam y: y + 1.0, ys)',
    '    it = it + 1',
    '  while it < 2 * k:',
    '    ys = map(lam y: y * 2.0, ys)',
    '    it = it + 1',
    '  return ys',
    '',
  ].join('\n');
  const file = new SourceFile('twoLoops.fuse', source);
  const program = lowerModule(parseModule(file), file);

  it('it only orders the loops: no group of it, the edge between them carries only ys, and the JSON reads back', () => {
    const graphs = programGraphs(program);
    const [first, second] = graphs.graph.nodes;
    expect(graphs.graph.groups.flatMap((g) => g.names).filter((n) => n.startsWith('it'))).toEqual([]);
    const between = graphs.graph.edges.filter((e) => e.from === first!.id && e.to === second!.id);
    expect(between.flatMap((e) => e.reads.flatMap((r) => r.arrays))).toEqual([first!.outs[0]]);
    expect(spanless(parseGraphJson(JSON.stringify(graphToJson(graphs))))).toEqual(spanless(graphs));
  });

  it('it costs no read: reads+writes is 6 for every strategy', async () => {
    // Top level: the first loop reads xs, the second the first's ys (2); each loop body's map
    // reads its ys and writes its result (2 × 2). The loops' outputs are written by no cluster.
    for (const strategy of strategies) {
      expect((await plan(program, { solver, strategy, cost: 'reads+writes' })).stats.objective, strategy).toBe(6);
    }
  });
});

describe('plan(program) and planGraph(graphToJson(graphs of program)) give identical plans', () => {
  it.each(exampleNames)('%s, every strategy', async (name) => {
    const program = lowerExample(name);
    const json = graphToJson(programGraphs(program));
    for (const strategy of strategies) {
      const direct = await plan(program, { solver, strategy });
      expect(timeless(await planGraph(json, { solver, strategy })), strategy).toEqual(timeless(direct));
    }
  });

  it('random programs with control flow (60 cases)', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryCase({ combinators: { min: 1, max: 10 } }), async ({ program }) => {
        const json = graphToJson(programGraphs(program));
        for (const strategy of ['ilp', 'greedy-down'] as const) {
          const direct = await plan(program, { solver, strategy, cost: 'everything' });
          expect(timeless(await planGraph(json, { solver, strategy, cost: 'everything' }))).toEqual(timeless(direct));
        }
      }),
      { numRuns: 60, seed: 17 },
    );
  });
});

describe('the driver returns the graphs with the plan', () => {
  it('Compiler.planned: the program, the graphs it was planned from (with the entry sizes) and the plan', async () => {
    const compiler = new Compiler(exampleSource('simple1'), { fileName: 'simple1.fuse', solver });
    const signature = Object.fromEntries(
      compiler.parameterNames.map((p) => [p, valueSignature(p === 'is' ? { kind: 'array', elem: 'i32', shape: [4], data: new Int32Array(4) } : { kind: 'array', elem: 'f64', shape: [4], data: new Float64Array(4) })]),
    );
    const planned = await compiler.planned(signature, { cost: 'bytes' });
    expect(planned.program).toBe(compiler.lower(signature));
    expect(planned.graphs).toEqual(programGraphs(planned.program, {}, entrySizes(signature)));
    expect(planned.plan).toBe(await compiler.plan(signature, { cost: 'bytes' }));
    const inputs = { is: { kind: 'array', elem: 'i32', shape: [4], data: new Int32Array([0, 1, 2, 3]) }, xs: { kind: 'array', elem: 'f64', shape: [4], data: new Float64Array(4) } } as const;
    const execution = await compiler.execute(Object.fromEntries(compiler.parameterNames.map((p) => [p, inputs[p as 'is' | 'xs']])));
    expect(execution.graphs).toEqual(programGraphs(execution.program, {}, entrySizes(signature)));
  });

  it('planProgram and planGraphJson: the graphs each plan was made from', async () => {
    const program = lowerExample('simple2');
    const fromProgram = await planProgram(program, { solver });
    expect(fromProgram.graphs).toEqual(programGraphs(program));
    const json = graphToJson(fromProgram.graphs);
    const fromJson = await planGraphJson(JSON.stringify(json), { solver });
    expect(fromJson.json).toEqual(json);
    expect(spanless(fromJson.graphs)).toEqual(spanless(fromProgram.graphs));
    expect(timeless(fromJson.plan)).toEqual(timeless(fromProgram.plan));
  });
});
