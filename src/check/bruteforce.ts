// The brute-force planner: enumerates every valid plan of a small program (or JSON graph) and
// returns one of least cost. It is the test oracle for the ILP's optimality ("the ILP optimum
// equals the exhaustive minimum"), so it leans on the independent validator and evaluator, not
// on the ILP.
//
// Blocks are independent (a control-flow node is a cluster of its own and its blocks' plans do
// not affect the enclosing block's cost), so each block is minimised on its own and the costs
// add up. Per block we enumerate:
//  - every set partition of the nodes into clusters (restricted growth strings, pruned as soon
//    as a cluster holds an infusible edge or a control-flow node with company), ordered by a
//    topological order of the cluster graph (the cost does not depend on which one);
//  - orders only for nodes with no consumer in their own cluster: they are manifest, so 0 or 1
//    (scanl 0, scanr 1). Every other node's order is forced by its fused consumers' reads.
//    Orders are chosen cluster by cluster (their effects are local; see bestForPartition);
//  - manifest: exactly the forced ones. A voluntary manifest array only adds writes and only
//    restricts orders, so with non-negative coefficients it never lowers the cost — except as
//    the price of eliding a copy (docs/PLANNING.md "In-place updates"), so:
//  - every subset of the block's elision candidates (validate.ts `elisionCandidates`), each
//    elided copy making its sources manifest and ordering their readers before its scatter.
// The judges are the validator and the evaluator: each cluster's order choices are kept only
// if validateBlock finds nothing wrong with that cluster and ranked by evaluateBlock's total,
// every partition's plan is costed by evaluateBlock, and the winner is validated as a whole.

import { CompilerBug, userError } from '../diagnostics/index.js';
import type { GraphJson } from '../graph/jsonFormat.js';
import type { NodeId, Program } from '../ir/types.js';
import type { CostSpec } from '../plan/cost.js';
import { combine, evaluateBlock, evaluationContext, graphEvaluationContext, type EvaluateOptions, type EvaluationContext } from './evaluate.js';
import { jsonBlockGraph } from './jsonGraph.js';
import { factsOf, freeOrders, inPlaceDestinations, updatesInPlace } from './kinds.js';
import { isControlKind, programGraph, readOrderOf, sameOrder, type BlockGraph, type GraphNode } from './reads.js';
import type { BlockPlan, Cluster, Order } from '../plan/types.js';
import { elisionCandidates, formatViolation, validateBlock, type ElisionCandidate, type PlanViolation } from './validate.js';

/** The most graph nodes per block the enumeration accepts (Bell(7) = 877 partitions). */
export const bruteForceNodeLimit = 7;

export interface BruteForceResult {
  /** A least-cost valid plan (the root block's plan with its children). */
  readonly plan: BlockPlan;
  readonly objective: number;
  /**
   * Valid clusterings enumerated (partitions with a valid choice of orders, each costed at its
   * best orders), summed over the blocks.
   */
  readonly clusterings: number;
}

export function bruteForce(program: Program, cost: CostSpec, options: EvaluateOptions = {}): BruteForceResult {
  const ctx = evaluationContext(program, options);
  const best = bestBlockPlan(programGraph(program), cost, ctx);
  return { plan: best.plan, objective: best.objective, clusterings: best.clusterings };
}

/** bruteForce for a JSON graph (weights and sizes as evaluateGraphPlan takes them). */
export function bruteForceGraph(json: GraphJson, cost: CostSpec, options: EvaluateOptions = {}): BruteForceResult {
  const best = bestBlockPlan(jsonBlockGraph(json), cost, graphEvaluationContext(options));
  return { plan: best.plan, objective: best.objective, clusterings: best.clusterings };
}

interface BlockBest {
  readonly plan: BlockPlan;
  readonly objective: number;
  readonly clusterings: number;
}

