// Loads carried across the iterations of an innermost loop (scalar replacement, "predictive
// commoning"): a stencil's interior loads each row of neighbours at `B + k - 1`, `B + k` and
// `B + k + 1`, so iteration k + 1 reloads two values iteration k already had. The pass loads only
// the largest offset per iteration and takes the others from locals that rotate at the end of
// the iteration, loaded once before the loop (the prologue):
//
//   let r0 = a[B + from - 1], r1 = a[B + from];
//   for (k …) { const r2 = a[B + k + 1]; …r0…r1…r2…; r0 = r1; r1 = r2; }
//
// What it proves first, for each group of loads of one array `a` at `B + k + c` (the same
// loop-invariant terms B, integer constants c, k the loop's index counting up by one):
// - nothing in the loop can write `a`: no store to the identifier `a` (nestFacts.ts says why a
//   store to another identifier cannot write `a`'s memory inside one cluster, in-place scatters
//   and donated inputs included), and no store through anything but an identifier;
// - `a` and every name in B keep their values through the loop (not assigned in its body);
// - every load it replaces executes on every iteration: it is outside `if`s, outside the
//   branches of `?:` and the right-hand side of `&&`/`||` (loads elsewhere stay loads);
// - the loop is innermost, leaves only at its end (no `break`, `return`), and this is not the
//   counters variant (whose loads are counted where they are).
// Then the value in register r_c at iteration k is the value a[B + k + c] had before the loop,
// which is what the load would read: the same numbers, bit for bit, whatever the element type.
// A load reads no memory a fault depends on and raises nothing itself, so loading ahead changes
// no value computed and no error raised. The rotated loop and its prologue run only when the
// loop runs at least once (`from < to`, its bound is checked to be invariant), so the prologue
// reads elements the first iteration reads anyway.

import type { JsExpr, JsStmt } from '../jsast.js';
import { assign, bin, constDecl, id, index, letDecl, mathCall, num } from '../jsast.js';
import type { LoopContext, LoopPass } from './index.js';
import { type Affine, affineExpr, affineIn, canonicalText, effectsOf, idsOfExpr, isPure, termsKey } from './nestFacts.js';

/** Offsets further apart than this are left alone: each costs a register and a move. */
const MAX_WINDOW = 8;

export const rotatePass: LoopPass = {
  name: 'rotate',
  run(stmts, context) {
    if (context.counters) return [...stmts];
    return rotateList(stmts, { ...context, canonical: canonicalText(stmts) });
  },
};

type RotateContext = LoopContext & { readonly canonical: (e: JsExpr) => string };

function rotateList(stmts: readonly JsStmt[], context: RotateContext): JsStmt[] {
  return stmts.flatMap((s) => rotateStmt(s, context));
}

function rotateStmt(s: JsStmt, context: RotateContext): JsStmt[] {
  switch (s.kind) {
    case 'for': {
      const body = rotateList(s.body, context);
      const loop: JsStmt = { ...s, body };
      return rotateLoop(loop, context) ?? [loop];
    }
    case 'while':
      return [{ ...s, body: rotateList(s.body, context) }];
    case 'if':
      return [{ ...s, then: rotateList(s.then, context), else: rotateList(s.else, context) }];
    case 'block':
      return [{ ...s, body: rotateList(s.body, context) }];
    case 'decl':
    case 'assign':
    case 'expr':
    case 'break':
    case 'return':
    case 'comment':
    case 'function':
      return [s];
    default:
      return [s satisfies never];
  }
}

/** One load this pass may replace: array, its affine index, and the group it belongs to. */
interface Load {
  readonly array: string;
  readonly form: Affine;
  readonly group: string;
}

interface Group {
  readonly array: string;
  /** The base terms (unwrapped). */
  readonly form: Affine;
  readonly offsets: Set<number>;
  /** Some of its loads wrap their offset (`(k + c) | 0`). */
  wrapped: boolean;
}

