// The partial evaluator: surface expressions and statements to abstract values, emitting IR.
//
// Calls to `def`s (the user's and the prelude's) are inlined by evaluating the callee's body in
// a fresh environment; `for` is unrolled; an `if` on a static condition is resolved; a run-time
// `if` or a `while` becomes one control-flow node whose bodies are blocks (see control.ts).
// Element functions passed to combinators become IR Lambdas by evaluating them on symbolic
// parameters (`toLambda`).

import type { Span } from '../diagnostics/index.js';
import type { Def, Expr as AstExpr, Pattern, Stmt as AstStmt } from '../syntax/ast.js';
import type { Expr, Lambda, Let, MathFn, Param } from '../ir/types.js';
import { callBuiltin, isBuiltinName, isPreludeOnlyBuiltinName } from './builtins.js';
import { lowerIf, lowerWhile } from './control.js';
import { ReturnsSoFar, lowerElementIf, pushElementLet, type PartialReturn } from './elementIf.js';
import { binaryOp, bitNot, coerce, concrete, logicalNot, negate, selectScalar, staticScalar, toExpr, weakFloat, weakInteger } from './scalar.js';
import { weakLeaves } from './weak.js';
import { TypeClash, elemLeaves, isTuple, rankOf, type ETy, type STy } from './types.js';
import {
  bind,
  fail,
  hintGeneric,
  bindLevel,
  maxCallDepth,
  maxCalls,
  maxSteps,
  site,
  type ArrayVal,
  type Env,
  type FnVal,
  type Frame,
  type OpName,
  type SVal,
  type ScalarVal,
} from './values.js';

// ---------------------------------------------------------------------------------------------
// Coercions between value kinds
// ---------------------------------------------------------------------------------------------

/** Resolves an entry parameter the inference run has not classified yet, and `undef`s. */
export function deref(fr: Frame, v: SVal, span: Span): SVal {
  if (v.kind === 'undef') {
    throw fail(fr, 'E209', `'${v.name}' is bound in only one branch of the run-time 'if' above`, span);
  }
  if (v.kind !== 'param') return v;
  return fr.st.paramValues[v.index] ?? v;
}

export function asArray(fr: Frame, v0: SVal, span: Span, what: string): ArrayVal {
  const v = deref(fr, v0, span);
  if (v.kind === 'array') return v;
  if (v.kind === 'param') {
    const name = fr.st.paramNames[v.index]!;
    const arr: ArrayVal = { kind: 'array', comps: [name], elem: fr.st.infer.freshElem(), rank: fr.st.infer.freshRank(), shape: null };
    fr.st.paramValues[v.index] = arr;
    return arr;
  }
  throw fail(fr, 'E302', `${what} must be an array, found ${describe(fr, v)}`, span);
}

export function asScalar(fr: Frame, v0: SVal, span: Span, what: string): ScalarVal {
  const v = deref(fr, v0, span);
  if (v.kind === 'static' || v.kind === 'dyn') return v;
  if (v.kind === 'param') {
    const name = fr.st.paramNames[v.index]!;
    const ty = fr.st.infer.freshElem();
    fr.st.infer.leaf(ty);
    const s: ScalarVal = { kind: 'dyn', expr: { kind: 'var', name, type: 'f64' }, ty };
    fr.st.paramValues[v.index] = s;
    return s;
  }
  if (v.kind === 'array' && fr.st.infer.pruneRank(v.rank).v === null && fr.st.infer.pruneRank(v.rank).k === 0) {
    // A rank-0 array read as a scalar: a free array variable of whoever uses it (infusible).
    const elem = fr.st.infer.prune(v.elem);
    if (!isTuple(elem)) return read(v, 0, { kind: 'index', array: v.comps[0]!, indices: [], type: concrete(fr, elem), span: site(fr, span) }, elem);
  }
  throw fail(fr, 'E303', `${what} must be a scalar, found ${describe(fr, v)}`, span);
}

/** A read of component `leaf` of an array: a weak float where the component is weak. */
function read(arr: ArrayVal, leaf: number, expr: Expr, ty: STy): ScalarVal {
  return arr.weak?.[leaf] === true ? { kind: 'dyn', expr, ty, weak: true } : { kind: 'dyn', expr, ty };
}

export function describe(fr: Frame, v: SVal): string {
  switch (v.kind) {
    case 'static':
    case 'dyn':
      return `a scalar of type ${fr.st.infer.show(v.ty)}`;
    case 'array': {
      const r = fr.st.infer.pruneRank(v.rank);
      return `an array of ${fr.st.infer.show(v.elem)}${r.v === null ? ` of rank ${r.k}` : ''}`;
    }
    case 'tuple':
      return `a tuple of ${v.elems.length} values`;
    case 'fn':
      return 'a function';
    case 'param':
      return 'an entry parameter';
    case 'undef':
      return `'${v.name}'`;
    default:
      return v satisfies never;
  }
}

