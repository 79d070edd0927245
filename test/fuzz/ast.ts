// The fuzzer's own program representation: a small, typed subset of the `.fuse` surface
// language, built by gen.ts, printed to `.fuse` text by print.ts and evaluated directly by
// evaluate.ts. Nothing here comes from src/: the evaluator must be an independent oracle, so
// the fuzzer shares no code (and so no bug) with the compiler or its interpreter.

/**
 * Element types the fuzzer generates (bool only inside element expressions; u8 only there and
 * in the input `bs`: byte expressions are read from it or cast from i32, and end cast to i32 or
 * f64, so no array the program computes is a byte array).
 */
export type Elem = 'f64' | 'i32' | 'u8' | 'bool';

export type ArithOp = '+' | '-' | '*' | '/' | '//' | '%' | BitOp;
/** Bit operations, on i32 only (the fuzzer has no u32). */
export type BitOp = '&' | '|' | '^' | '<<' | '>>';
export type CmpOp = '<' | '<=' | '>' | '>=' | '==' | '!=';
export type LogicOp = 'and' | 'or';

/** Element-level expressions: `t` is the type of the value the expression produces. */
export type Expr =
  /** `text` is printed verbatim; `value` is its exact mathematical value. */
  | { readonly k: 'lit'; readonly t: Elem; readonly text: string; readonly value: number }
  /** A lambda parameter, a scalar variable, a loop counter or a static loop index. */
  | { readonly k: 'ref'; readonly t: Elem; readonly name: string }
  | { readonly k: 'arith'; readonly t: Elem; readonly op: ArithOp; readonly a: Expr; readonly b: Expr }
  | { readonly k: 'cmp'; readonly t: 'bool'; readonly op: CmpOp; readonly a: Expr; readonly b: Expr }
  | { readonly k: 'logic'; readonly t: 'bool'; readonly op: LogicOp; readonly a: Expr; readonly b: Expr }
  | { readonly k: 'not'; readonly t: 'bool'; readonly a: Expr }
  | { readonly k: 'neg'; readonly t: Elem; readonly a: Expr }
  /** `~a`, on i32. */
  | { readonly k: 'bitnot'; readonly t: 'i32'; readonly a: Expr }
  /** `popcount(a)`, `clz(a)`, on i32. */
  | { readonly k: 'bitcount'; readonly t: 'i32'; readonly fn: 'popcount' | 'clz'; readonly a: Expr }
  /** `a if c else b`: only the chosen branch is evaluated. */
  | { readonly k: 'sel'; readonly t: Elem; readonly c: Expr; readonly a: Expr; readonly b: Expr }
  | { readonly k: 'cast'; readonly t: Elem; readonly a: Expr }
  | { readonly k: 'minmax'; readonly t: Elem; readonly op: 'min' | 'max'; readonly a: Expr; readonly b: Expr }
  /** `arr[idx]`, or the paper's `arr ! idx` when `bang`. */
  | { readonly k: 'read'; readonly t: Elem; readonly arr: string; readonly idx: Expr; readonly bang: boolean }
  | { readonly k: 'size'; readonly t: 'i32'; readonly arr: string };

/** A lambda: one body for one result, two for a tuple-producing lambda. */
export interface Lam {
  readonly params: readonly string[];
  readonly body: readonly Expr[];
}

/** A combining function: an operator (`+`, `max`, …) or a two-parameter lambda. */
export type Combine = { readonly k: 'op'; readonly op: '+' | '*' | 'max' | 'min' } | { readonly k: 'lam'; readonly f: Lam };