function bestBlockPlan(g: BlockGraph, cost: CostSpec, ctx: EvaluationContext): BlockBest {
  if (g.nodes.length > bruteForceNodeLimit) {
    throw userError('E670', `brute force enumerates blocks of at most ${bruteForceNodeLimit} nodes; ${g.path} has ${g.nodes.length}`);
  }
  // Children first: their best plans are fixed parts of every candidate of this block.
  const children: Record<NodeId, readonly BlockPlan[]> = {};
  let childObjective = 0;
  let childClusterings = 0;
  for (const [id, childGraphs] of g.children) {
    const bests = childGraphs.map((cg) => bestBlockPlan(cg, cost, ctx));
    children[id] = bests.map((b) => b.plan);
    childObjective += bests.reduce((s, b) => s + b.objective, 0);
    childClusterings += bests.reduce((s, b) => s + b.clusterings, 0);
  }
  // Evaluate this block alone: children are costed once, above.
  const alone: BlockGraph = { ...g, children: new Map() };

  let best: { plan: BlockPlan; objective: number } | null = null;
  let count = 0;
  const candidates = elisionCandidates(g);
  const memos = new Map<number, Map<string, ClusterChoice | null>>();
  for (const partition of partitions(g)) {
    let valid = false;
    for (let mask = 0; mask < 1 << candidates.length; mask++) {
      const elided = candidates.filter((_, i) => (mask >> i) & 1);
      const memo = memos.get(mask) ?? new Map<string, ClusterChoice | null>();
      memos.set(mask, memo);
      const candidate = bestForPartition(alone, partition, cost, ctx, memo, elided);
      if (candidate === null) continue;
      if (elided.length > 0) {
        const violations: PlanViolation[] = [];
        validateBlock(alone, candidate, violations);
        if (violations.length > 0) continue;
      }
      valid = true;
      const objective = combine(evaluateBlock(alone, candidate, ctx), cost).total;
      if (best === null || objective < best.objective) best = { plan: candidate, objective };
    }
    if (valid) count++;
  }
  // The plan fusing nothing is always valid, so finding none is our bug.
  if (best === null) throw new CompilerBug('brute force', `found no valid plan for ${g.path}`);
  // Each cluster of the winner passed the validator (bestForPartition); the whole must too.
  const violations: PlanViolation[] = [];
  validateBlock(alone, best.plan, violations);
  if (violations.length > 0) {
    throw new CompilerBug('brute force', `the best plan of ${g.path} is invalid: ${violations.map(formatViolation).join('; ')}`);
  }
  return {
    plan: { ...best.plan, children },
    objective: best.objective + childObjective,
    clusterings: count + childClusterings,
  };
}

/** The orders chosen for one cluster's nodes (its free nodes' choice, propagated). */
type ClusterChoice = ReadonlyMap<NodeId, Order>;

/**
 * The least-cost valid plan with this partition, or null if it has none. Once the partition
 * is fixed, everything that depends on orders is local to a cluster: the order, manifest-order
 * and connectivity rules concern one cluster's nodes, and the cost terms that depend on orders
 * (read streams, keyed by cluster) add up over clusters. So each cluster's orders are chosen on
 * their own — by the validator's verdict on that cluster and the evaluator's total with the
 * other clusters held fixed — and memoised by the cluster's node set, which alone determines
 * them. This turns 2^(free nodes) candidates per partition into a sum over clusters.
 */