/** Element values of an element-level tuple or scalar, flattened to scalar leaves. */
export function flattenScalars(fr: Frame, v: SVal, span: Span, what: string): ScalarVal[] {
  const d = deref(fr, v, span);
  if (d.kind === 'tuple') return d.elems.flatMap((e) => flattenScalars(fr, e, span, what));
  return [asScalar(fr, d, span, what)];
}

// ---------------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------------

export const mathFns: ReadonlySet<string> = new Set<MathFn>(['sqrt', 'cbrt', 'exp', 'log', 'sin', 'cos', 'tan', 'tanh', 'abs', 'floor', 'ceil', 'popcount', 'clz']);

export function lookup(fr: Frame, name: string, span: Span): SVal {
  const local = fr.env.get(name);
  if (local !== undefined) return deref(fr, local, span);
  const own = fr.inPrelude ? fr.st.preludeDefs.get(name) : fr.st.userDefs.get(name);
  if (own !== undefined) return { kind: 'fn', fn: { kind: 'def', def: own, inPrelude: fr.inPrelude } };
  const pre = fr.st.preludeDefs.get(name);
  if (pre !== undefined) return { kind: 'fn', fn: { kind: 'def', def: pre, inPrelude: true } };
  // Weak, like a float literal: `max(x, inf)` and `x + pi` keep x's float type.
  if (name === 'inf') return weakFloat(Infinity, site(fr, span));
  if (name === 'pi') return weakFloat(Math.PI, site(fr, span));
  if (isBuiltinName(name) || (fr.inPrelude && isPreludeOnlyBuiltinName(name))) return { kind: 'fn', fn: { kind: 'builtin', name } };
  throw fail(fr, 'E201', `unknown name '${name}'`, span);
}

/** A long literal shortened for a message (a 1000-digit number is not worth echoing). */
function abbreviate(text: string): string {
  return text.length <= 24 ? text : `${text.slice(0, 10)}…${text.slice(-6)} (${text.length} characters)`;
}

export function evalExpr(fr: Frame, e: AstExpr): SVal {
  switch (e.kind) {
    case 'number': {
      const value = Number(e.text.replace(/_/g, ''));
      if (!Number.isFinite(value)) throw fail(fr, 'E312', `the number ${abbreviate(e.text)} is too large for every number type`, e.span);
      // Integer literals are exact (LANGUAGE.md §2): one a double cannot hold is an error.
      if (!e.isFloat && BigInt(value) !== BigInt(e.text.replace(/_/g, ''))) {
        throw fail(fr, 'E312', `the integer constant ${abbreviate(e.text)} is not exact as a number (beyond 2^53 a number keeps 53 significant bits)`, e.span);
      }
      return e.isFloat ? weakFloat(value, site(fr, e.span)) : weakInteger(value, site(fr, e.span));
    }
    case 'bool':
      return staticScalar('bool', e.value ? 1 : 0);
    case 'name':
      return lookup(fr, e.name, e.span);
    case 'binary': {
      const a = asScalar(fr, evalExpr(fr, e.lhs), e.lhs.span, `the left operand of '${e.op}'`);
      const b = asScalar(fr, evalExpr(fr, e.rhs), e.rhs.span, `the right operand of '${e.op}'`);
      return binaryOp(fr, e.op, a, b, site(fr, e.span));
    }
    case 'unary': {
      const a = asScalar(fr, evalExpr(fr, e.arg), e.arg.span, `the operand of '${e.op}'`);
      if (e.op === '+') return a;
      if (e.op === '~') return bitNot(fr, a, site(fr, e.span));
      return e.op === '-' ? negate(fr, a, site(fr, e.span)) : logicalNot(fr, a, site(fr, e.span));
    }
    case 'ifexp': {
      const c = asScalar(fr, evalExpr(fr, e.cond), e.cond.span, 'a condition');
      const cond = coerce(fr, c, 'bool', site(fr, e.cond.span), 'a condition');
      if (cond.kind === 'static') return evalExpr(fr, cond.value !== 0 ? e.then : e.else);
      return selectValues(fr, cond, evalExpr(fr, e.then), evalExpr(fr, e.else), e.span);
    }
    case 'call': {
      const callee = evalExpr(fr, e.callee);
      if (callee.kind !== 'fn') throw fail(fr, 'E203', `${describe(fr, callee)} is not a function and cannot be called`, e.callee.span);
      const args = e.args.map((a) => evalExpr(fr, a));
      return callFn(fr, callee.fn, args, e.args.map((a) => a.span), e.span);
    }
    case 'index':
      return indexValue(fr, evalExpr(fr, e.target), e.indices, e.span);
    case 'bang':
      return indexValue(fr, evalExpr(fr, e.target), [e.index], e.span);
    case 'tuple':
      return { kind: 'tuple', elems: e.elems.map((x) => evalExpr(fr, x)) };
    case 'lambda':
      return { kind: 'fn', fn: { kind: 'lambda', params: e.params, body: e.body, env: fr.env, frame: { inPrelude: fr.inPrelude, userSpan: fr.userSpan } } };
    case 'opref':
      return { kind: 'fn', fn: { kind: 'op', op: e.op } };
    default:
      return e satisfies never;
  }
}

