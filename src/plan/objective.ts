// The cost of a finished BlockPlan under a CostSpec, computed from the graph (PLANNING.md
// "Cost functions"). Every strategy reports this number as its objective; for the ILP it must
// equal the solver's objective when the solver proves optimality (checked in plan/index.ts),
// and the independent evaluator (src/check/evaluate.ts) must agree with it (checked in tests).

import type { DependenceGraph } from '../graph/types.js';
import type { CostSpec } from './cost.js';
import { groupWeight } from '../graph/weights.js';
import { gatherFactor } from './ilp/model.js';
import { orderKey, type BlockPlan } from './types.js';
import type { NodeId } from '../ir/types.js';

/** Cost of one block's plan (nested blocks not included). */
export function blockPlanCost(graph: DependenceGraph, plan: BlockPlan, cost: CostSpec): number {
  const clusterOf = new Map<NodeId, number>();
  plan.clusters.forEach((c, i) => c.nodes.forEach((id) => clusterOf.set(id, i)));
  const manifestNames = new Set(plan.clusters.flatMap((c) => c.manifest));
  const sameCluster = (a: NodeId, b: NodeId): boolean => clusterOf.get(a) === clusterOf.get(b);

  let total = 0;
  for (const t of cost.terms) {
    const term = t.term === 'writes' ? 'intermediate-arrays' : t.term;
    switch (term) {
      case 'clusters':
        total += t.coefficient * longestChain(plan, graph, clusterOf);
        break;
      case 'fused-edges':
        for (const e of graph.edges) if (e.fusible && !sameCluster(e.from, e.to)) total += t.coefficient * e.weight;
        break;
      case 'intermediate-arrays':
        for (const node of graph.nodes) {
          if (node.group !== null && node.outs.some((o) => manifestNames.has(o))) total += t.coefficient * groupWeight(graph.groups[node.group]!, t.byteWeighted);
        }
        // An elided copy writes nothing: its output is its sources' memory (model.ts e_c).
        for (const id of plan.elided ?? []) {
          const node = graph.nodes.find((n) => n.id === id)!;
          if (node.group !== null && node.outs.some((o) => manifestNames.has(o))) total -= t.coefficient * groupWeight(graph.groups[node.group]!, t.byteWeighted);
        }
        break;
      case 'reads':
        for (const group of graph.groups) {
          const keys = new Set<string>();
          for (const r of graph.reads) {
            if (r.group !== group.index) continue;
            if (r.order === 'unordered') {
              keys.add(`u/${r.consumer}/${r.role}`);
              continue;
            }
            if (group.producer !== null && sameCluster(group.producer, r.consumer)) continue;
            const consumer = graph.nodes.find((n) => n.id === r.consumer)!;
            const own = plan.orders[r.consumer];
            const o =
              r.order === 'output' ? (own === undefined ? '?' : orderKey(own)) : r.order === 'zero' ? '0' : r.order === 'one' ? '1' : `g${consumer.id}`;
            keys.add(`o/${clusterOf.get(r.consumer)}/${o}`);
          }
          total += t.coefficient * groupWeight(group, t.byteWeighted) * keys.size;
        }
        break;
      case 'recompute':
        for (const node of graph.nodes) {
          const o = plan.orders[node.id];
          if (node.group === null || o === undefined || typeof o === 'number') continue;
          const factor = gatherFactor(graph, graph.nodes.find((g) => g.id === o.gather)!);
          if (factor !== null && factor > 1) total += t.coefficient * groupWeight(graph.groups[node.group]!, t.byteWeighted) * (factor - 1);
        }
        break;
      default:
        term satisfies never;
    }
  }
  return total;
}

/** Number of clusters on the longest chain of the cluster dependence DAG. */
function longestChain(plan: BlockPlan, graph: DependenceGraph, clusterOf: ReadonlyMap<NodeId, number>): number {
  const k = plan.clusters.length;
  if (k === 0) return 0;
  const succ: number[][] = Array.from({ length: k }, () => []);
  const arcs = [...graph.edges.map((e) => [e.from, e.to] as const), ...graph.precedences.map((p) => [p.before, p.scatter] as const), ...elisionArcs(graph, plan)];
  for (const [a, b] of arcs) {
    const ca = clusterOf.get(a)!;
    const cb = clusterOf.get(b)!;
    if (ca !== cb) succ[ca]!.push(cb);
  }
  // Clusters are in a topological order, so one backward sweep finds the longest chains.
  const chain = new Array<number>(k).fill(1);
  for (let i = k - 1; i >= 0; i--) for (const j of succ[i]!) chain[i] = Math.max(chain[i]!, 1 + chain[j]!);
  return Math.max(...chain);
}

/** An elided copy's readers run before its scatter (model.ts e_c): arcs of the cluster DAG too. */
export function elisionArcs(graph: DependenceGraph, plan: { readonly elided?: readonly NodeId[] }): (readonly [NodeId, NodeId])[] {
  const elided = new Set(plan.elided ?? []);
  return (graph.elidableCopies ?? []).filter((c) => elided.has(c.copy)).flatMap((c) => c.readers.map((r) => [r, c.scatter] as const));
}
