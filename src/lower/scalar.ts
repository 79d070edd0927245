// Element-level operations on scalar values: folded at compile time when both sides are static
// (with the one shared semantics in ir/scalarOps.ts), otherwise built as typed IR expressions.
//
// Typing follows LANGUAGE.md §2: integer literals are i32 and float literals f64, but a literal
// is *weak* until it meets a typed operand (`x + 1` keeps x's type, `n * 2.0` promotes); integer
// with float promotes to the float type; `/` on integers divides as f64. A weak integer keeps
// its exact value (arithmetic among weak integers is exact, not wrapped) until it takes a type:
// a float type gets that value as a float, an integer type must hold it (E312, at the literal).
//
// Float literals are weak too, and so is every float computed only from literals and integers
// (`0.5 * i`, `sqrt(2.0)`, `1 / 3`), whether at compile time (a weak static) or at run time (a
// weak `dyn`): it is computed in f64 and converted once to the float type it meets, as JAX's
// weak types and NumPy's Python scalars (NEP 50) are. A constant that overflows f32 where it
// becomes f32 is E312 (`fitWeakFloat`); rounding (0.1) and underflow are not errors.

import type { Span } from '../diagnostics/index.js';
import type { BinaryOp, Expr, MathFn, ScalarType } from '../ir/types.js';
import { type IntegerType, ConstantShiftCount, InexactInteger, ScalarDivisionByZero, binary, binaryResultType, cast, exactIntegerBinary, exactIntegerBitNot, fitsInteger, integerRange, isByte, isFloat, isInteger, mathFn, unary, wrap } from '../ir/scalarOps.js';
import { TypeClash, isTuple, promote, type STy } from './types.js';
import { fail, type DynScalar, type Frame, type OpName, type ScalarVal, type StaticScalar } from './values.js';

export function staticScalar(ty: ScalarType, value: number, weak = false, origin?: Span): StaticScalar {
  return { kind: 'static', ty, value: wrap(ty, value), weak, ...(origin === undefined ? {} : { origin }) };
}

/** A weak float constant (a float literal, `inf`, `pi`, or arithmetic on them) written at `origin`. */
export function weakFloat(value: number, origin?: Span): StaticScalar {
  return staticScalar('f64', value, true, origin);
}

/** Whether a scalar still adapts to the type it meets: a weak constant or a weak float `dyn`. */
export function isWeak(v: ScalarVal): boolean {
  return v.kind === 'static' ? v.weak : v.weak === true;
}

/** A weak value of a float type (the kind that also exists at run time and in arrays). */
export function isWeakFloat(v: ScalarVal): boolean {
  return isWeak(v) && typeof v.ty === 'string' && isFloat(v.ty);
}

/** The same value, no longer weak (it has taken its type). */
export function strong(v: ScalarVal): ScalarVal {
  if (!isWeak(v)) return v;
  return v.kind === 'static' ? { ...v, weak: false } : { kind: 'dyn', expr: v.expr, ty: v.ty };
}

/** The same value, weak when `weak` (a float computed only from weak values and integers). */
function withWeakness(v: ScalarVal, weak: boolean): ScalarVal {
  if (weak === isWeak(v)) return v;
  return weak ? { ...v, weak: true } : strong(v);
}

/**
 * Whether an arithmetic result of float type `t` on operands `a`, `b` is weak: no operand
 * brings a float type of its own (each is weak or an integer) and one is weak. So `0.5 * i`
 * (i: i32) and `1 / 2` are weak floats, as `i32 * weak float` is in JAX; `x * 0.5` with x: f32
 * is f32, and `i / n` of two typed integers a strong f64.
 */
function weakResult(fr: Frame, t: STy, a: ScalarVal, b: ScalarVal): boolean {
  if (typeof t !== 'string' || !isFloat(t)) return false;
  const weakish = (v: ScalarVal): boolean => {
    const ty = fr.st.infer.prune(v.ty);
    return isWeak(v) || (typeof ty === 'string' && isInteger(ty));
  };
  return (isWeak(a) || isWeak(b)) && weakish(a) && weakish(b);
}

