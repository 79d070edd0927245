// The plan picture: Graphviz DOT of a program's dependence graphs with a plan drawn on them
// (docs/PLAN-FORMAT.md, "The plan picture").
//
// - Every fusion cluster (one loop) is a box around its nodes, numbered as in the text plan.
// - A combinator is a box labelled with its name, kind, node id and output order; a manifest
//   one (written to memory) is bold, a fused-away one plain. An array read from memory before
//   the block (an entry parameter, an outer block's array) is an ellipse.
// - Every read edge goes from the array (its producer, or the ellipse) to its reader and is
//   labelled with the order of the read when the read is a memory stream (from an ellipse or
//   across clusters): `in order`, `reversed`, `by ℓk (gather 'g')`, `by index`. Fusible edges are
//   solid; infusible ones double dashed, labelled with why.
// - An `if` or `while` is a box of its own holding one box per block (then/else, cond/body),
//   each drawn the same way, nested as the blocks nest. Edges to and from it meet its box.
// - A cluster of more than `collapseAbove` nodes is drawn as one summary node (its count of
//   fused-away nodes by kind) plus its written nodes: MG's stencils fuse 20–60 nodes per loop.
// - A legend box says all of this in the picture.
//
// Node sizes are left to Graphviz, with a monospace font (Courier) whose widths it knows, so
// text fits its boxes in any viewer whose monospace font has Courier's metrics (all common ones).
// Every name is written as an escaped DOT string: names come from user programs and JSON graphs.

import type { BlockGraphs } from '../graph/program.js';
import type { GraphEdge, GraphNode, InfusibleReason } from '../graph/types.js';
import type { NodeId } from '../ir/types.js';
import type { BlockPlan, Cluster } from '../plan/types.js';
import { orderOf, orderPhrase, orderPhrases, readOrder, type ReadOrder } from './orders.js';

export interface PlanDotOptions {
  /** The graph's name (default `plan`). */
  readonly title?: string;
  /** Clusters with more nodes than this are drawn as a summary node and their written nodes (default 16). */
  readonly collapseAbove?: number;
  /** Draw the legend box (default true). */
  readonly legend?: boolean;
}

export const defaultCollapseAbove = 16;

/**
 * A DOT double-quoted string: backslashes, quotes and line breaks escaped, so that no name can
 * end the string or inject Graphviz's escapes (`\N`, `\l`); and `&` written `&amp;`, because
 * Graphviz decodes entities in every label (a name `&lt;` would otherwise be drawn as `<`).
 */
export function dotString(s: string): string {
  return `"${s.replace(/&/g, '&amp;').replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r\n|\r|\n/g, '\\n')}"`;
}

/** A label of several lines: each line escaped, joined by DOT's centred line break. */
function dotLines(lines: readonly string[]): string {
  return `"${lines.map((l) => dotString(l).slice(1, -1)).join('\\n')}"`;
}

const fontname = 'Courier';
const infusibleStyle = 'style=dashed, color="black:invis:black"';

const reasonWords: Readonly<Record<InfusibleReason, string>> = {
  indexed: 'indexed',
  'force-input': 'force input',
  'force-output': 'force result',
  'scatter-dest': 'scatter destination',
  'scatter-output': 'scatter result',
  'control-flow': 'control flow',
  shape: 'needs its size',
};

/** The block names of a control-flow node's blocks, as the text plan says them. */
function blockNames(kind: GraphNode['kind']): readonly string[] {
  return kind === 'if' ? ['then', 'else'] : ['cond', 'body'];
}

function isControl(n: GraphNode): boolean {
  return n.kind === 'if' || n.kind === 'while';
}

/** DOT lines and the edges to write after every node exists (Graphviz places an edge's node where it first appears). */
interface Canvas {
  readonly lines: string[];
  readonly edges: string[];
  readonly collapseAbove: number;
}

/** Where one block is drawn: ids are prefixed with the block's path so that nested blocks never collide. */
interface BlockScope {
  readonly bg: BlockGraphs;
  readonly plan: BlockPlan | undefined;
  readonly path: string;
}

function nodeId(scope: BlockScope, id: NodeId): string {
  return dotString(`${scope.path}/n${id}`);
}

function sourceId(scope: BlockScope, group: number): string {
  return dotString(`${scope.path}/a${group}`);
}

function summaryId(scope: BlockScope, cluster: number): string {
  return dotString(`${scope.path}/c${cluster}`);
}

function controlClusterId(scope: BlockScope, id: NodeId): string {
  return dotString(`cluster_${scope.path}/n${id}`);
}

/** The clusters to draw: the plan's, or without a plan one pseudo-cluster per node, unboxed. */
function clustersOf(scope: BlockScope): readonly Cluster[] {
  return scope.plan?.clusters ?? scope.bg.graph.nodes.map((n) => ({ nodes: [n.id], manifest: [] }));
}

