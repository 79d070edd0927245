// The dependence graph of one Block (paper §4.1, docs/PLANNING.md "Nodes, arrays and reads").
//
// Nodes are the block's combinators and control-flow statements; array groups are what costs
// are counted over (all outputs of one combinator, or one array from outside the block); reads
// record who reads which group in which role and order; edges join a producer node to a
// consumer node with every read that caused them, fusible or not, and why not. The planner
// strategies, the ILP model and the plan renderers all work from this one structure.
//
// The graph is free of IR: what planning needs of a statement is a plain fact here (its kind,
// its outputs' element types, a scatter's destination, sizes and weights), so a graph built
// from a Program (build.ts) and one read from JSON (fromJson.ts) are the same kind of value.

import type { Span } from '../diagnostics/index.js';
import type { NodeId, ScalarType, VarName } from '../ir/types.js';
import type { GraphReadRole, InfusibleReason, NodeKind, ReadOrderRule } from '../ir/rules.js';

// What a role, a kind and a reason mean is the nodes' rules (src/ir/rules.ts).
export type { GraphReadRole, InfusibleReason } from '../ir/rules.js';
export type GraphNodeKind = NodeKind;

export interface GraphNode {
  readonly id: NodeId;
  /** Position among the block's graph nodes (statement order, a topological order). */
  readonly index: number;
  readonly kind: GraphNodeKind;
  /** Human-readable name: the first output's name (`if#3` for an output-less node). */
  readonly name: string;
  /** Array outputs (scalars excluded). */
  readonly outs: readonly VarName[];
  /** The element type of each of `outs`. */
  readonly elems: readonly ScalarType[];
  /** The arrays it updates in place (a scatter's destination, rules.ts `updatesInPlace`); else empty. */
  readonly dest: readonly VarName[];
  /** The array group of a combinator's outputs; null for control-flow nodes (theirs are sources). */
  readonly group: number | null;
  /** A gather's label ℓ, 2 … g+1 in statement order among the block's gathers; else null. */
  readonly label: number | null;
  /** Where the statement came from (noSpan for a node read from JSON). */
  readonly span: Span;
}

export interface ArrayGroup {
  readonly index: number;
  /** The first component's name: the key of CostWeights.arrays. */
  readonly name: string;
  readonly names: readonly VarName[];
  readonly elems: readonly ScalarType[];
  /** The combinator node producing it, or null for a source (read from memory before the block). */
  readonly producer: NodeId | null;
  /** For a source that is an output of a control-flow node of this block: that node. */
  readonly definedBy: NodeId | null;
  /** Number of elements when known at compile time (the `bytes` cost, `recompute`), else null. */
  readonly size: number | null;
  /** w(v) for the plain costs (CostWeights.arrays; default 1). */
  readonly weight: number;
}

export interface GraphRead {
  readonly consumer: NodeId;
  readonly group: number;
  readonly role: GraphReadRole;
  readonly order: ReadOrderRule;
  /** The component arrays this read touches. */
  readonly arrays: readonly VarName[];
}

export interface GraphEdge {
  readonly from: NodeId;
  readonly to: NodeId;
  readonly fusible: boolean;
  /** Empty exactly when fusible. */
  readonly reasons: readonly InfusibleReason[];
  /** The consumer's reads of the producer's group that cause this edge. */
  readonly reads: readonly GraphRead[];
  /** w(p, c) for `fused-edges` (CostWeights.edges; default 1). */
  readonly weight: number;
}

/** A scatter's temporal uniqueness: `before` reads the scatter's destination, so runs first. */
export interface StrictPrecedence {
  readonly before: NodeId;
  readonly scatter: NodeId;
}

/**
 * A copy before an in-place update that the plan may elide (src/ir/updates.ts `elidableCopies`;
 * docs/PLANNING.md "In-place updates"). Eliding it is valid when the copy shares the producer's
 * cluster, the sources are manifest (the update writes their memory) and every reader runs in
 * a cluster before the scatter's; it saves the copy's write.
 */
export interface ElidableCopy {
  readonly copy: NodeId;
  readonly scatter: NodeId;
  /** The combinator producing the sources (the copy's only input group). */
  readonly producer: NodeId;
  /** The copy's inputs: the arrays the scatter updates when the copy is elided. */
  readonly sources: readonly VarName[];
  /** Every other node reading a source (control-flow nodes included): all must precede the scatter. */
  readonly readers: readonly NodeId[];
}

export interface DependenceGraph {
  readonly nodes: readonly GraphNode[];
  readonly groups: readonly ArrayGroup[];
  readonly reads: readonly GraphRead[];
  readonly edges: readonly GraphEdge[];
  readonly precedences: readonly StrictPrecedence[];
  /** Groups produced by combinators of this block that are block results (always manifest). */
  readonly resultGroups: readonly number[];
  /** Number of gathers in the block (g of the paper). */
  readonly gatherCount: number;
  /** Copies the plan may elide; absent or empty: none. */
  readonly elidableCopies?: readonly ElidableCopy[];
}

/** Lookups used everywhere the graph is walked. */
export function nodeById(g: DependenceGraph, id: NodeId): GraphNode {
  const n = g.nodes.find((x) => x.id === id);
  if (n === undefined) throw new Error(`graph: no node ${id}`);
  return n;
}
