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
  /** Calls other than `Math.*` and `rt.*` (never generated in loop bodies; refused). */
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
  return callee.kind === 'member' && callee.object.kind === 'id' && (callee.object.name === 'Math' || callee.object.name === runtimeParam);
}

/** Identifiers an expression reads. */
export function idsOfExpr(e: JsExpr): Set<string> {
  return effectsOf([{ kind: 'expr', expr: e }]).ids as Set<string>;
}

/**
 * An expression with no effect and the same value wherever it is evaluated while none of its
 * identifiers change: no `set`, no call but `Math.*`, no load (a load's array may be written).
 */
export function isPure(e: JsExpr): boolean {
  let pure = true;
  forEachNode([{ kind: 'expr', expr: e }], {
    expr(x) {
      if (x.kind === 'set' || x.kind === 'index') pure = false;
      if (x.kind === 'call' && !(x.callee.kind === 'member' && x.callee.object.kind === 'id' && x.callee.object.name === 'Math')) pure = false;
    },
  });
  return pure;
}

/** `Σ sign·term + k·index + constant`: a load's index as a function of one loop index. */
export interface Affine {
  /** Terms that do not change within the loop, in the order first met. */
  readonly terms: readonly { readonly negative: boolean; readonly expr: JsExpr }[];
  /** The loop index's coefficient. */
  readonly k: number;
  /** An integer constant. */
  readonly constant: number;
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
      return Number.isSafeInteger(e.value) ? { terms: [], k: 0, constant: e.value } : null;
    case 'id': {
      if (e.name === index) return { terms: [], k: 1, constant: 0 };
      const definition = definitions.get(e.name);
      if (definition !== undefined) return go(definition);
      return invariant(e.name) ? { terms: [{ negative: false, expr: e }], k: 0, constant: 0 } : null;
    }
    case 'binary':
      if (e.op === '+' || e.op === '-') {
        const l = go(e.lhs);
        const r = go(e.rhs);
        if (l === null || r === null) return null;
        const sign = e.op === '-';
        return {
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
  return { terms: [{ negative: false, expr: e }], k: 0, constant: 0 };
}

/** A key that two affine forms share exactly when their terms are the same multiset. */
export function termsKey(form: Affine): string {
  return form.terms
    .map((t) => `${t.negative ? '-' : '+'}${printExpr(t.expr)}`)
    .sort()
    .join(' ');
}

/** `Σ sign·term + at + constant` as an expression (integer arithmetic on doubles: exact). */
export function affineExpr(form: Affine, at: JsExpr, constant: number): JsExpr {
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
