// Random well-typed, well-scoped core IR programs with matching inputs.
//
// The generator builds a Program statement by statement, tracking for every visible array its
// element type and its *concrete* shape (the inputs are generated first, and every shape in
// the program derives from theirs), so that it only ever combines arrays whose shapes agree and
// only ever indexes in range. Nothing it makes can fail at run time:
//  - gather and scatter indices are `e % dim(target, k)` with floor modulo (in [0, n) for n ≥ 1;
//    every extent is ≥ 1), or arrays already known to hold indices below an extent;
//  - scatter with "take the new value" uses a bijective index (identity, reversal or rotation
//    per axis), so the result does not depend on the order updates are applied in;
//  - integer division divides by a value that is never zero; float expressions are built so
//    they stay finite (see exprGen.ts), and folds and scans use associative operators with
//    their identity as seed (sometimes another seed for `+`, which is still well defined);
//  - a scatter's destination is an array of the current block that nothing reads afterwards
//    (the IR's rule: the scatter is its destination's last use);
//  - `while` loops count a carried i32 up to a small constant, so they always terminate.
//
// Size: the number of graph nodes (combinators and if/while nodes, nested blocks included) is
// exactly the requested count, so the planner's brute-force cross-check can ask for ≤ 7 and
// benchmarks for 25 … 400. The mix of recipes (chains via recency bias, fan-out via older
// operands, n-ary maps that join arrays of one shape into diamonds, gathers of gathers, folds
// after gathers, index arrays read by several gathers) is meant to look like real programs.

import { noSpan } from '../../src/diagnostics/index.js';
import type {
  ArrayVar, Block, CombinatorNode, Expr, Interface, Lambda, Param, Program, ScalarType, Stmt, Value, VarName,
} from '../../src/ir/types.js';
import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import {
  type ExprScope, bin, castE, constE, dimE, modPositive, randomConst, randomExpr, randomResult, varE,
} from './exprGen.js';
import { randomArray, randomScalar } from './inputs.js';
import { type Rng, chance, pick, pickRecent, sample, seededRng, weighted } from './rng.js';

export interface GeneratorOptions {
  /** Graph nodes in the whole program: an exact count or a range (default 1 … 7). */
  readonly combinators?: number | { readonly min: number; readonly max: number };
  /** Extent of every dimension of the inputs and of generated shapes (default 1 … 6). */
  readonly extents?: { readonly min: number; readonly max: number };
  /** Upper bound on the elements of any one array (default 216). */
  readonly maxElements?: number;
  /** Highest array rank (default 3). */
  readonly maxRank?: number;
  /** Allow array-level `if` and `while` nodes (default true). */
  readonly controlFlow?: boolean;
  /** Element types of inputs and lambda results (default all five). */
  readonly elemTypes?: readonly ScalarType[];
}

export interface GeneratedCase {
  readonly program: Program;
  readonly inputs: readonly InterfaceValue[];
  readonly description: string;
  /** The shape the generator tracked for each component of each result (a cross-check). */
  readonly resultShapes: readonly (readonly (readonly number[])[])[];
}

/** Presets: `small` suits the planner's brute-force cross-check. */
export const generatorSizes = {
  small: { combinators: { min: 1, max: 7 } },
  medium: { combinators: { min: 8, max: 25 } },
  large: (combinators: number): GeneratorOptions => ({ combinators }),
} as const;

/** A deterministic random case for benchmarks: the same seed and options give the same case. */
export function randomProgram(seed: number, options: GeneratorOptions = {}): GeneratedCase {
  const c = generateCase(seededRng(seed), options);
  return { ...c, description: `seed ${seed}: ${c.description}` };
}

// ---------------------------------------------------------------------------------------------
// Generation state
// ---------------------------------------------------------------------------------------------

interface Settings {
  readonly extentMin: number;
  readonly extentMax: number;
  readonly maxElements: number;
  readonly maxRank: number;
  readonly controlFlow: boolean;
  readonly elemTypes: readonly ScalarType[];
}

