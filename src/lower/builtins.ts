// Built-in functions: the core combinators (each becomes one IR node), shape queries, the free
// structure-of-arrays conversions `zip`/`unzip`, and element-level math and casts.
//
// Everything else users know as a combinator (zipWith, reverse, filter, …) is written in the
// prelude in .fuse and inlined, so the planner only ever sees the paper's core.

import type { Span } from '../diagnostics/index.js';
import type { ArrayVar, CombinatorNode, Expr, Lambda, MathFn, ScalarType } from '../ir/types.js';
import { scalarTypes } from '../ir/types.js';
import { MAX_ARRAY_ELEMENTS, integerRange, isInteger } from '../ir/scalarOps.js';
import { coerce, explicitCast, isWeak, isWeakFloat, mathCall, staticScalar, toExpr, unifyAt } from './scalar.js';
import { adoptArrayTypes, convertArrayLeaves, weakLeaves, withArrayWeak } from './weak.js';
import { TypeClash, isTuple, rankOf, type ETy } from './types.js';
import {
  applyOp,
  asArray,
  asScalar,
  deref,
  describe,
  flattenScalars,
  leafTypes,
  mathFns,
  toLambda,
  unzipArray,
} from './evaluator.js';
import { fail, hintGeneric, site, type ArrayVal, type FnVal, type Frame, type OpName, type SVal, type ScalarVal } from './values.js';

const combinators = ['generate', 'map', 'gather', 'scatter', 'scatterDrop', 'fold', 'scanl', 'scanr', 'force'] as const;
const others = ['shape', 'size', 'zip', 'unzip', 'fst', 'snd', 'min', 'max', 'pow'] as const;
/**
 * Builtins only the prelude can name (a user program that does gets E201, unknown name):
 * `scatterUnique(op, dest, src)` is `scatter` with a promise the compiler cannot check, that no
 * two in-range indices are equal (filter's places), so threads may apply its updates in any
 * order (ScatterNode.unique). A user's false promise would make parallel results racy.
 * `outer`, `inner` and `withOuter` take apart an index or a shape of any rank (an i32 for rank
 * 1, a tuple above), which is what lets `rotate` and `replicate` work on every rank; they are
 * compile-time tuple surgery and emit nothing (see `outerParts`). `vector(xs)` is `xs`, required
 * to be of rank 1: the segmented reductions say so at the user's call instead of failing inside.
 */
const preludeOnly = ['scatterUnique', 'outer', 'inner', 'withOuter', 'vector'] as const;

export function isBuiltinName(name: string): boolean {
  return (
    (combinators as readonly string[]).includes(name) ||
    (others as readonly string[]).includes(name) ||
    mathFns.has(name) ||
    (scalarTypes as readonly string[]).includes(name)
  );
}

/** Whether `name` is a builtin that only the prelude's own code can name. */
export function isPreludeOnlyBuiltinName(name: string): boolean {
  return (preludeOnly as readonly string[]).includes(name);
}

