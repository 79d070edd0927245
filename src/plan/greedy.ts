// The paper's greedy baselines (§5) and `none`, with an exact feasibility check that needs no
// solver.
//
// Greedy walks the fusible edges (greedy-down: by producer, top-down; greedy-up: by consumer,
// bottom-up) and keeps an edge fused when the fused set stays feasible with every other edge
// free. `feasibleAssignment` decides that exactly, in near-linear time:
//   1. union the fused edges' endpoints into clusters; every other edge inside one cluster is
//      fused too, so an infusible edge or a scatter precedence inside a cluster is infeasible;
//   2. the clusters, with every remaining edge and precedence between them, must be acyclic
//      (each such arc needs π to grow strictly);
//   3. with the clusters fixed, x, and so the least manifest set, are fixed; orders are then a
//      system of equalities (fused edge: producer order = each read's order; scanl = 0,
//      scanr = 1) over a union-find with the constants 0, 1 and the gather labels: feasible iff
//      no class holds two constants and no class that must be 0 or 1 (a manifest node, a scatter,
//      a force) holds a gather label.
// Every other ILP constraint is then satisfiable (π = longest-path level), so this is exactly
// "the ILP with these edges fused is feasible"; test/plan/greedy.test.ts checks it against HiGHS.

import type { DependenceGraph } from '../graph/types.js';
import { CompilerBug } from '../diagnostics/index.js';
import { readOrderValue, unionFind, type Assignment } from './clusters.js';

/** A full assignment if fusing exactly the clusters implied by `fusedEdges` is feasible, else null. */
export function feasibleAssignment(graph: DependenceGraph, fusedEdges: ReadonlySet<number>): Assignment | null {
  const n = graph.nodes.length;
  const idx = new Map(graph.nodes.map((node) => [node.id, node.index]));
  const uf = unionFind(n);
  for (const k of fusedEdges) {
    const e = graph.edges[k]!;
    uf.union(idx.get(e.from)!, idx.get(e.to)!);
  }
  const comp = graph.nodes.map((node) => uf.find(node.index));

  // 1. Inside a cluster every edge is fused; none may be infusible, no precedence may be inside.
  const fused = graph.edges.map((e) => comp[idx.get(e.from)!] === comp[idx.get(e.to)!]);
  if (graph.edges.some((e, k) => fused[k] && !e.fusible)) return null;
  if (graph.precedences.some((p) => comp[idx.get(p.before)!] === comp[idx.get(p.scatter)!])) return null;

  // 2. The cluster graph is acyclic; levels are longest paths.
  const succ = new Map<number, number[]>();
  const indeg = new Map<number, number>(comp.map((c) => [c, 0]));
  const arcs = [...graph.edges.map((e) => [e.from, e.to] as const), ...graph.precedences.map((p) => [p.before, p.scatter] as const)];
  for (const [a, b] of arcs) {
    const ca = comp[idx.get(a)!]!;
    const cb = comp[idx.get(b)!]!;
    if (ca === cb) continue;
    succ.set(ca, [...(succ.get(ca) ?? []), cb]);
    indeg.set(cb, indeg.get(cb)! + 1);
  }
  const levelOf = new Map<number, number>();
  const ready = [...indeg].filter(([, d]) => d === 0).map(([c]) => c);
  for (const c of ready) levelOf.set(c, 0);
  let seen = 0;
  while (ready.length > 0) {
    const c = ready.pop()!;
    seen++;
    for (const d of succ.get(c) ?? []) {
      levelOf.set(d, Math.max(levelOf.get(d) ?? 0, levelOf.get(c)! + 1));
      const left = indeg.get(d)! - 1;
      indeg.set(d, left);
      if (left === 0) ready.push(d);
    }
  }
  if (seen !== indeg.size) return null;

  // 3. Manifest: results, unread arrays, and producers of an unfused edge.
  const results = new Set(graph.resultGroups);
  const manifest = graph.nodes.map((node) => node.group !== null && results.has(node.group));
  const hasConsumer = new Set(graph.edges.map((e) => e.from));
  for (const node of graph.nodes) if (node.group !== null && !hasConsumer.has(node.id)) manifest[node.index] = true;
  graph.edges.forEach((e, k) => {
    const p = idx.get(e.from)!;
    if (!fused[k] && graph.nodes[p]!.group !== null) manifest[p] = true;
  });

  // Orders: variables 0 … n−1, constants n + value for value 0 … g+1.
  const g = graph.gatherCount;
  const ord = unionFind(n + g + 2);
  const constant = (value: number): number => n + value;
  for (const node of graph.nodes) {
    if (node.kind === 'scanl') ord.union(node.index, constant(0));
    if (node.kind === 'scanr') ord.union(node.index, constant(1));
  }
  graph.edges.forEach((e, k) => {
    if (!fused[k]) return;
    const p = idx.get(e.from)!;
    const c = idx.get(e.to)!;
    const label = graph.nodes[c]!.label;
    for (const r of e.reads) {
      if (r.order === 'unordered') continue;
      // `output` reads take the consumer's variable; the others a constant.
      ord.union(p, r.order === 'output' ? c : constant(readOrderValue(r.order, 0, label)));
    }
  });
  const classConstant = new Map<number, number>();
  for (let v = 0; v <= g + 1; v++) {
    const root = ord.find(constant(v));
    if (classConstant.has(root)) return null; // two constants in one class
    classConstant.set(root, v);
  }
  const order = graph.nodes.map((node) => {
    if (node.group === null) return -1;
    return classConstant.get(ord.find(node.index)) ?? 0;
  });
  for (const node of graph.nodes) {
    const mustBeWhole = manifest[node.index] || node.kind === 'scatter' || node.kind === 'force';
    if (node.group !== null && mustBeWhole && order[node.index]! > 1) return null;
  }
  return { cluster: comp, level: comp.map((c) => levelOf.get(c)!), order, manifest };
}

export type GreedyDirection = 'down' | 'up';

/** Greedy fusion: the edges in walking order, each kept fused when still feasible. */
export function greedyAssignment(graph: DependenceGraph, direction: GreedyDirection): Assignment {
  const idx = new Map(graph.nodes.map((node) => [node.id, node.index]));
  const candidates = graph.edges
    .map((e, k) => ({ k, p: idx.get(e.from)!, c: idx.get(e.to)!, fusible: e.fusible }))
    .filter((e) => e.fusible)
    .sort((a, b) => (direction === 'down' ? a.p - b.p || a.c - b.c : b.c - a.c || b.p - a.p));
  const chosen = new Set<number>();
  let best = feasibleAssignment(graph, chosen);
  if (best === null) throw new CompilerBug('plan/greedy', 'the unfused plan is infeasible');
  for (const { k } of candidates) {
    chosen.add(k);
    const next = feasibleAssignment(graph, chosen);
    if (next === null) chosen.delete(k);
    else best = next;
  }
  return best;
}

/** No fusion: every node alone, manifest, in order 0 (scanr 1). */
export function noFusionAssignment(graph: DependenceGraph): Assignment {
  const a = feasibleAssignment(graph, new Set());
  if (a === null) throw new CompilerBug('plan/none', 'the unfused plan is infeasible');
  return a;
}
