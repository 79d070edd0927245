// Run-time control flow: an `if` on a dynamic condition and a `while` loop each become one IR
// control node whose bodies are Blocks of their own.
//
// `if`: both branches are evaluated from the same environment; a name bound in both (and
// different from before) becomes an out of the node; a name bound in one branch only is
// poisoned (an error if used later). `while`: the names the body re-binds that existed before
// the loop are loop-carried; the condition and the body each receive them as block params, the
// body returns their next values, and the node's outs receive the final ones.
//
// What is known at compile time survives control flow where it provably holds: an `if` output
// whose branches agree on a static shape (or static scalar) keeps it, and a loop keeps what its
// body preserves of the carried values (see `lowerWhile`), so that compile-time decisions on
// sizes, which the language relies on (recursion over sizes, `for` over a shape), still work
// inside and after run-time control flow.

import { CompilerBug, UserError, type Span } from '../diagnostics/index.js';
import type { Stmt as AstStmt, Pattern } from '../syntax/ast.js';
import type { Block, ScalarType, Stmt, Value, VarName } from '../ir/types.js';
import { asArray, asScalar, deref, describe, evalBody, evalExpr, sizesIn, unknownSizeNotes } from './evaluator.js';
import { isFloat, isInteger } from '../ir/scalarOps.js';
import { coerce, concrete, convert, isWeak, isWeakFloat, strong, toExpr } from './scalar.js';
import { TypeClash, isTuple, type ETy, type STy } from './types.js';
import { adoptArrayTypes, convertArrayLeaves, weakLeaves, withArrayWeak } from './weak.js';
import { bind, bindLevel, fail, site, type ArrayVal, type DynScalar, type Env, type Frame, type SVal, type ScalarVal, type StaticScalar } from './values.js';

type IfStmt = Extract<AstStmt, { kind: 'if' }>;
type WhileStmt = Extract<AstStmt, { kind: 'while' }>;

function arrayFrame(fr: Frame, stmts: Stmt[], env: Env): Frame {
  return { ...fr, env, em: { kind: 'array', stmts } };
}

/**
 * Run-time `if`s and `while`s nested in one another (an `elif` chain nests one level per
 * `elif`). Each is an IR block inside its parent, and every IR pass, the interpreter and the
 * code generator recurse over blocks, so deeper nesting is an error (E222), not a stack overflow.
 */
export const maxControlDepth = 200;

/** The frame of a block nested in a run-time `if` or `while` at `span`. */
function nestedBlockFrame(fr: Frame, stmts: Stmt[], env: Env, span: Span): Frame {
  const controlDepth = (fr.controlDepth ?? 0) + 1;
  if (controlDepth > maxControlDepth) {
    throw fail(fr, 'E222', `run-time 'if' and 'while' nest more than ${maxControlDepth} levels deep here (each 'elif' of a chain decided at run time nests one level); select with an array (gather) or split the chain`, span);
  }
  return { ...arrayFrame(fr, stmts, env), controlDepth };
}

