// Walks over a function's JS AST that the WGSL translator needs: which arrays the body writes or
// updates atomically, which names it declares, whether an expression assigns (so that reads in it
// must be copied), and which partial a `partials[…]` index names.

import { forEachNode, type JsExpr, type JsStmt } from '../jsast.js';

/** A work function's own parameters (program.ts `workParams`). */
export const workParams = { lo: 'lo', hi: 'hi', chunk: 'chunk', partials: 'partials' } as const;

/** j of `partials[chunk * width + j]` (`partials[chunk]` is component 0), or null when the index has another form. */
export function partialComponent(index: JsExpr, width: number): number | null {
  // A row is `chunk · width` in a work function and `k · width` in the device variant's glue
  // functions, whose loop over the chunks counts in a local: any identifier holds a row number.
  const isChunk = (e: JsExpr): boolean => e.kind === 'id';
  const isRow = (e: JsExpr): boolean =>
    (width === 1 && isChunk(e)) ||
    (e.kind === 'binary' && e.op === '*' && ((isChunk(e.lhs) && e.rhs.kind === 'num' && e.rhs.value === width) || (isChunk(e.rhs) && e.lhs.kind === 'num' && e.lhs.value === width)));
  if (isRow(index)) return 0;
  if (index.kind === 'binary' && index.op === '+' && isRow(index.lhs) && index.rhs.kind === 'num' && Number.isInteger(index.rhs.value)) return index.rhs.value;
  return null;
}

/** Whether `e` assigns (a `set`) or calls something with effects (Atomics), so reads in it must be snapshots. */
export function hasEffects(e: JsExpr): boolean {
  let found = false;
  const visit = (x: JsExpr): void => {
    if (found) return;
    switch (x.kind) {
      case 'set':
        found = true;
        return;
      case 'call':
        if (x.callee.kind === 'member' && x.callee.object.kind === 'id' && x.callee.object.name === 'Atomics') found = true;
        x.args.forEach(visit);
        return;
      case 'binary':
        visit(x.lhs);
        visit(x.rhs);
        return;
      case 'unary':
        visit(x.arg);
        return;
      case 'cond':
        visit(x.test);
        visit(x.then);
        visit(x.else);
        return;
      case 'index':
        visit(x.object);
        visit(x.index);
        return;
      case 'seq':
        visit(x.first);
        visit(x.then);
        return;
      case 'member':
        visit(x.object);
        return;
      case 'array':
        x.elems.forEach(visit);
        return;
      case 'num':
      case 'id':
        return;
      default:
        x satisfies never;
    }
  };
  visit(e);
  return found;
}

/** Visits every expression of `stmts` (nested statements included): jsast.ts's walk. */
export function eachExpr(stmts: readonly JsStmt[], f: (e: JsExpr, target: boolean) => void, onStmt?: (s: JsStmt) => void): void {
  forEachNode(stmts, onStmt === undefined ? { expr: f } : { expr: f, stmt: onStmt });
}

/** Whether `stmts` assign local `name` (an assignment or a `set`). */
export function assigns(stmts: readonly JsStmt[], name: string): boolean {
  let found = false;
  eachExpr(
    stmts,
    (e) => {
      if (e.kind === 'set' && e.name === name) found = true;
    },
    (s) => {
      if (s.kind === 'assign' && s.target.kind === 'id' && s.target.name === name) found = true;
    },
  );
  return found;
}

/** What the body does with its arrays: stores (or atomic updates) and Atomics at all. */
export function arrayUses(stmts: readonly JsStmt[]): { written: Set<string>; atomic: Set<string>; mutable: Set<string>; consts: Set<string> } {
  const written = new Set<string>();
  const atomic = new Set<string>();
  const mutable = new Set<string>();
  const consts = new Set<string>();
  eachExpr(
    stmts,
    (e, target) => {
      if (target && e.kind === 'index' && e.object.kind === 'id') written.add(e.object.name);
      if (e.kind === 'set') mutable.add(e.name);
      if (e.kind === 'call' && e.callee.kind === 'member' && e.callee.object.kind === 'id' && e.callee.object.name === 'Atomics') {
        const a = e.args[0];
        if (a?.kind === 'id') {
          atomic.add(a.name);
          if (e.callee.prop !== 'load') written.add(a.name);
        }
      }
    },
    (s) => {
      if (s.kind === 'decl') (s.mutable ? mutable : consts).add(s.name);
    },
  );
  return { written, atomic, mutable, consts };
}
