// Element-level expressions and lambdas → JavaScript expressions.
//
// Arithmetic is exactly src/ir/scalarOps.ts: operations whose meaning is one JavaScript
// expression are inlined (`|0`, `>>>0`, Math.imul, Math.fround), and so are floor division and
// modulo (see `divide`): by a non-zero constant without any zero check, otherwise with an inline
// test that calls the runtime only to raise E401. Integer powers call the runtime's helpers,
// which call scalarOps itself; float powers are `Math.pow`, as scalarOps computes them. Both
// operands of `and`/`or` are evaluated (as the interpreter does); only `select` evaluates one
// branch, so an index inside the other may be out of range.
//
// Inline checks keep the hot path free of calls: an index read is `data[(t = i) >>> 0 < n ? t :
// rt.index(site, [t], [n])]`, whose failing branch V8 compiles out of line. The temporaries
// (`set` in jsast.ts) keep every operand evaluated once, in the interpreter's order, inside the
// one expression, so the first fault the interpreter would raise is still the first raised;
// several indices are all computed first, then compared in a `&&` chain of branches.

import { CompilerBug, type Span } from '../diagnostics/index.js';
import type { BinaryOp, Expr, IndexExpr, Lambda, ScalarType, VarName } from '../ir/types.js';
import {
  add, arr, bin, cond, constDecl, exprStmt, id, index, mathCall, member, mul, num, seq, set, type JsExpr, type JsStmt,
} from './jsast.js';
import { arithmeticHelpers, callHelper, runtimeParam } from './runtimeHelpers.js';
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
    case 'u8':
      return bin('&', e, num(255));
    case 'i8':
      return bin('>>', bin('<<', e, num(24)), num(24));
    case 'bool':
      return cond(bin('!==', e, num(0)), num(1), num(0));
    default:
      return t satisfies never;
  }
}

const comparisonOps = { '==': '===', '!=': '!==', '<': '<', '<=': '<=', '>': '>', '>=': '>=' } as const;

function binary(op: BinaryOp, t: ScalarType, a: JsExpr, b: JsExpr, site: () => number, fresh: (p: string) => string): JsExpr {
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
      return t === 'bool' ? callHelper(arithmeticHelpers[op][t], [num(site()), a, b]) : divide(op, t, a, b, site, fresh);
    case '**':
      // Floats: scalarOps' power is wrap(t, Math.pow(a, b)), one inline call (LULESH's cube
      // roots are in its hottest loop). Integers keep the helper: exact repeated squaring, and
      // a negative power of zero raises E401.
      if (t === 'f64' || t === 'f32') return wrapTo(t, mathCall('pow', [a, b]));
      return callHelper(arithmeticHelpers[op][t], [num(site()), a, b]);
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
    case '&':
    case '|':
    case '^':
      // JavaScript's operators are scalarOps' (count modulo 32); the int32 result is an i32
      // value as it stands, a u32 one needs `>>> 0`. On two widened 8-bit values (u8
      // zero-extended, i8 sign-extended) these give a widened 8-bit value: no wrap.
      return t === 'u32' ? bin('>>>', bin(op, a, b), num(0)) : bin(op, a, b);
    case '<<':
      return t === 'i32' ? bin(op, a, b) : wrapTo(t, bin(op, a, b));
    case '>>':
      // Arithmetic on i32 and i8, logical on u32 (whose `>>>` result is already in [0, 2^32));
      // a u8 value is non-negative, so `>>` is logical on it and stays in [0, 256).
      return t === 'u32' ? bin('>>>', a, b) : bin('>>', a, b);
    default:
      return op satisfies never;
  }
}

/**
 * The number of bits set in ToInt32(a), 0..32 (a value of i32 and u32 alike), as scalarOps'
 * popcount: the branch-free sideways sum (pairs, nibbles, bytes; the bytes summed by one
 * multiply), every step on int32 values, so the WebAssembly translator takes it too.
 */
function bitsSet(a: JsExpr, fresh: (p: string) => string): JsExpr {
  const x = atomOf(a, fresh);
  const pairs = fresh('t');
  const nibbles = fresh('t');
  const p = id(pairs);
  const q = id(nibbles);
  const setPairs = set(pairs, bin('|', bin('-', x.atom, bin('&', bin('>>>', x.atom, num(1)), num(0x55555555))), num(0)));
  const setNibbles = set(nibbles, add(bin('&', p, num(0x33333333)), bin('&', bin('>>>', p, num(2)), num(0x33333333))));
  const bytes = bin('&', add(q, bin('>>>', q, num(4))), num(0x0f0f0f0f));
  return sequence([x.bind, setPairs, setNibbles], bin('>>>', mathCall('imul', [bytes, num(0x01010101)]), num(24)));
}