export function lowerIf(fr: Frame, cond: DynScalar, s: IfStmt): Env {
  const conditions = [...fr.conditions, { span: site(fr, s.cond.span), sizesOf: sizesIn(fr, cond.expr) }];
  const branch = (body: readonly AstStmt[]): { stmts: Stmt[]; env: Env } => {
    const stmts: Stmt[] = [];
    const r = evalBody({ ...nestedBlockFrame(fr, stmts, fr.env, s.span), conditions }, body);
    if (r.ret !== null && conditions[conditions.length - 1]!.sizesOf.length > 0) {
      const sizes = conditions[conditions.length - 1]!.sizesOf.join(', ');
      throw fail(fr, 'E206', `this 'if' returns, so it must be decided at compile time, but its condition depends on the size of ${sizes}, which is only known at run time`, s.cond.span, unknownSizeNotes(fr, conditions[conditions.length - 1]!.sizesOf));
    }
    if (r.ret !== null) throw fail(fr, 'E211', "'return' inside a run-time 'if' is not supported; bind a variable in both branches and return after the 'if'", s.span);
    return { stmts, env: r.env };
  };
  const th = branch(s.then);
  const el = branch(s.orelse ?? []);
  const thenResults: VarName[] = [];
  const elseResults: VarName[] = [];
  const outs: Value[] = [];
  let env = fr.env;
  const names = new Set([...th.env.keys(), ...el.env.keys()]);
  for (const name of names) {
    const a = th.env.get(name);
    const b = el.env.get(name);
    if (a === b) continue;
    if (a === undefined || b === undefined) {
      env = bind(env, name, { kind: 'undef', name, span: s.span });
      continue;
    }
    const merged = mergeValues(fr, name, a, b, s.span, {
      then: arrayFrame(fr, th.stmts, th.env),
      else: arrayFrame(fr, el.stmts, el.env),
      thenResults, elseResults, outs,
    }, fr.env.get(name));
    env = bind(env, name, merged);
  }
  // Element code lowers a run-time `if` to selects (elementIf.ts) and never comes here.
  if (fr.em.kind !== 'array') throw new CompilerBug('lower', 'an array-level if in element code');
  fr.em.stmts.push({
    kind: 'if',
    id: fr.st.nodeId(),
    cond: cond.expr,
    then: { params: [], stmts: th.stmts, results: thenResults },
    else: { params: [], stmts: el.stmts, results: elseResults },
    outs,
    span: site(fr, s.span),
  });
  return env;
}

interface MergeTarget {
  readonly then: Frame;
  readonly else: Frame;
  readonly thenResults: VarName[];
  readonly elseResults: VarName[];
  readonly outs: Value[];
}

/**
 * One name's values after the two branches of a run-time `if`, merged into the node's outs;
 * `before` is its value before the `if` (a branch that left it unchanged gives that).
 */
function mergeValues(fr: Frame, name: string, a0: SVal, b0: SVal, span: Span, t: MergeTarget, before?: SVal): SVal {
  const a1 = a0.kind === 'undef' ? a0 : deref(fr, a0, span);
  const b1 = b0.kind === 'undef' ? b0 : deref(fr, b0, span);
  // A scalar in one branch and a rank-0 array in the other: both are scalars.
  const a2 = b1.kind === 'undef' ? a1 : scalarIfRankZero(t.then, b1, a1, span);
  const b2 = a1.kind === 'undef' ? b1 : scalarIfRankZero(t.else, a1, b1, span);
  if (a2.kind === 'undef' || b2.kind === 'undef') return { kind: 'undef', name, span };
  // A weak float array in one branch takes the other's float type: a cast `map` in its branch,
  // or before the `if` where the branch left it unchanged, so that it fuses with the array's
  // producer (nothing fuses across the if).
  const a = adoptArrayTypes(a0 === before ? fr : t.then, b2, a2, span);
  const b = adoptArrayTypes(b0 === before ? fr : t.else, a2, b2, span);
  if (a.kind === 'static' && b.kind === 'static' && a.ty === b.ty && a.value === b.value) return a.weak ? b : a;
  if (a.kind === 'fn' || b.kind === 'fn') {
    if (a.kind === 'fn' && b.kind === 'fn' && a.fn === b.fn) return a;
    throw fail(fr, 'E308', `'${name}' must be the same function in both branches of a run-time 'if'`, span);
  }
  if (a.kind === 'tuple' && b.kind === 'tuple' && a.elems.length === b.elems.length) {
    const inner = before?.kind === 'tuple' ? before.elems : [];
    return { kind: 'tuple', elems: a.elems.map((x, i) => mergeValues(fr, `${name}.${i}`, x, b.elems[i]!, span, t, inner[i])) };
  }
  const level = bindLevel(fr);
  const clash = (): Error =>
    fail(fr, 'E308', `'${name}' is ${describe(fr, a)} in one branch of the 'if' and ${describe(fr, b)} in the other`, span);
  if ((a.kind === 'static' || a.kind === 'dyn') && (b.kind === 'static' || b.kind === 'dyn')) {
    const ty = mergedScalarType(a, b);
    const ca = coerce(t.then, a, ty, site(fr, span), `'${name}' after the 'if'`);
    const cb = coerce(t.else, b, ty, site(fr, span), `'${name}' after the 'if'`);
    t.thenResults.push(...materialize(t.then, ca, name, span));
    t.elseResults.push(...materialize(t.else, cb, name, span));
    const out = fr.st.fresh(name, level);
    const elem = concrete(fr, ty);
    t.outs.push({ kind: 'scalar', name: out, elem });
    const expr = { kind: 'var', name: out, type: elem } as const;
    // Still weak where both branches are weak floats: neither decided the float type.
    return isWeak(a) && isWeak(b) && isFloat(elem) ? { kind: 'dyn', expr, ty, weak: true } : { kind: 'dyn', expr, ty };
  }
  if (a.kind === 'array' && b.kind === 'array') {
    try {
      fr.st.infer.unify(a.elem, b.elem);
      fr.st.infer.unifyRank(a.rank, b.rank);
    } catch (e) {
      if (e instanceof TypeClash) throw clash();
      throw e;
    }
    t.thenResults.push(...a.comps);
    t.elseResults.push(...b.comps);
    const fresh = freshLike(fr, a, name, level);
    t.outs.push(...fresh.values);
    const sameShape = a.shape !== null && b.shape !== null && a.shape.join() === b.shape.join();
    const bWeak = weakLeaves(b);
    return withArrayWeak({ ...(fresh.val as ArrayVal), shape: sameShape ? a.shape : null }, weakLeaves(a).map((w, i) => w && bWeak[i]!));
  }
  throw clash();
}