export function callBuiltin(fr: Frame, name: string, args: readonly SVal[], spans: readonly Span[], span: Span): SVal {
  const arity = (lo: number, hi = lo): void => {
    if (args.length < lo || args.length > hi) {
      const want = lo === hi ? `${lo}` : hi === Infinity ? `at least ${lo}` : `${lo} or ${hi}`;
      throw fail(fr, 'E202', `'${name}' takes ${want} argument${lo === 1 && hi === 1 ? '' : 's'}, ${args.length} given`, span);
    }
  };
  const fnArg = (i: number): FnVal => {
    const v = deref(fr, args[i]!, spans[i]!);
    if (v.kind !== 'fn') throw fail(fr, 'E203', `the first argument of '${name}' must be a function, found ${describe(fr, v)}`, spans[i]!);
    return v.fn;
  };
  switch (name) {
    case 'generate':
      arity(2);
      return generate(fr, args[0]!, fnArg(1), spans[0]!, span);
    case 'map':
      arity(2, Infinity);
      return mapN(fr, fnArg(0), args.slice(1).map((a, i) => asArray(fr, a, spans[i + 1]!, `argument ${i + 2} of 'map'`)), span);
    case 'gather':
      arity(2);
      return gather(fr, asArray(fr, args[0]!, spans[0]!, "the index array of 'gather'"), asArray(fr, args[1]!, spans[1]!, "the source of 'gather'"), span);
    case 'scatter':
    case 'scatterDrop':
    case 'scatterUnique':
      arity(3);
      return scatter(fr, fnArg(0), asArray(fr, args[1]!, spans[1]!, `the destination of '${name}'`), asArray(fr, args[2]!, spans[2]!, `the source of '${name}'`), span, {
        ...(name === 'scatterUnique' ? { unique: true as const } : {}),
        ...(name === 'scatterDrop' ? { drop: true as const } : {}),
      });
    case 'fold':
    case 'scanl':
    case 'scanr': {
      arity(2, 3);
      const xs = asArray(fr, args[args.length - 1]!, spans[args.length - 1]!, `the input of '${name}'`);
      return reduce(fr, name, fnArg(0), args.length === 3 ? args[1]! : null, xs, span);
    }
    case 'force': {
      arity(1);
      const xs = asArray(fr, args[0]!, spans[0]!, "the argument of 'force'");
      const forced = emitNode(fr, 'force', xs.elem, peek(fr, xs), xs.shape, span, (id, outs) => ({ kind: 'force', id, outs, span: site(fr, span), input: xs.comps }));
      return withArrayWeak(forced, weakLeaves(xs));
    }
    case 'shape':
    case 'size':
      arity(1);
      return shapeOf(fr, asArray(fr, args[0]!, spans[0]!, `the argument of '${name}'`), span);
    case 'zip': {
      arity(2, Infinity);
      const arrays = args.map((a, i) => asArray(fr, a, spans[i]!, `argument ${i + 1} of 'zip'`));
      arrays.slice(1).forEach((a, i) => unifyAt(fr, site(fr, spans[i + 1]!), "the ranks of 'zip'", () => fr.st.infer.unifyRank(arrays[0]!.rank, a.rank)));
      return zipArrays(fr, arrays, span);
    }
    case 'unzip':
      arity(1);
      return unzipArray(fr, asArray(fr, args[0]!, spans[0]!, "the argument of 'unzip'"), span);
    case 'fst':
    case 'snd': {
      arity(1);
      const t = deref(fr, args[0]!, spans[0]!);
      if (t.kind !== 'tuple' || t.elems.length < 2) throw fail(fr, 'E217', `'${name}' needs a tuple, found ${describe(fr, t)}`, spans[0]!);
      return t.elems[name === 'fst' ? 0 : 1]!;
    }
    case 'outer':
      arity(1);
      return outerParts(fr, args[0]!, spans[0]!, name).outer;
    case 'inner': {
      arity(1);
      const rest = outerParts(fr, args[0]!, spans[0]!, name).inner;
      if (rest.length === 0) throw fail(fr, 'E217', "'inner' needs an index or shape of rank at least 2, found a single i32", spans[0]!);
      return rest.length === 1 ? rest[0]! : { kind: 'tuple', elems: rest };
    }
    case 'vector': {
      arity(1);
      const xs = asArray(fr, args[0]!, spans[0]!, `the argument of '${fr.preludeFn ?? name}'`);
      try {
        fr.st.infer.unifyRank(xs.rank, rankOf(1));
      } catch (e) {
        if (!(e instanceof TypeClash)) throw e;
        throw fail(fr, 'E304', `'${fr.preludeFn ?? name}' needs arrays of rank 1, found ${describe(fr, xs)}`, span);
      }
      return args[0]!;
    }
    case 'withOuter': {
      arity(2);
      const rest = outerParts(fr, args[0]!, spans[0]!, name).inner;
      return rest.length === 0 ? args[1]! : { kind: 'tuple', elems: [args[1]!, ...rest] };
    }
    case 'min':
    case 'max':
    case 'pow':
      arity(2);
      return applyOp(fr, name === 'pow' ? '**' : name, args[0]!, args[1]!, span);
    default:
      break;
  }
  if (mathFns.has(name)) {
    arity(1);
    return mathCall(fr, name as MathFn, asScalar(fr, args[0]!, spans[0]!, `the argument of '${name}'`), site(fr, span));
  }
  if ((scalarTypes as readonly string[]).includes(name)) {
    arity(1);
    return explicitCast(fr, asScalar(fr, args[0]!, spans[0]!, `the argument of '${name}'`), name as ScalarType, site(fr, span));
  }
  throw fail(fr, 'E201', `unknown name '${name}'`, span);
}