/** The loop with its carried loads, preceded by their prologue; null when nothing applies. */
function rotateLoop(loop: JsStmt, context: RotateContext): JsStmt[] | null {
  if (loop.kind !== 'for' || loop.down) return null;
  const effects = effectsOf(loop.body);
  if (effects.loops > 0 || effects.escapes || effects.opaqueStore || effects.unknownCalls) return null;
  if (!isPure(loop.from)) return null;
  const k = loop.index;
  const invariant = (name: string): boolean => name !== k && !effects.written.has(name);
  const definitions = constantsOf(loop.body);

  // The candidate loads, in unconditional positions.
  const loadOf = (e: JsExpr): Load | null => {
    if (e.kind !== 'index' || e.object.kind !== 'id') return null;
    const array = e.object.name;
    if (effects.stored.has(array) || !invariant(array)) return null;
    const form = affineIn(e.index, k, invariant, definitions);
    if (form === null || form.k !== 1) return null;
    // Wrapped and plain offsets of one base share a group: equal where the guard below holds.
    return { array, form, group: `${array}|${termsKey({ ...form, wrapped: false }, context.canonical)}` };
  };
  const groups = new Map<string, Group>();
  for (const s of loop.body)
    visitUnconditional(s, (e) => {
      const load = loadOf(e);
      if (load === null) return e;
      const g = groups.get(load.group) ?? { array: load.array, form: { ...load.form, wrapped: false }, offsets: new Set<number>(), wrapped: false };
      g.offsets.add(load.form.constant);
      if (load.form.wrapped) g.wrapped = true;
      groups.set(load.group, g);
      return e;
    });

  // Groups worth carrying: two offsets or more, within a small window.
  const carried = new Map<string, { group: Group; low: number; high: number; registers: Map<number, string> }>();
  for (const [key, g] of groups) {
    if (g.offsets.size < 2) continue;
    const low = Math.min(...g.offsets);
    const high = Math.max(...g.offsets);
    if (high - low + 1 > MAX_WINDOW) continue;
    const registers = new Map<number, string>();
    for (let c = low; c <= high; c++) registers.set(c, context.fresh('r'));
    carried.set(key, { group: g, low, high, registers });
  }
  if (carried.size === 0) return null;

  const body = loop.body.map((s) =>
    visitUnconditional(s, (e) => {
      const load = loadOf(e);
      const c = load === null ? undefined : carried.get(load.group);
      return c === undefined ? e : id(c.registers.get(load!.form.constant)!);
    }),
  );
  const prologue: JsStmt[] = [];
  const fresh: JsStmt[] = [];
  const rotation: JsStmt[] = [];
  let wrappedLow = Infinity;
  let wrappedHigh = -Infinity;
  for (const { group, low, high, registers } of carried.values()) {
    const at = (c: number): string => registers.get(c)!;
    for (let c = low; c < high; c++) prologue.push(letDecl(at(c), index(id(group.array), affineExpr(group.form, loop.from, c))));
    fresh.push(constDecl(at(high), index(id(group.array), affineExpr(group.form, id(k), high))));
    for (let c = low; c < high; c++) rotation.push(assign(id(at(c)), id(at(c + 1))));
    if (group.wrapped) {
      wrappedLow = Math.min(wrappedLow, low);
      wrappedHigh = Math.max(wrappedHigh, high);
    }
  }
  const rotated: JsStmt[] = [...prologue, { ...loop, body: [...fresh, ...body, ...rotation] }];
  // The prologue runs only when the loop runs: its loads are then elements the first iteration
  // reads (or lie between two it reads), never past the array — an out-of-range read would give
  // `undefined` and make V8 treat every register as possibly undefined (measured: MG 1.5x slower).
  if (!isPure(loop.to) || [...idsOfExpr(loop.to)].some((n) => !invariant(n))) return null;
  const runs = bin('<', loop.from, loop.to);
  if (wrappedLow === Infinity) return [{ kind: 'if', test: runs, then: rotated, else: [] }];
  // `(k + c) | 0` is `k + c` for every k of the loop when `from` is an integer and from + low and
  // to - 1 + high are int32: checked once, else the loop runs as it was.
  const guard = [
    runs,
    // An integer start (`Math.floor`, not `Number.isInteger`: cluster functions see only `Math`
    // and `Atomics` as globals, program.ts `freeIds`; ±Infinity fails `from < to` or the bound).
    bin('===', mathCall('floor', [loop.from]), loop.from),
    bin('>=', affineExpr({ terms: [], k: 1, constant: 0, wrapped: false }, loop.from, wrappedLow), num(-2147483648)),
    bin('<=', affineExpr({ terms: [], k: 1, constant: 0, wrapped: false }, loop.to, wrappedHigh), num(2147483648)),
  ].reduce((a, b) => bin('&&', a, b));
  return [{ kind: 'if', test: guard, then: rotated, else: [loop] }];
}

/** The body's own `const`s declared at its top level (evaluated on every iteration). */
function constantsOf(body: readonly JsStmt[]): Map<string, JsExpr> {
  const definitions = new Map<string, JsExpr>();
  for (const s of body) if (s.kind === 'decl' && !s.mutable && s.init !== null && isPure(s.init)) definitions.set(s.name, s.init);
  return definitions;
}

/**
 * `s` with `f` applied to every expression evaluated whenever `s` runs (bottom-up): not inside
 * an `if`'s branches, a `?:`'s branches or the right of `&&`/`||`. An assignment's target is a
 * store: only its index is visited.
 */
function visitUnconditional(s: JsStmt, f: (e: JsExpr) => JsExpr): JsStmt {
  const ex = (e: JsExpr): JsExpr => rewriteUnconditional(e, f);
  switch (s.kind) {
    case 'decl':
      return s.init === null ? s : { ...s, init: ex(s.init) };
    case 'assign': {
      const target = s.target.kind === 'index' ? { ...s.target, index: ex(s.target.index) } : s.target;
      return { ...s, target, value: ex(s.value) };
    }
    case 'expr':
      return { ...s, expr: ex(s.expr) };
    case 'if':
      return { ...s, test: ex(s.test) };
    case 'block':
      return { ...s, body: s.body.map((x) => visitUnconditional(x, f)) };
    case 'for':
    case 'while':
    case 'break':
    case 'return':
    case 'comment':
    case 'function':
      return s;
    default:
      return s satisfies never;
  }
}

function rewriteUnconditional(e: JsExpr, f: (e: JsExpr) => JsExpr): JsExpr {
  const go = (x: JsExpr): JsExpr => rewriteUnconditional(x, f);
  switch (e.kind) {
    case 'num':
    case 'id':
      return f(e);
    case 'binary':
      return f(e.op === '&&' || e.op === '||' ? { ...e, lhs: go(e.lhs) } : { ...e, lhs: go(e.lhs), rhs: go(e.rhs) });
    case 'unary':
      return f({ ...e, arg: go(e.arg) });
    case 'cond':
      return f({ ...e, test: go(e.test) });
    case 'call':
      return f({ ...e, callee: go(e.callee), args: e.args.map(go) });
    case 'member':
      return f({ ...e, object: go(e.object) });
    case 'index':
      return f({ ...e, object: go(e.object), index: go(e.index) });
    case 'array':
      return f({ ...e, elems: e.elems.map(go) });
    case 'set':
      return f({ ...e, value: go(e.value) });
    case 'seq':
      return f({ ...e, first: go(e.first), then: go(e.then) });
    default:
      return e satisfies never;
  }
}