/** A visible array with its concrete shape. */
interface Arr {
  readonly name: VarName;
  readonly elem: ScalarType;
  readonly shape: readonly number[];
  /** Arrays defined together (one node's outputs): a scatter destination is a whole group. */
  readonly group: string;
  /** Defined by a statement of the block being built (not an input, param or outer array). */
  readonly local: boolean;
  /** An i32 array whose elements are known to lie in [0, indexBound). */
  readonly indexBound?: number;
}

/** An array-level scalar in scope, with the arrays its value was read from (transitively). */
interface ScalarVar {
  readonly name: VarName;
  readonly type: ScalarType;
  readonly reads: ReadonlySet<VarName>;
}

/** Per-run state; lives only for one `generateCase` call. */
interface Ctx {
  readonly rng: Rng;
  readonly s: Settings;
  nextName: number;
  nextId: number;
  nodes: number;
  /** Arrays read as ordered operands somewhere: used to prefer unread arrays as results. */
  readonly used: Set<VarName>;
}

/** The block under construction: what is visible in it and what it has emitted so far. */
interface BlockState {
  readonly depth: number;
  arrays: Arr[];
  scalars: ScalarVar[];
  readonly stmts: Stmt[];
  scalarStmts: number;
}

function fresh(ctx: Ctx, prefix: string): VarName {
  return `${prefix}${ctx.nextName++}`;
}

