// Small pure functions on the translator's value types: the type of a conditional's branches
// joined, literal arithmetic and comparisons as JavaScript does them, neighbouring f32 values, and
// the words of a chunk's partials.

import type { ScalarType } from '../../ir/types.js';
import { bits, F32, FULL, i32, isI32Value, join, refuse, U32, U32_MAX, type VT } from './types.js';

export type Comparison = '===' | '!==' | '<' | '<=' | '>' | '>=';

/** The type of a `c ? a : b` whose branches give `a` and `b` (intervals joined, literals kept when equal). */
export function joinValues(a: VT, b: VT): VT {
  if (a.k === 'never') return b;
  if (b.k === 'never') return a;
  if (a.k === 'lit' && b.k === 'lit') {
    if (Object.is(a.value, b.value)) return a;
    if (isI32Value(a.value) && isI32Value(b.value)) return i32(Math.min(a.value, b.value), Math.max(a.value, b.value));
    return join(a, b);
  }
  const asInt = (t: VT): { lo: number; hi: number } | null =>
    t.k === 'i32' || t.k === 'bits' ? t : t.k === 'lit' && isI32Value(t.value) ? { lo: t.value, hi: t.value } : null;
  const ia = asInt(a);
  const ib = asInt(b);
  if (ia !== null && ib !== null) {
    const lo = Math.min(ia.lo, ib.lo);
    const hi = Math.max(ia.hi, ib.hi);
    return a.k === 'bits' || b.k === 'bits' ? bits(lo, hi) : i32(lo, hi);
  }
  if (a.k === 'bits' || b.k === 'bits') {
    // bits beside a u32 (mod context): both as their low 32 bits.
    if (a.k === 'u32' || b.k === 'u32') return bits(Math.min(ia?.lo ?? 0, ib?.lo ?? 0), Math.max(ia?.hi ?? U32_MAX, ib?.hi ?? U32_MAX));
    return refuse('branches of an integer that may leave 32 bits and another type');
  }
  if ((a.k === 'i32' && b.k === 'u32' && a.lo >= 0) || (b.k === 'i32' && a.k === 'u32' && b.lo >= 0)) return U32;
  return join(a, b);
}

/** The largest magnitude of an integer type's values (of a literal, itself). */
export function magnitude(t: VT): number {
  switch (t.k) {
    case 'i32':
    case 'bits':
      return Math.max(Math.abs(t.lo), Math.abs(t.hi));
    case 'u32':
      return U32_MAX;
    case 'lit':
      return Math.abs(t.value);
    default:
      return Infinity;
  }
}

export function jsCompare(op: '===' | '!==' | '<' | '<=' | '>' | '>=', a: number, b: number): boolean {
  switch (op) {
    case '===':
      return a === b;
    case '!==':
      return a !== b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    default:
      return op satisfies never;
  }
}

export function jsArith(op: '+' | '-' | '*', a: number, b: number): number {
  return op === '+' ? a + b : op === '-' ? a - b : a * b;
}

/** The comparison with its operands swapped. */
export function flip(op: Comparison): Comparison {
  const table = { '===': '===', '!==': '!==', '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as const;
  return table[op];
}

/** The f32 just above / below finite f32 `f`. */
export function nextUp(f: number): number {
  const b = new Float32Array([f]);
  const u = new Uint32Array(b.buffer);
  if (f === 0) u[0] = 1;
  else if (f > 0) u[0]! += 1;
  else u[0]! -= 1;
  return b[0]!;
}
export function nextDown(f: number): number {
  return -nextUp(-f);
}

/** A partial's word as a value of its component type (the type and the code). */
export function fromWord(p: ScalarType, word: string): [VT, string] {
  switch (p) {
    case 'f32':
      return [F32, `bitcast<f32>(${word})`];
    case 'i32':
      return [FULL, `bitcast<i32>(${word})`];
    case 'u32':
      return [U32, word];
    case 'bool':
      return [i32(0, 1), `i32(${word})`];
    case 'f64':
    case 'u8':
    case 'i8':
      return refuse(`an ${p} partial`);
    default:
      return p satisfies never;
  }
}

/** A component value (already of its type's WGSL representation) as a partial's u32 word. */
export function toWord(p: ScalarType, code: string): string {
  switch (p) {
    case 'f32':
    case 'i32':
      return `bitcast<u32>(${code})`;
    case 'u32':
      return code;
    case 'bool':
      return `u32(${code})`;
    case 'f64':
    case 'u8':
    case 'i8':
      return refuse(`an ${p} partial`);
    default:
      return p satisfies never;
  }
}