function selectValues(fr: Frame, c: ScalarVal, a: SVal, b: SVal, span: Span): SVal {
  const da = deref(fr, a, span);
  const db = deref(fr, b, span);
  if (da.kind === 'tuple' && db.kind === 'tuple' && da.elems.length === db.elems.length) {
    return { kind: 'tuple', elems: da.elems.map((x, i) => selectValues(fr, c, x, db.elems[i]!, span)) };
  }
  const sa = asScalar(fr, da, span, 'a branch of a conditional expression');
  const sb = asScalar(fr, db, span, 'a branch of a conditional expression');
  return selectScalar(fr, c, sa, sb, site(fr, span));
}

/** `xs[i, j]`, `xs ! i` on arrays (an IndexExpr per component), `p[0]` on tuples. */
function indexValue(fr: Frame, target0: SVal, indices: readonly AstExpr[], span: Span): SVal {
  const target = deref(fr, target0, span);
  if (target.kind === 'tuple') {
    const k = indices.length === 1 ? asScalar(fr, evalExpr(fr, indices[0]!), indices[0]!.span, 'a tuple index') : undefined;
    if (k === undefined || k.kind !== 'static') throw fail(fr, 'E217', 'a tuple is indexed by one integer known at compile time', span);
    const elem = target.elems[k.value];
    if (elem === undefined) throw fail(fr, 'E217', `tuple index ${k.value} is out of range for a tuple of ${target.elems.length}`, span);
    return elem;
  }
  const arr = asArray(fr, target, span, 'the indexed value');
  const infer = fr.st.infer;
  const rank = infer.pruneRank(arr.rank);
  if (rank.v !== null) infer.unifyRank(arr.rank, { v: null, k: indices.length });
  else if (rank.k !== indices.length) {
    throw fail(fr, 'E306', `an array of rank ${rank.k} is indexed with ${indices.length} ${indices.length === 1 ? 'index' : 'indices'}`, span);
  }
  const idx: Expr[] = indices.map((i) => {
    const s = asScalar(fr, evalExpr(fr, i), i.span, 'an array index');
    return toExpr(fr, coerce(fr, s, 'i32', site(fr, i.span), 'an array index'), site(fr, i.span));
  });
  return readElement(fr, arr, idx, span);
}

/** The element of an array at IR indices, as a (tuple of) dynamic scalars. */
export function readElement(fr: Frame, arr: ArrayVal, idx: readonly Expr[], span: Span): SVal {
  let leaf = 0;
  const build = (t: ETy): SVal => {
    const p = fr.st.infer.prune(t);
    if (isTuple(p)) return { kind: 'tuple', elems: p.map(build) };
    const at = arr.comps[leaf] === undefined ? 0 : leaf;
    leaf++;
    return read(arr, at, { kind: 'index', array: arr.comps[at]!, indices: idx, type: concrete(fr, p), span: site(fr, span) }, p);
  };
  return build(arr.elem);
}

// ---------------------------------------------------------------------------------------------
// Calls
// ---------------------------------------------------------------------------------------------

export function callFn(fr: Frame, fn: FnVal, args: readonly SVal[], argSpans: readonly Span[], span: Span): SVal {
  switch (fn.kind) {
    case 'builtin':
      return callBuiltin(fr, fn.name, args, argSpans, span);
    case 'op': {
      if (args.length !== 2) throw fail(fr, 'E202', `operator '${fn.op}' takes 2 arguments, ${args.length} given`, span);
      return applyOp(fr, fn.op, args[0]!, args[1]!, span);
    }
    case 'lambda': {
      const params = fn.params;
      const bound = spreadArgs(fr, params.length, args, span, 'this lambda');
      let env: Env = fn.env;
      params.forEach((p, i) => (env = bindPattern({ ...fr, env }, p, bound[i]!)));
      const inner: Frame = { ...fr, env, inPrelude: fn.frame.inPrelude, userSpan: fn.frame.userSpan ?? fr.userSpan };
      return evalExpr(inner, fn.body);
    }
    case 'def':
      return inlineDef(fr, fn.def, fn.inPrelude, args, span);
    default:
      return fn satisfies never;
  }
}

/** Binary operators as functions, elementwise over tuples of equal width. */
export function applyOp(fr: Frame, op: OpName, a: SVal, b: SVal, span: Span): SVal {
  const da = deref(fr, a, span);
  const db = deref(fr, b, span);
  if (da.kind === 'tuple' && db.kind === 'tuple' && da.elems.length === db.elems.length) {
    return { kind: 'tuple', elems: da.elems.map((x, i) => applyOp(fr, op, x, db.elems[i]!, span)) };
  }
  const sa = asScalar(fr, da, span, `the left operand of '${op}'`);
  const sb = asScalar(fr, db, span, `the right operand of '${op}'`);
  return binaryOp(fr, op, sa, sb, site(fr, span));
}

/**
 * Matches arguments to `n` parameters: one per parameter, or one k-tuple destructured over k
 * parameters, or several arguments packed into the tuple a one-parameter function receives.
 */