/**
 * An index or shape split into its outer component and the rest: a rank-1 one is a single
 * scalar (`shape` gives an i32, a generate's index function gets one), a rank-r one an r-tuple.
 * The prelude's `outer(ix)`, `inner(ix)` and `withOuter(ix, i)` are this, so one definition of
 * `rotate` or `replicate` serves every rank without a run-time trace.
 */
function outerParts(fr: Frame, t0: SVal, span: Span, name: string): { outer: SVal; inner: readonly SVal[] } {
  const t = deref(fr, t0, span);
  if (t.kind !== 'tuple') return { outer: asScalar(fr, t, span, `the argument of '${name}'`), inner: [] };
  if (t.elems.length === 0) throw fail(fr, 'E217', `'${name}' needs an index or a shape, found an empty tuple`, span);
  return { outer: t.elems[0]!, inner: t.elems.slice(1) };
}

/**
 * `zip` costs nothing (structure of arrays) when its arrays' shapes are known to agree. Unequal
 * static shapes are E311; where a shape is known only at run time, the zip is an identity `map`
 * over every component, whose shape check (E403) stands where the zip is (every combinator
 * checks the components it reads, but `unzip`, a result or `size` would not), and which fusion
 * can remove (not where the scatter precedence of src/ir/updates.ts keeps it apart).
 */
function zipArrays(fr: Frame, arrays: readonly ArrayVal[], span: Span): ArrayVal {
  const elem: ETy = arrays.map((a) => a.elem);
  const weak = arrays.flatMap(weakLeaves);
  const first = arrays[0]!;
  const known = arrays.filter((a) => a.shape !== null);
  const mismatch = known.find((a) => a.shape!.join() !== known[0]!.shape!.join());
  if (mismatch !== undefined) {
    throw fail(fr, 'E311', `'zip' needs arrays of one shape, found [${known[0]!.shape!.join(', ')}] and [${mismatch.shape!.join(', ')}]`, span);
  }
  if (known.length === arrays.length) return withArrayWeak({ kind: 'array', comps: arrays.flatMap((a) => a.comps), elem, rank: first.rank, shape: first.shape }, weak);
  const params = arrays.flatMap((a) => leafScalars(fr, a.elem)).map((type) => ({ name: fr.st.fresh('x', hintGeneric), type }));
  const fn: Lambda = { params, lets: [], results: params.map((q) => ({ kind: 'var', name: q.name, type: q.type })) };
  const zipped = emitNode(fr, 'map', elem, peek(fr, first), null, span, (id, outs) => ({
    kind: 'map', id, outs, span: site(fr, span), inputs: arrays.flatMap((a) => a.comps), fn,
  }), first.rank);
  return withArrayWeak(zipped, weak);
}

/** The rank an IR ArrayVar records (never unknown outside the inference run). */
function peek(fr: Frame, a: ArrayVal): number {
  return fr.st.infer.peekRank(a.rank);
}

