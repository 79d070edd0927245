// The generator's recipes for the eight core combinators and array-level scalar statements.
// Each emits one combinator plus any helper nodes it needs (index arrays, a fresh scatter
// destination) into the block being built; see genProgram.ts for the invariants they keep.

import { noSpan } from '../../src/diagnostics/index.js';
import type { CombinatorNode, Expr, Lambda, ScalarType } from '../../src/ir/types.js';
import { inPlaceHazards } from '../../src/ir/updates.js';
import { bin, constE, dimE, modPositive, randomConst, randomExpr, varE } from './exprGen.js';
import { chance, pick, pickRecent, weighted } from './rng.js';
import {
  type Arr, type BlockState, type Ctx, type ShapeChoice, emit, exprReads, exprScope, fresh, newArrs, numeric, outVars,
  params, pickOperand, randomElem, randomLambda, randomShape, sameShape, shapeOf, use, withSameShape,
} from './genState.js';

export function genMap(ctx: Ctx, b: BlockState): void {
  const { rng } = ctx;
  const first = pickOperand(ctx, b.arrays);
  const inputs = withSameShape(ctx, b, first, rng.int(0, 2));
  const ps = params(ctx, 'x', inputs.map((a) => a.elem));
  const outTypes = Array.from({ length: chance(rng, 0.2) ? 2 : 1 }, () => (chance(rng, 0.4) ? first.elem : randomElem(ctx)));
  const outs = newArrs(ctx, 'm', outTypes, first.shape);
  const node: CombinatorNode = {
    kind: 'map', id: ctx.nextId++, outs: outVars(outs), span: noSpan,
    inputs: use(ctx, inputs), fn: randomLambda(ctx, b, ps, outTypes),
  };
  emit(ctx, b, node, outs);
}

export function genGenerate(ctx: Ctx, b: BlockState): void {
  const { rng } = ctx;
  const shape = randomShape(ctx, b);
  const ps = params(ctx, 'ix', shape.exprs.map(() => 'i32' as const));
  const outTypes = Array.from({ length: chance(rng, 0.2) ? 2 : 1 }, () => randomElem(ctx));
  const outs = newArrs(ctx, 'gen', outTypes, shape.extents);
  const node: CombinatorNode = {
    kind: 'generate', id: ctx.nextId++, outs: outVars(outs), span: noSpan,
    shape: shape.exprs, fn: randomLambda(ctx, b, ps, outTypes),
  };
  emit(ctx, b, node, outs);
}

/**
 * Emits one node computing index arrays of shape `over` (one per axis of `target`), each
 * `e % dim(target, k)`: a map over an array of that shape or a generate of that shape.
 * `spill` (for a dropping scatter): `e % (dim(target, k) + 2) - 1` instead, so some indices
 * fall one below or one beyond the extent; such arrays carry no index bound.
 */
export function genIndexArrays(ctx: Ctx, b: BlockState, over: Arr | ShapeChoice, target: Arr, spill = false): Arr[] {
  const { rng } = ctx;
  const bounds = target.shape;
  const viaMap = 'name' in over && chance(rng, 0.6);
  const shape = 'name' in over ? over.shape : over.extents;
  const outs = newArrs(ctx, 'idx', bounds.map(() => 'i32' as const), shape, spill ? undefined : bounds);
  const index = (e: Expr, k: number): Expr =>
    spill ? bin('-', modPositive(e, bin('+', dimE(target.name, k), constE('i32', 2))), constE('i32', 1)) : modPositive(e, dimE(target.name, k));
  if (viaMap) {
    const ps = params(ctx, 'x', [over.elem]);
    const scope = exprScope(b, ps, 0.05);
    const results = bounds.map((_, k) => index(randomExpr(rng, scope, 'i32', rng.int(1, 2)), k));
    emit(ctx, b, {
      kind: 'map', id: ctx.nextId++, outs: outVars(outs), span: noSpan,
      inputs: use(ctx, [over]), fn: { params: ps, lets: [], results },
    }, outs);
  } else {
    const choice = 'name' in over ? shapeOf(over) : over;
    const ps = params(ctx, 'ix', choice.exprs.map(() => 'i32' as const));
    const scope = exprScope(b, ps, 0.05);
    const results = bounds.map((_, k) => index(randomExpr(rng, scope, 'i32', rng.int(1, 2)), k));
    emit(ctx, b, {
      kind: 'generate', id: ctx.nextId++, outs: outVars(outs), span: noSpan,
      shape: choice.exprs, fn: { params: ps, lets: [], results },
    }, outs);
  }
  return outs;
}

