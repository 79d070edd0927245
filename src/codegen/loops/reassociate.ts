// Fast-math reassociation of floating-point folds (docs/LANGUAGE.md, "Floating-point
// reassociation"): the one pass allowed to change float results, and only under `fastMath`.
//
// A fold over a row is one chain of dependent additions (or multiplications): `acc = acc + x`
// at every element, so its loop runs at the operation's latency (4 cycles a step) however short
// the rest of the body is; FlashAttention's dot products and every `sum` are such chains. With
// `fastMath` the chain is cut into four: the loop is unrolled by four, element j + u adds into
// partial u (each partial starting at the operator's identity), the E mod 4 elements left over
// run in the original loop into partial 0, and after the loop
//
//   acc = acc ⊕ ((p0 ⊕ p1) ⊕ (p2 ⊕ p3))
//
// so the fold's seed (its `init`, or a parallel chunk's running value) comes first, as the left
// operand, and an empty loop leaves acc exactly as it was (-0 is the exact identity of float `+`,
// 1 of `*`).
//
// What the pass proves before rewriting a `for` loop (anything else is left exactly as it was):
// - it runs forwards, its body holds no loop, no nested function, no `break` or `return` (it is
//   an innermost loop: each element of a row once, in order), it is not too large to copy, and it
//   has at most four accumulators (more already overlap their chains: MAX_PARTIALS);
// - an accumulator `acc` is a `let` declared outside the loop, neither declared nor assigned in
//   the body except by one top-level `acc = r`, where `r` is a top-level `const r = acc ⊕ e`
//   (or `e ⊕ acc`), `⊕` a float `+` or `*`, read by nothing but that assignment; and the body
//   reads `acc` nowhere else (so `e`, and everything else the loop computes, does not depend on
//   the running value: only the final value does). Float `+` and `*` are recognised by their
//   form, which scalar.ts gives each element type: an f64 operation is the bare `a + b` / `a * b`,
//   an f32 one `Math.fround(a + b)`, while i32 is wrapped `| 0` (`Math.imul` for `*`), u32
//   `>>> 0`, bool a conditional: integer folds, which wrap exactly and associate anyway, never
//   match. `min` and `max` (`Math.min`, `Math.max`) are exact in any order and are not touched.
//   A scan's accumulator is read (stored) at every element, so it never matches either.
// Every statement of the body still runs once per element, in element order, with the same
// operands (only `acc` is renamed to a partial): loads, stores and the first error raised are
// unchanged, and so is every value but the accumulators' final ones.

import { add, bin, call, constDecl, forEachNode, id, letDecl, member, mul, num, renameStmt, type JsExpr, type JsStmt } from '../jsast.js';
import type { LoopContext, LoopPass } from './index.js';

/** Partial accumulators per fold: four chains hide the add latency of a 2-wide FP unit well enough. */
const WAYS = 4;

/**
 * A loop whose accumulators would need more partials than this is left alone: x86-64 has 16
 * vector registers, and a loop that already runs 8 chains side by side (a register block of
 * outputs) hides the add latency itself. Measured (a 2×4 block of 64-term dot products, plain JS):
 * 8 accumulators 130 ms, the same split four ways into 32 partials 322 ms; 4 accumulators split
 * into 16 (a four-row jammed fold) ran 2.1–2.4× faster than unsplit (the matrix product of
 * docs/EXECUTION.md).
 */
const MAX_PARTIALS = 16;

/** Larger bodies are left alone: the unrolled loop holds WAYS + 1 copies of the body. */
const MAX_BODY_NODES = 600;

type FloatOp = '+' | '*';

/** One accumulator the pass splits, and how its update is written. */
interface Accumulator {
  readonly name: string;
  readonly op: FloatOp;
  /** f32: every combination is rounded with `Math.fround`, as the fold's own update is. */
  readonly f32: boolean;
}

export const reassociate: LoopPass = {
  name: 'reassociate',
  run(stmts: readonly JsStmt[], context: LoopContext): JsStmt[] {
    if (!context.fastMath) return [...stmts];
    return rewriteList(stmts, new Set(), context);
  },
};

/** `stmts` with every qualifying loop rewritten; `lets` are the `let` locals declared around them. */
function rewriteList(stmts: readonly JsStmt[], lets: ReadonlySet<string>, context: LoopContext): JsStmt[] {
  const scope = new Set(lets);
  const out: JsStmt[] = [];
  for (const s of stmts) {
    if (s.kind === 'decl' && s.mutable) scope.add(s.name);
    out.push(...rewriteStmt(s, scope, context));
  }
  return out;
}

