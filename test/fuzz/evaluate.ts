// The independent evaluator: runs a fuzz program (ast.ts) directly, in plain TypeScript, from
// the language's specification (docs/LANGUAGE.md), sharing no code with src/.
//
// Faults follow demand: a faulting element (integer `//` or `%` by zero, an index out of range)
// becomes POISON instead of stopping the run, and poison flows into whatever reads it. An array
// that cannot be built at all (a bad size, shapes that differ, a filter whose predicate faults)
// is BAD as a whole, its size included; a scatter with an index out of range has every element
// poisoned but keeps its destination's shape (shapes are known before contents), and is broken:
// a run that returns it, or an array built from it, fails even when it has no elements. A run must fail when a returned value is or
// holds poison; a fault that nothing returned depends on makes both a failure and the values
// acceptable, since fused code legitimately skips elements nobody reads. Where the outcome turns
// on a subtle point (a condition that faults, an empty integer max), the verdict is "unknown".

import type { ArithOp, ArrOp, Combine, Elem, Expr, Lam, Prog, Stmt } from './ast.js';

export const POISON: unique symbol = Symbol('fault');
export type V = number | typeof POISON;

export interface ArrV {
  readonly kind: 'array';
  readonly elem: Elem;
  readonly shape: readonly number[];
  readonly data: readonly V[];
  /** Building it faults (a scatter index out of range), even where it has no elements to read. */
  readonly broken?: boolean;
}
export interface BadV {
  readonly kind: 'bad';
}
export interface ScalV {
  readonly kind: 'scalar';
  readonly elem: Elem;
  readonly v: V;
}
export type Value = ArrV | BadV | ScalV;

/** A plain value a correct run must return: a scalar, or a rank-1/2 array. */
export interface Expected {
  readonly elem: Elem;
  /** null for a scalar. */
  readonly shape: readonly number[] | null;
  readonly data: readonly number[];
}

export type Verdict =
  /** Values; `mayFault`: an unread element faulted, so E401–E404 is acceptable too. */
  | { readonly k: 'values'; readonly values: readonly Expected[]; readonly mayFault: boolean; readonly mayReject: boolean }
  /** A demanded element faults: every run must fail with a run-time error (E401–E404). */
  | { readonly k: 'fault'; readonly mayReject: boolean }
  /** The program must be rejected before it runs (an integer literal that fits no type). */
  | { readonly k: 'reject' }
  /** `unspecified`: the language leaves the outcome open (modes may differ, too). */
  | { readonly k: 'unknown'; readonly why: string; readonly unspecified?: boolean };

/** Ends evaluation with an "unknown" verdict. */
class Unknown extends Error {}

/** Ends evaluation where the language leaves the result open, for every mode alike. */
class Unspecified extends Unknown {}

const I32_MIN = -2147483648;
const I32_MAX = 2147483647;

function isWideLiteral(e: Expr): boolean {
  return e.k === 'lit' && !/[.e]/.test(e.text) && (e.value > I32_MAX || e.value < I32_MIN);
}

function operandType(a: Expr, b: Expr): Elem {
  return a.t === 'f64' || b.t === 'f64' ? 'f64' : a.t;
}

/**
 * What the integer literals of a program demand: an integer literal beyond i32 where the
 * operation is on floats may become f64 or be rejected; where it is on integers (or stands
 * alone) it must be rejected; `-2147483648` may be accepted (it fits) or rejected (its digits do not).
 */
/**
 * Whether an expression reads nothing but literals and the names in `known` (scalar entry
 * parameters never re-bound: compilation is specialised to their values), so lowering
 * evaluates it; `loose`: or may, through a conditional whose condition is such.
 */
function closed(e: Expr, known: ReadonlySet<string> = new Set(), loose = false): boolean {
  switch (e.k) {
    case 'lit':
      return true;
    case 'ref':
      return known.has(e.name);
    case 'size':
    case 'read':
      return false;
    case 'arith':
    case 'cmp':
    case 'minmax':
    case 'logic':
      return closed(e.a, known, loose) && closed(e.b, known, loose);
    case 'not':
    case 'neg':
    case 'bitnot':
    case 'bitcount':
    case 'cast':
      return closed(e.a, known, loose);
    case 'sel':
      // `loose`: a closed condition picks one branch at compile time, maybe a closed one.
      if (loose) return closed(e.c, known) && (closed(e.a, known, loose) || closed(e.b, known, loose));
      return closed(e.c, known) && closed(e.a, known) && closed(e.b, known);
    default:
      return e satisfies never;
  }
}

function isBitOp(op: ArithOp): boolean {
  return op === '&' || op === '|' || op === '^' || op === '<<' || op === '>>';
}

/**
 * Whether `e` may be an untyped integer constant: a literal, maybe chosen by a conditional
 * (decided at compile time or not: the lowering decides static ones), negated or combined with
 * others. Names, sizes, reads and casts are typed values.
 */
