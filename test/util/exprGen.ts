// Random well-typed element-level expressions for the program generator.
//
// Every expression is built so that evaluating it can never fail and never produces NaN from
// finite inputs: integer `//` and `%` divide by `(y % k) + 1` or a non-zero constant, float
// division by `abs(y) + 1`, `sqrt` and `log` see `abs(x)` (+1), `exp` sees `-abs(x)`, and every
// float product or power is clamped to ±1000 so that chains of them cannot overflow to infinity
// (where `inf - inf` would make a NaN). Array reads (IndexExpr) use `e % dim(xs, k)` with floor
// semantics, so every index is in range whatever `e` is. Integer arithmetic is free to overflow:
// it wraps, and that must be identical in every backend.

import type { BinaryOp, Expr, MathFn, ScalarType, VarName } from '../../src/ir/types.js';
import { binaryResultType, wrap } from '../../src/ir/scalarOps.js';
import { type Rng, chance, pick, weighted } from './rng.js';

/** An array the expression may read by indexing (a free array variable of its combinator). */
export interface IndexableArray {
  readonly name: VarName;
  readonly elem: ScalarType;
  readonly shape: readonly number[];
}

/** What an expression can mention: scalars by name, arrays by indexing and by `dim`. */
export interface ExprScope {
  readonly vars: readonly { readonly name: VarName; readonly type: ScalarType }[];
  readonly arrays: readonly IndexableArray[];
  /** Probability that a leaf reads an array by index (0 keeps the combinator fusible). */
  readonly indexChance: number;
}

export const numericTypes: readonly ScalarType[] = ['f64', 'f32', 'i32', 'u32', 'u8', 'i8'];

const signed = (t: ScalarType): boolean => t === 'i32' || t === 'i8';

const floatBound = 1000;

// ---------------------------------------------------------------------------------------------
// Builders: small constructors that fill in the `type` fields the IR requires.
// ---------------------------------------------------------------------------------------------

export function constE(type: ScalarType, value: number): Expr {
  return { kind: 'const', type, value: wrap(type, value) };
}

export function varE(name: VarName, type: ScalarType): Expr {
  return { kind: 'var', name, type };
}

export function bin(op: BinaryOp, lhs: Expr, rhs: Expr): Expr {
  if (lhs.type !== rhs.type) throw new Error(`bin ${op}: operand types ${lhs.type} and ${rhs.type} differ`);
  return { kind: 'binary', op, lhs, rhs, type: binaryResultType(op, lhs.type) };
}

export function callE(fn: MathFn, arg: Expr): Expr {
  return { kind: 'call', fn, arg, type: arg.type };
}

export function castE(to: ScalarType, arg: Expr): Expr {
  return arg.type === to ? arg : { kind: 'cast', to, arg, type: to };
}

export function negE(arg: Expr): Expr {
  return { kind: 'unary', op: 'neg', arg, type: arg.type };
}

export function bitNotE(arg: Expr): Expr {
  return { kind: 'unary', op: 'bitnot', arg, type: arg.type };
}

export function notE(arg: Expr): Expr {
  return { kind: 'unary', op: 'not', arg, type: 'bool' };
}

export function selectE(cond: Expr, then: Expr, otherwise: Expr): Expr {
  return { kind: 'select', cond, then, else: otherwise, type: then.type };
}

export function dimE(array: VarName, axis: number): Expr {
  return { kind: 'dim', array, axis, type: 'i32' };
}

export function indexE(array: IndexableArray, indices: readonly Expr[]): Expr {
  return { kind: 'index', array: array.name, indices, type: array.elem };
}

/** `min(max(e, -bound), bound)` for floats: keeps magnitudes finite through any chain. */
export function clampFloat(e: Expr): Expr {
  return bin('min', bin('max', e, constE(e.type, -floatBound)), constE(e.type, floatBound));
}

/** `e % n` with floor semantics: in [0, n) for any i32 `e` when `n` > 0. */
export function modPositive(e: Expr, n: Expr): Expr {
  return bin('%', castE('i32', e), n);
}

function isFloatType(t: ScalarType): boolean {
  return t === 'f64' || t === 'f32';
}

// ---------------------------------------------------------------------------------------------
// Random constants
// ---------------------------------------------------------------------------------------------

