// Plan output: text (for people), JSON (versioned, docs/PLAN-FORMAT.md), DOT and SVG (via
// @viz-js/viz), and the ILP as CPLEX LP / free MPS text for --emit-lp / --emit-mps.

import { planToDot, type PlanDotOptions } from './dot.js';
import { graphToJson } from '../graph/toJson.js';
import type { DependenceGraph, GraphNode, InfusibleReason } from '../graph/types.js';
import { gatherKey, orderOf, orderShort, readOrder, type ReadOrder } from './orders.js';
import type { NodeId } from '../ir/types.js';
import type { BlockGraphs } from '../graph/program.js';
import { resolveCost } from '../plan/index.js';
import { programLpText, programMpsText } from '../plan/ilp/export.js';
import type { BlockPlan, Order, Plan } from '../plan/types.js';
import type { CostSpec } from '../plan/cost.js';
import type { MemoryPlan } from '../memory/types.js';

function nodeOf(graph: DependenceGraph, id: NodeId): GraphNode {
  return graph.nodes.find((n) => n.id === id)!;
}

/** The text form of a node's output order (`-` for a node without one). */
function outputOrderText(graph: DependenceGraph, o: Order | undefined): string {
  return o === undefined ? '-' : orderShort(graph, orderOf(o));
}

/** The gathers whose labels an order names (none, or one). */
function labelledGathers(o: ReadOrder): NodeId[] {
  return o.kind === 'gather' ? [o.gather] : [];
}

/**
 * One block: per cluster, the memory read streams (array and order; a read shared by several
 * nodes in one order is one stream), the nodes with their output orders (fused away or
 * written), then why each edge between clusters is not fused.
 */
function blockText(bg: BlockGraphs, plan: BlockPlan, indent: string, out: string[]): void {
  const { graph } = bg;
  const clusterOf = new Map<NodeId, number>();
  plan.clusters.forEach((c, i) => c.nodes.forEach((id) => clusterOf.set(id, i)));
  plan.clusters.forEach((c, i) => {
    const manifest = new Set(c.manifest);
    const inCluster = new Set(c.nodes);
    const streams = new Set<string>();
    // The gathers whose labels this cluster's lines mention, keyed on the `labels` line.
    const labelled = new Set<NodeId>();
    for (const r of graph.reads) {
      if (!inCluster.has(r.consumer)) continue;
      const producer = graph.groups[r.group]!.producer;
      if (producer !== null && inCluster.has(producer) && r.order !== 'unordered') continue; // from a register
      const order = readOrder(plan, r);
      labelledGathers(order).forEach((g) => labelled.add(g));
      streams.add(`${graph.groups[r.group]!.name}:${orderShort(graph, order)}`);
    }
    const computes = c.nodes.map((id) => {
      const n = nodeOf(graph, id);
      if (n.kind === 'if' || n.kind === 'while') return `${n.name} (${n.kind})`;
      const written = n.outs.some((o) => manifest.has(o));
      // An elided copy (BlockPlan.elided) is no loop: its scatter updates the copy's input in place.
      if (plan.elided?.includes(id) === true) return `${n.name} (elided: ${nodeOf(graph, graph.edges.find((e) => e.from === id)?.to ?? id).name} updates ${graph.elidableCopies?.find((c) => c.copy === id)?.sources.join(', ') ?? '?'} in place)`;
      const o = plan.orders[id];
      if (o !== undefined) labelledGathers(orderOf(o)).forEach((g) => labelled.add(g));
      return `${n.name}:${outputOrderText(graph, o)}${written ? '' : ' (fused away)'}`;
    });
    const labels = [...labelled].sort((a, b) => (nodeOf(graph, a).label ?? 0) - (nodeOf(graph, b).label ?? 0));
    out.push(`${indent}cluster ${i + 1}`);
    out.push(`${indent}  reads    ${[...streams].join(', ') || '-'}`);
    out.push(`${indent}  computes ${computes.join(', ')}`);
    out.push(`${indent}  writes   ${c.manifest.join(', ') || '-'}`);
    if (labels.length > 0) out.push(`${indent}  labels   ${labels.map((g) => gatherKey(graph, g)).join(', ')}`);
    for (const id of c.nodes) {
      const children = bg.children[id];
      const plans = plan.children[id];
      if (children === undefined || plans === undefined) continue;
      const names = nodeOf(graph, id).kind === 'if' ? ['then', 'else'] : ['cond', 'body'];
      children.forEach((child, k) => {
        out.push(`${indent}  ${names[k]} block of ${nodeOf(graph, id).name}:`);
        blockText(child, plans[k]!, `${indent}    `, out);
      });
    }
  });
  const unfused = graph.edges.filter((e) => clusterOf.get(e.from) !== clusterOf.get(e.to));
  if (unfused.length > 0) out.push(`${indent}unfused edges`);
  for (const e of unfused) {
    const why = e.fusible ? 'fusible, but the optimum keeps them apart' : `infusible: ${e.reasons.map(reasonText).join(', ')}`;
    out.push(`${indent}  ${nodeOf(graph, e.from).name} -> ${nodeOf(graph, e.to).name}: ${why}`);
  }
}