function childBlock(parent: BlockState): BlockState {
  return {
    depth: parent.depth + 1,
    arrays: parent.arrays.map((a) => ({ ...a, local: false })),
    scalars: [...parent.scalars],
    stmts: [],
    scalarStmts: 0,
  };
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

function elements(shape: readonly number[]): number {
  return shape.reduce((n, d) => n * d, 1);
}

function exprScope(b: BlockState, lambdaVars: readonly Param[], indexChance: number): ExprScope {
  return { vars: [...lambdaVars, ...b.scalars], arrays: b.arrays, indexChance };
}

function emit(ctx: Ctx, b: BlockState, stmt: CombinatorNode, outs: readonly Arr[]): void {
  b.stmts.push(stmt);
  b.arrays.push(...outs);
  ctx.nodes++;
}

function use(ctx: Ctx, arrays: readonly Arr[]): VarName[] {
  for (const a of arrays) ctx.used.add(a.name);
  return arrays.map((a) => a.name);
}

function outVars(arrs: readonly Arr[]): ArrayVar[] {
  return arrs.map((a) => ({ name: a.name, elem: a.elem, rank: a.shape.length }));
}

function newArrs(ctx: Ctx, prefix: string, elems: readonly ScalarType[], shape: readonly number[], bounds?: readonly (number | undefined)[]): Arr[] {
  const group = `g${ctx.nextName}`;
  return elems.map((elem, k) => {
    const bound = bounds?.[k];
    return { name: fresh(ctx, prefix), elem, shape, group, local: true, ...(bound === undefined ? {} : { indexBound: bound }) };
  });
}

function params(ctx: Ctx, prefix: string, types: readonly ScalarType[]): Param[] {
  return types.map((type) => ({ name: fresh(ctx, prefix), type }));
}

/** A lambda over `ps` with optional element-level lets, one result per type. */
function randomLambda(ctx: Ctx, b: BlockState, ps: readonly Param[], resultTypes: readonly ScalarType[], indexChance = 0.06): Lambda {
  const { rng } = ctx;
  const lets: { name: VarName; expr: Expr }[] = [];
  const vars: Param[] = [...ps];
  if (chance(rng, 0.25)) {
    for (let k = rng.int(1, 2); k > 0; k--) {
      const type = pick(rng, ctx.s.elemTypes);
      const name = fresh(ctx, 't');
      lets.push({ name, expr: randomExpr(rng, exprScope(b, vars, indexChance), type, 2) });
      vars.push({ name, type });
    }
  }
  const scope = exprScope(b, vars, indexChance);
  return { params: ps, lets, results: resultTypes.map((t) => randomResult(rng, scope, t, rng.int(1, 3))) };
}

function randomElem(ctx: Ctx): ScalarType {
  return weighted(ctx.rng, ctx.s.elemTypes.map((t) => [t, t === 'f64' || t === 'i32' ? 3 : 1] as const));
}

/**
 * The main operand of a combinator: usually a recent array (chains), sometimes any (fan-out),
 * and often one that nothing reads yet, so that few nodes end up as dead code.
 */
function pickOperand(ctx: Ctx, arrays: readonly Arr[]): Arr {
  const unread = arrays.filter((a) => a.local && !ctx.used.has(a.name));
  return unread.length > 0 && chance(ctx.rng, 0.35) ? pickRecent(ctx.rng, unread) : pickRecent(ctx.rng, arrays);
}

function numeric(t: ScalarType): boolean {
  return t !== 'bool';
}

/** Up to `extra` more arrays of `first`'s shape, for multi-component operands. */
function withSameShape(ctx: Ctx, b: BlockState, first: Arr, extra: number, filter: (a: Arr) => boolean = () => true): Arr[] {
  const others = b.arrays.filter((a) => a !== first && sameShape(a.shape, first.shape) && filter(a));
  return [first, ...sample(ctx.rng, others, Math.min(extra, others.length))];
}

// ---------------------------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------------------------

interface ShapeChoice {
  readonly exprs: readonly Expr[];
  readonly extents: readonly number[];
}

/** The shape of an existing array, as `dim` expressions. */
function shapeOf(a: Arr): ShapeChoice {
  return { exprs: a.shape.map((_, k) => dimE(a.name, k)), extents: a.shape };
}

/** A shape of rank ≥ 1: usually an existing array's (so maps can join them), else new. */
function randomShape(ctx: Ctx, b: BlockState): ShapeChoice {
  const { rng, s } = ctx;
  const ranked = b.arrays.filter((a) => a.shape.length > 0);
  if (ranked.length > 0 && chance(rng, 0.6)) return shapeOf(pickRecent(rng, ranked));
  const rank = rng.int(1, s.maxRank);
  const exprs: Expr[] = [];
  const extents: number[] = [];
  for (let k = 0; k < rank; k++) {
    const room = Math.floor(s.maxElements / elements(extents));
    const fromDim = ranked.filter((a) => a.shape.some((d) => d <= room));
    if (fromDim.length > 0 && chance(rng, 0.5)) {
      const a = pick(rng, fromDim);
      const axes = a.shape.map((d, axis) => ({ d, axis })).filter(({ d }) => d <= room);
      const { d, axis } = pick(rng, axes);
      exprs.push(dimE(a.name, axis));
      extents.push(d);
    } else if (room >= s.extentMin || k === 0) {
      const d = Math.max(1, rng.int(s.extentMin, Math.max(s.extentMin, Math.min(s.extentMax, room))));
      exprs.push(constE('i32', d));
      extents.push(d);
    } else break;
  }
  return { exprs, extents };
}

/** A shape for inputs: rank 1 … maxRank within the element budget. */
function inputShape(ctx: Ctx): number[] {
  const { rng, s } = ctx;
  const rank = rng.int(1, s.maxRank);
  const shape: number[] = [];
  for (let k = 0; k < rank; k++) {
    const room = Math.floor(s.maxElements / elements(shape));
    if (room < s.extentMin && k > 0) break;
    shape.push(Math.max(1, rng.int(Math.min(s.extentMin, room), Math.max(1, Math.min(s.extentMax, room)))));
  }
  return shape;
}

// ---------------------------------------------------------------------------------------------
// Recipes: each emits one combinator plus any helper nodes it needs (index arrays, a fresh
// scatter destination). `cost` is how many nodes it may emit at most for the budget given.
// ---------------------------------------------------------------------------------------------

function genMap(ctx: Ctx, b: BlockState): void {
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

function genGenerate(ctx: Ctx, b: BlockState): void {
  const { rng } = ctx;
  const shape = randomShape(ctx, b);
  const ps = params(ctx, 'i', shape.exprs.map(() => 'i32' as const));
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
 */
function genIndexArrays(ctx: Ctx, b: BlockState, over: Arr | ShapeChoice, target: Arr): Arr[] {
  const { rng } = ctx;
  const bounds = target.shape;
  const viaMap = 'name' in over && chance(rng, 0.6);
  const shape = 'name' in over ? over.shape : over.extents;
  const outs = newArrs(ctx, 'idx', bounds.map(() => 'i32' as const), shape, bounds);
  if (viaMap) {
    const ps = params(ctx, 'x', [over.elem]);
    const scope = exprScope(b, ps, 0.05);
    const results = bounds.map((_, k) => modPositive(randomExpr(rng, scope, 'i32', rng.int(1, 2)), dimE(target.name, k)));
    emit(ctx, b, {
      kind: 'map', id: ctx.nextId++, outs: outVars(outs), span: noSpan,
      inputs: use(ctx, [over]), fn: { params: ps, lets: [], results },
    }, outs);
  } else {
    const choice = 'name' in over ? shapeOf(over) : over;
    const ps = params(ctx, 'i', choice.exprs.map(() => 'i32' as const));
    const scope = exprScope(b, ps, 0.05);
    const results = bounds.map((_, k) => modPositive(randomExpr(rng, scope, 'i32', rng.int(1, 2)), dimE(target.name, k)));
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

function genGather(ctx: Ctx, b: BlockState, budget: number): boolean {
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

function genScatter(ctx: Ctx, b: BlockState, budget: number): boolean {
  const { rng } = ctx;
  if (budget < 2) return false;
  const op = weighted(rng, [['add', 3], ['max', 2], ['replace', 2]] as const);
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
    const ps = params(ctx, 'i', shape.exprs.map(() => 'i32' as const));
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
    const ps = params(ctx, 'i', shape.exprs.map(() => 'i32' as const));
    index = newArrs(ctx, 'idx', d0.shape.map(() => 'i32' as const), v0.shape, d0.shape);
    emit(ctx, b, {
      kind: 'generate', id: ctx.nextId++, outs: outVars(index), span: noSpan, shape: shape.exprs,
      fn: { params: ps, lets: [], results: ps.map((p, k) => bijection(ctx, varE(p.name, 'i32'), dimE(d0.name, k))) },
    }, index);
  } else {
    index = genIndexArrays(ctx, b, v0, d0);
  }
  const outs = newArrs(ctx, 'sc', elems, d0.shape);
  const destNames = use(ctx, dest);
  emit(ctx, b, {
    kind: 'scatter', id: ctx.nextId++, outs: outVars(outs), span: noSpan,
    op: scatterLambda(ctx, op, elems), dest: destNames, index: use(ctx, index), values: use(ctx, values),
  }, outs);
  // The scatter is the destination's last use: nothing after it may read it, not even through
  // an array-level scalar that indexed it earlier.
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

function genReduce(ctx: Ctx, b: BlockState, kind: 'fold' | 'scanl' | 'scanr'): boolean {
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

function genForce(ctx: Ctx, b: BlockState): void {
  const input = withSameShape(ctx, b, pickOperand(ctx, b.arrays), chance(ctx.rng, 0.2) ? 1 : 0);
  const outs = newArrs(ctx, 'fc', input.map((a) => a.elem), input[0]!.shape, input.map((a) => a.indexBound));
  emit(ctx, b, { kind: 'force', id: ctx.nextId++, outs: outVars(outs), span: noSpan, input: use(ctx, input) }, outs);
}

/** The arrays an expression reads by indexing, directly or through the scalars it mentions. */
function exprReads(e: Expr, scalars: readonly ScalarVar[]): Set<VarName> {
  const reads = new Set<VarName>();
  const visit = (x: Expr): void => {
    switch (x.kind) {
      case 'const':
      case 'dim':
        return;
      case 'var':
        for (const r of scalars.find((v) => v.name === x.name)?.reads ?? []) reads.add(r);
        return;
      case 'unary':
      case 'call':
      case 'cast':
        visit(x.arg);
        return;
      case 'binary':
        visit(x.lhs);
        visit(x.rhs);
        return;
      case 'select':
        visit(x.cond);
        visit(x.then);
        visit(x.else);
        return;
      case 'index':
        reads.add(x.array);
        x.indices.forEach(visit);
        return;
      default:
        x satisfies never;
    }
  };
  visit(e);
  return reads;
}

/** `s = e` at array level, usually reading an array element (`s = xs[0] * 2`). */
function genScalarStmt(ctx: Ctx, b: BlockState): void {
  const type = randomElem(ctx);
  const name = fresh(ctx, 's');
  const expr = randomExpr(ctx.rng, exprScope(b, [], 0.7), type, 2);
  b.stmts.push({ kind: 'scalar', name, expr, span: noSpan });
  b.scalars.push({ name, type, reads: exprReads(expr, b.scalars) });
  b.scalarStmts++;
}

// ---------------------------------------------------------------------------------------------
// Control flow
// ---------------------------------------------------------------------------------------------

/** The final node of a nested block: a map producing an array of `like`'s type and shape. */
function genFinisher(ctx: Ctx, b: BlockState, like: Arr, firstInput?: Arr): Arr {
  const { rng } = ctx;
  const shaped = b.arrays.filter((a) => sameShape(a.shape, like.shape));
  const first = firstInput ?? pickRecent(rng, shaped);
  const inputs = withSameShape(ctx, b, first, rng.int(0, 1));
  const ps = params(ctx, 'x', inputs.map((a) => a.elem));
  const [out] = newArrs(ctx, 'm', [like.elem], like.shape);
  emit(ctx, b, {
    kind: 'map', id: ctx.nextId++, outs: outVars([out!]), span: noSpan,
    inputs: use(ctx, inputs), fn: randomLambda(ctx, b, ps, [like.elem]),
  }, [out!]);
  return out!;
}

function genIf(ctx: Ctx, b: BlockState, budget: number): boolean {
  const { rng } = ctx;
  const templates = sample(rng, b.arrays, rng.int(1, Math.min(2, Math.floor((budget - 1) / 2))));
  const spare = rng.int(0, Math.min(6, budget - 1 - 2 * templates.length));
  const thenSpare = rng.int(0, spare);
  const scope = exprScope(b, [], 0.6);
  const t = pick(rng, ['f64', 'i32'] as const);
  const cond = bin(pick(rng, ['<', '>=', '=='] as const), randomExpr(rng, scope, t, 2), randomExpr(rng, scope, t, 1));
  const branch = (extra: number): Block => {
    const child = childBlock(b);
    genSteps(ctx, child, extra);
    const results = templates.map((like) => genFinisher(ctx, child, like).name);
    return { params: [], stmts: child.stmts, results };
  };
  const thenBlock = branch(thenSpare);
  const elseBlock = branch(spare - thenSpare);
  const outArrs = templates.map((like) => newArrs(ctx, 'if', [like.elem], like.shape)[0]!);
  b.stmts.push({
    kind: 'if', id: ctx.nextId++, cond, then: thenBlock, else: elseBlock,
    outs: outArrs.map((a): Value => ({ kind: 'array', name: a.name, elem: a.elem, rank: a.shape.length })), span: noSpan,
  });
  b.arrays.push(...outArrs);
  ctx.nodes++;
  for (const a of templates) ctx.used.add(a.name);
  return true;
}

function genWhile(ctx: Ctx, b: BlockState, budget: number): boolean {
  const { rng } = ctx;
  const carried = sample(rng, b.arrays, rng.int(1, Math.min(2, budget - 1)));
  const spare = rng.int(0, Math.min(5, budget - 1 - carried.length));
  const counter0 = fresh(ctx, 'c');
  b.stmts.push({ kind: 'scalar', name: counter0, expr: constE('i32', 0), span: noSpan });
  // A carried array is not known to hold in-range indices: later iterations see the body's values.
  const arrayParam = (a: Arr, prefix: string): Arr => ({
    name: fresh(ctx, prefix), elem: a.elem, shape: a.shape, group: `p${ctx.nextName}`, local: false,
  });
  const paramValues = (counter: VarName, arrs: readonly Arr[]): Value[] => [
    { kind: 'scalar', name: counter, elem: 'i32' },
    ...arrs.map((a): Value => ({ kind: 'array', name: a.name, elem: a.elem, rank: a.shape.length })),
  ];
  // cond: counter < K, K small, so the loop always ends.
  const condCounter = fresh(ctx, 'c');
  const condArrays = carried.map((a) => arrayParam(a, 'wc'));
  const test = fresh(ctx, 'b');
  const condBlock: Block = {
    params: paramValues(condCounter, condArrays),
    stmts: [{ kind: 'scalar', name: test, expr: bin('<', varE(condCounter, 'i32'), constE('i32', rng.int(0, 3))), span: noSpan }],
    results: [test],
  };
  // body: counter + 1, random steps, then the next value of each carried array.
  const body = childBlock(b);
  const bodyCounter = fresh(ctx, 'c');
  const bodyArrays = carried.map((a) => arrayParam(a, 'wb'));
  body.arrays.push(...bodyArrays);
  body.scalars.push({ name: bodyCounter, type: 'i32', reads: new Set() });
  const nextCounter = fresh(ctx, 'c');
  body.stmts.push({ kind: 'scalar', name: nextCounter, expr: bin('+', varE(bodyCounter, 'i32'), constE('i32', 1)), span: noSpan });
  genSteps(ctx, body, spare);
  const next = bodyArrays.map((p) => genFinisher(ctx, body, p, p).name);
  const bodyBlock: Block = { params: paramValues(bodyCounter, bodyArrays), stmts: body.stmts, results: [nextCounter, ...next] };
  const counterOut = fresh(ctx, 'c');
  const outArrs = carried.map((a) => newArrs(ctx, 'w', [a.elem], a.shape)[0]!);
  b.stmts.push({
    kind: 'while', id: ctx.nextId++, init: [counter0, ...use(ctx, carried)], cond: condBlock, body: bodyBlock,
    outs: paramValues(counterOut, outArrs), span: noSpan,
  });
  b.arrays.push(...outArrs);
  b.scalars.push({ name: counterOut, type: 'i32', reads: new Set() });
  ctx.nodes++;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Blocks and programs
// ---------------------------------------------------------------------------------------------

type Recipe = 'map' | 'generate' | 'gather' | 'scatter' | 'fold' | 'scanl' | 'scanr' | 'force' | 'if' | 'while';

/** Emits statements into `b` until exactly `budget` more graph nodes exist. */
function genSteps(ctx: Ctx, b: BlockState, budget: number): void {
  const { rng } = ctx;
  const target = ctx.nodes + budget;
  while (ctx.nodes < target) {
    const left = target - ctx.nodes;
    if (b.scalarStmts < 3 && chance(rng, 0.1)) genScalarStmt(ctx, b);
    const nested = ctx.s.controlFlow && b.depth < 2;
    const recipe = weighted<Recipe>(rng, [
      ['map', 30], ['generate', 8], ['gather', 16], ['scatter', left >= 2 ? 6 : 0], ['fold', 8], ['scanl', 4],
      ['scanr', 3], ['force', 3], ['if', nested && left >= 3 ? 2 : 0], ['while', nested && left >= 2 ? 2 : 0],
    ]);
    switch (recipe) {
      case 'map':
        genMap(ctx, b);
        break;
      case 'generate':
        genGenerate(ctx, b);
        break;
      case 'gather':
        if (!genGather(ctx, b, left)) genMap(ctx, b);
        break;
      case 'scatter':
        if (!genScatter(ctx, b, left)) genMap(ctx, b);
        break;
      case 'fold':
      case 'scanl':
      case 'scanr':
        if (!genReduce(ctx, b, recipe)) genMap(ctx, b);
        break;
      case 'force':
        genForce(ctx, b);
        break;
      case 'if':
        genIf(ctx, b, left);
        break;
      case 'while':
        genWhile(ctx, b, left);
        break;
      default:
        recipe satisfies never;
    }
  }
}

function settings(o: GeneratorOptions): Settings {
  const extents = o.extents ?? { min: 1, max: 6 };
  if (extents.min < 1 || extents.max < extents.min) throw new Error(`bad extents ${extents.min} … ${extents.max}`);
  return {
    extentMin: extents.min,
    extentMax: extents.max,
    maxElements: Math.max(1, o.maxElements ?? 216),
    maxRank: Math.min(3, Math.max(1, o.maxRank ?? 3)),
    controlFlow: o.controlFlow ?? true,
    elemTypes: o.elemTypes && o.elemTypes.length > 0 ? o.elemTypes : ['f64', 'f32', 'i32', 'u32', 'bool'],
  };
}

/** Entry parameters: 1–3 arrays (sometimes one array of pairs) and sometimes a scalar. */
function genInputs(ctx: Ctx, top: BlockState, dataRng: Rng): { params: Interface[]; values: InterfaceValue[] } {
  const { rng } = ctx;
  const shapes = [inputShape(ctx)];
  if (chance(rng, 0.4)) shapes.push(inputShape(ctx));
  const interfaces: Interface[] = [];
  const values: InterfaceValue[] = [];
  const count = rng.int(1, 3);
  for (let k = 0; k < count; k++) {
    const name = `in${k}`;
    const shape = chance(rng, 0.8) ? pick(rng, shapes) : inputShape(ctx);
    const elems = chance(rng, 0.2) ? [randomElem(ctx), randomElem(ctx)] : [randomElem(ctx)];
    const names = elems.length === 1 ? [name] : elems.map((_, c) => `${name}_${c}`);
    const arrs = elems.map((elem, c): Arr => ({ name: names[c]!, elem, shape, group: name, local: false }));
    top.arrays.push(...arrs);
    interfaces.push({ name, components: arrs.map((a): Value => ({ kind: 'array', name: a.name, elem: a.elem, rank: shape.length })) });
    const data = arrs.map((a) => randomArray(dataRng, a.elem, shape));
    values.push(data.length === 1 ? data[0]! : data);
  }
  if (chance(rng, 0.3)) {
    const elem = randomElem(ctx);
    const name = `k${count}`;
    top.scalars.push({ name, type: elem, reads: new Set() });
    interfaces.push({ name, components: [{ kind: 'scalar', name, elem }] });
    values.push(randomScalar(dataRng, elem));
  }
  return { params: interfaces, values };
}

/** 1–3 results: mostly arrays nothing reads, sometimes an intermediate one or an input. */
function chooseResults(ctx: Ctx, top: BlockState): Arr[][] {
  const { rng } = ctx;
  const visible = top.arrays;
  const sinks = visible.filter((a) => a.local && !ctx.used.has(a.name)).reverse();
  const chosen: Arr[][] = [];
  const taken = new Set<VarName>();
  const want = rng.int(1, 3);
  for (let k = 0; k < want; k++) {
    const free = (a: Arr): boolean => !taken.has(a.name);
    const kind = weighted(rng, [['sink', 8], ['intermediate', 2], ['input', 1]] as const);
    const pool =
      kind === 'sink' ? sinks.filter(free)
        : kind === 'intermediate' ? visible.filter((a) => a.local && ctx.used.has(a.name) && free(a))
          : visible.filter((a) => !a.local && free(a));
    const fallback = visible.filter(free);
    const a = pool.length > 0 ? (kind === 'sink' ? pool[0]! : pick(rng, pool)) : fallback.length > 0 ? pickRecent(rng, fallback) : undefined;
    if (a === undefined) break;
    // The whole group (an array of tuples) when all its components are still there.
    const group = visible.filter((g) => g.group === a.group && free(g));
    const result = group.length > 1 && chance(rng, 0.5) ? group : [a];
    for (const r of result) taken.add(r.name);
    chosen.push(result);
  }
  return chosen;
}

function targetNodes(rng: Rng, o: GeneratorOptions): number {
  const c = o.combinators ?? { min: 1, max: 7 };
  const n = typeof c === 'number' ? c : rng.int(Math.max(1, c.min), Math.max(1, c.min, c.max));
  return Math.max(1, n);
}

/** Graph nodes (combinators and if/while) of a block, nested blocks included. */
export function countNodes(block: Block): number {
  let n = 0;
  for (const s of block.stmts) {
    switch (s.kind) {
      case 'scalar':
        break;
      case 'if':
        n += 1 + countNodes(s.then) + countNodes(s.else);
        break;
      case 'while':
        n += 1 + countNodes(s.cond) + countNodes(s.body);
        break;
      case 'generate':
      case 'map':
      case 'gather':
      case 'scatter':
      case 'fold':
      case 'scanl':
      case 'scanr':
      case 'force':
        n += 1;
        break;
      default:
        s satisfies never;
    }
  }
  return n;
}

/** The components of an entry or result value (one, or several for an array of tuples). */
export function components(v: InterfaceValue): readonly RuntimeValue[] {
  return 'kind' in v ? [v as RuntimeValue] : (v as readonly RuntimeValue[]);
}

function describe(program: Program, inputs: readonly InterfaceValue[]): string {
  const kinds = new Map<string, number>();
  const walk = (block: Block): void => {
    for (const s of block.stmts) {
      if (s.kind === 'scalar') continue;
      kinds.set(s.kind, (kinds.get(s.kind) ?? 0) + 1);
      if (s.kind === 'if') [s.then, s.else].forEach(walk);
      if (s.kind === 'while') [s.cond, s.body].forEach(walk);
    }
  };
  walk(program.body);
  const shapeText = (v: InterfaceValue): string =>
    components(v).map((p) => (p.kind === 'array' ? `${p.elem}[${p.shape.join(',')}]` : p.elem)).join('×');
  const mix = [...kinds].map(([k, n]) => `${k}×${n}`).join(' ');
  const ins = program.params.map((p, k) => `${p.name}: ${shapeText(inputs[k]!)}`).join(', ');
  const outs = program.results.map((r) => `${r.name} = ${r.components.map((c) => c.name).join(', ')}`).join('; ');
  return `${countNodes(program.body)} nodes (${mix}); inputs ${ins}; ${outs}`;
}

/** Generates one program and matching inputs, drawing every decision from `rng`. */
export function generateCase(rng: Rng, options: GeneratorOptions = {}): GeneratedCase {
  const ctx: Ctx = { rng, s: settings(options), nextName: 0, nextId: 0, nodes: 0, used: new Set() };
  const top: BlockState = { depth: 0, arrays: [], scalars: [], stmts: [], scalarStmts: 0 };
  const target = targetNodes(rng, options);
  // Input data come from their own seeded stream: under fast-check one draw, not one per element.
  const dataRng = seededRng(rng.int(0, 0x7fffffff));
  const { params: entry, values } = genInputs(ctx, top, dataRng);
  genSteps(ctx, top, target);
  const chosen = chooseResults(ctx, top);
  const results = chosen.map((arrs, k): Interface => ({
    name: `result${k}`,
    components: arrs.map((a): Value => ({ kind: 'array', name: a.name, elem: a.elem, rank: a.shape.length })),
  }));
  const program: Program = {
    name: 'generated',
    params: entry,
    body: { params: entry.flatMap((p) => p.components), stmts: top.stmts, results: results.flatMap((r) => r.components.map((c) => c.name)) },
    results,
  };
  return {
    program,
    inputs: values,
    description: describe(program, values),
    resultShapes: chosen.map((arrs) => arrs.map((a) => a.shape)),
  };
}