/** The right-hand side of an array binding. Array operands are variable names. */
export type ArrOp =
  | { readonly k: 'map'; readonly f: Lam; readonly args: readonly string[] }
  | { readonly k: 'generate'; readonly size: Expr; readonly f: Lam }
  | { readonly k: 'gather'; readonly idx: string; readonly src: string }
  /** `scatter(op, dest, zip(idx, vals))`. */
  | { readonly k: 'scatter'; readonly op: Combine; readonly dest: string; readonly idx: string; readonly vals: string }
  /**
   * `scatterDrop(op, dest, zip(idx, vals))`: a scatter whose out-of-range updates (negative, or
   * at or beyond the size) are dropped unread instead of faulting.
   */
  | { readonly k: 'scatterDrop'; readonly op: Combine; readonly dest: string; readonly idx: string; readonly vals: string }
  /** `hist(op, ne, bins, idx, vals)`: `bins` bins starting at `ne`, updates outside them dropped. */
  | { readonly k: 'hist'; readonly op: Combine; readonly ne: Expr; readonly bins: Expr; readonly idx: string; readonly vals: string }
  /**
   * `scanlSeg(op, map(flags, flagSrc), src)` (or `scanrSeg`): an inclusive scan restarting at
   * every element whose flag (`flags`, a one-parameter bool lambda over `flagSrc`) is true.
   */
  | { readonly k: 'scanSeg'; readonly dir: 'l' | 'r'; readonly op: '+' | '*' | 'max' | 'min'; readonly flags: Lam; readonly flagSrc: string; readonly src: string }
  /** `foldSeg(op, z, src, lens)`: one fold seeded with `z` per segment length in `lens` (i32). */
  | { readonly k: 'foldSeg'; readonly op: '+' | '*' | 'max' | 'min'; readonly z: Expr; readonly src: string; readonly lens: string }
  /** `permute(op, dest, f, src)`: src[i] goes to f(i). */
  | { readonly k: 'permute'; readonly op: Combine; readonly dest: string; readonly f: Lam; readonly src: string }
  | { readonly k: 'filter'; readonly p: Lam; readonly src: string }
  | { readonly k: 'reverse'; readonly src: string }
  | { readonly k: 'take' | 'drop'; readonly n: Expr; readonly src: string }
  | { readonly k: 'scan'; readonly dir: 'l' | 'r'; readonly op: '+' | '*' | 'max' | 'min'; readonly seed: Expr | null; readonly src: string }
  | { readonly k: 'backpermute'; readonly size: Expr; readonly f: Lam; readonly src: string }
  /** `replicate(n, src)`: rank 2, n rows. */
  | { readonly k: 'replicate'; readonly n: Expr; readonly src: string }
  | { readonly k: 'transpose'; readonly src: string }
  /** `fold(op, src)` of a rank-2 array: one result per row. */
  | { readonly k: 'rowfold'; readonly op: '+' | 'max' | 'min'; readonly src: string }
  /** `p, q = unzip(zip(a, b))`. */
  | { readonly k: 'unzipzip'; readonly a: string; readonly b: string }
  /** `b = a`: a second name for the same array. */
  | { readonly k: 'alias'; readonly src: string };

export type FoldVia = 'fold' | 'sum' | 'maximum' | 'minimum';

export type Stmt =
  | { readonly k: 'let'; readonly names: readonly string[]; readonly op: ArrOp }
  | { readonly k: 'scalar'; readonly name: string; readonly e: Expr }
  /** A reduction of a rank-1 array to a scalar; `seed` only with `via: 'fold'`. */
  | { readonly k: 'fold'; readonly name: string; readonly via: FoldVia; readonly op: '+' | '*' | 'max' | 'min'; readonly seed: Expr | null; readonly src: string }
  | { readonly k: 'if'; readonly c: Expr; readonly then: readonly Stmt[]; readonly else: readonly Stmt[] }
  /** `counter = 0; while counter < bound: body; counter = counter + 1`. */
  | { readonly k: 'while'; readonly counter: string; readonly bound: Expr; readonly body: readonly Stmt[] }
  /** `for iv in range(n): body`, unrolled at compile time. */
  | { readonly k: 'for'; readonly iv: string; readonly n: number; readonly body: readonly Stmt[] };

export interface Param {
  readonly name: string;
  readonly elem: Elem;
  /** 0 for a scalar, 1 for an array. */
  readonly rank: 0 | 1;
}

export interface Prog {
  readonly params: readonly Param[];
  readonly body: readonly Stmt[];
  readonly rets: readonly string[];
}
