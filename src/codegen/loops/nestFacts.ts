// What the reuse passes (rotate.ts, block.ts) need to know of a loop body: which locals it
// writes, which arrays it stores to, whether it can raise an error or leave the loop early, and
// the index of a load as an affine form in one loop index.
//
// Aliasing, once for both passes. Inside one cluster's function an array identifier that is
// stored to and one that is only loaded are different buffers:
// - a manifest output's memory (fresh, slot, pair, result) is never shared with an array live in
//   the same cluster (src/memory/NOTES.md: arrays live at once never share a slot; a `while`
//   pair writes one slot while the body reads the other);
// - an in-place scatter (a donated input or the block's own array) writes its destination, and
//   docs/PLANNING.md rule 3 puts every other reader of that destination in an EARLIER cluster;
//   the scatter itself reads the destination only as its destination (a combining scatter loads
//   and stores it through the same identifier, which the passes see as a store to it);
// - an elided copy's output aliases its source, which rule 7 treats as the same in-place update.
// So "no store to this identifier in the region" is "nothing in the region writes this memory";
// a store through anything but a plain identifier makes the passes refuse.

import { printExpr } from '../printer.js';
import type { JsExpr, JsStmt } from '../jsast.js';
import { bin, forEachNode, num } from '../jsast.js';
import { runtimeParam } from '../runtimeHelpers.js';

/** The effects of a list of statements, as the passes' conditions use them. */
export interface Effects {
  /** Locals declared, assigned, `set` or used as a loop index. */
  readonly written: ReadonlySet<string>;
  /** Identifiers of arrays stored to (`a[i] = …`). */
  readonly stored: ReadonlySet<string>;
  /** Identifiers of arrays loaded from. */
  readonly loaded: ReadonlySet<string>;
  /** Every identifier met. */
  readonly ids: ReadonlySet<string>;
  /** A store through something other than an identifier (never generated; refused). */
  readonly opaqueStore: boolean;
  /** Calls on `rt` (faults, counters): the statements may raise an error. */
  readonly runtime: boolean;
  /** Loops (`for`, `while`) inside. */
  readonly loops: number;
  /** `break`, `return` or a nested function: control the passes do not move. */
  readonly escapes: boolean;
  /** Calls other than `Math.*`, `Number.*` and `rt.*` (never generated in loop bodies; refused). */
  readonly unknownCalls: boolean;
}

export function effectsOf(stmts: readonly JsStmt[]): Effects {
  const written = new Set<string>();
  const stored = new Set<string>();
  const loaded = new Set<string>();
  const ids = new Set<string>();
  let opaqueStore = false;
  let runtime = false;
  let loops = 0;
  let escapes = false;
  let unknownCalls = false;
  forEachNode(stmts, {
    expr(e, target) {
      if (e.kind === 'id') {
        ids.add(e.name);
        if (e.name === runtimeParam) runtime = true;
      }
      if (e.kind === 'set') written.add(e.name);
      if (e.kind === 'call' && !isKnownCallee(e.callee)) unknownCalls = true;
      if (target) {
        if (e.kind === 'id') written.add(e.name);
        else if (e.kind === 'index' && e.object.kind === 'id') stored.add(e.object.name);
        else opaqueStore = true;
      } else if (e.kind === 'index' && e.object.kind === 'id') loaded.add(e.object.name);
    },
    stmt(s) {
      if (s.kind === 'decl') written.add(s.name);
      if (s.kind === 'for') {
        written.add(s.index);
        loops++;
      }
      if (s.kind === 'while') loops++;
      if (s.kind === 'break' || s.kind === 'return' || s.kind === 'function') escapes = true;
    },
  });
  return { written, stored, loaded, ids, opaqueStore, runtime, loops, escapes, unknownCalls };
}

function isKnownCallee(callee: JsExpr): boolean {
  return isPureCallee(callee) || (callee.kind === 'member' && callee.object.kind === 'id' && callee.object.name === runtimeParam);
}

