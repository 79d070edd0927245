// The paper's greedy baselines (§5) and `none`, with an exact feasibility check that needs no
// solver.
//
// Greedy walks the fusible edges (greedy-down: by producer, top-down; greedy-up: by consumer,
// bottom-up) and keeps an edge fused when the fused set stays feasible with every other edge
// free. `feasibleAssignment` decides that exactly, without a solver, by closing the fused set
// under what any solution must also fuse, to a fixpoint:
//   1. clusters are the SCCs of the dependences with each fused edge also pointing back (a node
//      on a path between two fused nodes shares their π); an infusible edge or a scatter
//      precedence inside a cluster is infeasible;
//   2. orders are equalities (fused edge: producer order = each read's order; scanl = 0,
//      scanr = 1) over a union-find with the constants 0, 1 and the gather labels; a class with
//      two constants is infeasible;
//   3. a node in a gather label's order is not written whole, so it cannot be manifest: all its
//      out-edges are fused (back to 1), or, if it is a result, unread, a scatter or a force, fail.
// Every other ILP constraint is then satisfiable (π = longest-path level), so this is exactly
// "the ILP with these edges fused is feasible"; test/plan/greedy.test.ts checks it against HiGHS.
//
// In-place updates: after the walk, `elideCopies` elides each elidable copy the clustering
// already allows (no re-clustering) when that lowers the cost; `none` elides nothing.

import type { DependenceGraph } from '../graph/types.js';
import { CompilerBug } from '../diagnostics/index.js';
import { fusionRule } from '../ir/rules.js';
import { blockPlanFromAssignment, readOrderValue, type Assignment } from './clusters.js';
import type { CostSpec } from './cost.js';
import { blockPlanCost } from './objective.js';
import { stronglyConnectedComponents, unionFind, type CompactSuccessors } from '../util/graphs.js';

/** Dependence successors of every node, then the chosen edges pointing back (consumer → producer). */
function withBackEdges(ctx: FeasibilityContext, chosen: ReadonlySet<number>): CompactSuccessors {
  const n = ctx.dependents.length;
  const starts = new Int32Array(n + 1);
  for (let v = 0; v < n; v++) starts[v + 1] = ctx.dependents[v]!.length;
  for (const k of chosen) starts[ctx.ends[k]![1] + 1]!++;
  for (let v = 0; v < n; v++) starts[v + 1]! += starts[v]!;
  const fill = starts.slice(0, n);
  const targets = new Int32Array(starts[n]!);
  for (let v = 0; v < n; v++) for (const w of ctx.dependents[v]!) targets[fill[v]!++] = w;
  for (const k of chosen) targets[fill[ctx.ends[k]![1]]!++] = ctx.ends[k]![0];
  return { starts, targets };
}

/** What the feasibility check needs of a graph, computed once for the many checks of a greedy walk. */
interface FeasibilityContext {
  readonly graph: DependenceGraph;
  /** [producer, consumer] node indices per edge. */
  readonly ends: readonly (readonly [number, number])[];
  /** Successors by dependence (edges and scatter precedences), per node index. */
  readonly dependents: readonly (readonly number[])[];
  readonly prec: readonly (readonly [number, number])[];
  readonly outEdges: readonly (readonly number[])[];
  readonly results: ReadonlySet<number>;
  /** Per edge: the order constant of each non-`output` ordered read, or the consumer (`output`). */
  readonly orderLinks: readonly (readonly { readonly consumer: boolean; readonly value: number }[])[];
}

