// The plan picture (DOT and SVG) and the text plan's gather labels (docs/PLAN-FORMAT.md, "The
// text plan" and "The plan picture"): golden DOT for the paper's examples, FlashAttention and a
// program with an `if` and a `while`; read orders on edges checked against the text plan;
// nesting of blocks; MG drawn with collapsed clusters; hostile names escaped.
// Refresh the golden files with `UPDATE_GOLDEN=1 npx vitest run test/report/picture.test.ts`.

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SourceFile } from '../../src/diagnostics/index.js';
import { planGraphJson } from '../../src/driver/index.js';
import { programGraphs, type BlockGraphs } from '../../src/graph/program.js';
import type { GraphJson } from '../../src/graph/jsonFormat.js';
import type { Program } from '../../src/ir/types.js';
import { lowerModule } from '../../src/lower/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { plan } from '../../src/plan/index.js';
import type { Plan } from '../../src/plan/types.js';
import { dotString } from '../../src/report/dot.js';
import { renderPlanDot, renderPlanSvg, renderPlanText } from '../../src/report/render.js';
import { parseModule } from '../../src/syntax/index.js';

const solver = createSolverLoader();
const update = process.env['UPDATE_GOLDEN'] === '1';

const sources: Readonly<Record<string, string>> = {
  singleLoop: '../../examples/singleLoop.fuse',
  simple1: '../../examples/simple1.fuse',
  simple5: '../../examples/simple5.fuse',
  greedyBottomUpBad: '../../examples/greedyBottomUpBad.fuse',
  flashAttention: '../../bench/programs/flashAttention.fuse',
  ifWhile: './ifWhile.fuse',
};

function lower(name: string): Program {
  const file = new SourceFile(`${name}.fuse`, readFileSync(new URL(sources[name]!, import.meta.url), 'utf8'));
  return lowerModule(parseModule(file), file);
}

/** Planned as `arrayfuse plan` plans a file: no signature, the default cost. */
async function planned(name: string): Promise<{ graphs: BlockGraphs; plan: Plan }> {
  const program = lower(name);
  return { graphs: programGraphs(program), plan: await plan(program, { solver }) };
}

/** The DOT statements of the edges leaving `tail` (a quoted DOT id). */
function edgesFrom(dot: string, tail: string): string[] {
  return dot.split('\n').map((l) => l.trim()).filter((l) => l.startsWith(`${tail} -> `));
}

/** The DOT id of the ellipse drawn for the source array `name` in the root block. */
function sourceNode(dot: string, name: string): string {
  const line = dot.split('\n').find((l) => l.includes(`[label=${dotString(name)}, shape=ellipse]`) && l.includes('"b/a'));
  if (line === undefined) throw new Error(`no source ${name}`);
  return line.trim().split(' [')[0]!;
}

describe('golden plan pictures (DOT)', () => {
  it.each(Object.keys(sources))('%s', async (name) => {
    const { graphs, plan: p } = await planned(name);
    const dot = renderPlanDot(graphs, p, { title: name });
    const path = fileURLToPath(new URL(`./golden/${name}.dot`, import.meta.url));
    if (update) writeFileSync(path, dot);
    expect(dot).toBe(readFileSync(path, 'utf8'));
  });
});

describe('orders on read edges', () => {
  it('singleLoop: `as` is read twice, in order by cs and in the order of gather bs', async () => {
    const { graphs, plan: p } = await planned('singleLoop');
    const dot = renderPlanDot(graphs, p);
    const labels = edgesFrom(dot, sourceNode(dot, 'as')).map((e) => /label="([^"]*)"/.exec(e)?.[1]);
    expect(labels.sort()).toEqual(["by ℓ2 (gather 'bs')", 'in order']);
    // The manifest result is bold, the fused-away nodes are not.
    expect(dot).toMatch(/\[label="result\\nmap #\d+\\nin order", style=bold, penwidth=2\]/);
    expect(dot).toMatch(/\[label="cs\\nmap #\d+\\nin order, fused away"\]/);
  });

  // Differential: the orders the text plan lists for the root's memory reads of each source
  // are the orders on that source's edges in the picture.
  it.each(['singleLoop', 'simple1', 'simple5', 'greedyBottomUpBad'])('%s: the picture and the text plan agree on how each input is read', async (name) => {
    const { graphs, plan: p } = await planned(name);
    const dot = renderPlanDot(graphs, p);
    const text = renderPlanText(graphs, p);
    const fromText = new Map<string, Set<string>>();
    for (const line of text.split('\n').filter((l) => l.startsWith('    reads    ') && !l.includes('    reads    -'))) {
      for (const stream of line.slice('    reads    '.length).split(', ')) {
        const [array, order] = stream.split(':') as [string, string];
        if (graphs.graph.groups.find((g) => g.name === array)?.producer !== null) continue; // only sources
        const set = fromText.get(array) ?? new Set<string>();
        set.add(order === '0' ? 'in order' : order === '1' ? 'reversed' : order === 'by index' ? 'by index' : order);
        fromText.set(array, set);
      }
    }
    expect(fromText.size).toBeGreaterThan(0);
    for (const [array, orders] of fromText) {
      const onEdges = new Set(
        edgesFrom(dot, sourceNode(dot, array))
          .flatMap((e) => (/label="([^"]*)"/.exec(e)?.[1] ?? '').split(/\\n|, /))
          .map((phrase) => phrase.replace(/^by (ℓ\d+) \(gather '.*'\)$/, '$1')),
      );
      expect(onEdges, array).toEqual(orders);
    }
  });
});

