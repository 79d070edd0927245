// How the text plan and the plan picture word traversal orders (docs/PLANNING.md, "Reads";
// docs/PLAN-FORMAT.md, "The text plan" and "The plan picture").
//
// An order is 0 (left to right), 1 (right to left) or the label ℓk of a gather k of the same
// block: the order in which that gather reads its source. A bare `ℓ5` cannot be matched to a
// gather by a reader, so both renderings name the gather wherever a label appears.

import type { DependenceGraph, GraphNode, GraphRead } from '../graph/types.js';
import type { NodeId } from '../ir/types.js';
import type { BlockPlan, Order } from '../plan/types.js';

/** The order a read traverses its array in, resolved against a plan. */
export type ReadOrder =
  | { readonly kind: 'forward' }
  | { readonly kind: 'backward' }
  | { readonly kind: 'gather'; readonly gather: NodeId }
  /** A random-access read: indexing, a scatter's destination, a force's input, control flow. */
  | { readonly kind: 'index' }
  /** The consumer's own order, when there is no plan to say which it is. */
  | { readonly kind: 'unplanned' };

function nodeOf(graph: DependenceGraph, id: NodeId): GraphNode | undefined {
  return graph.nodes.find((n) => n.id === id);
}

export function orderOf(o: Order): ReadOrder {
  return typeof o === 'number' ? { kind: o === 0 ? 'forward' : 'backward' } : { kind: 'gather', gather: o.gather };
}

/** How `read` traverses its array under `plan` (the read table of docs/PLANNING.md). */
export function readOrder(plan: BlockPlan | undefined, read: GraphRead): ReadOrder {
  switch (read.order) {
    case 'output': {
      const o = plan?.orders[read.consumer];
      return o === undefined ? { kind: 'unplanned' } : orderOf(o);
    }
    case 'zero':
      return { kind: 'forward' };
    case 'one':
      return { kind: 'backward' };
    case 'label':
      return { kind: 'gather', gather: read.consumer };
    case 'unordered':
      return { kind: 'index' };
    default:
      return read.order satisfies never;
  }
}

/** `ℓk` for the gather with this node id (`ℓ?` for a node that is no gather of the block). */
export function gatherLabel(graph: DependenceGraph, gather: NodeId): string {
  return `ℓ${nodeOf(graph, gather)?.label ?? '?'}`;
}

/** The gather's name (its output's), for `ℓ2 = gather 'bs' (#1)`. */
export function gatherName(graph: DependenceGraph, gather: NodeId): string {
  return nodeOf(graph, gather)?.name ?? `#${gather}`;
}

/** The text plan's short form: `0`, `1`, `ℓk`, `by index`, `-`. */
export function orderShort(graph: DependenceGraph, order: ReadOrder): string {
  switch (order.kind) {
    case 'forward':
      return '0';
    case 'backward':
      return '1';
    case 'gather':
      return gatherLabel(graph, order.gather);
    case 'index':
      return 'by index';
    case 'unplanned':
      return '-';
    default:
      return order satisfies never;
  }
}

/** The picture's wording: `in order`, `reversed`, `by ℓk (gather 'bs')`, `by index`. */
export function orderPhrase(graph: DependenceGraph, order: ReadOrder): string {
  switch (order.kind) {
    case 'forward':
      return 'in order';
    case 'backward':
      return 'reversed';
    case 'gather':
      return `by ${gatherLabel(graph, order.gather)} (gather '${gatherName(graph, order.gather)}')`;
    case 'index':
      return 'by index';
    case 'unplanned':
      return "in its reader's order";
    default:
      return order satisfies never;
  }
}

/** The key of a gather label for the text plan: `ℓ2 = gather 'bs' (#1)`. */
export function gatherKey(graph: DependenceGraph, gather: NodeId): string {
  return `${gatherLabel(graph, gather)} = gather '${gatherName(graph, gather)}' (#${gather})`;
}

/**
 * The phrases of a set of read orders, in a stable order (forward, backward, gathers by label,
 * by index). More than `spell` gather orders are summarised as `by ℓ2…ℓ28 (27 gathers)`: a
 * stencil reads its grid in 27 orders, and 27 phrases on one edge hide the picture.
 */
export function orderPhrases(graph: DependenceGraph, orders: readonly ReadOrder[], spell = 3): string[] {
  const kinds = new Set(orders.map((o) => o.kind));
  const gathers = [...new Set(orders.flatMap((o) => (o.kind === 'gather' ? [o.gather] : [])))].sort(
    (a, b) => (nodeOf(graph, a)?.label ?? 0) - (nodeOf(graph, b)?.label ?? 0) || a - b,
  );
  const out: string[] = [];
  if (kinds.has('forward')) out.push(orderPhrase(graph, { kind: 'forward' }));
  if (kinds.has('backward')) out.push(orderPhrase(graph, { kind: 'backward' }));
  if (gathers.length > spell) out.push(`by ${gatherLabel(graph, gathers[0]!)}…${gatherLabel(graph, gathers.at(-1)!)} (${gathers.length} gathers)`);
  else for (const g of gathers) out.push(orderPhrase(graph, { kind: 'gather', gather: g }));
  if (kinds.has('index')) out.push(orderPhrase(graph, { kind: 'index' }));
  if (kinds.has('unplanned')) out.push(orderPhrase(graph, { kind: 'unplanned' }));
  return out;
}