/** Existing i32 arrays of one shape, one per axis of `source`, each known to be in range. */
function reusableIndices(ctx: Ctx, b: BlockState, source: Arr): Arr[] | undefined {
  const bounded = b.arrays.filter((a) => a.elem === 'i32' && a.indexBound !== undefined);
  const options = bounded
    .map((first) => {
      const sameShaped = bounded.filter((a) => sameShape(a.shape, first.shape));
      const perAxis = source.shape.map((extent) => sameShaped.filter((a) => a.indexBound! <= extent));
      return perAxis.every((c) => c.length > 0) ? perAxis : undefined;
    })
    .filter((o) => o !== undefined);
  if (options.length === 0) return undefined;
  return pickRecent(ctx.rng, options).map((candidates) => pickRecent(ctx.rng, candidates));
}

export function genGather(ctx: Ctx, b: BlockState, budget: number): boolean {
  const { rng } = ctx;
  const sources = b.arrays.filter((a) => a.shape.length > 0);
  if (sources.length === 0) return false;
  const first = pickOperand(ctx, sources);
  const source = withSameShape(ctx, b, first, chance(rng, 0.25) ? 1 : 0);
  const reuse = chance(rng, 0.35) || budget < 2 ? reusableIndices(ctx, b, first) : undefined;
  if (reuse === undefined && budget < 2) return false;
  const indices = reuse ?? genIndexArrays(ctx, b, chance(rng, 0.7) ? pickRecent(rng, b.arrays) : randomShape(ctx, b), first);
  const outs = newArrs(ctx, 'ga', source.map((a) => a.elem), indices[0]!.shape, source.map((a) => a.indexBound));
  emit(ctx, b, {
    kind: 'gather', id: ctx.nextId++, outs: outVars(outs), span: noSpan,
    indices: use(ctx, indices), source: use(ctx, source),
  }, outs);
  return true;
}

type ScatterOp = 'add' | 'max' | 'replace';

function scatterLambda(ctx: Ctx, op: ScatterOp, elems: readonly ScalarType[]): Lambda {
  const olds = params(ctx, 'old', elems);
  const news = params(ctx, 'new', elems);
  const results = elems.map((t, k): Expr => {
    const o = varE(olds[k]!.name, t);
    const n = varE(news[k]!.name, t);
    switch (op) {
      case 'add':
        return bin('+', o, n);
      case 'max':
        return bin('max', o, n);
      case 'replace':
        return n;
      default:
        return op satisfies never;
    }
  });
  return { params: [...olds, ...news], lets: [], results };
}

/** A per-axis bijection of [0, n): identity, reversal or rotation. */
function bijection(ctx: Ctx, i: Expr, n: Expr): Expr {
  const kind = weighted(ctx.rng, [['identity', 1], ['reverse', 2], ['rotate', 2]] as const);
  switch (kind) {
    case 'identity':
      return i;
    case 'reverse':
      return bin('-', bin('-', n, i), constE('i32', 1));
    case 'rotate':
      return bin('%', bin('+', i, constE('i32', ctx.rng.int(1, 7))), n);
    default:
      return kind satisfies never;
  }
}

