// The floating-point reassociation policy (docs/LANGUAGE.md, "Floating-point reassociation";
// src/codegen/loops/reassociate.ts):
// - the pass itself: which loops it splits (float `+`/`*` fold accumulators only) and which it
//   leaves exactly as they were (integers, min/max, scans, backward loops, outer loops);
// - exact mode (the default, and `fastMath: false` said explicitly): fused folds of every kind are
//   bit for bit the interpreter's (the bytes of the result arrays), on every back end
//   configuration (test/runtime/backends.ts), for row lengths 0–9 around the unroll factor and
//   longer, NaN, ±∞, -0, nested folds, folds in `while` and `if` bodies;
// - fast mode: within the stated bound, 2·γₙ·(|z| + Σ|xᵢ|) for a sum of n terms (γₙ = n·u/(1 − n·u),
//   u = 2⁻⁵³ for f64, 2⁻²⁴ for f32) and 2·γₙ/(1 − γₙ)·|exact| for a product, computed here from
//   each test's data; non-finite results, min/max and integers equal the interpreter's exactly;
// - random programs in both modes; the CLI's `--fast-math` end to end.

import { describe, expect, test } from 'vitest';
import { Compiler } from '../../src/driver/index.js';
import { interpret } from '../../src/interp/index.js';
import { plan } from '../../src/plan/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import { optimiseLoops } from '../../src/codegen/loops/index.js';
import { reassociate } from '../../src/codegen/loops/reassociate.js';
import { assign, bin, call, constDecl, id, index, letDecl, member, num, type JsExpr, type JsStmt } from '../../src/codegen/jsast.js';
import { printProgramText } from '../../src/codegen/printer.js';
import { main } from '../../src/cli/main.js';
import { compile } from '../../src/index.js';
import { InvalidOptionError } from '../../src/runtime/index.js';
import { array, scalar } from '../ir/builders.js';
import { backends, runOn } from '../runtime/backends.js';
import { expectCloseValues, expectSameValues } from '../runtime/equal.js';
import { randomProgram } from '../util/index.js';
import { uniform } from '../util/rng.js';

// ---- the pass on hand-built loops ---------------------------------------------------------------

let counter = 0;
const context = (fastMath: boolean) => ({ fastMath, counters: false, fresh: (p: string) => `${p}_${counter++}` });

/** let acc = seed; for (j = 0; j < n; j++) { const x = xs[j]; const r = update(acc, x); acc = r } out[0] = acc */
function foldLoop(update: (acc: JsExpr, x: JsExpr) => JsExpr, options: { down?: boolean; declare?: boolean; extra?: JsStmt[] } = {}): JsStmt[] {
  return [
    ...(options.declare === false ? [] : [letDecl('acc', num(0))]),
    {
      kind: 'for',
      index: 'j',
      from: num(0),
      to: id('n'),
      down: options.down === true,
      body: [constDecl('x', index(id('xs'), id('j'))), constDecl('r', update(id('acc'), id('x'))), assign(id('acc'), id('r')), ...(options.extra ?? [])],
    },
    assign(index(id('out'), num(0)), id('acc')),
  ];
}

const fround = (e: JsExpr): JsExpr => call(member(id('Math'), 'fround'), [e]);
const mathCall = (fn: string, args: JsExpr[]): JsExpr => call(member(id('Math'), fn), args);

