// The IR verifier: checks every invariant the core IR promises (./types.ts) and throws a
// CompilerBug naming the pass that broke it.
//
// Run after lowering, after each pass when asked (./passes.ts), and on every program read from JSON
// (where a failure is the user's, see ./json.ts). Checked: SSA (every name bound once in the
// whole program), scoping (uses after definitions; blocks see enclosing names, lambdas their
// own params and lets), expression types by the rules of ./scalarOps.ts, combinator arities
// and ranks, unique node ids, a scatter's in-place update unobservable (./updates.ts), and
// results bound.

import { CompilerBug } from '../diagnostics/index.js';
import { binaryResultType, isFloat, isInteger, wrap } from './scalarOps.js';
import { isCombinator, type Block, type CombinatorNode, type Expr, type Lambda, type Program, type ScalarType, type Stmt, type Value, type VarName } from './types.js';
import { stmtDefs } from './walk.js';
import { inPlaceHazards, inPlaceUpdateOf, loopOwnedParams } from './updates.js';

type Binding = { readonly kind: 'array'; readonly elem: ScalarType; readonly rank: number } | { readonly kind: 'scalar'; readonly elem: ScalarType };

interface Scope {
  readonly vars: Map<VarName, Binding>;
  readonly parent: Scope | null;
}

/** State of one verification: names and ids seen anywhere in the program. */
interface Ctx {
  readonly names: Set<VarName>;
  readonly ids: Set<number>;
  readonly inPlaceUpdates: boolean;
  /** The entry block and its donated parameter components: updating one in place is allowed. */
  readonly entry: Block | null;
  readonly donated: ReadonlySet<VarName>;
  /** Per `while` body: its loop-owned parameters (./updates.ts `loopOwnedParams`), which its in-place updates may write. */
  readonly loopOwned: Map<Block, ReadonlySet<VarName>>;
}

/** Which of the IR's promises to check: all of them, unless a pass runs before one is kept. */
export interface VerifyOptions {
  /**
   * Check that every scatter's in-place update is unobservable (./updates.ts). Default true;
   * false only for IR of a lowering run before its copy insertion (src/lower/finish.ts), which
   * is where that promise starts to hold.
   */
  readonly inPlaceUpdates?: boolean;
}

/** A broken invariant; becomes a CompilerBug (our IR) or a UserError (a user's JSON). */
class InvalidIr extends Error {}

function fail(message: string): never {
  throw new InvalidIr(message);
}

function child(parent: Scope): Scope {
  return { vars: new Map(), parent };
}

function declare(ctx: Ctx, scope: Scope, name: VarName, binding: Binding, where: string): void {
  if (typeof name !== 'string' || name === '') fail(`${where}: a name must be a non-empty string`);
  if (ctx.names.has(name)) fail(`${where}: ${name} is bound twice (the IR is in SSA form: every name once per program)`);
  ctx.names.add(name);
  scope.vars.set(name, binding);
}

function lookup(ctx: Ctx, scope: Scope, name: VarName, where: string): Binding {
  for (let s: Scope | null = scope; s !== null; s = s.parent) {
    const b = s.vars.get(name);
    if (b !== undefined) return b;
  }
  return fail(`${where}: ${name} is not in scope (used before its definition, or defined in another block)`);
}

function lookupArray(ctx: Ctx, scope: Scope, name: VarName, where: string): { readonly elem: ScalarType; readonly rank: number } {
  const b = lookup(ctx, scope, name, where);
  if (b.kind !== 'array') fail(`${where}: ${name} is a scalar where an array is expected`);
  return b;
}

const isNumeric = (t: ScalarType): boolean => t !== 'bool';

function bindingText(b: Binding): string {
  return b.kind === 'array' ? `${b.elem}[rank ${b.rank}]` : b.elem;
}