function mayBeLiteral(e: Expr): boolean {
  switch (e.k) {
    case 'lit':
      return true;
    case 'sel':
      return mayBeLiteral(e.a) || mayBeLiteral(e.b);
    case 'neg':
    case 'bitnot':
    case 'bitcount':
      return mayBeLiteral(e.a);
    case 'arith':
    case 'minmax':
      return mayBeLiteral(e.a) && mayBeLiteral(e.b);
    default:
      return false;
  }
}

/** Every name a statement list binds, nested blocks included. */
function boundNames(body: readonly Stmt[], out = new Set<string>()): Set<string> {
  for (const s of body) {
    if (s.k === 'let') s.names.forEach((n) => out.add(n));
    if (s.k === 'scalar' || s.k === 'fold') out.add(s.name);
    if (s.k === 'if') [s.then, s.else].forEach((b) => boundNames(b, out));
    if (s.k === 'while') {
      out.add(s.counter);
      boundNames(s.body, out);
    }
    if (s.k === 'for') {
      out.add(s.iv);
      boundNames(s.body, out);
    }
  }
  return out;
}

export function literalDemand(p: Prog): 'none' | 'mayReject' | 'mustReject' {
  return literalFacts(p).demand;
}

/** Whether an expression asks the size of an array. */
function readsSize(e: Expr): boolean {
  switch (e.k) {
    case 'size':
      return true;
    case 'lit':
    case 'ref':
      return false;
    case 'read':
      return readsSize(e.idx);
    case 'arith':
    case 'cmp':
    case 'minmax':
    case 'logic':
      return readsSize(e.a) || readsSize(e.b);
    case 'not':
    case 'neg':
    case 'bitnot':
    case 'bitcount':
    case 'cast':
      return readsSize(e.a);
    case 'sel':
      return readsSize(e.c) || readsSize(e.a) || readsSize(e.b);
    default:
      return e satisfies never;
  }
}

/**
 * What the program's literals demand, and whether it does integer arithmetic among literals
 * alone: lowering computes that exactly (LANGUAGE.md §2: `2147483647 + 1` is 2147483648,
 * compared as such or rejected where an i32 is needed) where this evaluator wraps, so its
 * verdict on such a program is not trusted.
 */
function literalFacts(p: Prog): { demand: 'none' | 'mayReject' | 'mustReject'; closedArithmetic: boolean } {
  let demand: 'none' | 'mayReject' | 'mustReject' = 'none';
  let closedArithmetic = false;
  // Code under an `if` on a closed condition is decided at compile time: the branch not taken
  // is never lowered, so its literals are never typed (LANGUAGE.md §2).
  let staticBranches = 0;
  const rebound = boundNames(p.body);
  const staticScalars = new Set(p.params.filter((q) => q.rank === 0 && !rebound.has(q.name)).map((q) => q.name));
  const raise = (d: 'mayReject' | 'mustReject'): void => {
    const weakened = staticBranches > 0 ? 'mayReject' : d;
    if (demand !== 'mustReject') demand = weakened;
  };
  const visit = (e: Expr, context: Elem): void => {
    if (e.k === 'lit') {
      if (isWideLiteral(e)) raise(context === 'f64' ? 'mayReject' : 'mustReject');
      else if (e.text === '-2147483648') raise('mayReject');
      return;
    }
    switch (e.k) {
      case 'arith':
      case 'cmp':
      case 'minmax': {
        const t = operandType(e.a, e.b);
        // Arithmetic among integer literals is exact at compile time and checked where it takes
        // a type (E312), where this evaluator wraps: either answer is acceptable.
        if (e.k === 'arith' && t !== 'f64' && closed(e, staticScalars, true)) {
          raise('mayReject');
          closedArithmetic = true;
        }
        // A bit operation whose operands may both be literals once the compile-time conditionals
        // are decided (`(q if q < 2 else 2) << 32` at q = 2) is exact among constants: `2 << 31`
        // is 2^32 (E312 as an i32), a count outside 0..31 is E312, where this evaluator wraps.
        if (e.k === 'arith' && t !== 'f64' && isBitOp(e.op) && mayBeLiteral(e.a) && mayBeLiteral(e.b)) {
          raise('mayReject');
          closedArithmetic = true;
        }
        visit(e.a, t);
        visit(e.b, t);
        return;
      }
      case 'logic':
        visit(e.a, 'bool');
        visit(e.b, 'bool');
        return;
      case 'neg':
        // Negation among literals is exact too (`-(-2147483648)` is 2147483648).
        // A negated literal alone (`-2147483648`) is what this evaluator models as written.
        if (e.t !== 'f64' && !(e.a.k === 'lit' && e.a.value >= 0) && closed(e, staticScalars, true)) closedArithmetic = true;
        visit(e.a, e.a.t);
        return;
      case 'bitnot':
        // `~` among literals is exact too (`~2147483647` is an i32, `~-2147483649` is not).
        if (e.a.k !== 'lit' && closed(e, staticScalars, true)) closedArithmetic = true;
        visit(e.a, e.a.t);
        return;
      case 'not':
      case 'cast':
      case 'bitcount':
        visit(e.a, e.a.t);
        return;
      case 'sel':
        visit(e.c, 'bool');
        visit(e.a, e.t);
        visit(e.b, e.t);
        return;
      case 'read':
        visit(e.idx, 'i32');
        return;
      case 'ref':
      case 'size':
        return;
      default:
        e satisfies never;
    }
  };
  const top = (e: Expr | null): void => {
    if (e !== null) visit(e, e.t);
  };
  const lam = (f: Lam): void => f.body.forEach(top);
  const combine = (c: Combine): void => {
    if (c.k === 'lam') lam(c.f);
  };
  const stmts = (body: readonly Stmt[]): void => {
    for (const s of body) {
      switch (s.k) {
        case 'let':
          opExprs(s.op);
          break;
        case 'scalar':
          top(s.e);
          break;
        case 'fold':
          top(s.seed);
          break;
        case 'if': {
          top(s.c);
          // A condition on sizes may be decided at compile time too (entry shapes are static).
          const decided = closed(s.c, staticScalars) || readsSize(s.c);
          if (decided) staticBranches++;
          stmts(s.then);
          stmts(s.else);
          if (decided) staticBranches--;
          break;
        }
        case 'while':
          top(s.bound);
          stmts(s.body);
          break;
        case 'for':
          stmts(s.body);
          break;
        default:
          s satisfies never;
      }
    }
  };
  const opExprs = (op: ArrOp): void => {
    switch (op.k) {
      case 'map':
        return lam(op.f);
      case 'generate':
      case 'backpermute':
        top(op.size);
        return lam(op.f);
      case 'scatter':
      case 'scatterDrop':
        return combine(op.op);
      case 'hist':
        combine(op.op);
        top(op.ne);
        return top(op.bins);
      case 'scanSeg':
        return lam(op.flags);
      case 'foldSeg':
        return top(op.z);
      case 'permute':
        combine(op.op);
        return lam(op.f);
      case 'filter':
        return lam(op.p);
      case 'take':
      case 'drop':
      case 'replicate':
        return top(op.n);
      case 'scan':
        return top(op.seed);
      default:
        return;
    }
  };
  stmts(p.body);
  return { demand, closedArithmetic };
}