function rewriteStmt(s: JsStmt, lets: ReadonlySet<string>, context: LoopContext): JsStmt[] {
  switch (s.kind) {
    case 'for': {
      if (hasNestedControl(s.body)) return [{ ...s, body: rewriteList(s.body, lets, context) }];
      const accs = s.down ? [] : accumulatorsOf(s, lets);
      return accs.length === 0 || accs.length * WAYS > MAX_PARTIALS ? [s] : splitLoop(s, accs, context);
    }
    case 'while':
      return [{ ...s, body: rewriteList(s.body, lets, context) }];
    case 'if':
      return [{ ...s, then: rewriteList(s.then, lets, context), else: rewriteList(s.else, lets, context) }];
    case 'block':
      return [{ ...s, body: rewriteList(s.body, lets, context) }];
    case 'function':
      return [{ ...s, body: rewriteList(s.body, new Set(), context) }];
    case 'decl':
    case 'assign':
    case 'expr':
    case 'break':
    case 'return':
    case 'comment':
      return [s];
    default:
      return s satisfies never;
  }
}

/** Whether statements hold a loop, a nested function, `break` or `return` (then only inner loops are candidates). */
function hasNestedControl(stmts: readonly JsStmt[]): boolean {
  let found = false;
  forEachNode(stmts, {
    stmt(s) {
      if (s.kind === 'for' || s.kind === 'while' || s.kind === 'function' || s.kind === 'break' || s.kind === 'return') found = true;
    },
  });
  return found;
}

/** The float `+`/`*` update of `acc` that `value` is, if it is one: `acc ⊕ e`, `e ⊕ acc`, or either in `Math.fround`. */
function floatUpdateOf(value: JsExpr, acc: string): { readonly op: FloatOp; readonly f32: boolean } | null {
  const direct = (e: JsExpr): FloatOp | null => {
    if (e.kind !== 'binary' || (e.op !== '+' && e.op !== '*')) return null;
    const isAcc = (x: JsExpr): boolean => x.kind === 'id' && x.name === acc;
    return isAcc(e.lhs) || isAcc(e.rhs) ? e.op : null;
  };
  const bare = direct(value);
  if (bare !== null) return { op: bare, f32: false };
  if (value.kind === 'call' && isFround(value.callee) && value.args.length === 1) {
    const rounded = direct(value.args[0]!);
    if (rounded !== null) return { op: rounded, f32: true };
  }
  return null;
}

function isFround(callee: JsExpr): boolean {
  return callee.kind === 'member' && callee.prop === 'fround' && callee.object.kind === 'id' && callee.object.name === 'Math';
}

/** How often each identifier is read, and assigned (`x = …` or a `set` of it), in statements. */
function usesOf(stmts: readonly JsStmt[]): { readonly reads: Map<string, number>; readonly writes: Map<string, number>; readonly declared: Set<string>; nodes: number } {
  const reads = new Map<string, number>();
  const writes = new Map<string, number>();
  const declared = new Set<string>();
  const bump = (m: Map<string, number>, name: string): void => void m.set(name, (m.get(name) ?? 0) + 1);
  const facts = { reads, writes, declared, nodes: 0 };
  forEachNode(stmts, {
    expr(e, target) {
      facts.nodes++;
      if (e.kind === 'id') bump(target ? writes : reads, e.name);
      if (e.kind === 'set') bump(writes, e.name);
    },
    stmt(s) {
      if (s.kind === 'decl') declared.add(s.name);
      if (s.kind === 'for') declared.add(s.index);
      if (s.kind === 'assign' && s.op !== '=' && s.target.kind === 'id') bump(reads, s.target.name);
    },
  });
  return facts;
}

/** The accumulators of an innermost forward loop that the header's conditions allow splitting. */
function accumulatorsOf(loop: Extract<JsStmt, { kind: 'for' }>, lets: ReadonlySet<string>): Accumulator[] {
  const uses = usesOf(loop.body);
  if (uses.nodes > MAX_BODY_NODES) return [];
  const bounds = usesOf([{ kind: 'expr', expr: loop.from }, { kind: 'expr', expr: loop.to }]);
  // The bounds are evaluated once before the unrolled loop: nothing in the body may change them.
  if (!pureBound(loop.from) || !pureBound(loop.to) || [...bounds.reads.keys()].some((name) => uses.writes.has(name))) return [];
  const consts = new Map<string, JsExpr>();
  const accs: Accumulator[] = [];
  for (const s of loop.body) {
    if (s.kind === 'decl' && !s.mutable && s.init !== null) consts.set(s.name, s.init);
    if (s.kind !== 'assign' || s.op !== '=' || s.target.kind !== 'id' || s.value.kind !== 'id') continue;
    const acc = s.target.name;
    const r = s.value.name;
    const init = consts.get(r);
    if (init === undefined || !lets.has(acc) || acc === loop.index || uses.declared.has(acc) || bounds.reads.has(acc)) continue;
    const update = floatUpdateOf(init, acc);
    if (update === null) continue;
    const once = (m: Map<string, number>, name: string): boolean => m.get(name) === 1;
    if (!once(uses.reads, acc) || !once(uses.writes, acc) || !once(uses.reads, r) || uses.writes.has(r)) continue;
    accs.push({ name: acc, ...update });
  }
  return accs;
}