/** A weak integer constant written (or folded) at `origin`: exact, not wrapped (`-0` is 0). */
export function weakInteger(value: number, origin: Span): StaticScalar {
  return { kind: 'static', ty: 'i32', value: value === 0 ? 0 : value, weak: true, origin };
}

function isWeakInteger(v: ScalarVal): v is StaticScalar & { readonly weak: true } {
  return v.kind === 'static' && v.weak && isInteger(v.ty);
}

/** An integer constant as written, also beyond 2^53 (where a double prints with an exponent). */
function showInteger(x: number): string {
  return Number.isFinite(x) && Number.isInteger(x) ? BigInt(x).toString() : String(x);
}

/** A weak integer taking integer type `to`: its exact value must be a value of `to`. */
function fitWeakInteger(fr: Frame, v: StaticScalar, to: IntegerType, span: Span): StaticScalar {
  if (!fitsInteger(to, v.value)) {
    const [lo, hi] = integerRange(to);
    throw fail(fr, 'E312', `the integer constant ${showInteger(v.value)} does not fit in ${to} (${lo}..${hi})`, v.origin ?? span);
  }
  return { kind: 'static', ty: to, value: v.value, weak: v.weak && to === v.ty, ...(v.origin === undefined ? {} : { origin: v.origin }) };
}

/**
 * A weak float constant taking type f32: its value rounds to the nearest f32, but one beyond
 * f32's range (a finite value that would become ±inf) does not fit (E312, at the literal).
 */
function fitWeakFloat(fr: Frame, v: StaticScalar, span: Span): void {
  if (Number.isFinite(v.value) && !Number.isFinite(Math.fround(v.value))) {
    throw fail(fr, 'E312', `the float constant ${v.value} does not fit in f32 (largest finite value 3.4028234663852886e38)`, v.origin ?? span);
  }
}

/** The concrete type of a scalar in IR (an unsolved variable only occurs in the inference run). */
export function concrete(fr: Frame, t: STy): ScalarType {
  return fr.st.infer.defaultScalar(t);
}

export function toExpr(fr: Frame, v: ScalarVal, span: Span): Expr {
  if (v.kind !== 'static') return v.expr;
  // A weak integer becomes an i32 constant here unless it met another type; the inference run
  // may still pair it with a type variable (its IR is discarded), the concrete run may not.
  const c = isWeakInteger(v) && !fr.st.inferring ? fitWeakInteger(fr, v, v.ty as IntegerType, span) : v;
  return { kind: 'const', type: c.ty, value: wrap(c.ty, c.value), span };
}

/**
 * Operations an element expression may nest in IR. Source expressions are limited by the parser
 * (MAX_EXPRESSION_DEPTH), but inlining and unrolling build deeper ones (`x = x + 1.0` in a
 * 10^4-step static `for` of a def called per element); every IR pass, the interpreter and the
 * code generator recurse over expressions, so this is an error (E221) rather than a stack overflow.
 */
export const maxIrExpressionDepth = 2000;

/** Depth of each expression built here (a children's-depth cache, so each check is O(1)). */
const depths = new WeakMap<Expr, number>();

function exprDepth(e: Expr): number {
  const known = depths.get(e);
  if (known !== undefined) return known;
  let d: number;
  switch (e.kind) {
    case 'binary':
      d = 1 + Math.max(exprDepth(e.lhs), exprDepth(e.rhs));
      break;
    case 'unary':
    case 'cast':
    case 'call':
      d = 1 + exprDepth(e.arg);
      break;
    case 'select':
      d = 1 + Math.max(exprDepth(e.cond), exprDepth(e.then), exprDepth(e.else));
      break;
    case 'index':
      d = 1 + Math.max(0, ...e.indices.map(exprDepth));
      break;
    default:
      d = 1;
  }
  depths.set(e, d);
  return d;
}

