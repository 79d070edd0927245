// The abstract values of the partial evaluator that lowering is, and the state of one run.
//
// Lowering interprets the surface program at compile time: what can be known (literals, shapes
// given by the signature, loop counters, arithmetic on them) is computed, and what cannot
// becomes IR. A value in the environment is therefore a static scalar, a dynamic scalar (an IR
// expression), an array (one IR variable per tuple component), a tuple of values, or a
// function. Names are provisional (`%7`) while lowering runs; a final pass gives them readable
// SSA names from the hints recorded here.

import type { Def, Expr as AstExpr, Pattern } from '../syntax/ast.js';
import { userError, type DiagnosticCode, type SourceFile, type Span, type UserError } from '../diagnostics/index.js';
import type { Expr, Let, NodeId, ScalarType, Stmt, VarName } from '../ir/types.js';
import { Infer, type ETy, type Rank, type STy } from './types.js';

export type StaticScalar = {
  readonly kind: 'static';
  readonly ty: ScalarType;
  readonly value: number;
  /**
   * An integer or float literal not yet forced to a type: it adapts to the other operand. A
   * weak integer (`ty` i32) holds its exact mathematical value, which need not fit i32: it is
   * checked against the integer type it finally takes (E312), and is exact where a float is
   * needed (`x + 3000000000` with x: f64 adds 3e9).
   */
  readonly weak: boolean;
  /** Where a weak integer was written (or folded), for the error if it does not fit its type. */
  readonly origin?: Span;
};

export type DynScalar = {
  readonly kind: 'dyn';
  readonly expr: Expr;
  readonly ty: STy;
  /**
   * A weak float (`ty` f64) computed at run time only from literals, integers and elements of
   * weak float arrays (`0.5 * i`, `a[i]` of `generate(n, lam i: 0.0)`): like a float literal it
   * takes the float type of what it meets, by one conversion of its f64 value (LANGUAGE.md §2).
   */
  readonly weak?: boolean;
};

export type ScalarVal = StaticScalar | DynScalar;

export interface ArrayVal {
  readonly kind: 'array';
  /** One IR array per scalar leaf of `elem`, in order. */
  readonly comps: readonly VarName[];
  readonly elem: ETy;
  readonly rank: Rank;
  /** Extents known at compile time (from the signature), or null where only known at run time. */
  readonly shape: readonly number[] | null;
  /**
   * Per component: an f64 array of weak floats (elements computed only from literals, as by
   * `generate(n, lam i: 0.0)`), which takes the float type of a typed array it meets at a
   * run-time `if` or `while` (by a cast `map`) and whose elements read as weak floats. Absent:
   * no component is weak.
   */
  readonly weak?: readonly boolean[];
}

export type FnVal =
  | { readonly kind: 'def'; readonly def: Def; readonly inPrelude: boolean }
  | { readonly kind: 'lambda'; readonly params: readonly Pattern[]; readonly body: AstExpr; readonly env: Env; readonly frame: FrameOrigin }
  | { readonly kind: 'builtin'; readonly name: string }
  | { readonly kind: 'op'; readonly op: OpName };

/** Where a lambda was written: its closure evaluates with the same file and call site. */
export interface FrameOrigin {
  readonly inPrelude: boolean;
  readonly userSpan: Span | null;
}

export type OpName =
  | '+' | '-' | '*' | '/' | '//' | '%' | '**'
  | '==' | '!=' | '<' | '<=' | '>' | '>='
  | '&' | '|' | '^' | '<<' | '>>'
  | 'and' | 'or' | 'min' | 'max';

export type SVal =
  | ScalarVal
  | ArrayVal
  | { readonly kind: 'tuple'; readonly elems: readonly SVal[] }
  | { readonly kind: 'fn'; readonly fn: FnVal }
  /** An entry parameter whose kind (scalar or array) the inference run has not seen yet. */
  | { readonly kind: 'param'; readonly index: number }
  /** A name bound in only one branch of a run-time `if`: an error if used. */
  | { readonly kind: 'undef'; readonly name: string; readonly span: Span };

export type Env = ReadonlyMap<string, SVal>;

export function bind(env: Env, name: string, v: SVal): Env {
  const next = new Map(env);
  next.set(name, v);
  return next;
}

/** How good a name hint is: the user's own name beats a prelude local beats a combinator kind. */
export type HintLevel = 0 | 1 | 2;
export const hintGeneric: HintLevel = 0;
export const hintLocal: HintLevel = 1;
export const hintUser: HintLevel = 2;

interface VarInfo {
  hint: string;
  level: HintLevel;
}

/**
 * The hint level of a binding: the entry's own names beat those of inlined functions (prelude
 * or user), so `a = twice(xs)` names the node `a`, not the `w` bound inside `twice`.
 */
export function bindLevel(fr: { readonly inPrelude: boolean; readonly depth: number }): HintLevel {
  return fr.inPrelude || fr.depth > 0 ? hintLocal : hintUser;
}

/** Where statements go: an array-level block or the lets of an element-level lambda. */
export type Emitter =
  | { readonly kind: 'array'; readonly stmts: Stmt[] }
  | { readonly kind: 'element'; readonly lets: Let[] };