function wrapI32(x: number): number {
  return x | 0;
}

function floorMod(a: number, b: number): number {
  let r = a % b;
  if (r !== 0 && r < 0 !== b < 0) r += b;
  return r;
}

/**
 * A number as a u8 (LANGUAGE.md §2): an integer modulo 2^8 on BigInts, a float truncated toward
 * zero first, NaN and ±∞ 0.
 */
function wrapU8(x: number): number {
  return Number.isFinite(x) ? Number(BigInt.asUintN(8, BigInt(Math.trunc(x)))) : 0;
}

/** u8 arithmetic: exact, then modulo 2^8; bit operations on the zero-extended value, the count modulo 32. */
function byteArith(op: ArithOp, a: number, b: number): V {
  const x = BigInt(a);
  const y = BigInt(b);
  const reduce = (z: bigint): number => Number(BigInt.asUintN(8, z));
  switch (op) {
    case '+':
      return reduce(x + y);
    case '-':
      return reduce(x - y);
    case '*':
      return reduce(x * y);
    case '/':
      throw new Unknown('integer /');
    case '//':
      return b === 0 ? POISON : reduce(x / y);
    case '%':
      return b === 0 ? POISON : reduce(x % y);
    case '&':
      return reduce(x & y);
    case '|':
      return reduce(x | y);
    case '^':
      return reduce(x ^ y);
    case '<<':
      return reduce(x << (y % 32n));
    case '>>':
      return reduce(x >> (y % 32n));
  }
}

function arith(op: Expr & { k: 'arith' }, t: Elem, a: number, b: number): V {
  if (t === 'u8') return byteArith(op.op, a, b);
  if (t === 'f64') {
    switch (op.op) {
      case '+':
        return a + b;
      case '-':
        return a - b;
      case '*':
        return a * b;
      case '/':
        return a / b;
      case '//':
        return Math.floor(a / b);
      case '%':
        return floorMod(a, b);
    }
  }
  switch (op.op) {
    case '+':
      return wrapI32(a + b);
    case '-':
      return wrapI32(a - b);
    case '*':
      return Math.imul(a, b);
    case '/':
      throw new Unknown('integer /');
    case '//':
      return b === 0 ? POISON : wrapI32(Math.floor(a / b));
    case '%':
      return b === 0 ? POISON : wrapI32(floorMod(a, b));
    case '&':
    case '|':
    case '^':
    case '<<':
    case '>>':
      return bitwise(op.op, a, b);
  }
}

/**
 * An i32 bit operation, computed on the 32-bit two's complement pattern with BigInt (not with
 * JavaScript's own operators, which the compiler's code uses): the count taken modulo 32.
 */
function bitwise(op: '&' | '|' | '^' | '<<' | '>>', a: number, b: number): number {
  const bits = (x: number): bigint => BigInt.asUintN(32, BigInt(x));
  const signed = (x: bigint): number => Number(BigInt.asIntN(32, x));
  const x = bits(a);
  const y = bits(b);
  const n = y % 32n;
  switch (op) {
    case '&':
      return signed(x & y);
    case '|':
      return signed(x | y);
    case '^':
      return signed(x ^ y);
    case '<<':
      return signed(x << n);
    case '>>':
      // Arithmetic: the sign bit copied in, as floor division by 2^n of the signed value.
      return signed(BigInt.asIntN(32, x) >> n);
  }
}