/**
 * The type two scalars merge to: a typed one's type where the other is weak (a weak one takes
 * it), the float type where both are weak and one is a float (`0 if c else 0.5`), else `a`'s.
 */
function mergedScalarType(a: ScalarVal, b: ScalarVal): STy {
  if (isWeak(a) && isWeak(b)) return isWeakFloat(b) ? b.ty : a.ty;
  return isWeak(a) ? b.ty : a.ty;
}

/** The IR names of a value, adding scalar statements for scalars that are not variables yet. */
function materialize(fr: Frame, v0: SVal, hint: string, span: Span): VarName[] {
  const v = deref(fr, v0, span);
  switch (v.kind) {
    case 'array':
      return [...v.comps];
    case 'tuple':
      return v.elems.flatMap((e, i) => materialize(fr, e, `${hint}.${i}`, span));
    case 'static':
    case 'dyn': {
      if (v.kind === 'dyn' && v.expr.kind === 'var') return [v.expr.name];
      const name = fr.st.fresh(hint, bindLevel(fr));
      if (fr.em.kind !== 'array') throw fail(fr, 'E212', 'control flow inside an element function', span);
      fr.em.stmts.push({ kind: 'scalar', name, expr: toExpr(fr, v, site(fr, span)), span: site(fr, span) });
      return [name];
    }
    case 'fn':
      throw fail(fr, 'E219', `'${hint}' is a function and cannot be carried by a run-time loop or 'if'`, span);
    case 'param':
    case 'undef':
      throw fail(fr, 'E209', `'${hint}' is not bound here`, span);
    default:
      return v satisfies never;
  }
}

/** Fresh IR values shaped like `v` (block params, node outs), with the value that names them. */
function freshLike(fr: Frame, v: SVal, hint: string, level: 0 | 1 | 2): { val: SVal; values: Value[] } {
  switch (v.kind) {
    case 'array': {
      const leaves = v.comps.length;
      const rank = fr.st.infer.peekRank(v.rank);
      const leafTypes = flatLeaves(fr, v.elem);
      const values: Value[] = v.comps.map((_, i) => ({
        kind: 'array', name: fr.st.fresh(leaves === 1 ? hint : `${hint}.${i}`, level), elem: leafTypes[i] ?? 'f64', rank,
      }));
      return { val: { ...v, comps: values.map((x) => x.name), shape: null }, values };
    }
    case 'static':
    case 'dyn': {
      const name = fr.st.fresh(hint, level);
      const elem = concrete(fr, v.ty);
      const expr = { kind: 'var', name, type: elem } as const;
      // A weak float stays weak through a loop or an `if` (a weak integer becomes an i32).
      const val: DynScalar = isWeakFloat(v) ? { kind: 'dyn', expr, ty: v.ty, weak: true } : { kind: 'dyn', expr, ty: v.ty };
      return { val, values: [{ kind: 'scalar', name, elem }] };
    }
    case 'tuple': {
      const parts = v.elems.map((e, i) => freshLike(fr, e, `${hint}.${i}`, level));
      return { val: { kind: 'tuple', elems: parts.map((p) => p.val) }, values: parts.flatMap((p) => p.values) };
    }
    case 'fn':
    case 'param':
    case 'undef':
      throw new TypeClash('a value', describe(fr, v));
    default:
      return v satisfies never;
  }
}