function spreadArgs(fr: Frame, n: number, args: readonly SVal[], span: Span, what: string): readonly SVal[] {
  if (args.length === n) return args;
  if (args.length === 1) {
    const only = deref(fr, args[0]!, span);
    if (only.kind === 'tuple' && only.elems.length === n) return only.elems;
  }
  if (n === 1 && args.length > 1) return [{ kind: 'tuple', elems: args }];
  throw fail(fr, 'E207', `${what} takes ${n} parameter${n === 1 ? '' : 's'} but is given ${args.length}`, span);
}

function inlineDef(fr: Frame, def: Def, inPrelude: boolean, args: readonly SVal[], span: Span): SVal {
  if (args.length !== def.params.length) {
    throw fail(fr, 'E202', `'${def.name}' takes ${def.params.length} argument${def.params.length === 1 ? '' : 's'}, ${args.length} given`, span);
  }
  fr.st.calls++;
  if (fr.depth >= maxCallDepth || fr.st.calls > maxCalls) throw nonTermination(fr, def, span);
  let env: Env = new Map();
  def.params.forEach((p, i) => (env = bind(env, p.name, args[i]!)));
  const inner: Frame = {
    ...fr,
    env,
    inPrelude,
    userSpan: inPrelude ? (fr.userSpan ?? span) : fr.userSpan,
    depth: fr.depth + 1,
    ...(inPrelude && !fr.inPrelude ? { preludeFn: def.name } : {}),
  };
  const result = evalBody(inner, def.body);
  if (result.ret === null && result.partial !== undefined) {
    throw fail(fr, 'E210', `'${def.name}' can end without a 'return': a run-time 'if' in it returns in some branches only, and no 'return' follows it`, def.span);
  }
  if (result.ret === null) throw fail(fr, 'E210', `'${def.name}' ends without a 'return'`, def.span);
  return result.ret;
}

function nonTermination(fr: Frame, def: Def, span: Span): Error {
  const cond = [...fr.conditions].reverse().find((c) => c.sizesOf.length > 0);
  if (cond !== undefined) {
    return fr.st.error(
      'E206',
      `this 'if' must be decided at compile time to stop the recursion of '${def.name}', but it depends on the size of ${cond.sizesOf.join(', ')}, which is only known at run time`,
      cond.span,
      unknownSizeNotes(fr, cond.sizesOf),
    );
  }
  // A run-time `if` does not stop recursion: lowering evaluates every branch.
  const inner = fr.conditions[fr.conditions.length - 1];
  const where = inner === undefined ? null : fr.st.file.lineCol(inner.span.start);
  const notes = where === null ? undefined : [`the 'if' at line ${where.line}, column ${where.col} is decided at run time, so lowering evaluates all of its branches and it cannot stop the recursion; recursion must end on values known at compile time`];
  return fail(fr, 'E205', `the recursion of '${def.name}' does not terminate at compile time (more than ${maxCallDepth} nested calls)`, span, notes);
}

// ---------------------------------------------------------------------------------------------
// Element functions → IR lambdas
// ---------------------------------------------------------------------------------------------

/**
 * Symbolic element parameters of a given element type, one IR Param per scalar leaf; `weak`
 * says, per leaf in order, which are elements of weak float arrays (weak floats themselves).
 */
export function symbolicParam(fr: Frame, t: ETy, hint: string, params: Param[], weak: readonly boolean[] = []): SVal {
  const p = fr.st.infer.prune(t);
  if (isTuple(p)) {
    let at = 0;
    return {
      kind: 'tuple',
      elems: p.map((e, i) => {
        const n = leafTypes(fr, e).length;
        const sub = symbolicParam(fr, e, `${hint}${i}`, params, weak.slice(at, at + n));
        at += n;
        return sub;
      }),
    };
  }
  const name = fr.st.fresh(hint, hintGeneric);
  const type = concrete(fr, fr.st.infer.leaf(p));
  params.push({ name, type });
  const expr: Expr = { kind: 'var', name, type };
  return weak[0] === true ? { kind: 'dyn', expr, ty: p, weak: true } : { kind: 'dyn', expr, ty: p };
}

export interface LoweredLambda {
  readonly lambda: Lambda;
  /** The result's scalar leaves (their types solve the combinator's output element type). */
  readonly results: readonly ScalarVal[];
  /** The result's tuple structure. */
  readonly shape: ETy;
}

/**
 * Evaluates a function on symbolic arguments of the given element types, giving an IR Lambda;
 * `argWeak[i]` marks the leaves of argument i that are elements of weak float arrays.
 */