describe('the reassociate pass', () => {
  test('is last in the pipeline and a no-op without fastMath', () => {
    const stmts = foldLoop((a, x) => bin('+', a, x));
    expect(reassociate.run(stmts, context(false))).toEqual(stmts);
    expect(optimiseLoops(stmts, context(false))).toEqual(stmts);
  });

  test.each([
    ['an f64 sum', (a: JsExpr, x: JsExpr) => bin('+', a, x), /acc = acc \+ \(pa_\d+ \+ pa_\d+ \+ \(pa_\d+ \+ pa_\d+\)\);/],
    ['an f64 sum written x + acc', (a: JsExpr, x: JsExpr) => bin('+', x, a), /acc = acc \+ \(pa_\d+ \+ pa_\d+ \+ \(pa_\d+ \+ pa_\d+\)\);/],
    ['an f64 product', (a: JsExpr, x: JsExpr) => bin('*', a, x), /acc = acc \* \(pa_\d+ \* pa_\d+ \* \(pa_\d+ \* pa_\d+\)\);/],
    ['an f32 sum', (a: JsExpr, x: JsExpr) => fround(bin('+', a, x)), /acc = Math\.fround\(acc \+ Math\.fround\(Math\.fround\(pa_\d+ \+ pa_\d+\) \+ Math\.fround\(pa_\d+ \+ pa_\d+\)\)\);/],
  ])('splits %s four ways', (_, update, combined) => {
    const text = printProgramText(reassociate.run(foldLoop(update), context(true)));
    expect(text).toMatch(combined);
    // Four partials from the identity, four copies of the body in the unrolled loop, one in the rest.
    expect(text.match(/let pa_\d+ = (\(-0\)|1);/g)).toHaveLength(4);
    expect(text.match(/const x = xs\[j\];/g)).toHaveLength(5);
    expect(text).toMatch(/const q_\d+ = n > 0 \? n >> 2 : 0;/);
    expect(text).toMatch(/for \(let j = q_\d+ \* 4; j < n; j\+\+\)/);
  });

  test.each([
    ['an i32 sum (wrapped | 0)', foldLoop((a, x) => bin('|', bin('+', a, x), num(0)))],
    ['a u32 sum (wrapped >>> 0)', foldLoop((a, x) => bin('>>>', bin('+', a, x), num(0)))],
    ['an i32 product (Math.imul)', foldLoop((a, x) => mathCall('imul', [a, x]))],
    ['a min', foldLoop((a, x) => mathCall('min', [a, x]))],
    ['a max', foldLoop((a, x) => mathCall('max', [a, x]))],
    ['a subtraction', foldLoop((a, x) => bin('-', a, x))],
    ['a scan (the accumulator is stored at every element)', foldLoop((a, x) => bin('+', a, x), { extra: [assign(index(id('ys'), id('j')), id('acc'))] })],
    ['an update that reads the accumulator twice', foldLoop((a, x) => bin('+', a, bin('*', a, x)))],
    ['a backward loop', foldLoop((a, x) => bin('+', a, x), { down: true })],
    ['an accumulator not declared with let around the loop', foldLoop((a, x) => bin('+', a, x), { declare: false })],
  ])('leaves %s alone', (_, stmts) => {
    expect(reassociate.run(stmts, context(true))).toEqual(stmts);
  });

  test('at most four accumulators per loop: five already overlap, and 20 partials would not fit in registers', () => {
    const loopWith = (count: number): JsStmt[] => {
      const names = Array.from({ length: count }, (_, k) => `acc${k}`);
      const body: JsStmt[] = names.flatMap((a, k) => [constDecl(`r${k}`, bin('+', id(a), index(id('xs'), id('j')))), assign(id(a), id(`r${k}`))]);
      return [...names.map((a) => letDecl(a, num(0))), { kind: 'for', index: 'j', from: num(0), to: id('n'), down: false, body }];
    };
    expect(printProgramText(reassociate.run(loopWith(4), context(true))).match(/let pa_\d+/g)).toHaveLength(16);
    const five = loopWith(5);
    expect(reassociate.run(five, context(true))).toEqual(five);
  });

  test('only innermost loops: an outer loop with a fold loop inside keeps its shape', () => {
    const inner = foldLoop((a, x) => bin('+', a, x));
    const outer: JsStmt[] = [letDecl('total', num(0)), { kind: 'for', index: 'i', from: num(0), to: id('m'), down: false, body: [...inner, constDecl('t', bin('+', id('total'), id('acc'))), assign(id('total'), id('t'))] }];
    const [decl, loop] = reassociate.run(outer, context(true));
    expect(decl).toEqual(outer[0]);
    expect(loop!.kind).toBe('for');
    const text = printProgramText([loop!]);
    expect(text).toMatch(/^for \(let i = 0; i < m; i\+\+\)/);
    expect(text).toMatch(/total = t;/);
    expect(text).toMatch(/acc = acc \+ \(pa_/);
  });
});

// ---- exact and fast folds against the interpreter ---------------------------------------------

const u64 = 2 ** -53;
const u32 = 2 ** -24;
const gamma = (n: number, u: number): number => (n * u) / (1 - n * u);

/** How a fast result may differ from the exact one. */
type Rule =
  | { readonly kind: 'exact' }
  /** A sum of `terms` (seed included) in arithmetic with unit roundoff u. */
  | { readonly kind: 'sum'; readonly terms: readonly number[]; readonly u: number }
  /** A product of n factors. */
  | { readonly kind: 'product'; readonly n: number; readonly u: number };

/** Whether `fast` is within the rule's bound of `exact` (non-finite results must be equal). */
function withinBound(fast: number, exact: number, rule: Rule): boolean {
  if (rule.kind === 'exact' || !Number.isFinite(exact)) return Object.is(fast, exact);
  const n = rule.kind === 'sum' ? rule.terms.length - 1 : rule.n;
  // The bound is itself computed in floating point: 1e-6 relative slack covers its own rounding.
  const slack = 1 + 1e-6;
  if (rule.kind === 'sum') {
    const magnitude = rule.terms.reduce((s, x) => s + Math.abs(x), 0);
    return Math.abs(fast - exact) <= 2 * gamma(n, rule.u) * magnitude * slack;
  }
  return Math.abs(fast - exact) <= ((2 * gamma(n, rule.u)) / (1 - gamma(n, rule.u))) * Math.abs(exact) * slack;
}

/** Every element of each result component, with its bound. */
function expectWithinBounds(fast: readonly InterfaceValue[], exact: readonly InterfaceValue[], rules: readonly (readonly Rule[])[], label: string): void {
  const flat = (vs: readonly InterfaceValue[]): RuntimeValue[] => vs.flatMap((v) => (Array.isArray(v) ? (v as RuntimeValue[]) : [v as RuntimeValue]));
  const f = flat(fast);
  const e = flat(exact);
  expect(f.length, label).toBe(e.length);
  f.forEach((fv, k) => {
    const ev = e[k]!;
    const fs = fv.kind === 'scalar' ? [fv.value] : Array.from(fv.data);
    const es = ev.kind === 'scalar' ? [ev.value] : Array.from(ev.data);
    expect(fs.length, label).toBe(es.length);
    fs.forEach((x, i) => {
      const rule = rules[k]![i] ?? rules[k]![0]!;
      expect(withinBound(x, es[i]!, rule), `${label}: component ${k} element ${i}: fast ${x}, exact ${es[i]}, rule ${JSON.stringify(rule).slice(0, 200)}`).toBe(true);
    });
  });
}

/** The bytes of every array result, and scalars by Object.is: bit for bit. */
function expectSameBytes(actual: readonly InterfaceValue[], expected: readonly InterfaceValue[], label: string): void {
  expectSameValues(actual, expected, label);
  const bytes = (vs: readonly InterfaceValue[]): number[][] =>
    vs.flatMap((v) => (Array.isArray(v) ? (v as RuntimeValue[]) : [v as RuntimeValue])).map((c) =>
      c.kind === 'array' ? Array.from(new Uint8Array(c.data.buffer, c.data.byteOffset, c.data.byteLength)) : Array.from(new Uint8Array(new Float64Array([c.value]).buffer)),
    );
  expect(bytes(actual), label).toEqual(bytes(expected));
}

const solver = createSolverLoader();

/** A scalar result's value (a rank-0 array's element). */
function firstOf(v: InterfaceValue): number {
  const c = v as RuntimeValue;
  return c.kind === 'scalar' ? c.value : c.data[0]!;
}

/** Runs `inputs` through the interpreter, exact fused code and fast fused code under every configuration. */
async function compare(source: string, inputs: Readonly<Record<string, InterfaceValue>>, rules: readonly (readonly Rule[])[], label: string): Promise<void> {
  for (const config of backends) {
    const exact = new Compiler(source, { fileName: 'fold.fuse', solver, ...config.api, fastMath: false });
    const fast = new Compiler(source, { fileName: 'fold.fuse', solver, ...config.api, fastMath: true });
    try {
      const reference = (await exact.execute(inputs, { interpret: true })).results;
      const exactRun = await exact.execute(inputs);
      expect(exactRun.fallback, label).toBeUndefined();
      expectSameBytes(exactRun.results, reference, `${config.name} exact ${label}`);
      const fastRun = await fast.execute(inputs);
      expect(fastRun.fallback, label).toBeUndefined();
      expectWithinBounds(fastRun.results, reference, rules, `${config.name} fast ${label}`);
    } finally {
      exact.dispose();
      fast.dispose();
    }
  }
}

const lengths = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 17, 1000];

