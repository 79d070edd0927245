// The plan validator: checks a Plan against the fusion rules of the paper §3 as written down in
// docs/PLANNING.md ("A plan and when it is valid"), rule by rule, on every block of the program.
//
// It re-derives nodes, reads and edges itself, from the IR (./reads.ts) or from a JSON graph
// (./jsonGraph.ts), sharing no code with the planner's graph or the ILP, so "every plan passes
// the validator" is an independent check. Each violation names the rule, the block, the
// cluster and the nodes, in words.

import { CompilerBug } from '../diagnostics/index.js';
import type { GraphJson } from '../graph/jsonFormat.js';
import type { NodeId, Program, VarName } from '../ir/types.js';
import { jsonBlockGraph } from './jsonGraph.js';
import { allowsOrder, factsOf, inPlaceDestinations, ordersText, updatesInPlace } from './kinds.js';
import {
  isControlKind,
  orderKey,
  programGraph,
  readOrderOf,
  sameOrder,
  type BlockGraph,
  type GraphNode,
} from './reads.js';
import type { BlockPlan, Order, Plan } from '../plan/types.js';

export type ViolationRule =
  | 'partition'
  | 'control-flow-alone'
  | 'infusible-edge'
  | 'dependence'
  | 'scatter-uniqueness'
  | 'order'
  | 'gather-label'
  | 'manifest'
  | 'connected'
  | 'in-place'
  | 'children';

export interface PlanViolation {
  readonly rule: ViolationRule;
  /** The block: `root`, or e.g. `root/while #4 body`. */
  readonly block: string;
  /** Index of the cluster in the block's sequence, when the violation concerns one. */
  readonly cluster: number | null;
  readonly nodes: readonly NodeId[];
  readonly message: string;
}

export function formatViolation(v: PlanViolation): string {
  const where = v.cluster === null ? v.block : `${v.block}, cluster ${v.cluster}`;
  return `[${v.rule}] ${where}: ${v.message}`;
}

/** Every way the plan breaks the rules; empty when it is valid. */
export function validatePlan(program: Program, plan: Plan): PlanViolation[] {
  return validateBlockPlan(program, plan.root);
}

/** Like validatePlan, for a bare root BlockPlan (the brute force's result, hand-built plans). */
export function validateBlockPlan(program: Program, root: BlockPlan): PlanViolation[] {
  const out: PlanViolation[] = [];
  validateBlock(programGraph(program), root, out);
  return out;
}

/** Throws a CompilerBug listing the violations when the plan is not valid. */
export function assertValidPlan(program: Program, plan: Plan, pass = 'plan validation'): void {
  const violations = validatePlan(program, plan);
  if (violations.length > 0) {
    throw new CompilerBug(
      pass,
      `the ${plan.strategy} plan for ${program.name} breaks the fusion rules:\n` +
        violations.map((v) => `  ${formatViolation(v)}`).join('\n'),
    );
  }
}

/**
 * Every way a plan of a JSON graph (planGraph's input) breaks the rules; empty when it is
 * valid. The graph must have passed the reader's checks (E610–E629; ./jsonGraph.ts).
 */
export function validateGraphPlan(json: GraphJson, plan: Plan): PlanViolation[] {
  const out: PlanViolation[] = [];
  validateBlock(jsonBlockGraph(json), plan.root, out);
  return out;
}

/** Throws a CompilerBug listing the violations when the plan of a JSON graph is not valid. */
export function assertValidGraphPlan(json: GraphJson, plan: Plan, pass = 'plan validation'): void {
  const violations = validateGraphPlan(json, plan);
  if (violations.length > 0) {
    throw new CompilerBug(
      pass,
      `the ${plan.strategy} plan for the graph ${json.name ?? '(unnamed)'} breaks the fusion rules:\n` +
        violations.map((v) => `  ${formatViolation(v)}`).join('\n'),
    );
  }
}

