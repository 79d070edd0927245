// Run-time `if` statements inside element functions, lowered to selects.
//
// Element code has no blocks: an element function is a list of lets and its results. So an
// `if` (with its `elif`s and `else`) on a run-time condition evaluates every branch from the
// environment before it, and each name a branch binds becomes a let of a select,
// `y = c ? a : b` (tuples component-wise), even where both values are one, as the conditional
// expression would (a fault of the condition reaches it). A name bound in some branches only is
// poisoned: using it later is E209. A `return` inside a branch makes the branch's value part of
// a select too; a branch that does not return continues with the statements after the `if`,
// whose return is selected where no earlier `return` was taken (a *partial* return, see
// `PartialReturn`).
//
// The lets run unconditionally, but the source runs only one branch, and the conditional
// expression (IR `select`) evaluates only the branch it takes, in the interpreter and in every
// code generator. So that no branch faults where the source would not have run it (`xs[i - 1]`
// guarded by `i > 0`, a division guarded by a test of the divisor), every let that may fault
// (an index, an integer `//`, `%` or `**`) is wrapped in a select on its *guard*: the condition
// under which the code that bound it runs (`Frame.guard`), false where it does not, making the
// let a harmless zero there. Guards are bound to lets only when a let needs them, so code that
// cannot fault pays nothing. A value computed under a guard is only ever used where that guard
// holds: merges and returns select it on the branch's condition, and every select is bound under
// the guard of the code around it (where a condition is not known to hold it may be garbage,
// but then nothing reads the result).
//
// An `elif` chain is followed by a loop and merged bottom-up by another, not by recursion, so a
// chain of any length lowers without deepening the stack (it nests no IR blocks: E222 does not
// apply). A condition known at compile time is resolved at compile time, in the chain too.

import { CompilerBug, type Span } from '../diagnostics/index.js';
import type { Stmt as AstStmt } from '../syntax/ast.js';
import type { Expr } from '../ir/types.js';
import { exprMayFault } from '../ir/walk.js';
import { asArray, asScalar, deref, describe, evalBody, ifCondition, sizesIn, type BodyResult } from './evaluator.js';
import { selectScalar, type TypeClashError } from './scalar.js';
import { isTuple } from './types.js';
import {
  bind,
  bindLevel,
  fail,
  hintGeneric,
  site,
  type DynamicCondition,
  type Env,
  type Frame,
  type Guard,
  type HintLevel,
  type SVal,
  type ScalarVal,
} from './values.js';

type IfStmt = Extract<AstStmt, { kind: 'if' }>;

/**
 * A `return` taken on some run-time paths of a statement list only (an element `if` some of
 * whose branches return); the statements after it run where it was not taken.
 */
export interface PartialReturn {
  /** A bool atom: whether the return was taken (meaningful where the code that produced it runs). */
  readonly taken: Expr;
  /** The value returned (meaningful where it was taken). */
  readonly value: SVal;
  /** The run-time conditions it depends on, which the statements after it depend on too. */
  readonly conditions?: readonly DynamicCondition[];
}

const TRUE: Expr = { kind: 'const', type: 'bool', value: 1 };
const FALSE: Expr = { kind: 'const', type: 'bool', value: 0 };

function select(cond: Expr, then: Expr, otherwise: Expr): Expr {
  return { kind: 'select', cond, then, else: otherwise, type: then.type };
}

function not(e: Expr): Expr {
  return { kind: 'unary', op: 'not', arg: e, type: 'bool' };
}

// ---------------------------------------------------------------------------------------------
// Lets and guards
// ---------------------------------------------------------------------------------------------

/** `expr` as a let's right-hand side under the frame's guard: a zero where it does not run, if it may fault. */
function guarded(fr: Frame, expr: Expr): Expr {
  if (fr.guard === undefined || !exprMayFault(expr)) return expr;
  return select(fr.guard.expr(), expr, { kind: 'const', type: expr.type, value: 0 });
}