/** n values spread over magnitudes 1e-3..1e3, both signs. */
function spread(n: number, seed: number): number[] {
  const next = uniform(seed);
  return Array.from({ length: n }, () => (next() - 0.5) * 10 ** Math.floor(next() * 7 - 3));
}

/** n values near 1 (products neither overflow nor underflow). */
function nearOne(n: number, seed: number): number[] {
  const next = uniform(seed);
  return Array.from({ length: n }, () => 1 + (next() - 0.5) * 0.01);
}

const f64Folds = [
  'def main(xs: f64[n], ps: f64[n], z: f64):',
  '  return fold(+, xs), fold(+, z, xs), fold(+, zipWith(*, xs, xs)), fold(lam a, x: a + x * 2.0, 0.5, xs), fold(*, ps), fold(min, xs), fold(max, xs)',
  '',
].join('\n');

function f64Rules(xs: readonly number[], ps: readonly number[], z: number): Rule[][] {
  return [
    [{ kind: 'sum', terms: [0, ...xs], u: u64 }],
    [{ kind: 'sum', terms: [z, ...xs], u: u64 }],
    [{ kind: 'sum', terms: [0, ...xs.map((x) => x * x)], u: u64 }],
    [{ kind: 'sum', terms: [0.5, ...xs.map((x) => x * 2)], u: u64 }],
    [{ kind: 'product', n: ps.length, u: u64 }],
    [{ kind: 'exact' }],
    [{ kind: 'exact' }],
  ];
}

