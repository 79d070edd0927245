// The meaning of every element-level operation, on plain JavaScript numbers.
//
// One definition shared by compile-time evaluation (lowering), the reference interpreter and
// the code generator's run-time helpers, so that the three cannot disagree. Values of every
// type are JavaScript numbers: integers are kept wrapped to their type, f32 values are kept
// rounded with Math.fround, bool is 0 or 1.

import { userError } from '../diagnostics/index.js';
import type { BinaryOp, MathFn, ScalarType, UnaryOp } from './types.js';

/** Raised for integer division or remainder by zero; callers attach the source location. */
export class ScalarDivisionByZero extends Error {
  constructor() {
    super('integer division by zero');
    this.name = 'ScalarDivisionByZero';
  }
}

export type IntegerType = 'i32' | 'u32' | 'u8' | 'i8';

export function isFloat(t: ScalarType): t is 'f64' | 'f32' {
  return t === 'f64' || t === 'f32';
}

export function isInteger(t: ScalarType): t is IntegerType {
  return t === 'i32' || t === 'u32' || t === 'u8' || t === 'i8';
}

/** The integer types narrower than 32 bits: stored in 8 bits, computed in 32 and wrapped back. */
export function isByte(t: ScalarType): t is 'u8' | 'i8' {
  return t === 'u8' || t === 'i8';
}

/** Brings an exact or approximate number into the value set of a type. */
export function wrap(t: ScalarType, x: number): number {
  switch (t) {
    case 'f64':
      return x;
    case 'f32':
      return Math.fround(x);
    case 'i32':
      return x | 0;
    case 'u32':
      return x >>> 0;
    // `|` and `<<` convert to int32 first (truncating floats toward zero, NaN and ±inf to 0,
    // wrapping modulo 2^32), so these are the float conversion and the wrap in one.
    case 'u8':
      return x & 255;
    case 'i8':
      return (x << 24) >> 24;
    case 'bool':
      return x !== 0 ? 1 : 0;
    default:
      return t satisfies never;
  }
}

/** Whether a number is a value of an integer type as it stands (no wrapping needed). */
export function fitsInteger(t: IntegerType, x: number): boolean {
  const [lo, hi] = integerRange(t);
  return Number.isInteger(x) && x >= lo && x <= hi;
}

/** The least and greatest value of an integer type. */
export function integerRange(t: IntegerType): readonly [number, number] {
  switch (t) {
    case 'i32':
      return [-2147483648, 2147483647];
    case 'u32':
      return [0, 4294967295];
    case 'u8':
      return [0, 255];
    case 'i8':
      return [-128, 127];
    default:
      return t satisfies never;
  }
}

/** An integer constant's exact value is not a number a double holds (beyond 2^53). */
export class InexactInteger extends Error {
  constructor(readonly exact: bigint) {
    super(`the integer ${exact} has no exact double`);
    this.name = 'InexactInteger';
  }
}

/**
 * A binary operation on integer constants whose type is not decided yet (weak literals, see
 * lower/scalar.ts): computed on the mathematical integers instead of wrapped, so that
 * `2147483647 + 1` is 2147483648, an error where an i32 is needed, and `-2147483648` is the
 * i32 minimum. Division and remainder by zero raise as for i32. Beyond 2^53 the result is
 * computed exactly (BigInt) and must be a double exactly, else InexactInteger; beyond the
 * doubles' range it is ±Infinity.
 */
export function exactIntegerBinary(op: BinaryOp, a: number, b: number): number {
  if (op === '&' || op === '|' || op === '^' || op === '<<' || op === '>>') return exactIntegerBitwise(op, a, b);
  const approximate = doubleIntegerBinary(op, a, b);
  const safe = (x: number): boolean => Math.abs(x) <= Number.MAX_SAFE_INTEGER;
  if (!Number.isFinite(approximate) || (safe(approximate) && safe(a) && safe(b))) return approximate;
  if (op !== '+' && op !== '-' && op !== '*' && op !== '//' && op !== '%' && op !== '**') return approximate;
  const exact = bigIntegerBinary(op, BigInt(a), BigInt(b));
  const value = Number(exact);
  if (BigInt(value) !== exact) throw new InexactInteger(exact);
  return value;
}

/** A shift count of two integer constants outside 0..31 (see exactIntegerBitwise). */
export class ConstantShiftCount extends Error {
  constructor(readonly count: number) {
    super(`the shift count ${count} is not in 0..31`);
    this.name = 'ConstantShiftCount';
  }
}

/**
 * A bit operation on integer constants whose type is not decided yet, on the mathematical
 * integers as Python computes it (an infinite two's complement): `1 << 31` is 2147483648 (a
 * u32, or E312 where an i32 is needed), `~0` and `-1 & -1` are −1. The shift count must be in
 * 0..31 (else ConstantShiftCount): typed shifts take the count modulo 32, and an exact
 * `1 << 32` would silently differ from it. `a << n` is a·2^n and `a >> n` is ⌊a / 2^n⌋, both
 * exact in doubles for n ≤ 31 (or ±Infinity, which the caller reports); `& | ^` use BigInts,
 * and a result that is not a double exactly is InexactInteger.
 */