/** Checks an expression and returns its type (which equals `e.type`). */
function checkExpr(ctx: Ctx, e: Expr, scope: Scope, where: string): ScalarType {
  const expect = (cond: boolean, message: string): void => {
    if (!cond) fail(`${where}: ${message}`);
  };
  switch (e.kind) {
    case 'const': {
      const fits = Object.is(wrap(e.type, e.value), e.value) || (isFloat(e.type) && Number.isNaN(e.value));
      expect(fits, `constant ${e.value} is not a value of type ${e.type}`);
      return e.type;
    }
    case 'var': {
      const b = lookup(ctx, scope, e.name, where);
      expect(b.kind === 'scalar', `${e.name} is an array used as a scalar`);
      expect(b.elem === e.type, `${e.name} has type ${b.elem} but is used as ${e.type}`);
      return e.type;
    }
    case 'unary': {
      const t = checkExpr(ctx, e.arg, scope, where);
      if (e.op === 'not') expect(t === 'bool' && e.type === 'bool', `not of ${t} typed ${e.type}`);
      else if (e.op === 'bitnot') expect(isInteger(t) && e.type === t, `~ of ${t} typed ${e.type}`);
      else expect(isNumeric(t) && e.type === t, `negation of ${t} typed ${e.type}`);
      return e.type;
    }
    case 'binary': {
      const a = checkExpr(ctx, e.lhs, scope, where);
      const b = checkExpr(ctx, e.rhs, scope, where);
      expect(a === b, `operands of ${e.op} have types ${a} and ${b} (lowering must insert casts)`);
      expect(e.type === binaryResultType(e.op, a), `${a} ${e.op} ${a} is typed ${e.type}, expected ${binaryResultType(e.op, a)}`);
      switch (e.op) {
        case '/':
          expect(isFloat(a), `/ on ${a} (only on f64/f32)`);
          break;
        case 'and':
        case 'or':
          expect(a === 'bool', `${e.op} on ${a} (only on bool)`);
          break;
        case '==':
        case '!=':
          break;
        case '&':
        case '|':
        case '^':
        case '<<':
        case '>>':
          expect(isInteger(a), `${e.op} on ${a} (only on i32/u32/u8/i8)`);
          break;
        default:
          expect(isNumeric(a), `${e.op} on bool`);
      }
      return e.type;
    }
    case 'call': {
      const t = checkExpr(ctx, e.arg, scope, where);
      expect(e.fn === 'abs' ? isNumeric(t) : e.fn === 'popcount' || e.fn === 'clz' ? t === 'i32' || t === 'u32' : isFloat(t), `${e.fn} of ${t}`);
      expect(e.type === t, `${e.fn} of ${t} typed ${e.type}`);
      return e.type;
    }
    case 'cast':
      checkExpr(ctx, e.arg, scope, where);
      expect(e.type === e.to, `cast to ${e.to} typed ${e.type}`);
      return e.type;
    case 'select': {
      const c = checkExpr(ctx, e.cond, scope, where);
      const t = checkExpr(ctx, e.then, scope, where);
      const f = checkExpr(ctx, e.else, scope, where);
      expect(c === 'bool', `select condition of type ${c}`);
      expect(t === f && f === e.type, `select branches of types ${t} and ${f} typed ${e.type}`);
      return e.type;
    }
    case 'index': {
      const a = lookupArray(ctx, scope, e.array, where);
      expect(e.indices.length === a.rank, `${e.array} has rank ${a.rank} but is indexed with ${e.indices.length} indices`);
      e.indices.forEach((i) => expect(checkExpr(ctx, i, scope, where) === 'i32', `an index into ${e.array} is not i32`));
      expect(e.type === a.elem, `${e.array}[…] has type ${a.elem} but is typed ${e.type}`);
      return e.type;
    }
    case 'dim': {
      const a = lookupArray(ctx, scope, e.array, where);
      expect(Number.isInteger(e.axis) && e.axis >= 0 && e.axis < a.rank, `dim(${e.array}, ${e.axis}) of an array of rank ${a.rank}`);
      expect(e.type === 'i32', `dim typed ${e.type}`);
      return e.type;
    }
    default:
      return e satisfies never;
  }
}

/** Checks a lambda against the parameter and result types its combinator gives it. */
function checkLambda(ctx: Ctx, l: Lambda, scope: Scope, params: readonly ScalarType[], results: readonly ScalarType[], where: string): void {
  if (l.params.length !== params.length) fail(`${where}: the lambda takes ${l.params.length} parameters, expected ${params.length}`);
  if (l.results.length !== results.length) fail(`${where}: the lambda returns ${l.results.length} results, expected ${results.length}`);
  const inner = child(scope);
  l.params.forEach((p, i) => {
    if (p.type !== params[i]) fail(`${where}: lambda parameter ${p.name} has type ${p.type}, expected ${params[i]}`);
    declare(ctx, inner, p.name, { kind: 'scalar', elem: p.type }, where);
  });
  for (const b of l.lets) {
    const t = checkExpr(ctx, b.expr, inner, `${where}, let ${b.name}`);
    declare(ctx, inner, b.name, { kind: 'scalar', elem: t }, where);
  }
  l.results.forEach((r, i) => {
    const t = checkExpr(ctx, r, inner, `${where}, result ${i}`);
    if (t !== results[i]) fail(`${where}: lambda result ${i} has type ${t}, expected ${results[i]}`);
  });
}

