// Plan output: text (for people), JSON (versioned, docs/PLAN-FORMAT.md), DOT and SVG (via
// @viz-js/viz), and the ILP as CPLEX LP / free MPS text for --emit-lp / --emit-mps.

import { toDot } from '../graph/dot.js';
import type { DependenceGraph, GraphNode } from '../graph/types.js';
import type { NodeId } from '../ir/types.js';
import { resolveCost, type BlockGraphs } from './index.js';
import { buildModel } from './ilp/model.js';
import { toLpText, toMpsText } from './ilp/lpfile.js';
import type { BlockPlan, Order, Plan } from './types.js';
import type { CostSpec } from './cost.js';

function nodeOf(graph: DependenceGraph, id: NodeId): GraphNode {
  return graph.nodes.find((n) => n.id === id)!;
}

function orderText(graph: DependenceGraph, o: Order | undefined): string {
  if (o === undefined) return '-';
  if (typeof o === 'number') return String(o);
  const g = graph.nodes.find((n) => n.id === o.gather);
  return `l${g?.label ?? '?'}(${g?.name ?? o.gather})`;
}

function blockText(bg: BlockGraphs, plan: BlockPlan, indent: string, out: string[]): void {
  const { graph } = bg;
  const clusterOf = new Map<NodeId, number>();
  plan.clusters.forEach((c, i) => c.nodes.forEach((id) => clusterOf.set(id, i)));
  plan.clusters.forEach((c, i) => {
    const manifest = new Set(c.manifest);
    const parts = c.nodes.map((id) => {
      const n = nodeOf(graph, id);
      const written = n.outs.some((o) => manifest.has(o)) ? ' manifest' : '';
      return `${n.name}:${orderText(graph, plan.orders[id])}${written}`;
    });
    out.push(`${indent}cluster ${i}: ${parts.join(', ')}`);
    for (const id of c.nodes) {
      const children = bg.children[id];
      const plans = plan.children[id];
      if (children === undefined || plans === undefined) continue;
      const names = nodeOf(graph, id).kind === 'if' ? ['then', 'else'] : ['cond', 'body'];
      children.forEach((child, k) => {
        out.push(`${indent}  ${names[k]} of ${nodeOf(graph, id).name}:`);
        blockText(child, plans[k]!, `${indent}    `, out);
      });
    }
  });
  for (const e of graph.edges) {
    if (clusterOf.get(e.from) === clusterOf.get(e.to)) continue;
    const why = e.fusible ? 'not fused (the plan chose so)' : `infusible: ${e.reasons.join(', ')}`;
    out.push(`${indent}  edge ${nodeOf(graph, e.from).name} -> ${nodeOf(graph, e.to).name}: ${why}`);
  }
}

/** Clusters in execution order, each array's order and manifest flag, why edges are unfused, stats. */
export function renderPlanText(graphs: BlockGraphs, plan: Plan): string {
  const out = [`plan (${plan.strategy}, cost ${plan.cost})`];
  blockText(graphs, plan.root, '  ', out);
  const s = plan.stats;
  out.push(`objective ${s.objective}  status ${s.status}`);
  if (s.bound !== null) out.push(`bound ${s.bound}  gap ${s.gap ?? '-'}  nodes ${s.nodes ?? '-'}`);
  out.push(`time ${s.timeMs.toFixed(1)} ms`);
  for (const note of s.notes) out.push(`note: ${note}`);
  return out.join('\n') + '\n';
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
}

function clustersJson(bg: BlockGraphs, plan: BlockPlan): ClusterJson[] {
  const { graph } = bg;
  return plan.clusters.map((c) => {
    const orders: Record<string, string> = {};
    for (const id of c.nodes) {
      const o = plan.orders[id];
      if (o === undefined) continue;
      orders[nodeOf(graph, id).name] = typeof o === 'number' ? String(o) : `gather:${nodeOf(graph, o.gather).name}`;
    }
    const blocks = c.nodes.flatMap((id) => {
      const children = bg.children[id];
      const plans = plan.children[id];
      return children === undefined || plans === undefined ? [] : children.map((child, k) => clustersJson(child, plans[k]!));
    });
    const base = { nodes: c.nodes.map((id) => nodeOf(graph, id).name), ids: c.nodes, manifest: c.manifest, orders };
    return blocks.length === 0 ? base : { ...base, blocks };
  });
}

export function renderPlanJson(graphs: BlockGraphs, plan: Plan): PlanJson {
  const s = plan.stats;
  return {
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
}

/** DOT of the root block with the plan's clusters. */
export function renderPlanDot(graphs: BlockGraphs, plan?: Plan): string {
  return toDot(graphs.graph, plan?.root);
}

/** SVG rendered from the DOT with @viz-js/viz (loaded on demand). */
export async function renderPlanSvg(graphs: BlockGraphs, plan?: Plan): Promise<string> {
  const viz = await import('@viz-js/viz');
  const instance = await viz.instance();
  return instance.renderString(renderPlanDot(graphs, plan), { format: 'svg' });
}

/** The root block's ILP as CPLEX LP text (--emit-lp). */
export function emitLp(graphs: BlockGraphs, cost: string | CostSpec | undefined): string {
  return toLpText(buildModel(graphs.graph, resolveCost(cost), graphs.weights));
}

/** The root block's ILP as free MPS text (--emit-mps). */
export function emitMps(graphs: BlockGraphs, cost: string | CostSpec | undefined): string {
  return toMpsText(buildModel(graphs.graph, resolveCost(cost), graphs.weights));
}