const f64Inputs = (xs: readonly number[], ps: readonly number[], z: number) => ({
  xs: array('f64', [xs.length], xs),
  ps: array('f64', [ps.length], ps),
  z: scalar('f64', z),
});

describe('f64 folds: exact bit for bit, fast within the bound', () => {
  test.each(lengths)('length %i', async (n) => {
    const xs = spread(n, 10 + n);
    const ps = nearOne(n, 20 + n);
    await compare(f64Folds, f64Inputs(xs, ps, 0.25), f64Rules(xs, ps, 0.25), `n=${n}`);
  });

  test.each([
    ['NaN', [1, 2, NaN, 4, 5, 6]],
    ['+inf', [1, Infinity, 3, 4, 5, 6, 7]],
    ['+inf and -inf', [1, Infinity, 3, -Infinity, 5, 6, 7, 8, 9]],
    ['-inf alone', [-Infinity, 2, 3, 4, 5]],
    ['all -0', [-0, -0, -0, -0, -0, -0]],
    ['-0 and 0', [-0, 0, -0, 0, -0]],
    ['cancelling to zero', [1e300, 1, -1e300, -1, 5, -5, 0.5, -0.5]],
  ])('special values: %s', async (_, xs) => {
    const ps = xs.map((x) => (Number.isNaN(x) || !Number.isFinite(x) ? x : 1));
    // Zeros: the sign of a zero sum is kept too (partials start at -0, the exact identity).
    const zeros = xs.every((x) => x === 0);
    const rules = zeros ? f64Rules(xs, ps, -0).map(() => [{ kind: 'exact' } as Rule]) : f64Rules(xs, ps, -0);
    await compare(f64Folds, f64Inputs(xs, ps, -0), rules, String(xs));
  });

  test('fast mode regroups: 1 + seven tiny terms is not 1 (exact) but closer to the sum', async () => {
    const xs = [1, ...Array.from({ length: 7 }, () => 1e-16)];
    const source = 'def main(xs: f64[n]):\n  return fold(+, xs)\n';
    const inputs = { xs: array('f64', [8], xs) };
    const exact = new Compiler(source, { fileName: 'tiny.fuse', solver, threads: 1, fastMath: false });
    const fast = new Compiler(source, { fileName: 'tiny.fuse', solver, threads: 1, fastMath: true });
    const e = firstOf((await exact.execute(inputs)).results[0]!);
    const f = firstOf((await fast.execute(inputs)).results[0]!);
    expect(e).toBe(1);
    expect(f).toBeGreaterThan(1);
    expect(withinBound(f, e, { kind: 'sum', terms: [0, ...xs], u: u64 })).toBe(true);
    exact.dispose();
    fast.dispose();
  });
});

