// Unroll-and-jam of a cluster's outer loop over rows: four rows advance through one inner loop.
//
// A fold over a row is one chain of dependent floating-point operations (`acc = acc + x`), so its
// loop runs at the latency of the operation, not at memory bandwidth: greedyBottomUpBad's fused
// folds were as slow as a hand-written loop and no faster. Reassociating the sum would change
// the result's bits; running four rows' chains side by side does not (each row still folds left
// to right) and lets the processor overlap them. The transformation applies to a loop nest
//
//   for (i = 0; i < E; i++) { pre(i); for (j …) { inner(i, j) }; post(i) }
//
// only where moving rows past each other cannot be observed:
// - the inner loop and `post` raise no errors and call nothing (no `rt.` at all; counters
//   variants are never jammed), so the first error raised is still the first `pre` error in
//   row order, exactly as without jamming (`pre` parts keep their row order);
// - no array is both written and read in the nest (a scatter updates its destination in place),
//   so no row can see another row's writes;
// - the inner loop's bounds do not depend on the row, and nothing nests deeper.
// The rows left over (E mod 4) run in the original loop. In a work function of the parallel
// variant the loop runs the rows [lo, hi) of a chunk instead, and is jammed the same way.

import type { JsStmt } from './jsast.js';
import { add, bin, constDecl, forEachNode, id, mul, num, renameStmt, type Rename } from './jsast.js';
import { runtimeParam } from './runtimeHelpers.js';

const FACTOR = 4;

/** What a statement list contains, for the conditions above. */
interface Facts {
  readonly ids: Set<string>;
  readonly declared: Set<string>;
  readonly written: Set<string>;
  readonly read: Set<string>;
  loops: number;
}

function collect(stmts: readonly JsStmt[], facts: Facts): void {
  forEachNode(stmts, {
    expr(e, target) {
      if (e.kind === 'id') facts.ids.add(e.name);
      if (e.kind === 'index' && e.object.kind === 'id') (target ? facts.written : facts.read).add(e.object.name);
    },
    stmt(s) {
      if (s.kind === 'decl') facts.declared.add(s.name);
      if (s.kind === 'for') facts.declared.add(s.index);
      if (s.kind === 'for' || s.kind === 'while') facts.loops++;
      // Never inside a cluster's loops; refusing keeps the conditions simple.
      if (s.kind === 'return' || s.kind === 'function') facts.loops += 100;
    },
  });
}

function factsOf(stmts: readonly JsStmt[]): Facts {
  const facts: Facts = { ids: new Set(), declared: new Set(), written: new Set(), read: new Set(), loops: 0 };
  collect(stmts, facts);
  return facts;
}

/** Every identifier the statements read (locals, parameters, loop indices). */
export function identifiersOf(stmts: readonly JsStmt[]): ReadonlySet<string> {
  return factsOf(stmts).ids;
}

/**
 * The loop nest jammed by four rows, or null when the conditions of the header do not hold.
 * `fresh` makes the names of the copies' locals.
 */
export function jamRows(loop: JsStmt, fresh: (prefix: string) => string): JsStmt[] | null {
  // From 0, or from a work function's `lo` (parallel variant: the rows [lo, hi) of a chunk).
  if (loop.kind !== 'for' || loop.down) return null;
  if (loop.from.kind !== 'id' && (loop.from.kind !== 'num' || loop.from.value !== 0)) return null;
  if (loop.to.kind !== 'id') return null;
  const k = loop.body.findIndex((s) => s.kind === 'for');
  if (k < 0) return null;
  const inner = loop.body[k]!;
  if (inner.kind !== 'for') return null;
  const pre = loop.body.slice(0, k);
  const post = loop.body.slice(k + 1);
  const whole = factsOf(loop.body);
  const innerFacts = factsOf(inner.body);
  const preFacts = factsOf(pre);
  const tail = factsOf([{ kind: 'block', body: inner.body }, ...post]);
  if (whole.loops !== 1 || innerFacts.loops !== 0) return null;
  if (tail.ids.has(runtimeParam)) return null;
  for (const a of whole.written) if (whole.read.has(a)) return null;
  const bounds = factsOf([{ kind: 'expr', expr: inner.from }, { kind: 'expr', expr: inner.to }]);
  for (const name of bounds.ids) if (name === loop.index || preFacts.declared.has(name)) return null;
  const from = loop.from;

  // Copy c of the body: row i + c, every local of the body renamed.
  const locals = new Set([...whole.declared, loop.index]);
  locals.delete(inner.index);
  const copies = Array.from({ length: FACTOR }, (_, c) => {
    const names = new Map<string, string>();
    const rename: Rename = (name) => {
      if (c === 0 || !locals.has(name)) return name;
      let n = names.get(name);
      if (n === undefined) {
        n = fresh(name.replace(/[0-9]+$/, ''));
        names.set(name, n);
      }
      return n;
    };
    return {
      row: c === 0 ? null : constDecl(rename(loop.index), bin('+', id(loop.index), num(c))),
      pre: pre.map((s) => renameStmt(s, rename)),
      inner: inner.body.map((s) => renameStmt(s, rename)),
      post: post.map((s) => renameStmt(s, rename)),
    };
  });
  const quads = fresh('q');
  const step = fresh('k');
  const body: JsStmt[] = [
    constDecl(loop.index, add(from, mul(id(step), num(FACTOR)))),
    ...copies.flatMap((c) => (c.row === null ? [] : [c.row])),
    ...copies.flatMap((c) => c.pre),
    { ...inner, body: copies.flatMap((c) => c.inner) },
    ...copies.flatMap((c) => c.post),
  ];
  // From 0: the sequential module's form, kept apart so that its text stays byte for byte what it
  // was (the golden files of test/codegen).
  if (from.kind === 'num') {
    const extent = loop.to;
    return [
      constDecl(quads, bin('/', bin('-', extent, bin('%', extent, num(FACTOR))), num(FACTOR))),
      { kind: 'for', index: step, from: num(0), to: id(quads), down: false, body },
      { ...loop, from: mul(id(quads), num(FACTOR)) },
    ];
  }
  // From `lo`: the quads of [lo, hi), then its remainder rows.
  const span = bin('-', loop.to, from);
  return [
    constDecl(quads, bin('/', bin('-', span, bin('%', span, num(FACTOR))), num(FACTOR))),
    { kind: 'for', index: step, from: num(0), to: id(quads), down: false, body },
    { ...loop, from: add(from, mul(id(quads), num(FACTOR))) },
  ];
}
