// Run-time input values for generated programs.
//
// Floats are multiples of 1/8 in [-10, 10] (exact in f32 and f64, so sums of a few of them are
// exact whatever the order); integers are mostly small with some anywhere in the 32-bit range,
// so that arithmetic on them overflows and has to wrap identically in every backend.

import type { ScalarType } from '../../src/ir/types.js';
import { allocate, wrap } from '../../src/ir/scalarOps.js';
import type { ArrayValue, ScalarValue } from '../../src/ir/values.js';
import { sizeOf } from '../../src/ir/values.js';
import { type Rng, chance } from './rng.js';

export function randomElement(rng: Rng, elem: ScalarType): number {
  switch (elem) {
    case 'f64':
    case 'f32':
      return wrap(elem, rng.int(-80, 80) / 8);
    case 'i32':
      return chance(rng, 0.75) ? rng.int(-20, 20) : wrap('i32', rng.int(-2147483648, 2147483647));
    case 'u32':
      return chance(rng, 0.75) ? rng.int(0, 20) : rng.int(0, 4294967295);
    case 'u8':
      return chance(rng, 0.75) ? rng.int(0, 20) : rng.int(0, 255);
    case 'i8':
      return chance(rng, 0.75) ? rng.int(-20, 20) : rng.int(-128, 127);
    case 'bool':
      return rng.int(0, 1);
    default:
      return elem satisfies never;
  }
}

export function randomArray(rng: Rng, elem: ScalarType, shape: readonly number[]): ArrayValue {
  const data = allocate(elem, sizeOf(shape));
  for (let i = 0; i < data.length; i++) data[i] = randomElement(rng, elem);
  return { kind: 'array', elem, shape: [...shape], data };
}

export function randomScalar(rng: Rng, elem: ScalarType): ScalarValue {
  return { kind: 'scalar', elem, value: randomElement(rng, elem) };
}
