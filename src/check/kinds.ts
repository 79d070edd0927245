// The checker's own facts about each kind of combinator, as docs/PLANNING.md states them: the
// orders its output may have (rule 4), whether its output is a stream others may fuse with
// ("Edges"), whether it updates arrays in place (rule 3), and whether it carries a label of its
// own (a gather). The validator, the evaluator, the brute force and both of the checker's graph
// builders read this table instead of testing `kind`.
//
// Written down here a second time on purpose: the planner's rule table (src/ir/rules.ts) states
// the same facts for the graph builder and the planners, and the checker is their independent
// cross-check, so it does not import that table (test/check/imports.test.ts). The table is
// typed `{ [K in CombinatorKind]: … }`, so a new combinator fails to compile here until the
// checker's facts about it are written as well.

import type { CombinatorKind, VarName } from '../ir/types.js';
import type { Order } from '../plan/types.js';
import type { GraphNode, NodeKind, ReadRole } from './reads.js';

/**
 * The orders a combinator's output may be produced in (PLANNING.md rule 4): `any` — 0, 1 or a
 * gather's label; `zero-or-one` — 0 or 1 only; `zero` / `one` — that order only.
 */
export type OutputOrders = 'any' | 'zero-or-one' | 'zero' | 'one';

export interface KindFacts {
  readonly outputOrders: OutputOrders;
  /** Why no edge out of it can fuse (its output is no stream), in words; null when it can. */
  readonly unstreamedOutput: string | null;
  /** The role of its reads of the arrays it updates in place (rule 3); null if it updates none. */
  readonly updatesInPlace: ReadRole | null;
  /** Whether its own id is an order (a label ℓ) other nodes may be produced in. */
  readonly labelled: boolean;
}

export const kindFacts: { readonly [K in CombinatorKind]: KindFacts } = {
  generate: { outputOrders: 'any', unstreamedOutput: null, updatesInPlace: null, labelled: false },
  map: { outputOrders: 'any', unstreamedOutput: null, updatesInPlace: null, labelled: false },
  gather: { outputOrders: 'any', unstreamedOutput: null, updatesInPlace: null, labelled: true },
  scatter: {
    outputOrders: 'zero-or-one',
    unstreamedOutput: 'the producer is a scatter (its result is written in no order)',
    updatesInPlace: 'scatter-dest',
    labelled: false,
  },
  fold: { outputOrders: 'any', unstreamedOutput: null, updatesInPlace: null, labelled: false },
  scanl: { outputOrders: 'zero', unstreamedOutput: null, updatesInPlace: null, labelled: false },
  scanr: { outputOrders: 'one', unstreamedOutput: null, updatesInPlace: null, labelled: false },
  force: { outputOrders: 'zero-or-one', unstreamedOutput: 'the producer is a force', updatesInPlace: null, labelled: false },
};

/** The facts of a node's kind; null for a control-flow node (it has no order and no output stream). */
export function factsOf(kind: NodeKind): KindFacts | null {
  return Object.hasOwn(kindFacts, kind) ? kindFacts[kind as CombinatorKind] : null;
}

/** The arrays a node updates in place: its reads in its kind's in-place role; none for most kinds. */
export function inPlaceDestinations(n: GraphNode): VarName[] {
  const role = factsOf(n.kind)?.updatesInPlace ?? null;
  return role === null ? [] : n.reads.filter((r) => r.role === role).map((r) => r.name);
}

/** Whether a node of this kind updates arrays in place. */
export function updatesInPlace(kind: NodeKind): boolean {
  return (factsOf(kind)?.updatesInPlace ?? null) !== null;
}

/** The orders a free node of this kind may be given (a label only by a fused read, never free). */
export function freeOrders(orders: OutputOrders): readonly Order[] {
  switch (orders) {
    case 'zero':
      return [0];
    case 'one':
      return [1];
    case 'any':
    case 'zero-or-one':
      return [0, 1];
    default:
      return orders satisfies never;
  }
}

/** Whether `order` is allowed for an output of these orders (a label's gather checked apart). */
export function allowsOrder(orders: OutputOrders, order: Order): boolean {
  switch (orders) {
    case 'any':
      return true;
    case 'zero-or-one':
      return order === 0 || order === 1;
    case 'zero':
      return order === 0;
    case 'one':
      return order === 1;
    default:
      return orders satisfies never;
  }
}

/** The allowed orders in words, for messages: `0`, `1`, `0 or 1`. */
export function ordersText(orders: Exclude<OutputOrders, 'any'>): string {
  switch (orders) {
    case 'zero':
      return '0';
    case 'one':
      return '1';
    case 'zero-or-one':
      return '0 or 1';
    default:
      return orders satisfies never;
  }
}
