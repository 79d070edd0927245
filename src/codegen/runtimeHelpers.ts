// The boundary between generated code and the run-time helpers it calls: `RuntimeHelpers` is
// every member of the `rt` object that generated code may call or read, with its signature.
//
// The code generator names a helper only through `callHelper` / `helperValue`, whose names are
// keys of this interface, and the run-time side (src/runtime/helpers.ts, class `Runtime`)
// `implements` it. Renaming or removing a helper on either side is then a compile error on the
// other, instead of a `rt.x is not a function` in some generated module. The interface lives
// here, not in src/runtime, because codegen comes first in the folder order: the runtime
// implements what the generator emits, never the other way round. A future back end that runs
// generated JavaScript elsewhere (a worker, the browser) implements the same interface.

import type { ScalarType } from '../ir/types.js';
import type { TypedArray } from '../ir/scalarOps.js';
import { call, id, member, type JsExpr } from './jsast.js';

/**
 * What generated code calls on `rt`. Every `site`/`k` argument is an index into the side
 * tables the generator returns with the code (error sites, allocation sites, counter slots,
 * cluster numbers). The error helpers never return: they throw the interpreter's diagnostic.
 */
export interface RuntimeHelpers {
  /** A `while` stops with E405 after this many iterations (Infinity: no limit). */
  readonly maxWhileIterations: number;

  /** Bool `//` and `%` (every other type's are inline; see codegen/scalar.ts `divide`). */
  floordiv_bool(site: number, a: number, b: number): number;
  mod_bool(site: number, a: number, b: number): number;
  /** Integer `**`: exact repeated squaring, E401 for a negative power of zero (float `**` is inline). */
  pow_i32(site: number, a: number, b: number): number;
  pow_u32(site: number, a: number, b: number): number;
  pow_u8(site: number, a: number, b: number): number;
  pow_i8(site: number, a: number, b: number): number;
  pow_bool(site: number, a: number, b: number): number;

  /** An index of element code out of range (E402). */
  index(site: number, indices: readonly number[], dims: readonly number[]): never;
  /** An integer `//` or `%` by zero (E401). */
  divzero(site: number, a: number, b: number): never;
  /** A gather or scatter index out of range (E402), with its position in the index arrays. */
  oob(site: number, indices: readonly number[], dims: readonly number[], position: number, positionDims: readonly number[]): never;
  /** Shapes that must be equal differ (E403). */
  shapes(site: number, a: readonly number[], b: readonly number[]): never;
  /** A `generate` size that is not a non-negative integer (E404). */
  size(site: number, d: number): never;
  /** A `while` past the iteration limit (E405). */
  loop(site: number, limit: number): never;

  /**
   * Memory (src/memory's plan; see docs/EXECUTION.md "Memory"). Every `site` here is an
   * allocation site (the per-site record of RunStats). Arrays handed out are exactly `n` long
   * (gathers check bounds with `x === void 0`), and their contents are unspecified: generated
   * code writes every element of a planned array before reading it.
   */
  /** A fresh array of `n` elements (the plan's `fresh`; its element type is the site's). */
  alloc(site: number, n: number): TypedArray;
  /** A fresh copy of `data` (a scatter whose destination came from outside its block). */
  copy(site: number, data: TypedArray): TypedArray;
  /** A view of `n` elements on pooled slot `slot`, kept across runs (the plan's `slot`). */
  take(site: number, slot: number, n: number): TypedArray;
  /**
   * A loop-carried array's buffer for iteration `t` of its `while` (counted from 1): a view on
   * `odd` when `t` is odd, else on `even` (the plan's `pair`, `slots[t % 2]`).
   */
  pair(site: number, even: number, odd: number, t: number, n: number): TypedArray;
  /** The buffer of flat result component `k`: the caller's `out[k]` (checked: E421, E422), else a fresh array. */
  result(site: number, k: number, n: number): TypedArray;
  /** Result component `k` copied at the return into the caller's `out[k]` or a fresh array (delivery `copy`). */
  emit(site: number, k: number, data: TypedArray): TypedArray;
  /**
   * Result component `k` handed over as it is (a donated input's buffer; an array made fresh
   * this run), or copied into the caller's `out[k]` when one is given.
   */
  give(k: number, data: TypedArray): TypedArray;
  /** Row buffer `k` (one per fold over a fused scanr; not an array of the program), `n` elements, pooled. */
  scratch(k: number, n: number): Float64Array;
  /**
   * Counts one element read or written at counter slot `slot` (counters variant only); returns
   * `value`. `length`: the elements of the array read or written (a cluster call moves at most
   * that many distinct ones).
   */
  count(slot: number, value: number, length: number): number;
  /**
   * Counts the arithmetic operations of one expression of the program's element code (counters
   * variant only): `float` with floating-point operands, `int` with integer or bool ones;
   * returns `value`, the expression's. Attributed, like `count` and `point`, to the cluster
   * between `enter` and `leave`.
   */
  ops(float: number, int: number, value: number): number;
  /** Counts one iteration of a cluster's innermost loop (counters variant only). */
  point(): void;
  /** Cluster `c` starts and ends (per-cluster time and calls). */
  enter(c: number): void;
  leave(c: number): void;