/** Checks one block's plan and, recursively, its children; appends violations to `out`. */
export function validateBlock(g: BlockGraph, plan: BlockPlan, out: PlanViolation[]): void {
  const report = (rule: ViolationRule, cluster: number | null, nodes: readonly NodeId[], message: string): void => {
    out.push({ rule, block: g.path, cluster, nodes, message });
  };
  const label = (id: NodeId): string => g.byId.get(id)?.label ?? `#${id}`;

  // Rule 1: a partition of the block's nodes.
  const clusterOf = new Map<NodeId, number>();
  const position = new Map<NodeId, number>();
  plan.clusters.forEach((cluster, ci) => {
    if (cluster.nodes.length === 0) report('partition', ci, [], 'the cluster is empty');
    cluster.nodes.forEach((id, pos) => {
      if (!g.byId.has(id)) report('partition', ci, [id], `node #${id} is not a node of this block`);
      else if (clusterOf.has(id)) report('partition', ci, [id], `${label(id)} is also in cluster ${clusterOf.get(id)}`);
      else {
        clusterOf.set(id, ci);
        position.set(id, pos);
      }
    });
  });
  for (const n of g.nodes) {
    if (!clusterOf.has(n.id)) report('partition', null, [n.id], `${n.label} is in no cluster`);
  }
  plan.clusters.forEach((cluster, ci) => {
    const control = cluster.nodes.filter((id) => g.byId.has(id) && isControlKind(g.byId.get(id)!.kind));
    if (control.length > 0 && cluster.nodes.length > 1) {
      report('control-flow-alone', ci, cluster.nodes, `${control.map(label).join(', ')} must be alone in its cluster`);
    }
  });

  const fused = (p: NodeId, c: NodeId): boolean => clusterOf.has(p) && clusterOf.get(p) === clusterOf.get(c);

  // Rules 2 and 3: no infusible edge inside a cluster; dependences go forward.
  for (const e of g.edges) {
    const cp = clusterOf.get(e.producer);
    const cc = clusterOf.get(e.consumer);
    if (cp === undefined || cc === undefined) continue;
    if (cp === cc && e.infusible !== null) {
      report('infusible-edge', cp, [e.producer, e.consumer],
        `${label(e.producer)} and ${label(e.consumer)} are fused over an infusible edge (${e.infusible})`);
    }
    if (cp > cc) {
      report('dependence', cc, [e.producer, e.consumer],
        `${label(e.consumer)} in cluster ${cc} reads ${label(e.producer)}, which comes later, in cluster ${cp}`);
    } else if (cp === cc && position.get(e.producer)! > position.get(e.consumer)!) {
      report('dependence', cc, [e.producer, e.consumer],
        `${label(e.consumer)} is listed before ${label(e.producer)}, whose output it reads`);
    }
  }
  // Orderings that are no reads (a control node's scalar outputs, sizes known only at run
  // time): for IR derived by src/graph/orderings.ts, the one piece of dependence analysis this
  // validator shares with the planner's graph, because it is about scheduling, not fusion rules.
  for (const [consumer, producers] of g.orderings) {
    for (const [producer, why] of producers) {
      const cp = clusterOf.get(producer);
      const cc = clusterOf.get(consumer);
      if (cp === undefined || cc === undefined || cp < cc) continue;
      report('dependence', cc, [producer, consumer],
        `${label(consumer)} in cluster ${cc} must come after ${label(producer)} (${why === 'shape' ? 'it needs a size known only after it' : 'it uses a scalar it computes'}), in cluster ${cp}`);
    }
  }
  for (const n of g.nodes) {
    if (!updatesInPlace(n.kind) || !clusterOf.has(n.id)) continue;
    const destinations = inPlaceDestinations(n);
    const dest = new Set(destinations);
    // The scatter updates `dest` in place while it runs, so it must not read `dest` itself
    // (as index, values, or by indexing in its op), and the memory must be this block's own.
    // Facts of the IR's memory, not of a JSON graph (BlockGraph.ownsScatterDestinations).
    const selfReads = n.reads.filter((r) => dest.has(r.name) && r.role !== factsOf(n.kind)?.updatesInPlace);
    if (g.ownsScatterDestinations && selfReads.length > 0) {
      report('scatter-uniqueness', clusterOf.get(n.id)!, [n.id],
        `${label(n.id)} reads ${selfReads[0]!.name} (${selfReads[0]!.role}) while it updates it in place`);
    }
    for (const d of g.ownsScatterDestinations ? destinations : []) {
      const p = g.producerOf.get(d);
      if (p === undefined ? !g.donatedInputs.has(d) : isControlKind(g.byId.get(p)!.kind)) {
        report('scatter-uniqueness', clusterOf.get(n.id)!, [n.id],
          `${label(n.id)} updates ${d} in place, but no combinator of this block produces ${d} (it needs a copy first)`);
      }
    }
    for (const other of g.nodes) {
      if (other.id === n.id || !clusterOf.has(other.id)) continue;
      const reads = other.reads.filter((r) => dest.has(r.name));
      if (reads.length > 0 && clusterOf.get(other.id)! >= clusterOf.get(n.id)!) {
        report('scatter-uniqueness', clusterOf.get(n.id)!, [n.id, other.id],
          `${label(other.id)} reads ${reads[0]!.name}, which ${label(n.id)} updates in place, so it must be in a cluster before the ${n.kind}'s (it is in cluster ${clusterOf.get(other.id)})`);
      }
    }
  }

  // Rule 4: orders.
  for (const key of Object.keys(plan.orders)) {
    const id = Number(key);
    const n = g.byId.get(id);
    if (n === undefined) report('order', null, [id], `an order is given for #${key}, which is not a node of this block`);
    else if (isControlKind(n.kind)) report('order', clusterOf.get(id) ?? null, [id], `${n.label} is control flow and has no order`);
  }
  const orderOf = (id: NodeId): Order | undefined => plan.orders[id];
  for (const n of g.nodes) {
    if (isControlKind(n.kind)) continue;
    const ci = clusterOf.get(n.id) ?? null;
    const o = orderOf(n.id);
    if (o === undefined) {
      report('order', ci, [n.id], `${n.label} has no order`);
      continue;
    }
    if (o !== 0 && o !== 1) {
      const target = g.byId.get(o.gather);
      if (target === undefined || factsOf(target.kind)?.labelled !== true) {
        report('gather-label', ci, [n.id], `${n.label} has order ${orderKey(o)}, which is not a gather of this block`);
      }
    }
    const orders = factsOf(n.kind)?.outputOrders ?? 'any';
    if (orders !== 'any' && !allowsOrder(orders, o)) {
      report('order', ci, [n.id], `${n.label} is a ${n.kind} and must have order ${ordersText(orders)}, not ${orderKey(o)}`);
    }
  }
  for (const e of g.edges) {
    if (!fused(e.producer, e.consumer) || e.infusible !== null) continue;
    const po = orderOf(e.producer);
    const co = orderOf(e.consumer);
    if (po === undefined) continue;
    for (const r of e.reads) {
      const ro = readOrderOf(r, co);
      if (ro !== null && !sameOrder(ro, po)) {
        report('order', clusterOf.get(e.producer)!, [e.producer, e.consumer],
          `${label(e.producer)} is produced in order ${orderKey(po)} but ${label(e.consumer)} reads ${r.name} (${r.role}) in order ${orderKey(ro)} in the same cluster`);
      }
    }
  }

  // Rule 5: manifest arrays.
  const listed = new Set<VarName>();
  plan.clusters.forEach((cluster, ci) => {
    for (const name of cluster.manifest) {
      const p = g.producerOf.get(name);
      if (p === undefined) report('manifest', ci, [], `${name} is listed as manifest but no node of this block produces it`);
      else if (clusterOf.get(p) !== ci) report('manifest', ci, [p], `${name} is listed as manifest in cluster ${ci}, but ${label(p)} is in cluster ${clusterOf.get(p) ?? 'none'}`);
      listed.add(name);
    }
  });
  for (const n of g.nodes) {
    if (isControlKind(n.kind) || !clusterOf.has(n.id)) continue;
    const ci = clusterOf.get(n.id)!;
    const names = n.outs.map((o) => o.name);
    const present = names.filter((x) => listed.has(x));
    if (present.length > 0 && present.length < names.length) {
      report('manifest', ci, [n.id], `only some outputs of ${n.label} are manifest (${present.join(', ')}); a tuple array is written whole`);
    }
    const manifest = present.length > 0;
    const reasons = manifestReasons(g, n, clusterOf);
    if (!manifest && reasons.length > 0) {
      report('manifest', ci, [n.id], `${n.label} must be manifest: ${reasons.join('; ')}`);
    }
    const o = orderOf(n.id);
    if (manifest && o !== undefined && o !== 0 && o !== 1) {
      report('manifest', ci, [n.id], `${n.label} is manifest, so it must be produced in order 0 or 1, not ${orderKey(o)}`);
    }
  }

  // Rule 6: each cluster is connected by fused edges and shared same-order memory reads.
  plan.clusters.forEach((cluster, ci) => {
    const members = cluster.nodes.filter((id) => clusterOf.get(id) === ci);
    if (members.length < 2) return;
    const parent = new Map(members.map((id) => [id, id] as const));
    const find = (x: NodeId): NodeId => (parent.get(x) === x ? x : find(parent.get(x)!));
    const union = (a: NodeId, b: NodeId): void => void parent.set(find(a), find(b));
    for (const e of g.edges) if (parent.has(e.producer) && parent.has(e.consumer)) union(e.producer, e.consumer);
    const sharers = new Map<string, NodeId>();
    for (const id of members) {
      const n = g.byId.get(id)!;
      for (const r of n.reads) {
        const group = g.groupOf.get(r.name);
        const ro = readOrderOf(r, orderOf(id));
        if (group === undefined || ro === null) continue;
        if (group.producer !== null && clusterOf.get(group.producer) === ci) continue;
        const key = `${group.name}@${orderKey(ro)}`;
        const first = sharers.get(key);
        if (first === undefined) sharers.set(key, id);
        else union(first, id);
      }
    }
    const components = new Map<NodeId, NodeId[]>();
    for (const id of members) components.set(find(id), [...(components.get(find(id)) ?? []), id]);
    if (components.size > 1) {
      const parts = [...components.values()].map((ids) => `{${ids.map(label).join(', ')}}`);
      report('connected', ci, members,
        `the cluster falls apart into ${components.size} parts that share neither a fused edge nor a same-order read: ${parts.join(' and ')}`);
    }
  });

  // In-place updates: every elided copy may be elided, and the plan orders its readers first.
  validateElisions(g, plan, clusterOf, report);

  // Children: every control-flow node has the plans of its blocks, each valid.
  for (const key of Object.keys(plan.children)) {
    const n = g.byId.get(Number(key));
    if (n === undefined || !isControlKind(n.kind)) {
      report('children', null, [Number(key)], `child plans are given for #${key}, which is not a control-flow node of this block`);
    }
  }
  for (const [id, childGraphs] of g.children) {
    const childPlans = plan.children[id];
    if (childPlans === undefined || childPlans.length !== childGraphs.length) {
      report('children', clusterOf.get(id) ?? null, [id],
        `${label(id)} needs ${childGraphs.length} child plans, one per block, and has ${childPlans?.length ?? 0}`);
      continue;
    }
    childGraphs.forEach((cg, i) => validateBlock(cg, childPlans[i]!, out));
  }
}

