// The core IR: the paper's language (Table 1) as readonly plain data.
//
// A Program is one entry `def` after lowering: every call inlined, every `for` unrolled, every
// static `if` resolved, every name bound once (SSA), arrays of tuples split into one array per
// component (structure of arrays). What is left is a Block of statements, each either an
// array-level scalar binding, one core combinator, or an array-level control-flow construct
// (`if`, `while`) whose bodies are Blocks of their own.
//
// Everything here is JSON-serialisable (no Maps, no classes, no cycles), so another compiler
// can hand us a program and take a plan back. `kind` fields discriminate every union; switches
// over them end in `x satisfies never` so that adding a combinator fails to compile until every
// stage handles it.
//
// Names: every value (array component, scalar, lambda parameter, element-level let) has a
// VarName unique within its Program. Blocks see the names of enclosing blocks (lexical scope);
// a `while` body sees its loop-carried values through its own params.

import type { Span } from '../diagnostics/index.js';

/** Element types. Tuples do not exist in the core IR: they are split into components. */
export type ScalarType = 'f64' | 'f32' | 'i32' | 'u32' | 'u8' | 'i8' | 'bool';

export const scalarTypes: readonly ScalarType[] = ['f64', 'f32', 'i32', 'u32', 'u8', 'i8', 'bool'];

export type VarName = string;

/** Unique (within a Program) identity of a statement that is a graph node. */
export type NodeId = number;

// ---------------------------------------------------------------------------------------------
// Element level
// ---------------------------------------------------------------------------------------------

/**
 * Binary operators. Both operands have the expression's operand type (lowering inserts casts);
 * the result type is that type, or `bool` for comparisons.
 *  - `/` only on f64/f32 (lowering casts integer operands to f64, Python 3 style).
 *  - `//` and `%` floor semantics (Python): the remainder has the sign of the divisor;
 *    integer division or remainder by zero is a run-time error (E401).
 *  - integer `+ - *` wrap to the element type (i32: `|0`, u32: `>>>0`); f32 rounds with fround.
 *  - `**` on floats is Math.pow; on integers it is repeated multiplication that wraps.
 *  - `and`/`or` on bool; `min`/`max` on any numeric type.
 *  - bit operations `& | ^ << >>` only on i32 and u32, on the 32-bit two's complement pattern;
 *    a shift count is taken modulo 32 (as JavaScript and WebAssembly do); `>>` is arithmetic on
 *    i32 and logical on u32. u32 results are kept in [0, 2^32) (`>>> 0`).
 */
export type BinaryOp =
  | '+' | '-' | '*' | '/' | '//' | '%' | '**'
  | '==' | '!=' | '<' | '<=' | '>' | '>='
  | '&' | '|' | '^' | '<<' | '>>'
  | 'and' | 'or' | 'min' | 'max';

/** `bitnot` is `~`, on i32 and u32 only. */
export type UnaryOp = 'neg' | 'not' | 'bitnot';

/**
 * Unary math functions, on f64/f32 (lowering casts integers to f64), except `abs` (any numeric)
 * and the bit counts `popcount` (bits set) and `clz` (leading zero bits of the 32), on i32/u32
 * only, whose value 0..32 has the argument's type.
 */
export type MathFn = 'sqrt' | 'cbrt' | 'exp' | 'log' | 'sin' | 'cos' | 'tan' | 'tanh' | 'abs' | 'floor' | 'ceil' | 'popcount' | 'clz';

export type Expr =
  | ConstExpr
  | VarExpr
  | UnaryExpr
  | BinaryExpr
  | CallExpr
  | CastExpr
  | SelectExpr
  | IndexExpr
  | DimExpr;

export interface ConstExpr {
  readonly kind: 'const';
  readonly type: ScalarType;
  /** For `bool`: 0 or 1. Integers are already wrapped to their type; f32 already rounded. */
  readonly value: number;
  readonly span?: Span;
}

/** A lambda parameter, an element-level let, or an array-level scalar (ScalarStmt, entry scalar). */
export interface VarExpr {
  readonly kind: 'var';
  readonly name: VarName;
  readonly type: ScalarType;
  readonly span?: Span;
}

export interface UnaryExpr {
  readonly kind: 'unary';
  readonly op: UnaryOp;
  readonly arg: Expr;
  readonly type: ScalarType;
  readonly span?: Span;
}

export interface BinaryExpr {
  readonly kind: 'binary';
  readonly op: BinaryOp;
  readonly lhs: Expr;
  readonly rhs: Expr;
  readonly type: ScalarType;
  readonly span?: Span;
}

export interface CallExpr {
  readonly kind: 'call';
  readonly fn: MathFn;
  readonly arg: Expr;
  readonly type: ScalarType;
  readonly span?: Span;
}