export function exactIntegerBitwise(op: '&' | '|' | '^' | '<<' | '>>', a: number, b: number): number {
  if (op === '<<' || op === '>>') {
    if (!(b >= 0 && b <= 31)) throw new ConstantShiftCount(b);
    return op === '<<' ? a * 2 ** b : Math.floor(a / 2 ** b) + 0;
  }
  const x = BigInt(a);
  const y = BigInt(b);
  const exact = op === '&' ? x & y : op === '|' ? x | y : x ^ y;
  const value = Number(exact);
  if (BigInt(value) !== exact) throw new InexactInteger(exact);
  return value;
}

/** `~a` on an integer constant whose type is not decided yet: −a − 1 (Python), exactly. */
export function exactIntegerBitNot(a: number): number {
  const exact = -BigInt(a) - 1n;
  const value = Number(exact);
  if (BigInt(value) !== exact) throw new InexactInteger(exact);
  return value;
}

/** Integer arithmetic on BigInts, with the floor semantics of `//` and `%` (b ≠ 0, b ≥ 0 for `**`). */
function bigIntegerBinary(op: '+' | '-' | '*' | '//' | '%' | '**', a: bigint, b: bigint): bigint {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '**':
      return a ** b;
    case '//': {
      const q = a / b;
      return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
    }
    case '%': {
      const r = a % b;
      return r !== 0n && (r < 0n) !== (b < 0n) ? r + b : r;
    }
  }
}

function doubleIntegerBinary(op: BinaryOp, a: number, b: number): number {
  switch (op) {
    case '//':
    case '%':
      if (b === 0) throw new ScalarDivisionByZero();
      return op === '//' ? Math.floor(a / b) : binary('%', 'f64', a, b);
    case '**':
      if (b < 0) {
        if (a === 0) throw new ScalarDivisionByZero();
        return Math.trunc(Math.pow(a, b));
      }
      return Math.pow(a, b);
    default:
      return binary(op, 'f64', a, b);
  }
}

/** Numeric conversion: float to integer truncates toward zero and wraps (NaN and ±inf give 0). */
export function cast(to: ScalarType, x: number): number {
  return wrap(to, x);
}

function floorDiv(t: ScalarType, a: number, b: number): number {
  if (isFloat(t)) return wrap(t, Math.floor(a / b));
  if (b === 0) throw new ScalarDivisionByZero();
  // |a|, |b| < 2^32, so the double quotient is within one ulp and its floor is exact.
  return wrap(t, Math.floor(a / b));
}

function floorMod(t: ScalarType, a: number, b: number): number {
  if (!isFloat(t) && b === 0) throw new ScalarDivisionByZero();
  let r = a % b;
  if (r !== 0 && r < 0 !== b < 0) r += b;
  return wrap(t, r);
}

function multiply(t: ScalarType, a: number, b: number): number {
  if (t === 'i32') return Math.imul(a, b);
  if (t === 'u32') return Math.imul(a, b) >>> 0;
  // u8/i8: |a·b| ≤ 2^14, exact in a double, and wrap reduces it modulo 2^8.
  return wrap(t, a * b);
}

function power(t: ScalarType, a: number, b: number): number {
  if (isFloat(t)) return wrap(t, Math.pow(a, b));
  if (b < 0) {
    if (a === 0) throw new ScalarDivisionByZero();
    return wrap(t, Math.trunc(Math.pow(a, b)));
  }
  let result = 1;
  let base = a;
  let e = b;
  while (e > 0) {
    if (e & 1) result = multiply(t, result, base);
    base = multiply(t, base, base);
    e = Math.floor(e / 2);
  }
  return wrap(t, result);
}

/** Whether `op` on operands of type `t` can fault: integer `//`, `%` and `**` divide by zero (E401). */
export function binaryMayFault(op: BinaryOp, t: ScalarType): boolean {
  return !isFloat(t) && (op === '//' || op === '%' || op === '**');
}

/** `t` is the operand type; comparisons return bool (0/1). */
export function binary(op: BinaryOp, t: ScalarType, a: number, b: number): number {
  switch (op) {
    case '+':
      return wrap(t, a + b);
    case '-':
      return wrap(t, a - b);
    case '*':
      return multiply(t, a, b);
    case '/':
      return wrap(t, a / b);
    case '//':
      return floorDiv(t, a, b);
    case '%':
      return floorMod(t, a, b);
    case '**':
      return power(t, a, b);
    case '==':
      return a === b ? 1 : 0;
    case '!=':
      return a !== b ? 1 : 0;
    case '<':
      return a < b ? 1 : 0;
    case '<=':
      return a <= b ? 1 : 0;
    case '>':
      return a > b ? 1 : 0;
    case '>=':
      return a >= b ? 1 : 0;
    case 'and':
      return a !== 0 && b !== 0 ? 1 : 0;
    case 'or':
      return a !== 0 || b !== 0 ? 1 : 0;
    case 'min':
      return Math.min(a, b);
    case 'max':
      return Math.max(a, b);
    case '&':
    case '|':
    case '^':
    case '<<':
    case '>>':
      return bitwise(op, t, a, b);
    default:
      return op satisfies never;
  }
}

