// A starting solution for the ILP from a plan found without the solver (greedy.ts): every
// column's value, so that HiGHS begins with that plan as its incumbent and a time limit always
// returns a plan at least as good. The model can express every valid plan (that is what makes it
// exact), and this is the witness: π is the longest-path level of the plan's cluster DAG (a
// dense numbering inside every π bound of structure.ts), x follows the clusters, d and m are the
// plan's, each (π, order) class of memory reads of a group is opened by its first read and
// joined by the others, and each recompute indicator is 1 exactly where the plan's order is
// that gather's label; e is 1 for the copies the plan elides (their readers then level before
// the scatter).

import type { DependenceGraph } from '../../graph/types.js';
import type { Assignment } from '../clusters.js';
import type { Affine, IlpModel } from './model.js';
import { dependenceArcs } from './structure.js';
import { CompilerBug } from '../../diagnostics/index.js';
import type { NodeId } from '../../ir/types.js';
import { elisionArcs } from '../objective.js';

/** Longest-path level of every node in the DAG of the assignment's clusters. */
function clusterLevels(graph: DependenceGraph, cluster: readonly number[], elided: readonly NodeId[]): number[] {
  const idx = new Map(graph.nodes.map((node) => [node.id, node.index]));
  const arcs = dependenceArcs(graph).map((a) => [...a]);
  // An elided copy's readers come before its scatter (model.ts e_c rows).
  for (const [r, s] of elisionArcs(graph, { elided })) arcs[idx.get(r)!]!.push({ to: idx.get(s)!, strict: true });
  const level = new Array<number>(graph.nodes.length).fill(0);
  const byCluster = new Map<number, number[]>();
  cluster.forEach((key, i) => byCluster.set(key, [...(byCluster.get(key) ?? []), i]));
  // Relax to a fixpoint: at most (number of clusters) rounds on a DAG of clusters.
  for (let round = 0; round <= byCluster.size; round++) {
    let changed = false;
    for (let i = 0; i < arcs.length; i++) {
      for (const a of arcs[i]!) {
        const need = level[i]! + (cluster[i] === cluster[a.to] ? 0 : 1);
        if (level[a.to]! < need) {
          for (const j of byCluster.get(cluster[a.to]!)!) level[j] = need;
          changed = true;
        }
      }
    }
    if (!changed) return level;
  }
  throw new CompilerBug('plan/ilp', 'the starting plan has a cycle of clusters');
}

/**
 * Column values of `model` that encode the plan `a`, or null when the plan does not fit the
 * model's bounds (never for a valid plan; the caller then simply starts without it).
 */
export function startFromAssignment(graph: DependenceGraph, model: IlpModel, a: Assignment): Float64Array | null {
  const { layout, columns } = model;
  const values = new Float64Array(columns.length);
  const pi = clusterLevels(graph, a.cluster, a.elided ?? []);
  const idx = new Map(graph.nodes.map((node) => [node.id, node.index]));
  const elided = new Set(a.elided ?? []);
  for (const e of layout.elide) values[e.col] = elided.has(graph.nodes[e.copy]!.id) ? 1 : 0;
  layout.pi.forEach((col, i) => (values[col] = pi[i]!));
  layout.order.forEach((col, i) => col >= 0 && (values[col] = a.order[i]!));
  layout.manifest.forEach((col, i) => col >= 0 && (values[col] = a.manifest[i] ? 1 : 0));
  layout.fused.forEach((col, k) => {
    const e = graph.edges[k]!;
    values[col] = a.cluster[idx.get(e.from)!] === a.cluster[idx.get(e.to)!] ? 0 : 1;
  });
  if (layout.piMax >= 0) values[layout.piMax] = Math.max(0, ...pi);
  const value = (t: Affine): number => (t.col === null ? 0 : values[t.col]!) + t.constant;
  for (const stream of layout.streams) {
    const opener = new Map<string, number>();
    for (let q = 0; q < stream.reads.length; q++) {
      const read = stream.reads[q]!;
      if (value(read.memory) < 0.5) continue;
      const key = `${pi[read.c]}/${value(read.order)}`;
      const r = opener.get(key);
      if (r === undefined) {
        opener.set(key, q);
        if (stream.opens[q]! >= 0) values[stream.opens[q]!] = 1;
        continue;
      }
      const pair = stream.pairs.find((p) => p.r === r && p.q === q);
      if (pair === undefined) return null;
      values[pair.s] = 1;
    }
  }
  // recompute: r_ng is the indicator of "node n's order is ℓ_g" (model.ts).
  for (const r of layout.recompute) values[r.col] = a.order[r.node] === r.label ? 1 : 0;
  const fits = columns.every((c, i) => values[i]! >= c.lower - 1e-9 && values[i]! <= c.upper + 1e-9);
  return fits ? values : null;
}