describe('f32 and integer folds', () => {
  const source = [
    'def main(fs: f32[n], is: i32[n], us: u32[n]):',
    '  return fold(+, fs), fold(*, map(lam x: f32(1.0) + x / f32(1000.0), fs)), fold(+, is), fold(*, is), fold(+, us), fold(min, fs)',
    '',
  ].join('\n');
  test.each(lengths)('length %i', async (n) => {
    const fs = spread(n, 30 + n).map(Math.fround);
    const is = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? 2_000_000_000 : -1_999_999_999 + i * 7919));
    const us = Array.from({ length: n }, (_, i) => 4_000_000_000 - i * 12345);
    const rules: Rule[][] = [
      [{ kind: 'sum', terms: [0, ...fs], u: u32 }],
      [{ kind: 'product', n, u: u32 }],
      [{ kind: 'exact' }],
      [{ kind: 'exact' }],
      [{ kind: 'exact' }],
      [{ kind: 'exact' }],
    ];
    await compare(source, { fs: array('f32', [n], fs), is: array('i32', [n], is), us: array('u32', [n], us) }, rules, `n=${n}`);
  });
});

describe('folds over rows, nested, and in while and if bodies', () => {
  test.each([
    [0, 3],
    [3, 0],
    [1, 1],
    [5, 9],
    [4, 8],
    [7, 13],
  ])('rows of a [%i, %i] matrix and the fold of their sums', async (r, c) => {
    const source = 'def main(m: f64[r, c]):\n  rows = fold(+, m)\n  return rows, fold(+, rows), fold(*, map(lam x: 1.0 + x / 100.0, m))\n';
    const m = spread(r * c, 40 + r * c);
    const rowTerms = Array.from({ length: r }, (_, i) => [0, ...m.slice(i * c, (i + 1) * c)]);
    // The total is one tree of additions over every element and the r + 1 zero seeds, in either mode.
    const total = [...Array.from({ length: r + 1 }, () => 0), ...m];
    const rules: Rule[][] = [
      rowTerms.map((terms) => ({ kind: 'sum', terms, u: u64 }) as Rule),
      [{ kind: 'sum', terms: total, u: u64 }],
      Array.from({ length: r }, () => ({ kind: 'product', n: c + 1, u: u64 }) as Rule),
    ];
    await compare(source, { m: array('f64', [r, c], m) }, rules, `[${r}, ${c}]`);
  });

  test.each([0, 1, 5, 9])('folds in a while loop and an if, length %i', async (n) => {
    const source = [
      'def main(xs: f64[n], k: i32):',
      '  s = 0.0',
      '  j = 0',
      '  while j < k:',
      '    s = s + fold(+, map(lam x: x * f64(j + 1), xs))',
      '    j = j + 1',
      '  if s > 0.0:',
      '    t = fold(+, xs)',
      '  else:',
      '    t = fold(+, map(lam x: 2.0 * x, xs))',
      '  return s, t',
      '',
    ].join('\n');
    const xs = spread(n, 50 + n);
    const k = 3;
    // s sums k folds of scaled terms: every term of every fold is one of its terms.
    const sTerms = [0, ...Array.from({ length: k }, () => 0), ...Array.from({ length: k }, (_, j) => xs.map((x) => x * (j + 1))).flat()];
    const inputs = { xs: array('f64', [n], xs), k: scalar('i32', k) };
    const reference = (await new Compiler(source, { solver }).execute(inputs, { interpret: true })).results;
    const sExact = firstOf(reference[0]!);
    // The branch is chosen by s; these data keep s away from 0 so both modes take the same one.
    expect(Math.abs(sExact) > 1e-6 || n === 0).toBe(true);
    const tTerms = [0, ...(sExact > 0 ? xs : xs.map((x) => 2 * x))];
    await compare(source, inputs, [[{ kind: 'sum', terms: sTerms, u: u64 }], [{ kind: 'sum', terms: tTerms, u: u64 }]], `n=${n}`);
  });
});

