// Element-level expressions and lambdas → JavaScript expressions.
//
// Arithmetic is exactly src/ir/scalarOps.ts: operations whose meaning is one JavaScript
// expression are inlined (`|0`, `>>>0`, Math.imul, Math.fround); floor division, modulo and
// integer powers call the runtime's helpers, which call scalarOps itself and attach the site's
// span to a division by zero. Both operands of `and`/`or` are evaluated (as the interpreter
// does); only `select` evaluates one branch, so an index inside the other may be out of range.

import { CompilerBug, type Span } from '../diagnostics/index.js';
import type { BinaryOp, Expr, IndexExpr, Lambda, ScalarType, VarName } from '../ir/types.js';
import {
  add, arr, bin, call, cond, constDecl, id, index, mathCall, member, mul, num, type JsExpr, type JsStmt,
} from './jsast.js';
import type { ReadOrder, SideTables } from './sites.js';

/** Where an array lives in generated code: its data and one extent expression per dimension. */
export interface ArrayRef {
  readonly name: VarName;
  readonly elem: ScalarType;
  readonly data: JsExpr;
  readonly dims: readonly JsExpr[];
}

/** What expression compilation needs from its surroundings. */
export interface ExprEnv {
  readonly tables: SideTables;
  /** What run-time errors name, as the interpreter does: `map`, `gather`, `scalar binding`. */
  readonly context: string;
  /** The enclosing statement's span, blamed when an expression has none of its own. */
  readonly span?: Span;
  readonly counters: boolean;
  scalar(name: VarName): JsExpr;
  array(name: VarName): ArrayRef;
  fresh(prefix: string): string;
}

export const rt = id('rt');

/** Brings a JavaScript number into the value set of `t`, as scalarOps.wrap does. */
export function wrapTo(t: ScalarType, e: JsExpr): JsExpr {
  switch (t) {
    case 'f64':
      return e;
    case 'f32':
      return mathCall('fround', [e]);
    case 'i32':
      return bin('|', e, num(0));
    case 'u32':
      return bin('>>>', e, num(0));
    case 'bool':
      return cond(bin('!==', e, num(0)), num(1), num(0));
    default:
      return t satisfies never;
  }
}

/** Runtime helper names for the operations that are not one JavaScript expression. */
export function helperName(op: '//' | '%' | '**', t: ScalarType): string {
  const opName = op === '//' ? 'floordiv' : op === '%' ? 'mod' : 'pow';
  return `${opName}_${t}`;
}

const comparisonOps = { '==': '===', '!=': '!==', '<': '<', '<=': '<=', '>': '>', '>=': '>=' } as const;

function binary(op: BinaryOp, t: ScalarType, a: JsExpr, b: JsExpr, site: () => number): JsExpr {
  switch (op) {
    case '+':
    case '-':
      return wrapTo(t, bin(op, a, b));
    case '*':
      if (t === 'i32') return mathCall('imul', [a, b]);
      if (t === 'u32') return bin('>>>', mathCall('imul', [a, b]), num(0));
      return wrapTo(t, bin('*', a, b));
    case '/':
      return wrapTo(t, bin('/', a, b));
    case '//':
    case '%':
    case '**':
      return call(member(rt, helperName(op, t)), [num(site()), a, b]);
    case '==':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=':
      return cond(bin(comparisonOps[op], a, b), num(1), num(0));
    case 'and':
      // Operands are bools (0 or 1): `&` evaluates both and equals scalarOps' `and`.
      return bin('&', a, b);
    case 'or':
      return bin('|', a, b);
    case 'min':
      return mathCall('min', [a, b]);
    case 'max':
      return mathCall('max', [a, b]);
    default:
      return op satisfies never;
  }
}

/** Wraps a memory load in the counters variant: `rt.count(slot, load)` returns the load. */
export function counted(env: ExprEnv, slot: () => number, load: JsExpr): JsExpr {
  return env.counters ? call(member(rt, 'count'), [num(slot()), load]) : load;
}

/**
 * The flat offset of index atoms into an array of extents `dims`, checked: in range it is the
 * row-major offset; otherwise `rt.oob(site, indices, extents, position, positionExtents)` throws
 * the interpreter's E402 (the array literals are built only on that path).
 */
export function checkedOffset(
  site: number,
  indices: readonly JsExpr[],
  dims: readonly JsExpr[],
  position: JsExpr,
  positionDims: readonly JsExpr[],
): JsExpr {
  if (indices.length === 0) return num(0);
  const inRange = indices
    .map((i, k) => bin('&&', bin('>=', i, num(0)), bin('<', i, dims[k]!)))
    .reduce((a, b) => bin('&&', a, b));
  const fail = call(member(rt, 'oob'), [num(site), arr(indices), arr(dims), position, arr(positionDims)]);
  return cond(inRange, flatIndex(indices, dims), fail);
}

