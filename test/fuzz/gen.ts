// The generator of random well-typed `.fuse` programs (as ast.ts trees), weighted toward what
// the core-IR generator of test/util missed (issue 9): updates whose destination is produced in
// the program and read by the values, the indices, the combining function or later statements;
// chains of filters, and filters before and inside loops; scalar reads (`a[0]`, `size(a)`) of
// arrays that get fused; integer literals at and beyond the i32 limits in integer and float
// contexts; integer `//` and `%` by zero and indices out of range, in demanded and undemanded
// elements; `if` on run-time scalars, `while` loops with a counter, static `for`.

import type { ArithOp, ArrOp, Combine, Elem, Expr, Lam, Param, Prog, Stmt } from './ast.js';
import type { Rng } from './rng.js';

type Num = 'f64' | 'i32';

/** An array in scope: `len` names its length class (equal classes have equal lengths). */
interface AVar {
  name: string;
  readonly elem: Num;
  readonly rank: 1 | 2;
  len: string;
  /** Computed by the program (not an input). */
  readonly produced: boolean;
}

interface SVar {
  readonly name: string;
  readonly elem: Num;
}

/** What element code may refer to. */
interface Ctx {
  readonly locals: readonly { readonly name: string; readonly t: Num }[];
  readonly reads: boolean;
  /** An array to read with priority (an update's destination). */
  readonly prefer?: string;
}

const PARAMS: readonly Param[] = [
  { name: 'xs', elem: 'f64', rank: 1 },
  { name: 'ys', elem: 'f64', rank: 1 },
  { name: 'is', elem: 'i32', rank: 1 },
  { name: 'bs', elem: 'u8', rank: 1 },
  { name: 'c', elem: 'f64', rank: 0 },
  { name: 'j', elem: 'i32', rank: 0 },
];

const lit = (t: Elem, text: string): Expr => ({ k: 'lit', t, text, value: Number(text) });
const ref = (t: Elem, name: string): Expr => ({ k: 'ref', t, name });
const size = (arr: string): Expr => ({ k: 'size', t: 'i32', arr });
const arith = (op: ArithOp, a: Expr, b: Expr): Expr => ({
  k: 'arith',
  t: a.t === 'f64' || b.t === 'f64' ? 'f64' : a.t === 'u8' ? 'u8' : 'i32',
  op,
  a,
  b,
});

/** Integer literals at and beyond the i32 limits. */
const EDGE_INTS = ['2147483647', '2147483648', '-2147483648', '3000000000', '10000000000', '4294967296'];

export class ProgramGenerator {
  private arrays: AVar[] = [];
  private scalars: SVar[] = [];
  private out: Stmt[] = [];
  private fresh = 0;
  private lenClass = 0;
  private depth = 0;
  /** The most recent filter result (chains of filters read it). */
  private lastFilter: string | null = null;

  constructor(private readonly rng: Rng) {}

  program(statements: number): Prog {
    for (const p of PARAMS) {
      // The bytes are read by byte expressions only (`byteExpr`).
      if (p.elem === 'u8') continue;
      if (p.rank === 1) this.arrays.push({ name: p.name, elem: p.elem as Num, rank: 1, len: p.name === 'is' ? 'm' : 'n', produced: false });
      else this.scalars.push({ name: p.name, elem: p.elem as Num });
    }
    for (let k = 0; k < statements; k++) this.statement();
    return { params: PARAMS, body: this.out, rets: this.results() };
  }

  private name(prefix: string): string {
    return `${prefix}${++this.fresh}`;
  }

  private newLen(): string {
    return `d${++this.lenClass}`;
  }

  private rank1(elem?: Num): AVar[] {
    return this.arrays.filter((a) => a.rank === 1 && (elem === undefined || a.elem === elem));
  }

  /** Recent and produced arrays are likelier: they are what fusion works on. */
  private pickArray(candidates: readonly AVar[]): AVar {
    const weighted = candidates.map((a, k) => [1 + (a.produced ? 2 : 0) + (k >= candidates.length - 2 ? 3 : 0), a] as const);
    return this.rng.weighted(weighted);
  }

  private results(): string[] {
    const rets = new Set<string>();
    const last = [...this.out].reverse().find((s) => s.k === 'let' || s.k === 'scalar' || s.k === 'fold');
    if (last !== undefined) rets.add(last.k === 'let' ? last.names[this.rng.int(0, last.names.length - 1)]! : last.name);
    const visible = [...this.arrays.map((a) => a.name), ...this.scalars.map((s) => s.name)];
    const extra = this.rng.int(rets.size === 0 ? 1 : 0, 2);
    for (let k = 0; k < extra; k++) rets.add(this.rng.pick(visible.slice(-6)));
    return [...rets];
  }