describe('the text plan names the gather of every label', () => {
  it('simple1: as is computed in the order of gather bs', async () => {
    const { graphs, plan: p } = await planned('simple1');
    const text = renderPlanText(graphs, p);
    const id = graphs.graph.nodes.find((n) => n.name === 'bs')!.id;
    expect(text).toContain('computes as:ℓ2 (fused away), bs:0');
    expect(text).toContain(`    labels   ℓ2 = gather 'bs' (#${id})\n`);
  });

  it('every ℓk a cluster mentions is keyed on its labels line, in every block (FlashAttention)', async () => {
    const { graphs, plan: p } = await planned('flashAttention');
    const text = renderPlanText(graphs, p);
    const clusters = text.split(/\n(?= +cluster \d+\n)/).slice(1);
    expect(clusters.length).toBeGreaterThan(6);
    for (const c of clusters) {
      const own = c.split(/\n +(?:then|else|cond|body) block of /)[0]!;
      const used = new Set(own.split('\n').filter((l) => !l.includes('labels   ')).flatMap((l) => l.match(/ℓ\d+/g) ?? []));
      const keyed = new Set((own.split('\n').find((l) => l.includes('labels   ')) ?? '').match(/ℓ\d+(?= = gather ')/g) ?? []);
      expect(keyed, own).toEqual(used);
    }
  });
});

describe('if and while are nested boxes with their blocks inside', () => {
  it('ifWhile: then/else inside the if box, cond/body inside the while box, each block its own clusters', async () => {
    const { graphs, plan: p } = await planned('ifWhile');
    const dot = renderPlanDot(graphs, p);
    // Walk the subgraph nesting by braces.
    const stack: string[] = [];
    const parentOf = new Map<string, string | undefined>();
    for (const line of dot.split('\n').map((l) => l.trim())) {
      const open = /^subgraph "([^"]+)" \{$/.exec(line);
      if (open !== null) {
        parentOf.set(open[1]!, stack.at(-1));
        stack.push(open[1]!);
      } else if (line === '}' && stack.length > 0) stack.pop();
    }
    const labelOf = (cluster: string): string => new RegExp(`subgraph "${cluster.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}" \\{\\n\\s*label="([^"]*)"`).exec(dot)![1]!;
    const blocks = [...parentOf.keys()].filter((c) => / block of /.test(labelOf(c)));
    expect(blocks.map(labelOf).map((l) => l.split(' ')[0]).sort()).toEqual(['body', 'cond', 'else', 'then']);
    for (const b of blocks) {
      const box = parentOf.get(b)!;
      expect(box).toMatch(/^cluster_b\/n\d+$/); // the if / while box, at the root
      expect(parentOf.get(box)).toBeUndefined();
    }
    // The then block's gather is drawn inside the then block's own fusion cluster.
    const then = blocks.find((b) => labelOf(b).startsWith('then'))!;
    expect([...parentOf].some(([c, parent]) => parent === then && labelOf(c) === 'cluster 1: one loop')).toBe(true);
    // Edges into and out of a control-flow node end on its box; the scalar cond block says it is empty.
    expect(dot).toMatch(/lhead="cluster_b\/n\d+"/);
    expect(dot).toMatch(/ltail="cluster_b\/n\d+"/);
    expect(dot).toContain('[label="no array work", shape=plaintext]');
  });

  it('the legend explains bold, fused away, sources and the two kinds of edges', async () => {
    const { graphs, plan: p } = await planned('ifWhile');
    const dot = renderPlanDot(graphs, p);
    expect(dot).toContain('subgraph "cluster_legend"');
    expect(dot).toMatch(/"legend\/written" -> "legend\/later" \[style=dashed, color="black:invis:black", label="infusible"\]/);
    expect(renderPlanDot(graphs, p, { legend: false })).not.toContain('legend');
  });
});

describe('big plans stay readable', () => {
  it('MG: each stencil loop is one summary node plus what it writes, inside the while body', async () => {
    const file = new SourceFile('mg.fuse', readFileSync(new URL('../../bench/programs/mg.fuse', import.meta.url), 'utf8'));
    const program = lowerModule(parseModule(file), file, { signature: { v: { kind: 'array', elem: 'f64', shape: [32, 32, 32] }, nit: { kind: 'scalar', elem: 'i32' } } });
    const graphs = programGraphs(program);
    const p = await plan(program, { solver });
    const dot = renderPlanDot(graphs, p);
    const nodes = dot.split('\n').filter((l) => /^\s*"[^"]+" \[label=/.test(l));
    const combinators = JSON.stringify(graphs).match(/"kind":/g)?.length ?? 0;
    expect(combinators).toBeGreaterThan(700);
    expect(nodes.length).toBeLessThan(120);
    expect(dot).toMatch(/\d+ nodes fused away\\n\d+ map, \d+ gather/);
    // A stencil's 27 reads of its grid, one edge labelled with the range of gather orders.
    expect(dot).toMatch(/label="by ℓ\d+…ℓ\d+ \(27 gathers\)"/);
    expect(renderPlanDot(graphs, p, { collapseAbove: 1_000_000 }).split('\n').length).toBeGreaterThan(1000);
  }, 120_000);
});

describe('edge cases', () => {
  it('an empty program draws its empty root block and renders', async () => {
    const file = new SourceFile('empty.fuse', 'def f(xs):\n  return xs\n');
    const program = lowerModule(parseModule(file), file);
    const p = await plan(program, { solver });
    const dot = renderPlanDot(programGraphs(program), p);
    expect(dot).toContain('"b/empty" [label="no array work", shape=plaintext];');
    expect(await renderPlanSvg(programGraphs(program), p)).toContain('no array work');
  });

  it('without a plan: no cluster boxes, no orders; reads say they follow their reader', async () => {
    const program = lower('simple1');
    const dot = renderPlanDot(programGraphs(program), undefined, { legend: false });
    expect(dot).not.toContain('subgraph');
    expect(dot).toContain(`label="in its reader's order"`);
    expect(dot).not.toContain('fused away');
  });
});

describe('hostile names are escaped', () => {
  const names = ['a"b', 'back\\slash\\n', '<script>&amp;', 'line\nbreak', '__proto__', 'ℓ2', 'x\\"];y'];
  const graph: GraphJson = {
    format: 'arrayfuse-graph',
    version: 1,
    name: 'hostile"name\\',
    inputs: [{ name: names[0]! }, { name: names[1]! }],
    nodes: [
      { name: names[2]!, kind: 'map' },
      { name: names[3]!, kind: 'gather' },
      { name: names[4]!, kind: 'map' },
      { name: names[5]!, kind: 'map' },
      { name: names[6]!, kind: 'map' },
    ],
    edges: [
      { from: names[0]!, to: names[2]!, role: 'map-input' },
      { from: names[1]!, to: names[3]!, role: 'gather-indices' },
      { from: names[2]!, to: names[3]!, role: 'gather-source' },
      { from: names[3]!, to: names[4]!, role: 'map-input' },
      { from: names[4]!, to: names[5]!, role: 'indexed' },
      { from: names[5]!, to: names[6]!, role: 'map-input' },
    ],
    results: [names[6]!],
  };

  it('DOT: every name appears only as an escaped string', async () => {
    const { graphs, plan: p } = await planGraphJson(graph, { solver });
    const dot = renderPlanDot(graphs, p, { title: graph.name });
    expect(dot.startsWith('digraph "hostile\\"name\\\\" {\n')).toBe(true);
    for (const name of names) expect(dot).toContain(dotString(name).slice(1, -1));
    // No raw quote, backslash sequence or line break of a name escapes its string: every line is
    // a statement, and after removing escaped characters the quotes pair up on every line.
    for (const line of dot.split('\n')) {
      const bare = line.replace(/\\./g, '');
      expect((bare.match(/"/g) ?? []).length % 2, line).toBe(0);
    }
    expect(dot).not.toContain('line\nbreak');
    expect(text(p, graphs)).toContain("gather 'line\\u{a}break'"); // the text plan shows a line break in a name escaped
  });

  it('SVG: Graphviz renders it, and the names come out as XML text', async () => {
    const { graphs, plan: p } = await planGraphJson(graph, { solver });
    const svg = await renderPlanSvg(graphs, p);
    expect(svg).toContain('<svg');
    expect(svg).toContain('&lt;script&gt;&amp;amp;');
    expect(svg).not.toContain('<script');
    expect(svg).toContain('a&quot;b');
    expect(svg).toContain('back\\slash\\n');
  });
});

function text(p: Plan, graphs: BlockGraphs): string {
  return renderPlanText(graphs, p);
}
