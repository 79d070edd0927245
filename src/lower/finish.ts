// The last steps of lowering, on the finished IR, as named passes in one pipeline
// (`finishingPasses`): remove dead statements, fold a conversion into the producer of the one
// array it converts, make every scatter's in-place update unobserved
// (inserting a copy where needed), and replace the provisional names (`%7`) by readable SSA
// names (`cs`, `x_1`, `inds`).

import type {
  ArrayVar,
  Block,
  CombinatorNode,
  Expr,
  Interface,
  Lambda,
  MapNode,
  Program,
  Stmt,
  Value,
  VarName,
} from '../ir/types.js';
import { isCombinator } from '../ir/types.js';
import { cast } from '../ir/scalarOps.js';
import type { ProgramPass } from '../ir/passes.js';
import { inPlaceDestinations } from '../ir/rules.js';
import { inPlaceHazards, inPlaceUpdateOf, loopOwnableParams, loopOwnsInit } from '../ir/updates.js';
import { stmtDefs, stmtFreeVars } from '../ir/walk.js';
import { hintUser, type HintLevel } from './values.js';

/**
 * The finishing pipeline of one lowering run, in order. Dead code goes first, so that a read
 * by a dead statement asks for no copy; until copies are inserted a scatter may still update
 * an array that is read later, so the first pass's output keeps every promise but that one.
 * Names go last: copies take fresh provisional names too.
 */
export function finishingPasses(names: NameSupply, hints: () => readonly VarHint[]): readonly ProgramPass[] {
  return [
    { name: 'dead-code', run: (p) => ({ ...p, body: removeDeadCode(p.body) }), keeps: { inPlaceUpdates: false } },
    { name: 'sink-conversions', run: (p) => ({ ...p, body: sinkConversions(p.body) }), keeps: { inPlaceUpdates: false } },
    { name: 'copy-scatter-destinations', run: (p) => copyScatterDestinations(p, names) },
    { name: 'ssa-names', run: (p) => nameProgram(p, hints()) },
  ];
}

// ---------------------------------------------------------------------------------------------
// Dead code
// ---------------------------------------------------------------------------------------------

/** Drops statements whose results nobody uses, and unused outs of `if` nodes. */
export function removeDeadCode(b: Block): Block {
  const needed = new Set<VarName>(b.results);
  const kept: Stmt[] = [];
  for (let i = b.stmts.length - 1; i >= 0; i--) {
    let s = b.stmts[i]!;
    if (!stmtDefs(s).some((d) => needed.has(d.name))) continue;
    if (s.kind === 'if') {
      const keep = s.outs.map((o) => needed.has(o.name));
      const pick = <T,>(xs: readonly T[]): T[] => xs.filter((_, k) => keep[k]);
      s = {
        ...s,
        outs: pick(s.outs),
        then: removeDeadCode({ ...s.then, results: pick(s.then.results) }),
        else: removeDeadCode({ ...s.else, results: pick(s.else.results) }),
      };
    } else if (s.kind === 'while') {
      s = { ...s, cond: removeDeadCode(s.cond), body: removeDeadCode(s.body) };
    }
    for (const v of stmtFreeVars(s)) needed.add(v);
    kept.push(s);
  }
  return { ...b, stmts: kept.reverse() };
}

// ---------------------------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------------------------

/**
 * A `map` that only narrows its one input from f64 to f32 (`map(λx: f32(x), a)`), the
 * conversion lowering inserts where an array of weak float literals meets f32 data: its input,
 * the type and its outs. Other conversions (a user's `i32(x)`) stay where the program has them.
 */
function conversionOf(s: Stmt): { readonly input: VarName; readonly to: Expr['type']; readonly outs: MapNode['outs'] } | null {
  if (s.kind !== 'map' || s.inputs.length !== 1 || s.outs.length !== 1) return null;
  const { params, lets, results } = s.fn;
  const r = results[0]!;
  if (lets.length > 0 || r.kind !== 'cast' || r.arg.kind !== 'var' || r.arg.name !== params[0]!.name) return null;
  if (r.to !== 'f32' || r.arg.type !== 'f64') return null;
  return { input: s.inputs[0]!, to: r.to, outs: s.outs };
}