  // ---- element expressions ----

  private floatLit(): Expr {
    return lit('f64', this.rng.pick(['0.5', '1.0', '2.0', '2.5', '0.0', '-1.5', '3.0', '1.0e3']));
  }

  private intLit(): Expr {
    if (this.rng.chance(0.04)) return lit('i32', this.rng.pick(['2147483647', '-2147483648']));
    return lit('i32', String(this.rng.pick([0, 1, 2, 3, 1, 2, -1, 7])));
  }

  private leaf(t: Num, ctx: Ctx): Expr {
    const options: (readonly [number, () => Expr])[] = [[2, () => (t === 'f64' ? this.floatLit() : this.intLit())]];
    const locals = ctx.locals.filter((l) => l.t === t);
    if (locals.length > 0) options.push([6, () => ref(t, this.rng.pick(locals).name)]);
    const scalars = this.scalars.filter((s) => s.elem === t);
    if (scalars.length > 0) options.push([2, () => ref(t, this.rng.pick(scalars).name)]);
    if (ctx.reads && this.rank1(t).length > 0) options.push([2, () => this.read(t, ctx)]);
    if (t === 'i32' && ctx.reads) options.push([1, () => size(this.pickArray(this.rank1()).name)]);
    if (t === 'f64' && this.rng.chance(0.2)) options.push([1, () => ({ k: 'cast', t: 'f64', a: this.leaf('i32', ctx) })]);
    // A byte expression widened: 8-bit arithmetic that wrapped, read back as an integer or float.
    if (this.rng.chance(0.15)) options.push([1, () => ({ k: 'cast', t, a: this.byteExpr(ctx, 2) })]);
    return this.rng.weighted(options)();
  }

  /**
   * A u8 expression: a read of the input `bs`, an i32 (or f64) expression cast to u8, or bytes
   * combined by arithmetic and bit operations that wrap modulo 2^8 (division and remainder by a
   * byte that may be zero; shifts by a byte count, taken modulo 32). No literal is a byte: each
   * is an i32 cast, so no literal has to fit.
   */
  private byteExpr(ctx: Ctx, depth: number): Expr {
    const ints = ctx.locals.filter((l) => l.t === 'i32');
    const read = (): Expr => {
      const idx = this.rng.weighted<() => Expr>([
        [3, () => lit('i32', '0')],
        [2, () => arith('-', size('bs'), lit('i32', '1'))],
        [ints.length > 0 ? 3 : 0, () => arith('%', ref('i32', this.rng.pick(ints).name), size('bs'))],
        [1, () => ref('i32', 'j')],
      ])();
      return { k: 'read', t: 'u8', arr: 'bs', idx, bang: false };
    };
    const cast = (): Expr => ({ k: 'cast', t: 'u8', a: this.expr(this.rng.chance(0.8) ? 'i32' : 'f64', ctx, Math.max(0, depth - 1)) });
    if (depth <= 0 || this.rng.chance(0.3)) return ctx.reads && this.rng.chance(0.6) ? read() : cast();
    const sub = (): Expr => this.byteExpr(ctx, depth - 1);
    return this.rng.weighted<() => Expr>([
      [4, () => arith(this.rng.pick(['+', '-', '*'] as const), sub(), sub())],
      [1, () => arith(this.rng.pick(['//', '%'] as const), sub(), sub())],
      [2, () => arith(this.rng.pick(['&', '|', '^', '<<', '>>'] as const), sub(), sub())],
      [1, () => ({ k: 'minmax', t: 'u8', op: this.rng.pick(['min', 'max'] as const), a: sub(), b: sub() })],
      [1, () => ({ k: 'sel', t: 'u8', c: this.bool(ctx, depth - 1), a: sub(), b: sub() })],
    ])();
  }

