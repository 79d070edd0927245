// Interior and boundary: each innermost loop of a nest runs, on the rows and the range of its
// index where no index wraps, clamps or can fall outside its array, a copy of its body with the
// wraps and clamps folded to their affine side, the bounds checks removed and the row-invariant
// index arithmetic computed once per row (docs/EXECUTION.md, "Loop optimisation").
//
// What it proves. In the innermost body it reads (./affine.ts) every
//   - conditional `c ? A : B` (also `(c ? 1 : 0) ? A : B`) whose test compares `a·i + b` (i one
//     loop index of the nest, b loop-invariant) with a loop-invariant bound: it is A wherever the
//     comparison holds, B wherever it does not; the copy takes the side that depends on i (the
//     one that does not wrap) and records the comparison (or its negation) as a constraint;
//   - `Math.min(E, c…)` / `Math.max(E, c…)` with E affine in one index and the c invariant: E
//     wherever E ≤ c (≥ c); strictly (E < c) unless E and the c cannot be −0 (int32 results,
//     literals), since min/max of +0 and −0 is not always E;
//   - bounds check `e >>> 0 >= n` in a disjunction that guards a statement (`if (… || e >>> 0 >= n
//     || …) rt.oob(…)`), with e affine (or ⌊affine / 2^s⌋) in one index: false wherever
//     0 ≤ e < n, so it is dropped from the disjunction (and the statement, once none is left);
//     likewise the rank-1 form `const x = a[e]; if (x === void 0) rt.oob(s, [e], [n], …)`: the
//     generator names in `[n]` the extent of `a`, so 0 ≤ e < n makes the load defined;
//   - the side conditions of each reading (`x | 0` is x only for an int32 x, …).
// Each constraint bounds one index: `i ≥ lo` or `i < hi`, evaluated once before the nest (its
// operands are invariant in the whole nest). The interior is their intersection, per index.
// A NaN bound makes it empty; an index whose values may not be integers (a loop from a
// non-integer) is never read as affine (a run-time `x === Math.floor(x)` guards a loop's start
// that is a name, and a scalar offset). So in the interior the copy computes what the original computes, and no check it
// dropped could fail there.
//
// What it rewrites. The innermost loop `for (k = from; k < to; k++) B` becomes
//   const r = inside, p = r ? max(from, min(lo_k, to)) : to, q = r ? max(p, min(hi_k, to)) : to;
//   for (k = from; k < p; k++) B;  [row-invariant part of B′]  for (k = p; k < q; k++) B′;
//   for (k = q; k < to; k++) B
// where `inside` says that each outer index lies in its interior (and lo_k < hi_k, which is
// false for NaN). The iterations run in the original order (a `down` loop: the three parts in
// reverse), so stores happen in the same order and the first error raised is the same: B′ raises
// only the errors B would (its remaining checks and other faults are kept), and the general
// parts keep every check. Tiny extents give an empty interior: the general code runs.
//
// Nests the pass leaves alone: bodies with `break`/`return`, nested loops or functions, loops
// whose bound or index is written by the body, and the counters variant (its counted loads
// stay where they are). A nest that is not perfectly nested (statements between loops, a fold's
// inner loop) is split only at its innermost loops; each innermost loop of a nest gets its own
// interior, and statements between the loops run as before.

import type { JsExpr, JsStmt } from '../jsast.js';
import { bin, constDecl, forEachNode, id, mapChildren, mathCall, num, renameStmt, seq } from '../jsast.js';
import {
  constrain,
  flip,
  indexBound,
  integral,
  isNum,
  mathName,
  negation,
  readMono,
  type AffineScope,
  type Constraint,
  type Mono,
  type Rel,
} from './affine.js';
import { dropDeadConsts, hoistInvariants, namesOf, pure, writtenNames } from './hoist.js';
import type { LoopContext, LoopPass } from './index.js';