function flatLeaves(fr: Frame, t: ETy): ScalarType[] {
  const p = fr.st.infer.prune(t);
  return isTuple(p) ? p.flatMap((e) => flatLeaves(fr, e)) : [fr.st.infer.defaultScalar(p)];
}

/** Names a statement list (re-)binds, nested blocks included. */
function assignedNames(stmts: readonly AstStmt[], out = new Set<string>()): Set<string> {
  const pat = (p: Pattern): void => {
    if (p.kind === 'name') out.add(p.name);
    else p.elems.forEach(pat);
  };
  for (const s of stmts) {
    switch (s.kind) {
      case 'assign':
        pat(s.target);
        break;
      case 'if':
        assignedNames(s.then, out);
        assignedNames(s.orelse ?? [], out);
        break;
      case 'while':
        assignedNames(s.body, out);
        break;
      case 'for':
        out.add(s.var);
        assignedNames(s.body, out);
        break;
      case 'return':
      case 'pass':
        break;
      default:
        s satisfies never;
    }
  }
  return out;
}

/**
 * What every iteration of a loop may assume about a carried value at compile time: an array's
 * static shape, a scalar's static value (null where unknown), structurally like the value.
 */
type Known =
  | { readonly kind: 'array'; readonly shape: readonly number[] | null }
  | { readonly kind: 'scalar'; readonly value: StaticScalar | null }
  | { readonly kind: 'tuple'; readonly elems: readonly Known[] };

/** What the value entering a loop knows; a function or an unbound name cannot be carried. */
function knownOf(fr: Frame, v0: SVal, name: string, span: Span): Known {
  const v = deref(fr, v0, span);
  switch (v.kind) {
    case 'array':
      return { kind: 'array', shape: v.shape };
    case 'static':
      return { kind: 'scalar', value: v };
    case 'dyn':
      return { kind: 'scalar', value: null };
    case 'tuple':
      return { kind: 'tuple', elems: v.elems.map((e, i) => knownOf(fr, e, `${name}.${i}`, span)) };
    case 'fn':
      throw fail(fr, 'E219', `'${name}' is a function and cannot be re-bound in a run-time loop`, span);
    case 'param':
    case 'undef':
      throw fail(fr, 'E209', `'${name}' is not bound here`, span);
    default:
      return v satisfies never;
  }
}

/** The knowledge that also holds after an iteration that produced `next` (already type-checked). */
function meetKnown(fr: Frame, k: Known, next0: SVal, span: Span): Known {
  const next = deref(fr, next0, span);
  switch (k.kind) {
    case 'array': {
      const same = k.shape !== null && next.kind === 'array' && next.shape !== null && next.shape.join() === k.shape.join();
      return same ? k : { kind: 'array', shape: null };
    }
    case 'scalar': {
      const same = k.value !== null && next.kind === 'static' && next.ty === k.value.ty && next.value === k.value.value;
      return same ? k : { kind: 'scalar', value: null };
    }
    case 'tuple':
      return next.kind === 'tuple'
        ? { kind: 'tuple', elems: k.elems.map((e, i) => meetKnown(fr, e, next.elems[i]!, span)) }
        : forget(k);
    default:
      return k satisfies never;
  }
}