/** `e` as an atom: itself, or a fresh temporary set to it (the `set` is returned to be evaluated). */
function atomOf(e: JsExpr, fresh: (p: string) => string): { readonly bind: JsExpr | null; readonly atom: JsExpr } {
  if (isAtom(e)) return { bind: null, atom: e };
  const t = fresh('t');
  return { bind: set(t, e), atom: id(t) };
}

/** Evaluates the `set`s of `binds` in order, then is `body`. */
function sequence(binds: readonly (JsExpr | null)[], body: JsExpr): JsExpr {
  return binds.reduceRight<JsExpr>((acc, b) => (b === null ? acc : seq(b, acc)), body);
}

/**
 * Floor division and floor modulo, inline, with the values of scalarOps.floorDiv/floorMod:
 * - floats: `floor(a / b)`; the remainder moved to the divisor's sign. Never an error.
 * - integers by a power of two: a mask or a shift.
 * - integers by another non-zero constant: no zero check; for i32 by a positive constant, a
 *   non-negative dividend takes the plain `a / b | 0` and `a % b` (which V8 compiles to a
 *   multiply and shift), a negative one the floor correction.
 * - integers by anything else: `b === 0` raises the interpreter's E401 through `rt.divzero`.
 * |a|, |b| < 2^32, so the double quotient is within one ulp and truncating or flooring it is exact.
 */
function divide(op: '//' | '%', t: Exclude<ScalarType, 'bool'>, a: JsExpr, b: JsExpr, site: () => number, fresh: (p: string) => string): JsExpr {
  const isInt = t !== 'f64' && t !== 'f32';
  const constant = b.kind === 'num' ? b.value : null;
  if (isInt && constant !== null && isPowerOfTwo(constant)) {
    // One instruction whose result V8 knows is in [0, b) (MG's periodic neighbours, `% 128`,
    // then need no sign test, and their index checks get cheaper): for a two's-complement i32,
    // or a u32, `a & (b - 1)` is the floor remainder and the arithmetic shift `a >> k` the floor
    // quotient (`>>>` for u32, whose values may exceed 2^31).
    if (op === '%') return bin('&', a, num(constant - 1));
    return bin(t === 'u32' ? '>>>' : '>>', a, num(Math.log2(constant)));
  }
  if (op === '//') {
    if (!isInt) return wrapTo(t, mathCall('floor', [bin('/', a, b)]));
    if (constant !== null && constant !== 0) {
      if (t === 'u32') return bin('>>>', bin('/', a, b), num(0));
      if (constant > 0) {
        const x = atomOf(a, fresh);
        const fast = bin('|', bin('/', x.atom, b), num(0));
        return sequence([x.bind], cond(bin('>=', x.atom, num(0)), fast, wrapTo(t, mathCall('floor', [bin('/', x.atom, b)]))));
      }
      return wrapTo(t, mathCall('floor', [bin('/', a, b)]));
    }
    const x = atomOf(a, fresh);
    const y = atomOf(b, fresh);
    const zero = callHelper('divzero', [num(site()), x.atom, y.atom]);
    return sequence([x.bind, y.bind], cond(bin('===', y.atom, num(0)), zero, wrapTo(t, mathCall('floor', [bin('/', x.atom, y.atom)]))));
  }
  // Floor modulo.
  if (t === 'u32' || t === 'u8') {
    // Both operands non-negative: the JavaScript remainder is the floor remainder.
    if (constant !== null && constant !== 0) return bin('>>>', bin('%', a, b), num(0));
    const x = atomOf(a, fresh);
    const y = atomOf(b, fresh);
    const zero = callHelper('divzero', [num(site()), x.atom, y.atom]);
    return sequence([x.bind, y.bind], cond(bin('===', y.atom, num(0)), zero, bin('>>>', bin('%', x.atom, y.atom), num(0))));
  }
  if ((t === 'i32' || t === 'i8') && constant !== null && constant > 0) {
    // In range (-b, 0] for a negative dividend: -0 (a multiple of b) is 0, as `| 0` gives.
    const x = atomOf(a, fresh);
    const r = fresh('t');
    const negative = cond(bin('<', set(r, bin('%', x.atom, b)), num(0)), bin('+', id(r), b), num(0));
    return sequence([x.bind], cond(bin('>=', x.atom, num(0)), bin('%', x.atom, b), negative));
  }
  // The general case, scalarOps.floorMod itself: r = a % b, moved by b when the signs differ.
  const x = atomOf(a, fresh);
  const y = atomOf(b, fresh);
  const r = fresh('t');
  const moved = bin('&&', bin('!==', set(r, bin('%', x.atom, y.atom)), num(0)), bin('!==', bin('<', id(r), num(0)), bin('<', y.atom, num(0))));
  const floorMod = cond(moved, wrapTo(t, bin('+', id(r), y.atom)), wrapTo(t, id(r)));
  if (isInt && (constant === null || constant === 0)) {
    const zero = callHelper('divzero', [num(site()), x.atom, y.atom]);
    return sequence([x.bind, y.bind], cond(bin('===', y.atom, num(0)), zero, floorMod));
  }
  return sequence([x.bind, y.bind], floorMod);
}