describe('multicore chunks of 3 iterations (fold partials, scan phase 1) in fast mode', () => {
  // Chunked folds and scans group by chunk already; fastMath splits each chunk's loop too. Still one
  // grouping of the same terms: each result (each scan element with its own prefix) within the bound.
  const source = 'def main(xs: f64[n]):\n  return fold(+, xs), scanl(+, xs), scanl(+, 0.5, xs)\n';
  test.each([0, 1, 4, 7, 13, 40])('length %i on 2 threads', async (n) => {
    const xs = spread(n, 60 + n);
    const prefix = (seed: number[], k: number): number[] => [...seed, ...xs.slice(0, k)];
    const rules: Rule[][] = [
      [{ kind: 'sum', terms: [0, ...xs], u: u64 }],
      // Inclusive: element k sums x0..xk (its first element is x0 itself, no seed).
      xs.map((_, k) => ({ kind: 'sum', terms: prefix([], k + 1), u: u64 }) as Rule),
      // Exclusive: element k is 0.5 + x0 + … + x(k−1).
      xs.map((_, k) => ({ kind: 'sum', terms: prefix([0.5], k), u: u64 }) as Rule),
    ];
    const options = { backend: 'multicore', threads: 2, parallelThreshold: 0, chunkLength: 3 } as const;
    const fast = new Compiler(source, { fileName: 'chunks.fuse', solver, ...options, fastMath: true });
    try {
      const reference = (await fast.execute({ xs: array('f64', [n], xs) }, { interpret: true })).results;
      const run = await fast.execute({ xs: array('f64', [n], xs) });
      expect(run.fallback).toBeUndefined();
      expectWithinBounds(run.results, reference, rules, `n=${n}`);
    } finally {
      fast.dispose();
    }
  });
});

// ---- random programs ---------------------------------------------------------------------------

describe('random programs', () => {
  const seeds = Array.from({ length: 25 }, (_, k) => k + 1);
  const configs = backends.filter((b) => b.name === 'js' || b.name === 'multicore@2');
  test.each(seeds)('seed %i: exact mode bit for bit, fast mode close, on js and multicore@2', async (seed) => {
    const c = randomProgram(seed, { combinators: { min: 2, max: 9 } });
    const expected = interpret(c.program, c.inputs);
    const p = await plan(c.program, { strategy: 'ilp', cost: 'reads+writes', solver });
    for (const config of configs) {
      const exact = await runOn(config, c.program, p, c.inputs, { fastMath: false });
      expectSameBytes(exact.results, expected, `${config.name} exact\n${c.description}`);
      const fast = await runOn(config, c.program, p, c.inputs, { fastMath: true });
      // Random programs feed fold results into further arithmetic: no per-element bound applies,
      // only closeness (integers, bools and the shapes stay exact).
      expectCloseValues(fast.results, expected, `${config.name} fast\n${c.description}`, { rel: 1e-9, abs: 1e-9 });
    }
  });
});

// ---- the option ----------------------------------------------------------------------------------