/** The same structure with nothing known: how loops were lowered before shapes were kept. */
function forget(k: Known): Known {
  switch (k.kind) {
    case 'array':
      return { kind: 'array', shape: null };
    case 'scalar':
      return { kind: 'scalar', value: null };
    case 'tuple':
      return { kind: 'tuple', elems: k.elems.map(forget) };
    default:
      return k satisfies never;
  }
}

function sameKnown(a: Known, b: Known): boolean {
  switch (a.kind) {
    case 'array':
      return b.kind === 'array' && (a.shape === null ? b.shape === null : b.shape !== null && a.shape.join() === b.shape.join());
    case 'scalar':
      return b.kind === 'scalar' && (a.value === null ? b.value === null : b.value !== null && a.value.ty === b.value.ty && a.value.value === b.value.value);
    case 'tuple':
      return b.kind === 'tuple' && a.elems.length === b.elems.length && a.elems.every((e, i) => sameKnown(e, b.elems[i]!));
    default:
      return a satisfies never;
  }
}

function knowsAnything(k: Known): boolean {
  switch (k.kind) {
    case 'array':
      return k.shape !== null;
    case 'scalar':
      return k.value !== null;
    case 'tuple':
      return k.elems.some(knowsAnything);
    default:
      return k satisfies never;
  }
}

/**
 * A carried value as the loop sees it: fresh IR values where it changes at run time, with the
 * known shapes; a scalar with a known value is no IR value at all (it is not carried).
 */
function freshKnown(fr: Frame, v0: SVal, k: Known, hint: string, level: 0 | 1 | 2, span: Span): { val: SVal; values: Value[] } {
  const v = deref(fr, v0, span);
  if (k.kind === 'scalar' && k.value !== null) return { val: k.value, values: [] };
  if (k.kind === 'tuple' && v.kind === 'tuple') {
    const parts = v.elems.map((e, i) => freshKnown(fr, e, k.elems[i]!, `${hint}.${i}`, level, span));
    return { val: { kind: 'tuple', elems: parts.map((p) => p.val) }, values: parts.flatMap((p) => p.values) };
  }
  const f = freshLike(fr, v, hint, level);
  return k.kind === 'array' && f.val.kind === 'array' ? { val: { ...f.val, shape: k.shape }, values: f.values } : f;
}

/** The value with every scalar bound to an IR variable (adding scalar statements). */
function materializeValue(fr: Frame, v0: SVal, hint: string, span: Span): SVal {
  const v = deref(fr, v0, span);
  if (v.kind === 'tuple') return { kind: 'tuple', elems: v.elems.map((e, i) => materializeValue(fr, e, `${hint}.${i}`, span)) };
  if (v.kind !== 'static' && v.kind !== 'dyn') return v;
  const [name] = materialize(fr, v, hint, span);
  const expr = { kind: 'var', name: name!, type: concrete(fr, v.ty) } as const;
  return isWeakFloat(v) ? { kind: 'dyn', expr, ty: v.ty, weak: true } : { kind: 'dyn', expr, ty: v.ty };
}

/** The IR names of the parts of a carried value that the loop does not know statically. */
function materializeUnknown(fr: Frame, v0: SVal, k: Known, hint: string, span: Span): VarName[] {
  const v = deref(fr, v0, span);
  if (k.kind === 'scalar' && k.value !== null) return [];
  if (k.kind === 'tuple' && v.kind === 'tuple') return v.elems.flatMap((e, i) => materializeUnknown(fr, e, k.elems[i]!, `${hint}.${i}`, span));
  return materialize(fr, v, hint, span);
}

/**
 * A `while` loop becomes one WhileNode. The body is lowered assuming the carried values keep
 * what is known of them on entry (static shapes, static scalar values), so that a compile-time
 * decision inside (an `if` on `size(xs)` that returns, a `for` over a shape) still sees them;
 * where an iteration does not preserve that knowledge, the loop is lowered again knowing less,
 * until the assumption holds for every iteration (each round forgets something, so this ends).
 * If lowering under an assumption fails, the loop is lowered once more knowing nothing, which
 * reports the same errors as a loop that never kept shapes.
 */