export function toLambda(fr: Frame, fn: FnVal, argTypes: readonly ETy[], span: Span, expected?: readonly ETy[], argWeak: readonly (readonly boolean[])[] = []): LoweredLambda {
  const params: Param[] = [];
  const names = lambdaParamNames(fn, argTypes.length);
  const args = argTypes.map((t, i) => symbolicParam(fr, t, names[i] ?? 'x', params, argWeak[i]));
  const lets: Let[] = [];
  const inner: Frame = { ...fr, em: { kind: 'element', lets }, guard: undefined };
  const result = callFn(inner, fn, args, args.map(() => span), span);
  let leaves = flattenScalars(inner, result, span, 'the result of an element function');
  if (expected !== undefined) {
    const want = expected.flatMap((t) => leafTypes(fr, t));
    if (want.length !== leaves.length) {
      throw fail(fr, 'E301', `the element function returns ${leaves.length} value${leaves.length === 1 ? '' : 's'} where ${want.length} ${want.length === 1 ? 'is' : 'are'} expected`, span);
    }
    leaves = leaves.map((l, i) => coerce(inner, l, want[i]!, site(fr, span), 'the result of an element function'));
  }
  const shape = resultShape(fr, result, span);
  return { lambda: { params, lets, results: leaves.map((l) => toExpr(fr, l, site(fr, span))) }, results: leaves, shape };
}

/** The scalar leaves of an element type, unknown ones left as variables (not defaulted). */
export function leafTypes(fr: Frame, t: ETy): STy[] {
  const p = fr.st.infer.prune(t);
  return isTuple(p) ? p.flatMap((e) => leafTypes(fr, e)) : [p];
}

function resultShape(fr: Frame, v: SVal, span: Span): ETy {
  const d = deref(fr, v, span);
  if (d.kind === 'tuple') return d.elems.map((e) => resultShape(fr, e, span));
  return asScalar(fr, d, span, 'the result of an element function').ty;
}

function lambdaParamNames(fn: FnVal, n: number): string[] {
  if (fn.kind === 'lambda') return fn.params.map((p) => (p.kind === 'name' ? p.name : 'p'));
  if (fn.kind === 'def') return fn.def.params.map((p) => p.name);
  return n === 2 ? ['a', 'b'] : Array.from({ length: n }, (_, i) => `x${i}`);
}

// ---------------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------------

export interface BodyResult {
  readonly env: Env;
  readonly ret: SVal | null;
  /** Element code only: a `return` taken on some run-time paths (see elementIf.ts); `ret` is then null. */
  readonly partial?: PartialReturn;
}

export function evalBody(fr: Frame, stmts: readonly AstStmt[]): BodyResult {
  let env = fr.env;
  const returns = new ReturnsSoFar(fr);
  for (const s of stmts) {
    const r = evalStmt({ ...fr, env, guard: returns.guard, conditions: returns.conditions }, s);
    const done = returns.add(r, s.span);
    if (done !== null) return done;
    env = r.env;
  }
  return returns.end(env);
}

function evalStmt(fr: Frame, s: AstStmt): BodyResult {
  fr.st.steps++;
  switch (s.kind) {
    case 'assign': {
      constrainShapeDestructuring(fr, s);
      const v = evalExpr(fr, s.value);
      return { env: bindPattern(fr, s.target, v), ret: null };
    }
    case 'return':
      return { env: fr.env, ret: evalExpr(fr, s.value) };
    case 'pass':
      return { env: fr.env, ret: null };
    case 'if':
      return evalIf(fr, s);
    case 'while':
      if (fr.em.kind === 'element') throw fail(fr, 'E212', "a 'while' loop cannot be used inside an element function", s.span);
      return { env: lowerWhile(fr, s), ret: null };
    case 'for':
      return evalFor(fr, s);
    default:
      return s satisfies never;
  }
}

/** The condition of an `if` or `elif`, as a bool. */
export function ifCondition(fr: Frame, s: Extract<AstStmt, { kind: 'if' }>): ScalarVal {
  const c = asScalar(fr, evalExpr(fr, s.cond), s.cond.span, 'the condition of an if');
  return coerce(fr, c, 'bool', site(fr, s.cond.span), 'the condition of an if');
}

/**
 * An `if`: resolved when its condition is static, else a run-time IfNode (in element code,
 * selects: elementIf.ts). An `elif` is an if
 * alone in the else branch; a static chain is followed by this loop rather than by recursion,
 * so that 5,000 elifs do not overflow the stack.
 */
function evalIf(fr: Frame, first: Extract<AstStmt, { kind: 'if' }>): BodyResult {
  for (let s = first; ; ) {
    const cond = ifCondition(fr, s);
    if (cond.kind !== 'static') {
      if (fr.em.kind === 'element') return lowerElementIf(fr, s, cond);
      return { env: lowerIf(fr, cond, s), ret: null };
    }
    const chosen = cond.value !== 0 ? s.then : (s.orelse ?? []);
    const only = chosen.length === 1 ? chosen[0]! : null;
    if (only === null || only.kind !== 'if') return evalBody(fr, chosen);
    fr.st.steps++;
    s = only;
  }
}

