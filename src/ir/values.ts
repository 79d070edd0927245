// Run-time values shared by the reference interpreter, the fused executor and I/O.
//
// An array is a flat typed array in row-major order with its shape; a rank-0 array has shape
// [] and one element. An array of tuples is several ArrayValues, one per component.

import type { ScalarType } from './types.js';
import { MAX_ARRAY_ELEMENTS, type TypedArray } from './scalarOps.js';

export interface ArrayValue {
  readonly kind: 'array';
  readonly elem: ScalarType;
  readonly shape: readonly number[];
  readonly data: TypedArray;
}

export interface ScalarValue {
  readonly kind: 'scalar';
  readonly elem: ScalarType;
  readonly value: number;
}

export type RuntimeValue = ArrayValue | ScalarValue;

/** What one entry parameter or result is: one value, or the components of an array of tuples. */
export type InterfaceValue = RuntimeValue | readonly RuntimeValue[];

/** The components of an entry parameter's or result's value (one, or one per tuple component). */
export function componentsOf(value: InterfaceValue): readonly RuntimeValue[] {
  return Array.isArray(value) ? (value as readonly RuntimeValue[]) : [value as RuntimeValue];
}

export function sizeOf(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/**
 * Why a shape from outside (an input, `--shape`, `--random`) cannot be an array's, or null:
 * extents are i32 (`shape(xs)` returns them as such) and elements are addressed by i32 flat
 * offsets, so each extent and the element count are at most MAX_ARRAY_ELEMENTS, even where
 * another extent is 0.
 */
export function shapeProblem(shape: readonly number[]): string | null {
  const bad = shape.find((d) => !Number.isInteger(d) || d < 0);
  if (bad !== undefined) return `extent ${bad} is not a non-negative integer`;
  const huge = shape.find((d) => d > MAX_ARRAY_ELEMENTS);
  if (huge !== undefined) return `extent ${huge} is more than the ${MAX_ARRAY_ELEMENTS} an extent can be`;
  const count = sizeOf(shape);
  if (count > MAX_ARRAY_ELEMENTS) return `${count} elements are more than the ${MAX_ARRAY_ELEMENTS} an array can have`;
  return null;
}