function bestForPartition(
  g: BlockGraph,
  partition: readonly number[],
  cost: CostSpec,
  ctx: EvaluationContext,
  memo: Map<string, ClusterChoice | null>,
  elided: readonly ElisionCandidate[] = [],
): BlockPlan | null {
  const clusterOfId = new Map(g.nodes.map((node, i) => [node.id, partition[i]!] as const));
  const sequence = clusterSequence(g, clusterOfId, elided);
  if (sequence === null) return null;
  const members = sequence.map((c) => g.nodes.filter((node) => clusterOfId.get(node.id) === c));

  const manifest = new Set<NodeId>();
  for (const node of g.nodes) {
    if (isControlKind(node.kind)) continue;
    const reads = g.edges.filter((e) => e.producer === node.id);
    if (g.results.has(node.id) || reads.length === 0 || reads.some((e) => clusterOfId.get(e.consumer) !== clusterOfId.get(node.id))) {
      manifest.add(node.id);
    }
  }
  // An elided copy's scatter writes its sources' memory: they are written.
  for (const c of elided) manifest.add(c.producer);
  const plan = (choices: readonly ClusterChoice[]): BlockPlan => ({
    clusters: members.map(
      (nodes): Cluster => ({
        nodes: nodes.map((node) => node.id),
        manifest: nodes.flatMap((node) => (!isControlKind(node.kind) && manifest.has(node.id) ? node.outs.map((o) => o.name) : [])),
      }),
    ),
    orders: Object.fromEntries(choices.flatMap((choice) => [...choice])),
    children: {},
    ...(elided.length === 0 ? {} : { elided: elided.map((c) => c.copy) }),
  });

  // Until a cluster's best choice is known it takes its first consistent one, so that the
  // validator has little to say about clusters other than the one being chosen.
  const chosen: ClusterChoice[] = [];
  for (const nodes of members) {
    const first = clusterChoices(g, nodes, clusterOfId).next();
    if (first.done === true) return null;
    chosen.push(first.value);
  }
  for (let k = 0; k < members.length; k++) {
    const key = members[k]!.map((node) => node.id).join(',');
    if (!memo.has(key)) {
      let best: { choice: ClusterChoice; total: number } | null = null;
      for (const choice of clusterChoices(g, members[k]!, clusterOfId)) {
        const trial = [...chosen];
        trial[k] = choice;
        const candidate = plan(trial);
        const violations: PlanViolation[] = [];
        validateBlock(g, candidate, violations);
        if (violations.some((v) => v.cluster === k)) continue;
        const total = combine(evaluateBlock(g, candidate, ctx), cost).total;
        if (best === null || total < best.total) best = { choice, total };
      }
      memo.set(key, best?.choice ?? null);
    }
    const choice = memo.get(key);
    if (choice === null || choice === undefined) return null;
    chosen[k] = choice;
  }
  return plan(chosen);
}

/** Every order assignment of one cluster: free nodes 0 or 1, the rest forced by fused reads. */
function* clusterChoices(g: BlockGraph, members: readonly GraphNode[], clusterOfId: ReadonlyMap<NodeId, number>): Generator<ClusterChoice> {
  const free: NodeId[] = [];
  const options: (readonly Order[])[] = [];
  for (const node of members) {
    if (isControlKind(node.kind)) continue;
    const fusedConsumer = g.edges.some((e) => e.producer === node.id && clusterOfId.get(e.consumer) === clusterOfId.get(node.id));
    if (fusedConsumer) continue;
    free.push(node.id);
    options.push(freeOrders(factsOf(node.kind)?.outputOrders ?? 'any'));
  }
  const total = options.reduce((p, c) => p * c.length, 1);
  for (let k = 0; k < total; k++) {
    const orders = new Map<NodeId, Order>();
    let rest = k;
    free.forEach((id, i) => {
      const opts = options[i]!;
      orders.set(id, opts[rest % opts.length]!);
      rest = Math.floor(rest / opts.length);
    });
    if (propagateOrders(g, members, clusterOfId, orders)) yield orders;
  }
}

/**
 * Set partitions of the block's nodes (as cluster index per node, in statement order) with no
 * infusible edge inside a cluster and control-flow nodes alone.
 */
function* partitions(g: BlockGraph): Generator<readonly number[]> {
  const n = g.nodes.length;
  const index = new Map(g.nodes.map((node, i) => [node.id, i] as const));
  const conflict: boolean[][] = g.nodes.map(() => g.nodes.map(() => false));
  for (const e of g.edges) {
    if (e.infusible === null) continue;
    const a = index.get(e.producer)!;
    const b = index.get(e.consumer)!;
    conflict[a]![b] = conflict[b]![a] = true;
  }
  g.nodes.forEach((node, i) => {
    if (isControlKind(node.kind)) for (let j = 0; j < n; j++) if (j !== i) conflict[i]![j] = conflict[j]![i] = true;
  });
  const assignment: number[] = [];
  function* extend(i: number, used: number): Generator<readonly number[]> {
    if (i === n) {
      yield [...assignment];
      return;
    }
    for (let c = 0; c <= used; c++) {
      let ok = true;
      for (let j = 0; j < i && ok; j++) if (assignment[j] === c && conflict[i]![j]) ok = false;
      if (!ok) continue;
      assignment[i] = c;
      yield* extend(i + 1, c === used ? used + 1 : used);
    }
  }
  yield* extend(0, 0);
}