/** `e` converted to `to`: a constant converted now (no f64 literal is left for a back end without f64). */
function converted(e: Expr, to: Expr['type']): Expr {
  if (e.type === to) return e;
  if (e.kind === 'const') return { kind: 'const', type: to, value: cast(to, e.value) };
  return { kind: 'cast', to, arg: e, type: to };
}

/**
 * Folds a narrowing `b = map(λx: f32(x), a)` into the producer of `a` when `a` is used by
 * nothing else and is made by a `generate` or a one-result `map`: the producer then computes
 * `f32(f(i))` into `b` itself. Lowering inserts such conversions where an array of weak float
 * literals meets typed data (`hist(+, 0.0, k, is, vs)` with f32 values converts the fill of
 * the bins); folded, the f64 array is never made, which a back end without f64 (webgpu) needs,
 * and the values are the same (the one rounding happens in either place).
 */
export function sinkConversions(b: Block): Block {
  const uses = new Map<VarName, number>();
  const use = (v: VarName): void => void uses.set(v, (uses.get(v) ?? 0) + 1);
  b.stmts.forEach((s) => stmtFreeVars(s).forEach(use));
  b.results.forEach(use);
  const producer = new Map<VarName, number>();
  b.stmts.forEach((s, i) => {
    if ((s.kind === 'generate' || s.kind === 'map') && s.outs.length === 1) producer.set(s.outs[0]!.name, i);
  });
  const stmts: (Stmt | null)[] = b.stmts.map((s) => s);
  b.stmts.forEach((s, i) => {
    const c = conversionOf(s);
    if (c === null || uses.get(c.input) !== 1) return;
    const at = producer.get(c.input);
    const p = at === undefined ? null : stmts[at];
    if (p?.kind !== 'generate' && p?.kind !== 'map') return;
    stmts[at!] = { ...p, outs: c.outs, fn: { ...p.fn, results: [converted(p.fn.results[0]!, c.to)] } };
    stmts[i] = null;
  });
  const nested = (s: Stmt): Stmt => {
    if (s.kind === 'if') return { ...s, then: sinkConversions(s.then), else: sinkConversions(s.else) };
    if (s.kind === 'while') return { ...s, cond: sinkConversions(s.cond), body: sinkConversions(s.body) };
    return s;
  };
  return { ...b, stmts: stmts.filter((s): s is Stmt => s !== null).map(nested) };
}

// ---------------------------------------------------------------------------------------------
// Scatter destinations
// ---------------------------------------------------------------------------------------------

export interface NameSupply {
  fresh(hint: string): VarName;
  nodeId(): number;
}

/**
 * In the IR a scatter (every combinator whose rule `updatesInPlace`, src/ir/rules.ts) updates
 * its destination in place, so lowering copies the destination
 * first (a `map` of the identity) wherever the update could be observed: the hazards of
 * src/ir/updates.ts (the one definition of the rule, which the IR verifier checks again).
 * The copy is a combinator output of the block that only the scatter reads, so the scatter
 * then updates it unobserved. An entry parameter the caller donated (Interface.donated) is the
 * program's to overwrite: updating it is no hazard in the entry block (other hazards still
 * are). Where the only hazards are later readers, the copy stays in the IR and planning may
 * elide it (src/ir/updates.ts `elidableCopies`, docs/PLANNING.md "In-place updates").
 */
