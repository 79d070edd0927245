// The cost evaluator: the cost of a plan under a CostSpec, computed from the plan and the IR
// (or a JSON graph) alone, exactly as docs/PLANNING.md "Cost functions" defines each term,
// summed over every block. Independent of the ILP (no shared code), so that "ILP objective =
// evaluated cost of its plan" checks the ILP's encoding of the costs.
//
// Byte weights need array sizes: for a program, `staticSizes` (src/graph/sizes.ts) evaluates
// shape expressions where they are known at compile time from the entry shapes it is planned
// for; a JSON graph states sizes and weights itself (options override them, as for planGraph).

import { staticSizes, type EntrySizes } from '../graph/sizes.js';
import { CompilerBug } from '../diagnostics/index.js';
import { elementBytes } from '../ir/scalarOps.js';
import type { GraphJson } from '../graph/jsonFormat.js';
import type { NodeId, Program, VarName } from '../ir/types.js';
import { jsonBlockGraph } from './jsonGraph.js';
import { type CostSpec, type CostTerm, type CostWeights } from '../plan/cost.js';
import { factsOf, inPlaceDestinations, updatesInPlace } from './kinds.js';
import { isControlKind, orderKey, programGraph, readOrderOf, type BlockGraph, type GraphNode, type Group } from './reads.js';
import type { BlockPlan, Plan } from '../plan/types.js';

export interface EvaluateOptions {
  readonly weights?: CostWeights;
  /** Entry array shapes and scalar values; without them every array weighs 1 in `bytes`. */
  readonly shapes?: EntrySizes;
}

export interface Evaluation {
  /** Σ coefficient × term over the spec's terms. */
  readonly total: number;
  /** Each term under the default/user weights (`writes` repeats `intermediate-arrays`). */
  readonly terms: Readonly<Record<CostTerm, number>>;
  /** `reads`, `intermediate-arrays` (what `bytes` sums) and `recompute` with byte weights. */
  readonly byteTerms: { readonly reads: number; readonly 'intermediate-arrays': number; readonly recompute: number };
}

/** Term values of a block (and its nested blocks) before coefficients. */
export interface RawTerms {
  clusters: number;
  fusedEdges: number;
  writes: number;
  reads: number;
  byteWrites: number;
  byteReads: number;
  recompute: number;
  byteRecompute: number;
}

export function evaluatePlan(program: Program, plan: Plan, cost: CostSpec, options: EvaluateOptions = {}): Evaluation {
  return evaluateBlockPlan(program, plan.root, cost, options);
}

/** Evaluates a bare root BlockPlan (the brute force's, or a hand-built one). */
export function evaluateBlockPlan(program: Program, root: BlockPlan, cost: CostSpec, options: EvaluateOptions = {}): Evaluation {
  const context = evaluationContext(program, options);
  return combine(evaluateBlock(programGraph(program), root, context), cost);
}

/**
 * The cost of a plan of a JSON graph, with the graph's own weights and sizes; `options.weights`
 * (by group name and `producer->consumer` node names) and `options.shapes` (by group name)
 * override them, as they do for planGraph. The graph must have passed the reader's checks.
 */
export function evaluateGraphPlan(json: GraphJson, plan: Plan, cost: CostSpec, options: EvaluateOptions = {}): Evaluation {
  return combine(evaluateBlock(jsonBlockGraph(json), plan.root, graphEvaluationContext(options)), cost);
}

/** The evaluation context of a JSON graph: stated sizes per group, overridden by `options.shapes`. */
export function graphEvaluationContext(options: EvaluateOptions = {}): EvaluationContext {
  const shapes = options.shapes ?? {};
  return {
    weights: options.weights ?? {},
    elementsOf: (_name, group) => {
      const shape = shapes[group.name];
      return Array.isArray(shape) ? shape.reduce((a, b) => a * b, 1) : group.elements;
    },
  };
}

/** What evaluating any block of one program (or JSON graph) needs: weights and sizes. */
export interface EvaluationContext {
  readonly weights: CostWeights;
  /** The number of elements of an array of a group, when known at compile time. */
  readonly elementsOf: (name: VarName, group: Group) => number | undefined;
}

export function evaluationContext(program: Program, options: EvaluateOptions = {}): EvaluationContext {
  const sizes = staticSizes(program, options.shapes ?? {});
  return { weights: options.weights ?? {}, elementsOf: (name) => sizes.get(name)?.reduce((a, b) => a * b, 1) };
}