function cmp(op: string, a: number, b: number): number {
  switch (op) {
    case '<':
      return a < b ? 1 : 0;
    case '<=':
      return a <= b ? 1 : 0;
    case '>':
      return a > b ? 1 : 0;
    case '>=':
      return a >= b ? 1 : 0;
    case '==':
      return a === b ? 1 : 0;
    default:
      return a !== b ? 1 : 0;
  }
}

type Env = Map<string, Value>;

class Evaluator {
  /** Some element or array faulted somewhere (read or not). */
  faulted = false;

  constructor(private readonly env: Env) {}

  private poison(): typeof POISON {
    this.faulted = true;
    return POISON;
  }

  private bad(): BadV {
    this.faulted = true;
    return { kind: 'bad' };
  }

  private lookup(name: string): Value {
    const v = this.env.get(name);
    if (v === undefined) throw new Error(`fuzz evaluator: '${name}' is not bound`);
    return v;
  }

  private array(name: string): ArrV | BadV {
    const v = this.lookup(name);
    if (v.kind === 'scalar') throw new Error(`fuzz evaluator: '${name}' is a scalar`);
    return v;
  }

  expr(e: Expr, locals: ReadonlyMap<string, V>): V {
    switch (e.k) {
      case 'lit':
        return e.value;
      case 'ref': {
        const local = locals.get(e.name);
        if (local !== undefined) return local;
        const v = this.lookup(e.name);
        if (v.kind !== 'scalar') throw new Error(`fuzz evaluator: '${e.name}' is not a scalar`);
        return v.v;
      }
      case 'arith': {
        const a = this.expr(e.a, locals);
        const b = this.expr(e.b, locals);
        if (a === POISON || b === POISON) return POISON;
        const r = arith(e, operandType(e.a, e.b), a, b);
        return r === POISON ? this.poison() : r;
      }
      case 'cmp': {
        const a = this.expr(e.a, locals);
        const b = this.expr(e.b, locals);
        return a === POISON || b === POISON ? POISON : cmp(e.op, a, b);
      }
      case 'logic': {
        const a = this.expr(e.a, locals);
        const b = this.expr(e.b, locals);
        if (a === POISON || b === POISON) return POISON;
        return e.op === 'and' ? (a !== 0 && b !== 0 ? 1 : 0) : a !== 0 || b !== 0 ? 1 : 0;
      }
      case 'not': {
        const a = this.expr(e.a, locals);
        return a === POISON ? POISON : a !== 0 ? 0 : 1;
      }
      case 'neg': {
        const a = this.expr(e.a, locals);
        return a === POISON ? POISON : e.t === 'i32' ? wrapI32(-a) : -a;
      }
      case 'bitnot': {
        const a = this.expr(e.a, locals);
        return a === POISON ? POISON : -a - 1;
      }
      case 'bitcount': {
        const a = this.expr(e.a, locals);
        if (a === POISON) return POISON;
        // From the binary numeral of the 32-bit pattern.
        const numeral = BigInt.asUintN(32, BigInt(a)).toString(2);
        return e.fn === 'popcount' ? [...numeral].filter((c) => c === '1').length : a === 0 ? 32 : 32 - numeral.length;
      }
      case 'sel': {
        const c = this.expr(e.c, locals);
        if (c === POISON) return POISON;
        return this.expr(c !== 0 ? e.a : e.b, locals);
      }
      case 'cast': {
        const a = this.expr(e.a, locals);
        if (a === POISON) return POISON;
        return e.t === 'i32' ? wrapI32(a) : e.t === 'u8' ? wrapU8(a) : a;
      }
      case 'minmax': {
        const a = this.expr(e.a, locals);
        const b = this.expr(e.b, locals);
        if (a === POISON || b === POISON) return POISON;
        return e.op === 'min' ? Math.min(a, b) : Math.max(a, b);
      }
      case 'read': {
        const arr = this.array(e.arr);
        const i = this.expr(e.idx, locals);
        if (arr.kind === 'bad' || i === POISON) return POISON;
        if (arr.shape.length !== 1) throw new Error('fuzz evaluator: read of a rank-2 array');
        if (!(i >= 0 && i < arr.shape[0]!)) return this.poison();
        return arr.data[i]!;
      }
      case 'size': {
        const arr = this.array(e.arr);
        return arr.kind === 'bad' ? POISON : arr.shape[0]!;
      }
      default:
        return e satisfies never;
    }
  }

  private apply(f: Lam, args: readonly V[]): V[] {
    const locals = new Map<string, V>();
    f.params.forEach((p, k) => locals.set(p, args[k]!));
    return f.body.map((b) => this.expr(b, locals));
  }

  private combine(c: Combine, elem: Elem, old: V, incoming: V): V {
    if (c.k === 'lam') return this.apply(c.f, [old, incoming])[0]!;
    return binop(c.op, elem, old, incoming);
  }