/**
 * A bit operation on i32, u32, u8 or i8 values (lowering admits no other type): JavaScript's
 * operators work on the 32-bit pattern and take a shift count modulo 32, which is the language's
 * meaning; `>>` is arithmetic on i32 and logical (`>>>`) on u32; `wrap` brings the int32 result
 * back to the type (u32: `>>> 0`, u8: `& 255`, i8: sign-extended low byte). An 8-bit value is
 * held widened (u8 zero-extended, i8 sign-extended), so u8 `>>` is logical and i8 `>>`
 * arithmetic with plain `>>`, and a count of 8..31 shifts every bit out (or the sign bit in).
 */
function bitwise(op: '&' | '|' | '^' | '<<' | '>>', t: ScalarType, a: number, b: number): number {
  switch (op) {
    case '&':
      return wrap(t, a & b);
    case '|':
      return wrap(t, a | b);
    case '^':
      return wrap(t, a ^ b);
    case '<<':
      return wrap(t, a << b);
    case '>>':
      return t === 'u32' ? a >>> b : wrap(t, a >> b);
  }
}

export function unary(op: UnaryOp, t: ScalarType, a: number): number {
  switch (op) {
    case 'neg':
      return wrap(t, -a);
    case 'not':
      return a !== 0 ? 0 : 1;
    case 'bitnot':
      return wrap(t, ~a);
    default:
      return op satisfies never;
  }
}

export function mathFn(fn: MathFn, t: ScalarType, a: number): number {
  switch (fn) {
    case 'sqrt':
      return wrap(t, Math.sqrt(a));
    case 'cbrt':
      return wrap(t, Math.cbrt(a));
    case 'exp':
      return wrap(t, Math.exp(a));
    case 'log':
      return wrap(t, Math.log(a));
    case 'sin':
      return wrap(t, Math.sin(a));
    case 'cos':
      return wrap(t, Math.cos(a));
    case 'tan':
      return wrap(t, Math.tan(a));
    case 'tanh':
      return wrap(t, Math.tanh(a));
    case 'abs':
      return wrap(t, Math.abs(a));
    case 'floor':
      return wrap(t, Math.floor(a));
    case 'ceil':
      return wrap(t, Math.ceil(a));
    case 'popcount':
      return bitsSet(a);
    case 'clz':
      return Math.clz32(a);
    default:
      return fn satisfies never;
  }
}

/** The number of bits set in the 32-bit pattern of an i32 or u32 value. */
function bitsSet(a: number): number {
  let n = 0;
  for (let x = a >>> 0; x !== 0; x = Math.floor(x / 2)) n += x % 2;
  return n;
}

/** Result type of a binary operation on operands of type `t`. */
export function binaryResultType(op: BinaryOp, t: ScalarType): ScalarType {
  switch (op) {
    case '==':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=':
    case 'and':
    case 'or':
      return 'bool';
    default:
      return t;
  }
}

/** The typed-array constructor that stores a type (bool and u8 as Uint8Array, i8 as Int8Array). */
export type TypedArray = Float64Array | Float32Array | Int32Array | Uint32Array | Uint8Array | Int8Array;

/**
 * The most elements one array can have: elements are addressed by i32 indices and flat offsets
 * (generated loops compute them with `| 0`), so 2^31 − 1. Static shapes beyond it are E313
 * (lowering), run-time ones E406 (here).
 */
export const MAX_ARRAY_ELEMENTS = 2 ** 31 - 1;

/**
 * A zeroed typed array of `length` elements. An array the engine cannot make (too long, or out
 * of memory) is the user's error E406, not a RangeError: sizes come from the program's inputs.
 * Callers that know the source location re-throw it located (the interpreter does).
 */
export function allocate(t: ScalarType, length: number): TypedArray {
  if (!(length <= MAX_ARRAY_ELEMENTS)) {
    throw userError('E406', `an array of ${length} elements is larger than the ${MAX_ARRAY_ELEMENTS} elements an array can have`);
  }
  try {
    return allocateUnchecked(t, length);
  } catch (e) {
    if (e instanceof RangeError) throw userError('E406', `an array of ${length} ${t} elements could not be allocated (${e.message})`);
    throw e;
  }
}

function allocateUnchecked(t: ScalarType, length: number): TypedArray {
  switch (t) {
    case 'f64':
      return new Float64Array(length);
    case 'f32':
      return new Float32Array(length);
    case 'i32':
      return new Int32Array(length);
    case 'u32':
      return new Uint32Array(length);
    case 'u8':
    case 'bool':
      return new Uint8Array(length);
    case 'i8':
      return new Int8Array(length);
    default:
      return t satisfies never;
  }
}

/** Bytes one element of a type occupies in memory. */
export function elementBytes(t: ScalarType): number {
  switch (t) {
    case 'f64':
      return 8;
    case 'f32':
    case 'i32':
    case 'u32':
      return 4;
    case 'u8':
    case 'i8':
    case 'bool':
      return 1;
    default:
      return t satisfies never;
  }
}