/** `Math.*` and `Number.*` (`Number.isInteger`, should a pass emit one): no effect, same value for the same arguments. */
function isPureCallee(callee: JsExpr): boolean {
  return callee.kind === 'member' && callee.object.kind === 'id' && (callee.object.name === 'Math' || callee.object.name === 'Number');
}

/** Identifiers an expression reads. */
export function idsOfExpr(e: JsExpr): Set<string> {
  return effectsOf([{ kind: 'expr', expr: e }]).ids as Set<string>;
}

/**
 * An expression with no effect and the same value wherever it is evaluated while none of its
 * identifiers change: no `set`, no call but `Math.*` and `Number.*`, no load (a load's array may be written).
 */
export function isPure(e: JsExpr): boolean {
  let pure = true;
  forEachNode([{ kind: 'expr', expr: e }], {
    expr(x) {
      if (x.kind === 'set' || x.kind === 'index') pure = false;
      if (x.kind === 'call' && !isPureCallee(x.callee)) pure = false;
    },
  });
  return pure;
}

/** `Σ sign·term + k·index + constant` (or `Σ sign·term + ((index + constant) | 0)`): a load's index as a function of one loop index. */
export interface Affine {
  /** Terms that do not change within the loop, in the order first met. */
  readonly terms: readonly { readonly negative: boolean; readonly expr: JsExpr }[];
  /** The loop index's coefficient. */
  readonly k: number;
  /** An integer constant. */
  readonly constant: number;
  /**
   * The index part is `(index + constant) | 0` (int32 wrap, as the generator writes a shifted
   * neighbour): still a function of index + constant alone, so offsets carry the same way.
   */
  readonly wrapped: boolean;
}

/**
 * `e` as an affine form in `index`, or null. `invariant(name)` says whether a local keeps its
 * value within the loop; `definitions` are the body's own constants, expanded in place (the
 * generator names `const p = base + j` and loads `a[p]`). Only `+` and `-` are split; any other
 * pure sub-expression of invariant names is one term.
 */
export function affineIn(
  e: JsExpr,
  index: string,
  invariant: (name: string) => boolean,
  definitions: ReadonlyMap<string, JsExpr>,
  depth = 0,
): Affine | null {
  if (depth > 16) return null;
  const go = (x: JsExpr): Affine | null => affineIn(x, index, invariant, definitions, depth + 1);
  switch (e.kind) {
    case 'num':
      return Number.isSafeInteger(e.value) ? { terms: [], k: 0, constant: e.value, wrapped: false } : null;
    case 'id': {
      if (e.name === index) return { terms: [], k: 1, constant: 0, wrapped: false };
      const definition = definitions.get(e.name);
      if (definition !== undefined) return go(definition);
      return invariant(e.name) ? { terms: [{ negative: false, expr: e }], k: 0, constant: 0, wrapped: false } : null;
    }
    case 'binary':
      if (e.op === '|' && e.rhs.kind === 'num' && e.rhs.value === 0) {
        const inner = go(e.lhs);
        if (inner === null || inner.wrapped || inner.terms.length > 0 || inner.k !== 1) break;
        return { ...inner, wrapped: true };
      }
      if (e.op === '+' || e.op === '-') {
        const l = go(e.lhs);
        const r = go(e.rhs);
        if (l === null || r === null) return null;
        const sign = e.op === '-';
        if (l.wrapped || r.wrapped) {
          // Only invariant terms may be added to a wrapped part: B + ((k + c) | 0).
          const [w, other] = l.wrapped ? [l, r] : [r, l];
          if (other.k !== 0 || other.constant !== 0 || other.wrapped || (sign && w === r)) return null;
        }
        return {
          wrapped: l.wrapped || r.wrapped,
          terms: [...l.terms, ...r.terms.map((t) => ({ negative: t.negative !== sign, expr: t.expr }))],
          k: l.k + (sign ? -r.k : r.k),
          constant: l.constant + (sign ? -r.constant : r.constant),
        };
      }
      break;
    default:
      break;
  }
  // One opaque term: pure, and made of invariant names only.
  if (!isPure(e)) return null;
  for (const name of idsOfExpr(e)) if (name === index || definitions.has(name) || !invariant(name)) return null;
  return { terms: [{ negative: false, expr: e }], k: 0, constant: 0, wrapped: false };
}