function feasibilityContext(graph: DependenceGraph): FeasibilityContext {
  const n = graph.nodes.length;
  const idx = new Map(graph.nodes.map((node) => [node.id, node.index]));
  const ends = graph.edges.map((e) => [idx.get(e.from)!, idx.get(e.to)!] as const);
  const prec = graph.precedences.map((p) => [idx.get(p.before)!, idx.get(p.scatter)!] as const);
  const dependents: number[][] = Array.from({ length: n }, () => []);
  for (const [p, c] of ends) dependents[p]!.push(c);
  for (const [b, s] of prec) dependents[b]!.push(s);
  const outEdges: number[][] = Array.from({ length: n }, () => []);
  ends.forEach(([p], k) => outEdges[p]!.push(k));
  const orderLinks = graph.edges.map((e, k) => {
    const label = graph.nodes[ends[k]![1]]!.label;
    return e.reads.flatMap((r) =>
      r.order === 'unordered' ? [] : [r.order === 'output' ? { consumer: true, value: 0 } : { consumer: false, value: readOrderValue(r.order, 0, label) }],
    );
  });
  return { graph, ends, dependents, prec, outEdges, results: new Set(graph.resultGroups), orderLinks };
}

/**
 * A full assignment if some valid plan fuses every edge of `fusedEdges` (others free), else null.
 * Fusing is closed under two forcing rules, applied to a fixpoint: nodes on a dependence path
 * between two fused nodes share their cluster (π cannot decrease along edges), and a node whose
 * order class holds a gather label cannot be manifest, so all its out-edges are fused.
 */
export function feasibleAssignment(graph: DependenceGraph, fusedEdges: ReadonlySet<number>): Assignment | null {
  return closeFused(feasibilityContext(graph), fusedEdges);
}

function closeFused(ctx: FeasibilityContext, fusedEdges: ReadonlySet<number>): Assignment | null {
  const { graph, ends, prec, outEdges, results } = ctx;
  const n = graph.nodes.length;
  const chosen = new Set(fusedEdges);
  const g = graph.gatherCount;

  for (;;) {
    // Clusters: SCCs of the dependences with every chosen edge also pointing back.
    const comp = stronglyConnectedComponents(n, withBackEdges(ctx, chosen));
    const fused = ends.map(([p, c]) => comp[p] === comp[c]);
    if (graph.edges.some((e, k) => fused[k] && !e.fusible)) return null;
    if (prec.some(([b, s]) => comp[b] === comp[s])) return null;

    // Orders: variables 0 … n−1, constants n + value for value 0 … g+1.
    const ord = unionFind(n + g + 2);
    const constant = (value: number): number => n + value;
    for (const node of graph.nodes) {
      const domain = fusionRule(node.kind).outputOrder;
      if (domain === 'zero') ord.union(node.index, constant(0));
      if (domain === 'one') ord.union(node.index, constant(1));
    }
    fused.forEach((isFused, k) => {
      if (!isFused) return;
      const [p, c] = ends[k]!;
      // `output` reads take the consumer's variable; the others a constant.
      for (const link of ctx.orderLinks[k]!) ord.union(p, link.consumer ? c : constant(link.value));
    });
    const classConstant = new Map<number, number>();
    for (let v = 0; v <= g + 1; v++) {
      const root = ord.find(constant(v));
      if (classConstant.has(root)) return null; // two constants in one class
      classConstant.set(root, v);
    }
    const order = graph.nodes.map((node) => (node.group === null ? -1 : (classConstant.get(ord.find(node.index)) ?? 0)));

    // A node in a gather label's order is not written whole, so it is not manifest: all its
    // out-edges must be fused. Force them and start over, or fail.
    let forcedMore = false;
    for (const node of graph.nodes) {
      if (node.group === null || order[node.index]! <= 1) continue;
      const out = outEdges[node.index]!;
      if (results.has(node.group) || out.length === 0 || fusionRule(node.kind).outputOrder !== 'any') return null;
      for (const k of out) {
        if (fused[k]) continue;
        if (!graph.edges[k]!.fusible) return null;
        chosen.add(k);
        forcedMore = true;
      }
    }
    if (forcedMore) continue;

    const manifest = graph.nodes.map(
      (node) => node.group !== null && (results.has(node.group) || outEdges[node.index]!.length === 0 || outEdges[node.index]!.some((k) => !fused[k])),
    );
    // Tarjan numbers components in reverse topological order: level = count − 1 − id.
    const count = Math.max(0, ...comp) + 1;
    return { cluster: comp, level: comp.map((c) => count - 1 - c), order, manifest };
  }
}