/** Numeric conversion: f64→i32 truncates toward zero and wraps; to bool is `x != 0`. */
export interface CastExpr {
  readonly kind: 'cast';
  readonly to: ScalarType;
  readonly arg: Expr;
  readonly type: ScalarType;
  readonly span?: Span;
}

/** `a if c else b`; only the chosen branch is evaluated (it may index out of range otherwise). */
export interface SelectExpr {
  readonly kind: 'select';
  readonly cond: Expr;
  readonly then: Expr;
  readonly else: Expr;
  readonly type: ScalarType;
  readonly span?: Span;
}

/**
 * `xs[i, j]` / `xs ! i`: reads one component array by index. The array is a *free array
 * variable* of the enclosing combinator: an infusible edge in the dependence graph. One index
 * per dimension (none for a rank-0 array); an index out of range is a run-time error (E402)
 * pointing at `span`.
 */
export interface IndexExpr {
  readonly kind: 'index';
  readonly array: VarName;
  readonly indices: readonly Expr[];
  readonly type: ScalarType;
  readonly span?: Span;
}

/** Extent of one dimension of an array, an `i32`. A shape query: it never adds a graph edge. */
export interface DimExpr {
  readonly kind: 'dim';
  readonly array: VarName;
  readonly axis: number;
  readonly type: 'i32';
  readonly span?: Span;
}

export interface Param {
  readonly name: VarName;
  readonly type: ScalarType;
}

/** An element-level binding inside a lambda, evaluated in order. */
export interface Let {
  readonly name: VarName;
  readonly expr: Expr;
}

/**
 * An element-level function: scalar parameters in, one scalar per result component out.
 * A lambda may mention array-level scalars and index arrays (free variables) by name.
 */
export interface Lambda {
  readonly params: readonly Param[];
  readonly lets: readonly Let[];
  readonly results: readonly Expr[];
}

// ---------------------------------------------------------------------------------------------
// Array level
// ---------------------------------------------------------------------------------------------

/** One array a statement defines: a component of the (possibly tuple-typed) result. */
export interface ArrayVar {
  readonly name: VarName;
  readonly elem: ScalarType;
  readonly rank: number;
}

/** A value a statement defines or a block receives: an array component or a scalar. */
export type Value = ({ readonly kind: 'array' } & ArrayVar) | { readonly kind: 'scalar'; readonly name: VarName; readonly elem: ScalarType };

interface CombinatorBase {
  readonly id: NodeId;
  /** The arrays this combinator produces, one per tuple component. */
  readonly outs: readonly ArrayVar[];
  /** The source expression this combinator came from (for run-time errors and plan output). */
  readonly span: Span;
}

/** `generate(s, f)`: shape `s` (one i32 expression per dimension), `f` of one i32 per dimension. */
export interface GenerateNode extends CombinatorBase {
  readonly kind: 'generate';
  readonly shape: readonly Expr[];
  readonly fn: Lambda;
}

/** n-ary `map`: `fn` takes one parameter per input component; all inputs have one shape. */
export interface MapNode extends CombinatorBase {
  readonly kind: 'map';
  readonly inputs: readonly VarName[];
  readonly fn: Lambda;
}

/**
 * `gather(is, xs)`: `outs[c][j] = source[c][indices[0][j], …, indices[r-1][j]]`.
 * One i32 index array per dimension of the source (r = source rank), all of one shape, which is
 * the output's shape. `outs.length === source.length`.
 */
export interface GatherNode extends CombinatorBase {
  readonly kind: 'gather';
  readonly indices: readonly VarName[];
  readonly source: readonly VarName[];
}

/**
 * `scatter(op, dest, src)`: a new array equal to `dest` with, for every element position p of
 * the source, `dest[index(p)] = op(dest[index(p)], values(p))`. `index` has one i32 array per
 * dimension of `dest`; `values` one array per component of `dest`. `op` takes (old…, new…) and
 * returns new components. The scatter is `dest`'s last use: it updates `dest` in place.
 */
export interface ScatterNode extends CombinatorBase {
  readonly kind: 'scatter';
  readonly op: Lambda;
  readonly dest: readonly VarName[];
  readonly index: readonly VarName[];
  readonly values: readonly VarName[];
  /**
   * Set only by the prelude, where the indices are distinct by construction (filter's places):
   * no two updates meet, so threads may apply them in any order. Absent: updates may collide.
   */
  readonly unique?: true;
  /**
   * Out-of-range updates are dropped (`scatterDrop`, and `hist`, Futhark's reduce_by_index):
   * an index outside the destination in any dimension skips its update. Absent: such an
   * index is a run-time fault (E402).
   */
  readonly drop?: true;
}

/**
 * `fold(op, z, xs)`: reduces the innermost dimension (rank ≥ 1 → rank − 1). `op` takes
 * (acc…, x…); `init` gives one seed per component. Left to right: acc = op(acc, x).
 */