/** Appends the let `name = expr` to the element function being lowered, guarded (see above). */
export function pushElementLet(fr: Frame, name: string, expr: Expr): void {
  if (fr.em.kind !== 'element') throw new CompilerBug('lower', `element let '${name}' outside element code`);
  const rhs = guarded(fr, expr);
  fr.em.lets.push({ name, expr: rhs });
}

/** `expr` bound to a new let (a constant or a variable is returned as it is). */
function elementLet(fr: Frame, expr: Expr, hint: string, level: HintLevel): Expr {
  if (expr.kind === 'var' || expr.kind === 'const') return expr;
  const name = fr.st.fresh(hint, level);
  pushElementLet(fr, name, expr);
  return { kind: 'var', name, type: expr.type };
}

/** A guard bound to a let the first time something asks for it. */
function lazyGuard(fr: Frame, make: () => Expr): Guard {
  let made: Expr | undefined;
  return { expr: () => (made ??= elementLet({ ...fr, guard: undefined }, make(), 'runs', hintGeneric)) };
}

/** Where `outer` holds and the bool atom `c` is true. */
function guardAnd(fr: Frame, outer: Guard | undefined, c: Expr): Guard {
  if (outer === undefined) return { expr: () => c };
  return lazyGuard(fr, () => select(outer.expr(), c, FALSE));
}

/** Where `outer` holds and the bool atom `c` is false. */
function guardAndNot(fr: Frame, outer: Guard | undefined, c: Expr): Guard {
  return lazyGuard(fr, () => (outer === undefined ? not(c) : select(c, FALSE, outer.expr())));
}

/** `c ? x : y` on bool atoms, as an atom. */
function selectBool(fr: Frame, c: Expr, x: Expr, y: Expr): Expr {
  if (x.kind === 'const' && y.kind === 'const') {
    if (x.value === y.value) return x;
    return x.value !== 0 ? c : elementLet(fr, not(c), 'taken', hintGeneric);
  }
  return elementLet(fr, select(c, x, y), 'taken', hintGeneric);
}

// ---------------------------------------------------------------------------------------------
// The `if` statement
// ---------------------------------------------------------------------------------------------

/** One branch of a chain decided at run time: where it is reached, its condition, its result. */
interface Clause {
  readonly reach: Guard | undefined;
  readonly cond: Expr;
  readonly result: BodyResult;
}

/**
 * An `if` statement in element code whose condition `first` is only known at run time, with
 * its `elif`s and `else`: every branch evaluated from the same environment, then merged.
 */
export function lowerElementIf(fr: Frame, s0: IfStmt, cond0: ScalarVal): BodyResult {
  const clauses: Clause[] = [];
  let reach = fr.guard;
  let conditions: readonly DynamicCondition[] = fr.conditions;
  let s = s0;
  let cond = cond0;
  let last: readonly AstStmt[];
  for (;;) {
    if (cond.kind !== 'dyn') throw new CompilerBug('lower', 'an element if on a static condition');
    conditions = [...conditions, { span: site(fr, s.cond.span), sizesOf: sizesIn(fr, cond.expr) }];
    const c = elementLet({ ...fr, guard: reach }, cond.expr, 'cond', hintGeneric);
    const result = evalBody({ ...fr, guard: guardAnd(fr, reach, c), conditions }, s.then);
    clauses.push({ reach, cond: c, result });
    reach = guardAndNot(fr, reach, c);
    const next = nextClause({ ...fr, guard: reach, conditions }, s.orelse ?? []);
    if (next.kind === 'last') {
      last = next.body;
      break;
    }
    s = next.s;
    cond = next.cond;
  }
  let acc = evalBody({ ...fr, guard: reach, conditions }, last);
  for (let k = clauses.length - 1; k >= 0; k--) acc = joinClause(fr, clauses[k]!, acc, s0.span);
  return acc.partial === undefined ? acc : { ...acc, partial: { ...acc.partial, conditions } };
}

/**
 * What follows a branch: the next `elif` decided at run time, or the statements that end the
 * chain (its `else`, or the branch of an `elif` known true at compile time).
 */
