// Random well-typed, well-scoped core IR programs with matching inputs.
//
// The generator builds a Program statement by statement, tracking for every visible array its
// element type and its *concrete* shape (the inputs are generated first, and every shape in
// the program derives from theirs), so that it only ever combines arrays whose shapes agree and
// only ever indexes in range. Nothing it makes can fail at run time:
//  - gather and scatter indices are `e % dim(target, k)` with floor modulo (in [0, n) for n ≥ 1;
//    every extent is ≥ 1), or arrays already known to hold indices below an extent; a dropping
//    scatter's (option dropScatters) reach one past either edge, and those updates are dropped;
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
import type { Block, Interface, Program, ScalarType, Value, VarName } from '../../src/ir/types.js';
import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import { bin, constE, randomExpr, varE } from './exprGen.js';
import { genForce, genGather, genGenerate, genMap, genReduce, genScalarStmt, genScatter } from './genCombinators.js';
import {
  type Arr, type BlockState, type Ctx, type Settings, childBlock, emit, exprScope, fresh, inputShape, newArrs, outVars, params,
  randomElem, randomLambda, sameShape, use, withSameShape,
} from './genState.js';
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
  /**
   * Sometimes let later nodes read a scatter's destination, which then gets lowering's copy
   * (an elidable copy when the later reads are by nodes: docs/PLANNING.md "In-place updates").
   * Default false: the programs of every seed stay what they were.
   */
  readonly readAfterScatter?: boolean;
  /**
   * Make about half the scatters dropping ones (`drop: true`, the user's `scatterDrop` and the
   * prelude's `hist`), their indices reaching one below or beyond the destination's edges.
   * Default false, for the same reason.
   */
  readonly dropScatters?: boolean;
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

function genIf(ctx: Ctx, b: BlockState, budget: number): void {
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
}

function genWhile(ctx: Ctx, b: BlockState, budget: number): void {
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
    readAfterScatter: o.readAfterScatter ?? false,
    dropScatters: o.dropScatters ?? false,
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