  /** A generate size or count: a non-negative integer, else the array cannot be built. */
  private count(e: Expr): number | null {
    const n = this.expr(e, new Map());
    if (n === POISON || !Number.isInteger(n) || n < 0) return null;
    // A size only a rejected literal can make (4294967297): the program is rejected or too big.
    if (n > 1_000_000) throw new Unknown(`a size of ${n} elements`);
    return n;
  }

  /**
   * `drop` (scatterDrop, hist): an index outside the destination skips its update, its value
   * never read; a poisoned index still breaks the result (it could have named any element).
   */
  private scatterInto(dest: ArrV, c: Combine, index: readonly V[], vals: readonly V[], drop = false): ArrV | BadV {
    if (index.length !== vals.length) return this.bad();
    const out = dest.data.slice();
    const written = new Set<number>();
    for (let p = 0; p < index.length; p++) {
      const t = index[p]!;
      if (drop && t !== POISON && !(t >= 0 && t < out.length)) continue;
      // Which element an update lands on is unknown: every element is suspect, but the shape
      // (the destination's) is still known, so `size` of the result does not fault.
      if (t === POISON || !(t >= 0 && t < out.length)) {
        this.faulted = true;
        return { kind: 'array', elem: dest.elem, shape: dest.shape, data: out.map(() => POISON), broken: true };
      }
      // Several updates of one element apply `op` in an unspecified order (docs/LANGUAGE.md):
      // with a function (not an associative, commutative operator) the result is open.
      if (c.k === 'lam' && written.has(t)) throw new Unspecified('a scatter updates one element twice with a function: the order is unspecified');
      written.add(t);
      out[t] = this.combine(c, dest.elem, out[t]!, vals[p]!);
    }
    return { kind: 'array', elem: dest.elem, shape: dest.shape, data: out };
  }

  private gatherFrom(src: ArrV, index: readonly V[]): ArrV {
    const data = index.map((i) => (i === POISON ? POISON : i >= 0 && i < src.data.length ? src.data[i]! : this.poison()));
    return { kind: 'array', elem: src.elem, shape: [index.length], data };
  }

  private generated(size: Expr, f: Lam): V[] | null {
    const n = this.count(size);
    if (n === null) return null;
    return Array.from({ length: n }, (_, i) => this.apply(f, [i])[0]!);
  }

  /** The values an array binding produces (two for a tuple); built from a broken array, broken. */
  op(op: ArrOp): Value[] {
    const values = this.build(op);
    // zip and unzip are free (structure of arrays): each component keeps what it was.
    if (op.k === 'unzipzip' || op.k === 'alias') return values;
    const inputs = arrayInputs(op).map((name) => this.lookup(name));
    if (!inputs.some((v) => v.kind === 'array' && v.broken === true)) return values;
    return values.map((v) => (v.kind === 'array' ? { ...v, broken: true } : v));
  }

