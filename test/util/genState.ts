// Generation state shared by the program generator's recipes: the arrays and scalars visible
// in the block being built (with their concrete shapes), fresh names, and small helpers to
// emit nodes and to choose operands and shapes. All of it lives for one `generateCase` call.

import type { ArrayVar, CombinatorNode, Expr, Lambda, Param, ScalarType, Stmt, VarName } from '../../src/ir/types.js';
import { type ExprScope, constE, dimE, randomExpr, randomResult } from './exprGen.js';
import { type Rng, chance, pick, pickRecent, sample, weighted } from './rng.js';

export interface Settings {
  readonly extentMin: number;
  readonly extentMax: number;
  readonly maxElements: number;
  readonly maxRank: number;
  readonly controlFlow: boolean;
  /** GeneratorOptions.readAfterScatter. */
  readonly readAfterScatter: boolean;
  /** GeneratorOptions.dropScatters. */
  readonly dropScatters: boolean;
  readonly elemTypes: readonly ScalarType[];
}

/** A visible array with its concrete shape. */
export interface Arr {
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
export interface ScalarVar {
  readonly name: VarName;
  readonly type: ScalarType;
  readonly reads: ReadonlySet<VarName>;
}

/** Per-run state; lives only for one `generateCase` call. */
export interface Ctx {
  readonly rng: Rng;
  readonly s: Settings;
  nextName: number;
  nextId: number;
  nodes: number;
  /** Arrays read as ordered operands somewhere: used to prefer unread arrays as results. */
  readonly used: Set<VarName>;
}

/** The block under construction: what is visible in it and what it has emitted so far. */
export interface BlockState {
  readonly depth: number;
  arrays: Arr[];
  scalars: ScalarVar[];
  readonly stmts: Stmt[];
  scalarStmts: number;
}

export function fresh(ctx: Ctx, prefix: string): VarName {
  return `${prefix}${ctx.nextName++}`;
}

export function childBlock(parent: BlockState): BlockState {
  return {
    depth: parent.depth + 1,
    arrays: parent.arrays.map((a) => ({ ...a, local: false })),
    scalars: [...parent.scalars],
    stmts: [],
    scalarStmts: 0,
  };
}

export function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

export function elements(shape: readonly number[]): number {
  return shape.reduce((n, d) => n * d, 1);
}

export function exprScope(b: BlockState, lambdaVars: readonly Param[], indexChance: number): ExprScope {
  return { vars: [...lambdaVars, ...b.scalars], arrays: b.arrays, indexChance };
}

export function emit(ctx: Ctx, b: BlockState, stmt: CombinatorNode, outs: readonly Arr[]): void {
  b.stmts.push(stmt);
  b.arrays.push(...outs);
  ctx.nodes++;
}

export function use(ctx: Ctx, arrays: readonly Arr[]): VarName[] {
  for (const a of arrays) ctx.used.add(a.name);
  return arrays.map((a) => a.name);
}

export function outVars(arrs: readonly Arr[]): ArrayVar[] {
  return arrs.map((a) => ({ name: a.name, elem: a.elem, rank: a.shape.length }));
}

export function newArrs(ctx: Ctx, prefix: string, elems: readonly ScalarType[], shape: readonly number[], bounds?: readonly (number | undefined)[]): Arr[] {
  const group = `g${ctx.nextName}`;
  return elems.map((elem, k) => {
    const bound = bounds?.[k];
    return { name: fresh(ctx, prefix), elem, shape, group, local: true, ...(bound === undefined ? {} : { indexBound: bound }) };
  });
}

export function params(ctx: Ctx, prefix: string, types: readonly ScalarType[]): Param[] {
  return types.map((type) => ({ name: fresh(ctx, prefix), type }));
}

/** A lambda over `ps` with optional element-level lets, one result per type. */
export function randomLambda(ctx: Ctx, b: BlockState, ps: readonly Param[], resultTypes: readonly ScalarType[], indexChance = 0.06): Lambda {
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

export function randomElem(ctx: Ctx): ScalarType {
  return weighted(ctx.rng, ctx.s.elemTypes.map((t) => [t, t === 'f64' || t === 'i32' ? 3 : 1] as const));
}

/**
 * The main operand of a combinator: usually a recent array (chains), sometimes any (fan-out),
 * and often one that nothing reads yet, so that few nodes end up as dead code.
 */
export function pickOperand(ctx: Ctx, arrays: readonly Arr[]): Arr {
  const unread = arrays.filter((a) => a.local && !ctx.used.has(a.name));
  return unread.length > 0 && chance(ctx.rng, 0.35) ? pickRecent(ctx.rng, unread) : pickRecent(ctx.rng, arrays);
}

export function numeric(t: ScalarType): boolean {
  return t !== 'bool';
}

/** Up to `extra` more arrays of `first`'s shape, for multi-component operands. */
export function withSameShape(ctx: Ctx, b: BlockState, first: Arr, extra: number, filter: (a: Arr) => boolean = () => true): Arr[] {
  const others = b.arrays.filter((a) => a !== first && sameShape(a.shape, first.shape) && filter(a));
  return [first, ...sample(ctx.rng, others, Math.min(extra, others.length))];
}

// ---------------------------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------------------------

export interface ShapeChoice {
  readonly exprs: readonly Expr[];
  readonly extents: readonly number[];
}

/** The shape of an existing array, as `dim` expressions. */
export function shapeOf(a: Arr): ShapeChoice {
  return { exprs: a.shape.map((_, k) => dimE(a.name, k)), extents: a.shape };
}

/** A shape of rank ≥ 1: usually an existing array's (so maps can join them), else new. */
export function randomShape(ctx: Ctx, b: BlockState): ShapeChoice {
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
export function inputShape(ctx: Ctx): number[] {
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

export function exprReads(e: Expr, scalars: readonly ScalarVar[]): Set<VarName> {
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