function nextClause(
  fr: Frame,
  orelse0: readonly AstStmt[],
): { readonly kind: 'last'; readonly body: readonly AstStmt[] } | { readonly kind: 'elif'; readonly s: IfStmt; readonly cond: ScalarVal } {
  for (let orelse = orelse0; ; ) {
    const only = orelse.length === 1 ? orelse[0]! : null;
    if (only === null || only.kind !== 'if') return { kind: 'last', body: orelse };
    fr.st.steps++;
    const cond = ifCondition(fr, only);
    if (cond.kind !== 'static') return { kind: 'elif', s: only, cond };
    if (cond.value !== 0) return { kind: 'last', body: only.then };
    orelse = only.orelse ?? [];
  }
}

/** Whether a branch returned: true, a run-time flag, or null (it never does). */
function takenOf(r: BodyResult): Expr | null {
  if (r.ret !== null) return TRUE;
  return r.partial?.taken ?? null;
}

/** A clause joined with what its condition being false leads to (the rest of the chain, merged). */
function joinClause(fr: Frame, k: Clause, b: BodyResult, span: Span): BodyResult {
  const a = k.result;
  const at: Frame = { ...fr, guard: k.reach };
  if (a.ret !== null && b.ret !== null) return { env: fr.env, ret: selectReturned(at, k.cond, a.ret, b.ret, span) };
  const env = a.ret !== null ? b.env : b.ret !== null ? a.env : mergeEnvs(at, k.cond, fr.env, a.env, b.env, span);
  const ta = takenOf(a);
  const tb = takenOf(b);
  if (ta === null && tb === null) return { env, ret: null };
  const taken = selectBool(at, k.cond, ta ?? FALSE, tb ?? FALSE);
  const va = a.ret ?? a.partial?.value;
  const vb = b.ret ?? b.partial?.value;
  const value = va !== undefined && vb !== undefined
    ? selectReturned({ ...fr, guard: guardAnd(fr, k.reach, taken) }, k.cond, va, vb, span)
    : (va ?? vb)!;
  return { env, ret: null, partial: { taken, value } };
}

/** The environment after the branches: each name bound differently becomes a select. */
function mergeEnvs(fr: Frame, c: Expr, before: Env, ea: Env, eb: Env, span: Span): Env {
  let env = before;
  for (const name of new Set([...ea.keys(), ...eb.keys()])) {
    const a = ea.get(name);
    const b = eb.get(name);
    // Left alone by every branch: no select (a name the branches bind is one even if both
    // values are the same, as in `a if c else a`: a fault of the condition is carried to it).
    if (a === b && before.get(name) === a) continue;
    const merged: SVal = a === undefined || b === undefined
      ? { kind: 'undef', name, span }
      : selectNamed(fr, c, a, b, span, name, `'${name}'`);
    env = bind(env, name, merged);
  }
  return env;
}

/** `c ? a : b` on two values a function returns, its scalars bound to lets. */
function selectReturned(fr: Frame, c: Expr, a: SVal, b: SVal, span: Span): SVal {
  return selectNamed(fr, c, a, b, span, 'r', 'the value returned');
}

/**
 * `c ? a : b` on the values a name (or a return) has in two branches: tuples component-wise,
 * scalars as in the conditional expression (a select even where both are one value, so that a
 * fault of the condition is carried to the result as `a if c else a` carries it), the same
 * function or array kept; a name bound in one branch only stays poisoned.
 */