  /** `arr[i]` or `arr ! i`, sometimes out of range, sometimes guarded by a lazy `if`. */
  private read(t: Num, ctx: Ctx): Expr {
    const candidates = this.rank1(t);
    const preferred = candidates.find((a) => a.name === ctx.prefer);
    const arr = preferred !== undefined && this.rng.chance(0.6) ? preferred : this.pickArray(candidates);
    const ints = ctx.locals.filter((l) => l.t === 'i32');
    const index = this.rng.weighted<() => Expr>([
      [4, () => lit('i32', '0')],
      [2, () => arith('-', size(arr.name), lit('i32', '1'))],
      [ints.length > 0 ? 3 : 0, () => ref('i32', this.rng.pick(ints).name)],
      [ints.length > 0 ? 2 : 0, () => arith('%', ref('i32', this.rng.pick(ints).name), size(arr.name))],
      [1, () => ref('i32', 'j')],
      [1, () => lit('i32', '1')],
    ])();
    const e: Expr = { k: 'read', t, arr: arr.name, idx: index, bang: this.rng.chance(0.3) };
    if (this.rng.chance(0.2)) {
      const guard: Expr = { k: 'cmp', t: 'bool', op: '<', a: index, b: size(arr.name) };
      return { k: 'sel', t, c: guard, a: e, b: t === 'f64' ? lit('f64', '0.0') : lit('i32', '0') };
    }
    return e;
  }

  expr(t: Elem, ctx: Ctx, depth = 2): Expr {
    if (t === 'bool') return this.bool(ctx, depth);
    if (t === 'u8') return this.byteExpr(ctx, depth);
    if (depth <= 0 || this.rng.chance(0.25)) return this.leaf(t, ctx);
    const sub = (): Expr => this.expr(t, ctx, depth - 1);
    const choices: (readonly [number, () => Expr])[] = [
      [5, () => arith(this.rng.pick(['+', '-', '*'] as const), sub(), sub())],
      [1, () => ({ k: 'sel', t, c: this.bool(ctx, depth - 1), a: sub(), b: sub() })],
      [1, () => ({ k: 'minmax', t, op: this.rng.pick(['min', 'max'] as const), a: sub(), b: sub() })],
      [0.5, () => ({ k: 'neg', t, a: sub() })],
    ];
    if (t === 'f64') {
      choices.push([1, () => arith('/', sub(), sub())]);
      // An integer literal at or beyond the i32 limits where the operation is on floats.
      choices.push([1, () => arith(this.rng.pick(['+', '*', '-'] as const), sub(), lit('i32', this.rng.pick(EDGE_INTS)))]);
      choices.push([0.5, () => ({ k: 'cast', t: 'f64', a: this.expr('i32', ctx, depth - 1) })]);
    } else {
      // Integer division and remainder: by a literal, or by something that may be zero.
      choices.push([2, () => arith(this.rng.pick(['//', '%'] as const), sub(), this.rng.chance(0.6) ? lit('i32', this.rng.pick(['2', '3', '-2'])) : this.leaf('i32', ctx))]);
      choices.push([0.3, () => ({ k: 'cast', t: 'i32', a: this.leaf('f64', ctx) })]);
      // Bit operations; shift counts include the ones taken modulo 32 (32, 33, negative).
      choices.push([1, () => arith(this.rng.pick(['&', '|', '^'] as const), sub(), sub())]);
      choices.push([1, () => arith(this.rng.pick(['<<', '>>'] as const), sub(), this.rng.chance(0.5) ? lit('i32', this.rng.pick(['0', '1', '31', '32', '33', '-1'])) : sub())]);
      choices.push([0.3, () => ({ k: 'bitnot', t: 'i32', a: sub() })]);
      choices.push([0.3, () => ({ k: 'bitcount', t: 'i32', fn: this.rng.pick(['popcount', 'clz'] as const), a: sub() })]);
    }
    return this.rng.weighted(choices)();
  }

  private bool(ctx: Ctx, depth: number): Expr {
    if (this.rng.chance(0.08)) {
      return { k: 'cmp', t: 'bool', op: this.rng.pick(['<', '<=', '>', '>=', '==', '!='] as const), a: this.byteExpr(ctx, 1), b: this.byteExpr(ctx, 0) };
    }
    const t: Num = this.rng.chance(0.6) ? 'f64' : 'i32';
    const c: Expr = {
      k: 'cmp',
      t: 'bool',
      op: this.rng.pick(['<', '<=', '>', '>=', '==', '!='] as const),
      a: this.expr(t, ctx, Math.min(depth, 1)),
      b: this.rng.chance(0.5) ? (t === 'f64' ? this.floatLit() : this.intLit()) : this.expr(t, ctx, 0),
    };
    if (depth > 1 && this.rng.chance(0.2)) return { k: 'logic', t: 'bool', op: this.rng.pick(['and', 'or'] as const), a: c, b: this.bool(ctx, 0) };
    if (this.rng.chance(0.05)) return { k: 'not', t: 'bool', a: c };
    return c;
  }