function nodeLabel(scope: BlockScope, n: GraphNode, written: boolean): string {
  const { graph } = scope.bg;
  const o = scope.plan?.orders[n.id];
  const lines = [n.name, `${n.kind} #${n.id}`];
  const order = o === undefined ? [] : [orderPhrase(graph, orderOf(o))];
  const fate = scope.plan?.elided?.includes(n.id) === true ? ['elided copy'] : scope.plan !== undefined && !written ? ['fused away'] : [];
  const last = [...order, ...fate].join(', ');
  return dotLines(last === '' ? lines : [...lines, last]);
}

/** `27 nodes fused away` and their kinds, most frequent first, three to a line. */
function summaryLabel(hidden: readonly GraphNode[]): string {
  const counts = new Map<string, number>();
  for (const n of hidden) counts.set(n.kind, (counts.get(n.kind) ?? 0) + 1);
  const kinds = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([k, c]) => `${c} ${k}`);
  const rows: string[] = [];
  for (let k = 0; k < kinds.length; k += 3) rows.push(kinds.slice(k, k + 3).join(', '));
  return dotLines([`${hidden.length} nodes fused away`, ...rows]);
}

/**
 * The DOT nodes a graph node is drawn as. Edges into it end at `head`, edges out of it start
 * at `tail`; for an `if`/`while` these are its entry and exit inside its box (`box`), so that
 * its inputs come in at the top and its results leave at the bottom.
 */
interface Drawn {
  readonly head: string;
  readonly tail: string;
  readonly box?: string;
}

/**
 * Draws one block: its clusters (nested blocks inside control-flow nodes' boxes), its sources
 * and its edges. Returns the DOT nodes drawn directly in it, which an enclosing `if`/`while`
 * keeps between its entry and its exit.
 */
function drawBlock(scope: BlockScope, canvas: Canvas, indent: string): string[] {
  const { graph } = scope.bg;
  const { lines } = canvas;
  const drawn = new Map<NodeId, Drawn>();
  const clusterOf = new Map<NodeId, number>();
  const manifest = new Set(scope.plan?.clusters.flatMap((c) => c.manifest) ?? []);
  const nodeOf = (id: NodeId): GraphNode => graph.nodes.find((n) => n.id === id)!;
  const written = (n: GraphNode): boolean => n.outs.some((o) => manifest.has(o));
  const ids: string[] = [];

  clustersOf(scope).forEach((cluster, i) => {
    cluster.nodes.forEach((id) => clusterOf.set(id, i));
    const members = cluster.nodes.map(nodeOf);
    // A control-flow node is a cluster of its own: its box is the cluster's box.
    const controlOnly = members.length === 1 && isControl(members[0]!);
    const boxed = scope.plan !== undefined && !controlOnly;
    const inner = boxed ? `${indent}  ` : indent;
    if (boxed) {
      lines.push(`${indent}subgraph ${dotString(`cluster_${scope.path}/c${i}`)} {`);
      lines.push(`${inner}label=${dotString(`cluster ${i + 1}: one loop`)}; style=rounded; color=gray40;`);
    }
    const hidden = members.length > canvas.collapseAbove ? members.filter((n) => !isControl(n) && !written(n)) : [];
    if (hidden.length > 0) {
      lines.push(`${inner}${summaryId(scope, i)} [label=${summaryLabel(hidden)}, style="rounded,filled", fillcolor=gray95];`);
      ids.push(summaryId(scope, i));
      for (const n of hidden) drawn.set(n.id, { head: summaryId(scope, i), tail: summaryId(scope, i) });
    }
    for (const n of members) {
      if (drawn.has(n.id)) continue;
      if (isControl(n)) {
        const control = drawControl(scope, n, scope.plan === undefined ? null : i, canvas, inner);
        drawn.set(n.id, control);
        ids.push(control.head, control.tail);
      } else {
        drawn.set(n.id, { head: nodeId(scope, n.id), tail: nodeId(scope, n.id) });
        ids.push(nodeId(scope, n.id));
        lines.push(`${inner}${nodeId(scope, n.id)} [label=${nodeLabel(scope, n, written(n))}${written(n) ? ', style=bold, penwidth=2' : ''}];`);
      }
    }
    if (boxed) lines.push(`${indent}}`);
  });
  if (graph.nodes.length === 0) {
    // Graphviz drops an empty box; a note keeps an empty block (a scalar `cond`) visible.
    lines.push(`${indent}${dotString(`${scope.path}/empty`)} [label="no array work", shape=plaintext];`);
    ids.push(dotString(`${scope.path}/empty`));
  }

  ids.push(...drawSources(scope, canvas, indent, drawn));
  drawEdges(scope, canvas, drawn, clusterOf);
  return ids;
}