  private build(op: ArrOp): Value[] {
    const rank1 = (name: string): ArrV | null => {
      const a = this.array(name);
      return a.kind === 'bad' ? null : a;
    };
    switch (op.k) {
      case 'map': {
        const args = op.args.map(rank1);
        if (args.some((a) => a === null)) return op.f.body.map(() => this.bad());
        const arrays = args as ArrV[];
        const n = arrays[0]!.data.length;
        if (arrays.some((a) => a.shape.join() !== arrays[0]!.shape.join())) return op.f.body.map(() => this.bad());
        const rows = Array.from({ length: n }, (_, i) => this.apply(op.f, arrays.map((a) => a.data[i]!)));
        return op.f.body.map((b, c) => ({ kind: 'array', elem: b.t, shape: arrays[0]!.shape, data: rows.map((r) => r[c]!) }));
      }
      case 'generate': {
        const data = this.generated(op.size, op.f);
        return [data === null ? this.bad() : { kind: 'array', elem: op.f.body[0]!.t, shape: [data.length], data }];
      }
      case 'gather': {
        const idx = rank1(op.idx);
        const src = rank1(op.src);
        if (idx === null) return [this.bad()];
        // A gather's shape is its indices': from a source that cannot be built it is all poison,
        // broken, but still of that shape (its size reads nothing of the source).
        // (A broken array is never compared by value, so its element type does not matter.)
        if (src === null) return [{ kind: 'array', elem: 'f64', shape: idx.shape, data: idx.data.map(() => this.poison()), broken: true }];
        return [this.gatherFrom(src, idx.data)];
      }
      case 'scatter': {
        const dest = rank1(op.dest);
        const idx = rank1(op.idx);
        const vals = rank1(op.vals);
        return [dest === null || idx === null || vals === null ? this.bad() : this.scatterInto(dest, op.op, idx.data, vals.data)];
      }
      case 'scatterDrop': {
        const dest = rank1(op.dest);
        const idx = rank1(op.idx);
        const vals = rank1(op.vals);
        return [dest === null || idx === null || vals === null ? this.bad() : this.scatterInto(dest, op.op, idx.data, vals.data, true)];
      }
      case 'hist': {
        // `bins` bins of `ne` (a fill: a bad count cannot be built), then a dropping scatter.
        const idx = rank1(op.idx);
        const vals = rank1(op.vals);
        const bins = this.count(op.bins);
        const ne = this.expr(op.ne, new Map());
        if (idx === null || vals === null || bins === null) return [this.bad()];
        const dest: ArrV = { kind: 'array', elem: op.ne.t, shape: [bins], data: Array.from({ length: bins }, () => ne) };
        return [this.scatterInto(dest, op.op, idx.data, vals.data, true)];
      }
      case 'scanSeg': {
        const src = rank1(op.src);
        const flagSrc = rank1(op.flagSrc);
        if (src === null || flagSrc === null || flagSrc.data.length !== src.data.length) return [this.bad()];
        const flags = flagSrc.data.map((x) => this.apply(op.flags, [x])[0]!);
        return [{ ...src, data: segmentedScan(op.dir, op.op, src.elem, flags, src.data) }];
      }
      case 'foldSeg': {
        const src = rank1(op.src);
        const lens = rank1(op.lens);
        if (src === null || lens === null) return [this.bad()];
        const z = this.expr(op.z, new Map());
        // Only the lengths are consumed whole (arrayInputs): the segments' folds read elements of
        // `src`, every one of them poisoned when it is broken, and an empty segment reads none.
        const data = src.broken === true ? src.data.map((): V => POISON) : src.data;
        return [{ kind: 'array', elem: src.elem, shape: lens.shape, data: segmentedFold(op.op, src.elem, z, data, lens.data) }];
      }
      case 'permute': {
        const dest = rank1(op.dest);
        const src = rank1(op.src);
        if (dest === null || src === null) return [this.bad()];
        const index = src.data.map((_, i) => this.apply(op.f, [i])[0]!);
        return [this.scatterInto(dest, op.op, index, src.data)];
      }
      case 'filter': {
        const src = rank1(op.src);
        if (src === null) return [this.bad()];
        const flags = src.data.map((x) => this.apply(op.p, [x])[0]!);
        if (flags.some((f) => f === POISON)) return [this.bad()];
        const data = src.data.filter((_, i) => flags[i] !== 0);
        return [{ kind: 'array', elem: src.elem, shape: [data.length], data }];
      }
      case 'reverse': {
        const src = rank1(op.src);
        return [src === null ? this.bad() : { ...src, data: [...src.data].reverse() }];
      }
      case 'take':
      case 'drop': {
        const src = rank1(op.src);
        const k = this.expr(op.n, new Map());
        if (k === POISON) return [this.bad()];
        // As in count(): a size only a rejected literal can make is not evaluated.
        if (Math.abs(k) > 1_000_000) throw new Unknown(`take or drop of ${k} elements`);
        // take(k, xs) is gather(generate(k), xs): its size is k whatever xs is.
        if (src === null && op.k === 'take' && Number.isInteger(k) && k >= 0) {
          return [{ kind: 'array', elem: 'f64', shape: [k], data: Array.from({ length: k }, () => this.poison()), broken: true }];
        }
        if (src === null) return [this.bad()];
        const n = src.data.length;
        const size = op.k === 'take' ? k : n - k;
        if (!Number.isInteger(size) || size < 0) return [this.bad()];
        const index = Array.from({ length: size }, (_, i) => (op.k === 'take' ? i : i + k));
        return [this.gatherFrom(src, index)];
      }
      case 'scan': {
        const src = rank1(op.src);
        if (src === null) return [this.bad()];
        const seed = op.seed === null ? null : this.expr(op.seed, new Map());
        // Each innermost row on its own (one row for rank 1).
        const row = src.shape[src.shape.length - 1]!;
        const data: V[] = [];
        for (let at = 0; at < src.data.length; at += row) data.push(...scan(op.dir, op.op, src.elem, seed, src.data.slice(at, at + row)));
        return [{ ...src, data }];
      }
      case 'backpermute': {
        const src = rank1(op.src);
        const index = this.generated(op.size, op.f);
        if (index === null) return [this.bad()];
        // A gather of generated indices: as a gather's, its size is its count's, from a source
        // that cannot be built too (all poison and broken).
        if (src === null) return [{ kind: 'array', elem: 'f64', shape: [index.length], data: index.map(() => this.poison()), broken: true }];
        return [this.gatherFrom(src, index)];
      }
      case 'replicate': {
        const src = rank1(op.src);
        const n = this.count(op.n);
        if (src === null || n === null) return [this.bad()];
        const data: V[] = [];
        for (let r = 0; r < n; r++) data.push(...src.data);
        return [{ kind: 'array', elem: src.elem, shape: [n, src.data.length], data }];
      }
      case 'transpose': {
        const src = rank1(op.src);
        if (src === null) return [this.bad()];
        const [rows, cols] = src.shape as [number, number];
        const data: V[] = [];
        for (let i = 0; i < cols; i++) for (let j = 0; j < rows; j++) data.push(src.data[j * cols + i]!);
        return [{ kind: 'array', elem: src.elem, shape: [cols, rows], data }];
      }
      case 'rowfold': {
        const src = rank1(op.src);
        if (src === null) return [this.bad()];
        const [rows, cols] = src.shape as [number, number];
        const data = Array.from({ length: rows }, (_, r) => fold(op.op, src.elem, null, src.data.slice(r * cols, r * cols + cols)));
        return [{ kind: 'array', elem: src.elem, shape: [rows], data }];
      }
      case 'unzipzip': {
        const a = rank1(op.a);
        const b = rank1(op.b);
        // zip and unzip are free: each component stays what it was (and a bad one stays bad).
        if (a === null || b === null) return [this.array(op.a), this.array(op.b)];
        if (a.data.length !== b.data.length) return [this.bad(), this.bad()];
        return [a, b];
      }
      case 'alias':
        return [this.lookup(op.src)];
      default:
        return op satisfies never;
    }
  }