  private lam(params: readonly { readonly name: string; readonly t: Num }[], out: readonly Num[], prefer?: string): Lam {
    const ctx: Ctx = { locals: params, reads: true, prefer };
    return { params: params.map((p) => p.name), body: out.map((t) => this.expr(t, ctx)) };
  }

  private elemType(): Num {
    return this.rng.chance(0.75) ? 'f64' : 'i32';
  }

  /** A scalar i32 count: a literal, a size, a size minus one (maybe −1), or `j`. */
  private countExpr(of?: AVar): { e: Expr; len: string } {
    return this.rng.weighted<() => { e: Expr; len: string }>([
      [3, () => {
        const k = this.rng.int(0, 4);
        return { e: lit('i32', String(k)), len: `L${k}` };
      }],
      [of === undefined ? 0 : 4, () => ({ e: size(of!.name), len: of!.len })],
      [of === undefined ? 0 : 1, () => ({ e: arith('-', size(of!.name), lit('i32', '1')), len: this.newLen() })],
      [1, () => ({ e: ref('i32', 'j'), len: this.newLen() })],
      // A size given by a literal beyond i32: must be rejected, not wrapped (these two wrap to 1
      // and 0, so a compiler that wraps them stays fast and is caught by the evaluator).
      [0.05, () => ({ e: lit('i32', this.rng.pick(['4294967297', '4294967296'])), len: this.newLen() })],
    ])();
  }

  /** An index expression in `i` for a destination or source `arr`: mostly in range. */
  private indexLam(arr: AVar, prefer?: string): Lam {
    const i = ref('i32', 'i');
    const n = size(arr.name);
    const body = this.rng.weighted<() => Expr>([
      [3, () => arith('-', arith('-', n, lit('i32', '1')), i)],
      [2, () => i],
      [2, () => arith('%', arith('*', i, lit('i32', '2')), n)],
      [1, () => arith('//', i, lit('i32', '2'))],
      [1, () => arith('+', i, lit('i32', '1'))],
      [1, () => this.expr('i32', { locals: [{ name: 'i', t: 'i32' }], reads: true, prefer }, 2)],
    ])();
    return { params: ['i'], body: [body] };
  }

  private combine(elem: Num, dest: string): Combine {
    return this.rng.weighted<() => Combine>([
      [2, () => ({ k: 'op', op: this.rng.pick(['+', 'max', 'min'] as const) })],
      [2, () => ({ k: 'lam', f: { params: ['o', 'w'], body: [ref(elem, 'w')] } })],
      // The combining function reads the destination (or another array).
      [3, () => ({ k: 'lam', f: this.lam([{ name: 'o', t: elem }, { name: 'w', t: elem }], [elem], dest) })],
    ])();
  }

  // ---- statements ----

  private push(s: Stmt): void {
    this.out.push(s);
  }

  private bind(name: string, op: ArrOp, elem: Num, len: string, rank: 1 | 2 = 1): AVar {
    this.push({ k: 'let', names: [name], op });
    return this.define({ name, elem, rank, len, produced: true });
  }

  private define(v: AVar): AVar {
    this.arrays = this.arrays.filter((a) => a.name !== v.name);
    this.arrays.push(v);
    return v;
  }