export function lowerWhile(fr: Frame, s: WhileStmt): Env {
  if (fr.em.kind !== 'array') throw fail(fr, 'E212', "a 'while' loop cannot be used inside an element function", s.span);
  const carried = [...assignedNames(s.body)].filter((n) => fr.env.has(n));
  // An entry parameter the inference run has not classified yet is carried as an array.
  let initial: SVal[] = carried.map((n) => {
    const v = deref(fr, fr.env.get(n)!, s.span);
    return v.kind === 'param' ? asArray(fr, v, s.span, `'${n}'`) : v;
  });
  // A weak value that an iteration gives a type (`s = 0.0` then `s = s + x` with x: f32; an
  // `acc = fill(n, 0.0)` that becomes f32) takes that type before the loop, and the loop is
  // lowered again from the start, numbering its nodes from the same place (what the discarded
  // rounds emitted is all gone). Each round makes a weak part typed, so this ends.
  let nodeMark = fr.st.nodeMark();
  for (;;) {
    const entry = initial.map((v, i) => knownOf(fr, v, carried[i]!, s.span));
    // The initial values become IR variables before the body is lowered, as the loop's inputs
    // come first in the user's reading; the ones a loop knows statically are left dead.
    const inputs = initial.map((v, i) => materializeValue(fr, v, carried[i]!, s.span));
    const restore = fr.st.checkpoint();
    let known: readonly Known[] = entry;
    let retype: readonly (readonly (ScalarType | null)[])[] | null = null;
    while (retype === null) {
      let attempt: LoopAttempt;
      try {
        attempt = lowerLoopBody(fr, s, carried, inputs, known);
      } catch (e) {
        if (!(e instanceof UserError) || !known.some(knowsAnything)) throw e;
        restore();
        known = known.map(forget);
        continue;
      }
      if (attempt.kind === 'holds') return emitLoop(fr, s, carried, inputs, known, attempt);
      restore();
      if (attempt.kind === 'retype') retype = attempt.targets;
      else known = attempt.next;
    }
    const targets = retype;
    nodeMark();
    initial = initial.map((v, i) => retypeValue(fr, v, targets[i]!, s.span));
    nodeMark = fr.st.nodeMark(); // after the conversions, which stay

  }
}

/** How many scalar leaves (scalars, array components) a value has, in `retypeTargets` order. */
function leafCount(fr: Frame, v0: SVal, span: Span): number {
  const v = deref(fr, v0, span);
  if (v.kind === 'tuple') return v.elems.reduce((n, e) => n + leafCount(fr, e, span), 0);
  return v.kind === 'array' ? v.comps.length : 1;
}

/**
 * Per leaf of a carried value: the type a weak leaf before an iteration must take because the
 * iteration gives it one (a weak float becomes the typed float, also f64, which only makes it
 * typed; a weak integer constant becomes u32, u8, i8 or a float), or null. A type not known yet (the
 * inference run) decides nothing here: it is unified as before.
 */
function retypeTargets(fr: Frame, before0: SVal, next0: SVal, span: Span): (ScalarType | null)[] {
  const before = deref(fr, before0, span);
  const next = deref(fr, next0, span);
  const none = (): null[] => Array.from({ length: leafCount(fr, before, span) }, () => null);
  if (before.kind === 'tuple') {
    if (next.kind !== 'tuple' || next.elems.length !== before.elems.length) return none();
    return before.elems.flatMap((b, i) => retypeTargets(fr, b, next.elems[i]!, span));
  }
  if ((before.kind === 'static' || before.kind === 'dyn') && (next.kind === 'static' || next.kind === 'dyn')) {
    const t = fr.st.infer.prune(next.ty);
    if (!isWeak(before) || isWeak(next) || typeof t !== 'string') return [null];
    if (isWeakFloat(before)) return [isFloat(t) ? t : null];
    return [(isInteger(t) && t !== 'i32') || isFloat(t) ? t : null];
  }
  if (before.kind === 'array' && next.kind === 'array' && before.comps.length === next.comps.length) {
    const types = leafTypesOf(fr, next.elem);
    const nextWeak = weakLeaves(next);
    return weakLeaves(before).map((w, i) => {
      const t = types[i];
      return w && !nextWeak[i]! && typeof t === 'string' && isFloat(t) ? t : null;
    });
  }
  return none();
}