/** 1, 2, 4, …, 2^31: the integer divisors that a mask or a shift divides by exactly. */
function isPowerOfTwo(k: number): boolean {
  return Number.isInteger(k) && k >= 1 && k <= 2 ** 31 && Number.isInteger(Math.log2(k));
}

/**
 * Wraps a memory load `data[i]` in the counters variant: `rt.count(slot, data[i], data.length)`
 * returns the load (the length bounds the distinct elements a cluster call can read: RunStats'
 * `memoryBytes`).
 */
export function counted(env: ExprEnv, slot: () => number, load: JsExpr): JsExpr {
  if (!env.counters) return load;
  if (load.kind !== 'index') throw new CompilerBug('codegen', 'a counted load that is not an element of an array');
  return callHelper('count', [num(slot()), load, member(load.object, 'length')]);
}

/** Operations of an expression, by the kind of their operands (`counting`). */
interface OpCount {
  readonly float: number;
  readonly int: number;
}

const noOps: OpCount = { float: 0, int: 0 };

function plus(a: OpCount, b: OpCount): OpCount {
  return { float: a.float + b.float, int: a.int + b.int };
}

function one(operands: ScalarType): OpCount {
  return operands === 'f64' || operands === 'f32' ? { float: 1, int: 0 } : { float: 0, int: 1 };
}

/**
 * The arithmetic operations evaluating `e` always performs, by operand kind (floating point, or
 * integer and bool). Counted: unary and binary arithmetic (`//`, `%` and `**` included),
 * comparisons, `and`/`or`/`not`, `min`/`max`, and each `Math` function call as one operation.
 * Not counted: constants, casts, loads, the loop and index bookkeeping codegen adds (flat
 * indices, bounds checks), and a `select`'s branches, of which only one runs (`counting` counts
 * each where it runs); its condition is counted.
 */
export function opsOf(e: Expr): OpCount {
  switch (e.kind) {
    case 'const':
    case 'var':
    case 'dim':
      return noOps;
    case 'unary':
      return plus(opsOf(e.arg), one(e.op === 'not' ? 'bool' : e.type));
    case 'binary':
      return plus(plus(opsOf(e.lhs), opsOf(e.rhs)), one(e.lhs.type));
    case 'call':
      return plus(opsOf(e.arg), one(e.arg.type));
    case 'cast':
      return opsOf(e.arg);
    case 'select':
      return opsOf(e.cond);
    case 'index':
      return e.indices.reduce((acc, ix) => plus(acc, opsOf(ix)), noOps);
    default:
      return e satisfies never;
  }
}

/**
 * `e` compiled, in the counters variant with its operations counted: `rt.ops(float, int, value)`
 * adds `opsOf(e)` and returns the value, evaluated first, so a fault raises before anything is
 * counted. One call per expression (and per `select` branch taken), not per operation: the
 * counting run of MG class W performs billions of them.
 */
function counting(e: Expr, env: ExprEnv): JsExpr {
  const value = compileNode(e, env);
  const count = opsCount(e, env);
  return count === null ? value : callHelper('ops', [...count, value]);
}

/** The arguments of `rt.ops` for `e` in the counters variant; null elsewhere, or when it has no operations. */
function opsCount(e: Expr, env: ExprEnv): [JsExpr, JsExpr] | null {
  if (!env.counters) return null;
  const ops = opsOf(e);
  return ops.float === 0 && ops.int === 0 ? null : [num(ops.float), num(ops.int)];
}

/**
 * `e` bound to a const in `out` (or an atom), its operations counted by a statement of their own
 * after it (`rt.ops(f, i, 0)`): the const stays pure, so `shareValues` still computes a value
 * that several lambdas repeat once (MG's wrapped coordinates), while each application counts.
 */
