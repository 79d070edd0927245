// From decided variables to a BlockPlan (paper §4.1).
//
// The ILP only says which cluster *number* π each node has; nodes with one π need not share a
// loop. `splitByPi` splits every π-group into connected components over fused edges plus, for
// each array read from memory, one extra vertex per (array, read order): two nodes reading the
// same array in the same order share a loop (horizontal fusion), two nodes reading it in
// different orders do not. Clusters are then ordered by π (a topological order: every unfused
// edge and every scatter precedence strictly increases π), ties by statement order.

import type { NodeId } from '../ir/types.js';
import type { DependenceGraph } from '../graph/types.js';
import type { BlockPlan, Cluster, Order } from './types.js';
import { CompilerBug } from '../diagnostics/index.js';
import { unionFind } from '../util/graphs.js';

/** A decided plan of one block, by node index (control-flow nodes: order −1, not manifest). */
export interface Assignment {
  /** Cluster key per node: nodes with equal keys form one cluster. */
  readonly cluster: readonly number[];
  /** A level per node, equal within a cluster, increasing along unfused edges and precedences. */
  readonly level: readonly number[];
  /** Output order per node: 0, 1, or a gather label 2 … g+1. */
  readonly order: readonly number[];
  readonly manifest: readonly boolean[];
  /** Elidable copies (graph.elidableCopies) the plan elides, by copy node id; absent: none. */
  readonly elided?: readonly NodeId[];
}

/** The numeric order a read of consumer `c` traverses its array in, given the consumer's order. */
export function readOrderValue(rule: 'output' | 'zero' | 'one' | 'label', consumerOrder: number, label: number | null): number {
  switch (rule) {
    case 'output':
      return consumerOrder;
    case 'zero':
      return 0;
    case 'one':
      return 1;
    case 'label':
      if (label === null) throw new CompilerBug('plan/clusters', 'a label read by a node that is not a gather');
      return label;
    default:
      return rule satisfies never;
  }
}

/**
 * Cluster keys from π (§4.1): connected components, within each π-group, over fused edges and
 * shared (array, order) memory reads. `fused[k]` says whether graph.edges[k] is fused.
 */
export function splitByPi(graph: DependenceGraph, pi: readonly number[], fused: readonly boolean[], order: readonly number[]): number[] {
  const n = graph.nodes.length;
  const idx = new Map(graph.nodes.map((node) => [node.id, node.index]));
  // Vertices: nodes, then one per (group, order, π) read from memory.
  const readVertex = new Map<string, number>();
  const pairs: [number, number][] = [];
  graph.edges.forEach((e, k) => {
    if (!fused[k]) return;
    const p = idx.get(e.from)!;
    const c = idx.get(e.to)!;
    if (pi[p] !== pi[c]) throw new CompilerBug('plan/clusters', `fused edge ${e.from}->${e.to} crosses cluster numbers`);
    pairs.push([p, c]);
  });
  const fusedPair = new Set(graph.edges.filter((_, k) => fused[k]).map((e) => `${e.from}->${e.to}`));
  for (const r of graph.reads) {
    if (r.order === 'unordered') continue;
    const producer = graph.groups[r.group]!.producer;
    if (producer !== null && fusedPair.has(`${producer}->${r.consumer}`)) continue; // from a register
    const c = idx.get(r.consumer)!;
    const o = readOrderValue(r.order, order[c]!, graph.nodes[c]!.label);
    const key = `${r.group}/${o}/${pi[c]}`;
    let v = readVertex.get(key);
    if (v === undefined) {
      v = n + readVertex.size;
      readVertex.set(key, v);
    }
    pairs.push([c, v]);
  }
  const uf = unionFind(n + readVertex.size);
  for (const [a, b] of pairs) uf.union(a, b);
  return graph.nodes.map((node) => uf.find(node.index));
}

function orderOf(graph: DependenceGraph, value: number): Order {
  if (value === 0 || value === 1) return value;
  const gather = graph.nodes.find((node) => node.label === value);
  if (gather === undefined) throw new CompilerBug('plan/clusters', `order ${value} is no gather label of the block`);
  return { gather: gather.id };
}

/** The BlockPlan of an assignment (children left empty: the caller plans nested blocks). */
export function blockPlanFromAssignment(graph: DependenceGraph, a: Assignment): BlockPlan {
  const byKey = new Map<number, number[]>();
  for (const node of graph.nodes) {
    const key = a.cluster[node.index]!;
    byKey.set(key, [...(byKey.get(key) ?? []), node.index]);
  }
  const groupsOfNodes = [...byKey.values()].sort((x, y) => a.level[x[0]!]! - a.level[y[0]!]! || x[0]! - y[0]!);
  const clusters: Cluster[] = groupsOfNodes.map((members) => ({
    nodes: members.map((i) => graph.nodes[i]!.id),
    manifest: members.filter((i) => a.manifest[i]).flatMap((i) => graph.nodes[i]!.outs),
  }));
  const orders: Record<NodeId, Order> = {};
  for (const node of graph.nodes) if (node.group !== null) orders[node.id] = orderOf(graph, a.order[node.index]!);
  const elided = graph.elidableCopies?.filter((c) => a.elided?.includes(c.copy) === true).map((c) => c.copy) ?? [];
  // No `elided` key without elisions: such plans stay exactly what they were before elision existed.
  return { clusters, orders, children: {}, ...(elided.length === 0 ? {} : { elided }) };
}