  block(body: readonly Stmt[]): void {
    for (const s of body) this.stmt(s);
  }

  private condition(e: Expr): boolean {
    const c = this.expr(e, new Map());
    if (c === POISON) throw new Unknown('a condition faults');
    return c !== 0;
  }

  stmt(s: Stmt): void {
    switch (s.k) {
      case 'let': {
        const values = this.op(s.op);
        s.names.forEach((n, k) => this.env.set(n, values[k]!));
        return;
      }
      case 'scalar':
        this.env.set(s.name, { kind: 'scalar', elem: s.e.t, v: this.expr(s.e, new Map()) });
        return;
      case 'fold': {
        const src = this.array(s.src);
        const seed = s.seed === null ? null : this.expr(s.seed, new Map());
        const elem = src.kind === 'bad' ? (s.seed?.t ?? 'f64') : src.elem;
        // A fold's result is an array of rank 0 (docs/LANGUAGE.md): built from a broken array, it
        // is broken too, even over no elements.
        const v = src.kind === 'bad' || src.broken === true ? POISON : fold(s.op, src.elem, seed, src.data);
        this.env.set(s.name, { kind: 'scalar', elem, v });
        return;
      }
      case 'if':
        this.block(this.condition(s.c) ? s.then : s.else);
        return;
      case 'while': {
        let k = 0;
        this.env.set(s.counter, { kind: 'scalar', elem: 'i32', v: 0 });
        while (this.condition({ k: 'cmp', t: 'bool', op: '<', a: { k: 'ref', t: 'i32', name: s.counter }, b: s.bound })) {
          if (++k > 64) throw new Unknown('a long while loop');
          this.block(s.body);
          this.env.set(s.counter, { kind: 'scalar', elem: 'i32', v: k });
        }
        return;
      }
      case 'for':
        for (let i = 0; i < s.n; i++) {
          this.env.set(s.iv, { kind: 'scalar', elem: 'i32', v: i });
          this.block(s.body);
        }
        return;
      default:
        s satisfies never;
    }
  }
}

/** The arrays an operation consumes as wholes (not those its lambdas index, nor sizes). */
function arrayInputs(op: ArrOp): string[] {
  switch (op.k) {
    case 'map':
      return [...op.args];
    case 'generate':
      return [];
    case 'gather':
      return [op.idx, op.src];
    case 'scatter':
    case 'scatterDrop':
      return [op.dest, op.idx, op.vals];
    case 'hist':
      return [op.idx, op.vals];
    case 'scanSeg':
      return [op.flagSrc, op.src];
    case 'foldSeg':
      // The prelude consumes the lengths whole (a map, a scan, a hist); `src` only through a
      // segmented scan whose elements the result reads, so a broken `src` poisons exactly the
      // non-empty segments.
      return [op.lens];
    case 'permute':
      return [op.dest, op.src];
    case 'unzipzip':
      return [op.a, op.b];
    default:
      return [op.src];
  }
}

function binop(op: '+' | '*' | 'max' | 'min', elem: Elem, a: V, b: V): V {
  if (a === POISON || b === POISON) return POISON;
  switch (op) {
    case '+':
      return elem === 'i32' ? wrapI32(a + b) : a + b;
    case '*':
      return elem === 'i32' ? Math.imul(a, b) : a * b;
    case 'max':
      return Math.max(a, b);
    case 'min':
      return Math.min(a, b);
  }
}

function identity(op: '+' | '*' | 'max' | 'min', elem: Elem): number {
  switch (op) {
    case '+':
      return 0;
    case '*':
      return 1;
    case 'max':
    case 'min':
      // The identity of an integer max or min (±inf) has no i32 value: what an empty one gives is
      // not written down.
      if (elem === 'i32') throw new Unknown('integer max/min identity');
      return op === 'max' ? -Infinity : Infinity;
  }
}

/** Left to right from the seed (the operator's identity without one). */
function fold(op: '+' | '*' | 'max' | 'min', elem: Elem, seed: V | null, data: readonly V[]): V {
  if (seed === null && data.length === 0) return identity(op, elem);
  let acc: V = seed ?? identity(op, elem);
  for (const x of data) acc = binop(op, elem, acc, x);
  return acc;
}