  /**
   * Parallel variant only (GenerateOptions.parallel; docs/EXECUTION.md "Threads"). Runs work
   * function `fn` (an index into the module's `fns` table) over the iterations [0, extent) of
   * cluster `c`'s chunked loop, as calls `fns[fn](rt, lo, hi, chunk, ...args)` that together
   * cover every iteration exactly once, on the calling thread and the pool's workers, and
   * returns true; or returns false, running nothing, when the call is not worth a fork (its
   * `extent × work`, the estimated cost of all iterations, is below the fork threshold): main
   * then runs the same chunks itself, in order, by direct calls. `fixed`: the chunks are exactly chunk k = [k·L, min(extent, (k+1)·L))
   * for L = `chunkLength`, k = 0 … chunkCount(extent) − 1, because the function writes
   * per-chunk partial values (`partials`) that main then combines in chunk order; otherwise
   * the runtime chooses the chunks (and `chunk` is only a label). A fault in any chunk is thrown
   * as the diagnostic of the lowest faulting chunk, after every thread has stopped.
   */
  par(c: number, fn: number, extent: number, work: number, fixed: boolean, args: readonly (TypedArray | number)[]): boolean;
  /** Iterations per chunk of a `fixed` `par` call: one value per executable, whatever the thread count. */
  readonly chunkLength: number;
  /** A shared, pooled Float64Array of `n` elements for cluster `c`'s per-chunk partials (contents unspecified). */
  partials(c: number, n: number): Float64Array;
}

/**
 * The helpers a work function of the parallel variant (the module's `fns`) may call: it runs on
 * a worker, whose `rt` has only these (src/runtime/multicore). A cluster whose loop needs any
 * other helper (integer `**`, bool `//` and `%`, counters) runs on the calling thread.
 */
export const workerHelpers = ['index', 'divzero', 'oob', 'scratch'] as const satisfies readonly HelperFunction[];

export type HelperName = keyof RuntimeHelpers;

/** The helpers that are functions (all but the values generated code reads). */
export type HelperFunction = { [K in HelperName]: RuntimeHelpers[K] extends (...args: never[]) => unknown ? K : never }[HelperName];

/** One JavaScript expression per element of the tuple `P` (a mapped tuple keeps its length). */
type ExprsFor<P extends readonly unknown[]> = { readonly [I in keyof P]: JsExpr };

/** One JavaScript expression per parameter of helper `K`: a call with the wrong arity does not compile. */
export type HelperArgs<K extends HelperFunction> = ExprsFor<Parameters<RuntimeHelpers[K]>>;

/** The parameter generated functions receive the helper object in (`main(rt, inputs)`, `c0(rt, …)`). */
export const runtimeParam = 'rt';

/** The helper object, as generated code refers to it. */
export const rt: JsExpr = id(runtimeParam);

/** `rt.name(args…)`. */
export function callHelper<K extends HelperFunction>(name: K, args: HelperArgs<K>): JsExpr {
  return call(member(rt, name), args as readonly JsExpr[]);
}

/** `rt.name`, for a value generated code reads. */
export function helperValue(name: Exclude<HelperName, HelperFunction>): JsExpr {
  return member(rt, name);
}

/** Element types whose `**` calls a helper: the exact ones (float `**` is `Math.pow`, inline). */
export type ExactType = Exclude<ScalarType, 'f64' | 'f32'>;

/**
 * The helper of each operation generated code does not inline, by element type. Typed tables,
 * not names built from strings: a type the table lacks cannot reach the generator's call.
 */
export const arithmeticHelpers = {
  '//': { bool: 'floordiv_bool' },
  '%': { bool: 'mod_bool' },
  '**': { i32: 'pow_i32', u32: 'pow_u32', u8: 'pow_u8', i8: 'pow_i8', bool: 'pow_bool' },
} as const satisfies {
  readonly '//': { readonly bool: HelperFunction };
  readonly '%': { readonly bool: HelperFunction };
  readonly '**': { readonly [T in ExactType]: HelperFunction };
};