/** Constants of a type; includes values that make i32/u32 arithmetic overflow. */
export function randomConst(rng: Rng, type: ScalarType): Expr {
  switch (type) {
    case 'f64':
    case 'f32':
      return constE(type, pick(rng, [1, 0, -1, 0.5, 2.5, -3.25, 10, 0.001, 7.75]));
    case 'i32':
      return constE(type, pick(rng, [1, 0, 2, -1, 3, 5, -7, 2147483647, -2147483648, 1103515245, 65536]));
    case 'u32':
      return constE(type, pick(rng, [1, 0, 2, 3, 5, 4294967295, 2654435761, 65536]));
    case 'u8':
      return constE(type, pick(rng, [1, 0, 2, 3, 5, 7, 128, 200, 255]));
    case 'i8':
      return constE(type, pick(rng, [1, 0, 2, -1, 3, 5, -7, 127, -128, 100]));
    case 'bool':
      return constE(type, rng.int(0, 1));
    default:
      return type satisfies never;
  }
}

// ---------------------------------------------------------------------------------------------
// Random expressions
// ---------------------------------------------------------------------------------------------

/** An in-range index expression for each axis of `array`: a constant or `e % dim(array, k)`. */
export function randomIndices(rng: Rng, scope: ExprScope, array: IndexableArray, depth: number): Expr[] {
  return array.shape.map((extent, axis) =>
    chance(rng, 0.3)
      ? constE('i32', rng.int(0, extent - 1))
      : modPositive(randomExpr(rng, { ...scope, indexChance: 0 }, 'i32', Math.min(depth, 1)), dimE(array.name, axis)),
  );
}

function leaf(rng: Rng, scope: ExprScope, type: ScalarType, depth: number): Expr {
  const sameType = scope.vars.filter((v) => v.type === type);
  const indexable = scope.arrays;
  const choice = weighted(rng, [
    ['var', sameType.length > 0 ? 6 : 0],
    ['const', 2],
    ['castVar', scope.vars.length > 0 ? 2 : 0],
    ['index', indexable.length > 0 && chance(rng, scope.indexChance) ? 100 : 0],
    ['dim', indexable.length > 0 && (type === 'i32' || chance(rng, 0.2)) ? 1 : 0],
  ] as const);
  switch (choice) {
    case 'var': {
      const v = pick(rng, sameType);
      return varE(v.name, v.type);
    }
    case 'const':
      return randomConst(rng, type);
    case 'castVar': {
      const v = pick(rng, scope.vars);
      return castE(type, varE(v.name, v.type));
    }
    case 'index': {
      const a = pick(rng, indexable);
      return castE(type, indexE(a, randomIndices(rng, scope, a, depth)));
    }
    case 'dim': {
      const a = pick(rng, indexable);
      if (a.shape.length === 0) return randomConst(rng, type);
      return castE(type, dimE(a.name, rng.int(0, a.shape.length - 1)));
    }
    default:
      return choice satisfies never;
  }
}

function floatExpr(rng: Rng, scope: ExprScope, type: ScalarType, depth: number): Expr {
  const sub = (): Expr => randomExpr(rng, scope, type, depth - 1);
  const op = weighted(rng, [
    ['+', 4], ['-', 3], ['*', 3], ['/', 2], ['min', 1], ['max', 1], ['neg', 1], ['sqrt', 1], ['exp', 1],
    ['log', 1], ['sin', 1], ['cos', 1], ['tan', 1], ['tanh', 1], ['abs', 1], ['floor', 1], ['ceil', 1],
    ['select', 2], ['pow', 1], ['floordiv', 1], ['mod', 1],
  ] as const);
  switch (op) {
    case '+':
    case '-':
    case 'min':
    case 'max':
      return bin(op, sub(), sub());
    case '*':
      return clampFloat(bin('*', sub(), sub()));
    case '/':
      return bin('/', sub(), bin('+', callE('abs', sub()), constE(type, 1)));
    case 'neg':
      return negE(sub());
    case 'sqrt':
      return callE('sqrt', callE('abs', sub()));
    case 'exp':
      return callE('exp', negE(callE('abs', sub())));
    case 'log':
      return callE('log', bin('+', callE('abs', sub()), constE(type, 1)));
    case 'sin':
    case 'cos':
    case 'tanh':
    case 'abs':
    case 'floor':
    case 'ceil':
      return callE(op, sub());
    case 'tan':
      return clampFloat(callE('tan', sub()));
    case 'select':
      return selectE(randomExpr(rng, scope, 'bool', depth - 1), sub(), sub());
    case 'pow': {
      // A fractional power of a negative base is NaN: only whole exponents see the sign.
      const exponent = pick(rng, [2, 0.5, 3]);
      const base = Number.isInteger(exponent) ? sub() : callE('abs', sub());
      return clampFloat(bin('**', base, constE(type, exponent)));
    }
    case 'floordiv':
      return bin('//', sub(), constE(type, pick(rng, [2, -3, 0.5])));
    case 'mod':
      return bin('%', sub(), constE(type, pick(rng, [2, -3, 1.5])));
    default:
      return op satisfies never;
  }
}

