// Printing run-time values for people: small arrays in full as nested lists, large ones as a
// shape with their first and last elements.

import type { RuntimeValue } from '../ir/values.js';
import type { ScalarType } from '../ir/types.js';

/** Arrays with at most this many elements are printed in full. */
const fullLimit = 64;

function formatScalar(elem: ScalarType, x: number): string {
  switch (elem) {
    case 'bool':
      return x !== 0 ? 'true' : 'false';
    case 'f32':
      // The shortest decimal that reads back as the same f32, not the f64 expansion.
      return shortestF32(x);
    case 'f64':
      return Number.isInteger(x) && Math.abs(x) < 1e21 ? `${x}.0` : String(x);
    case 'i32':
    case 'u32':
    case 'u8':
    case 'i8':
      return String(x);
    default:
      return elem satisfies never;
  }
}

function shortestF32(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  for (let digits = 1; digits <= 9; digits++) {
    const text = x.toPrecision(digits);
    if (Math.fround(Number(text)) === x) {
      const n = Number(text);
      return Number.isInteger(n) && Math.abs(n) < 1e21 ? `${n}.0` : String(n);
    }
  }
  return String(x);
}

function nested(value: RuntimeValue & { kind: 'array' }, dim: number, offset: number): string {
  const extent = value.shape[dim]!;
  let stride = 1;
  for (let d = dim + 1; d < value.shape.length; d++) stride *= value.shape[d]!;
  const parts: string[] = [];
  for (let i = 0; i < extent; i++) {
    parts.push(
      dim === value.shape.length - 1 ? formatScalar(value.elem, value.data[offset + i]!) : nested(value, dim + 1, offset + i * stride),
    );
  }
  return `[${parts.join(', ')}]`;
}

export function formatValue(value: RuntimeValue): string {
  if (value.kind === 'scalar') return formatScalar(value.elem, value.value);
  if (value.shape.length === 0) return formatScalar(value.elem, value.data[0]!);
  if (value.data.length <= fullLimit) return nested(value, 0, 0);
  const head = Array.from(value.data.subarray(0, 6), (x) => formatScalar(value.elem, x));
  const tail = Array.from(value.data.subarray(value.data.length - 2), (x) => formatScalar(value.elem, x));
  return `${value.elem}[${value.shape.join(', ')}] (row-major) [${head.join(', ')}, …, ${tail.join(', ')}]`;
}