/** Appends a combinator producing arrays of element type `elem`, returning the array value. */
function emitNode(
  fr: Frame,
  kind: CombinatorNode['kind'],
  elem: ETy,
  rank: number,
  shape: readonly number[] | null,
  span: Span,
  make: (id: number, outs: readonly ArrayVar[]) => CombinatorNode,
  rankOverride?: ArrayVal['rank'],
): ArrayVal {
  if (fr.em.kind !== 'array') {
    throw fail(fr, 'E212', `'${kind}' is an array combinator and cannot be used inside an element function`, span);
  }
  const leaves = leafScalars(fr, elem);
  const outs: ArrayVar[] = leaves.map((t) => ({ name: fr.st.fresh(kind, hintGeneric), elem: t, rank }));
  fr.em.stmts.push(make(fr.st.nodeId(), outs));
  return { kind: 'array', comps: outs.map((o) => o.name), elem, rank: rankOverride ?? { v: null, k: rank }, shape };
}

function leafScalars(fr: Frame, t: ETy): ScalarType[] {
  const p = fr.st.infer.prune(t);
  return isTuple(p) ? p.flatMap((e) => leafScalars(fr, e)) : [fr.st.infer.defaultScalar(p)];
}

function shapeExprs(fr: Frame, s: SVal, span: Span): Expr[] {
  const leaves = flattenScalars(fr, s, span, "the shape of 'generate'");
  return leaves.map((l) => toExpr(fr, coerce(fr, l, 'i32', site(fr, span), "the shape of 'generate'"), site(fr, span)));
}

/**
 * Elements are addressed by i32 indices (and flat offsets), so an array holds at most 2^31 − 1
 * of them; a static shape beyond that is an error here rather than a wrapped or failed
 * allocation at run time (`generate((100000, 100000), …)` would need 10^10).
 */
export const maxElements = MAX_ARRAY_ELEMENTS;

function checkElementCount(fr: Frame, shape: readonly number[], span: Span): void {
  const count = shape.reduce((n, d) => n * Math.max(0, d), 1);
  if (count > maxElements) {
    throw fail(fr, 'E313', `an array of shape [${shape.join(', ')}] has ${count} elements, more than the ${maxElements} an array can hold`, span);
  }
}

function generate(fr: Frame, s: SVal, f: FnVal, shapeSpan: Span, span: Span): ArrayVal {
  const shape = shapeExprs(fr, s, shapeSpan);
  const constants = shape.every((e) => e.kind === 'const') ? shape.map((e) => (e as { value: number }).value) : null;
  if (constants !== null) checkElementCount(fr, constants, shapeSpan);
  // A negative size is a run-time error (E404) where the generate runs, as when it is computed
  // at run time; so it is not a static shape, or `size()` would fold it and return it without
  // running anything (`size(drop(2, xs))` of a one-element xs gave -1).
  const staticShape = constants !== null && constants.every((d) => d >= 0) ? constants : null;
  const lowered = toLambda(fr, f, shape.map(() => 'i32'), span);
  const out = emitNode(fr, 'generate', lowered.shape, shape.length, staticShape, span, (id, outs) => ({
    kind: 'generate', id, outs, span: site(fr, span), shape, fn: lowered.lambda,
  }));
  // `generate(n, lam i: 0.0)`: an array of weak floats, typed by the first typed array it meets.
  return withArrayWeak(out, lowered.results.map(isWeakFloat));
}

function mapN(fr: Frame, f: FnVal, inputs: readonly ArrayVal[], span: Span): ArrayVal {
  const first = inputs[0]!;
  inputs.slice(1).forEach((a) =>
    unifyRanks(fr, first, a, span, "'map' (all inputs must have the same rank)"),
  );
  const known = inputs.filter((a) => a.shape !== null);
  const mismatch = known.find((a) => a.shape!.join() !== known[0]!.shape!.join());
  if (mismatch !== undefined) {
    // Known at compile time here; the same mismatch is a run-time error when shapes are not known.
    throw fail(fr, 'E311', `'map' needs inputs of one shape, found [${known[0]!.shape!.join(', ')}] and [${mismatch.shape!.join(', ')}]`, span);
  }
  const lowered = toLambda(fr, f, inputs.map((a) => a.elem), span, undefined, inputs.map(weakLeaves));
  const shape = known[0]?.shape ?? null;
  const out = emitNode(fr, 'map', lowered.shape, peek(fr, first), shape, span, (id, outs) => ({
    kind: 'map', id, outs, span: site(fr, span), inputs: inputs.flatMap((a) => a.comps), fn: lowered.lambda,
  }), first.rank);
  return withArrayWeak(out, lowered.results.map(isWeakFloat));
}