function dyn(fr: Frame, span: Span, expr: Expr, ty: STy, weak = false): DynScalar {
  if (exprDepth(expr) > maxIrExpressionDepth) {
    throw fail(fr, 'E221', `this expression builds more than ${maxIrExpressionDepth} nested operations (through inlined calls or an unrolled 'for'); bind intermediate results to names in a def, or use a 'while' loop`, span);
  }
  return weak ? { kind: 'dyn', expr, ty, weak } : { kind: 'dyn', expr, ty };
}

function prunedScalar(fr: Frame, t: STy, span: Span): STy {
  const p = fr.st.infer.prune(t);
  if (isTuple(p)) throw fail(fr, 'E301', `expected a scalar, found a tuple ${fr.st.infer.show(p)}`, span);
  return p;
}

/** Converts a scalar to a concrete type (an explicit cast, or an implicit promotion). */
export function convert(fr: Frame, v: ScalarVal, to: ScalarType, span: Span): ScalarVal {
  if (isWeakInteger(v) && isInteger(to)) return fitWeakInteger(fr, v, to, span);
  if (v.kind === 'static') {
    if (v.ty === to) return v;
    if (v.weak && to === 'f32') fitWeakFloat(fr, v, span);
    return staticScalar(to, cast(to, v.value));
  }
  const from = fr.st.infer.prune(v.ty);
  if (from === to) return v;
  return dyn(fr, span, { kind: 'cast', to, arg: v.expr, type: to, span }, to);
}

/**
 * An explicit cast `u32(e)`: converts like `convert`, except that a weak integer is converted
 * from its exact value as any number is by a cast (wrapped: `u32(-1)` is 4294967295), since
 * the conversion is what the user asked for.
 */
export function explicitCast(fr: Frame, v: ScalarVal, to: ScalarType, span: Span): ScalarVal {
  // A cast's result has the type it names (`f64(0.5)` is a strong f64), and a weak constant is
  // converted as any number is (`f32(1e300)` is inf, where a literal meeting f32 is E312).
  if (v.kind === 'static' && v.weak) return staticScalar(to, cast(to, v.value));
  return strong(convert(fr, v, to, span));
}

/**
 * Makes `v` usable where type `to` is expected: a weak literal takes the type, an integer
 * promotes to a float, an unknown type is solved; anything else is a type mismatch.
 */
export function coerce(fr: Frame, v: ScalarVal, to: STy, span: Span, what: string): ScalarVal {
  const infer = fr.st.infer;
  const target = prunedScalar(fr, to, span);
  const from = prunedScalar(fr, v.ty, span);
  if (typeof target !== 'string') {
    if (isWeak(v)) return v;
    infer.unify(target, from);
    return v;
  }
  if (typeof from !== 'string') {
    if (v.kind === 'static' && v.weak) return convert(fr, v, target, span);
    infer.unify(from, target);
    return v;
  }
  if (from === target) return isWeakInteger(v) ? convert(fr, v, target, span) : v;
  const weakOk = isWeak(v) && target !== 'bool' && (isFloat(target) || isInteger(from));
  if (weakOk || (isInteger(from) && isFloat(target))) return convert(fr, v, target, span);
  throw fail(fr, 'E301', `type mismatch in ${what}: expected ${target}, found ${from}`, span);
}

/** Says that two operand (or branch) types have no common type. */
export type TypeClashError = (ta: ScalarType, tb: ScalarType) => Error;