function evalFor(fr: Frame, s: Extract<AstStmt, { kind: 'for' }>): BodyResult {
  if (s.range.length < 1 || s.range.length > 3) throw fail(fr, 'E202', `range takes 1 to 3 arguments, ${s.range.length} given`, s.span);
  const bounds = s.range.map((r) => {
    const v = asScalar(fr, evalExpr(fr, r), r.span, 'a range bound');
    if (v.kind !== 'static') throw nonStatic(fr, v, r.span, "the range of a 'for' loop");
    // i32, like every loop counter: `range(2.5)` is a type error, `range(3000000000)` E312.
    const bound = coerce(fr, v, 'i32', site(fr, r.span), 'a range bound');
    return bound.kind === 'static' ? bound.value : 0;
  });
  const [start, stop, step] = bounds.length === 1 ? [0, bounds[0]!, 1] : [bounds[0]!, bounds[1]!, bounds[2] ?? 1];
  if (step === 0) throw fail(fr, 'E204', 'range step must not be zero', s.range[2]!.span);
  const iterations = Math.max(0, Math.ceil((stop - start) / step));
  if (iterations > maxSteps) throw unrollBudget(fr, s, `it has ${iterations} iterations`);
  let env = fr.env;
  const returns = new ReturnsSoFar(fr);
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) {
    if (fr.st.steps > maxSteps) throw unrollBudget(fr, s, 'its iterations, with the loops and calls inside them, evaluate too many statements');
    env = bind(env, s.var, staticScalar('i32', i));
    const r = evalBody({ ...fr, env, guard: returns.guard, conditions: returns.conditions }, s.body);
    const done = returns.add(r, s.span);
    if (done !== null) return done;
    env = r.env;
  }
  return returns.end(env);
}

/**
 * A static `for` is unrolled, so its cost is paid at compile time: a budget of evaluated
 * statements (all loops and inlined calls of one lowering run together) turns a `range` too
 * large to unroll into an error at the loop instead of a compile that never ends.
 */
function unrollBudget(fr: Frame, s: Extract<AstStmt, { kind: 'for' }>, why: string): Error {
  return fail(fr, 'E220', `this 'for' loop is unrolled at compile time, but ${why}: compilation evaluates at most ${maxSteps} statements; use a 'while' loop for long run-time iterations`, s.span);
}

/** An error for a value that must be known at compile time, naming the run-time sizes it needs. */
export function nonStatic(fr: Frame, v: ScalarVal, span: Span, what: string): Error {
  // A constant division by zero is left unfolded (it faults only if demanded); here it is.
  const fault = v.kind === 'dyn' ? constantDivisionByZero(v.expr, scalarDefinitions(fr)) : null;
  if (fault !== null) return fail(fr, 'E213', `${what} must be known at compile time, but it divides by zero`, fault.span ?? span);
  const sizes = v.kind === 'dyn' ? sizesIn(fr, v.expr) : [];
  const why = sizes.length > 0
    ? `it depends on the size of ${sizes.join(', ')}, which is only known at run time`
    : 'it depends on values only known at run time';
  const params = v.kind === 'dyn' ? unknownScalarParams(fr, v.expr, scalarDefinitions(fr)) : [];
  const notes = [...(sizes.length > 0 ? unknownSizeNotes(fr, sizes) : []), ...(params.length > 0 ? [unknownValueNote(params)] : [])];
  return fail(fr, 'E204', `${what} must be known at compile time, but ${why}`, span, notes.length > 0 ? notes : undefined);
}

/** The sub-expressions of a scalar expression (none for a leaf: a variable, a constant, an extent). */
function childrenOf(x: Expr): readonly Expr[] {
  switch (x.kind) {
    case 'unary':
    case 'call':
    case 'cast':
      return [x.arg];
    case 'binary':
      return [x.lhs, x.rhs];
    case 'select':
      return [x.cond, x.then, x.else];
    case 'index':
      return x.indices;
    case 'var':
    case 'const':
    case 'dim':
      return [];
    default:
      return x satisfies never;
  }
}

/**
 * The entry's scalar parameters whose values an expression reads (through the scalar statements
 * `defs` names) and that are not known at compile time: lowering without a value for them (the
 * CLI's check, lower, plan and emit without --static). A run always knows them: every scalar a
 * program is run with is a static argument (docs/LANGUAGE.md, "Static arguments").
 */
function unknownScalarParams(fr: Frame, e: Expr, defs: ReadonlyMap<string, Expr>): string[] {
  const unknown = new Set(fr.st.paramNames.filter((_, i) => {
    const v = fr.st.paramValues[i];
    return v !== undefined && v.kind === 'dyn';
  }));
  const found = new Set<string>();
  const seen = new Set<string>();
  const go = (x: Expr): void => {
    if (x.kind === 'var') {
      if (unknown.has(x.name)) found.add(x.name);
      const def = defs.get(x.name);
      // Each definition once: a chain of scalar statements can share a subexpression many times.
      if (def !== undefined && !seen.has(x.name)) {
        seen.add(x.name);
        go(def);
      }
      return;
    }
    childrenOf(x).forEach(go);
  };
  go(e);
  return [...found];
}