/** Arrays of one combinator input list: present, arrays, all of one rank; returns them. */
function inputArrays(
  ctx: Ctx,
  scope: Scope,
  names: readonly VarName[],
  what: string,
  where: string,
): readonly { readonly elem: ScalarType; readonly rank: number }[] {
  if (names.length === 0) fail(`${where}: no ${what}`);
  const arrays = names.map((name) => lookupArray(ctx, scope, name, where));
  if (!arrays.every((a) => a.rank === arrays[0]!.rank)) fail(`${where}: ${what} have different ranks`);
  return arrays;
}

function checkOuts(ctx: Ctx, n: CombinatorNode, elems: readonly ScalarType[], rank: number, where: string): void {
  if (n.outs.length !== elems.length) fail(`${where}: ${n.outs.length} outputs, expected ${elems.length}`);
  n.outs.forEach((o, i) => {
    if (o.elem !== elems[i]) fail(`${where}: output ${o.name} has type ${o.elem}, expected ${elems[i]}`);
    if (o.rank !== rank) fail(`${where}: output ${o.name} has rank ${o.rank}, expected ${rank}`);
  });
}

function checkSeeds(ctx: Ctx, init: readonly Expr[], elems: readonly ScalarType[], scope: Scope, where: string): void {
  if (init.length !== elems.length) fail(`${where}: ${init.length} seeds for ${elems.length} components`);
  init.forEach((e, i) => {
    const t = checkExpr(ctx, e, scope, `${where}, seed ${i}`);
    if (t !== elems[i]) fail(`${where}: seed ${i} has type ${t}, expected ${elems[i]}`);
  });
}

function checkCombinator(ctx: Ctx, n: CombinatorNode, scope: Scope): void {
  const where = `${n.kind} #${n.id}`;
  switch (n.kind) {
    case 'generate': {
      n.shape.forEach((e, i) => {
        if (checkExpr(ctx, e, scope, `${where}, size ${i}`) !== 'i32') fail(`${where}: size ${i} is not i32`);
      });
      checkLambda(ctx, n.fn, scope, n.shape.map(() => 'i32'), n.outs.map((o) => o.elem), where);
      checkOuts(ctx, n, n.outs.map((o) => o.elem), n.shape.length, where);
      return;
    }
    case 'map': {
      const ins = inputArrays(ctx, scope, n.inputs, 'inputs', where);
      checkLambda(ctx, n.fn, scope, ins.map((a) => a.elem), n.outs.map((o) => o.elem), where);
      checkOuts(ctx, n, n.outs.map((o) => o.elem), ins[0]!.rank, where);
      return;
    }
    case 'gather': {
      const src = inputArrays(ctx, scope, n.source, 'source components', where);
      const idx = inputArrays(ctx, scope, n.indices, 'index arrays', where);
      if (idx.length !== src[0]!.rank) fail(`${where}: ${idx.length} index arrays for a source of rank ${src[0]!.rank}`);
      if (!idx.every((a) => a.elem === 'i32')) fail(`${where}: index arrays must be i32`);
      checkOuts(ctx, n, src.map((a) => a.elem), idx[0]!.rank, where);
      return;
    }
    case 'scatter': {
      const dest = inputArrays(ctx, scope, n.dest, 'destination components', where);
      const idx = inputArrays(ctx, scope, n.index, 'index arrays', where);
      const vals = inputArrays(ctx, scope, n.values, 'value arrays', where);
      const elems = dest.map((a) => a.elem);
      if (idx.length !== dest[0]!.rank) fail(`${where}: ${idx.length} index arrays for a destination of rank ${dest[0]!.rank}`);
      if (!idx.every((a) => a.elem === 'i32')) fail(`${where}: index arrays must be i32`);
      if (vals.length !== dest.length || !vals.every((a, i) => a.elem === elems[i])) fail(`${where}: value arrays do not match the destination's components`);
      if (vals[0]!.rank !== idx[0]!.rank) fail(`${where}: value arrays have rank ${vals[0]!.rank}, index arrays ${idx[0]!.rank}`);
      checkLambda(ctx, n.op, scope, [...elems, ...elems], elems, where);
      checkOuts(ctx, n, elems, dest[0]!.rank, where);
      // The flag is `true` or absent (a JS caller could build `unique: false`, which would read as a promise to some and not to others).
      if (n.unique !== undefined && (n.unique as unknown) !== true) fail(`${where}: unique must be true or absent`);
      if (n.drop !== undefined && (n.drop as unknown) !== true) fail(`${where}: drop must be true or absent`);
      return;
    }
    case 'fold':
    case 'scanl':
    case 'scanr': {
      const ins = inputArrays(ctx, scope, n.input, 'input components', where);
      const elems = ins.map((a) => a.elem);
      const rank = ins[0]!.rank;
      if (rank < 1) fail(`${where}: input of rank 0 (needs rank ≥ 1)`);
      if (n.init !== null) checkSeeds(ctx, n.init, elems, scope, where);
      checkLambda(ctx, n.op, scope, [...elems, ...elems], elems, where);
      checkOuts(ctx, n, elems, n.kind === 'fold' ? rank - 1 : rank, where);
      return;
    }
    case 'force': {
      const ins = inputArrays(ctx, scope, n.input, 'input components', where);
      checkOuts(ctx, n, ins.map((a) => a.elem), ins[0]!.rank, where);
      return;
    }
    default:
      n satisfies never;
  }
}