export interface FoldNode extends CombinatorBase {
  readonly kind: 'fold';
  readonly op: Lambda;
  readonly init: readonly Expr[];
  readonly input: readonly VarName[];
}

/**
 * `scanl` along each innermost row, same shape. Inclusive (`init` null): out[0] = x[0],
 * out[i] = op(out[i-1], x[i]). Exclusive with seed z: out[0] = z, out[i] = op(out[i-1], x[i-1]).
 */
export interface ScanlNode extends CombinatorBase {
  readonly kind: 'scanl';
  readonly op: Lambda;
  readonly init: readonly Expr[] | null;
  readonly input: readonly VarName[];
}

/**
 * `scanr` along each innermost row, right to left, same shape. Inclusive: out[n-1] = x[n-1],
 * out[i] = op(x[i], out[i+1]). Exclusive with seed z: out[n-1] = z, out[i] = op(x[i+1], out[i+1]).
 */
export interface ScanrNode extends CombinatorBase {
  readonly kind: 'scanr';
  readonly op: Lambda;
  readonly init: readonly Expr[] | null;
  readonly input: readonly VarName[];
}

/** `force(xs)`: the same values, never fused with its producer or its consumers. */
export interface ForceNode extends CombinatorBase {
  readonly kind: 'force';
  readonly input: readonly VarName[];
}

export type CombinatorNode =
  | GenerateNode
  | MapNode
  | GatherNode
  | ScatterNode
  | FoldNode
  | ScanlNode
  | ScanrNode
  | ForceNode;

export type CombinatorKind = CombinatorNode['kind'];

/** A record, so that a new combinator fails to compile until it is listed (in IR order). */
const combinatorKindSet: { readonly [K in CombinatorKind]: true } = {
  generate: true, map: true, gather: true, scatter: true, fold: true, scanl: true, scanr: true, force: true,
};

export const combinatorKinds = Object.keys(combinatorKindSet) as readonly CombinatorKind[];

/**
 * An array-level scalar binding (`n = size(xs)`, `s = zs!0`, `t = n * 2`). Not a graph node:
 * arrays it indexes become free array variables of every combinator that uses the scalar.
 */
export interface ScalarStmt {
  readonly kind: 'scalar';
  readonly name: VarName;
  readonly expr: Expr;
  readonly span: Span;
}

/**
 * Array-level conditional on a scalar not known at compile time. One graph node that fuses
 * with nothing; each branch is a Block with an ILP of its own. Both branches return values of
 * the types of `outs` (arrays of equal element type and rank, or scalars).
 */
export interface IfNode {
  readonly kind: 'if';
  readonly id: NodeId;
  readonly cond: Expr;
  readonly then: Block;
  readonly else: Block;
  readonly outs: readonly Value[];
  readonly span: Span;
}

/**
 * Array-level loop. `init` gives the values the loop-carried params of `cond` and `body` start
 * with; `cond` returns one bool scalar; `body` returns the next values of the carried params,
 * in order. `outs` receive the carried values when `cond` is false.
 */
export interface WhileNode {
  readonly kind: 'while';
  readonly id: NodeId;
  readonly init: readonly VarName[];
  readonly cond: Block;
  readonly body: Block;
  readonly outs: readonly Value[];
  readonly span: Span;
}

export type ControlNode = IfNode | WhileNode;

export type Stmt = ScalarStmt | CombinatorNode | ControlNode;

/** Whether a statement is a combinator (not a scalar binding, not control flow). */
export function isCombinator(s: Stmt): s is CombinatorNode {
  return Object.hasOwn(combinatorKindSet, s.kind);
}

/** A sequence of statements with parameters (for `while` bodies) and named results. */
export interface Block {
  readonly params: readonly Value[];
  readonly stmts: readonly Stmt[];
  readonly results: readonly VarName[];
}

/** How the flat components of an entry parameter or result group into what the user sees. */
export interface Interface {
  /** The name in the source (`as`, `result`), or `result0`… for unnamed results. */
  readonly name: string;
  /** Component values, one for a plain array or scalar, several for an array of tuples. */
  readonly components: readonly Value[];
  readonly span?: Span;
  /** An entry parameter whose buffers the caller donated: in-place updates may write them. */
  readonly donated?: true;
}

export interface Program {
  /** The entry `def`'s name. */
  readonly name: string;
  /** Entry parameters: their components are the Block params of `body`. */
  readonly params: readonly Interface[];
  readonly body: Block;
  /** What `return` returns, grouped; the components are `body.results` in order. */
  readonly results: readonly Interface[];
}

/** Known sizes of the entry arrays (and values of entry scalars) a program was specialised to. */
export type Shape = readonly number[];
