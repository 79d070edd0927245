// The memory plan: where every manifest array of a compiled program lives, decided once per
// program, plan and entry shapes, after fusion. The planner (src/memory/index.ts) makes it, the
// checker (src/check/memory.ts) validates it independently, the reports show it, and a back end
// allocates exactly its slots, once, and keeps them across runs.
//
// Arrays are the core IR's SSA names (unique across all blocks of a program). An array that a
// plan fuses away has no buffer and no entry here.

import type { VarName } from '../ir/types.js';

/** Where one manifest array's elements live. */
export type BufferRef =
  /** A pooled buffer the program owns and keeps across runs; arrays whose lives do not overlap share it. */
  | { readonly kind: 'slot'; readonly slot: number }
  /**
   * A `while` body's result carried to the next iteration: iteration t (counted from 1) writes
   * `slots[t % 2]` while the previous iteration's value (or the loop's initial value) is read.
   */
  | { readonly kind: 'pair'; readonly slots: readonly [number, number] }
  /** Written directly into the program's flat result `component`: the caller's `out` array, or a fresh one the caller owns. */
  | { readonly kind: 'result'; readonly component: number }
  /** The memory of another array: a scatter updating its destination in place, an elided copy (its source). */
  | { readonly kind: 'alias'; readonly of: VarName }
  /** A fresh allocation each time it is computed (what every array got before memory planning); `why` says why it is not pooled. */
  | { readonly kind: 'fresh'; readonly why: string };

/** A pooled byte buffer; its arrays view it from byte 0. */
export interface Slot {
  /** Capacity in bytes when every member's size is known at compile time; null: sized at run time (grows to the largest seen). */
  readonly bytes: number | null;
  /** The arrays that live in it, in the order their lives start. */
  readonly arrays: readonly VarName[];
}

/** One array's life in execution steps (one step per plan cluster, depth first; inclusive). */
export interface LiveRange {
  readonly array: VarName;
  readonly start: number;
  readonly end: number;
  /** Its size in bytes when known at compile time. */
  readonly bytes: number | null;
}

/** How the flat result component `k` reaches the caller. */
export type ResultDelivery =
  /** Its producer wrote it straight into the result buffer (`out`, or a fresh array). */
  | 'direct'
  /** Copied at the return into the result buffer: it is an input, lives in a slot or loop pair, or is returned twice. */
  | 'copy'
  /** An in-place update wrote it into a donated input's buffer, which is returned (copied into `out` when one is given). */
  | 'donated'
  /** A scalar component: returned as a number. */
  | 'scalar';

/** A compiled program's memory plan: each manifest array's buffer, the pooled slots, how each result is delivered. */
export interface MemoryPlan {
  /** Every manifest array of every block, by SSA name. */
  readonly buffers: Readonly<Record<VarName, BufferRef>>;
  /** The pooled buffers, indexed by `BufferRef` slot numbers. */
  readonly slots: readonly Slot[];
  /** Per flat result component, in `program.results` order. */
  readonly results: readonly ResultDelivery[];
  /** The live ranges the slots were assigned from (for explanations and the validator's messages). */
  readonly ranges: readonly LiveRange[];
  /** Σ bytes of the slots whose size is known at compile time: what the pool allocates up front. */
  readonly peakBytes: number;
  /** How many slots are sized at run time (not in `peakBytes`). */
  readonly dynamicSlots: number;
}