function valueBinding(v: Value): Binding {
  return v.kind === 'array' ? { kind: 'array', elem: v.elem, rank: v.rank } : { kind: 'scalar', elem: v.elem };
}

function sameBinding(a: Binding, b: Binding): boolean {
  return a.kind === b.kind && a.elem === b.elem && (a.kind === 'scalar' || (b.kind === 'array' && a.rank === b.rank));
}

/** Checks a block in a scope of its own; returns the bindings of its results. */
function checkBlock(ctx: Ctx, b: Block, parent: Scope, where: string): readonly Binding[] {
  const scope = child(parent);
  for (const p of b.params) declare(ctx, scope, p.name, valueBinding(p), `${where}, parameters`);
  const given = b === ctx.entry ? ctx.donated : (ctx.loopOwned.get(b) ?? new Set<VarName>());
  b.stmts.forEach((s, i) => {
    // The rule of the enclosing block decides which carried arrays the body may update in place.
    if (s.kind === 'while' && ctx.inPlaceUpdates) ctx.loopOwned.set(s.body, loopOwnedParams(b, i));
    checkStmt(ctx, s, scope);
    if (isCombinator(s) && inPlaceUpdateOf(s) !== null && ctx.inPlaceUpdates) checkInPlace(b, i, `${s.kind} #${s.id}`, given);
  });
  return b.results.map((name) => lookup(ctx, scope, name, `${where}, results`));
}

/** The scatter updates its destination in place, so nothing may observe that (ir/updates.ts). */
function checkInPlace(b: Block, k: number, where: string, donated: ReadonlySet<VarName>): void {
  const hazards = inPlaceHazards(b, k, donated);
  if (hazards.length > 0) fail(`${where} updates its destination in place, but ${hazards.map((h) => h.message).join('; ')}`);
}

function expectResults(ctx: Ctx, got: readonly Binding[], outs: readonly Value[], where: string): void {
  if (got.length !== outs.length) fail(`${where}: ${got.length} results for ${outs.length} outputs`);
  outs.forEach((o, i) => {
    if (!sameBinding(got[i]!, valueBinding(o))) fail(`${where}: result ${i} is ${bindingText(got[i]!)}, output ${o.name} is ${bindingText(valueBinding(o))}`);
  });
}

