// The JSON graph format, version 1 (docs/PLAN-FORMAT.md "JSON graph input"): its types and the
// reasons it names. What a read role implies and which roles each kind of node may read in are
// the nodes' rules (src/ir/rules.ts). Shared by the reader (fromJson.ts) and the writer
// (toJson.ts).

import type { GraphNodeKind, GraphReadRole, InfusibleReason } from './types.js';
import type { ScalarType } from '../ir/types.js';

export const graphJsonFormat = 'arrayfuse-graph';
export const graphJsonVersion = 1;

/**
 * How deep `if` and `while` blocks may nest in a graph (the top-level block is depth 0; E629
 * beyond). Reading, planning and rendering walk the blocks recursively, a few stack frames per
 * level; the bound keeps every walk far from the stack's limit (the .fuse parser's bound on
 * expression nesting, E124, is 200 levels too).
 */
export const maxGraphBlockDepth = 200;

// ---------------------------------------------------------------------------------------------
// The format (what graphToJson writes; what planGraph accepts after checking)
// ---------------------------------------------------------------------------------------------

export interface GraphJson extends BlockJson {
  readonly format: typeof graphJsonFormat;
  readonly version: typeof graphJsonVersion;
  /** Optional, for people: the program's name. */
  readonly name?: string;
}

export interface BlockJson {
  /** Arrays the block reads but no node of it produces (entry or enclosing arrays, loop params). */
  readonly inputs?: readonly InputJson[];
  readonly nodes: readonly NodeJson[];
  /** Every read of an array by a node: from a node or an input, to a node. */
  readonly edges?: readonly EdgeJson[];
  /** Arrays the block returns (always manifest when a node of the block produces them). */
  readonly results?: readonly string[];
  /**
   * Copies a plan may elide (docs/PLANNING.md "In-place updates"): `map` nodes that copy their
   * input unchanged and are read only by one scatter, as its whole destination. Eliding one makes
   * the scatter update the copy's input in place. Default none.
   */
  readonly elidable?: readonly string[];
}

export interface ArrayFacts {
  /** Element type per component (default `f64`); with `size`, gives the `bytes` weight. */
  readonly elems?: readonly ScalarType[];
  /** Number of elements, for the `bytes` cost (unknown: weight 1). */
  readonly size?: number;
  /** w(v) for the plain costs (default 1). */
  readonly weight?: number;
}

export interface InputJson extends ArrayFacts {
  readonly name: string;
  /** Component arrays of an array of tuples (default: the one array `name`). */
  readonly components?: readonly string[];
}

export interface NodeJson extends ArrayFacts {
  /** Unique within the block; what edges, results and plans name the node by. */
  readonly name: string;
  readonly kind: GraphNodeKind;
  /** Unique within the graph (default: the next free number); the ids of the returned Plan. */
  readonly id?: number;
  /** Arrays produced (default `[name]` for a combinator, none for `if` / `while`). */
  readonly outs?: readonly string[];
  /** `if`: [then, else]; `while`: [cond, body]. Only on control-flow nodes. */
  readonly blocks?: readonly BlockJson[];
}

export interface EdgeJson {
  /** A node or an input of the block. */
  readonly from: string;
  /** A node of the block. */
  readonly to: string;
  /**
   * The read's role; or `order` for an ordering without a read (the consumer uses a scalar the
   * producer computes, or a shape known only once it has run): infusible, with a `reason`.
   */
  readonly role: GraphReadRole | 'order';
  /** The producer's arrays this read touches (default: all of them; none for `order`). */
  readonly arrays?: readonly string[];
  /** Default: fusible unless the role or the kinds say otherwise. */
  readonly fusible?: boolean;
  readonly reason?: InfusibleReason | readonly InfusibleReason[];
  /** w(p, c) for `fused-edges` (default 1); all edges of one producer–consumer pair agree. */
  readonly weight?: number;
}

/** Typed as a record so that a new reason fails to compile until the format names it. */
export const infusibleReasonSet: { readonly [R in InfusibleReason]: true } = {
  indexed: true, 'force-input': true, 'force-output': true, 'scatter-dest': true, 'scatter-output': true, 'control-flow': true, shape: true,
};

export const infusibleReasons = Object.keys(infusibleReasonSet) as InfusibleReason[];