function unifyRanks(fr: Frame, a: ArrayVal, b: ArrayVal, span: Span, what: string): void {
  try {
    fr.st.infer.unifyRank(a.rank, b.rank);
  } catch (e) {
    if (e instanceof TypeClash) throw fail(fr, 'E304', `rank mismatch in ${what}: ${e.expected} and ${e.found}`, span);
    throw e;
  }
}

/** ` 'is'` when an array is (a component of) an entry parameter, for messages; else nothing. */
function entryName(fr: Frame, a: ArrayVal): string {
  const c = a.comps[0];
  if (c === undefined || c.startsWith('%')) return '';
  return ` '${c.split('.')[0]}'`;
}

/** The index type for an array of rank r: i32, or a tuple of r i32s. */
function indexType(r: number): ETy {
  return r === 1 ? 'i32' : Array.from({ length: r }, (): ETy => 'i32');
}

/** The rank of an array that must have one (commits an unknown rank: gather needs its width). */
function sourceRank(fr: Frame, src: ArrayVal, span: Span, what: string): number {
  atLeastRankOne(fr, src, span, what);
  return fr.st.infer.concreteRank(src.rank);
}

function atLeastRankOne(fr: Frame, src: ArrayVal, span: Span, what: string): void {
  try {
    fr.st.infer.rankAtLeast(src.rank, 1);
  } catch (e) {
    if (e instanceof TypeClash) throw fail(fr, 'E304', `${what} must have rank at least 1, found ${fr.st.infer.showRank(src.rank)}`, span);
    throw e;
  }
}

function gather(fr: Frame, is: ArrayVal, xs: ArrayVal, span: Span): ArrayVal {
  const r = sourceRank(fr, xs, span, "the source of 'gather'");
  try {
    fr.st.infer.unify(is.elem, indexType(r));
  } catch (e) {
    if (!(e instanceof TypeClash)) throw e;
    throw fail(fr, 'E305', `the indices of 'gather'${entryName(fr, is)} must be ${fr.st.infer.show(indexType(r))} (one i32 per dimension of the rank-${r} source${entryName(fr, xs)}), found ${fr.st.infer.show(is.elem)}`, span);
  }
  const out = emitNode(fr, 'gather', xs.elem, peek(fr, is), is.shape, span, (id, outs) => ({
    kind: 'gather', id, outs, span: site(fr, span), indices: is.comps, source: xs.comps,
  }), is.rank);
  return withArrayWeak(out, weakLeaves(xs));
}

/**
 * A scatter's destination and values, each with its weak float components converted to the
 * other's typed float types (`scatter(+, fill(n, 0.0), zip(is, xs))` with xs: f32 is f32).
 */
function scatterOperands(fr: Frame, dest0: ArrayVal, src0: ArrayVal, span: Span): { dest: ArrayVal; src: ArrayVal } {
  const pair = fr.st.infer.prune(src0.elem);
  if ((dest0.weak === undefined && src0.weak === undefined) || !isTuple(pair) || pair.length !== 2) return { dest: dest0, src: src0 };
  const parts = unzipArray(fr, src0, span) as { readonly elems: readonly ArrayVal[] };
  const [idx, vals0] = [parts.elems[0]!, parts.elems[1]!];
  const vals = adoptArrayTypes(fr, dest0, vals0, span) as ArrayVal;
  const dest = adoptArrayTypes(fr, vals, dest0, span) as ArrayVal;
  const src: ArrayVal = { kind: 'array', comps: [...idx.comps, ...vals.comps], elem: [idx.elem, vals.elem], rank: src0.rank, shape: src0.shape };
  return { dest, src: withArrayWeak(src, [...weakLeaves(idx), ...weakLeaves(vals)]) };
}

