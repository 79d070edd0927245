// Weak float arrays: arrays whose elements were computed only from literals (`generate(n, lam
// i: 0.0)`, `fill(n, 1.5)`, a `map` of `0.5 * i`), which are f64 by default but take the float
// type of a typed array they meet, as a float literal takes the type of the operand it meets
// (LANGUAGE.md §2). Element reads give weak floats (scalar.ts), so `a + x` with x: f32 is f32
// by converting the read; where the whole array meets a typed one (the branches of a run-time
// `if`, the iterations of a `while`, a `scatter`'s destination and values, a `fold`'s seed) it
// is converted by a cast `map`, which fusion merges into its producer or consumer.
//
// Only float components are ever weak: an array of integer literals is i32, as the literals
// would be where nothing else decides (integers carry no run-time weakness at all).

import type { Span } from '../diagnostics/index.js';
import type { ArrayVar, Expr, Param, ScalarType } from '../ir/types.js';
import { isFloat } from '../ir/scalarOps.js';
import { isTuple, type ETy, type STy } from './types.js';
import { fail, hintGeneric, site, type ArrayVal, type Frame, type SVal } from './values.js';

/** Per component: whether it is a weak float array. */
export function weakLeaves(arr: ArrayVal): boolean[] {
  return arr.comps.map((_, i) => arr.weak?.[i] === true);
}

/** The array with these per-component weak flags (none recorded where none is weak). */
export function withArrayWeak(arr: ArrayVal, flags: readonly boolean[]): ArrayVal {
  const { weak: _old, ...rest } = arr;
  return flags.some((w) => w) ? { ...rest, weak: flags.slice(0, arr.comps.length) } : rest;
}

/** The pruned scalar leaves of an element type, in component order. */
function leaves(fr: Frame, t: ETy): STy[] {
  const p = fr.st.infer.prune(t);
  return isTuple(p) ? p.flatMap((e) => leaves(fr, e)) : [p];
}

/** The element type with its scalar leaves replaced, in order. */
function replaceLeaves(fr: Frame, t: ETy, next: readonly STy[]): ETy {
  let at = 0;
  const go = (u: ETy): ETy => {
    const p = fr.st.infer.prune(u);
    return isTuple(p) ? p.map(go) : next[at++]!;
  };
  return go(t);
}

/**
 * The array with the components that `targets` names (non-null) converted to that type by one
 * cast `map` in the frame's block; they are no longer weak. A target equal to the component's
 * type only makes it strong.
 */
export function convertArrayLeaves(fr: Frame, arr: ArrayVal, targets: readonly (STy | null)[], span: Span): ArrayVal {
  const infer = fr.st.infer;
  const types = leaves(fr, arr.elem);
  const weak = weakLeaves(arr);
  const concreteOf = (t: STy): ScalarType => infer.defaultScalar(t);
  const moved = arr.comps.flatMap((c, i) => {
    const to = targets[i];
    if (to === null || to === undefined) return [];
    weak[i] = false;
    return concreteOf(types[i]!) === concreteOf(to) ? [] : [{ i, c, from: concreteOf(types[i]!), to: concreteOf(to) }];
  });
  const elem = replaceLeaves(fr, arr.elem, types.map((t, i) => targets[i] ?? t));
  if (moved.length === 0) return withArrayWeak({ ...arr, elem }, weak);
  if (fr.em.kind !== 'array') throw fail(fr, 'E212', 'an array conversion inside an element function', span);
  const s = site(fr, span);
  const params: Param[] = moved.map((m) => ({ name: fr.st.fresh('x', hintGeneric), type: m.from }));
  const results: Expr[] = moved.map((m, k) => ({ kind: 'cast', to: m.to, arg: { kind: 'var', name: params[k]!.name, type: m.from }, type: m.to, span: s }));
  const rank = infer.peekRank(arr.rank);
  const outs: ArrayVar[] = moved.map((m) => ({ name: fr.st.fresh('map', hintGeneric), elem: m.to, rank }));
  fr.em.stmts.push({ kind: 'map', id: fr.st.nodeId(), outs, span: s, inputs: moved.map((m) => m.c), fn: { params, lets: [], results } });
  const comps = [...arr.comps];
  moved.forEach((m, k) => (comps[m.i] = outs[k]!.name));
  return withArrayWeak({ ...arr, comps, elem }, weak);
}

/**
 * For each component of `v` that is a weak float array where `like`'s is of a typed float
 * type (or, in the inference run, a type not known yet), that type; else null.
 */
function targetsFrom(fr: Frame, like: ArrayVal, v: ArrayVal): (STy | null)[] {
  const want = leaves(fr, like.elem);
  const strongLike = weakLeaves(like).map((w) => !w);
  const mine = weakLeaves(v);
  if (want.length !== mine.length) return mine.map(() => null);
  return mine.map((w, i) => {
    const t = want[i]!;
    return w && strongLike[i]! && (typeof t !== 'string' || isFloat(t)) ? t : null;
  });
}

/**
 * `v` with its weak float array components converted to the types of `like`'s typed float
 * components, through tuples; anything else is returned as it is (scalars take their types by
 * `coerce`; a clash is the caller's to report).
 */
export function adoptArrayTypes(fr: Frame, like: SVal, v: SVal, span: Span): SVal {
  if (like.kind === 'tuple' && v.kind === 'tuple' && like.elems.length === v.elems.length) {
    return { kind: 'tuple', elems: v.elems.map((e, i) => adoptArrayTypes(fr, like.elems[i]!, e, span)) };
  }
  if (like.kind !== 'array' || v.kind !== 'array' || v.weak === undefined) return v;
  const targets = targetsFrom(fr, like, v);
  return targets.some((t) => t !== null) ? convertArrayLeaves(fr, v, targets, span) : v;
}