  /**
   * Emits statements ending in one array binding: to a new name, or re-binding `target`
   * (whose element type it keeps) inside a branch or loop.
   */
  private arrayStatement(target?: AVar): AVar {
    const want = target?.elem;
    const name = target?.name ?? this.name('v');
    const srcOf = (elem?: Num): AVar => {
      if (target !== undefined && this.rng.chance(0.6) && (elem === undefined || elem === target.elem)) return this.arrays.find((a) => a.name === target.name)!;
      return this.pickArray(this.rank1(elem).length > 0 ? this.rank1(elem) : this.rank1());
    };
    const kind = this.rng.weighted([
      [6, 'map'],
      [1.5, 'zipWith'],
      [target === undefined ? 1 : 0, 'tuple'],
      [2, 'generate'],
      [2, 'gather'],
      [5, 'scatter'],
      [3, 'permute'],
      [5, 'filter'],
      [1.5, 'reverse'],
      [1.5, 'takedrop'],
      [2, 'scan'],
      [1, 'backpermute'],
      // The combinators the prelude builds on a dropping scatter and on segmented scans.
      [1.5, 'scatterDrop'],
      [1.2, 'hist'],
      [1.5, 'scanSeg'],
      [1.2, 'foldSeg'],
      [target === undefined ? 1 : 0, 'rank2'],
      [target === undefined ? 0.7 : 0, 'unzipzip'],
      [target === undefined ? 0.7 : 0, 'alias'],
    ] as const);
    switch (kind) {
      case 'map': {
        const src = srcOf();
        const out = want ?? this.elemType();
        return this.bind(name, { k: 'map', f: this.lam([{ name: 'x', t: src.elem }], [out]), args: [src.name] }, out, src.len);
      }
      case 'zipWith': {
        const a = srcOf();
        const partners = this.rank1().filter((b) => b.len === a.len);
        const b = this.rng.pick(partners);
        const out = want ?? this.elemType();
        const f = this.lam([{ name: 'x', t: a.elem }, { name: 'y', t: b.elem }], [out]);
        return this.bind(name, { k: 'map', f, args: [a.name, b.name] }, out, a.len);
      }
      case 'tuple': {
        const src = srcOf();
        const ts = [this.elemType(), this.elemType()];
        const names = [this.name('v'), this.name('v')];
        this.push({ k: 'let', names, op: { k: 'map', f: this.lam([{ name: 'x', t: src.elem }], ts), args: [src.name] } });
        this.define({ name: names[0]!, elem: ts[0]!, rank: 1, len: src.len, produced: true });
        return this.define({ name: names[1]!, elem: ts[1]!, rank: 1, len: src.len, produced: true });
      }
      case 'generate': {
        const of = this.pickArray(this.rank1());
        const count = this.countExpr(of);
        const out = want ?? this.elemType();
        return this.bind(name, { k: 'generate', size: count.e, f: this.lam([{ name: 'i', t: 'i32' }], [out]) }, out, count.len);
      }
      case 'gather': {
        const src = srcOf(want);
        const idx = this.indexArray(src);
        return this.bind(name, { k: 'gather', idx: idx.name, src: src.name }, src.elem, idx.len);
      }
      case 'scatter':
      case 'permute': {
        // The destination is usually produced in the program and read again: by the values,
        // the indices, the combining function, or later statements (which prefer recent arrays).
        const produced = this.rank1(want).filter((a) => a.produced);
        const dest = target !== undefined ? srcOf(want) : produced.length > 0 && this.rng.chance(0.85) ? this.pickArray(produced) : srcOf(want);
        const elem = dest.elem;
        const sameElem = this.rank1(elem);
        const vals = this.rng.weighted<() => AVar>([
          [3, () => dest],
          [3, () => this.bind(this.name('v'), { k: 'map', f: this.lam([{ name: 'x', t: elem }], [elem], dest.name), args: [dest.name] }, elem, dest.len)],
          [3, () => this.pickArray(sameElem)],
        ])();
        if (kind === 'permute') {
          return this.bind(name, { k: 'permute', op: this.combine(elem, dest.name), dest: dest.name, f: this.indexLam(dest, dest.name), src: vals.name }, elem, dest.len);
        }
        const idx = this.bind(this.name('v'), { k: 'generate', size: size(vals.name), f: this.indexLam(dest, dest.name) }, 'i32', vals.len);
        return this.bind(name, { k: 'scatter', op: this.combine(elem, dest.name), dest: dest.name, idx: idx.name, vals: vals.name }, elem, dest.len);
      }
      case 'scatterDrop': {
        // As a scatter's: the destination usually produced and read again, but the indices
        // reach outside it too (dropped, not faults).
        const produced = this.rank1(want).filter((a) => a.produced);
        const dest = target !== undefined ? srcOf(want) : produced.length > 0 && this.rng.chance(0.7) ? this.pickArray(produced) : srcOf(want);
        const elem = dest.elem;
        const vals = this.rng.chance(0.4) ? dest : this.pickArray(this.rank1(elem));
        const idx = this.bind(this.name('v'), { k: 'generate', size: size(vals.name), f: this.dropIndexLam(dest.name) }, 'i32', vals.len);
        return this.bind(name, { k: 'scatterDrop', op: this.combine(elem, dest.name), dest: dest.name, idx: idx.name, vals: vals.name }, elem, dest.len);
      }
      case 'hist': {
        const vals = srcOf(want);
        const elem = vals.elem;
        const bins = this.countExpr(this.pickArray(this.rank1()));
        // Indices for `bins` bins: some in range, some below or beyond (dropped). The `is` input
        // only where it has the values' length: zipped arrays whose shapes differ are E311 at
        // compile time when the sizes are static, even in a branch not taken.
        const is = this.arrays.find((a) => a.name === 'is')!;
        const idx = is.len === vals.len && this.rng.chance(0.5)
          ? is
          : this.bind(this.name('v'), { k: 'generate', size: size(vals.name), f: this.dropIndexLam(null, bins.e) }, 'i32', vals.len);
        const ne = elem === 'f64' ? this.floatLit() : this.intLit();
        return this.bind(name, { k: 'hist', op: this.combine(elem, vals.name), ne, bins: bins.e, idx: idx.name, vals: vals.name }, elem, bins.len);
      }
      case 'scanSeg': {
        const src = srcOf(want);
        const partners = this.rank1().filter((b) => b.len === src.len);
        const flagSrc = this.rng.pick(partners);
        const flags: Lam = { params: ['x'], body: [this.bool({ locals: [{ name: 'x', t: flagSrc.elem }], reads: true }, 2)] };
        const op = this.rng.pick(['+', '+', 'max', 'min', '*'] as const);
        return this.bind(name, { k: 'scanSeg', dir: this.rng.pick(['l', 'r'] as const), op, flags, flagSrc: flagSrc.name, src: src.name }, src.elem, src.len);
      }
      case 'foldSeg': {
        const src = srcOf(want);
        const lens = this.lengthsArray(src);
        const op = this.rng.pick(['+', '+', 'max', 'min', '*'] as const);
        const z = src.elem === 'f64' ? this.floatLit() : this.intLit();
        return this.bind(name, { k: 'foldSeg', op, z, src: src.name, lens: lens.name }, src.elem, lens.len);
      }
      case 'filter': {
        const chain = this.lastFilter !== null ? this.arrays.find((a) => a.name === this.lastFilter && (want === undefined || a.elem === want)) : undefined;
        const src = chain !== undefined && this.rng.chance(0.5) ? chain : srcOf(want);
        const p: Lam = { params: ['x'], body: [this.bool({ locals: [{ name: 'x', t: src.elem }], reads: true }, 2)] };
        const v = this.bind(name, { k: 'filter', p, src: src.name }, src.elem, this.newLen());
        this.lastFilter = v.name;
        return v;
      }
      case 'reverse': {
        const src = srcOf(want);
        return this.bind(name, { k: 'reverse', src: src.name }, src.elem, src.len);
      }
      case 'takedrop': {
        const src = srcOf(want);
        const k = this.rng.chance(0.8) ? lit('i32', String(this.rng.int(0, 3))) : this.countExpr(src).e;
        const take = this.rng.chance(0.5);
        const len = take && k.k === 'lit' ? `L${k.value}` : this.newLen();
        return this.bind(name, { k: take ? 'take' : 'drop', n: k, src: src.name }, src.elem, len);
      }
      case 'scan': {
        const src = srcOf(want);
        const op = this.rng.pick(['+', '+', 'max', 'min', '*'] as const);
        const seed = this.rng.chance(0.5) ? null : this.rng.chance(0.7) ? (src.elem === 'f64' ? this.floatLit() : this.intLit()) : this.leaf(src.elem, { locals: [], reads: true });
        return this.bind(name, { k: 'scan', dir: this.rng.pick(['l', 'r'] as const), op, seed, src: src.name }, src.elem, src.len);
      }
      case 'backpermute': {
        const src = srcOf(want);
        const count = this.countExpr(src);
        return this.bind(name, { k: 'backpermute', size: count.e, f: this.indexLam(src), src: src.name }, src.elem, count.len);
      }
      case 'rank2': {
        const src = srcOf();
        const rows = this.countExpr(src);
        const r = this.bind(this.name('r'), { k: 'replicate', n: rows.e, src: src.name }, src.elem, 'rank2', 2);
        let cur = r;
        let len = rows.len;
        if (this.rng.chance(0.5)) cur = this.bind(this.name('r'), { k: 'map', f: this.lam([{ name: 'x', t: src.elem }], [src.elem]), args: [cur.name] }, src.elem, 'rank2', 2);
        // A scan of every row: with the row fold below, a row loop wanted in two directions.
        if (this.rng.chance(0.4)) {
          const op = this.rng.pick(['+', 'max'] as const);
          const seed = this.rng.chance(0.5) ? null : src.elem === 'f64' ? this.floatLit() : lit('i32', '0');
          cur = this.bind(this.name('r'), { k: 'scan', dir: this.rng.pick(['l', 'r'] as const), op, seed, src: cur.name }, src.elem, 'rank2', 2);
        }
        if (this.rng.chance(0.6)) {
          cur = this.bind(this.name('r'), { k: 'transpose', src: cur.name }, src.elem, 'rank2', 2);
          len = src.len;
        }
        const op = src.elem === 'f64' ? this.rng.pick(['+', 'max', 'min'] as const) : '+';
        return this.bind(name, { k: 'rowfold', op, src: cur.name }, src.elem, len);
      }
      case 'unzipzip': {
        const a = srcOf();
        const b = this.rng.pick(this.rank1().filter((x) => x.len === a.len));
        const names = [this.name('v'), this.name('v')];
        this.push({ k: 'let', names, op: { k: 'unzipzip', a: a.name, b: b.name } });
        this.define({ name: names[0]!, elem: a.elem, rank: 1, len: a.len, produced: true });
        return this.define({ name: names[1]!, elem: b.elem, rank: 1, len: a.len, produced: true });
      }
      case 'alias': {
        const src = srcOf();
        return this.bind(name, { k: 'alias', src: src.name }, src.elem, src.len);
      }
    }
  }

