// What the graph alone proves about every plan, computed once per block before the ILP is built
// (model.ts): it lets the model fix variables and drop big-M rows that could never bind,
// without changing its optimum. Every fact below holds for every valid plan (docs/PLANNING.md):
//
// - Strict steps (infusible edges, scatter precedences, and edges that no valid plan fuses,
//   found to a fixpoint: see blockStructure) raise the cluster number π by at least one; fused
//   edges keep it. The never-fused edges matter most: on NAS MG every edge is fusible, but a
//   gather source read by gathers of different labels is never fused, and seeing that as a
//   strict step fixes the edges that would close a cycle through it, which the LP alone saw only
//   through big-Ms (class W: HiGHS 15 s -> 1 s). So π_a lies in [lb_a, ub_a]: any plan's π can be renumbered to
//   the longest-path level of its cluster DAG (start.ts), which is at least the longest strict
//   path into a, and at most n − 1 minus the longest strict path out of a and minus a's
//   descendants (each level below a's holds a cluster of nodes that are neither a nor after it).
//   The upper bound sets every big-M of π, so its tightness matters: on NAS MG (838 nodes) the
//   descendant count took HiGHS from 72 B&B nodes to 1 (bench/plan/FINDINGS.md). Two nodes joined by a path
//   with a strict step never share a π: an edge whose ends are so joined is never fused, and
//   two reads by such nodes never share a memory stream.
// - A node's order is a gather label ℓ (≥ 2) only when it is not manifest, i.e. every out-edge
//   is fused and every read of it is in order ℓ: a label it can take is one every out-edge can
//   carry (reads by that gather as its source, or by a consumer that can itself take ℓ).

import type { DependenceGraph, GraphNode } from '../../graph/types.js';
import { CompilerBug } from '../../diagnostics/index.js';
import { addBit, bitSetOf, emptyWords, popCount, unionInto, type BitSet } from '../../util/bitset.js';
import { topologicalOrder } from '../../util/graphs.js';
import { fusionRule, type OutputOrderDomain } from '../../ir/rules.js';

export interface BlockStructure {
  /** π bounds per node index. */
  readonly piLower: readonly number[];
  readonly piUpper: readonly number[];
  /** Nodes reachable from each node by a path with at least one strict step (node indices, n bits). */
  readonly strictlyAfter: readonly BitSet[];
  /** Per node index: whether any node is strictly after it (strictlyAfter is not empty). */
  readonly hasStrictDescendant: readonly boolean[];
  /** Nodes reachable from each node by a path of one or more steps. */
  readonly after: readonly BitSet[];
  /** Gather labels (≥ 2) each node index's order can take; the domain's hi is their maximum. */
  readonly orderLabels: readonly ReadonlySet<number>[];
  /** Order domain [lo, hi] per node index (combinator nodes; control-flow nodes [0, 0]). */
  readonly orderLower: readonly number[];
  readonly orderUpper: readonly number[];
  /** Nodes with no outgoing edge or precedence: the last π on every chain ends at one of them. */
  readonly sinks: readonly number[];
  /** Per edge (graph.edges order): no valid plan fuses it, so x = 1 and it is a strict step. */
  readonly neverFused: readonly boolean[];
  /** Node indices in a topological order of edges plus precedences. */
  readonly topo: readonly number[];
}

interface Arc {
  readonly to: number;
  readonly strict: boolean;
}

/** Outgoing arcs per node index: every edge (strict when infusible) and every precedence (strict). */
export function dependenceArcs(graph: DependenceGraph): readonly (readonly Arc[])[] {
  const idx = new Map(graph.nodes.map((node) => [node.id, node.index]));
  const out: Arc[][] = graph.nodes.map(() => []);
  for (const e of graph.edges) out[idx.get(e.from)!]!.push({ to: idx.get(e.to)!, strict: !e.fusible });
  for (const p of graph.precedences) out[idx.get(p.before)!]!.push({ to: idx.get(p.scatter)!, strict: true });
  return out;
}

/** dependenceArcs with every never-fused edge strict. */
function arcsWith(graph: DependenceGraph, neverFused: readonly boolean[]): readonly (readonly Arc[])[] {
  const idx = new Map(graph.nodes.map((node) => [node.id, node.index]));
  const out: Arc[][] = graph.nodes.map(() => []);
  graph.edges.forEach((e, k) => out[idx.get(e.from)!]!.push({ to: idx.get(e.to)!, strict: neverFused[k]! }));
  for (const p of graph.precedences) out[idx.get(p.before)!]!.push({ to: idx.get(p.scatter)!, strict: true });
  return out;
}

function arcOrder(out: readonly (readonly Arc[])[]): number[] {
  const topo = topologicalOrder(out.map((arcs) => arcs.map((a) => a.to)));
  if (topo.length !== out.length) throw new CompilerBug('plan/ilp', 'dependence graph with precedences is cyclic');
  return topo;
}

/** The bounds of a node's order variable: its output-order domain, and the labels it may carry. */
function orderBounds(domain: OutputOrderDomain, labels: ReadonlySet<number>): readonly [number, number] {
  switch (domain) {
    case 'zero':
    case 'none':
      return [0, 0];
    case 'one':
      return [1, 1];
    case 'linear':
      return [0, 1];
    case 'any':
      return [0, Math.max(1, ...labels)];
    default:
      return domain satisfies never;
  }
}