describe('the fastMath option', () => {
  const source = 'def main(xs: f64[n]):\n  return fold(+, xs)\n';
  const xs = Float64Array.from([1, 1e-16, 1e-16, 1e-16, 1e-16, 1e-16, 1e-16, 1e-16]);
  /** The fold's result (a rank-0 array, returned as a number). */
  const sumOf = async (p: ReturnType<typeof compile>): Promise<number> => (await p.run({ xs })).result as number;

  test('public compile: default and false are exact, true regroups; programs of both settings coexist', async () => {
    const byDefault = compile(source, { threads: 1 });
    const exact = compile(source, { threads: 1, fastMath: false });
    const fast = compile(source, { threads: 1, fastMath: true });
    try {
      expect(await sumOf(byDefault)).toBe(1);
      expect(await sumOf(exact)).toBe(1);
      expect(await sumOf(fast)).toBeGreaterThan(1);
      // Interleaved again: nothing cached under one setting answers for the other.
      expect(await sumOf(exact)).toBe(1);
    } finally {
      byDefault.dispose();
      exact.dispose();
      fast.dispose();
    }
  });

  test('a value that is not a boolean is a TypeError naming it', () => {
    expect(() => new Compiler(source, { fastMath: 'yes' as unknown as boolean })).toThrow(InvalidOptionError);
    expect(() => compile(source, { fastMath: 1 as unknown as boolean })).toThrow(/fastMath: 1: expected true or false/);
  });
});

// ---- the CLI ------------------------------------------------------------------------------------

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => (out += t.endsWith('\n') ? t : t + '\n'), err: (t) => (err += t.endsWith('\n') ? t : t + '\n') });
  return { code, out, err };
}

describe('--fast-math', () => {
  const file = new URL('../../bench/programs/flashAttention.fuse', import.meta.url).pathname;
  const shapes = ['--shape', 'Q=f64[8,4]', '--shape', 'K=f64[8,4]', '--shape', 'V=f64[8,4]'];

  test('emit --fast-math splits the dot products into partials; emit alone does not', async () => {
    const plain = await cli('emit', file, ...shapes);
    const fast = await cli('emit', file, ...shapes, '--fast-math');
    expect(plain.code).toBe(0);
    expect(fast.code).toBe(0);
    expect(plain.out).not.toMatch(/\bpa\d+\b/);
    expect(fast.out).toMatch(/let pa\d+ = \(-0\);/);
    expect(fast.out).toMatch(/acc\d+ = acc\d+ \+ \(pa\d+ \+ pa\d+ \+ \(pa\d+ \+ pa\d+\)\);/);
  });

  test('run --fast-math --stats says so, and its results are within the bound of the exact ones', async () => {
    const args = ['run', file, '--threads', '1', '--random', 'Q=f64[32,8]', '--random', 'K=f64[32,8]', '--random', 'V=f64[32,8]', '--arg', 'br=8', '--arg', 'bc=8'];
    const exact = await cli(...args, '--stats');
    const fast = await cli(...args, '--fast-math', '--stats');
    expect(exact.err).toBe('');
    expect(fast.err).toBe('');
    expect(exact.out).toMatch(/^ {2}fast math: off \(float results exact\)$/m);
    expect(fast.out).toMatch(/^ {2}fast math: on \(float \+ and \* folds may be regrouped\)$/m);
    const values = (out: string): number[] => (out.split('\n').find((l) => l.startsWith('result = ')) ?? '').match(/-?\d+(\.\d+)?(e[+-]?\d+)?/g)!.map(Number);
    const [e, f] = [values(exact.out), values(fast.out)];
    expect(e.length).toBeGreaterThan(0);
    expect(f).toHaveLength(e.length);
    // Printed values are rounded for display: close, not bit for bit.
    e.forEach((x, i) => expect(Math.abs(f[i]! - x)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(x))));
  });

  test('--help of run and emit mentions it', async () => {
    for (const command of ['run', 'emit']) {
      const { out } = await cli(command, '--help');
      expect(out).toMatch(/--fast-math/);
    }
  });
});