export function genScatter(ctx: Ctx, b: BlockState, budget: number): boolean {
  const { rng } = ctx;
  if (budget < 2) return false;
  const op = weighted(rng, [['add', 3], ['max', 2], ['replace', 2]] as const);
  // A dropping scatter (scatterDrop, hist): its indices reach past the destination's edges.
  // Drawn only when the option is on, so that the programs of every seed stay what they were.
  const drop = ctx.s.dropScatters && chance(rng, 0.5);
  const valueOk = (a: Arr): boolean => (op === 'replace' || numeric(a.elem)) && (op !== 'replace' || a.shape.length > 0);
  const candidates = b.arrays.filter(valueOk);
  if (candidates.length === 0) return false;
  const values = withSameShape(ctx, b, pickRecent(rng, candidates), chance(rng, 0.2) ? 1 : 0, valueOk);
  const v0 = values[0]!;
  const elems = values.map((a) => a.elem);
  const destOk = (group: readonly Arr[]): boolean =>
    group.length === values.length && group.every((a, k) => a.local && a.elem === elems[k] && a.shape.length > 0) &&
    (op !== 'replace' || sameShape(group[0]!.shape, v0.shape)) && !group.some((a) => values.includes(a));
  const groups = [...new Set(b.arrays.map((a) => a.group))].map((g) => b.arrays.filter((a) => a.group === g));
  const existing = groups.filter(destOk);
  let dest: readonly Arr[];
  if (existing.length > 0 && (budget < 3 || chance(rng, 0.3))) dest = pickRecent(rng, existing);
  else if (budget >= 3) {
    const shape = op === 'replace' ? shapeOf(v0) : randomShape(ctx, b);
    const ps = params(ctx, 'ix', shape.exprs.map(() => 'i32' as const));
    const outs = newArrs(ctx, 'dst', elems, shape.extents);
    emit(ctx, b, {
      kind: 'generate', id: ctx.nextId++, outs: outVars(outs), span: noSpan,
      shape: shape.exprs, fn: randomLambda(ctx, b, ps, elems, 0),
    }, outs);
    dest = outs;
  } else return false;
  const d0 = dest[0]!;
  let index: Arr[];
  if (op === 'replace') {
    const shape = shapeOf(v0);
    const ps = params(ctx, 'ix', shape.exprs.map(() => 'i32' as const));
    index = newArrs(ctx, 'idx', d0.shape.map(() => 'i32' as const), v0.shape, drop ? undefined : d0.shape);
    // Dropping: the bijection shifted along each axis, still one update per element (the order
    // stays irrelevant), some of them beyond an edge.
    const shifted = (e: Expr): Expr => (drop ? bin('+', e, constE('i32', pick(rng, [-1, 1, 2]))) : e);
    emit(ctx, b, {
      kind: 'generate', id: ctx.nextId++, outs: outVars(index), span: noSpan, shape: shape.exprs,
      fn: { params: ps, lets: [], results: ps.map((p, k) => shifted(bijection(ctx, varE(p.name, 'i32'), dimE(d0.name, k)))) },
    }, index);
  } else {
    index = genIndexArrays(ctx, b, v0, d0, drop);
  }
  const outs = newArrs(ctx, 'sc', elems, d0.shape);
  const destNames = use(ctx, dest);
  const scatter: CombinatorNode = {
    kind: 'scatter', id: ctx.nextId++, outs: outVars(outs), span: noSpan,
    op: scatterLambda(ctx, op, elems), dest: destNames, index: use(ctx, index), values: use(ctx, values),
    ...(drop ? { drop: true as const } : {}),
  };
  // The IR's rule (src/ir/updates.ts): where the in-place update could be observed (the
  // destination is an if/while output or may share memory with one, or the op indexes it),
  // scatter into an identity copy, as lowering does.
  const hazards = inPlaceHazards({ params: [], stmts: [...b.stmts, scatter], results: [] }, b.stmts.length);
  // With readAfterScatter, sometimes keep the destination readable after the scatter: it is
  // then copied as lowering copies a destination used later.
  const readLater = ctx.s.readAfterScatter && chance(rng, 0.5);
  if (hazards.length > 0 || readLater) {
    const copies = newArrs(ctx, 'cp', elems, d0.shape);
    const ps = params(ctx, 'c', elems);
    emit(ctx, b, {
      kind: 'map', id: ctx.nextId++, outs: outVars(copies), span: noSpan, inputs: destNames,
      fn: { params: ps, lets: [], results: ps.map((p) => varE(p.name, p.type)) },
    }, copies);
    emit(ctx, b, { ...scatter, dest: copies.map((c) => c.name) }, outs);
    b.arrays = b.arrays.filter((a) => !copies.some((c) => c.name === a.name));
  } else {
    emit(ctx, b, scatter, outs);
  }
  // The scatter is the destination's last use: nothing after it may read it, not even through
  // an array-level scalar that indexed it earlier.
  if (readLater) return true;
  b.arrays = b.arrays.filter((a) => !destNames.includes(a.name));
  b.scalars = b.scalars.filter((v) => !destNames.some((d) => v.reads.has(d)));
  return true;
}