function checkStmt(ctx: Ctx, s: Stmt, scope: Scope): void {
  if (s.kind !== 'scalar') {
    if (!Number.isInteger(s.id)) fail(`${s.kind}: node id ${s.id} is not an integer`);
    if (ctx.ids.has(s.id)) fail(`${s.kind} #${s.id}: node id ${s.id} is used twice`);
    ctx.ids.add(s.id);
  }
  switch (s.kind) {
    case 'scalar':
      checkExpr(ctx, s.expr, scope, `scalar ${s.name}`);
      break;
    case 'if': {
      const where = `if #${s.id}`;
      if (checkExpr(ctx, s.cond, scope, where) !== 'bool') fail(`${where}: condition is not bool`);
      if (s.then.params.length > 0 || s.else.params.length > 0) fail(`${where}: branches take no parameters`);
      expectResults(ctx, checkBlock(ctx, s.then, scope, `${where} then`), s.outs, `${where} then`);
      expectResults(ctx, checkBlock(ctx, s.else, scope, `${where} else`), s.outs, `${where} else`);
      break;
    }
    case 'while': {
      const where = `while #${s.id}`;
      const init = s.init.map((name) => lookup(ctx, scope, name, where));
      const carried = s.outs.map(valueBinding);
      if (init.length !== carried.length) fail(`${where}: ${init.length} initial values for ${carried.length} outputs`);
      init.forEach((b, i) => {
        if (!sameBinding(b, carried[i]!)) fail(`${where}: initial value ${s.init[i]} is ${bindingText(b)}, output ${s.outs[i]!.name} is ${bindingText(carried[i]!)}`);
      });
      for (const [name, blk] of [['cond', s.cond], ['body', s.body]] as const) {
        if (blk.params.length !== carried.length || !blk.params.every((p, i) => sameBinding(valueBinding(p), carried[i]!))) {
          fail(`${where} ${name}: its parameters do not match the loop-carried values`);
        }
      }
      const go = checkBlock(ctx, s.cond, scope, `${where} cond`);
      if (go.length !== 1 || !sameBinding(go[0]!, { kind: 'scalar', elem: 'bool' })) fail(`${where} cond: must return one bool scalar`);
      expectResults(ctx, checkBlock(ctx, s.body, scope, `${where} body`), s.outs, `${where} body`);
      break;
    }
    case 'generate':
    case 'map':
    case 'gather':
    case 'scatter':
    case 'fold':
    case 'scanl':
    case 'scanr':
    case 'force':
      checkCombinator(ctx, s, scope);
      break;
    default:
      s satisfies never;
  }
  const where = s.kind === 'scalar' ? `scalar ${s.name}` : `${s.kind} #${s.id}`;
  for (const d of stmtDefs(s)) declare(ctx, scope, d.name, valueBinding(d), where);
}

function componentsMatch(ctx: Ctx, what: string, ifaceComps: readonly Value[], names: readonly VarName[], bindings: readonly Binding[]): void {
  if (ifaceComps.length !== names.length) fail(`program ${what}: ${ifaceComps.length} interface components for ${names.length} block ${what}`);
  ifaceComps.forEach((c, i) => {
    if (c.name !== names[i]) fail(`program ${what}: interface component ${c.name} is block ${what.replace(/s$/, '')} ${names[i]}`);
    if (!sameBinding(valueBinding(c), bindings[i]!)) fail(`program ${what}: ${c.name} is declared ${bindingText(valueBinding(c))} but is ${bindingText(bindings[i]!)}`);
  });
}

/** The first broken invariant of `p`, described, or null when there is none. */
export function findIrProblem(p: Program, options: VerifyOptions = {}): string | null {
  const donated = new Set(p.params.filter((i) => i.donated === true).flatMap((i) => i.components.map((c) => c.name)));
  const ctx: Ctx = { names: new Set(), ids: new Set(), inPlaceUpdates: options.inPlaceUpdates ?? true, entry: p.body, donated, loopOwned: new Map() };
  const root: Scope = { vars: new Map(), parent: null };
  try {
    const results = checkBlock(ctx, p.body, root, 'program body');
    componentsMatch(ctx, 'params', p.params.flatMap((i) => i.components), p.body.params.map((v) => v.name), p.body.params.map(valueBinding));
    componentsMatch(ctx, 'results', p.results.flatMap((i) => i.components), p.body.results, results);
  } catch (e) {
    if (e instanceof InvalidIr) return e.message;
    throw e;
  }
  return null;
}

/** Throws CompilerBug(pass, …) on the first broken invariant of `p`. */
export function verifyProgram(p: Program, pass = 'verify', options: VerifyOptions = {}): void {
  const problem = findIrProblem(p, options);
  if (problem !== null) throw new CompilerBug(pass, `IR verification failed: ${problem}`);
}