export function copyScatterDestinations(p: Program, names: NameSupply): Program {
  const donated = new Set(p.params.filter((i) => i.donated === true).flatMap((i) => i.components.map((c) => c.name)));
  const fix = (b: Block, given: ReadonlySet<VarName>): Block => {
    const out: Stmt[] = [];
    b.stmts.forEach((s0, k) => {
      const k0 = k;
      let s = s0;
      if (s.kind === 'if') s = { ...s, then: fix(s.then, new Set()), else: fix(s.else, new Set()) };
      if (s.kind === 'while') {
        // A carried array the body updates in place is the loop's to update (src/ir/updates.ts
        // `loopOwnableParams`): its body keeps no copy, and its initial value is copied once here,
        // before the loop, unless nothing but the loop reads it (`loopOwnsInit`).
        // The copies the body still needs may break a chain of updates back to a parameter (an
        // update whose op reads the previous one's output gets a copy): keep only the positions
        // that are still ownable in the body with its copies, until none is lost.
        const w = s;
        let ownable = loopOwnableParams(w);
        let body = fix(w.body, new Set(ownable.values()));
        for (;;) {
          const still = loopOwnableParams({ ...w, body });
          const kept = new Map([...ownable].filter(([j, p]) => still.get(j) === p));
          if (kept.size === ownable.size) break;
          ownable = kept;
          body = fix(w.body, new Set(ownable.values()));
        }
        const init = [...w.init];
        for (const j of ownable.keys()) {
          const carried = w.outs[j]!;
          if (loopOwnsInit(b, k0, j) || carried.kind !== 'array') continue;
          const copy = identityCopy(w.span, [carried], [init[j]!], names);
          out.push(copy);
          init[j] = copy.outs[0]!.name;
        }
        s = { ...w, init, cond: fix(w.cond, new Set()), body };
      }
      const update = inPlaceUpdateOf(s);
      if (update === null || !isCombinator(s) || inPlaceHazards(b, k, given).length === 0) {
        out.push(s);
        return;
      }
      const copy = identityCopy(s.span, s.outs, inPlaceDestinations(s), names);
      out.push(copy, update.updating(s, copy.outs.map((o) => o.name)));
    });
    return { ...b, stmts: out };
  };
  return { ...p, body: fix(p.body, donated) };
}

/** A `map` of the identity copying `dest` (its outputs have the types of `like`). */
function identityCopy(span: CombinatorNode['span'], like: readonly Pick<ArrayVar, 'elem' | 'rank'>[], dest: readonly VarName[], names: NameSupply): MapNode {
  const outs: ArrayVar[] = like.map((o) => ({ name: names.fresh('copy'), elem: o.elem, rank: o.rank }));
  const params = outs.map((o) => ({ name: names.fresh('x'), type: o.elem }));
  const fn: Lambda = { params, lets: [], results: params.map((q) => ({ kind: 'var', name: q.name, type: q.type })) };
  return { kind: 'map', id: names.nodeId(), outs, span, inputs: dest, fn };
}

// ---------------------------------------------------------------------------------------------
// Naming
// ---------------------------------------------------------------------------------------------

/** Every name a program binds, in definition order. */
function boundNames(p: Program): VarName[] {
  const out: VarName[] = [];
  const lam = (l: Lambda): void => {
    out.push(...l.params.map((q) => q.name), ...l.lets.map((x) => x.name));
  };
  const block = (b: Block): void => {
    out.push(...b.params.map((q) => q.name));
    for (const s of b.stmts) {
      switch (s.kind) {
        case 'scalar':
          break;
        case 'generate':
        case 'map':
          lam(s.fn);
          break;
        case 'scatter':
        case 'fold':
        case 'scanl':
        case 'scanr':
          lam(s.op);
          break;
        case 'gather':
        case 'force':
          break;
        case 'if':
          block(s.then);
          block(s.else);
          break;
        case 'while':
          block(s.cond);
          block(s.body);
          break;
        default:
          s satisfies never;
      }
      out.push(...stmtDefs(s).map((d) => d.name));
    }
  };
  block(p.body);
  return out;
}

export interface VarHint {
  readonly name: VarName;
  readonly hint: string;
  readonly level: HintLevel;
}

/**
 * Readable SSA names: a user's name goes to its first binding (`x`), later ones get suffixes
 * (`x_1`); names the user gave win over prelude locals and combinator kinds.
 */
export function nameProgram(p: Program, hints: readonly VarHint[]): Program {
  const bound = new Set(boundNames(p).filter((n) => n.startsWith('%')));
  const taken = new Set(p.params.flatMap((i) => i.components.map((c) => c.name)));
  const map = new Map<VarName, VarName>();
  // Per hint, the suffix to try first: names are only ever taken, so the smallest free suffix
  // of a hint never decreases, and thousands of `cond`s (an elif chain) cost linear time.
  const nextSuffix = new Map<string, number>();
  const assign = (h: VarHint): void => {
    let name = h.hint;
    if (taken.has(name)) {
      let k = nextSuffix.get(h.hint) ?? 1;
      while (taken.has(`${h.hint}_${k}`)) k++;
      nextSuffix.set(h.hint, k + 1);
      name = `${h.hint}_${k}`;
    }
    taken.add(name);
    map.set(h.name, name);
  };
  const live = hints.filter((h) => bound.has(h.name));
  live.filter((h) => h.level === hintUser).forEach(assign);
  live.filter((h) => h.level !== hintUser).forEach(assign);
  return renameProgram(p, (n) => map.get(n) ?? n);
}

