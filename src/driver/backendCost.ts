// The cost a plan minimises when the caller names none: the back end's (ExecutionBackend.cost)
// for the entry sizes, else the planner's default.
//
// A back end that states a launch price K (element transfers per kernel launch) gets
// `reads+writes+recompute + (K ÷ N)*clusters` (plan/cost.ts launchWeightedCost), N the elements
// of the largest entry array: reads and writes are counted in arrays, so a launch is weighed as
// K ÷ N arrays of the size of the data the program was given. Arrays of other sizes (a coarse
// grid of MG, a reduced row) make this an approximation; a byte-weighted cost would need every
// array's size, which arrays made inside a `while` do not have at compile time
// (docs/PLANNING.md "Costs per back end").

import type { EntrySizes } from '../graph/sizes.js';
import { launchWeightedCost } from '../plan/cost.js';
import type { BackendCost } from '../runtime/backend.js';

/**
 * The elements of the largest entry array, or null when the entry has no array or its sizes are
 * not known (a plan without a signature). An empty array counts as one element: a launch still
 * costs K, and K ÷ 0 is no weight.
 */
export function typicalElements(entry: EntrySizes | undefined): number | null {
  if (entry === undefined) return null;
  let largest: number | null = null;
  for (const size of Object.values(entry)) {
    if (typeof size === 'number') continue; // a scalar parameter's value
    const elements = size.reduce((a, b) => a * b, 1);
    largest = Math.max(largest ?? 1, elements, 1);
  }
  return largest;
}

/**
 * The cost text a back end's default plan minimises for these entry sizes, or undefined for the
 * planner's default (`defaultCostText`): a back end without costs of its own, or no entry array
 * to weigh a launch against.
 */
export function backendCostText(cost: BackendCost | undefined, entry: EntrySizes | undefined): string | undefined {
  if (cost === undefined) return undefined;
  const n = typicalElements(entry);
  return n === null ? undefined : launchWeightedCost(cost.launchElements, n);
}