/** Why a node must be manifest (rule 5), given the clustering; empty when it need not be. */
export function manifestReasons(g: BlockGraph, n: GraphNode, clusterOf: ReadonlyMap<NodeId, number>): string[] {
  const reasons: string[] = [];
  if (g.results.has(n.id)) reasons.push('its output is a result of the block');
  const consumers = g.edges.filter((e) => e.producer === n.id);
  if (consumers.length === 0) reasons.push('nothing consumes it');
  const outside = consumers.filter((e) => clusterOf.get(e.consumer) !== clusterOf.get(n.id));
  if (outside.length > 0) {
    reasons.push(`${outside.map((e) => g.byId.get(e.consumer)!.label).join(', ')} in another cluster read${outside.length === 1 ? 's' : ''} it`);
  }
  return reasons;
}

/**
 * A copy the plan may choose to elide, independent of the plan: `copy` (an identity map) is
 * read only by `scatter`, as its destination; its sources are outputs of one combinator of the
 * block (`producer`), no result, no possible output of a control-flow node, indexed by no scalar
 * that nothing anchors to a node, not read by the scatter itself, updated in place by no other
 * node, and used by no scalar statement after the scatter. Then the scatter may update the sources instead, provided the plan runs
 * every other reader of the sources before it (validateElisions). The same rule as lowering's
 * (src/ir/updates.ts `elidableCopies`), restated from the checker's own facts, so that the brute
 * force enumerates the choices the planner has.
 */