/**
 * When the element code being lowered runs at all: a bool IR expression, made (bound to a let)
 * only when first asked for. Element code lowers both branches of a run-time `if` to lets that
 * run unconditionally; a let that may fault is wrapped in a select on its guard so that it
 * faults only where the source would have run it (see elementIf.ts).
 */
export interface Guard {
  readonly expr: () => Expr;
}

/** A run-time `if` being lowered; recursion under it that never ends is explained with it. */
export interface DynamicCondition {
  readonly span: Span;
  /** User-facing names of arrays whose run-time size the condition reads. */
  readonly sizesOf: readonly string[];
}

export const maxCallDepth = 128;
export const maxCalls = 20000;
/** Statements one lowering run may evaluate (unrolled `for` bodies, inlined calls): E220 beyond. */
export const maxSteps = 200_000;

/** State of one lowering run: name and node supplies, the solver, the definitions in scope. */
export class LowerState {
  private readonly vars: VarInfo[] = [];
  private nodes = 0;
  calls = 0;
  /** Statements evaluated so far (never rolled back: it bounds the work, not the program). */
  steps = 0;
  /** For scalar variables lowering bound: the arrays whose run-time sizes their value reads. */
  readonly sizeDeps = new Map<VarName, readonly string[]>();

  constructor(
    readonly file: SourceFile,
    readonly userDefs: ReadonlyMap<string, Def>,
    readonly preludeDefs: ReadonlyMap<string, Def>,
    readonly infer: Infer,
    /** Entry parameters the inference run resolves on first use (index → value). */
    readonly paramValues: SVal[],
    readonly paramNames: readonly string[],
    /** The inference run, whose IR is thrown away: a weak integer may still meet a type variable. */
    readonly inferring = false,
  ) {}

  fresh(hint: string, level: HintLevel): VarName {
    this.vars.push({ hint, level });
    return `%${this.vars.length - 1}`;
  }

  hint(name: VarName, hint: string, level: HintLevel): void {
    const info = this.varInfo(name);
    if (info !== undefined && level > info.level) {
      info.hint = hint;
      info.level = level;
    }
  }

  varInfo(name: VarName): VarInfo | undefined {
    return name.startsWith('%') ? this.vars[Number(name.slice(1))] : undefined;
  }

  /** The name a user would recognise, for messages. */
  display(name: VarName): string {
    return this.varInfo(name)?.hint ?? name;
  }

  /** Provisional names in creation order with their hints, for the final renaming. */
  allVars(): readonly { readonly name: VarName; readonly hint: string; readonly level: HintLevel }[] {
    return this.vars.map((v, i) => ({ name: `%${i}`, hint: v.hint, level: v.level }));
  }

  /**
   * Saves what an evaluation may change besides the IR it emits (the solver, parameters
   * classified on first use, the call budget) and returns a function that puts it back, for
   * lowering the same code again under other assumptions. Names and node ids are not reused:
   * the discarded IR keeps its own, and gaps are harmless.
   */
  checkpoint(): () => void {
    const infer = this.infer.snapshot();
    const params = [...this.paramValues];
    const calls = this.calls;
    return () => {
      this.infer.restore(infer);
      this.paramValues.splice(0, this.paramValues.length, ...params);
      this.calls = calls;
    };
  }

  nodeId(): NodeId {
    return this.nodes++;
  }

  /**
   * The next node id, and a function that makes it the next again: for an evaluation whose IR
   * is all discarded and redone from the start (a `while` loop lowered again after a weak value
   * took a type), so the redone IR numbers its nodes as if the first had not been.
   */
  nodeMark(): () => void {
    const at = this.nodes;
    return () => {
      this.nodes = at;
    };
  }

  error(code: DiagnosticCode, message: string, span: Span, notes?: readonly string[]): UserError {
    return userError(code, message, { file: this.file, span }, notes);
  }
}

/** The immutable context of the code being evaluated. */
export interface Frame {
  readonly st: LowerState;
  readonly env: Env;
  readonly inPrelude: boolean;
  /** Inside a prelude function: the user's outermost call, which every span inside reports. */
  readonly userSpan: Span | null;
  readonly em: Emitter;
  readonly depth: number;
  /** Run-time `if`/`while` blocks around this code (see control.ts, maxControlDepth). */
  readonly controlDepth?: number;
  /** The prelude function being inlined, named in errors its body raises about its arguments. */
  readonly preludeFn?: string;
  readonly conditions: readonly DynamicCondition[];
  /** Element code inside a run-time `if` (or after a `return` taken at run time): when it runs. */
  readonly guard?: Guard;
}

/** The span to report for source at `span` in the frame's file: the user's own code, or their call. */
export function site(fr: Frame, span: Span): Span {
  return fr.userSpan ?? span;
}

export function fail(fr: Frame, code: DiagnosticCode, message: string, span: Span, notes?: readonly string[]): UserError {
  // An error inside a prelude function is reported at the user's call: say whose code it is,
  // since the message may name operations the user never wrote (`hist`'s scatterDrop, a zip).
  const within = fr.inPrelude && fr.preludeFn !== undefined ? [`in the prelude's '${fr.preludeFn}' (docs/LANGUAGE.md §4 gives its argument types)`] : [];
  const all = [...(notes ?? []), ...within];
  return fr.st.error(code, message, site(fr, span), all.length > 0 ? all : undefined);
}
