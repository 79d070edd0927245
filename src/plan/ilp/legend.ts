// What each column of a block's fusion ILP stands for, in words that name the program's arrays
// and combinators, so that an exported LP/MPS file (lpfile.ts) can be read without the model's
// source: `x_0_2` is a number pair, "1 = the edge "as" → "bs" is not fused" is an answer.
// Every column of the model has a line; a column left out is a bug here, not a gap to fill
// with a placeholder, so `columnLegend` throws on one.

import { CompilerBug } from '../../diagnostics/index.js';
import type { DependenceGraph, GraphNode } from '../../graph/types.js';
import type { IlpModel } from './model.js';

/** Longest name shown whole, in characters: a comment line has room for a few (lpfile.ts). */
const MAX_NAME_CHARS = 60;

/**
 * A name as a JSON string: quoted, with quotes, backslashes and control characters escaped;
 * past MAX_NAME_CHARS characters it is cut and ends in `…`.
 */
function quoted(name: string): string {
  const chars = [...name];
  return JSON.stringify(chars.length <= MAX_NAME_CHARS ? name : `${chars.slice(0, MAX_NAME_CHARS - 1).join('')}…`);
}

/** `"bs" (map, node 3)`: a node by name, kind and id (the id is what row and column names use). */
export function nodeText(node: GraphNode): string {
  return `${quoted(node.name)} (${node.kind}, node ${node.id})`;
}

/**
 * One line per column of `model` (built from `graph` by buildModel), by column index: what the
 * variable means in terms of the graph's nodes, edges and arrays.
 */
export function columnLegend(graph: DependenceGraph, model: IlpModel): string[] {
  const { layout } = model;
  const lines = new Array<string | undefined>(model.columns.length).fill(undefined);
  const put = (col: number, text: string): void => {
    if (col >= 0) lines[col] = text;
  };
  const node = (index: number): GraphNode => graph.nodes[index]!;
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const gatherOfLabel = new Map(graph.nodes.filter((n) => n.label !== null).map((n) => [n.label!, n]));

  layout.pi.forEach((col, i) => put(col, `cluster number π of ${nodeText(node(i))}`));
  layout.order.forEach((col, i) => put(col, `output order of ${nodeText(node(i))}: 0 forward, 1 backward, k ≥ 2 the label of a gather`));
  layout.manifest.forEach((col, i) => put(col, `1 = ${nodeText(node(i))} is manifest (written to memory)`));
  layout.fused.forEach((col, k) => {
    const e = graph.edges[k]!;
    const arrays = [...new Set(e.reads.flatMap((r) => r.arrays))].map(quoted).join(', ');
    const why = e.fusible ? '' : `; infusible: ${e.reasons.join(', ')}`;
    put(col, `1 = the edge ${nodeText(byId.get(e.from)!)} → ${nodeText(byId.get(e.to)!)} is not fused (it carries ${arrays || 'no array'}${why})`);
  });
  put(layout.piMax, 'π_max, the largest cluster number (the `clusters` term counts π_max + 1)');
  for (const e of layout.elide) {
    const copy = node(e.copy);
    const sources = graph.elidableCopies?.find((c) => c.copy === copy.id)?.sources.map(quoted).join(', ') ?? '?';
    put(e.col, `1 = the copy ${nodeText(copy)} is elided: its scatter updates ${sources} in place`);
  }
  for (const r of layout.recompute) {
    const gather = gatherOfLabel.get(r.label);
    const gatherText = gather === undefined ? `label ${r.label}` : nodeText(gather);
    put(r.col, `1 = ${nodeText(node(r.node))} carries the order label of the gather ${gatherText} (the \`recompute\` term)`);
  }
  for (const stream of layout.streams) {
    const array = quoted(graph.groups[stream.group]!.name);
    const read = (position: number): string => `${nodeText(node(stream.reads[position]!.c))}'s read of ${array}`;
    for (const pair of stream.pairs) put(pair.s, `1 = ${read(pair.q)} shares the memory stream that ${read(pair.r)} opens`);
    stream.opens.forEach((col, q) => put(col, `1 = ${read(q)} opens a memory read stream (the \`reads\` term)`));
  }

  return lines.map((line, col) => {
    if (line === undefined) throw new CompilerBug('plan/ilp', `the ILP column ${model.columns[col]!.name} has no legend`);
    return line;
  });
}

/** The order labels of a block's gathers (the values k ≥ 2 of the order columns d). */
export function labelLegend(graph: DependenceGraph): string[] {
  return graph.nodes.filter((n) => n.label !== null).map((n) => `order label ${n.label} = the gather ${nodeText(n)}`);
}

/**
 * The row families of model.ts, by name prefix; the numbers after a prefix are node ids
 * (for `s`/`y`-based rows: the array group and read positions; for `cyc`: column numbers).
 */
export const rowLegend: readonly string[] = [
  'whole_n: a manifest node is written whole (order 0 or 1)',
  'sep_p_c, join_p_c: edge p → c is fused exactly when π_p = π_c',
  'man_p_c: an unfused edge needs its producer manifest',
  'ord_p_c_rule_le/_ge: a fused edge carries its read order',
  'scat_b_s: node b runs in a cluster before the scatter s',
  'max_n: π_max bounds the sink n',
  'elcopy_c, elman_c, elread_r_c, elone_a_b: when copy c may be elided',
  'rcarry_p_c_g: a fused chain into gather g carries its label',
  'open_g_q, joinopen_g_r_q, spi_*, sord_*: the memory streams of array group g',
  'tri_*, cyc_*, clash_*: valid cuts (they remove no integer solution)',
];