function bindCounted(e: Expr, prefix: string, env: ExprEnv, out: JsStmt[]): JsExpr {
  if (env.counters && e.kind === 'select') return bindCountedSelect(e, prefix, env, out);
  const atom = bindAtom(compileNode(e, env), prefix, env, out);
  const count = opsCount(e, env);
  if (count !== null) out.push(exprStmt(callHelper('ops', [...count, num(0)])));
  return atom;
}

/**
 * A `select` bound in the counters variant (MG's periodic wrap, `i - 1 if i > 0 else n - 1`, in
 * every neighbour's index): its condition bound first, then the select over it, both pure
 * consts that `shareValues` can merge, then `rt.ops(…)` with the condition's operations plus
 * those of the branch the condition picks.
 */
function bindCountedSelect(e: Extract<Expr, { kind: 'select' }>, prefix: string, env: ExprEnv, out: JsStmt[]): JsExpr {
  const test = bindAtom(compileNode(e.cond, env), 'c', env, out);
  const atom = bindAtom(cond(test, compileNode(e.then, env), compileNode(e.else, env)), prefix, env, out);
  const [c, t, f] = [opsOf(e.cond), opsOf(e.then), opsOf(e.else)];
  const picked = (k: 'float' | 'int'): JsExpr => (t[k] === f[k] ? num(c[k] + t[k]) : add(num(c[k]), cond(test, num(t[k]), num(f[k]))));
  out.push(exprStmt(callHelper('ops', [picked('float'), picked('int'), num(0)])));
  return atom;
}

/**
 * The counters variant's `rt.ops(f, i, 0)` statements of each block merged into one at its end
 * (before a final `break` or `return`): their arguments are pure (numbers, conditions bound to
 * consts of the block), and a run counts only when it completes, so where in the block a count
 * is added does not matter. One call per loop iteration instead of one per lambda result.
 */
export function mergeOpCounts(stmts: readonly JsStmt[]): JsStmt[] {
  const floats: JsExpr[] = [];
  const ints: JsExpr[] = [];
  const out: JsStmt[] = [];
  for (const s of stmts) {
    const args = opsStatementArgs(s);
    if (args !== null) {
      floats.push(args[0]);
      ints.push(args[1]);
      continue;
    }
    out.push(mergeNested(s));
  }
  if (floats.length === 0) return out;
  const sum = (xs: readonly JsExpr[]): JsExpr => {
    const constant = xs.reduce((acc, x) => acc + (x.kind === 'num' ? x.value : 0), 0);
    return xs.filter((x) => x.kind !== 'num').reduce<JsExpr>((acc, x) => add(acc, x), num(constant));
  };
  const merged = exprStmt(callHelper('ops', [sum(floats), sum(ints), num(0)]));
  const last = out[out.length - 1];
  if (last !== undefined && (last.kind === 'break' || last.kind === 'return')) out.splice(out.length - 1, 0, merged);
  else out.push(merged);
  return out;
}

function mergeNested(s: JsStmt): JsStmt {
  switch (s.kind) {
    case 'for':
    case 'while':
    case 'block':
      return { ...s, body: mergeOpCounts(s.body) };
    case 'if':
      return { ...s, then: mergeOpCounts(s.then), else: mergeOpCounts(s.else) };
    default:
      return s;
  }
}

/** The first two arguments of a statement `rt.ops(f, i, 0)`; null for any other statement. */
function opsStatementArgs(s: JsStmt): [JsExpr, JsExpr] | null {
  if (s.kind !== 'expr' || s.expr.kind !== 'call') return null;
  const { callee, args } = s.expr;
  if (callee.kind !== 'member' || callee.prop !== 'ops' || callee.object.kind !== 'id' || callee.object.name !== runtimeParam) return null;
  const third = args[2];
  if (args.length !== 3 || third === undefined || third.kind !== 'num' || third.value !== 0) return null;
  return [args[0]!, args[1]!];
}

/**
 * The check of a gather's or scatter's index atoms against the extents `dims`, as a statement
 * for the loop body: `if (i >>> 0 >= n) rt.oob(site, indices, extents, position,
 * positionExtents)`, which throws the interpreter's E402 (the array literals are built only on
 * that path). The branch is never taken on valid data, so it costs the loop one predictable
 * compare per index.
 */
