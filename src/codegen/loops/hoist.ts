// Loop-invariant code motion for one innermost loop body (the interior copy of ./interior.ts).
//
// Once the interior's wrapped coordinates are folded to their affine side, most of a stencil's
// index arithmetic no longer depends on the innermost index: `const m26 = i20 - 1 | 0` and the
// row part `(m26 * n7 + m27) * n8` of a flat index are the same for the whole row. This moves
// them before the loop, so a load is `a[base + k]`. Only pure expressions move (numbers, names,
// arithmetic, comparisons, conditionals, `Math` calls): they can neither fail nor observe a
// store, so evaluating them once per row, even for a row the loop then runs zero times, computes
// the same values. A moved expression keeps its operations and operands, so its value is the
// same bit for bit (`| 0` and `Math.imul` stay where they were). Also here: dropping a pure
// `const` that nothing reads any more (the indices only a removed bounds check used).

import type { JsExpr, JsStmt } from '../jsast.js';
import { constDecl, forEachNode, id, mapChildren } from '../jsast.js';

/** Whether `e` always gives the same value for the same names and can neither fail nor call out. */
export function pure(e: JsExpr): boolean {
  switch (e.kind) {
    case 'num':
    case 'id':
      return true;
    case 'binary':
      return pure(e.lhs) && pure(e.rhs);
    case 'unary':
      return pure(e.arg);
    case 'cond':
      return pure(e.test) && pure(e.then) && pure(e.else);
    case 'call':
      return e.callee.kind === 'member' && e.callee.object.kind === 'id' && e.callee.object.name === 'Math' && e.args.every(pure);
    case 'member':
    case 'index':
    case 'array':
    case 'set':
    case 'seq':
      return false;
    default:
      return e satisfies never;
  }
}

/** The names `e` reads (a `Math` call's `Math` included). */
export function namesOf(e: JsExpr): Set<string> {
  const names = new Set<string>();
  forEachNode([{ kind: 'expr', expr: e }], {
    expr(x) {
      if (x.kind === 'id') names.add(x.name);
    },
  });
  return names;
}

/** Names the statements change: every declaration, assignment target, temporary and loop index. */
export function writtenNames(stmts: readonly JsStmt[]): Set<string> {
  const names = new Set<string>();
  forEachNode(stmts, {
    stmt(s) {
      if (s.kind === 'decl') names.add(s.name);
      if (s.kind === 'for') names.add(s.index);
      if (s.kind === 'assign' && s.target.kind === 'id') names.add(s.target.name);
    },
    expr(e) {
      if (e.kind === 'set') names.add(e.name);
    },
  });
  return names;
}

/** Whether `e` is worth a name of its own: it computes something and reads a name. */
function worthHoisting(e: JsExpr): boolean {
  if (e.kind === 'num' || e.kind === 'id') return false;
  if (e.kind === 'unary' && e.op === 'void') return false;
  return namesOf(e).size > (isMathCallee(e) ? 1 : 0);
}

function isMathCallee(e: JsExpr): boolean {
  return e.kind === 'call' && e.callee.kind === 'member';
}

/**
 * The body of a loop over `index` split into what may run once before it (`pre`, in order) and
 * what stays. `fresh` names the hoisted sub-expressions.
 */
export function hoistInvariants(
  body: readonly JsStmt[],
  index: string,
  fresh: (prefix: string) => string,
): { pre: JsStmt[]; body: JsStmt[] } {
  // Names that may change from one iteration to the next: the index, what the body assigns,
  // and (until hoisted) what it declares.
  const variant = writtenNames(body);
  variant.add(index);
  const pre: JsStmt[] = [];
  const seen = new Map<string, string>();
  const invariant = (e: JsExpr): boolean => pure(e) && [...namesOf(e)].every((n) => !variant.has(n));
  const lift = (e: JsExpr): JsExpr => {
    if (invariant(e)) {
      if (!worthHoisting(e)) return e;
      // One name per value: MG's neighbours share their row bases.
      const key = JSON.stringify(e);
      const known = seen.get(key);
      if (known !== undefined) return id(known);
      const name = fresh('h');
      seen.set(key, name);
      pre.push(constDecl(name, e));
      return id(name);
    }
    return mapChildren(e, lift, false);
  };
  const stmt = (s: JsStmt): JsStmt => {
    switch (s.kind) {
      case 'decl':
        return { ...s, init: s.init === null ? null : lift(s.init) };
      case 'assign':
        return { ...s, target: s.target.kind === 'id' ? s.target : lift(s.target), value: lift(s.value) };
      case 'expr':
        return { ...s, expr: lift(s.expr) };
      case 'if':
        return { ...s, test: lift(s.test), then: s.then.map(stmt), else: s.else.map(stmt) };
      case 'block':
        return { ...s, body: s.body.map(stmt) };
      case 'while':
      case 'for':
      case 'function':
      case 'return':
      case 'break':
      case 'comment':
        return s;
      default:
        return s satisfies never;
    }
  };
  const kept: JsStmt[] = [];
  for (const s of body) {
    // A whole `const` whose value is the same for every iteration moves out, name and all.
    if (s.kind === 'decl' && !s.mutable && s.init !== null && invariant(s.init)) {
      variant.delete(s.name);
      pre.push(s);
      continue;
    }
    kept.push(stmt(s));
  }
  return { pre, body: kept };
}

/** The statements without the pure `const`s (at their top level) that nothing reads. */
export function dropDeadConsts(stmts: readonly JsStmt[]): JsStmt[] {
  let current = [...stmts];
  for (;;) {
    const read = new Set<string>();
    forEachNode(current, {
      expr(e) {
        if (e.kind === 'id') read.add(e.name);
      },
    });
    const next = current.filter((s) => !(s.kind === 'decl' && !s.mutable && s.init !== null && pure(s.init) && !read.has(s.name)));
    if (next.length === current.length) return next;
    current = next;
  }
}