/** The type both operands of an arithmetic or comparison operator are converted to. */
function operandType(fr: Frame, a: ScalarVal, b: ScalarVal, span: Span, op: string, clash?: TypeClashError): STy {
  const infer = fr.st.infer;
  const ta = prunedScalar(fr, a.ty, span);
  const tb = prunedScalar(fr, b.ty, span);
  const wa = isWeak(a);
  const wb = isWeak(b);
  if (typeof ta !== 'string' || typeof tb !== 'string') {
    if (typeof ta !== 'string' && typeof tb !== 'string') {
      infer.unify(ta, tb);
      return ta;
    }
    const [v, c, weakC] = typeof ta !== 'string' ? [ta, tb as ScalarType, wb] : [tb as STy, ta, wa];
    if (weakC && c === 'i32') return v;
    infer.unify(v, c);
    return c;
  }
  if (ta === tb) return ta;
  if (wa !== wb) {
    const [lit, other] = wa ? [ta, tb] : [tb, ta];
    if (other !== 'bool' && (isInteger(lit) || isFloat(other))) return other;
  }
  const p = promote(ta, tb);
  if (p === undefined) throw clash?.(ta, tb) ?? fail(fr, 'E310', `operator '${op}' cannot combine ${ta} and ${tb}`, span);
  return p;
}

const comparisons = new Set<OpName>(['==', '!=', '<', '<=', '>', '>=']);

const bitOperators = new Set<OpName>(['&', '|', '^', '<<', '>>']);

/**
 * The operand type of a bit operation (`& | ^ << >> ~`): an integer type (i32, u32, u8, i8) only. A type still unknown
 * (an unannotated parameter's) becomes i32, the integer type a literal defaults to; any other
 * type is the user's E310, naming the operator and the type.
 */
function bitOperandType(fr: Frame, t: STy, span: Span, op: string, needs = `operator '${op}' needs integer operands (i32, u32, u8 or i8)`): ScalarType {
  const p = fr.st.infer.prune(t);
  if (typeof p !== 'string') {
    fr.st.infer.unify(p, 'i32');
    return 'i32';
  }
  if (!isInteger(p)) throw fail(fr, 'E310', `${needs}, found ${p}`, span);
  return p;
}

export function binaryOp(fr: Frame, op: OpName, a: ScalarVal, b: ScalarVal, span: Span): ScalarVal {
  if (isWeakInteger(a) && isWeakInteger(b) && op !== '/' && op !== 'and' && op !== 'or') return foldWeakIntegers(fr, op, a, b, span);
  let t: STy;
  if (op === 'and' || op === 'or') {
    a = coerce(fr, a, 'bool', span, `'${op}'`);
    b = coerce(fr, b, 'bool', span, `'${op}'`);
    t = 'bool';
  } else if (bitOperators.has(op)) {
    t = bitOperandType(fr, operandType(fr, a, b, span, op), span, op);
  } else {
    t = operandType(fr, a, b, span, op);
    // bool has == and != only: `+`, `<`, `min` on it are the user's error (fold(+, bs)), not IR's.
    if (t === 'bool' && op !== '==' && op !== '!=') throw fail(fr, 'E310', `operator '${op}' needs numbers, found bool`, span);
    if (op === '/' && typeof t === 'string' && !isFloat(t)) t = 'f64';
  }
  const irOp: BinaryOp = op;
  const resultTy: STy = typeof t === 'string' ? binaryResultType(irOp, t) : comparisons.has(op) ? 'bool' : t;
  const weak = !bitOperators.has(op) && weakResult(fr, resultTy, a, b);
  if (typeof t === 'string') {
    a = convert(fr, a, t, span);
    b = convert(fr, b, t, span);
  }
  if (a.kind === 'static' && b.kind === 'static' && typeof t === 'string') {
    try {
      const value = binary(irOp, t, a.value, b.value);
      return staticScalar(binaryResultType(irOp, t), value, weak, weak ? span : undefined);
    } catch (e) {
      // A fault is not folded: it stays an operation that faults at run time if its value is
      // demanded (docs/LANGUAGE.md, "Run-time faults"), like the same operation on data.
      if (!(e instanceof ScalarDivisionByZero)) throw e;
    }
  }
  if (typeof t === 'string') {
    const simpler = exactIdentity(fr, irOp, t, a, b, span);
    if (simpler !== undefined) return withWeakness(simpler, weak);
  }
  const expr: Expr = {
    kind: 'binary',
    op: irOp,
    lhs: toExpr(fr, a, span),
    rhs: toExpr(fr, b, span),
    type: concrete(fr, resultTy),
    span,
  };
  return dyn(fr, span, expr, resultTy, weak);
}