export type GreedyDirection = 'down' | 'up';

/** Greedy fusion: the edges in walking order, each kept fused when still feasible. */
export function greedyAssignment(graph: DependenceGraph, direction: GreedyDirection): Assignment {
  return greedyWalk(graph, direction, () => false).assignment;
}

/** A greedy walk's plan, and whether the walk reached its end or was stopped. */
export interface GreedyWalk {
  readonly assignment: Assignment;
  readonly complete: boolean;
}

/**
 * The greedy walk of `greedyAssignment`, asking `stop` before each feasibility check: the plan
 * after any prefix of the walk is valid (each step keeps a feasible closure), so a stopped walk
 * returns the plan it had reached — no fusion at all when stopped before the first edge.
 */
export function greedyWalk(graph: DependenceGraph, direction: GreedyDirection, stop: () => boolean): GreedyWalk {
  const ctx = feasibilityContext(graph);
  const candidates = graph.edges
    .map((e, k) => ({ k, p: ctx.ends[k]![0], c: ctx.ends[k]![1], fusible: e.fusible }))
    .filter((e) => e.fusible)
    .sort((a, b) => (direction === 'down' ? a.p - b.p || a.c - b.c : b.c - a.c || b.p - a.p));
  const chosen = new Set<number>();
  let best = closeFused(ctx, chosen);
  if (best === null) throw new CompilerBug('plan/greedy', 'the unfused plan is infeasible');
  for (const { k, p, c } of candidates) {
    chosen.add(k);
    // Already fused by what was chosen before (one cluster): the closure, and so the plan, is
    // the same with it (the check is monotone), so skip the check. Most edges of large blocks.
    if (best.cluster[p] === best.cluster[c]) continue;
    if (stop()) return { assignment: best, complete: false };
    const next = closeFused(ctx, chosen);
    if (next === null) chosen.delete(k);
    else best = next;
  }
  return { assignment: best, complete: true };
}

/** No fusion: every node alone, manifest, in order 0 (scanr 1). */
export function noFusionAssignment(graph: DependenceGraph): Assignment {
  const a = feasibleAssignment(graph, new Set());
  if (a === null) throw new CompilerBug('plan/none', 'the unfused plan is infeasible');
  return a;
}

/**
 * The greedy strategies' elision post-pass: elides an elidable copy (graph.elidableCopies) when
 * the assignment already meets the in-place rule — the copy in its producer's cluster, the
 * producer manifest, every other reader of the sources at a lower level than the scatter (so in
 * an earlier cluster) — and eliding lowers the plan's cost under `cost`. Clusters never change.
 */
export function elideCopies(graph: DependenceGraph, a: Assignment, cost: CostSpec): Assignment {
  const copies = graph.elidableCopies ?? [];
  if (copies.length === 0) return a;
  const idx = new Map(graph.nodes.map((node) => [node.id, node.index]));
  const at = (id: number): number => idx.get(id)!;
  let current = a;
  let currentCost = blockPlanCost(graph, blockPlanFromAssignment(graph, a), cost);
  for (const c of copies) {
    const safe =
      a.cluster[at(c.copy)] === a.cluster[at(c.producer)] &&
      a.manifest[at(c.producer)] === true &&
      c.readers.every((r) => a.level[at(r)]! < a.level[at(c.scatter)]!) &&
      // Two updates may not both write one array.
      !copies.some((d) => current.elided?.includes(d.copy) === true && d.sources.some((x) => c.sources.includes(x)));
    if (!safe) continue;
    const trial: Assignment = { ...current, elided: [...(current.elided ?? []), c.copy] };
    const trialCost = blockPlanCost(graph, blockPlanFromAssignment(graph, trial), cost);
    if (trialCost < currentCost) {
      current = trial;
      currentCost = trialCost;
    }
  }
  return current;
}