/** `scatter`, `scatterDrop` and the prelude's `scatterUnique`: one node, its flags from the name. */
function scatter(fr: Frame, op: FnVal, dest0: ArrayVal, src0: ArrayVal, span: Span, flags: { readonly unique?: true; readonly drop?: true }): ArrayVal {
  const name = flags.drop ? 'scatterDrop' : 'scatter';
  const r = sourceRank(fr, dest0, span, `the destination of '${name}'`);
  const { dest, src } = scatterOperands(fr, dest0, src0, span);
  const idxTy = indexType(r);
  try {
    fr.st.infer.unify(src.elem, [idxTy, dest.elem]);
  } catch (e) {
    if (!(e instanceof TypeClash)) throw e;
    const pair = fr.st.infer.prune(src.elem);
    if (fr.preludeFn === 'hist' && isTuple(pair) && pair.length === 2) {
      const [is, vs] = [fr.st.infer.show(pair[0]!), fr.st.infer.show(pair[1]!)];
      const bins = fr.st.infer.show(dest.elem);
      throw fail(fr, 'E305', `'hist' needs ${fr.st.infer.show(idxTy)} indices and values of its bins' type, the type of \`ne\` (${bins}); found indices ${is} and values ${vs}${is === fr.st.infer.show(idxTy) ? ` (give \`ne\` the values' type, ${vs})` : ''}`, span);
    }
    throw fail(fr, 'E305', `the source of '${name}'${entryName(fr, src)} must hold (index, value) pairs of type (${fr.st.infer.show(idxTy)}, ${fr.st.infer.show(dest.elem)}), found ${fr.st.infer.show(src.elem)}`, span);
  }
  const destWeak = weakLeaves(dest);
  const valWeak = weakLeaves(src).slice(r);
  const lowered = toLambda(fr, op, [dest.elem, dest.elem], span, [dest.elem], [destWeak, valWeak]);
  const out = emitNode(fr, 'scatter', dest.elem, r, dest.shape, span, (id, outs) => ({
    kind: 'scatter', id, outs, span: site(fr, span), op: lowered.lambda,
    dest: dest.comps, index: src.comps.slice(0, r), values: src.comps.slice(r),
    ...flags,
  }));
  // Weak where every value that can end up in it is: the destination's, the source's, the op's.
  return withArrayWeak(out, destWeak.map((w, i) => w && valWeak[i] === true && isWeakFloat(lowered.results[i]!)));
}

/** The seed a bare operator implies: its identity for the element type. */
function identity(fr: Frame, f: FnVal, t: ScalarType, span: Span, name: string): number {
  const op: OpName | null = f.kind === 'op' ? f.op : f.kind === 'builtin' && (f.name === 'min' || f.name === 'max') ? f.name : null;
  const [small, big] = isInteger(t) ? integerRange(t) : [-Infinity, Infinity];
  switch (op) {
    case '+':
    case 'or':
    case '|':
    case '^':
      return 0;
    case '*':
    case 'and':
      return 1;
    case '&':
      // Every bit set (on any other type the operator itself is the error).
      return t === 'u32' ? 4294967295 : t === 'u8' ? 255 : -1;
    case 'min':
      return big;
    case 'max':
      return small;
    default:
      throw fail(fr, 'E215', `'${name}' with a function other than + * min max and or & | ^ needs a seed: ${name}(f, z, xs)`, span);
  }
}

/**
 * The input of a fold or scan with its weak float components converted to the types of typed
 * float seeds (`fold(+, f32(0), fill(n, 1.0))` folds f32s), and the seed's leaves.
 */
function seededInput(fr: Frame, xs: ArrayVal, seed: SVal | null, span: Span, name: string): { xs: ArrayVal; zs: ScalarVal[] | null } {
  if (seed === null) return { xs, zs: null };
  const zs = flattenScalars(fr, seed, span, `the seed of '${name}'`);
  if (xs.weak === undefined || zs.length !== xs.comps.length) return { xs, zs };
  const weak = weakLeaves(xs);
  const targets = zs.map((z, i) => {
    const t = fr.st.infer.prune(z.ty);
    return weak[i]! && !isWeak(z) && typeof t === 'string' && (t === 'f32' || t === 'f64') ? t : null;
  });
  return { xs: targets.some((t) => t !== null) ? convertArrayLeaves(fr, xs, targets, span) : xs, zs };
}

function reduce(fr: Frame, name: 'fold' | 'scanl' | 'scanr', op: FnVal, seed: SVal | null, xs0: ArrayVal, span: Span): ArrayVal {
  // Not committed: `fold(+, xs)` of an unknown rank stays unknown (simple4 infers rank 2 later).
  atLeastRankOne(fr, xs0, span, `the input of '${name}'`);
  const r = peek(fr, xs0);
  const { xs, zs: seedLeaves } = seededInput(fr, xs0, seed, span, name);
  let init: Expr[] | null;
  if (seedLeaves !== null) {
    const zs = seedLeaves;
    // Against the element types as far as they are known: an unannotated `f` folded with the
    // seed False is thereby bool, not defaulted to f64 first and then found to clash.
    const known = leafTypes(fr, xs.elem);
    if (zs.length !== known.length) throw fail(fr, 'E301', `the seed of '${name}' has ${zs.length} components, the elements have ${known.length}`, span);
    const typed = zs.map((z, i) => coerce(fr, z, known[i]!, site(fr, span), `the seed of '${name}'`));
    const leaves = leafScalars(fr, xs.elem);
    init = typed.map((z, i) => toExpr(fr, coerce(fr, z, leaves[i]!, site(fr, span), `the seed of '${name}'`), site(fr, span)));
  } else if (name === 'fold') {
    init = leafScalars(fr, xs.elem).map((t) => toExpr(fr, staticScalar(t, identity(fr, op, t, span, name)), site(fr, span)));
  } else {
    init = null;
  }
  const xsWeak = weakLeaves(xs);
  const lowered = toLambda(fr, op, [xs.elem, xs.elem], span, [xs.elem], [xsWeak, xsWeak]);
  // Weak where the elements, the seed and the operator's result all are (`sum(fill(n, 1.0))`).
  const weak = xsWeak.map((w, i) => w && isWeakFloat(lowered.results[i]!) && (seedLeaves === null || isWeak(seedLeaves[i]!)));
  const s = site(fr, span);
  if (name === 'fold') {
    const shape = xs.shape === null ? null : xs.shape.slice(0, -1);
    const rank = { v: fr.st.infer.pruneRank(xs.rank).v, k: fr.st.infer.pruneRank(xs.rank).k - 1 };
    return withArrayWeak(emitNode(fr, 'fold', xs.elem, r - 1, shape, span, (id, outs) => ({
      kind: 'fold', id, outs, span: s, op: lowered.lambda, init: init ?? [], input: xs.comps,
    }), rank), weak);
  }
  return withArrayWeak(emitNode(fr, name, xs.elem, r, xs.shape, span, (id, outs) =>
    name === 'scanl'
      ? { kind: 'scanl', id, outs, span: s, op: lowered.lambda, init, input: xs.comps }
      : { kind: 'scanr', id, outs, span: s, op: lowered.lambda, init, input: xs.comps },
  xs.rank), weak);
}

/** `shape(xs)`: static extents when known, else `dim` expressions; a scalar for rank 1. */
function shapeOf(fr: Frame, xs: ArrayVal, span: Span): SVal {
  const r = fr.st.infer.concreteRank(xs.rank);
  const dims: SVal[] = Array.from({ length: r }, (_, axis) =>
    xs.shape !== null
      ? staticScalar('i32', xs.shape[axis]!)
      : { kind: 'dyn', expr: { kind: 'dim', array: xs.comps[0]!, axis, type: 'i32', span: site(fr, span) }, ty: 'i32' },
  );
  return r === 1 ? dims[0]! : { kind: 'tuple', elems: dims };
}