/** Whether `v` is the constant `value` (`Object.is`: the zeros differ). */
function isConstant(v: ScalarVal, value: number): boolean {
  return v.kind === 'static' && Object.is(v.value, value);
}

/** Whether `v` is computed as `-x`. */
function isNegation(v: ScalarVal): v is DynScalar & { readonly expr: Expr & { readonly kind: 'unary' } } {
  return v.kind === 'dyn' && v.expr.kind === 'unary' && v.expr.op === 'neg';
}

/** `a op x` for `a op' -x`: IEEE 754 defines `a - x` as `a + (-x)`, and `a - (-x)` is `a + x`. */
function difference(fr: Frame, op: '+' | '-', a: ScalarVal, x: Expr, t: ScalarType, span: Span): ScalarVal {
  return dyn(fr, span, { kind: 'binary', op, lhs: toExpr(fr, a, span), rhs: x, type: t, span }, t);
}

/**
 * `a op b` when one operand is a constant that makes the operation give the other operand (or
 * its negation) for every value, bit for bit: programs meet these after inlining, where a
 * tuple of weights such as LULESH's hourglass modes `(1.0, -1.0, …)` multiplies gathered
 * values (`dot8(xs, gamma)`: 12 sums of 8 products, every weight ±1). Both operands already
 * have type `t`; the other operand is returned as it is, so nothing is computed twice.
 *
 * Exact in IEEE 754 (and in f32, whose operands are already f32 values): `x * 1`, `1 * x`,
 * `x / 1` are x; `x * -1`, `-1 * x`, `x / -1` are −x (also for ±0 and ±∞); `x - 0` and
 * `x + -0`, `-0 + x` are x (−0 − 0 is −0). NaN stays a NaN (values compare by `Object.is`, where
 * every NaN is the same; only the payload bits may differ). Not exact, so never rewritten:
 * `x + 0` (−0 + 0 is +0), `x - -0`, `0 - x`, `x * 0` (NaN, ∞, −0). On i32 and u32 the zero
 * has no sign and `x + 0`, `x - 0`, `x * 1` are x; i32 `x * -1` wraps as −x does (−2³¹ stays).
 * A negated operand is folded into the operation (`a + -x` is `a - x`, `a - -x` is `a + x`:
 * IEEE 754 defines subtraction so, and i32 arithmetic wraps alike; `-x + y` is `y - x`, as `+`
 * commutes), which turns the signed weights' `x * -1` terms of a sum into subtractions.
 */
function exactIdentity(fr: Frame, op: BinaryOp, t: ScalarType, a: ScalarVal, b: ScalarVal, span: Span): ScalarVal | undefined {
  if (t === 'bool') return undefined;
  const float = isFloat(t);
  const negates = float || t === 'i32';
  switch (op) {
    case '*':
      if (isConstant(b, 1)) return a;
      if (isConstant(a, 1)) return b;
      if (negates && isConstant(b, -1)) return negate(fr, a, span);
      if (negates && isConstant(a, -1)) return negate(fr, b, span);
      return undefined;
    case '/':
      if (!float) return undefined;
      if (isConstant(b, 1)) return a;
      if (isConstant(b, -1)) return negate(fr, a, span);
      return undefined;
    case '+':
      if (isConstant(b, float ? -0 : 0)) return a;
      if (isConstant(a, float ? -0 : 0)) return b;
      if (negates && isNegation(b)) return difference(fr, '-', a, b.expr.arg, t, span);
      // `-x + b` is `b - x`, but b is then evaluated first: only where neither can fault.
      if (negates && isNegation(a) && a.expr.arg.kind === 'var' && b.kind === 'dyn' && b.expr.kind === 'var') return difference(fr, '-', b, a.expr.arg, t, span);
      return undefined;
    case '-':
      if (isConstant(b, 0)) return a;
      if (negates && isNegation(b)) return difference(fr, '+', a, b.expr.arg, t, span);
      return undefined;
    default:
      return undefined;
  }
}

