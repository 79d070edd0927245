// Sizes and weights as graph data: what the cost terms weigh an array group or an edge by.
//
// Both entries to the graph stage resolve them once, into plain numbers on the graph: a
// program's graphs from the entry shapes and the caller's CostWeights (program.ts), a JSON
// graph from its own `size` and `weight` fields overridden by the caller's (fromJson.ts). The
// planner, the model and the JSON writer then read numbers, never the IR or the options.

import { elementBytes } from '../ir/scalarOps.js';
import type { ArrayGroup } from './types.js';

/**
 * Per-array and per-edge weights (default 1). Array keys: an array group's name, i.e. the
 * VarName of its first component. Edge keys: `producerName->consumerName`, the first output
 * component names of the two nodes.
 */
export interface CostWeights {
  readonly arrays?: Readonly<Record<string, number>>;
  readonly edges?: Readonly<Record<string, number>>;
}

/** The edge key of CostWeights.edges for a producer and a consumer, by their first outputs. */
export function edgeWeightKey(producerName: string, consumerName: string): string {
  return `${producerName}->${consumerName}`;
}

/**
 * w(v) of an array group: its plain weight, or for a byte-weighted term (`bytes`) its size in
 * bytes, every component counted — 1 when its size is not known at compile time.
 */
export function groupWeight(group: ArrayGroup, byteWeighted: boolean): number {
  if (!byteWeighted) return group.weight;
  return group.size === null ? 1 : group.size * group.elems.reduce((s, t) => s + elementBytes(t), 0);
}

/** The number of elements of a shape. */
export function elementCount(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}