export interface ElisionCandidate {
  readonly copy: NodeId;
  readonly scatter: NodeId;
  readonly producer: NodeId;
  readonly sources: readonly VarName[];
  /** Every other node reading a source: each must be in a cluster before the scatter's. */
  readonly readers: readonly NodeId[];
}

/** Why `copy` cannot be elided whatever the plan (in words), or its candidate. */
function elisionCandidate(g: BlockGraph, copy: NodeId): ElisionCandidate | string {
  const facts = g.inPlace;
  const sources = facts?.copies.get(copy);
  const c = g.byId.get(copy);
  if (facts === undefined || sources === undefined || c === undefined) return 'it is not a copy (an identity map) of this block';
  const outs = c.outs.map((o) => o.name);
  const consumers = g.nodes.filter((n) => n.id !== copy && n.reads.some((r) => outs.includes(r.name)));
  const scatter = consumers[0];
  if (consumers.length !== 1 || scatter === undefined || !updatesInPlace(scatter.kind)) return 'its output is not read by one in-place update alone';
  const dest = inPlaceDestinations(scatter);
  const role = factsOf(scatter.kind)?.updatesInPlace;
  if (dest.length !== outs.length || !dest.every((d, i) => d === outs[i]) || scatter.reads.some((r) => outs.includes(r.name) && r.role !== role)) {
    return `${scatter.label} reads it other than as its whole destination`;
  }
  if (outs.some((o) => facts.resultArrays.has(o))) return 'its output is a result';
  const producers = new Set(sources.map((x) => g.producerOf.get(x)));
  const producer = [...producers][0];
  if (producers.size !== 1 || producer === undefined || isControlKind(g.byId.get(producer)!.kind)) {
    return `its sources (${sources.join(', ')}) are not the outputs of one combinator of this block`;
  }
  const shared = sources.filter((x) => facts.resultArrays.has(x) || facts.aliasedByControl.has(x) || facts.unanchored.has(x));
  if (shared.length > 0) return `${shared.join(', ')} may be seen outside the plan's order (a result, an if or while output, or a scalar no node uses)`;
  if (scatter.reads.some((r) => sources.includes(r.name))) return `${scatter.label} reads ${sources.join(', ')} itself`;
  const other = g.nodes.find((n) => n.id !== scatter.id && inPlaceDestinations(n).some((d) => sources.includes(d)));
  if (other !== undefined) return `${other.label} updates ${sources.join(', ')} in place too`;
  const scatterIndex = scatter.index;
  if (facts.scalars.some((sc) => sc.index > scatterIndex && sources.some((x) => sc.arrays.has(x)))) {
    return `a scalar statement after ${scatter.label} reads ${sources.join(', ')}`;
  }
  const readers = g.nodes.filter((n) => n.id !== copy && n.reads.some((r) => sources.includes(r.name))).map((n) => n.id);
  return { copy, scatter: scatter.id, producer, sources, readers };
}