/**
 * Two weak integers: folded exactly; the result is still weak (or a bool for comparisons). A
 * division by zero is not folded: it becomes the i32 operation, which faults if demanded.
 */
function foldWeakIntegers(fr: Frame, op: OpName, a: StaticScalar, b: StaticScalar, span: Span): ScalarVal {
  let value: number;
  try {
    value = exactIntegerBinary(op, a.value, b.value);
  } catch (e) {
    if (e instanceof InexactInteger) {
      throw fail(fr, 'E312', `the integer constant ${e.exact} is not exact as a number (beyond 2^53 a number keeps 53 significant bits)`, span);
    }
    if (e instanceof ConstantShiftCount) {
      throw fail(fr, 'E312', `a shift of integer constants needs a count in 0..31, found ${e.count} (shifts of typed i32 or u32 values take the count modulo 32: write i32(x) ${op} n for that)`, span);
    }
    if (!(e instanceof ScalarDivisionByZero)) throw e;
    const expr: Expr = { kind: 'binary', op, lhs: toExpr(fr, a, span), rhs: toExpr(fr, b, span), type: 'i32', span };
    return dyn(fr, span, expr, 'i32');
  }
  if (comparisons.has(op)) return staticScalar('bool', value);
  if (!Number.isFinite(value)) throw fail(fr, 'E312', 'an integer constant overflows every number type', span);
  return weakInteger(value, span);
}

export function negate(fr: Frame, a: ScalarVal, span: Span): ScalarVal {
  if (isWeakInteger(a)) return weakInteger(-a.value, span);
  if (fr.st.infer.prune(a.ty) === 'bool') throw fail(fr, 'E310', "operator '-' needs a number, found bool", span);
  if (a.kind === 'static') return staticScalar(a.ty, unary('neg', a.ty, a.value), a.weak, a.weak ? span : undefined);
  return dyn(fr, span, { kind: 'unary', op: 'neg', arg: a.expr, type: concrete(fr, a.ty), span }, a.ty, isWeak(a));
}

/** `~a`: every bit flipped, on i32 or u32; an integer constant's exact −a − 1 (Python's `~`). */
export function bitNot(fr: Frame, a: ScalarVal, span: Span): ScalarVal {
  if (isWeakInteger(a)) {
    try {
      return weakInteger(exactIntegerBitNot(a.value), span);
    } catch (e) {
      if (!(e instanceof InexactInteger)) throw e;
      throw fail(fr, 'E312', `the integer constant ${e.exact} is not exact as a number (beyond 2^53 a number keeps 53 significant bits)`, span);
    }
  }
  const t = bitOperandType(fr, a.ty, span, '~');
  if (a.kind === 'static') return staticScalar(t, unary('bitnot', t, a.value), a.weak);
  return dyn(fr, span, { kind: 'unary', op: 'bitnot', arg: a.expr, type: t, span }, t);
}

export function logicalNot(fr: Frame, a: ScalarVal, span: Span): ScalarVal {
  const b = coerce(fr, a, 'bool', span, "'not'");
  if (b.kind === 'static') return staticScalar('bool', unary('not', 'bool', b.value));
  return dyn(fr, span, { kind: 'unary', op: 'not', arg: b.expr, type: 'bool', span }, 'bool');
}