function unknownValueNote(params: readonly string[]): string {
  const quoted = params.map((n) => `'${n}'`).join(', ');
  const flags = params.map((n) => `--static ${n}=VALUE`).join(' ');
  return `${params.length === 1 ? 'the value of the scalar parameter' : 'the values of the scalar parameters'} ${quoted} ${params.length === 1 ? 'is' : 'are'} not known at compile time; give ${params.length === 1 ? 'it' : 'them'}, e.g. ${flags}, or lower with a signature that has ${params.length === 1 ? 'its value' : 'their values'} (a run always knows ${params.length === 1 ? 'it' : 'them'}: every scalar a program is run with is a compile-time constant)`;
}

/** The scalar statements this frame has emitted so far, by name (`k = 1 // 0`). */
function scalarDefinitions(fr: Frame): ReadonlyMap<string, Expr> {
  if (fr.em.kind !== 'array') return new Map();
  return new Map(fr.em.stmts.flatMap((s) => (s.kind === 'scalar' ? [[s.name, s.expr] as const] : [])));
}

/**
 * A division of constants by zero inside `e` (lowering leaves those unfolded), looking through
 * the scalar statements `defs` names, or null.
 */
function constantDivisionByZero(e: Expr, defs: ReadonlyMap<string, Expr>): Extract<Expr, { kind: 'binary' }> | null {
  const inner = (x: Expr): Extract<Expr, { kind: 'binary' }> | null => constantDivisionByZero(x, defs);
  switch (e.kind) {
    case 'binary': {
      const constants = e.lhs.kind === 'const' && e.rhs.kind === 'const';
      const integer = e.type !== 'f64' && e.type !== 'f32';
      const zero = constants && integer && (e.op === '//' || e.op === '%' ? e.rhs.value === 0 : e.op === '**' && e.lhs.value === 0 && e.rhs.value < 0);
      return zero ? e : (inner(e.lhs) ?? inner(e.rhs));
    }
    case 'unary':
    case 'cast':
    case 'call':
      return inner(e.arg);
    case 'select':
      return inner(e.cond) ?? inner(e.then) ?? inner(e.else);
    case 'index':
      return e.indices.reduce<ReturnType<typeof inner>>((found, i) => found ?? inner(i), null);
    case 'var': {
      const def = defs.get(e.name);
      return def === undefined ? null : inner(def);
    }
    case 'const':
    case 'dim':
      return null;
    default:
      return e satisfies never;
  }
}

/**
 * Notes for a compile-time decision that needs sizes only known at run time (`sizesOf`, the
 * user-facing names `sizesIn` gives): which entry parameter's shape is unknown and the `--shape`
 * that would make it known, or, when every input shape is known, that the size is computed at
 * run time and no input shape helps.
 */
export function unknownSizeNotes(fr: Frame, sizesOf: readonly string[]): string[] {
  const unknown = fr.st.paramNames.flatMap((name, i) => {
    const v = fr.st.paramValues[i];
    return v !== undefined && v.kind === 'array' && v.shape === null ? [{ name, v }] : [];
  });
  const flag = ({ name, v }: (typeof unknown)[number]): string => {
    const elem = fr.st.infer.defaultElem(v.elem);
    const leaf = typeof elem === 'string' ? elem : (elemLeaves(elem)[0] ?? 'f64');
    const rank = fr.st.infer.peekRank(v.rank);
    return `--shape ${name}=${leaf}[${Array.from({ length: rank }, () => '...').join(',')}]`;
  };
  const quoted = (names: readonly string[]): string => names.map((n) => `'${n}'`).join(', ');
  // A component of a tuple-typed parameter is displayed as `xs.0`.
  const named = unknown.filter((p) => sizesOf.some((s) => s === p.name || s.startsWith(`${p.name}.`)));
  if (named.length > 0) {
    const what = named.length === 1 ? `the shape of ${quoted(named.map((p) => p.name))} is` : `the shapes of ${quoted(named.map((p) => p.name))} are`;
    return [`${what} not known at compile time; give ${named.length === 1 ? 'it' : 'them'}, e.g. ${named.map(flag).join(' ')}, or call the entry with a signature that has shapes`];
  }
  if (unknown.length > 0) {
    return [
      `the size of ${sizesOf.join(', ')} comes from the inputs ${quoted(unknown.map((p) => p.name))}, whose shapes are not known at compile time; give them, e.g. ${unknown.map(flag).join(' ')}, or call the entry with a signature that has shapes`,
    ];
  }
  return [`every input shape is known, but the size of ${sizesOf.join(', ')} is computed at run time (by a 'while' loop that changes it, or from data, as in 'filter'), so no input shape makes it known at compile time`];
}

/** User-facing names of the arrays whose extents an expression reads. */
export function sizesIn(fr: Frame, e: Expr): string[] {
  const out = new Set<string>();
  const go = (x: Expr): void => {
    if (x.kind === 'dim') out.add(fr.st.display(x.array));
    else if (x.kind === 'var') (fr.st.sizeDeps.get(x.name) ?? []).forEach((n) => out.add(n));
    else childrenOf(x).forEach(go);
  };
  go(e);
  return [...out];
}

