// Values a cluster's loop body computes more than once, computed once.
//
// Programs in combinator style repeat element computations across nodes: MG's stencils gather
// each of 20–27 neighbours through its own index map, and the maps share their components
// (`(i − 1) mod n` along one axis appears in nine of them), so the fused loop recomputed each
// wrapped coordinate many times per point, with a branch each time. V8 does not merge them: a
// conditional is a branch, and its global value numbering does not merge values computed by
// separate branches. Here a `const` whose initialiser is pure and equal, after the renamings
// made so far, to that of a `const` declared before it in the same or an enclosing block is
// dropped, and its name replaced by the earlier one's (MG class W's stencil loop: 2.6× faster).
//
// Only expressions that can neither fail nor observe a change are shared: numbers, constants'
// names, arithmetic, comparisons, conditionals and `Math` calls over them. Loads (an array may be
// written in between), calls of the runtime (they raise errors, in their order), temporaries
// (`set`) and anything that reads a variable assigned anywhere in the function are never shared,
// so what the code computes and which error it raises first are unchanged.
//
// Values are compared up to the order of commutative operands (codegen/commute.ts), and every
// expression's commutative operations are written in the order first met for their value, so
// `const b = y + x` after `const a = x + y` is `a`, and a repeated `(y + x)` inside a larger
// expression reads `(x + y)`, which V8 then computes once (LULESH's force loop: 7% faster).

import type { JsExpr, JsStmt } from './jsast.js';
import { forEachNode, renameExpr, renameStmt } from './jsast.js';
import { ExprKeys } from './commute.js';

/** Names that change after their declaration: `let`s, assignment targets, temporaries. */
function mutableNames(stmts: readonly JsStmt[]): Set<string> {
  const names = new Set<string>();
  forEachNode(stmts, {
    stmt(s) {
      if (s.kind === 'decl' && s.mutable) names.add(s.name);
      if (s.kind === 'assign' && s.target.kind === 'id') names.add(s.target.name);
    },
    expr(e) {
      if (e.kind === 'set') names.add(e.name);
    },
  });
  return names;
}

/** Whether `e` always gives the same value for the same names and can neither fail nor call out. */
function shareable(e: JsExpr, mutable: ReadonlySet<string>): boolean {
  const go = (x: JsExpr): boolean => shareable(x, mutable);
  switch (e.kind) {
    case 'num':
      return true;
    case 'id':
      return !mutable.has(e.name);
    case 'binary':
      return go(e.lhs) && go(e.rhs);
    case 'unary':
      return go(e.arg);
    case 'cond':
      return go(e.test) && go(e.then) && go(e.else);
    case 'call':
      return e.callee.kind === 'member' && e.callee.object.kind === 'id' && e.callee.object.name === 'Math' && e.args.every(go);
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

/** One block's known values (by their expression's key, ExprKeys), seeing its enclosing blocks'. */
interface Known {
  readonly values: Map<number, string>;
  readonly outer: Known | null;
}

function lookup(known: Known | null, key: number): string | undefined {
  for (let k = known; k !== null; k = k.outer) {
    const name = k.values.get(key);
    if (name !== undefined) return name;
  }
  return undefined;
}

/** A statement without nested statements, its expressions mapped by `f`. */
function mapExprs(s: JsStmt & { readonly kind: 'decl' | 'assign' | 'expr' | 'return' }, f: (e: JsExpr) => JsExpr): JsStmt {
  switch (s.kind) {
    case 'decl':
      return { ...s, init: s.init === null ? null : f(s.init) };
    case 'assign':
      return { ...s, target: f(s.target), value: f(s.value) };
    case 'expr':
      return { ...s, expr: f(s.expr) };
    case 'return':
      return { ...s, value: s.value === null ? null : f(s.value) };
    default:
      return s satisfies never;
  }
}

/**
 * The statements with every repeated pure `const` replaced by the first one's name, and the
 * operands of commutative operations in the order first met for their value.
 */
export function shareValues(stmts: readonly JsStmt[]): JsStmt[] {
  const mutable = mutableNames(stmts);
  const keys = new ExprKeys();
  const alias = new Map<string, string>();
  const rename = (name: string): string => alias.get(name) ?? name;
  const orient = (e: JsExpr): JsExpr => keys.orient(e).expr;
  const expr = (e: JsExpr): JsExpr => orient(renameExpr(e, rename));
  const block = (list: readonly JsStmt[], outer: Known | null): JsStmt[] => {
    const known: Known = { values: new Map(), outer };
    const out: JsStmt[] = [];
    for (const s of list) {
      if (s.kind === 'decl' && !s.mutable && s.init !== null) {
        const { expr: init, key } = keys.orient(renameExpr(s.init, rename));
        if (shareable(init, mutable)) {
          const earlier = lookup(known, key);
          if (earlier !== undefined) {
            alias.set(s.name, earlier);
            continue;
          }
          known.values.set(key, s.name);
        }
        out.push({ ...s, init });
        continue;
      }
      out.push(nested(s, known));
    }
    return out;
  };
  // Nested blocks see the values declared before them; a block's own are not seen after it.
  const nested = (s: JsStmt, known: Known): JsStmt => {
    switch (s.kind) {
      case 'for':
        return { ...s, from: expr(s.from), to: expr(s.to), body: block(s.body, known) };
      case 'while':
        return { ...s, test: expr(s.test), body: block(s.body, known) };
      case 'if':
        return { ...s, test: expr(s.test), then: block(s.then, known), else: block(s.else, known) };
      case 'block':
        return { ...s, body: block(s.body, known) };
      case 'decl':
      case 'assign':
      case 'expr':
      case 'return': {
        const renamed = renameStmt(s, rename);
        return mapExprs(renamed as typeof s, orient);
      }
      case 'break':
      case 'comment':
      case 'function':
        return renameStmt(s, rename);
      default:
        return s satisfies never;
    }
  };
  return block(stmts, null);
}