/** Inclusive without a seed, exclusive with one; scanr combines op(x, acc). */
function scan(dir: 'l' | 'r', op: '+' | '*' | 'max' | 'min', elem: Elem, seed: V | null, data: readonly V[]): V[] {
  const n = data.length;
  const out: V[] = new Array<V>(n);
  if (n === 0) return out;
  if (dir === 'l') {
    out[0] = seed ?? data[0]!;
    for (let i = 1; i < n; i++) out[i] = binop(op, elem, out[i - 1]!, seed === null ? data[i]! : data[i - 1]!);
  } else {
    out[n - 1] = seed ?? data[n - 1]!;
    for (let i = n - 2; i >= 0; i--) out[i] = binop(op, elem, seed === null ? data[i]! : data[i + 1]!, out[i + 1]!);
  }
  return out;
}

/**
 * scanlSeg / scanrSeg from their meaning: a true flag starts a segment (the first element always
 * does), and each segment is scanned on its own, inclusively. A value depends on the flags that
 * decide where its segment starts (scanl: its own and those back to that start; scanr: the next
 * element's and those on to its segment's end), so a poisoned one of those poisons it; the
 * first element's flag decides nothing.
 */
function segmentedScan(dir: 'l' | 'r', op: '+' | '*' | 'max' | 'min', elem: Elem, flags: readonly V[], data: readonly V[]): V[] {
  const n = data.length;
  const out: V[] = new Array<V>(n);
  if (n === 0) return out;
  if (dir === 'l') {
    out[0] = data[0]!;
    for (let i = 1; i < n; i++) {
      const f = flags[i]!;
      out[i] = f === POISON ? POISON : f !== 0 ? data[i]! : binop(op, elem, out[i - 1]!, data[i]!);
    }
  } else {
    out[n - 1] = data[n - 1]!;
    for (let i = n - 2; i >= 0; i--) {
      // Element i ends its segment when element i + 1 starts the next one.
      const f = flags[i + 1]!;
      out[i] = f === POISON ? POISON : f !== 0 ? data[i]! : binop(op, elem, data[i]!, out[i + 1]!);
    }
  }
  return out;
}

/**
 * foldSeg from its meaning: segment k has max(lens[k], 0) elements, laid end to end from the start
 * of `data` and cut at its end; its result is `op(z, fold of the segment)` (the segment folded
 * left to right and then combined with z: the prelude's grouping, equal to a fold from z for an
 * associative op, and the interpreter's bit for bit), z alone for an empty segment. A poisoned
 * length moves every later segment, and the prelude's heads are a scatter of the starts, which a
 * poisoned index breaks as a whole: the language has no rule for that here, so it is left open.
 */
function segmentedFold(op: '+' | '*' | 'max' | 'min', elem: Elem, z: V, data: readonly V[], lens: readonly V[]): V[] {
  const n = data.length;
  let start = 0;
  return lens.map((l) => {
    if (l === POISON) throw new Unknown('a poisoned foldSeg length');
    const stop = Math.min(n, start + Math.max(0, l));
    const segment = data.slice(start, stop);
    start = stop;
    if (segment.length === 0) return z;
    let acc: V = segment[0]!;
    for (const x of segment.slice(1)) acc = binop(op, elem, acc, x);
    return binop(op, elem, z, acc);
  });
}

/** Inputs by parameter name, in the evaluator's terms. */
export type FuzzInputs = ReadonlyMap<string, { readonly elem: Elem; readonly data: readonly number[] } | { readonly elem: Elem; readonly value: number }>;

export function evaluate(p: Prog, inputs: FuzzInputs): Verdict {
  const { demand, closedArithmetic } = literalFacts(p);
  if (demand === 'mustReject') return { k: 'reject' };
  if (closedArithmetic) return { k: 'unknown', why: 'integer arithmetic among literals is exact in lowering, wrapped here' };
  const mayReject = demand === 'mayReject';
  const env: Env = new Map();
  for (const [name, x] of inputs) {
    env.set(name, 'data' in x ? { kind: 'array', elem: x.elem, shape: [x.data.length], data: x.data } : { kind: 'scalar', elem: x.elem, v: x.value });
  }
  const ev = new Evaluator(env);
  try {
    ev.block(p.body);
  } catch (err) {
    if (err instanceof Unknown) return { k: 'unknown', why: err.message, unspecified: err instanceof Unspecified };
    throw err;
  }
  const values: Expected[] = [];
  for (const name of p.rets) {
    const v = env.get(name);
    if (v === undefined) throw new Error(`fuzz evaluator: result '${name}' is not bound`);
    if (v.kind === 'bad') return { k: 'fault', mayReject };
    if (v.kind === 'scalar') {
      if (v.v === POISON) return { k: 'fault', mayReject };
      values.push({ elem: v.elem, shape: null, data: [v.v] });
    } else {
      if (v.broken === true || v.data.some((x) => x === POISON)) return { k: 'fault', mayReject };
      values.push({ elem: v.elem, shape: v.shape, data: v.data as number[] });
    }
  }
  return { k: 'values', values, mayFault: ev.faulted, mayReject };
}
