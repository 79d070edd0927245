// Index arithmetic as affine functions of one loop index, and the ranges of that index on which
// a comparison of such a function holds (the interior/boundary split, ./interior.ts).
//
// Generated index code is integer arithmetic kept in int32 by `| 0`, `Math.imul` and `>>`: an
// index map `2 * i + 1` is `Math.imul(2, i) + 1 | 0`, a prolongation's `(f - 1) // 2` is
// `(f - 1 | 0) >> 1`. Read over the reals, `x | 0` is `x` only where `x` is an integer in
// [−2^31, 2^31), `Math.imul(c, x)` is `c·x` only where `x` and `c·x` are, and `x >> s` is
// ⌊x / 2^s⌋ only where `x` is. So a reading (`Mono`) comes with the side conditions under which
// it equals what the code computes, and whoever relies on the reading must make them hold too.
//
// A condition on `a·i + b` (a a nonzero integer, b loop-invariant) becomes a bound on the integer
// `i`, computed at run time by `indexBound`: over the reals, so that a non-integer `b` or bound is
// still right, with ⌈⌉/⌊⌋ where the quotient may not be an integer. A NaN anywhere gives a NaN
// bound, which the split reads as an empty interior.

import type { JsExpr } from '../jsast.js';
import { bin, mathCall, num, un } from '../jsast.js';

/** `a·idx + b` (a constant `b` when `idx` is null, then `a` is 0). */
export interface Lin {
  readonly idx: string | null;
  readonly a: number;
  readonly b: JsExpr;
}

/** ⌊lin / 2^shift⌋ (just `lin` when `shift` is 0). */
export interface Mono {
  readonly lin: Lin;
  readonly shift: number;
}

export type Rel = '<' | '<=' | '>' | '>=';

/** `a·idx + b  rel  rhs`, over the reals. */
export interface Constraint {
  readonly idx: string;
  readonly a: number;
  readonly b: JsExpr;
  readonly rel: Rel;
  readonly rhs: JsExpr;
}

/** What a reading needs to know of the code around the expression it reads. */
export interface AffineScope {
  /** Whether `name` is a loop index of the nest whose values are integers (a usable index). */
  isIndex(name: string): boolean;
  /** Whether `e` is pure and has the same value throughout the nest. */
  invariant(e: JsExpr): boolean;
  /**
   * Whether the invariant `e` may be taken for an integer: true when the caller will guard the
   * rewrite with a run-time test that it is one (a scalar parameter of an integer type).
   */
  assumeInteger(e: JsExpr): boolean;
  /** The reading of a `const` declared earlier in the loop body, with its side conditions. */
  local(name: string): { readonly mono: Mono; readonly side: readonly Constraint[] } | null;
}

const INT32_MIN = -(2 ** 31);
const INT32_END = 2 ** 31;

export const isNum = (e: JsExpr, v?: number): e is { kind: 'num'; value: number } =>
  e.kind === 'num' && (v === undefined || Object.is(e.value, v));

/** Whether `e` is an integer (or ±∞/NaN) whatever its operands: int32 operators and integer literals. */
export function integral(e: JsExpr): boolean {
  switch (e.kind) {
    case 'num':
      return Number.isInteger(e.value);
    case 'binary':
      if (e.op === '|' || e.op === '&' || e.op === '^' || e.op === '<<' || e.op === '>>' || e.op === '>>>') return true;
      // A sum, difference or product of integers is an integer or ±∞ once rounded (every double
      // of magnitude 2^53 or more is an integer).
      if (e.op === '+' || e.op === '-' || e.op === '*') return integral(e.lhs) && integral(e.rhs);
      return false;
    case 'unary':
      return e.op === '~' || (e.op === '-' && integral(e.arg));
    case 'call':
      if (!isMathCall(e)) return false;
      if (e.callee.kind === 'member' && e.callee.prop === 'imul') return true;
      if (e.callee.kind === 'member' && (e.callee.prop === 'floor' || e.callee.prop === 'ceil')) return true;
      if (e.callee.kind === 'member' && (e.callee.prop === 'min' || e.callee.prop === 'max')) return e.args.every(integral);
      return false;
    default:
      return false;
  }
}

export function isMathCall(e: JsExpr): e is { kind: 'call'; callee: JsExpr; args: readonly JsExpr[] } {
  return e.kind === 'call' && e.callee.kind === 'member' && e.callee.object.kind === 'id' && e.callee.object.name === 'Math';
}

export function mathName(e: JsExpr): string | null {
  return isMathCall(e) && e.callee.kind === 'member' ? e.callee.prop : null;
}

// Small constant folding, so that bounds over literals print as numbers.

export function plus(x: JsExpr, y: JsExpr): JsExpr {
  if (isNum(x) && isNum(y)) return num(x.value + y.value);
  if (isNum(y, 0)) return x;
  if (isNum(x, 0)) return y;
  if (isNum(y) && y.value < 0) return bin('-', x, num(-y.value));
  return bin('+', x, y);
}