export function indexCheck(
  site: number,
  indices: readonly JsExpr[],
  dims: readonly JsExpr[],
  position: JsExpr,
  positionDims: readonly JsExpr[],
  /** A condition under which alone the check applies (a hoisted check: the row is not empty). */
  guard: JsExpr | null = null,
): JsStmt {
  const anyOutside = outsideTest(indices, dims);
  const outside = guard === null ? anyOutside : bin('&&', guard, anyOutside);
  const fail = callHelper('oob', [num(site), arr(indices), arr(dims), position, arr(positionDims)]);
  return { kind: 'if', test: outside, then: [{ kind: 'expr', expr: fail }], else: [] };
}

/** Whether any of the i32 `indices` lies outside its extent in `dims` (a negative one included). */
export function outsideTest(indices: readonly JsExpr[], dims: readonly JsExpr[]): JsExpr {
  return indices
    .map((i, k) => {
      if (i.kind !== 'num') return bin('>=', bin('>>>', i, num(0)), dims[k]!);
      return i.value >= 0 ? bin('<=', dims[k]!, i) : num(1);
    })
    .reduce((a, b) => bin('||', a, b));
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
    // Every index is evaluated (in order) before any is checked, as the interpreter does, so
    // the comparisons, which are pure, can stop at the first that fails: a chain of `&&` is
    // a chain of predictable branches, cheaper than combining all the booleans with `&` (MG's
    // 27-point stencils check three indices per read).
    const parts = e.indices.map((ix) => atomOf(compileNode(ix, env), env.fresh));
    const atoms = parts.map((p) => p.atom);
    const inRange = sequence(
      parts.map((p) => p.bind),
      parts.map((p, k) => inBounds(p.atom, ref.dims[k]!)).reduce((x, y) => bin('&&', x, y)),
    );
    const fail = callHelper('index', [num(site), arr(atoms), arr(ref.dims)]);
    offset = cond(inRange, flatIndex(atoms, ref.dims), fail);
  }
  const load = index(ref.data, offset);
  return counted(env, () => env.tables.slot(ref.name, ref.elem, { kind: 'read', order }), load);
}

/**
 * `0 <= i < n` for an i32 index `i` and an extent `n` below 2^31, in one unsigned comparison
 * (a negative i is 2^32 + i unsigned, never below n). A constant index needs only `i < n`.
 */
export function inBounds(i: JsExpr, n: JsExpr): JsExpr {
  if (i.kind === 'num') return i.value >= 0 && Number.isInteger(i.value) ? bin('<', i, n) : num(0);
  return bin('<', bin('>>>', i, num(0)), n);
}

/** An element-level expression as JavaScript (in the counters variant, its operations counted: `counting`). */
export function compileExpr(e: Expr, env: ExprEnv): JsExpr {
  return counting(e, env);
}

/** `e` as JavaScript, its operations counted by the caller (`counting`), except in a `select`'s branches. */
function compileNode(e: Expr, env: ExprEnv): JsExpr {
  switch (e.kind) {
    case 'const':
      return num(e.value);
    case 'var':
      return env.scalar(e.name);
    case 'unary': {
      const a = compileNode(e.arg, env);
      if (e.op === 'not') return cond(bin('!==', a, num(0)), num(0), num(1));
      // `~` of a sign-extended i8 is one; a u8 keeps its low 8 bits.
      if (e.op === 'bitnot') return e.type === 'i32' || e.type === 'i8' ? { kind: 'unary', op: '~', arg: a } : wrapTo(e.type, { kind: 'unary', op: '~', arg: a });
      return wrapTo(e.type, { kind: 'unary', op: '-', arg: a });
    }
    case 'binary': {
      const t = e.lhs.type;
      const a = compileNode(e.lhs, env);
      const b = compileNode(e.rhs, env);
      return binary(e.op, t, a, b, () =>
        env.tables.site({ kind: 'divide', what: env.context, detail: e.op, span: e.span ?? env.span }),
        env.fresh,
      );
    }
    case 'call':
      if (e.fn === 'clz') return mathCall('clz32', [compileNode(e.arg, env)]);
      if (e.fn === 'popcount') return bitsSet(compileNode(e.arg, env), env.fresh);
      return wrapTo(e.type, mathCall(e.fn, [compileNode(e.arg, env)]));
    case 'cast':
      return wrapTo(e.to, compileNode(e.arg, env));
    case 'select':
      // Only the branch taken runs, so each counts its own operations.
      return cond(compileNode(e.cond, env), counting(e.then, env), counting(e.else, env));
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
  for (const l of lam.lets) locals.set(l.name, bindCounted(l.expr, 't', inner, out));
  return lam.results.map((r) => bindCounted(r, prefix, inner, out));
}
