// The value types of the WGSL translator: what a JavaScript value is known to be, and the WGSL
// type that holds it. JavaScript computes in doubles; a kernel holds each value in one 32-bit
// type chosen so that it keeps the JavaScript meaning (translate.ts's header says how).

/** A refusal: the translator cannot keep the JavaScript meaning of something (the reason says what). */
export class Refusal extends Error {}

export function refuse(why: string): never {
  throw new Refusal(why);
}

export const I32_MIN = -0x80000000;
export const I32_MAX = 0x7fffffff;
export const U32_MAX = 0xffffffff;

/**
 * - `i32`: an integer in [lo, hi] ⊆ int32 (the exact JavaScript value), held in an i32.
 * - `u32`: an integer in [0, 2^32), held in a u32.
 * - `bits`: an integer in [lo, hi] (possibly beyond 32 bits, exact in a double) of which the i32
 *   holds the low 32 bits: only a consumer that applies ToInt32 / ToUint32 (`| 0`, `>>> 0`, bit
 *   operations, Math.imul, a store to an integer array) may take it.
 * - `f32`: a number held as an f32 (exact for f32 data and Math.fround results; otherwise the
 *   f32 rounding of what JavaScript computes in doubles).
 * - `bool`: a JavaScript boolean, held in a WGSL bool.
 * - `lit`: a literal (or literals folded), not yet given a type: its context chooses one.
 * - `undef`: `void 0`, which only `===`/`!==` may compare.
 * - `never`: an expression that does not complete (a fault's return), or in an inference round a
 *   local whose type is not known yet.
 */
export type VT =
  | { readonly k: 'i32'; readonly lo: number; readonly hi: number }
  | { readonly k: 'u32' }
  | { readonly k: 'bits'; readonly lo: number; readonly hi: number }
  | { readonly k: 'f32' }
  | { readonly k: 'bool' }
  | { readonly k: 'lit'; readonly value: number }
  | { readonly k: 'undef' }
  | { readonly k: 'never' };

export type IntVT = Extract<VT, { k: 'i32' }>;

export const U32: VT = { k: 'u32' };
export const F32: VT = { k: 'f32' };
export const BOOL: VT = { k: 'bool' };
export const NEVER: VT = { k: 'never' };
export const UNDEF: VT = { k: 'undef' };
export const FULL: IntVT = { k: 'i32', lo: I32_MIN, hi: I32_MAX };

export const i32 = (lo: number, hi: number): IntVT => ({ k: 'i32', lo: Math.max(lo, I32_MIN), hi: Math.min(hi, I32_MAX) });
export const bits = (lo: number, hi: number): VT => ({ k: 'bits', lo, hi });
export const lit = (value: number): VT => ({ k: 'lit', value });

export const fitsI32 = (lo: number, hi: number): boolean => lo >= I32_MIN && hi <= I32_MAX;
export const isI32Value = (v: number): boolean => Number.isInteger(v) && v >= I32_MIN && v <= I32_MAX && !Object.is(v, -0);
export const isU32Value = (v: number): boolean => Number.isInteger(v) && v >= 0 && v <= U32_MAX && !Object.is(v, -0);

/** The type a literal takes where nothing else decides: i32, else u32, else f32. */
export function natural(v: number): VT {
  if (isI32Value(v)) return i32(v, v);
  if (isU32Value(v)) return U32;
  return F32;
}

/** The WGSL type that holds values of `t` (lits and never have none of their own). */
export function wgslType(t: VT): 'i32' | 'u32' | 'f32' | 'bool' {
  switch (t.k) {
    case 'i32':
    case 'bits':
      return 'i32';
    case 'u32':
      return 'u32';
    case 'f32':
      return 'f32';
    case 'bool':
      return 'bool';
    case 'lit':
      return wgslType(natural(t.value));
    case 'undef':
    case 'never':
      return refuse(`no WGSL type for ${t.k}`);
    default:
      return t satisfies never;
  }
}

/** Whether literal `v` is a value of `t` exactly (so it may be printed as one). */
export function litFits(v: number, t: VT): boolean {
  switch (t.k) {
    case 'i32':
      return isI32Value(v);
    case 'u32':
      return isU32Value(v);
    case 'f32':
      return true;
    default:
      return false;
  }
}

/**
 * The type of a variable that holds values of `a` and of `b`. Integers keep no interval in a
 * variable (a mutable local may take any value its definitions give over the iterations): an
 * i32 local is all of int32. Refused where no one 32-bit type holds both exactly.
 */
export function join(a: VT, b: VT): VT {
  if (a.k === 'never') return widen(b);
  if (b.k === 'never') return widen(a);
  if (a.k === 'lit' && b.k === 'lit') {
    // Two literals: the narrowest type that holds both (a float literal beside an integer one
    // makes an f32: `let m = -Infinity; … m = 0` before the fixpoint has typed what flows in).
    if (Object.is(a.value, b.value)) return a;
    if (isI32Value(a.value) && isI32Value(b.value)) return FULL;
    if (isU32Value(a.value) && isU32Value(b.value)) return U32;
    return F32;
  }
  if (a.k === 'lit') return litFits(a.value, widen(b)) ? widen(b) : join(natural(a.value), b);
  if (b.k === 'lit') return join(b, a);
  if (a.k === 'bits' || b.k === 'bits') return refuse('an integer that may leave 32 bits kept in a variable');
  if (a.k === 'undef' || b.k === 'undef') return refuse('undefined kept in a variable');
  if (a.k === b.k) return widen(a);
  if (a.k === 'bool' || b.k === 'bool') return refuse('a boolean and a number meet in one variable');
  return refuse(`an ${a.k} and an ${b.k} value meet in one variable`);
}

/**
 * A variable's type for values of `t`: an i32 variable is all of int32. A variable that only a
 * literal has been assigned so far keeps it (the variable is that constant), so that a later
 * definition decides its type (`let acc = 0; … acc = Math.fround(acc + x)` is an f32).
 */
function widen(t: VT): VT {
  if (t.k === 'i32') return FULL;
  return t;
}

export function sameType(a: VT, b: VT): boolean {
  if (a.k !== b.k) return false;
  if ((a.k === 'i32' && b.k === 'i32') || (a.k === 'bits' && b.k === 'bits')) return a.lo === b.lo && a.hi === b.hi;
  if (a.k === 'lit' && b.k === 'lit') return Object.is(a.value, b.value);
  return true;
}