export const interiorPass: LoopPass = {
  name: 'interior',
  run(stmts, context) {
    if (context.counters) return [...stmts];
    return rewriteList(stmts, context);
  },
};

type ForStmt = Extract<JsStmt, { kind: 'for' }>;

function rewriteList(stmts: readonly JsStmt[], context: LoopContext): JsStmt[] {
  return stmts.flatMap((s): JsStmt[] => {
    switch (s.kind) {
      case 'for':
        return splitNest(s, context);
      case 'if':
        return [{ ...s, then: rewriteList(s.then, context), else: rewriteList(s.else, context) }];
      case 'while':
        return [{ ...s, body: rewriteList(s.body, context) }];
      case 'block':
        return [{ ...s, body: rewriteList(s.body, context) }];
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
  });
}

/** What every innermost loop of one nest shares: what the nest writes, its loops' indices. */
interface Nest {
  readonly written: ReadonlySet<string>;
  /** Names assigned (not declared) anywhere in the nest: a loop index among them is not usable. */
  readonly assigned: ReadonlySet<string>;
  readonly context: LoopContext;
  /** Statements to run once before the nest: the interiors' bounds. */
  readonly before: JsStmt[];
}

/** The nest rooted at `root`, each innermost loop split, preceded by the bounds it needs. */
export function splitNest(root: ForStmt, context: LoopContext): JsStmt[] {
  const assigned = new Set<string>();
  forEachNode([root], {
    stmt(s) {
      if (s.kind === 'assign' && s.target.kind === 'id') assigned.add(s.target.name);
    },
    expr(e) {
      if (e.kind === 'set') assigned.add(e.name);
    },
  });
  const nest: Nest = { written: writtenNames([root]), assigned, context, before: [] };
  const rewritten = visitLoop(root, [], nest);
  return [...nest.before, rewritten];
}

function visitLoop(loop: ForStmt, chain: readonly ForStmt[], nest: Nest): JsStmt {
  if (!containsLoop(loop.body)) return splitInnermost(loop, chain, nest) ?? loop;
  const inner = [...chain, loop];
  const visit = (s: JsStmt): JsStmt => {
    switch (s.kind) {
      case 'for':
        return visitLoop(s, inner, nest);
      case 'if':
        return { ...s, then: s.then.map(visit), else: s.else.map(visit) };
      case 'while':
        return { ...s, body: s.body.map(visit) };
      case 'block':
        return { ...s, body: s.body.map(visit) };
      default:
        return s;
    }
  };
  return { ...loop, body: loop.body.map(visit) };
}

function containsLoop(stmts: readonly JsStmt[]): boolean {
  let found = false;
  forEachNode(stmts, {
    stmt(s) {
      if (s.kind === 'for' || s.kind === 'while' || s.kind === 'function') found = true;
    },
  });
  return found;
}

function exits(stmts: readonly JsStmt[]): boolean {
  let found = false;
  forEachNode(stmts, {
    stmt(s) {
      if (s.kind === 'break' || s.kind === 'return') found = true;
    },
  });
  return found;
}

/**
 * How a loop's index is known to take integer values: statically (from an integer expression),
 * under a run-time guard (`name === Math.floor(name)` of an invariant name), or not at all.
 */
function integerIndex(loop: ForStmt, nest: Nest): { readonly guard: JsExpr | null } | null {
  if (nest.assigned.has(loop.index)) return null;
  const start = loop.down ? loop.to : loop.from;
  if (integral(start)) return { guard: null };
  if (start.kind === 'id' && !nest.written.has(start.name)) {
    return { guard: isIntegerCall(start) };
  }
  return null;
}

/** `e === Math.floor(e)`: false for NaN (the generated code names no global but `Math`). */
const isIntegerCall = (e: JsExpr): JsExpr => bin('===', e, mathCall('floor', [e]));

/** The interior copy of a body and the constraints under which it computes what the body does. */
export interface InteriorBody {
  readonly body: JsStmt[];
  readonly constraints: Constraint[];
  /** Whether anything was folded or removed (otherwise the split is not worth its code). */
  readonly changed: boolean;
}

/**
 * The body with each wrap, clamp and provable check folded to its interior side, reading affine
 * functions of the indices `scope.isIndex` accepts.
 */
export function interiorBody(body: readonly JsStmt[], base: Omit<AffineScope, 'local'>): InteriorBody {
  // How often the body reads each temporary: one the folded read alone reads can be replaced by
  // its (pure) value, so that the row part of the flat index can be hoisted.
  const reads = new Map<string, number>();
  forEachNode(body, {
    expr(e) {
      if (e.kind === 'id') reads.set(e.name, (reads.get(e.name) ?? 0) + 1);
    },
  });
  const readsOutside = (name: string, inside: number): boolean => (reads.get(name) ?? 0) > inside;
  const constraints: Constraint[] = [];
  const locals = new Map<string, { mono: Mono; side: Constraint[] }>();
  const loads = new Map<string, JsExpr>();
  let changed = false;
  const scope: AffineScope = { ...base, local: (name) => locals.get(name) ?? null };

  /** `mono` (read with side conditions `side`) in `[0, n)`, recorded if it is about an index. */
  const proveInRange = (e: JsExpr, n: JsExpr): boolean => {
    if (!pure(e) || !base.invariant(n)) return false;
    const side: Constraint[] = [];
    const m = readMono(e, scope, side);
    if (m === null || m.lin.idx === null) return false;
    const lower = constrain(m, '>=', num(0));
    const upper = constrain(m, '<', n);
    if (lower === null || upper === null) return false;
    constraints.push(...side, lower, upper);
    changed = true;
    return true;
  };

  /** A comparison of an affine function of an index with an invariant bound. */
  const comparison = (test: JsExpr): { mono: Mono; rel: Rel; rhs: JsExpr; side: Constraint[] } | null => {
    if (test.kind === 'cond' && isNum(test.then, 1) && isNum(test.else, 0)) return comparison(test.test);
    if (test.kind !== 'binary' || !isRel(test.op) || !pure(test)) return null;
    const side: Constraint[] = [];
    if (base.invariant(test.rhs)) {
      const m = readMono(test.lhs, scope, side);
      if (m !== null && m.lin.idx !== null) return { mono: m, rel: test.op, rhs: test.rhs, side };
    }
    if (base.invariant(test.lhs)) {
      const m = readMono(test.rhs, scope, side);
      if (m !== null && m.lin.idx !== null) return { mono: m, rel: flip(test.op), rhs: test.lhs, side };
    }
    return null;
  };

  const dependsOn = (e: JsExpr, idx: string): boolean => {
    const m = readMono(e, scope, []);
    return m !== null && m.lin.idx === idx && m.lin.a !== 0;
  };

  const foldCond = (e: Extract<JsExpr, { kind: 'cond' }>): JsExpr => {
    // The in-range test of an indexing read, `((t = e), t >>> 0 < n && …) ? flat : rt.index(…)`:
    // the temporaries keep their values, the test and the failing branch go.
    const binds: JsExpr[] = [];
    let test = e.test;
    while (test.kind === 'seq' && test.first.kind === 'set') {
      binds.push(test.first);
      test = test.then;
    }
    const valueOf = (x: JsExpr): JsExpr => {
      const bound = x.kind === 'id' ? binds.find((b) => b.kind === 'set' && b.name === x.name) : undefined;
      return bound?.kind === 'set' ? bound.value : x;
    };
    const conjuncts = flatten(test, '&&');
    if (conjuncts.every((c) => inBoundsParts(c) !== null)) {
      const parts = conjuncts.map((c) => inBoundsParts(c)!);
      const saved = constraints.length;
      if (parts.every((p) => proveInRange(valueOf(p.e), p.n))) return substituteTemporaries(binds, e, readsOutside);
      constraints.length = saved;
    }
    const c = comparison(e.test);
    if (c === null || !pure(e.then) || !pure(e.else)) return e;
    const idx = c.mono.lin.idx!;
    const side = dependsOn(e.then, idx) ? 'then' : dependsOn(e.else, idx) ? 'else' : null;
    if (side === null) return e;
    const rel = side === 'then' ? c.rel : negation(c.rel);
    const k = constrain(c.mono, rel, c.rhs);
    if (k === null) return e;
    constraints.push(...c.side, k);
    changed = true;
    return side === 'then' ? e.then : e.else;
  };

  const foldMinMax = (e: Extract<JsExpr, { kind: 'call' }>, fn: 'min' | 'max'): JsExpr => {
    const variable = e.args.filter((a) => !base.invariant(a));
    if (variable.length !== 1 || e.args.length < 2 || !pure(variable[0]!)) return e;
    const side: Constraint[] = [];
    const m = readMono(variable[0]!, scope, side);
    if (m === null || m.lin.idx === null) return e;
    const bounds: Constraint[] = [];
    // Where E equals a bound the call returns either, the same number but for the sign of a
    // zero: E is the result there only when neither can be −0.
    const inclusive = neverMinusZero(variable[0]!) && e.args.every(neverMinusZero);
    for (const other of e.args) {
      if (other === variable[0]) continue;
      const k = constrain(m, fn === 'min' ? (inclusive ? '<=' : '<') : inclusive ? '>=' : '>', other);
      if (k === null) return e;
      bounds.push(k);
    }
    constraints.push(...side, ...bounds);
    changed = true;
    return variable[0]!;
  };

  const fold = (e: JsExpr): JsExpr => {
    const x = mapChildren(e, fold, false);
    if (x.kind === 'cond') return foldCond(x);
    const fn = mathName(x);
    if (x.kind === 'call' && (fn === 'min' || fn === 'max')) return foldMinMax(x, fn);
    return x;
  };

  const foldIf = (s: Extract<JsStmt, { kind: 'if' }>): JsStmt[] => {
    const test = fold(s.test);
    const then = s.then.flatMap(stmt);
    const otherwise = s.else.flatMap(stmt);
    // The rank-1 check after a load: `if (x === void 0) rt.oob(site, [e], [n], …)`.
    const loaded = voidTest(test);
    if (loaded !== null) {
      const at = loads.get(loaded);
      const checked = oobIndex(then);
      if (at !== undefined && checked !== null && same(at, checked.e) && proveInRange(at, checked.n)) return otherwise;
    }
    const disjuncts = flatten(test, '||');
    const kept = disjuncts.filter((d) => {
      const p = outsideParts(d);
      return p === null || !proveInRange(p.e, p.n);
    });
    if (kept.length === 0) return otherwise;
    const rebuilt = kept.length === disjuncts.length ? test : kept.reduce((a, b) => bin('||', a, b));
    return [{ ...s, test: rebuilt, then, else: otherwise }];
  };

  const stmt = (s: JsStmt): JsStmt[] => {
    switch (s.kind) {
      case 'decl': {
        const init = s.init === null ? null : fold(s.init);
        if (!s.mutable && init !== null) {
          if (init.kind === 'index') loads.set(s.name, init.index);
          else if (pure(init)) {
            const side: Constraint[] = [];
            const m = readMono(init, scope, side);
            if (m !== null) locals.set(s.name, { mono: m, side });
          }
        }
        return [{ ...s, init }];
      }
      case 'assign':
        return [{ ...s, target: fold(s.target), value: fold(s.value) }];
      case 'expr':
        return [{ ...s, expr: fold(s.expr) }];
      case 'if':
        return foldIf(s);
      case 'block':
        return [{ ...s, body: s.body.flatMap(stmt) }];
      case 'for':
      case 'while':
      case 'function':
      case 'break':
      case 'return':
      case 'comment':
        return [s];
      default:
        return [s satisfies never];
    }
  };

  const out = body.flatMap(stmt);
  return { body: out, constraints, changed };
}

/**
 * The flat index of a folded indexing read, `((t = e), …, flat)`, with each temporary whose value
 * is pure and that nothing but this read reads replaced by its value.
 */
function substituteTemporaries(
  binds: readonly JsExpr[],
  whole: Extract<JsExpr, { kind: 'cond' }>,
  readsOutside: (name: string, inside: number) => boolean,
): JsExpr {
  const kept: JsExpr[] = [];
  const values = new Map<string, JsExpr>();
  for (const b of binds) {
    if (b.kind !== 'set') continue;
    // Reads of the temporary in this conditional (its test, the flat index, the failing call):
    // if the body reads it nowhere else, its value can stand in for it.
    const inside = countReads(whole.test, b.name) + countReads(whole.then, b.name) + countReads(whole.else, b.name);
    if (pure(b.value) && !readsOutside(b.name, inside) && !values.has(b.name)) values.set(b.name, b.value);
    else kept.push(b);
  }
  const replaced = renameFree(whole.then, values);
  return kept.reduceRight<JsExpr>((acc, b) => seq(b, acc), replaced);
}

function countReads(e: JsExpr, name: string): number {
  let n = 0;
  forEachNode([{ kind: 'expr', expr: e }], {
    expr(x) {
      if (x.kind === 'id' && x.name === name) n++;
    },
  });
  return n;
}

function renameFree(e: JsExpr, values: ReadonlyMap<string, JsExpr>): JsExpr {
  if (e.kind === 'id') return values.get(e.name) ?? e;
  return mapChildren(e, (x) => renameFree(x, values), false);
}

/** Whether `e` is never −0: a literal other than −0, or an int32 operation's result. */
function neverMinusZero(e: JsExpr): boolean {
  if (e.kind === 'num') return !Object.is(e.value, -0);
  if (e.kind === 'binary') return e.op === '|' || e.op === '&' || e.op === '^' || e.op === '<<' || e.op === '>>' || e.op === '>>>';
  if (e.kind === 'unary' && e.op === '~') return true;
  return mathName(e) === 'imul';
}

function isRel(op: string): op is Rel {
  return op === '<' || op === '<=' || op === '>' || op === '>=';
}

function flatten(e: JsExpr, op: '&&' | '||'): JsExpr[] {
  return e.kind === 'binary' && e.op === op ? [...flatten(e.lhs, op), ...flatten(e.rhs, op)] : [e];
}

/** `e >>> 0 >= n` (an index outside [0, n)). */
function outsideParts(d: JsExpr): { e: JsExpr; n: JsExpr } | null {
  if (d.kind !== 'binary' || d.op !== '>=') return null;
  const u = d.lhs;
  if (u.kind !== 'binary' || u.op !== '>>>' || !isNum(u.rhs, 0)) return null;
  return { e: u.lhs, n: d.rhs };
}

/** `e >>> 0 < n` (an index inside [0, n)). */
function inBoundsParts(d: JsExpr): { e: JsExpr; n: JsExpr } | null {
  if (d.kind !== 'binary' || d.op !== '<') return null;
  const u = d.lhs;
  if (u.kind !== 'binary' || u.op !== '>>>' || !isNum(u.rhs, 0)) return null;
  return { e: u.lhs, n: d.rhs };
}

function voidTest(e: JsExpr): string | null {
  if (e.kind !== 'binary' || e.op !== '===' || e.lhs.kind !== 'id') return null;
  return e.rhs.kind === 'unary' && e.rhs.op === 'void' ? e.lhs.name : null;
}

/** The index and extent of a lone `rt.oob(site, [e], [n], …)` statement. */
function oobIndex(stmts: readonly JsStmt[]): { e: JsExpr; n: JsExpr } | null {
  if (stmts.length !== 1) return null;
  const s = stmts[0]!;
  if (s.kind !== 'expr' || s.expr.kind !== 'call') return null;
  const { callee, args } = s.expr;
  if (callee.kind !== 'member' || callee.prop !== 'oob' || callee.object.kind !== 'id' || callee.object.name !== 'rt') return null;
  const [, indices, dims] = args;
  if (indices?.kind !== 'array' || dims?.kind !== 'array' || indices.elems.length !== 1 || dims.elems.length !== 1) return null;
  return { e: indices.elems[0]!, n: dims.elems[0]! };
}

const same = (x: JsExpr, y: JsExpr): boolean => JSON.stringify(x) === JSON.stringify(y);

/** The innermost loop split into its general and interior parts, or null if there is nothing to gain. */
function splitInnermost(loop: ForStmt, chain: readonly ForStmt[], nest: Nest): JsStmt | null {
  if (exits(loop.body)) return null;
  const bodyWritten = writtenNames(loop.body);
  const steady = (e: JsExpr): boolean => pure(e) && [...namesOf(e)].every((n) => !bodyWritten.has(n) && n !== loop.index);
  if (!steady(loop.from) || !steady(loop.to)) return null;
  const usable = new Map<string, JsExpr | null>();
  for (const l of [...chain, loop]) {
    const known = integerIndex(l, nest);
    if (known !== null) usable.set(l.index, known.guard);
  }
  if (!usable.has(loop.index)) return null;
  const invariant = (e: JsExpr): boolean => pure(e) && [...namesOf(e)].every((n) => !nest.written.has(n));
  // Invariant offsets read as integers that the code does not show to be (a run-time scalar):
  // the interior is used only where they are.
  const integerGuards: JsExpr[] = [];
  const assumeInteger = (e: JsExpr): boolean => {
    if (e.kind !== 'id' || !invariant(e)) return false;
    if (!integerGuards.some((g) => same(g, isIntegerCall(e)))) integerGuards.push(isIntegerCall(e));
    return true;
  };
  const analysed = interiorBody(loop.body, { isIndex: (name) => usable.has(name), invariant, assumeInteger });
  if (!analysed.changed) return null;

  const { fresh } = nest.context;
  // The bounds of each constrained index, once before the nest.
  const ranges = new Map<string, { lo: string; hi: string }>();
  const byIndex = new Map<string, { lower: JsExpr[]; upper: JsExpr[] }>();
  for (const c of analysed.constraints) {
    const b = indexBound(c);
    const entry = byIndex.get(b.idx) ?? { lower: [], upper: [] };
    (b.side === 'lower' ? entry.lower : entry.upper).push(b.value);
    byIndex.set(b.idx, entry);
  }
  for (const [idx, { lower, upper }] of byIndex) {
    const lo = fresh('lo');
    const hi = fresh('hi');
    nest.before.push(constDecl(lo, extreme('max', lower)), constDecl(hi, extreme('min', upper)));
    ranges.set(idx, { lo, hi });
  }
  const guards = [...new Set([...byIndex.keys()])].flatMap((idx) => {
    const g = usable.get(idx);
    return g === null || g === undefined ? [] : [g];
  });
  const own = ranges.get(loop.index);
  // Whether this row lies in the interior: the outer indices in theirs, the guards hold, and the
  // innermost range is not NaN.
  const conditions: JsExpr[] = [...guards, ...integerGuards];
  if (own !== undefined) conditions.push(bin('<', id(own.lo), id(own.hi)));
  for (const l of chain) {
    const r = ranges.get(l.index);
    if (r !== undefined) conditions.push(bin('>=', id(l.index), id(r.lo)), bin('<', id(l.index), id(r.hi)));
  }

  // The interior copy: its own names, its row-invariant part hoisted, dead index code dropped.
  const renames = new Map<string, string>();
  forEachNode(analysed.body, {
    stmt(s) {
      if (s.kind === 'decl') renames.set(s.name, fresh(s.name.replace(/[0-9]+$/, '') || 'v'));
    },
  });
  const renamed = analysed.body.map((s) => renameStmt(s, (n) => renames.get(n) ?? n));
  const hoisted = hoistInvariants(dropDeadConsts(renamed), loop.index, fresh);

  const out: JsStmt[] = [];
  const bound = (e: JsExpr, prefix: string): JsExpr => {
    if (e.kind === 'id' || e.kind === 'num') return e;
    const name = fresh(prefix);
    out.push(constDecl(name, e));
    return id(name);
  };
  const from = bound(loop.from, 'f');
  const to = bound(loop.to, 't');
  let inside: JsExpr | null = null;
  if (conditions.length > 0) {
    const name = fresh('r');
    out.push(constDecl(name, conditions.reduce((a, b) => bin('&&', a, b))));
    inside = id(name);
  }
  const pick = (yes: JsExpr, no: JsExpr): JsExpr => (inside === null ? yes : { kind: 'cond', test: inside, then: yes, else: no });
  const p = fresh('p');
  const part = (start: JsExpr, end: JsExpr, body: readonly JsStmt[]): JsStmt => ({ ...loop, from: start, to: end, body });
  if (own === undefined) {
    // Only outer indices are constrained: a row is interior whole or not at all, so there is no
    // trailing general part (and no infinite bound, which would make the bounds doubles).
    if (inside === null) {
      out.push(...hoisted.pre, part(from, to, hoisted.body));
      return { kind: 'block', body: out };
    }
    out.push(constDecl(p, pick(from, to)));
    const general = part(from, id(p), loop.body);
    const interior = part(id(p), to, hoisted.body);
    out.push(...(loop.down ? [...hoisted.pre, interior, general] : [general, ...hoisted.pre, interior]));
    return { kind: 'block', body: out };
  }
  const q = fresh('q');
  const lo = id(own.lo);
  const hi = id(own.hi);
  if (!loop.down) {
    // [from, p) general, [p, q) interior, [q, to) general.
    out.push(constDecl(p, pick(mathCall('max', [from, mathCall('min', [lo, to])]), to)));
    out.push(constDecl(q, pick(mathCall('max', [id(p), mathCall('min', [hi, to])]), to)));
    out.push(part(from, id(p), loop.body), ...hoisted.pre, part(id(p), id(q), hoisted.body), part(id(q), to, loop.body));
  } else {
    // Downwards: [q, to) general, [p, q) interior, [from, p) general, in that order.
    out.push(constDecl(q, pick(mathCall('min', [to, mathCall('max', [hi, from])]), from)));
    out.push(constDecl(p, pick(mathCall('min', [id(q), mathCall('max', [lo, from])]), from)));
    out.push(part(id(q), to, loop.body), ...hoisted.pre, part(id(p), id(q), hoisted.body), part(from, id(p), loop.body));
  }
  return { kind: 'block', body: out };
}

/** `Math.max(…)`/`Math.min(…)` of the bounds, the numeric ones folded into one. */
function extreme(fn: 'max' | 'min', values: readonly JsExpr[]): JsExpr {
  const numeric = values.filter((v) => v.kind === 'num').map((v) => (v.kind === 'num' ? v.value : 0));
  const symbolic = values.filter((v) => v.kind !== 'num');
  const unique = symbolic.filter((v, k) => symbolic.findIndex((w) => same(v, w)) === k);
  const args = numeric.length === 0 ? unique : [...unique, num(fn === 'max' ? Math.max(...numeric) : Math.min(...numeric))];
  if (args.length === 0) return num(fn === 'max' ? -Infinity : Infinity);
  if (args.length === 1) return args[0]!;
  return mathCall(fn, args);
}