/**
 * `n, m = shape(xs)` with `xs` of unknown rank (an unannotated parameter during inference):
 * the number of names IS the rank, so say so before `shape` would commit the rank to its
 * smallest allowed value. Only a plain name is looked at, so nothing is evaluated twice.
 */
function constrainShapeDestructuring(fr: Frame, s: { readonly target: Pattern; readonly value: AstExpr }): void {
  if (s.target.kind !== 'tuple' || s.value.kind !== 'call' || s.value.args.length !== 1) return;
  const callee = s.value.callee;
  const arg = s.value.args[0]!;
  if (callee.kind !== 'name' || (callee.name !== 'shape' && callee.name !== 'size') || arg.kind !== 'name') return;
  if (fr.env.has(callee.name) || fr.st.userDefs.has(callee.name)) return; // the user's own shape
  const bound = fr.env.get(arg.name);
  if (bound === undefined) return;
  const v = deref(fr, bound, arg.span);
  if (v.kind !== 'array' && v.kind !== 'param') return;
  const xs = asArray(fr, v, arg.span, `the argument of '${callee.name}'`);
  try {
    fr.st.infer.unifyRank(xs.rank, rankOf(s.target.elems.length));
  } catch (e) {
    if (!(e instanceof TypeClash)) throw e;
    // A known, different rank: in the user's code the ordinary destructuring error explains it;
    // in the prelude (`rows, cols = shape(xs)` in `transpose`) it is a requirement on the
    // user's argument, said at their call.
    if (fr.inPrelude && fr.preludeFn !== undefined) {
      const found = fr.st.infer.pruneRank(xs.rank);
      throw fail(fr, 'E304', `'${fr.preludeFn}' needs an array of rank ${s.target.elems.length}, found ${describe(fr, xs)}`, s.value.span, found.v === null ? undefined : [`its rank is at least ${found.k}`]);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Binding
// ---------------------------------------------------------------------------------------------

/** Binds a pattern, giving IR values their user's name and turning run-time scalars into statements. */
export function bindPattern(fr: Frame, p: Pattern, v0: SVal): Env {
  if (p.kind === 'tuple') {
    let v = deref(fr, v0, p.span);
    if (v.kind === 'array') v = unzipArray(fr, v, p.span);
    if (v.kind !== 'tuple' || v.elems.length !== p.elems.length) {
      throw fail(fr, 'E216', `cannot destructure ${describe(fr, v)} into ${p.elems.length} names`, p.span);
    }
    let env = fr.env;
    p.elems.forEach((sub, i) => (env = bindPattern({ ...fr, env }, sub, (v as { elems: readonly SVal[] }).elems[i]!)));
    return env;
  }
  return bind(fr.env, p.name, nameValue(fr, p.name, v0, site(fr, p.span)));
}

/** Gives a bound value's IR variables the binding's name and materialises run-time scalars. */
function nameValue(fr: Frame, name: string, v: SVal, span: Span): SVal {
  const level = bindLevel(fr);
  switch (v.kind) {
    case 'array': {
      const leaves = v.comps.length;
      v.comps.forEach((c, i) => fr.st.hint(c, leaves === 1 ? name : `${name}.${i}`, level));
      return v;
    }
    case 'dyn': {
      if (v.expr.kind === 'var') {
        fr.st.hint(v.expr.name, name, level);
        return v;
      }
      if (v.expr.kind === 'const') return v;
      const fresh = fr.st.fresh(name, level);
      const type = v.expr.type;
      fr.st.sizeDeps.set(fresh, sizesIn(fr, v.expr));
      if (fr.em.kind === 'element') pushElementLet(fr, fresh, v.expr);
      else fr.em.stmts.push({ kind: 'scalar', name: fresh, expr: v.expr, span });
      const named: Expr = { kind: 'var', name: fresh, type };
      return v.weak === true ? { kind: 'dyn', expr: named, ty: v.ty, weak: true } : { kind: 'dyn', expr: named, ty: v.ty };
    }
    case 'tuple':
      return { kind: 'tuple', elems: v.elems.map((e, i) => nameValue(fr, `${name}.${i}`, e, span)) };
    case 'static':
    case 'fn':
    case 'param':
    case 'undef':
      return v;
    default:
      return v satisfies never;
  }
}

/** An array of tuples seen as the tuple of its component arrays (structure of arrays: free). */
export function unzipArray(fr: Frame, arr: ArrayVal, span: Span): SVal {
  const elem = fr.st.infer.prune(arr.elem);
  if (!isTuple(elem)) throw fail(fr, 'E216', `cannot unzip ${describe(fr, arr)}: its elements are not tuples`, span);
  let at = 0;
  const weak = weakLeaves(arr);
  const parts = elem.map((t) => {
    const n = leafTypes(fr, t).length;
    const comps = arr.comps.slice(at, at + n);
    const w = weak.slice(at, at + n);
    at += n;
    const part: ArrayVal = { kind: 'array', comps, elem: t, rank: arr.rank, shape: arr.shape };
    return w.some((x) => x) ? { ...part, weak: w } : part;
  });
  return { kind: 'tuple', elems: parts };
}