function leafTypesOf(fr: Frame, t: ETy): STy[] {
  const p = fr.st.infer.prune(t);
  return isTuple(p) ? p.flatMap((e) => leafTypesOf(fr, e)) : [p];
}

/** The initial value of a carried name with the leaves `targets` names converted and typed. */
function retypeValue(fr: Frame, v0: SVal, targets: readonly (ScalarType | null)[], span: Span): SVal {
  let at = 0;
  const go = (v1: SVal): SVal => {
    const v = deref(fr, v1, span);
    if (v.kind === 'tuple') return { kind: 'tuple', elems: v.elems.map(go) };
    if (v.kind === 'array') {
      const mine = targets.slice(at, at + v.comps.length);
      at += v.comps.length;
      return mine.some((t) => t !== null) ? convertArrayLeaves(fr, v, mine, span) : v;
    }
    const t = targets[at++];
    if ((v.kind !== 'static' && v.kind !== 'dyn') || t === null || t === undefined) return v;
    return strong(convert(fr, v, t, site(fr, span)));
  };
  return go(v0);
}

/**
 * The loop lowered under one assumption: its condition and body where every iteration
 * preserves the assumption, else the weaker one to try next.
 */
type LoopAttempt =
  | { readonly kind: 'holds'; readonly cond: Block; readonly body: Block }
  | { readonly kind: 'weaker'; readonly next: readonly Known[] }
  /** Per carried name, per leaf: the type a weak initial value must take first (`retypeTargets`). */
  | { readonly kind: 'retype'; readonly targets: readonly (readonly (ScalarType | null)[])[] };

function lowerLoopBody(fr: Frame, s: WhileStmt, carried: readonly string[], initial: readonly SVal[], known: readonly Known[]): LoopAttempt {
  const level = bindLevel(fr);
  const params = (): { env: Env; params: Value[]; vals: SVal[] } => {
    let env = fr.env;
    const params: Value[] = [];
    const vals: SVal[] = [];
    initial.forEach((v, i) => {
      const f = freshKnown(fr, v, known[i]!, carried[i]!, level, s.span);
      params.push(...f.values);
      vals.push(f.val);
      env = bind(env, carried[i]!, f.val);
    });
    return { env, params, vals };
  };
  const conditions = [...fr.conditions];
  const condParams = params();
  const condStmts: Stmt[] = [];
  const condFrame = { ...nestedBlockFrame(fr, condStmts, condParams.env, s.span), conditions };
  const c = asScalar(condFrame, evalExpr(condFrame, s.cond), s.cond.span, "the condition of a 'while'");
  const condName = materialize(condFrame, coerce(condFrame, c, 'bool', site(fr, s.cond.span), "the condition of a 'while'"), 'cond', s.cond.span);

  const bodyParams = params();
  const bodyStmts: Stmt[] = [];
  const bodyFrame = { ...nestedBlockFrame(fr, bodyStmts, bodyParams.env, s.span), conditions };
  const r = evalBody(bodyFrame, s.body);
  if (r.ret !== null) throw fail(fr, 'E211', "'return' inside a 'while' loop is not supported", s.span);
  const after = { ...bodyFrame, env: r.env };
  const raw = carried.map((n, i) => scalarIfRankZero(after, bodyParams.vals[i]!, deref(after, r.env.get(n)!, s.span), s.span));
  const targets = raw.map((v, i) => retypeTargets(after, bodyParams.vals[i]!, v, s.span));
  if (targets.some((ts) => ts.some((t) => t !== null))) return { kind: 'retype', targets };
  const nexts = carried.map((n, i) => {
    // A weak float array computed by the body takes the carried array's type.
    const next = adoptArrayTypes(after, bodyParams.vals[i]!, raw[i]!, s.span);
    checkSameType(after, n, bodyParams.vals[i]!, next, s.span);
    return next;
  });
  const next = nexts.map((v, i) => meetKnown(after, known[i]!, v, s.span));
  if (!next.every((k, i) => sameKnown(k, known[i]!))) return { kind: 'weaker', next };
  const results = carried.flatMap((n, i) => {
    const before = bodyParams.vals[i]!;
    const v = nexts[i]!;
    const scalarPair = (before.kind === 'dyn' || before.kind === 'static') && (v.kind === 'dyn' || v.kind === 'static');
    const value = scalarPair ? coerce(after, v, before.ty, site(fr, s.span), `the loop-carried '${n}'`) : v;
    return materializeUnknown(after, value, known[i]!, n, s.span);
  });
  return {
    kind: 'holds',
    cond: { params: condParams.params, stmts: condStmts, results: condName },
    body: { params: bodyParams.params, stmts: bodyStmts, results },
  };
}