/**
 * Sets the order of every node with fused consumers from their reads, consumers first (the
 * statements are in dependence order). False when two fused reads disagree.
 */
function propagateOrders(
  g: BlockGraph,
  members: readonly GraphNode[],
  clusterOfId: ReadonlyMap<NodeId, number>,
  orders: Map<NodeId, Order>,
): boolean {
  for (let i = members.length - 1; i >= 0; i--) {
    const node = members[i]!;
    if (isControlKind(node.kind) || orders.has(node.id)) continue;
    let forced: Order | null = null;
    for (const e of g.edges) {
      if (e.producer !== node.id || clusterOfId.get(e.consumer) !== clusterOfId.get(node.id)) continue;
      for (const r of e.reads) {
        const ro = readOrderOf(r, orders.get(e.consumer));
        if (ro === null) return false;
        if (forced === null) forced = ro;
        else if (!sameOrder(forced, ro)) return false;
      }
    }
    if (forced === null) return false;
    orders.set(node.id, forced);
  }
  return true;
}

/** Cluster indices in a dependence order (Kahn, earliest statement first); null on a cycle. */
function clusterSequence(g: BlockGraph, clusterOfId: ReadonlyMap<NodeId, number>, elided: readonly ElisionCandidate[] = []): number[] | null {
  const count = Math.max(-1, ...clusterOfId.values()) + 1;
  const succ = Array.from({ length: count }, () => new Set<number>());
  for (const e of g.edges) {
    const a = clusterOfId.get(e.producer)!;
    const b = clusterOfId.get(e.consumer)!;
    if (a !== b) succ[a]!.add(b);
  }
  // Orderings without a read (a control-flow node's scalar outputs, sizes known only at run
  // time) order clusters as edges do: a partition they make cyclic has no cluster sequence.
  for (const [consumer, producers] of g.orderings) {
    for (const producer of producers.keys()) {
      const a = clusterOfId.get(producer)!;
      const b = clusterOfId.get(consumer)!;
      if (a !== b) succ[a]!.add(b);
    }
  }
  for (const node of g.nodes) {
    if (!updatesInPlace(node.kind)) continue;
    const dest = inPlaceDestinations(node);
    for (const other of g.nodes) {
      if (other.id === node.id || !other.reads.some((r) => dest.includes(r.name))) continue;
      // Same cluster is invalid (rule 3); a self-loop makes the partition be rejected here.
      succ[clusterOfId.get(other.id)!]!.add(clusterOfId.get(node.id)!);
    }
  }
  // An elided copy's readers come before its scatter (a self-loop: the partition is rejected).
  for (const c of elided) for (const r of c.readers) succ[clusterOfId.get(r)!]!.add(clusterOfId.get(c.scatter)!);
  const indegree = new Array<number>(count).fill(0);
  for (const s of succ) for (const b of s) indegree[b]!++;
  const firstIndex = new Array<number>(count).fill(Infinity);
  g.nodes.forEach((node, i) => {
    const c = clusterOfId.get(node.id)!;
    firstIndex[c] = Math.min(firstIndex[c]!, i);
  });
  const ready = [...Array(count).keys()].filter((c) => indegree[c] === 0);
  const order: number[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => firstIndex[a]! - firstIndex[b]!);
    const c = ready.shift()!;
    order.push(c);
    for (const d of succ[c]!) if (--indegree[d] === 0) ready.push(d);
  }
  return order.length === count ? order : null;
}