type ReduceOp = '+' | '*' | 'min' | 'max' | 'and' | 'or';

/** An associative operator for a component type, and its identity as a seed. */
function reduceOp(ctx: Ctx, t: ScalarType, allowProduct: boolean): { op: ReduceOp; seed: Expr } {
  const { rng } = ctx;
  if (t === 'bool') {
    const op = pick(rng, ['and', 'or'] as const);
    return { op, seed: constE('bool', op === 'and' ? 1 : 0) };
  }
  const float = t === 'f64' || t === 'f32';
  // Float products could overflow along a long row; integer products just wrap.
  const op = weighted(rng, [['+', 4], ['max', 2], ['min', 2], ['*', allowProduct && !float ? 1 : 0]] as const);
  const big = float ? 1e30 : t === 'i32' ? 2147483647 : 4294967295;
  const small = float ? -1e30 : t === 'i32' ? -2147483648 : 0;
  switch (op) {
    case '+':
      return { op, seed: chance(rng, 0.2) ? randomConst(rng, t) : constE(t, 0) };
    case '*':
      return { op, seed: constE(t, 1) };
    case 'min':
      return { op, seed: constE(t, big) };
    case 'max':
      return { op, seed: constE(t, small) };
    default:
      return op satisfies never;
  }
}

function reduceLambda(ctx: Ctx, elems: readonly ScalarType[], ops: readonly ReduceOp[]): Lambda {
  const accs = params(ctx, 'acc', elems);
  const xs = params(ctx, 'x', elems);
  return {
    params: [...accs, ...xs],
    lets: [],
    results: elems.map((t, k) => bin(ops[k]!, varE(accs[k]!.name, t), varE(xs[k]!.name, t))),
  };
}

export function genReduce(ctx: Ctx, b: BlockState, kind: 'fold' | 'scanl' | 'scanr'): boolean {
  const { rng } = ctx;
  const ranked = b.arrays.filter((a) => a.shape.length > 0);
  if (ranked.length === 0) return false;
  const input = withSameShape(ctx, b, pickOperand(ctx, ranked), chance(rng, 0.25) ? 1 : 0);
  const elems = input.map((a) => a.elem);
  const choices = elems.map((t) => reduceOp(ctx, t, true));
  const op = reduceLambda(ctx, elems, choices.map((c) => c.op));
  const seeds = choices.map((c) => c.seed);
  const inputNames = use(ctx, input);
  const id = ctx.nextId++;
  if (kind === 'fold') {
    const outs = newArrs(ctx, 'fo', elems, input[0]!.shape.slice(0, -1));
    emit(ctx, b, { kind, id, outs: outVars(outs), span: noSpan, op, init: seeds, input: inputNames }, outs);
  } else {
    const outs = newArrs(ctx, kind === 'scanl' ? 'sl' : 'sr', elems, input[0]!.shape);
    const init = chance(rng, 0.5) ? seeds : null;
    emit(ctx, b, { kind, id, outs: outVars(outs), span: noSpan, op, init, input: inputNames }, outs);
  }
  return true;
}

export function genForce(ctx: Ctx, b: BlockState): void {
  const input = withSameShape(ctx, b, pickOperand(ctx, b.arrays), chance(ctx.rng, 0.2) ? 1 : 0);
  const outs = newArrs(ctx, 'fc', input.map((a) => a.elem), input[0]!.shape, input.map((a) => a.indexBound));
  emit(ctx, b, { kind: 'force', id: ctx.nextId++, outs: outVars(outs), span: noSpan, input: use(ctx, input) }, outs);
}

/** The arrays an expression reads by indexing, directly or through the scalars it mentions. */
export function genScalarStmt(ctx: Ctx, b: BlockState): void {
  const type = randomElem(ctx);
  const name = fresh(ctx, 's');
  const expr = randomExpr(ctx.rng, exprScope(b, [], 0.7), type, 2);
  b.stmts.push({ kind: 'scalar', name, expr, span: noSpan });
  b.scalars.push({ name, type, reads: exprReads(expr, b.scalars) });
  b.scalarStmts++;
}