function selectNamed(fr: Frame, c: Expr, a0: SVal, b0: SVal, span: Span, hint: string, what: string): SVal {
  if (a0.kind === 'undef' || b0.kind === 'undef') return { kind: 'undef', name: hint, span };
  let a = deref(fr, a0, span);
  let b = deref(fr, b0, span);
  // An entry parameter not classified yet is what the other branch has; both: a scalar (an
  // element function chooses between scalars only).
  if (a.kind === 'param') a = b.kind === 'array' ? asArray(fr, a, span, what) : asScalar(fr, a, span, what);
  if (b.kind === 'param') b = a.kind === 'array' ? asArray(fr, b, span, what) : asScalar(fr, b, span, what);
  const scalar = (v: SVal): boolean => v.kind === 'static' || v.kind === 'dyn';
  // A rank-0 array in one branch and a scalar in the other: both are scalars.
  if (scalar(a) && b.kind === 'array' && isRankZero(fr, b)) b = asScalar(fr, b, span, what);
  if (scalar(b) && a.kind === 'array' && isRankZero(fr, a)) a = asScalar(fr, a, span, what);
  const clash = (): Error => fail(fr, 'E308', `${what} is ${describe(fr, a)} in one branch of the 'if' and ${describe(fr, b)} in the other`, span);
  if (a.kind === 'fn' || b.kind === 'fn') {
    if (a.kind === 'fn' && b.kind === 'fn' && a.fn === b.fn) return a;
    throw fail(fr, 'E308', `${what} must be the same function in every branch of a run-time 'if'`, span);
  }
  if (a.kind === 'tuple' && b.kind === 'tuple' && a.elems.length === b.elems.length) {
    const bs = b.elems;
    return { kind: 'tuple', elems: a.elems.map((x, i) => selectNamed(fr, c, x, bs[i]!, span, `${hint}.${i}`, `${what}[${i}]`)) };
  }
  if (a.kind === 'array' && b.kind === 'array') {
    if (a.comps.length === b.comps.length && a.comps.every((n, i) => n === b.comps[i])) return a;
    throw fail(fr, 'E308', `${what} is a different array in each branch of a run-time 'if' in an element function, which can only choose between scalars (index the arrays in the branches instead)`, span);
  }
  if ((a.kind !== 'static' && a.kind !== 'dyn') || (b.kind !== 'static' && b.kind !== 'dyn')) throw clash();
  // The types of `a if c else b`: a literal adapts, an integer and a float give the float.
  const types: TypeClashError = (ta, tb) => fail(fr, 'E308', `${what} is ${ta} in one branch of the 'if' and ${tb} in the other`, span);
  const v = selectScalar(fr, { kind: 'dyn', expr: c, ty: 'bool' }, a, b, site(fr, span), types);
  return v.kind === 'dyn' ? { ...v, expr: elementLet(fr, v.expr, hint, bindLevel(fr)) } : v;
}

function isRankZero(fr: Frame, v: Extract<SVal, { kind: 'array' }>): boolean {
  const r = fr.st.infer.pruneRank(v.rank);
  return r.v === null && r.k === 0 && !isTuple(fr.st.infer.prune(v.elem));
}

// ---------------------------------------------------------------------------------------------
// Statement lists with partial returns
// ---------------------------------------------------------------------------------------------

/**
 * The returns met so far in a statement list (or the unrolled iterations of a `for`): the
 * statements after a partial return run under a guard that excludes it, and a later `return`
 * is selected with it.
 */
export class ReturnsSoFar {
  private partial: PartialReturn | undefined;
  /** The guard of the next statement. */
  guard: Guard | undefined;
  /** The run-time conditions the next statement depends on (for E205/E206's explanations). */
  conditions: readonly DynamicCondition[];

  constructor(private readonly fr: Frame) {
    this.guard = fr.guard;
    this.conditions = fr.conditions;
  }

  /** Takes a statement's result; the result of the whole list if it ends there, else null. */
  add(r: BodyResult, span: Span): BodyResult | null {
    const fr = this.fr;
    const p = this.partial;
    if (r.ret !== null) return { env: r.env, ret: p === undefined ? r.ret : selectReturned(fr, p.taken, p.value, r.ret, span) };
    if (r.partial === undefined) return null;
    const q = r.partial;
    this.conditions = q.conditions ?? this.conditions;
    if (p === undefined) this.partial = q;
    else {
      // `q` was computed where `p` was not taken.
      const taken = selectBool(fr, p.taken, TRUE, q.taken);
      const value = selectReturned({ ...fr, guard: guardAnd(fr, fr.guard, taken) }, p.taken, p.value, q.value, span);
      this.partial = { taken, value };
    }
    this.guard = guardAndNot(fr, fr.guard, this.partial!.taken);
    return null;
  }

  /** The result of a list that ran to its end. */
  end(env: Env): BodyResult {
    return this.partial === undefined ? { env, ret: null } : { env, ret: null, partial: { ...this.partial, conditions: this.conditions } };
  }
}