/** A key that two affine forms share exactly when their terms are the same multiset. */
export function termsKey(form: Affine, canonical: (e: JsExpr) => string = printExpr): string {
  const terms = form.terms
    .map((t) => `${t.negative ? '-' : '+'}${canonical(t.expr)}`)
    .sort()
    .join(' ');
  return `${form.wrapped ? 'wrapped ' : ''}${terms}`;
}

/**
 * Canonical text of a loop-invariant expression: names of pure `const`s expanded to their
 * definitions (the generator names the same row base twice: `h196`, `h197`), except where a
 * definition reads a local that is assigned somewhere (its value could differ between the two
 * declarations).
 */
export function canonicalText(stmts: readonly JsStmt[]): (e: JsExpr) => string {
  const definitions = new Map<string, JsExpr>();
  const assigned = new Set<string>();
  forEachNode(stmts, {
    expr(e, target) {
      if (e.kind === 'set') assigned.add(e.name);
      if (target && e.kind === 'id') assigned.add(e.name);
    },
    stmt(s) {
      if (s.kind === 'decl' && !s.mutable && s.init !== null && isPure(s.init)) {
        // A name declared twice (in two scopes) with different values is not expanded.
        const earlier = definitions.get(s.name);
        if (earlier !== undefined && printExpr(earlier) !== printExpr(s.init)) assigned.add(s.name);
        definitions.set(s.name, s.init);
      }
      if (s.kind === 'decl' && (s.mutable || s.init === null || !isPure(s.init))) assigned.add(s.name);
    },
  });
  const expand = (e: JsExpr, depth: number): JsExpr | null => {
    if (depth > 32) return null;
    if (e.kind === 'id') {
      if (assigned.has(e.name)) return null;
      const d = definitions.get(e.name);
      return d === undefined ? e : expand(d, depth + 1);
    }
    if (e.kind === 'num') return e;
    if (e.kind === 'binary') {
      const l = expand(e.lhs, depth + 1);
      const r = expand(e.rhs, depth + 1);
      return l === null || r === null ? null : { ...e, lhs: l, rhs: r };
    }
    return null;
  };
  return (e) => {
    const x = expand(e, 0);
    return x === null ? printExpr(e) : `=${printExpr(x)}`;
  };
}

/** `Σ sign·term + at + constant` as an expression (integer arithmetic on doubles: exact). */
export function affineExpr(form: Affine, at: JsExpr, constant: number): JsExpr {
  if (form.wrapped) {
    // B + ((at + c) | 0): the wrapped part first, as one term.
    const part = bin('|', constant === 0 ? at : constant > 0 ? bin('+', at, num(constant)) : bin('-', at, num(-constant)), num(0));
    return affineExpr({ ...form, wrapped: false }, part, 0);
  }
  if (at.kind === 'num' && constant !== 0 && Number.isSafeInteger(at.value + constant) && form.terms.some((t) => !t.negative)) {
    return affineExpr(form, num(at.value + constant), 0);
  }
  let sum: JsExpr | null = null;
  const plus = (x: JsExpr): void => {
    sum = sum === null ? x : bin('+', sum, x);
  };
  for (const t of form.terms) if (!t.negative) plus(t.expr);
  if (!(at.kind === 'num' && at.value === 0 && sum !== null)) plus(at);
  let result: JsExpr = sum!;
  for (const t of form.terms) if (t.negative) result = bin('-', result, t.expr);
  if (constant > 0) result = bin('+', result, num(constant));
  if (constant < 0) result = bin('-', result, num(-constant));
  return result;
}