export function minus(x: JsExpr, y: JsExpr): JsExpr {
  if (isNum(x) && isNum(y)) return num(x.value - y.value);
  if (isNum(y, 0)) return x;
  if (isNum(y) && y.value < 0) return bin('+', x, num(-y.value));
  return bin('-', x, y);
}

export function times(c: number, x: JsExpr): JsExpr {
  if (isNum(x)) return num(c * x.value);
  if (c === 1) return x;
  if (c === -1) return un('-', x);
  return bin('*', num(c), x);
}

const linConst = (b: JsExpr): Lin => ({ idx: null, a: 0, b });
const plain = (lin: Lin): Mono => ({ lin, shift: 0 });

/** The side conditions for `lin` to be an int32: −2^31 ≤ lin < 2^31 (lin is an integer when integral). */
function int32Side(lin: Lin): Constraint[] {
  if (lin.idx === null) return [];
  return [
    { idx: lin.idx, a: lin.a, b: lin.b, rel: '>=', rhs: num(INT32_MIN) },
    { idx: lin.idx, a: lin.a, b: lin.b, rel: '<', rhs: num(INT32_END) },
  ];
}

/** Whether `lin` takes only integer values (its index does; `a` is an integer; `b` must be). */
function linIntegral(lin: Lin, scope: AffineScope): boolean {
  if (integral(lin.b)) return true;
  // b = x + y, x − y of integers, one of them possibly a guarded name.
  const parts = (e: JsExpr): boolean =>
    integral(e) ||
    (e.kind === 'binary' && (e.op === '+' || e.op === '-') && parts(e.lhs) && parts(e.rhs)) ||
    scope.assumeInteger(e);
  return parts(lin.b);
}

function combine(x: Lin, y: Lin, sign: 1 | -1): Lin | null {
  if (x.idx !== null && y.idx !== null && x.idx !== y.idx) return null;
  const a = x.a + sign * y.a;
  const b = sign === 1 ? plus(x.b, y.b) : minus(x.b, y.b);
  const idx = a === 0 ? null : (x.idx ?? y.idx);
  // An index that cancels out (i − i) leaves a constant only when both were the same index.
  return { idx, a, b };
}

/**
 * The reading of `e` as ⌊(a·i + b) / 2^s⌋, with the side conditions (pushed onto `side` only when
 * the reading succeeds) under which it is what the code computes; null if it is not of that form.
 */
export function readMono(e: JsExpr, scope: AffineScope, side: Constraint[]): Mono | null {
  const own: Constraint[] = [];
  const m = read(e, scope, own);
  if (m !== null) side.push(...own);
  return m;
}

function read(e: JsExpr, scope: AffineScope, side: Constraint[]): Mono | null {
  if (e.kind === 'num') return Number.isFinite(e.value) ? plain(linConst(e)) : null;
  if (e.kind === 'id') {
    if (scope.isIndex(e.name)) return plain({ idx: e.name, a: 1, b: num(0) });
    const local = scope.local(e.name);
    if (local !== null) {
      side.push(...local.side);
      return local.mono;
    }
    return scope.invariant(e) ? plain(linConst(e)) : null;
  }
  if (scope.invariant(e)) return plain(linConst(e));
  const lin = (x: JsExpr): Lin | null => {
    const m = read(x, scope, side);
    return m !== null && m.shift === 0 ? m.lin : null;
  };
  switch (e.kind) {
    case 'binary': {
      if (e.op === '+' || e.op === '-') {
        const x = lin(e.lhs);
        const y = x === null ? null : lin(e.rhs);
        if (x === null || y === null) return null;
        const r = combine(x, y, e.op === '+' ? 1 : -1);
        return r === null ? null : plain(r);
      }
      if (e.op === '*') return scaled(lin, e.lhs, e.rhs);
      if (e.op === '|' && isNum(e.rhs, 0)) {
        const m = read(e.lhs, scope, side);
        if (m === null) return null;
        if (m.shift > 0) return m; // already an int32
        if (!linIntegral(m.lin, scope)) return null;
        side.push(...int32Side(m.lin));
        return m;
      }
      if (e.op === '>>' && isNum(e.rhs) && Number.isInteger(e.rhs.value) && e.rhs.value >= 0 && e.rhs.value < 32) {
        const m = read(e.lhs, scope, side);
        if (m === null) return null;
        if (m.shift === 0) {
          if (!linIntegral(m.lin, scope)) return null;
          side.push(...int32Side(m.lin));
        }
        return { lin: m.lin, shift: m.shift + e.rhs.value };
      }
      return null;
    }
    case 'call': {
      if (mathName(e) !== 'imul' || e.args.length !== 2) return null;
      const [p, q] = e.args as [JsExpr, JsExpr];
      const c = isNum(q) ? q : isNum(p) ? p : null;
      const x = c === q ? p : q;
      if (c === null || !Number.isInteger(c.value) || c.value < INT32_MIN || c.value >= INT32_END) return null;
      const m = lin(x);
      if (m === null || !linIntegral(m, scope)) return null;
      const r: Lin = { idx: c.value === 0 ? null : m.idx, a: c.value * m.a, b: times(c.value, m.b) };
      side.push(...int32Side(m), ...int32Side(r));
      return plain(r);
    }
    default:
      return null;
  }
}