  /**
   * An index in `i` for a dropping scatter into `dest` (or into `bins` bins): in range, or
   * deliberately below it (negative) or at and beyond its end.
   */
  private dropIndexLam(dest: string | null, bins?: Expr): Lam {
    const i = ref('i32', 'i');
    const n = dest === null ? bins! : size(dest);
    const body = this.rng.weighted<() => Expr>([
      [2, () => i],
      [2, () => arith('-', i, lit('i32', '1'))],
      [2, () => arith('-', n, i)],
      [1, () => arith('+', i, n)],
      [1, () => arith('-', lit('i32', '-1'), i)],
      [2, () => arith('-', arith('*', i, lit('i32', '3')), lit('i32', '2'))],
      [2, () => arith('%', i, lit('i32', '3'))],
      [1, () => arith('-', ref('i32', 'j'), i)],
      [1, () => lit('i32', this.rng.pick(['2147483647', '-2147483648', '0']))],
      [1, () => this.expr('i32', { locals: [{ name: 'i', t: 'i32' }], reads: true, ...(dest === null ? {} : { prefer: dest }) }, 2)],
    ])();
    return { params: ['i'], body: [body] };
  }

  /**
   * Segment lengths for foldSeg over `src`: zeros, negatives (empty segments), ones and small
   * counts, and lengths that run past the end of `src` (cut there).
   */
  private lengthsArray(src: AVar): AVar {
    if (this.rng.chance(0.15)) return this.arrays.find((a) => a.name === 'is')!;
    const i = ref('i32', 'i');
    const body = this.rng.weighted<() => Expr>([
      [3, () => lit('i32', this.rng.pick(['0', '1', '2', '3', '-1', '-2', '7', '100', '2147483647']))],
      [2, () => i],
      [2, () => arith('-', i, lit('i32', '1'))],
      [2, () => arith('-', arith('%', i, lit('i32', '3')), lit('i32', '1'))],
      [1, () => arith('-', lit('i32', '2'), i)],
      [1, () => ref('i32', 'j')],
      [1, () => arith('-', size(src.name), i)],
      [1, () => arith('-', ref('i32', 'j'), i)],
      [0.5, () => this.expr('i32', { locals: [{ name: 'i', t: 'i32' }], reads: true }, 2)],
    ])();
    const count = this.countExpr(src);
    return this.bind(this.name('v'), { k: 'generate', size: count.e, f: { params: ['i'], body: [body] } }, 'i32', count.len);
  }