/** Appends the WhileNode of a successful attempt and binds the carried names to its outs. */
function emitLoop(
  fr: Frame,
  s: WhileStmt,
  carried: readonly string[],
  initial: readonly SVal[],
  known: readonly Known[],
  attempt: Extract<LoopAttempt, { kind: 'holds' }>,
): Env {
  if (fr.em.kind !== 'array') throw fail(fr, 'E212', "a 'while' loop cannot be used inside an element function", s.span);
  const outer = fr.em.stmts;
  const init = initial.flatMap((v, i) => materializeUnknown(fr, v, known[i]!, carried[i]!, s.span));
  const level = bindLevel(fr);
  const outs = initial.map((v, i) => freshKnown(fr, v, known[i]!, carried[i]!, level, s.span));
  outer.push({
    kind: 'while',
    id: fr.st.nodeId(),
    init,
    cond: attempt.cond,
    body: attempt.body,
    outs: outs.flatMap((o) => o.values),
    span: site(fr, s.span),
  });
  let env = fr.env;
  carried.forEach((n, i) => (env = bind(env, n, outs[i]!.val)));
  return env;
}

/**
 * A scalar re-bound to a rank-0 array (`m = fold(min, inf, xs)` for a carried `m = 1.0e20`)
 * reads its one element, as a rank-0 array does wherever a scalar is expected.
 */
function scalarIfRankZero(fr: Frame, before: SVal, v: SVal, span: Span): SVal {
  if (before.kind !== 'dyn' && before.kind !== 'static') return v;
  if (v.kind !== 'array') return v;
  const r = fr.st.infer.pruneRank(v.rank);
  if (r.v !== null) {
    // A rank not known yet (the fold of an unannotated parameter, during inference): a scalar
    // re-bound to it says the rank is 0, as the annotated program would have it.
    try {
      fr.st.infer.unifyRank(v.rank, { v: null, k: 0 });
    } catch (e) {
      if (e instanceof TypeClash) return v; // cannot be rank 0: checkSameType explains
      throw e;
    }
    return asScalar(fr, v, span, 'a loop-carried scalar');
  }
  return r.k === 0 ? asScalar(fr, v, span, 'a loop-carried scalar') : v;
}

function checkSameType(fr: Frame, name: string, before: SVal, next: SVal, span: Span): void {
  const bad = (): Error =>
    fail(fr, 'E308', `the loop-carried '${name}' is ${describe(fr, before)} before an iteration and ${describe(fr, next)} after it`, span);
  try {
    if (before.kind === 'array' && next.kind === 'array') {
      fr.st.infer.unify(before.elem, next.elem);
      fr.st.infer.unifyRank(before.rank, next.rank);
      return;
    }
    if ((before.kind === 'dyn' || before.kind === 'static') && (next.kind === 'dyn' || next.kind === 'static')) {
      coerce(fr, next, before.ty, site(fr, span), `the loop-carried '${name}'`);
      return;
    }
    if (before.kind === 'tuple' && next.kind === 'tuple' && before.elems.length === next.elems.length) {
      before.elems.forEach((b, i) => checkSameType(fr, `${name}.${i}`, b, next.elems[i]!, span));
      return;
    }
  } catch (e) {
    if (e instanceof TypeClash) throw bad();
    throw e;
  }
  throw bad();
}