/** Row-major flat index of checked per-dimension indices. */
export function flatIndex(indices: readonly JsExpr[], dims: readonly JsExpr[]): JsExpr {
  let flat: JsExpr = num(0);
  indices.forEach((ix, k) => {
    flat = k === 0 ? ix : add(mul(flat, dims[k]!), ix);
  });
  return flat;
}

function indexRead(e: IndexExpr, env: ExprEnv, order: ReadOrder): JsExpr {
  const ref = env.array(e.array);
  const rank = ref.dims.length;
  if (rank !== e.indices.length) {
    throw new CompilerBug('codegen', `index of a rank-${rank} array with ${e.indices.length} indices`);
  }
  let offset: JsExpr = num(0);
  if (rank > 0) {
    const site = env.tables.site({ kind: 'index', what: env.context, array: e.array, span: e.span ?? env.span });
    const indices = e.indices.map((ix) => compileExpr(ix, env));
    // `rt.ix<rank>(site, i…, extent…)` is the flat offset, or the interpreter's E402.
    offset = rank <= 3
      ? call(member(rt, `ix${rank}`), [num(site), ...indices, ...ref.dims])
      : call(member(rt, 'ixN'), [num(site), arr(indices), arr(ref.dims)]);
  }
  const load = index(ref.data, offset);
  return counted(env, () => env.tables.slot(ref.name, ref.elem, { kind: 'read', order }), load);
}

export function compileExpr(e: Expr, env: ExprEnv): JsExpr {
  switch (e.kind) {
    case 'const':
      return num(e.value);
    case 'var':
      return env.scalar(e.name);
    case 'unary': {
      const a = compileExpr(e.arg, env);
      if (e.op === 'not') return cond(bin('!==', a, num(0)), num(0), num(1));
      return wrapTo(e.type, { kind: 'unary', op: '-', arg: a });
    }
    case 'binary': {
      const t = e.lhs.type;
      const a = compileExpr(e.lhs, env);
      const b = compileExpr(e.rhs, env);
      return binary(e.op, t, a, b, () =>
        env.tables.site({ kind: 'divide', what: env.context, detail: e.op, span: e.span ?? env.span }),
      );
    }
    case 'call':
      return wrapTo(e.type, mathCall(e.fn, [compileExpr(e.arg, env)]));
    case 'cast':
      return wrapTo(e.to, compileExpr(e.arg, env));
    case 'select':
      return cond(compileExpr(e.cond, env), compileExpr(e.then, env), compileExpr(e.else, env));
    case 'index':
      return indexRead(e, env, 'indexed');
    case 'dim': {
      const ref = env.array(e.array);
      const d = ref.dims[e.axis];
      if (d === undefined) throw new CompilerBug('codegen', `dim axis ${e.axis} of a rank-${ref.dims.length} array`);
      return d;
    }
    default:
      return e satisfies never;
  }
}

function withoutScalars(env: ExprEnv): Omit<ExprEnv, 'scalar'> {
  return { tables: env.tables, counters: env.counters, context: env.context, span: env.span, fresh: env.fresh, array: env.array };
}

/** An expression cheap and pure enough to repeat instead of binding it to a local. */
export function isAtom(e: JsExpr): boolean {
  return e.kind === 'num' || e.kind === 'id';
}

/** Binds `e` to a fresh const (emitted into `out`) unless it is already an atom. */
export function bindAtom(e: JsExpr, prefix: string, env: ExprEnv, out: JsStmt[]): JsExpr {
  if (isAtom(e)) return e;
  const name = env.fresh(prefix);
  out.push(constDecl(name, e));
  return id(name);
}

/**
 * Applies a lambda to argument atoms: parameters are bound to the arguments, lets and results
 * become consts in `out`, in order. Returns one atom per result.
 */
export function applyLambda(lam: Lambda, args: readonly JsExpr[], env: ExprEnv, out: JsStmt[], prefix: string): JsExpr[] {
  if (lam.params.length !== args.length) {
    throw new CompilerBug('codegen', `lambda of ${lam.params.length} parameters applied to ${args.length} values`);
  }
  const locals = new Map<VarName, JsExpr>();
  lam.params.forEach((p, k) => locals.set(p.name, args[k]!));
  const inner: ExprEnv = { ...withoutScalars(env), scalar: (n) => locals.get(n) ?? env.scalar(n) };
  for (const l of lam.lets) locals.set(l.name, bindAtom(compileExpr(l.expr, inner), 't', env, out));
  return lam.results.map((r) => bindAtom(compileExpr(r, inner), prefix, env, out));
}