  /** An i32 array to gather with: the `is` input, or indices generated for `src`. */
  private indexArray(src: AVar): AVar {
    const is = this.arrays.find((a) => a.name === 'is')!;
    if (this.rng.chance(0.4)) return is;
    const count = this.countExpr(src);
    return this.bind(this.name('v'), { k: 'generate', size: count.e, f: this.indexLam(src) }, 'i32', count.len);
  }

  private scalarStatement(): void {
    const name = this.name('s');
    const arrays = this.rank1();
    const arr = this.pickArray(arrays);
    const kind = this.rng.weighted([
      [3, 'read'],
      [2, 'size'],
      [3, 'fold'],
      [1, 'expr'],
    ] as const);
    if (kind === 'fold') {
      const via = this.rng.pick(['fold', 'sum', 'maximum', 'minimum'] as const);
      const op = via === 'sum' ? '+' : via === 'maximum' ? 'max' : via === 'minimum' ? 'min' : this.rng.pick(['+', 'max', 'min', '*'] as const);
      const seed = via === 'fold' && this.rng.chance(0.5) ? (arr.elem === 'f64' ? this.floatLit() : this.intLit()) : null;
      this.push({ k: 'fold', name, via, op, seed, src: arr.name });
      this.scalars.push({ name, elem: arr.elem });
      return;
    }
    const e =
      kind === 'size'
        ? size(arr.name)
        : kind === 'read'
          ? ({ k: 'read', t: arr.elem, arr: arr.name, idx: this.rng.chance(0.7) ? lit('i32', '0') : arith('-', size(arr.name), lit('i32', '1')), bang: this.rng.chance(0.3) } as Expr)
          : this.expr(this.elemType(), { locals: [], reads: true });
    this.push({ k: 'scalar', name, e });
    this.scalars.push({ name, elem: e.t as Num });
  }