/** A bound whose value only its identifiers decide: no temporaries set, no calls but `Math`'s. */
function pureBound(e: JsExpr): boolean {
  let pure = true;
  forEachNode([{ kind: 'expr', expr: e }], {
    expr(x) {
      if (x.kind === 'set' || (x.kind === 'call' && !(x.callee.kind === 'member' && x.callee.object.kind === 'id' && x.callee.object.name === 'Math'))) pure = false;
    },
  });
  return pure;
}

/** The identity an accumulator's partials start from: exact for every operand, NaN and -0 included. */
function identityOf(op: FloatOp): number {
  return op === '+' ? -0 : 1;
}

/** `a ⊕ b`, rounded to f32 where the fold is f32. */
function combine(acc: Accumulator, a: JsExpr, b: JsExpr): JsExpr {
  const sum = bin(acc.op, a, b);
  return acc.f32 ? call(member(id('Math'), 'fround'), [sum]) : sum;
}

/** `from`/`to` as atoms, bound to constants first when they are not (each is evaluated once, before the loop, as before). */
function atomOf(e: JsExpr, prefix: string, context: LoopContext, out: JsStmt[]): JsExpr {
  if (e.kind === 'id' || e.kind === 'num') return e;
  const name = context.fresh(prefix);
  out.push(constDecl(name, e));
  return id(name);
}

/** `a - b`, folding away a zero `b` (loops mostly start at 0). */
function minus(a: JsExpr, b: JsExpr): JsExpr {
  return b.kind === 'num' && b.value === 0 ? a : bin('-', a, b);
}

/** The loop unrolled by WAYS with each accumulator split into WAYS partials, the rest, and the combination. */
function splitLoop(loop: Extract<JsStmt, { kind: 'for' }>, accs: readonly Accumulator[], context: LoopContext): JsStmt[] {
  const out: JsStmt[] = [];
  const from = atomOf(loop.from, 'lo', context, out);
  const to = atomOf(loop.to, 'hi', context, out);
  const partials = accs.map((acc) => {
    const names = Array.from({ length: WAYS }, () => context.fresh('pa'));
    names.forEach((p) => out.push(letDecl(p, num(identityOf(acc.op)))));
    return names;
  });
  const renamedTo = (way: number) => (name: string): string => {
    const k = accs.findIndex((a) => a.name === name);
    return k < 0 ? name : partials[k]![way]!;
  };
  // Groups of WAYS elements: q of them, q = 0 when the loop is empty (to ≤ from).
  const q = context.fresh('q');
  out.push(constDecl(q, { kind: 'cond', test: bin('>', to, from), then: bin('>>', minus(to, from), num(Math.log2(WAYS))), else: num(0) }));
  const g = context.fresh('g');
  const first = context.fresh('j');
  const copies: JsStmt[] = [constDecl(first, add(from, mul(id(g), num(WAYS))))];
  for (let way = 0; way < WAYS; way++) {
    const element = constDecl(loop.index, way === 0 ? id(first) : bin('+', id(first), num(way)));
    copies.push({ kind: 'block', body: [element, ...loop.body.map((s) => renameStmt(s, renamedTo(way)))] });
  }
  out.push({ kind: 'for', index: g, from: num(0), to: id(q), down: false, body: copies });
  // The elements left over, in order, into partial 0.
  out.push({ ...loop, from: add(from, mul(id(q), num(WAYS))), to, body: loop.body.map((s) => renameStmt(s, renamedTo(0))) });
  accs.forEach((acc, k) => {
    const [p0, p1, p2, p3] = partials[k]!.map(id) as [JsExpr, JsExpr, JsExpr, JsExpr];
    const total = combine(acc, combine(acc, p0, p1), combine(acc, p2, p3));
    out.push({ kind: 'assign', target: id(acc.name), op: '=', value: combine(acc, id(acc.name), total) });
  });
  return out;
}