function intExpr(rng: Rng, scope: ExprScope, type: ScalarType, depth: number): Expr {
  const sub = (): Expr => randomExpr(rng, scope, type, depth - 1);
  // `(y % 7) + 1` is in [1, 7] for any i32 or u32 `y`: a divisor that is never zero.
  const nonZero = (): Expr =>
    chance(rng, 0.5)
      ? bin('+', bin('%', sub(), constE(type, 7)), constE(type, 1))
      : constE(type, pick(rng, signed(type) ? [2, -3, 5, 16] : [2, 3, 5, 16]));
  const op = weighted(rng, [
    ['+', 4], ['-', 3], ['*', 3], ['//', 2], ['%', 2], ['min', 1], ['max', 1], ['neg', 1], ['abs', 1],
    ['select', 2], ['**', 1], ['&', 1], ['|', 1], ['^', 1], ['<<', 1], ['>>', 1], ['~', 0.5],
    ['popcount', type === 'u8' || type === 'i8' ? 0 : 0.5], ['clz', type === 'u8' || type === 'i8' ? 0 : 0.5],
  ] as const);
  // A shift count: any value (taken modulo 32), or one at the edges of the modulus.
  const edges = type === 'u8' || type === 'i8' ? [0, 1, 7, 8, 9, 31, 32, 33, -1] : [0, 1, 31, 32, 33, -1];
  const count = (): Expr => (chance(rng, 0.5) ? sub() : constE(type, pick(rng, edges)));
  switch (op) {
    case '+':
    case '-':
    case '*':
    case 'min':
    case 'max':
      return bin(op, sub(), sub());
    case '//':
    case '%':
      return bin(op, sub(), nonZero());
    case 'neg':
      return negE(sub());
    case 'abs':
      return callE('abs', sub());
    case 'select':
      return selectE(randomExpr(rng, scope, 'bool', depth - 1), sub(), sub());
    case '**':
      return bin('**', sub(), constE(type, rng.int(0, 3)));
    case '&':
    case '|':
    case '^':
      return bin(op, sub(), sub());
    case '<<':
    case '>>':
      return bin(op, sub(), count());
    case '~':
      return bitNotE(sub());
    case 'popcount':
    case 'clz':
      return callE(op, sub());
    default:
      return op satisfies never;
  }
}

function boolExpr(rng: Rng, scope: ExprScope, depth: number): Expr {
  const op = weighted(rng, [['cmp', 5], ['and', 1], ['or', 1], ['not', 1], ['select', 1], ['cast', 1]] as const);
  const sub = (): Expr => randomExpr(rng, scope, 'bool', depth - 1);
  switch (op) {
    case 'cmp': {
      const t = pick(rng, numericTypes);
      const cmp = pick(rng, ['==', '!=', '<', '<=', '>', '>='] as const);
      return bin(cmp, randomExpr(rng, scope, t, depth - 1), randomExpr(rng, scope, t, depth - 1));
    }
    case 'and':
    case 'or':
      return bin(op, sub(), sub());
    case 'not':
      return notE(sub());
    case 'select':
      return selectE(sub(), sub(), sub());
    case 'cast':
      return castE('bool', randomExpr(rng, scope, pick(rng, numericTypes), depth - 1));
    default:
      return op satisfies never;
  }
}

/** A random expression of `type` of at most `depth` operator levels. */
export function randomExpr(rng: Rng, scope: ExprScope, type: ScalarType, depth: number): Expr {
  if (depth <= 0 || chance(rng, 0.3)) return leaf(rng, scope, type, depth);
  if (type === 'bool') return boolExpr(rng, scope, depth);
  if (isFloatType(type)) return floatExpr(rng, scope, type, depth);
  return intExpr(rng, scope, type, depth);
}

/**
 * A lambda result of `type`: a random expression, clamped when it is a float so that values
 * stored in arrays stay within ±1000 (folds and scans over them cannot overflow).
 */
export function randomResult(rng: Rng, scope: ExprScope, type: ScalarType, depth: number): Expr {
  const e = randomExpr(rng, scope, type, depth);
  return isFloatType(type) ? clampFloat(e) : e;
}