function reasonText(reason: InfusibleReason): string {
  switch (reason) {
    case 'indexed':
      return 'the consumer reads it by indexing, so it must be complete first';
    case 'force-input':
      return 'it is the input of a force';
    case 'force-output':
      return 'it is the result of a force';
    case 'scatter-dest':
      return "it is a scatter's destination, updated in place";
    case 'scatter-output':
      return "it is a scatter's result, complete only after the scatter";
    case 'control-flow':
      return 'control flow (if/while) fuses with nothing';
    case 'shape':
      return 'the consumer needs its size, which is known only after the producer has run';
    default:
      return reason satisfies never;
  }
}

/**
 * One line on the memory plan: the bytes its compile-time-sized slots hold (what a run allocates
 * for intermediates up front), how many slots, how many of them sized at run time, and how many
 * manifest arrays share them.
 */
export function memorySummary(memory: MemoryPlan): string {
  // A loop pair's array is in both of its slots: count arrays, not memberships.
  const arrays = new Set(memory.slots.flatMap((s) => s.arrays)).size;
  const dynamic = memory.dynamicSlots === 0 ? '' : `, ${memory.dynamicSlots} sized at run time`;
  return `memory: peak ${memory.peakBytes} bytes in ${memory.slots.length} slot(s)${dynamic}, holding ${arrays} of ${Object.keys(memory.buffers).length} manifest array(s)`;
}

/**
 * Clusters in execution order, each array's order and manifest flag, why edges are unfused,
 * stats, and (when planned from a program) a line on the memory plan.
 */
