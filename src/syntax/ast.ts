// The surface AST of the `.fuse` language (../../docs/LANGUAGE.md is the contract).
//
// A faithful picture of what was written, with a Span on every node; no desugaring happens
// here (that is lowering's job), so error messages can talk about the program as the user
// wrote it.

import type { Span } from '../diagnostics/index.js';

export interface Module {
  readonly defs: readonly Def[];
  readonly span: Span;
}

export interface Def {
  readonly name: string;
  readonly nameSpan: Span;
  readonly params: readonly DefParam[];
  readonly returnType: TypeAnn | null;
  readonly body: readonly Stmt[];
  readonly span: Span;
}

export interface DefParam {
  readonly name: string;
  readonly type: TypeAnn | null;
  readonly span: Span;
}

/** `f64`, `(i32, f64)`. */
export type ElemAnn =
  | { readonly kind: 'scalar'; readonly name: 'f64' | 'f32' | 'i32' | 'u32' | 'u8' | 'i8' | 'bool'; readonly span: Span }
  | { readonly kind: 'tuple'; readonly elems: readonly ElemAnn[]; readonly span: Span };

/** `f64` (a scalar), `f64[n, m]` (an array; the dimension names are documentation). */
export type TypeAnn =
  | { readonly kind: 'scalar'; readonly elem: ElemAnn; readonly span: Span }
  | { readonly kind: 'array'; readonly elem: ElemAnn; readonly dims: readonly string[]; readonly span: Span };

/** A binding target or lambda parameter: a name or a (nested) tuple of them. */
export type Pattern =
  | { readonly kind: 'name'; readonly name: string; readonly span: Span }
  | { readonly kind: 'tuple'; readonly elems: readonly Pattern[]; readonly span: Span };

export type Stmt = AssignStmt | ReturnStmt | IfStmt | WhileStmt | ForStmt | PassStmt;

/** `x = e`, `x, y = e`. */
export interface AssignStmt {
  readonly kind: 'assign';
  readonly target: Pattern;
  readonly value: Expr;
  readonly span: Span;
}

export interface ReturnStmt {
  readonly kind: 'return';
  readonly value: Expr;
  readonly span: Span;
}

/** `if c: … elif d: … else: …` (an `elif` is an IfStmt alone in `orelse`). */
export interface IfStmt {
  readonly kind: 'if';
  readonly cond: Expr;
  readonly then: readonly Stmt[];
  readonly orelse: readonly Stmt[] | null;
  readonly span: Span;
}

export interface WhileStmt {
  readonly kind: 'while';
  readonly cond: Expr;
  readonly body: readonly Stmt[];
  readonly span: Span;
}

/** `for i in range(k):` / `range(a, b)` / `range(a, b, step)`: unrolled at compile time. */
export interface ForStmt {
  readonly kind: 'for';
  readonly var: string;
  readonly varSpan: Span;
  readonly range: readonly Expr[];
  readonly body: readonly Stmt[];
  readonly span: Span;
}

export interface PassStmt {
  readonly kind: 'pass';
  readonly span: Span;
}

export type BinaryOperator =
  | '+' | '-' | '*' | '/' | '//' | '%' | '**'
  | '==' | '!=' | '<' | '<=' | '>' | '>='
  | '&' | '|' | '^' | '<<' | '>>'
  | 'and' | 'or';

export type Expr =
  | { readonly kind: 'number'; readonly text: string; readonly isFloat: boolean; readonly span: Span }
  | { readonly kind: 'bool'; readonly value: boolean; readonly span: Span }
  | { readonly kind: 'name'; readonly name: string; readonly span: Span }
  | { readonly kind: 'binary'; readonly op: BinaryOperator; readonly lhs: Expr; readonly rhs: Expr; readonly span: Span }
  | { readonly kind: 'unary'; readonly op: '-' | '+' | '~' | 'not'; readonly arg: Expr; readonly span: Span }
  /** `a if c else b`. */
  | { readonly kind: 'ifexp'; readonly cond: Expr; readonly then: Expr; readonly else: Expr; readonly span: Span }
  /** `f(a, b)`, and juxtaposition `shape xs` / `size xs`. */
  | { readonly kind: 'call'; readonly callee: Expr; readonly args: readonly Expr[]; readonly span: Span }
  /** `xs[i]`, `xs[i, j]`, `p[0]`. */
  | { readonly kind: 'index'; readonly target: Expr; readonly indices: readonly Expr[]; readonly span: Span }
  /** The paper's `xs ! i`. */
  | { readonly kind: 'bang'; readonly target: Expr; readonly index: Expr; readonly span: Span }
  | { readonly kind: 'tuple'; readonly elems: readonly Expr[]; readonly span: Span }
  /** `lambda x, y: e`, `lam(x, y): e`, `lam x: e`, `λx: e`. */
  | { readonly kind: 'lambda'; readonly params: readonly Pattern[]; readonly body: Expr; readonly span: Span }
  /** A bare operator where a function is expected: `fold(+, xs)`, `(+)`, `(*)`. */
  | { readonly kind: 'opref'; readonly op: BinaryOperator; readonly span: Span };