export function combine(raw: RawTerms, cost: CostSpec): Evaluation {
  const terms: Record<CostTerm, number> = {
    clusters: raw.clusters,
    'fused-edges': raw.fusedEdges,
    'intermediate-arrays': raw.writes,
    reads: raw.reads,
    writes: raw.writes,
    recompute: raw.recompute,
  };
  let total = 0;
  for (const t of cost.terms) {
    const value =
      t.byteWeighted && t.term === 'reads'
        ? raw.byteReads
        : t.byteWeighted && (t.term === 'intermediate-arrays' || t.term === 'writes')
          ? raw.byteWrites
          : t.byteWeighted && t.term === 'recompute'
            ? raw.byteRecompute
            : terms[t.term];
    total += t.coefficient * value;
  }
  return { total, terms, byteTerms: { reads: raw.byteReads, 'intermediate-arrays': raw.byteWrites, recompute: raw.byteRecompute } };
}

/** The raw terms of one block's plan plus those of every nested block. */
export function evaluateBlock(g: BlockGraph, plan: BlockPlan, ctx: EvaluationContext): RawTerms {
  const clusterOf = new Map<NodeId, number>();
  plan.clusters.forEach((c, i) => c.nodes.forEach((id) => clusterOf.set(id, i)));
  const cl = (id: NodeId): number => {
    const c = clusterOf.get(id);
    if (c === undefined) throw new CompilerBug('plan evaluation', `${g.path}: node #${id} is in no cluster`);
    return c;
  };
  const weight = (v: Group): number => ctx.weights.arrays?.[v.name] ?? v.weight ?? 1;
  const byteWeight = (v: Group): number => {
    let bytes = 0;
    let elements: number | null = null;
    for (const comp of v.components) {
      const count = ctx.elementsOf(comp.name, v);
      if (count === undefined) return 1;
      elements = count;
      bytes += elementBytes(comp.elem);
    }
    return elements === null ? 1 : elements * bytes;
  };

  // clusters: the longest chain of the cluster dependence DAG.
  const succ = plan.clusters.map(() => new Set<number>());
  for (const e of g.edges) if (cl(e.producer) !== cl(e.consumer)) succ[cl(e.producer)]!.add(cl(e.consumer));
  // Orderings without a read (control-flow scalars, run-time sizes) chain clusters too.
  for (const [consumer, producers] of g.orderings) {
    for (const producer of producers.keys()) if (cl(producer) !== cl(consumer)) succ[cl(producer)]!.add(cl(consumer));
  }
  for (const n of g.nodes) {
    if (!updatesInPlace(n.kind)) continue;
    const dest = inPlaceDestinations(n);
    for (const other of g.nodes) {
      if (other.id !== n.id && other.reads.some((r) => dest.includes(r.name)) && cl(other.id) !== cl(n.id)) {
        succ[cl(other.id)]!.add(cl(n.id));
      }
    }
  }
  // An elided copy's scatter updates the copy's sources: their other readers come first too.
  const elided = new Set(plan.elided ?? []);
  const sourcesOf = new Map<NodeId, readonly VarName[]>();
  for (const id of elided) {
    const sources = g.inPlace?.copies.get(id);
    const copy = g.byId.get(id);
    if (sources === undefined || copy === undefined) throw new CompilerBug('plan evaluation', `${g.path}: elided node #${id} is no copy`);
    sourcesOf.set(id, sources);
    const outs = copy.outs.map((o) => o.name);
    const scatters = g.nodes.filter((n) => n.reads.some((r) => outs.includes(r.name)));
    for (const s of scatters) {
      for (const other of g.nodes) {
        if (other.id !== id && other.id !== s.id && other.reads.some((r) => sources.includes(r.name)) && cl(other.id) !== cl(s.id)) {
          succ[cl(other.id)]!.add(cl(s.id));
        }
      }
    }
  }
  const chain = new Map<number, number>();
  const visiting = new Set<number>();
  const longest = (c: number): number => {
    const known = chain.get(c);
    if (known !== undefined) return known;
    if (visiting.has(c)) throw new CompilerBug('plan evaluation', `${g.path}: the cluster order has a cycle through cluster ${c}`);
    visiting.add(c);
    let best = 0;
    for (const d of succ[c]!) best = Math.max(best, longest(d));
    visiting.delete(c);
    chain.set(c, best + 1);
    return best + 1;
  };
  let clusters = 0;
  plan.clusters.forEach((_, c) => (clusters = Math.max(clusters, longest(c))));

  // fused-edges: fusible edges whose ends are in different clusters.
  let fusedEdges = 0;
  for (const e of g.edges) {
    if (e.infusible !== null || cl(e.producer) === cl(e.consumer)) continue;
    const name = (id: NodeId): string => g.byId.get(id)!.weightName;
    fusedEdges += ctx.weights.edges?.[`${name(e.producer)}->${name(e.consumer)}`] ?? e.weight ?? 1;
  }

  // intermediate-arrays: manifest combinator nodes.
  const listed = new Set(plan.clusters.flatMap((c) => c.manifest));
  let writes = 0;
  let byteWrites = 0;
  for (const n of g.nodes) {
    // An elided copy writes nothing: its output is its sources' memory.
    if (isControlKind(n.kind) || !n.outs.some((o) => listed.has(o.name)) || elided.has(n.id)) continue;
    const group = g.groupOf.get(n.outs[0]!.name)!;
    writes += weight(group);
    byteWrites += byteWeight(group);
  }

  // reads: distinct memory read streams per array group.
  const streams = new Map<Group, Set<string>>();
  for (const c of g.nodes) {
    for (const r of c.reads) {
      const v = g.groupOf.get(r.name);
      if (v === undefined) continue;
      if (v.producer !== null && cl(v.producer) === cl(c.id)) continue; // from a register
      const ro = readOrderOf(r, plan.orders[c.id]);
      const key = ro === null ? `node ${c.id} ${r.role}` : `cluster ${cl(c.id)} order ${orderKey(ro)}`;
      const set = streams.get(v) ?? new Set<string>();
      set.add(key);
      streams.set(v, set);
    }
  }
  let reads = 0;
  let byteReads = 0;
  for (const [v, keys] of streams) {
    reads += weight(v) * keys.size;
    byteReads += byteWeight(v) * keys.size;
  }

  // recompute: a node in the order of gather γ is evaluated |γ| / |src(γ)| times as often.
  let recompute = 0;
  let byteRecompute = 0;
  for (const n of g.nodes) {
    const o = plan.orders[n.id];
    if (isControlKind(n.kind) || o === undefined || typeof o === 'number') continue;
    const factor = growthFactor(g, g.byId.get(o.gather), ctx);
    if (factor === null || factor <= 1) continue;
    const group = g.groupOf.get(n.outs[0]!.name)!;
    recompute += weight(group) * (factor - 1);
    byteRecompute += byteWeight(group) * (factor - 1);
  }

  const total: RawTerms = { clusters, fusedEdges, writes, reads, byteWrites, byteReads, recompute, byteRecompute };
  for (const [id, childGraphs] of g.children) {
    const childPlans = plan.children[id];
    if (childPlans === undefined) throw new CompilerBug('plan evaluation', `${g.path}: no child plans for #${id}`);
    childGraphs.forEach((cg, i) => addInto(total, evaluateBlock(cg, childPlans[i]!, ctx)));
  }
  return total;
}

function addInto(acc: RawTerms, x: RawTerms): void {
  acc.clusters += x.clusters;
  acc.fusedEdges += x.fusedEdges;
  acc.writes += x.writes;
  acc.reads += x.reads;
  acc.byteWrites += x.byteWrites;
  acc.byteReads += x.byteReads;
  acc.recompute += x.recompute;
  acc.byteRecompute += x.byteRecompute;
}

/**
 * |γ| / |src(γ)| of a gather node from static sizes (0 for an empty source); null when either
 * is unknown. The source's size is its first component whose size is known.
 */
function growthFactor(g: BlockGraph, gather: GraphNode | undefined, ctx: EvaluationContext): number | null {
  if (gather === undefined || factsOf(gather.kind)?.labelled !== true) return null;
  const elementsOf = (name: VarName): number | undefined => {
    const group = g.groupOf.get(name);
    return group === undefined ? undefined : ctx.elementsOf(name, group);
  };
  const out = elementsOf(gather.outs[0]!.name);
  const source = gather.reads
    .filter((r) => r.role === 'gather-source')
    .map((r) => elementsOf(r.name))
    .find((count) => count !== undefined);
  if (out === undefined || source === undefined) return null;
  return source === 0 ? 0 : out / source;
}