/** Every copy of the block that a plan may elide (see ElisionCandidate). */
export function elisionCandidates(g: BlockGraph): ElisionCandidate[] {
  return [...(g.inPlace?.copies.keys() ?? [])].map((id) => elisionCandidate(g, id)).filter((c): c is ElisionCandidate => typeof c !== 'string');
}

/**
 * The in-place rule: an elided copy is a candidate, shares its producer's cluster, its sources
 * are manifest (the update writes their memory), every other reader of them is in a cluster
 * before the scatter's, and no two elided copies update the same array.
 */
function validateElisions(
  g: BlockGraph,
  plan: BlockPlan,
  clusterOf: ReadonlyMap<NodeId, number>,
  report: (rule: ViolationRule, cluster: number | null, nodes: readonly NodeId[], message: string) => void,
): void {
  const label = (id: NodeId): string => g.byId.get(id)?.label ?? `#${id}`;
  const written = new Map<VarName, NodeId>();
  const listed = new Set(plan.clusters.flatMap((c) => c.manifest));
  for (const id of plan.elided ?? []) {
    const cand = elisionCandidate(g, id);
    if (typeof cand === 'string') {
      report('in-place', clusterOf.get(id) ?? null, [id], `${label(id)} is elided, but ${cand}`);
      continue;
    }
    const home = clusterOf.get(cand.producer);
    if (home === undefined || clusterOf.get(id) !== home) {
      report('in-place', clusterOf.get(id) ?? null, [id, cand.producer], `${label(id)} is elided, so it must share ${label(cand.producer)}'s cluster`);
    }
    const unwritten = cand.sources.filter((x) => !listed.has(x));
    if (unwritten.length > 0) {
      report('in-place', home ?? null, [cand.producer], `${label(id)} is elided, so ${unwritten.join(', ')} must be manifest: ${label(cand.scatter)} updates their memory`);
    }
    const at = clusterOf.get(cand.scatter);
    for (const r of cand.readers) {
      const cr = clusterOf.get(r);
      if (at !== undefined && cr !== undefined && cr >= at) {
        report('in-place', at, [r, cand.scatter],
          `${label(r)} reads ${cand.sources.join(', ')}, which ${label(cand.scatter)} updates in place (${label(id)} is elided), so it must be in a cluster before the ${g.byId.get(cand.scatter)!.kind}'s (it is in cluster ${cr})`);
      }
    }
    for (const x of cand.sources) {
      const other = written.get(x);
      if (other !== undefined) report('in-place', at ?? null, [other, id], `${label(other)} and ${label(id)} are both elided, so two updates would write ${x}`);
      written.set(x, id);
    }
  }
}