/**
 * An `if` / `while`: a bold box holding its entry (a hexagon naming the statement), one dashed
 * box per block and its exit (an ellipse naming its results, arrays later readers read from
 * memory). Invisible edges keep every block between the entry and the exit.
 */
function drawControl(scope: BlockScope, n: GraphNode, cluster: number | null, canvas: Canvas, indent: string): Drawn {
  const { lines } = canvas;
  const inner = `${indent}  `;
  const box = controlClusterId(scope, n.id);
  const entry = nodeId(scope, n.id);
  const exit = dotString(`${scope.path}/n${n.id}/results`);
  lines.push(`${indent}subgraph ${box} {`);
  lines.push(`${inner}label=${dotString(cluster === null ? '' : `cluster ${cluster + 1}`)}; style="rounded,bold"; color=black;`);
  lines.push(`${inner}${entry} [label=${dotLines([`${n.kind} ${n.name}`, `#${n.id}`])}, shape=hexagon];`);
  const hasExit = n.outs.length > 0;
  if (hasExit) lines.push(`${inner}${exit} [label=${dotLines(['results', n.outs.join(', ')])}, shape=ellipse, style=bold];`);
  const children = scope.bg.children[n.id] ?? [];
  const names = blockNames(n.kind);
  children.forEach((child, k) => {
    const path = `${scope.path}.${n.id}.${k}`;
    lines.push(`${inner}subgraph ${dotString(`cluster_${path}`)} {`);
    lines.push(`${inner}  label=${dotString(`${names[k] ?? `block ${k + 1}`} block of ${n.name}`)}; style=dashed; color=gray40;`);
    const inside = drawBlock({ bg: child, plan: scope.plan?.children[n.id]?.[k], path }, canvas, `${inner}  `);
    lines.push(`${inner}}`);
    for (const id of inside) {
      canvas.edges.push(`${entry} -> ${id} [style=invis, weight=0];`);
      if (hasExit) canvas.edges.push(`${id} -> ${exit} [style=invis, weight=0];`);
    }
  });
  lines.push(`${indent}}`);
  return { head: entry, tail: hasExit ? exit : entry, box };
}

/** The arrays a block reads from memory before it starts: one ellipse per group, inside the block's box. Returns their ids. */
function drawSources(scope: BlockScope, canvas: Canvas, indent: string, drawn: ReadonlyMap<NodeId, Drawn>): string[] {
  const { graph } = scope.bg;
  const readers = new Map<number, Map<NodeId, ReadOrder[]>>();
  for (const r of graph.reads) {
    const group = graph.groups[r.group]!;
    if (group.producer !== null || group.definedBy !== null) continue; // drawn as graph edges
    const byReader = readers.get(r.group) ?? new Map<NodeId, ReadOrder[]>();
    readers.set(r.group, byReader);
    byReader.set(r.consumer, [...(byReader.get(r.consumer) ?? []), readOrder(scope.plan, r)]);
  }
  const ids: string[] = [];
  for (const [g, byReader] of readers) {
    const group = graph.groups[g]!;
    ids.push(sourceId(scope, g));
    canvas.lines.push(`${indent}${sourceId(scope, g)} [label=${dotString(group.names.join(', '))}, shape=ellipse];`);
    // Readers drawn as one node (a collapsed cluster) share one edge.
    const byHead = new Map<string, { readonly to: Drawn; readonly orders: ReadOrder[] }>();
    for (const [consumer, orders] of byReader) {
      const to = drawn.get(consumer)!;
      const entry = byHead.get(to.head) ?? { to, orders: [] };
      entry.orders.push(...orders);
      byHead.set(to.head, entry);
    }
    for (const { to, orders } of byHead.values()) {
      canvas.edges.push(`${sourceId(scope, g)} -> ${to.head}${attributes([`label=${dotLines(orderPhrases(graph, orders))}`, ...(to.box === undefined ? [] : [`lhead=${to.box}`])])};`);
    }
  }
  return ids;
}

function attributes(list: readonly string[]): string {
  return list.length === 0 ? '' : ` [${list.join(', ')}]`;
}

/** One drawn edge: every graph edge between the same two drawn nodes, merged. */
interface DrawnEdge {
  readonly from: Drawn;
  readonly to: Drawn;
  readonly edges: GraphEdge[];
}

/**
 * The edges between nodes of the block, merged per pair of drawn nodes (a collapsed cluster
 * stands for many). Reads inside one cluster come from registers and carry no order label;
 * reads across clusters are memory streams and are labelled with their orders.
 */
function drawEdges(scope: BlockScope, canvas: Canvas, drawn: ReadonlyMap<NodeId, Drawn>, clusterOf: ReadonlyMap<NodeId, number>): void {
  const { graph } = scope.bg;
  const merged = new Map<string, DrawnEdge>();
  for (const e of graph.edges) {
    const from = drawn.get(e.from)!;
    const to = drawn.get(e.to)!;
    if (from.tail === to.head) continue; // inside one summary node
    const key = `${from.tail} -> ${to.head}`;
    const entry = merged.get(key) ?? { from, to, edges: [] };
    entry.edges.push(e);
    merged.set(key, entry);
  }
  for (const { from, to, edges } of merged.values()) {
    const fusible = edges.every((e) => e.fusible);
    const sameCluster = scope.plan !== undefined && edges.every((e) => clusterOf.get(e.from) === clusterOf.get(e.to));
    const label: string[] = [];
    if (!sameCluster) {
      // From a summary node the arrays are not drawn: name them before their orders.
      const named = from.box === undefined && edges.some((e) => nodeId(scope, e.from) !== from.tail);
      const byArray = new Map<string, ReadOrder[]>();
      for (const e of edges)
        for (const r of e.reads) {
          const name = graph.groups[r.group]!.name;
          byArray.set(name, [...(byArray.get(name) ?? []), readOrder(scope.plan, r)]);
        }
      for (const [name, orders] of byArray) {
        const phrases = orderPhrases(graph, orders).join(', ');
        label.push(named ? `${name}: ${phrases}` : phrases);
      }
    }
    const reasons = [...new Set(edges.flatMap((e) => e.reasons))].map((r) => reasonWords[r]);
    if (!fusible) label.push(`(${reasons.join(', ') || 'ordering'})`);
    const attrs = [
      ...(fusible ? [] : [infusibleStyle]),
      ...(label.length > 0 ? [`label=${dotLines(label)}`] : []),
      ...(from.box === undefined ? [] : [`ltail=${from.box}`]),
      ...(to.box === undefined ? [] : [`lhead=${to.box}`]),
    ];
    canvas.edges.push(`${from.tail} -> ${to.head}${attributes(attrs)};`);
  }
}

/**
 * The legend box, one row: an array from memory read into a fused-away node, fused into a
 * written one, read by a later loop over an infusible edge; below it what the edge labels say.
 */
function legend(): string[] {
  const id = (s: string): string => dotString(`legend/${s}`);
  const orders = [
    'edge labels: how a read traverses its array: in order (0), reversed (1),',
    "by ℓk (gather 'g') = in the order gather g reads its source, by index = random access.",
    'A rounded box is one loop (a fusion cluster); a bold box is an if/while with its blocks.',
  ];
  return [
    `  subgraph "cluster_legend" {`,
    `    label="legend"; style=rounded; color=gray40; fontsize=10;`,
    `    node [fontsize=9]; edge [fontsize=9];`,
    `    { rank=same; ${id('array')}; ${id('fused')}; ${id('written')}; ${id('later')}; }`,
    `    ${id('array')} [label=${dotLines(['array from', 'memory'])}, shape=ellipse];`,
    `    ${id('fused')} [label=${dotLines(['fused away', '(no memory)'])}];`,
    `    ${id('written')} [label=${dotLines(['written to', 'memory'])}, style=bold, penwidth=2];`,
    `    ${id('later')} [label=${dotLines(['later', 'loop'])}];`,
    `    ${id('orders')} [shape=plaintext, label=${dotLines(orders)}];`,
    `    ${id('array')} -> ${id('fused')} [label="read"];`,
    `    ${id('fused')} -> ${id('written')} [label="fusible"];`,
    `    ${id('written')} -> ${id('later')} [${infusibleStyle}, label="infusible"];`,
    `    ${id('fused')} -> ${id('orders')} [style=invis];`,
    `  }`,
  ];
}

/**
 * The DOT of a program's graphs with a plan: the root block and every nested block, a legend.
 * Without a plan the graph alone is drawn (no cluster boxes, no orders).
 */
export function planToDot(graphs: BlockGraphs, plan: BlockPlan | undefined, options: PlanDotOptions = {}): string {
  const canvas: Canvas = { lines: [], edges: [], collapseAbove: options.collapseAbove ?? defaultCollapseAbove };
  drawBlock({ bg: graphs, plan, path: 'b' }, canvas, '  ');
  return [
    `digraph ${dotString(options.title ?? 'plan')} {`,
    '  rankdir=TB; compound=true; newrank=true; nodesep=0.3; ranksep=0.45;',
    `  graph [fontname=${fontname}, fontsize=12];`,
    `  node [shape=box, fontname=${fontname}, fontsize=11, margin="0.12,0.06"];`,
    `  edge [fontname=${fontname}, fontsize=10];`,
    ...(options.legend === false ? [] : legend()),
    ...canvas.lines,
    ...canvas.edges.map((e) => `  ${e}`),
    '}',
    '',
  ].join('\n');
}
