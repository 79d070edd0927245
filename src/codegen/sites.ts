// Error sites, counter slots and row buffers: the side tables that travel with generated code.
//
// Generated code never builds an error message itself. It calls a runtime helper with a site
// number; the site says what failed and where in the user's source (a Span), and the runtime
// turns it into the same UserError the interpreter raises. Counter slots likewise number the
// (array, order) reads and the array writes that the counters variant of the code records.

import type { Span } from '../diagnostics/index.js';
import type { ScalarType } from '../ir/types.js';
import { orderKey } from '../plan/types.js';

export type SiteKind =
  /** An index out of range: `xs[i]` in element code, or a gather/scatter index. */
  | 'index'
  /** Integer division or remainder by zero, or a negative integer power of zero. */
  | 'divide'
  /** Inputs of an element-wise map (or a gather's index arrays) with different shapes. */
  | 'shape'
  /** A negative generate extent. */
  | 'size'
  /** A `while` past the iteration limit. */
  | 'loop';

export interface ErrorSite {
  readonly kind: SiteKind;
  /** The combinator or expression kind that failed, for the message: `gather`, `map`, `index`. */
  readonly what: string;
  /** The user's name of the array involved, for the message only (never printed into code). */
  readonly array?: string;
  /** More words for the message: the operator of a division, the arrays of a shape check. */
  readonly detail?: string;
  readonly span?: Span;
}

/** How one counted access reads or writes an array. */
export type AccessKind =
  | { readonly kind: 'read'; readonly order: ReadOrder }
  | { readonly kind: 'write' };

/** The order of a memory read as PLANNING.md names it: ordered (0, 1, a gather label) or not. */
export type ReadOrder = 0 | 1 | { readonly gather: number } | 'indexed' | 'unordered';

export interface CounterSlot {
  readonly array: string;
  readonly elem: ScalarType;
  readonly access: AccessKind;
}

/** A stable text key for an order, for maps and test expectations: `0`, `1`, `g3`, `indexed`. */
export function readOrderKey(order: ReadOrder): string {
  return order === 'indexed' || order === 'unordered' ? order : orderKey(order);
}

/** Collects sites and slots while code is generated; frozen into arrays afterwards. */
export class SideTables {
  readonly sites: ErrorSite[] = [];
  readonly slots: CounterSlot[] = [];
  private readonly slotIndex = new Map<string, number>();
  /** How many row buffers (`rt.scratch`) the code uses: each has its own pooled buffer. */
  scratchRows = 0;

  /** A new row-buffer number: a fold over a fused scanr keeps its row in pooled buffer `k`. */
  scratch(): number {
    return this.scratchRows++;
  }

  site(s: ErrorSite): number {
    this.sites.push(s);
    return this.sites.length - 1;
  }

  slot(array: string, elem: ScalarType, access: AccessKind): number {
    const key = `${array}\u0000${access.kind === 'write' ? 'w' : readOrderKey(access.order)}`;
    const existing = this.slotIndex.get(key);
    if (existing !== undefined) return existing;
    this.slots.push({ array, elem, access });
    this.slotIndex.set(key, this.slots.length - 1);
    return this.slots.length - 1;
  }
}