export function renderPlanText(graphs: BlockGraphs, plan: Plan, memory?: MemoryPlan): string {
  const out = [`plan: strategy ${plan.strategy}, cost ${plan.cost}; orders 0 forward, 1 backward, ℓk as gather k reads its source (each cluster's labels line names the gathers)`];
  blockText(graphs, plan.root, '  ', out);
  const s = plan.stats;
  const proof = s.bound === null ? '' : `, bound ${s.bound}, gap ${s.gap ?? '-'}, ${s.nodes ?? '-'} branch-and-bound nodes`;
  out.push(`objective ${s.objective} (${s.status}${proof}), planned in ${s.timeMs.toFixed(1)} ms`);
  for (const note of s.notes) out.push(`note: ${note}`);
  if (memory !== undefined) out.push(memorySummary(memory));
  // A graph JSON's names are any text: a line break or a direction mark in one must not forge or
  // reorder report lines, so such characters are shown escaped, as in the LP file's comments.
  return out.map((line) => line.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`)).join('\n') + '\n';
}

/** The JSON plan format, version 1 (docs/PLAN-FORMAT.md). */
export interface PlanJson {
  readonly version: 1;
  readonly strategy: Plan['strategy'];
  readonly cost: string;
  readonly status: Plan['stats']['status'];
  readonly objective: number;
  readonly bound: number | null;
  readonly gap: number | null;
  readonly solverNodes: number | null;
  readonly timeMs: number;
  readonly notes: readonly string[];
  readonly clusters: readonly ClusterJson[];
  /** The memory plan, when the plan was made from a program (absent for a JSON graph's plan). */
  readonly memory?: MemoryJson;
}

/** The memory plan's summary: pooled slots (arrays share one when their lives do not overlap). */
export interface MemoryJson {
  /** Σ bytes of the slots sized at compile time. */
  readonly peakBytes: number;
  /** Per slot: its capacity in bytes (null: sized at run time) and the arrays it holds, in the order their lives start. */
  readonly slots: readonly { readonly bytes: number | null; readonly arrays: readonly string[] }[];
  /** How many slots are sized at run time (not in peakBytes). */
  readonly dynamicSlots: number;
}

export interface ClusterJson {
  /** Source names of the values computed (first output of each node). */
  readonly nodes: readonly string[];
  readonly ids: readonly NodeId[];
  readonly manifest: readonly string[];
  /** Output order per node name: "0", "1" or "gather:<name of the gather>". */
  readonly orders: Readonly<Record<string, string>>;
  /** Plans of the blocks of a control-flow node in this cluster: `[then, else]` / `[cond, body]`. */
  readonly blocks?: readonly (readonly ClusterJson[])[];
  /** Elided copies in this cluster (BlockPlan.elided): their scatters update the copies' inputs in place. */
  readonly elided?: readonly string[];
}

function clustersJson(bg: BlockGraphs, plan: BlockPlan): ClusterJson[] {
  const { graph } = bg;
  return plan.clusters.map((c) => {
    const orders: Record<string, string> = {};
    for (const id of c.nodes) {
      const o = plan.orders[id];
      if (o === undefined) continue;
      // An own data property, also for a node named `__proto__` (which assignment would take as the prototype).
      Object.defineProperty(orders, nodeOf(graph, id).name, {
        value: typeof o === 'number' ? String(o) : `gather:${nodeOf(graph, o.gather).name}`,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    const blocks = c.nodes.flatMap((id) => {
      const children = bg.children[id];
      const plans = plan.children[id];
      return children === undefined || plans === undefined ? [] : children.map((child, k) => clustersJson(child, plans[k]!));
    });
    const elided = c.nodes.filter((id) => plan.elided?.includes(id) === true).map((id) => nodeOf(graph, id).name);
    const base = { nodes: c.nodes.map((id) => nodeOf(graph, id).name), ids: c.nodes, manifest: c.manifest, orders, ...(elided.length === 0 ? {} : { elided }) };
    return blocks.length === 0 ? base : { ...base, blocks };
  });
}

/** The JSON plan's `memory` section (docs/PLAN-FORMAT.md): peak bytes, the slots with their arrays, how many are sized at run time. */
export function memoryJson(memory: MemoryPlan): MemoryJson {
  return {
    peakBytes: memory.peakBytes,
    slots: memory.slots.map((slot) => ({ bytes: slot.bytes, arrays: slot.arrays })),
    dynamicSlots: memory.dynamicSlots,
  };
}

/** The JSON plan; `memory` (a program's memory plan) adds the optional `memory` section. */
export function renderPlanJson(graphs: BlockGraphs, plan: Plan, memory?: MemoryPlan): PlanJson {
  const s = plan.stats;
  const base: PlanJson = {
    version: 1,
    strategy: plan.strategy,
    cost: plan.cost,
    status: s.status,
    objective: s.objective,
    bound: s.bound,
    gap: s.gap,
    solverNodes: s.nodes,
    timeMs: s.timeMs,
    notes: s.notes,
    clusters: clustersJson(graphs, plan.root),
  };
  return memory === undefined ? base : { ...base, memory: memoryJson(memory) };
}

/** The plan picture as DOT (docs/PLAN-FORMAT.md, "The plan picture"): every block, nested, with a legend. */
export function renderPlanDot(graphs: BlockGraphs, plan?: Plan, options?: PlanDotOptions): string {
  return planToDot(graphs, plan?.root, options);
}

/** The plan picture as SVG, laid out by Graphviz (@viz-js/viz, loaded on demand). */
export async function renderPlanSvg(graphs: BlockGraphs, plan?: Plan, options?: PlanDotOptions): Promise<string> {
  const viz = await import('@viz-js/viz');
  const instance = await viz.instance();
  return instance.renderString(renderPlanDot(graphs, plan, options), { format: 'svg' });
}

/**
 * The ILP of every block (root, then the blocks of each if/while) as one CPLEX LP model
 * (--emit-lp): names prefixed by block (`b0_pi_3`), comments mapping columns to arrays and
 * edges; its optimum is the plan's objective when every block is optimal (export.ts).
 */
export function emitLp(graphs: BlockGraphs, cost: string | CostSpec | undefined): string {
  return programLpText(graphs, resolveCost(cost));
}

/** The ILP of every block as one free MPS model (--emit-mps); see emitLp. */
export function emitMps(graphs: BlockGraphs, cost: string | CostSpec | undefined): string {
  return programMpsText(graphs, resolveCost(cost));
}

/** What `renderPlan` can write: the plan (text, JSON v1, DOT, SVG), the graph (JSON), the ILP (LP, MPS). */
export type PlanFormat = 'text' | 'json' | 'dot' | 'svg' | 'graph-json' | 'lp' | 'mps';

export const planFormats: readonly PlanFormat[] = ['text', 'json', 'dot', 'svg', 'graph-json', 'lp', 'mps'];

/** A plan with what the formats draw on: its graphs, the memory plan (programs only), a name for the graph JSON, the cost planned for. */
export interface RenderablePlan {
  readonly graphs: BlockGraphs;
  readonly plan: Plan;
  readonly memory?: MemoryPlan;
  readonly name: string;
  readonly cost?: string | CostSpec;
}

/** One plan in one format: the CLI's `plan --format` and the API's `render` share it. */
export async function renderPlan(format: PlanFormat, planned: RenderablePlan): Promise<string> {
  const { graphs, plan, memory } = planned;
  switch (format) {
    case 'text':
      return renderPlanText(graphs, plan, memory);
    case 'json':
      return JSON.stringify(renderPlanJson(graphs, plan, memory), null, 2);
    case 'dot':
      return renderPlanDot(graphs, plan);
    case 'svg':
      return renderPlanSvg(graphs, plan);
    case 'graph-json':
      return JSON.stringify(graphToJson(graphs, planned.name), null, 2);
    case 'lp':
      return emitLp(graphs, planned.cost);
    case 'mps':
      return emitMps(graphs, planned.cost);
    default:
      throw new TypeError(`unknown plan format ${JSON.stringify(format satisfies never)}: expected one of ${planFormats.join(', ')}`);
  }
}