/** The labels a node's order may take beyond 0 and 1 (see the header), per node index. */
function possibleLabels(graph: DependenceGraph, topo: readonly number[], neverFused: readonly boolean[]): readonly (ReadonlySet<number>)[] {
  const idx = new Map(graph.nodes.map((node) => [node.id, node.index]));
  const results = new Set(graph.resultGroups);
  const outEdges = graph.nodes.map(() => [] as (typeof graph.edges)[number][]);
  const unfusedOut = graph.nodes.map(() => false);
  graph.edges.forEach((e, k) => {
    outEdges[idx.get(e.from)!]!.push(e);
    if (neverFused[k]) unfusedOut[idx.get(e.from)!] = true;
  });
  const labels: Set<number>[] = graph.nodes.map(() => new Set());
  const free = (node: GraphNode): boolean => fusionRule(node.kind).outputOrder === 'any';
  for (const i of [...topo].reverse()) {
    const node = graph.nodes[i]!;
    const out = outEdges[i]!;
    if (node.group === null || !free(node) || results.has(node.group) || out.length === 0) continue;
    if (unfusedOut[i]) continue;
    // Intersect, over every ordered read of the node, the labels that read can carry.
    const carriedByRead = out.flatMap((e) => {
      const c = idx.get(e.to)!;
      const label = graph.nodes[c]!.label;
      return e.reads.map((r): ReadonlySet<number> =>
        r.order === 'label' ? new Set(label === null ? [] : [label]) : r.order === 'output' ? labels[c]! : new Set<number>(),
      );
    });
    labels[i] = new Set([...carriedByRead[0]!].filter((l) => carriedByRead.every((set) => set.has(l))));
  }
  return labels;
}

/**
 * The facts of the header, to a fixpoint: an edge that no valid plan fuses (infusible; ends
 * joined by a path with a strict step, or with disjoint π ranges; fixed read orders that clash
 * with each other or with the producer's order domain) is a strict step of every plan, which
 * can make more paths strict, raise π bounds and shrink label domains.
 */
export function blockStructure(graph: DependenceGraph): BlockStructure {
  const idx = new Map(graph.nodes.map((node) => [node.id, node.index]));
  const neverFused = graph.edges.map((e) => !e.fusible);
  for (;;) {
    const st = structureWith(graph, neverFused);
    let more = false;
    graph.edges.forEach((e, k) => {
      if (neverFused[k]) return;
      const p = idx.get(e.from)!;
      const c = idx.get(e.to)!;
      const apart = st.strictlyAfter[p]!.has(c) || st.piLower[p]! > st.piUpper[c]! || st.piLower[c]! > st.piUpper[p]!;
      const fixed = new Set(e.reads.flatMap((r) => (r.order === 'zero' ? [0] : r.order === 'one' ? [1] : r.order === 'label' ? [graph.nodes[c]!.label ?? -1] : [])));
      const carries = (o: number): boolean => (o <= 1 ? st.orderLower[p]! <= o && o <= st.orderUpper[p]! : st.orderLabels[p]!.has(o));
      if (apart || fixed.size > 1 || [...fixed].some((o) => !carries(o))) {
        neverFused[k] = true;
        more = true;
      }
    });
    if (!more) return st;
  }
}

function structureWith(graph: DependenceGraph, neverFused: readonly boolean[]): BlockStructure {
  const n = graph.nodes.length;
  const out = arcsWith(graph, neverFused);
  const topo = arcOrder(out);
  const reverse = [...topo].reverse();

  const piLower = new Array<number>(n).fill(0);
  for (const i of topo) for (const a of out[i]!) piLower[a.to] = Math.max(piLower[a.to]!, piLower[i]! + (a.strict ? 1 : 0));
  const height = new Array<number>(n).fill(0);
  for (const i of reverse) for (const a of out[i]!) height[i] = Math.max(height[i]!, height[a.to]! + (a.strict ? 1 : 0));
  const reach = graph.nodes.map(() => emptyWords(n));
  const strict = graph.nodes.map(() => emptyWords(n));
  for (const i of reverse) {
    const r = reach[i]!;
    const s = strict[i]!;
    for (const a of out[i]!) {
      const ra = reach[a.to]!;
      const sa = strict[a.to]!;
      addBit(r, a.to);
      // One pass over both sets (the hot loop of the planner on large blocks).
      for (let w = 0; w < r.length; w++) {
        r[w]! |= ra[w]!;
        s[w]! |= sa[w]!;
      }
      if (a.strict) {
        addBit(s, a.to);
        unionInto(s, ra);
      }
    }
  }

  // π_a ≤ n − 1 − max(strict height, descendants): in the longest-path numbering a's level is at
  // most the number of clusters before a's, each holding a node that is neither a nor one of
  // its descendants (a descendant's cluster comes no earlier than a's).
  const piUpper = height.map((h, i) => n - 1 - Math.max(h, popCount(reach[i]!)));

  const labels = possibleLabels(graph, topo, neverFused);
  const orderLower: number[] = [];
  const orderUpper: number[] = [];
  for (const node of graph.nodes) {
    const [lo, hi] =
      node.group === null ? [0, 0] : orderBounds(fusionRule(node.kind).outputOrder, labels[node.index]!);
    orderLower.push(lo);
    orderUpper.push(hi);
  }
  const sinks = graph.nodes.filter((node) => out[node.index]!.length === 0).map((node) => node.index);
  const hasStrictDescendant = strict.map((words) => words.some((w) => w !== 0));
  return {
    piLower,
    piUpper,
    strictlyAfter: strict.map(bitSetOf),
    hasStrictDescendant,
    after: reach.map(bitSetOf),
    orderLabels: labels,
    orderLower,
    orderUpper,
    sinks,
    topo,
    neverFused: [...neverFused],
  };
}