type Rn = (n: VarName) => VarName;

function renameExpr(e: Expr, f: Rn): Expr {
  switch (e.kind) {
    case 'const':
      return e;
    case 'var':
      return { ...e, name: f(e.name) };
    case 'unary':
    case 'call':
    case 'cast':
      return { ...e, arg: renameExpr(e.arg, f) };
    case 'binary':
      return { ...e, lhs: renameExpr(e.lhs, f), rhs: renameExpr(e.rhs, f) };
    case 'select':
      return { ...e, cond: renameExpr(e.cond, f), then: renameExpr(e.then, f), else: renameExpr(e.else, f) };
    case 'index':
      return { ...e, array: f(e.array), indices: e.indices.map((i) => renameExpr(i, f)) };
    case 'dim':
      return { ...e, array: f(e.array) };
    default:
      return e satisfies never;
  }
}

function renameLambda(l: Lambda, f: Rn): Lambda {
  return {
    params: l.params.map((q) => ({ ...q, name: f(q.name) })),
    lets: l.lets.map((x) => ({ name: f(x.name), expr: renameExpr(x.expr, f) })),
    results: l.results.map((r) => renameExpr(r, f)),
  };
}

function renameStmt(s: Stmt, f: Rn): Stmt {
  const outs = (o: readonly ArrayVar[]): ArrayVar[] => o.map((x) => ({ ...x, name: f(x.name) }));
  const names = (xs: readonly VarName[]): VarName[] => xs.map(f);
  switch (s.kind) {
    case 'scalar':
      return { ...s, name: f(s.name), expr: renameExpr(s.expr, f) };
    case 'generate':
      return { ...s, outs: outs(s.outs), shape: s.shape.map((e) => renameExpr(e, f)), fn: renameLambda(s.fn, f) };
    case 'map':
      return { ...s, outs: outs(s.outs), inputs: names(s.inputs), fn: renameLambda(s.fn, f) };
    case 'gather':
      return { ...s, outs: outs(s.outs), indices: names(s.indices), source: names(s.source) };
    case 'scatter':
      return { ...s, outs: outs(s.outs), op: renameLambda(s.op, f), dest: names(s.dest), index: names(s.index), values: names(s.values) };
    case 'fold':
      return { ...s, outs: outs(s.outs), op: renameLambda(s.op, f), init: s.init.map((e) => renameExpr(e, f)), input: names(s.input) };
    case 'scanl':
    case 'scanr':
      return { ...s, outs: outs(s.outs), op: renameLambda(s.op, f), init: s.init === null ? null : s.init.map((e) => renameExpr(e, f)), input: names(s.input) };
    case 'force':
      return { ...s, outs: outs(s.outs), input: names(s.input) };
    case 'if':
      return { ...s, cond: renameExpr(s.cond, f), then: renameBlock(s.then, f), else: renameBlock(s.else, f), outs: s.outs.map((v) => renameValue(v, f)) };
    case 'while':
      return { ...s, init: names(s.init), cond: renameBlock(s.cond, f), body: renameBlock(s.body, f), outs: s.outs.map((v) => renameValue(v, f)) };
    default:
      return s satisfies never;
  }
}

function renameValue(v: Value, f: Rn): Value {
  return { ...v, name: f(v.name) };
}

function renameBlock(b: Block, f: Rn): Block {
  return { params: b.params.map((v) => renameValue(v, f)), stmts: b.stmts.map((s) => renameStmt(s, f)), results: b.results.map(f) };
}

function renameInterface(i: Interface, f: Rn): Interface {
  return { ...i, components: i.components.map((v) => renameValue(v, f)) };
}

export function renameProgram(p: Program, f: Rn): Program {
  return { ...p, params: p.params.map((i) => renameInterface(i, f)), body: renameBlock(p.body, f), results: p.results.map((i) => renameInterface(i, f)) };
}