  /** Runs `body` into a nested statement list; names it binds do not outlive it. */
  private nested(body: () => void): Stmt[] {
    const saved = { out: this.out, arrays: this.arrays, scalars: this.scalars };
    this.out = [];
    this.arrays = [...saved.arrays];
    this.scalars = [...saved.scalars];
    this.depth++;
    body();
    this.depth--;
    const result = this.out;
    this.out = saved.out;
    this.arrays = saved.arrays;
    this.scalars = saved.scalars;
    return result;
  }

  /** A branch or loop body: a few statements, then a re-binding of each carried array. */
  private body(carried: readonly AVar[], extra?: SVar): Stmt[] {
    return this.nested(() => {
      if (extra !== undefined) this.scalars.push(extra);
      // A carried array's length may change from one iteration to the next: inside the body it
      // is equal to nothing else.
      for (const v of carried) this.define({ ...this.arrays.find((a) => a.name === v.name)!, len: this.newLen() });
      const n = this.rng.int(0, 2);
      for (let k = 0; k < n; k++) this.statement();
      for (const v of carried) this.arrayStatement(v);
    });
  }

  private carried(): AVar[] {
    const candidates = this.rank1();
    const first = this.pickArray(candidates);
    if (this.rng.chance(0.7)) return [first];
    const second = this.pickArray(candidates);
    return second.name === first.name ? [first] : [first, second];
  }

  private afterBlock(carried: readonly AVar[]): void {
    for (const v of carried) {
      const now = this.arrays.find((a) => a.name === v.name)!;
      this.define({ ...now, len: this.newLen(), produced: true });
    }
  }

  private statement(): void {
    const control = this.depth < 2 ? 1 : 0;
    const kind = this.rng.weighted([
      [10, 'array'],
      [3, 'scalar'],
      [2 * control, 'if'],
      [2.5 * control, 'while'],
      [1.5 * control, 'for'],
    ] as const);
    switch (kind) {
      case 'array':
        this.arrayStatement();
        return;
      case 'scalar':
        this.scalarStatement();
        return;
      case 'if': {
        const carried = this.carried();
        const c = this.bool({ locals: [], reads: true }, 2);
        const then = this.body(carried);
        const otherwise = this.body(carried);
        this.push({ k: 'if', c, then, else: otherwise });
        this.afterBlock(carried);
        return;
      }
      case 'while': {
        const carried = this.carried();
        const counter = this.name('k');
        const bound = this.rng.weighted<() => Expr>([
          [3, () => lit('i32', String(this.rng.int(0, 3)))],
          [1, () => ref('i32', 'j')],
          [1, () => size('is')],
        ])();
        const body = this.body(carried, { name: counter, elem: 'i32' });
        this.push({ k: 'while', counter, bound, body });
        this.afterBlock(carried);
        return;
      }
      case 'for': {
        const carried = this.carried();
        const iv = this.name('q');
        const body = this.body(carried, { name: iv, elem: 'i32' });
        this.push({ k: 'for', iv, n: this.rng.int(1, 3), body });
        this.afterBlock(carried);
        return;
      }
    }
  }
}

/** A random program with 1 to `maxStatements` top-level statements. */
export function generateProgram(rng: Rng, maxStatements = 6): Prog {
  return new ProgramGenerator(rng).program(rng.int(1, maxStatements));
}