export function mathCall(fr: Frame, fn: MathFn, a: ScalarVal, span: Span): ScalarVal {
  if (fn === 'popcount' || fn === 'clz') return bitCount(fr, fn, a, span);
  const t = prunedScalar(fr, a.ty, span);
  let arg = a;
  let rt: STy = t;
  if (typeof t === 'string') {
    if (t === 'bool') throw fail(fr, 'E310', `${fn} needs a number, found bool`, span);
    if (fn !== 'abs' && !isFloat(t)) {
      arg = convert(fr, a, 'f64', span);
      rt = 'f64';
    }
  } else if (fn !== 'abs') {
    fr.st.infer.unify(t, 'f64');
    rt = 'f64';
  }
  if (fn === 'abs' && isWeakInteger(arg)) return weakInteger(Math.abs(arg.value), arg.origin ?? span);
  // A float function of a weak value is a weak float (`sqrt(2.0)`, `sqrt(2)`, `floor(0.5 * i)`).
  const weak = isWeak(a);
  if (arg.kind === 'static') return staticScalar(arg.ty, mathFn(fn, arg.ty, arg.value), weak, weak ? span : undefined);
  return dyn(fr, span, { kind: 'call', fn, arg: arg.expr, type: concrete(fr, rt), span }, rt, weak);
}

/**
 * `popcount(a)`, `clz(a)` on i32 or u32 (bitOperandType's rule, less u8 and i8). An integer constant is an i32
 * (E312 if it is none) and the count, 0..32 whatever the type, stays an untyped constant.
 */
function bitCount(fr: Frame, fn: 'popcount' | 'clz', a: ScalarVal, span: Span): ScalarVal {
  if (isWeakInteger(a)) return weakInteger(mathFn(fn, 'i32', fitWeakInteger(fr, a, 'i32', span).value), span);
  const needs = `'${fn}' needs an i32 or u32 argument`;
  const t = bitOperandType(fr, a.ty, span, fn, needs);
  // The counts are of the 32-bit pattern; an 8-bit one is widened first, by the user, so that
  // `clz` of a u8 says which of the two counts (of 32 or of 8 bits) is meant.
  if (isByte(t)) throw fail(fr, 'E310', `${needs}, found ${t} (widen it: ${fn}(i32(x)) or ${fn}(u32(x)))`, span);
  if (a.kind === 'static') return staticScalar(t, mathFn(fn, t, a.value));
  return dyn(fr, span, { kind: 'call', fn, arg: a.expr, type: t, span }, t);
}

/**
 * `a if c else b` on scalars: resolved when `c` is static. The branches take one type as the
 * operands of an arithmetic operator do; `clash` says when they have none (default: E310).
 */
export function selectScalar(fr: Frame, c: ScalarVal, a: ScalarVal, b: ScalarVal, span: Span, clash?: TypeClashError): ScalarVal {
  const cond = coerce(fr, c, 'bool', span, 'a condition');
  if (cond.kind === 'static') return cond.value !== 0 ? a : b;
  const t = operandType(fr, a, b, span, 'if-else', clash);
  // Weak only where both branches are (a typed branch gives its type to a weak one).
  const weak = typeof t === 'string' && isFloat(t) && isWeak(a) && isWeak(b);
  if (typeof t === 'string') {
    a = convert(fr, a, t, span);
    b = convert(fr, b, t, span);
  }
  const expr: Expr = {
    kind: 'select',
    cond: cond.expr,
    then: toExpr(fr, a, span),
    else: toExpr(fr, b, span),
    type: concrete(fr, t),
    span,
  };
  return dyn(fr, span, expr, t, weak);
}

/** Reports a unification failure at a span, saying what was being checked. */
export function unifyAt(fr: Frame, span: Span, what: string, run: () => void): void {
  try {
    run();
  } catch (e) {
    if (e instanceof TypeClash) throw fail(fr, 'E301', `type mismatch in ${what}: expected ${e.expected}, found ${e.found}`, span);
    throw e;
  }
}