/** `x · y` where one of them is an integer literal. */
function scaled(lin: (x: JsExpr) => Lin | null, x: JsExpr, y: JsExpr): Mono | null {
  const c = isNum(y) ? y.value : isNum(x) ? x.value : null;
  if (c === null || !Number.isInteger(c) || Math.abs(c) >= 2 ** 31) return null;
  const m = lin(isNum(y) ? x : y);
  if (m === null) return null;
  return plain({ idx: c === 0 ? null : m.idx, a: c * m.a, b: times(c, m.b) });
}

/** ⌊v / 2^s⌋ rel rhs, as a condition on v (an integer): the same relation to a scaled bound. */
export function unshift(mono: Mono, rel: Rel, rhs: JsExpr): { rel: Rel; rhs: JsExpr } {
  if (mono.shift === 0) return { rel, rhs };
  const scale = 2 ** mono.shift;
  const ceil = (x: JsExpr): JsExpr => (integral(x) ? x : mathCall('ceil', [x]));
  const floorPlus1 = (x: JsExpr): JsExpr => plus(integral(x) ? x : mathCall('floor', [x]), num(1));
  const scaledBy = (x: JsExpr): JsExpr => (isNum(x) ? num(x.value * scale) : bin('*', x, num(scale)));
  switch (rel) {
    case '>=': // ⌊y⌋ ≥ L ⟺ y ≥ ⌈L⌉
      return { rel: '>=', rhs: scaledBy(ceil(rhs)) };
    case '>': // ⌊y⌋ > L ⟺ ⌊y⌋ ≥ ⌊L⌋ + 1
      return { rel: '>=', rhs: scaledBy(floorPlus1(rhs)) };
    case '<': // ⌊y⌋ < H ⟺ y < ⌈H⌉
      return { rel: '<', rhs: scaledBy(ceil(rhs)) };
    case '<=': // ⌊y⌋ ≤ H ⟺ y < ⌊H⌋ + 1
      return { rel: '<', rhs: scaledBy(floorPlus1(rhs)) };
    default:
      return rel satisfies never;
  }
}

/** The condition `mono rel rhs` as a constraint on the index; null when `mono` has no index. */
export function constrain(mono: Mono, rel: Rel, rhs: JsExpr): Constraint | null {
  if (mono.lin.idx === null) return null;
  const u = unshift(mono, rel, rhs);
  return { idx: mono.lin.idx, a: mono.lin.a, b: mono.lin.b, rel: u.rel, rhs: u.rhs };
}

/** A bound of the index: `idx ≥ value` (lower) or `idx < value` (upper). */
export interface IndexBound {
  readonly idx: string;
  readonly side: 'lower' | 'upper';
  readonly value: JsExpr;
}

/** The integer solutions of a constraint, as one bound of its index (see the header). */
export function indexBound(c: Constraint): IndexBound {
  const diff = minus(c.rhs, c.b);
  const q = c.a === 1 ? diff : c.a === -1 ? minus(c.b, c.rhs) : isNum(diff) ? num(diff.value / c.a) : bin('/', diff, num(c.a));
  const exact = isNum(q) ? Number.isInteger(q.value) : integral(q);
  const ceil = exact ? q : isNum(q) ? num(Math.ceil(q.value)) : mathCall('ceil', [q]);
  const floorPlus1 = plus(exact ? q : isNum(q) ? num(Math.floor(q.value)) : mathCall('floor', [q]), num(1));
  const lower = (value: JsExpr): IndexBound => ({ idx: c.idx, side: 'lower', value });
  const upper = (value: JsExpr): IndexBound => ({ idx: c.idx, side: 'upper', value });
  // a·i + b rel rhs ⟺ i rel' q with q = (rhs − b) / a, rel' = rel flipped when a < 0.
  const rel = c.a > 0 ? c.rel : flip(c.rel);
  switch (rel) {
    case '>=':
      return lower(ceil);
    case '>':
      return lower(floorPlus1);
    case '<':
      return upper(ceil);
    case '<=':
      return upper(floorPlus1);
    default:
      return rel satisfies never;
  }
}

/** The relation with its sides swapped (x rel y ⟺ y flip(rel) x). */
export function flip(rel: Rel): Rel {
  switch (rel) {
    case '<':
      return '>';
    case '<=':
      return '>=';
    case '>':
      return '<';
    case '>=':
      return '<=';
    default:
      return rel satisfies never;
  }
}

/** The relation that holds exactly when `rel` does not, for numbers that are not NaN. */
export function negation(rel: Rel): Rel {
  switch (rel) {
    case '<':
      return '>=';
    case '<=':
      return '>';
    case '>':
      return '<=';
    case '>=':
      return '<';
    default:
      return rel satisfies never;
  }
}
