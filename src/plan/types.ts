// The Plan: what every strategy (ilp, greedy-down, greedy-up, none) returns, what the
// validator checks, and what the code generator compiles. Plain data, JSON-serialisable.
//
// A plan is given per Block: the ordered clusters of the block's graph nodes, the traversal
// order of every combinator's output, and which arrays are manifest (written to memory). A
// control-flow node (`if`, `while`) is a cluster of its own, and each of its blocks has a plan
// of its own (`children`).

import type { NodeId, VarName } from '../ir/types.js';

/**
 * A traversal order (paper §3.2, §4.2): 0 left to right, 1 right to left, or the order in
 * which the gather with this node id reads its source (the paper's label ℓ).
 */
export type Order = 0 | 1 | { readonly gather: NodeId };

/**
 * A stable text key for an order, for maps and comparisons (planner, code generator, counters):
 * `0`, `1`, `g<gather id>`. The checker keeps its own wording (src/check/reads.ts).
 */
export function orderKey(o: Order): string {
  return typeof o === 'number' ? String(o) : `g${o.gather}`;
}

export type Strategy = 'ilp' | 'greedy-down' | 'greedy-up' | 'none';

export interface Cluster {
  /** Graph nodes of the cluster, in an order that respects their dependences. */
  readonly nodes: readonly NodeId[];
  /** Arrays this cluster writes to memory (a subset of its nodes' outputs). */
  readonly manifest: readonly VarName[];
}

export interface BlockPlan {
  /** In execution order. Every graph node of the block is in exactly one cluster. */
  readonly clusters: readonly Cluster[];
  /** Output order of every combinator node of the block (control-flow nodes have none). */
  readonly orders: Readonly<Record<NodeId, Order>>;
  /**
   * Plans of the blocks inside this block's control-flow nodes, by node id:
   * `[then, else]` for an `if`, `[cond, body]` for a `while`.
   */
  readonly children: Readonly<Record<NodeId, readonly BlockPlan[]>>;
  /**
   * Copies lowering inserted before an in-place update that this plan removes: the update then
   * writes the copy's source itself, its other readers all scheduled before it. Absent: none.
   */
  readonly elided?: readonly NodeId[];
}

export type SolveStatus =
  /** The solver proved the plan optimal for the cost. */
  | 'optimal'
  /** A time limit stopped the solver; the plan is the cheapest of its incumbent and the greedy plans (see `gap`). */
  | 'time-limit'
  /** The solver found no plan in time; the plan is the better greedy plan, as the notes say. */
  | 'fallback-greedy'
  /** A heuristic strategy (greedy-down, greedy-up, none): no optimality claim. */
  | 'heuristic';

export interface SolverStats {
  readonly status: SolveStatus;
  /** The cost of this plan under `cost`, recomputed from the plan. */
  readonly objective: number;
  /** A proven lower bound (ilp: always; equals objective when optimal; notes say where it came from). */
  readonly bound: number | null;
  /** Relative gap (objective − bound) / max(1, |objective|); 0 when optimal. */
  readonly gap: number | null;
  /** Branch-and-bound nodes, summed over the blocks' models (ilp only). */
  readonly nodes: number | null;
  /** Milliseconds from the call (graphs, models, solving), solver loading excluded. */
  readonly timeMs: number;
  /** Human-readable remarks, e.g. why a fallback happened. */
  readonly notes: readonly string[];
}

export interface Plan {
  readonly strategy: Strategy;
  /** The cost function, as text (`reads+writes`, `2*reads + writes`, `bytes`). */
  readonly cost: string;
  readonly stats: SolverStats;
  readonly root: BlockPlan;
}
