// Hand-written programs for the browser differential suite (test/web/webgpuDifferential.test.ts),
// each with inputs and the values it must compute, computed here by plain JavaScript loops from
// the language's definition (docs/LANGUAGE.md) — not by arrayfuse — so that the interpreter is
// checked too. f32 arithmetic is done in doubles and rounded after every operation
// (Math.fround), which is IEEE single precision's result for + - * / (a double holds the exact
// product of two floats, and rounding twice through a double is innocuous for these); i32 and u32
// wrap modulo 2^32.
//
// One program per combinator family and element type, returning several results, run at several
// sizes: 0, 1, 7, 1000 and 70000 (the last crosses several 256- and 16384-element chunks, the
// WebGPU back end's workgroup and fold/scan chunk sizes).

import { uniform } from '../util/rng.js';
import type { Case } from './gpuPage.js';
import { typedArray, type ElemName, type PlainArray, type PlainValue } from './page/wire.js';
import { elementwise, exact, reduction, type FloatScalars, type Tolerance } from './tolerance.js';

/** A case with what it must give. */
export interface Check {
  readonly case: Case;
  /** How f32 results compare (integers and booleans always compare exactly). */
  readonly tolerance: Tolerance;
  /** Which of the case's bare-number results (scalars, whole-array folds) are floats, compared under `tolerance` (default none). */
  readonly floatScalars?: FloatScalars;
  /** The results, computed here; the interpreter and the fused runs must both give them. */
  readonly expected?: Readonly<Record<string, PlainValue>>;
  /** Instead: the diagnostic code both the interpreter and the fused runs must fail with. */
  readonly expectedCode?: string;
  /** The fused code may stop at a fault no result depends on and hand over to the interpreter. */
  readonly fallbackAllowed?: boolean;
  /** The program uses f64, which the WebGPU back end rejects with a located diagnostic (E680). */
  readonly usesF64?: boolean;
  /** Where that diagnostic must point, `file:line:col` (the first f64 the source shows). */
  readonly f64At?: string;
}

/** The sizes of the examples' one-dimensional inputs. */
export const exampleSizes: readonly number[] = [0, 1, 7, 1000, 70000];

/**
 * The sizes of the hand-written programs' inputs: empty, one element, less than one 256-element
 * workgroup … more than one but not a multiple (1000), and several 16384-element chunks. (7 is
 * left to the examples: each size is a compilation, and SwiftShader compiles shaders slowly.)
 */
export const sizes: readonly number[] = [0, 1, 1000, 70000];

export type Num = 'f32' | 'i32' | 'u32';
export const numTypes: readonly Num[] = ['f32', 'i32', 'u32'];

/** A value of the type, from an exact number (a double result of one operation). */
export const wrap: Readonly<Record<Num, (x: number) => number>> = {
  f32: Math.fround,
  i32: (x) => x | 0,
  u32: (x) => x >>> 0,
};

const mul: Readonly<Record<Num, (a: number, b: number) => number>> = {
  f32: (a, b) => Math.fround(a * b),
  i32: (a, b) => Math.imul(a, b),
  u32: (a, b) => Math.imul(a, b) >>> 0,
};

export function array(elem: ElemName, values: ArrayLike<number>, shape: readonly number[] = [values.length]): PlainArray {
  return { data: typedArray(elem, values), shape };
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

export function maxAbs(values: ArrayLike<number>): number {
  let m = 0;
  for (let k = 0; k < values.length; k++) m = Math.max(m, Math.abs(values[k]!));
  return m;
}

/** Seeded random data: the same seed gives the same arrays. */
export class Data {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = uniform(seed);
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  /** f32 values in [-10, 10), rounded (not exact in any grid: rounding is exercised). */
  f32(n: number): number[] {
    return Array.from({ length: n }, () => Math.fround(this.next() * 20 - 10));
  }
  /** f32 multiples of 1/8 in [-10, 10]: sums and products by small constants stay exact, so comparisons cannot flip by rounding. */
  f32Grid(n: number): number[] {
    return Array.from({ length: n }, () => this.int(-80, 80) / 8);
  }
  /** Mostly small, a quarter anywhere in the type's range (arithmetic then wraps). */
  i32(n: number): number[] {
    return Array.from({ length: n }, () => (this.next() < 0.75 ? this.int(-1000, 1000) : this.int(-2147483648, 2147483647)));
  }
  u32(n: number): number[] {
    return Array.from({ length: n }, () => (this.next() < 0.75 ? this.int(0, 2000) : this.int(0, 4294967295)));
  }
  of(t: Num, n: number): number[] {
    return t === 'f32' ? this.f32(n) : t === 'i32' ? this.i32(n) : this.u32(n);
  }
  bools(n: number): number[] {
    return Array.from({ length: n }, () => this.int(0, 1));
  }
  indices(n: number, bound: number): number[] {
    return Array.from({ length: n }, () => this.int(0, bound - 1));
  }
}

const tolFor = (t: Num, tol: Tolerance): Tolerance => (t === 'f32' ? tol : exact);

function check(name: string, source: string, inputs: Readonly<Record<string, PlainValue>>, expected: Readonly<Record<string, PlainValue>>, tolerance: Tolerance, floatScalars: FloatScalars = false): Check {
  return { case: { name, source, inputs }, tolerance, floatScalars, expected };
}

/**
 * At most this many results per program: the planner fuses maps over one input into one loop,
 * whose kernel binds every input and result, and WebGPU gives a kernel 10 storage buffers (the
 * back end keeps 2): a program of many results would test the host's fallback, not the device.
 */
export const resultsPerProgram = 5;

/**
 * One result of a program: the name it is bound to (and so returned under, which failures
 * show), its expression over the inputs, and what it must be.
 */
type Item = readonly [name: string, expression: string, expected: PlainValue];

/**
 * Programs `def main(<header>): <name> = <expression> … return <name>, …`, at most
 * `resultsPerProgram` results each, with the results expected.
 */
function resultsChecks(title: string, header: string, inputs: Readonly<Record<string, PlainValue>>, items: readonly Item[], tolerance: Tolerance, floatScalars: FloatScalars = false): Check[] {
  const groups: Item[][] = [];
  for (let k = 0; k < items.length; k += resultsPerProgram) groups.push(items.slice(k, k + resultsPerProgram));
  return groups.map((group, g) => {
    const source = [`def main(${header}):`, ...group.map(([name, e]) => `  ${name} = ${e}`), `  return ${group.map(([name]) => name).join(', ')}`, ''].join('\n');
    const part = groups.length === 1 ? '' : ` (${g + 1} of ${groups.length})`;
    return check(`${title}${part}`, source, inputs, Object.fromEntries(group.map(([name, , v]) => [name, v])), tolerance, floatScalars);
  });
}

// ---------------------------------------------------------------------------------------------
// map, zipWith, zipWith3, generate, reverse
// ---------------------------------------------------------------------------------------------

export function elementwiseCheck(t: Num, n: number, seed: number): Check {
  const data = new Data(seed);
  const xs = data.of(t, n);
  const ys = data.of(t, n);
  const w = wrap[t];
  const m = mul[t];
  const d = [...xs].reverse();
  const source = [
    `def main(xs: ${t}[n], ys: ${t}[n]):`,
    '  a = map(lam x: x * 3 + 1, xs)',
    '  b = zipWith(lam(x, y): x - y * 2, xs, ys)',
    `  c = generate(size(xs), lam i: ${t}(i) * 3 - 5)`,
    '  d = reverse(xs)',
    '  e = zipWith3(lam(x, y, z): min(x, y) + max(y, z), xs, ys, d)',
    '  return a, b, c, d, e',
    '',
  ].join('\n');
  return check(`map/zipWith/generate/reverse ${t} n=${n}`, source, { xs: array(t, xs), ys: array(t, ys) }, {
    a: array(t, xs.map((x) => w(m(x, 3) + 1))),
    b: array(t, xs.map((x, i) => w(x - m(ys[i]!, 2)))),
    c: array(t, range(n).map((i) => w(m(w(i), 3) - 5))),
    d: array(t, d),
    e: array(t, xs.map((x, i) => w(Math.min(x, ys[i]!) + Math.max(ys[i]!, d[i]!)))),
  }, tolFor(t, elementwise));
}

// ---------------------------------------------------------------------------------------------
// gather, backpermute, indexing in element code
// ---------------------------------------------------------------------------------------------

export function gatherCheck(t: Num | 'bool', n: number, seed: number): Check {
  const data = new Data(seed);
  const xs = t === 'bool' ? data.bools(n) : data.of(t, n);
  const is = data.indices(n, n);
  const sum = t === 'bool' ? (a: number, b: number) => (a !== b ? 1 : 0) : (a: number, b: number) => wrap[t](a + b);
  const combine = t === 'bool' ? 'x != y' : 'x + y';
  const source = [
    `def main(xs: ${t}[n], is: i32[k]):`,
    '  a = gather(is, xs)',
    '  b = backpermute(size(xs), lam i: (i * 7 + 3) % size(xs), xs)',
    `  c = generate(size(is), lam j: (lam x, y: ${combine})(xs[is[j]], xs[(is[j] + 1) % size(xs)]))`,
    '  return a, b, c',
    '',
  ].join('\n');
  return check(`gather/backpermute/indexing ${t} n=${n}`, source, { xs: array(t, xs), is: array('i32', is) }, {
    a: array(t, is.map((i) => xs[i]!)),
    b: array(t, range(n).map((i) => xs[(i * 7 + 3) % n]!)),
    c: array(t, is.map((i) => sum(xs[i]!, xs[(i + 1) % n]!))),
  }, t === 'f32' ? elementwise : exact);
}

// ---------------------------------------------------------------------------------------------
// scatter: + on every numeric type (f32: in any order, so within the reduction tolerance), min,
// max, and & | ^ on the integers; permute
// ---------------------------------------------------------------------------------------------

export function scatterCheck(t: Num, n: number, seed: number): Check[] {
  const data = new Data(seed);
  const buckets = 13;
  const vs = data.of(t, n);
  const is = data.indices(n, buckets);
  const d = data.of(t, buckets);
  const w = wrap[t];
  const scattered = (f: (a: number, b: number) => number, dest: readonly number[], at: readonly number[]): number[] => {
    const out = [...dest];
    vs.forEach((v, k) => (out[at[k]!] = f(out[at[k]!]!, v)));
    return out;
  };
  const scatter = (name: string, op: string, f: (a: number, b: number) => number): Item => [name, `scatter(${op}, d, zip(is, vs))`, array(t, scattered(f, d, is))];
  const permuted: Item = ['permuted', `permute(+, generate(16, lam i: ${t}(0)), lam i: (i * 5) % 16, vs)`, array(t, scattered((a, b) => w(a + b), new Array<number>(16).fill(0), range(n).map((i) => (i * 5) % 16)))];
  // hist and scatterDrop: bins 2k − 5 for k in [0, 13), so about half are out of range and dropped.
  const shifted = is.map((i) => i * 2 - 5);
  const dropped = (f: (a: number, b: number) => number, dest: readonly number[]): number[] => {
    const out = [...dest];
    vs.forEach((v, k) => {
      const at = shifted[k]!;
      if (at >= 0 && at < out.length) out[at] = f(out[at]!, v);
    });
    return out;
  };
  const histogram: Item = ['histogram', `hist(+, ${t}(0), 13, map(lam i: i * 2 - 5, is), vs)`, array(t, dropped((a, b) => w(a + b), new Array<number>(13).fill(0)))];
  const droppedMax: Item = ['droppedMax', 'scatterDrop(max, d, zip(map(lam i: i * 2 - 5, is), vs))', array(t, dropped(Math.max, d))];
  const inputs = { vs: array(t, vs), is: array('i32', is), d: array(t, d) };
  const header = `vs: ${t}[n], is: i32[n], d: ${t}[m]`;
  const tolerance = tolFor(t, reduction(n + 1, maxAbs(vs) + maxAbs(d)));
  const arithmetic = resultsChecks(`scatter + min max, permute ${t} n=${n}`, header, inputs, [scatter('added', '+', (a, b) => w(a + b)), scatter('least', 'min', Math.min), scatter('most', 'max', Math.max), permuted, histogram, droppedMax], tolerance);
  if (t === 'f32') return arithmetic;
  const bits = resultsChecks(`scatter & | ^ ${t} n=${n}`, header, inputs, [scatter('anded', '&', (a, b) => w(a & b)), scatter('ored', '|', (a, b) => w(a | b)), scatter('xored', '^', (a, b) => w(a ^ b))], exact);
  return [...arithmetic, ...bits];
}

// ---------------------------------------------------------------------------------------------
// fold: + * min max, seeds, a lambda; & | ^ on integers
// ---------------------------------------------------------------------------------------------

function identity(t: Num, op: 'min' | 'max'): number {
  if (t === 'f32') return op === 'min' ? Infinity : -Infinity;
  if (t === 'i32') return op === 'min' ? 2147483647 : -2147483648;
  return op === 'min' ? 4294967295 : 0;
}

export function foldChecks(t: Num, n: number, seed: number): Check[] {
  const data = new Data(seed);
  const xs = data.of(t, n);
  // Factors: near 1 for f32 (the product of 70000 stays finite), odd integers (a product of
  // even ones is soon 0 mod 2^32, which would hide a wrong product).
  const ps = t === 'f32' ? Array.from({ length: n }, () => Math.fround(1 + (data.int(-1000, 1000) / 1e6))) : data.of(t, n).map((p) => wrap[t](p | 1));
  const w = wrap[t];
  // Explicitly two arguments: reduce would pass Math.min the index and the array too.
  const fold = (f: (a: number, x: number) => number, z: number, values: readonly number[]): number => values.reduce((a, x) => f(a, x), z);
  const add = (a: number, x: number): number => w(a + x);
  const items: Item[] = [
    ['total', 'fold(+, xs)', fold(add, 0, xs)],
    ['product_', 'fold(*, ps)', fold((a, x) => mul[t](a, x), 1, ps)],
    ['least', 'fold(min, xs)', fold(Math.min, identity(t, 'min'), xs)],
    ['most', 'fold(max, xs)', fold(Math.max, identity(t, 'max'), xs)],
    ['seeded', 'fold(+, 10, xs)', fold(add, 10, xs)],
    ['most_seeded', 'fold(max, 0, xs)', fold(Math.max, 0, xs)],
    ['by_lambda', 'fold(lam a, b: a + b, 0, xs)', fold(add, 0, xs)],
    ...(t === 'f32'
      ? []
      : ([
          ['all_bits', 'fold(&, xs)', fold((a, x) => w(a & x), w(-1), xs)],
          ['any_bits', 'fold(|, xs)', fold((a, x) => w(a | x), 0, xs)],
          ['odd_bits', 'fold(^, xs)', fold((a, x) => w(a ^ x), 0, xs)],
        ] as Item[])),
  ];
  const tolerance = tolFor(t, reduction(n, Math.max(maxAbs(xs), maxAbs(ps), 10)));
  return resultsChecks(`fold ${t} n=${n}`, `xs: ${t}[n], ps: ${t}[n]`, { xs: array(t, xs), ps: array(t, ps) }, items, tolerance, t === 'f32');
}

/**
 * Nine folds of one array in one loop: the back end combines every fold's per-chunk partials
 * in one kernel, which binds them all (a limit the `fold` checks stay under).
 */
export function manyFoldsCheck(n: number, seed: number): Check {
  const xs = new Data(seed).i32(n);
  const shifts = range(9);
  const source = `def main(xs: i32[n]):\n  return ${shifts.map((k) => `fold(+, ${k}, map(lam x: x >> ${k}, xs))`).join(', ')}\n`;
  const expected = Object.fromEntries(shifts.map((k) => [`result${k}`, xs.reduce((a, x) => (a + (x >> k)) | 0, k)]));
  return check(`nine folds of one array in one loop i32 n=${n}`, source, { xs: array('i32', xs) }, expected, exact);
}

// ---------------------------------------------------------------------------------------------
// scanl and scanr: inclusive, and exclusive with a seed
// ---------------------------------------------------------------------------------------------

/** Inclusive (no seed) or exclusive (seed z) scan from the left; `f(acc, x)`. */
function scanLeft(values: readonly number[], f: (acc: number, x: number) => number, z?: number): number[] {
  const out: number[] = [];
  if (z === undefined) {
    let acc = 0;
    values.forEach((x, i) => out.push((acc = i === 0 ? x : f(acc, x))));
    return out;
  }
  let acc = z;
  for (const x of values) {
    out.push(acc);
    acc = f(acc, x);
  }
  return out;
}

/** The same from the right: the accumulator is combined as `f(x, acc)` (docs/LANGUAGE.md §4). */
function scanRight(values: readonly number[], f: (x: number, acc: number) => number, z?: number): number[] {
  return scanLeft([...values].reverse(), (acc, x) => f(x, acc), z).reverse();
}

export function scanCheck(t: Num, n: number, seed: number): Check {
  const data = new Data(seed);
  const xs = data.of(t, n);
  const w = wrap[t];
  const add = (a: number, b: number): number => w(a + b);
  // Segmented scans: a segment starts at every third element.
  const flags = range(n).map((i) => i % 3 === 0);
  const segLeft = (f: (a: number, b: number) => number): number[] => {
    const out: number[] = [];
    xs.forEach((x, i) => out.push(flags[i] || i === 0 ? x : f(out[i - 1]!, x)));
    return out;
  };
  const segRight = (f: (a: number, b: number) => number): number[] => {
    const out = new Array<number>(n);
    for (let i = n - 1; i >= 0; i--) out[i] = i === n - 1 || flags[i + 1] ? xs[i]! : f(xs[i]!, out[i + 1]!);
    return out;
  };
  const source = `def main(xs: ${t}[n]):\n  fl = generate(size(xs), lam i: i % 3 == 0)\n  return scanl(+, xs), scanr(+, xs), scanl(+, 5, xs), scanr(+, 5, xs), scanl(max, xs), scanr(min, 0, xs), scanlSeg(+, fl, xs), scanrSeg(max, fl, xs)\n`;
  const scans = [scanLeft(xs, add), scanRight(xs, add), scanLeft(xs, add, 5), scanRight(xs, add, 5), scanLeft(xs, Math.max), scanRight(xs, Math.min, 0), segLeft(add), segRight(Math.max)];
  return check(`scanl/scanr ${t} n=${n}`, source, { xs: array(t, xs) }, Object.fromEntries(scans.map((s, k) => [`result${k}`, array(t, s)])),
    tolFor(t, reduction(n, Math.max(maxAbs(xs), 5))));
}

// ---------------------------------------------------------------------------------------------
// filter after a map (and a map after a filter): the bug class outside testers found
// ---------------------------------------------------------------------------------------------

export function filterCheck(t: Num, n: number, seed: number): Check {
  const data = new Data(seed);
  // f32 on the 1/8 grid: x * 3 - 7 is exact, so no comparison can flip by rounding on the device.
  const xs = t === 'f32' ? data.f32Grid(n) : data.of(t, n);
  const w = wrap[t];
  const ys = xs.map((x) => w(mul[t](x, 3) - 7));
  const keep = t === 'u32' ? (y: number) => y % 4 === 1 : (y: number) => y > 10;
  const keepText = t === 'u32' ? 'y % 4 == 1' : 'y > 10';
  const small = (y: number): boolean => y < 5;
  const a = ys.filter(keep);
  const source = [
    `def main(xs: ${t}[n]):`,
    '  ys = map(lam x: x * 3 - 7, xs)',
    `  a = filter(lam y: ${keepText}, ys)`,
    '  b = map(lam y: y * 2, filter(lam y: y < 5, ys))',
    '  return a, b, size(a)',
    '',
  ].join('\n');
  return check(`filter after map ${t} n=${n}`, source, { xs: array(t, xs) }, {
    a: array(t, a),
    b: array(t, ys.filter(small).map((y) => mul[t](y, 2))),
    result2: a.length,
  }, tolFor(t, elementwise));
}

// ---------------------------------------------------------------------------------------------
// Two-dimensional arrays: a fold per row, a transpose (a gather of generated pairs), a fold per
// column through it, and indexing by two indices
// ---------------------------------------------------------------------------------------------

/** Matrix shapes: empty, one element, square-ish across workgroups, few long rows, many short rows. */
export const shapes2d: readonly (readonly [number, number])[] = [[0, 5], [1, 1], [300, 301], [3, 20000], [20000, 3]];

export function matrixCheck(t: Num, rows: number, cols: number, seed: number): Check {
  const data = new Data(seed);
  const xs = data.of(t, rows * cols);
  const w = wrap[t];
  const at = (i: number, j: number): number => xs[i * cols + j]!;
  const source = [
    `def main(xss: ${t}[r, c]):`,
    '  rows, cols = shape(xss)',
    '  a = fold(+, xss)',
    '  b = transpose(xss)',
    '  d = fold(max, transpose(xss))',
    '  e = generate((rows, cols), lam i, j: xss[i, j] * 2 + xss[rows - 1 - i, cols - 1 - j])',
    '  return a, b, d, e',
    '',
  ].join('\n');
  const rowSums = range(rows).map((i) => range(cols).reduce((s, j) => w(s + at(i, j)), 0));
  const transposed = range(cols).flatMap((j) => range(rows).map((i) => at(i, j)));
  const colMax = range(cols).map((j) => range(rows).reduce((m, i) => Math.max(m, at(i, j)), identity(t, 'max')));
  const e = range(rows).flatMap((i) => range(cols).map((j) => w(mul[t](at(i, j), 2) + at(rows - 1 - i, cols - 1 - j))));
  return check(`2-D fold per row, transpose, fold per column ${t} ${rows}×${cols}`, source, { xss: array(t, xs, [rows, cols]) }, {
    a: array(t, rowSums, [rows]),
    b: array(t, transposed, [cols, rows]),
    d: array(t, colMax, [cols]),
    e: array(t, e, [rows, cols]),
  }, tolFor(t, reduction(Math.max(rows, cols), maxAbs(xs))));
}

// ---------------------------------------------------------------------------------------------
// Bit operations on i32 and u32: & | ^ << >> ~ popcount clz, shift counts taken modulo 32
// (negative i32 counts included)
// ---------------------------------------------------------------------------------------------

const i32Edges = [-2147483648, 2147483647, -1, 0, 1, 31, 32, 33, -32, 0x55555555, -0x55555556, 65536];
const u32Edges = [4294967295, 2147483648, 2147483647, 0, 1, 31, 32, 33, 0xaaaaaaaa, 65536];

function popcount(x: number): number {
  let c = 0;
  for (let v = x >>> 0; v !== 0; v >>>= 1) c += v & 1;
  return c;
}

export function bitsCheck(t: 'i32' | 'u32', n: number, seed: number): Check[] {
  const data = new Data(seed);
  const edges = t === 'i32' ? i32Edges : u32Edges;
  const as = [...edges, ...data.of(t, n)];
  const bs = [...[...edges].reverse(), ...data.of(t, n).map((b) => (data.int(0, 1) === 0 ? b : t === 'i32' ? data.int(-40, 40) : data.int(0, 40)))];
  const w = wrap[t];
  const items: Item[] = [
    ['bits_and', 'zipWith(&, as, bs)', array(t, as.map((a, k) => w(a & bs[k]!)))],
    ['bits_or', 'zipWith(|, as, bs)', array(t, as.map((a, k) => w(a | bs[k]!)))],
    ['bits_xor', 'zipWith(^, as, bs)', array(t, as.map((a, k) => w(a ^ bs[k]!)))],
    ['shl', 'zipWith(lam(a, b): a << b, as, bs)', array(t, as.map((a, k) => w(a << bs[k]!)))],
    ['shr', 'zipWith(lam(a, b): a >> b, as, bs)', array(t, as.map((a, k) => (t === 'u32' ? a >>> bs[k]! : a >> bs[k]!)))],
    ['bits_not', 'map(lam a: ~a, as)', array(t, as.map((a) => w(~a)))],
    ['ones', 'map(lam a: popcount(a), as)', array(t, as.map(popcount))],
    ['leading', 'map(lam a: clz(a), as)', array(t, as.map((a) => Math.clz32(a)))],
    ['sign_bit', 'map(lam a: a >> 31 << 31 | 1, as)', array(t, as.map((a) => w(((t === 'u32' ? a >>> 31 : a >> 31) << 31) | 1)))],
  ];
  return resultsChecks(`bit operations ${t} n=${as.length}`, `as: ${t}[n], bs: ${t}[n]`, { as: array(t, as), bs: array(t, bs) }, items, exact);
}

// ---------------------------------------------------------------------------------------------
// Integer // and % (floor division, Python's): negative operands, i32 min // -1 (wraps to min)
// ---------------------------------------------------------------------------------------------

function floorDiv(a: number, b: number): number {
  return Math.floor(a / b);
}

function floorMod(a: number, b: number): number {
  const r = a % b;
  return r !== 0 && r < 0 !== b < 0 ? r + b : r;
}

export function divisionCheck(t: 'i32' | 'u32', n: number, seed: number): Check {
  const data = new Data(seed);
  const edgesA = t === 'i32' ? [-2147483648, -2147483648, 2147483647, -7, 7, -7, 7, 0, -1] : [4294967295, 4294967295, 2147483648, 7, 0, 1];
  const edgesB = t === 'i32' ? [-1, 1, -1, 2, -2, -2, 2, -5, 3] : [1, 4294967295, 2, 2, 3, 4294967295];
  const as = [...edgesA, ...data.of(t, n)];
  const bs = [...edgesB, ...data.of(t, n).map((b) => (b === 0 ? 3 : b))];
  const w = wrap[t];
  const c = t === 'i32' ? -7 : 4294967295;
  const source = [
    `def main(as: ${t}[n], bs: ${t}[n]):`,
    `  return zipWith(//, as, bs), zipWith(%, as, bs), map(lam a: a // 7, as), map(lam a: a % ${c}, as), map(lam a: a // ${c}, as)`,
    '',
  ].join('\n');
  const results = [
    as.map((a, k) => w(floorDiv(a, bs[k]!))),
    as.map((a, k) => w(floorMod(a, bs[k]!))),
    as.map((a) => w(floorDiv(a, 7))),
    as.map((a) => w(floorMod(a, c))),
    as.map((a) => w(floorDiv(a, c))),
  ];
  return check(`integer // and % ${t} n=${as.length}`, source, { as: array(t, as), bs: array(t, bs) }, Object.fromEntries(results.map((r, k) => [`result${k}`, array(t, r)])), exact);
}

// ---------------------------------------------------------------------------------------------
// Values at the types' limits
// ---------------------------------------------------------------------------------------------

const f32Max = 3.4028234663852886e38;

/** Conversion of a float to an integer type: truncated toward zero and wrapped; NaN and ±inf give 0 (docs: cast). */
function floatToInt(t: 'i32' | 'u32', x: number): number {
  if (!Number.isFinite(x)) return 0;
  const truncated = Math.trunc(x);
  // Wrap modulo 2^32 exactly (the double may be beyond 2^53's exact integers only for |x| ≥ 2^53, where the low 32 bits are 0).
  const low = truncated - Math.floor(truncated / 4294967296) * 4294967296;
  return t === 'i32' ? low | 0 : low >>> 0;
}

export function f32LimitsChecks(): Check[] {
  const xs = [Infinity, -Infinity, NaN, -0, 0, 1e38, f32Max, -f32Max, 1.401298464324817e-45, 1.1754943508222875e-38, 1.5, -2.5, 3e9, -3e9, 4.5e9, 16777217, 0.1, -1,
    2147483648, 4294967296, -2147483904, 2147483520].map(Math.fround);
  const f = Math.fround;
  const maps: [string, string, (x: number) => number, ElemName][] = [
    ['times_ten', 'x * 10.0', (x) => f(x * 10), 'f32'],
    ['twice', 'x + x', (x) => f(x + x), 'f32'],
    ['over_zero', 'x / 0.0', (x) => f(x / 0), 'f32'],
    ['zero_over', '0.0 / x', (x) => f(0 / x), 'f32'],
    ['min_one', 'min(x, 1.0)', (x) => Math.min(x, 1), 'f32'],
    ['max_minus_one', 'max(x, -1.0)', (x) => Math.max(x, -1), 'f32'],
    ['absolute', 'abs(x)', (x) => Math.abs(x), 'f32'],
    ['root', 'sqrt(x)', (x) => f(Math.sqrt(x)), 'f32'],
    ['floored', 'floor(x)', (x) => Math.floor(x), 'f32'],
    ['ceiled', 'ceil(x)', (x) => Math.ceil(x), 'f32'],
    ['to_i32', 'i32(x)', (x) => floatToInt('i32', x), 'i32'],
    ['to_u32', 'u32(x)', (x) => floatToInt('u32', x), 'u32'],
    ['is_nan', 'x != x', (x) => (x !== x ? 1 : 0), 'bool'],
    ['below_one', 'x < 1.0', (x) => (x < 1 ? 1 : 0), 'bool'],
    ['equals_itself', 'x == x', (x) => (x === x ? 1 : 0), 'bool'],
    // `inf` alone is an f64 constant; its f32 cast is an f32 one.
    ['above_minus_inf', 'x >= f32(-inf)', (x) => (x >= -Infinity ? 1 : 0), 'bool'],
    ['select_nonpositive', '0.0 if x > 0.0 else x', (x) => (x > 0 ? 0 : x), 'f32'],
  ];
  const items: Item[] = [
    ...maps.map(([name, e, g, elem]): Item => [name, `map(lam x: ${e}, xs)`, array(elem, xs.map(g))]),
    // min and max are JavaScript's Math.min and Math.max: a NaN anywhere wins; a sum with +inf and -inf is NaN.
    ['least', 'fold(min, xs)', NaN],
    ['most', 'fold(max, xs)', NaN],
    ['total', 'fold(+, xs)', NaN],
  ];
  return resultsChecks('f32 limits: ±inf, NaN, -0, 1e38 overflow, subnormals, conversions', 'xs: f32[n]', { xs: array('f32', xs) }, items, elementwise, true);
}

/** The sign of zero, bit for bit: operations IEEE defines exactly (no subnormals: a device may flush them). */
export function signedZeroChecks(): Check[] {
  const xs = [-0, 0, 1.5, -1.5, Infinity, -Infinity, 1e38, -1e-30].map(Math.fround);
  const f = Math.fround;
  const maps: [string, string, (x: number) => number][] = [
    ['negated', '-x', (x) => -x],
    ['times_minus_one', 'x * -1.0', (x) => f(x * -1)],
    ['plus_zero', 'x + 0.0', (x) => f(x + 0)],
    ['minus_zero', 'x - 0.0', (x) => f(x - 0)],
    ['times_zero', 'x * 0.0', (x) => f(x * 0)],
    ['zero_minus', '0.0 - x', (x) => f(0 - x)],
    ['min_zero', 'min(x, 0.0)', (x) => Math.min(x, 0)],
    ['max_minus_zero', 'max(x, -0.0)', (x) => Math.max(x, -0)],
    ['absolute', 'abs(x)', (x) => Math.abs(x)],
    ['half_floored', 'floor(x * 0.5)', (x) => Math.floor(f(x * 0.5))],
  ];
  const items = maps.map(([name, e, g]): Item => [name, `map(lam x: ${e}, xs)`, array('f32', xs.map(g))]);
  return resultsChecks('f32 signed zeros and infinities, bit for bit', 'xs: f32[n]', { xs: array('f32', xs) }, items, exact);
}

export function i32LimitsChecks(): Check[] {
  const xs = [-2147483648, 2147483647, -1, 0, 1, 46341, -46341, 16777217, 123456789, -123456789];
  const power3 = (x: number): number => Math.imul(Math.imul(x, x), x);
  const maps: [string, string, (x: number) => number, ElemName][] = [
    ['plus_one', 'x + 1', (x) => (x + 1) | 0, 'i32'],
    ['minus_one', 'x - 1', (x) => (x - 1) | 0, 'i32'],
    ['negated', '-x', (x) => -x | 0, 'i32'],
    ['absolute', 'abs(x)', (x) => Math.abs(x) | 0, 'i32'],
    ['squared', 'x * x', (x) => Math.imul(x, x), 'i32'],
    ['div_minus_one', 'x // -1', (x) => floorDiv(x, -1) | 0, 'i32'],
    ['mod_minus_one', 'x % -1', (x) => floorMod(x, -1) | 0, 'i32'],
    ['cubed', 'x ** 3', power3, 'i32'],
    ['to_f32', 'f32(x)', Math.fround, 'f32'],
    ['to_u32', 'u32(x)', (x) => x >>> 0, 'u32'],
    ['min_zero', 'min(x, 0)', (x) => Math.min(x, 0), 'i32'],
    ['max_min', 'max(x, -2147483648)', (x) => x, 'i32'],
    ['above_min', 'x > -2147483648', (x) => (x > -2147483648 ? 1 : 0), 'bool'],
  ];
  const items: Item[] = [
    ...maps.map(([name, e, g, elem]): Item => [name, `map(lam x: ${e}, xs)`, array(elem, xs.map(g))]),
    ['total', 'fold(+, xs)', xs.reduce((a, b) => (a + b) | 0, 0)],
    ['least', 'fold(min, xs)', -2147483648],
  ];
  return resultsChecks('i32 limits: wrapping + - * ** abs, min // -1, conversions', 'xs: i32[n]', { xs: array('i32', xs) }, items, exact);
}

export function u32LimitsChecks(): Check[] {
  const xs = [0, 1, 4294967295, 2147483648, 2147483647, 65536, 4294967294, 3000000000];
  const maps: [string, string, (x: number) => number, ElemName][] = [
    ['plus_one', 'x + 1', (x) => (x + 1) >>> 0, 'u32'],
    ['minus_one', 'x - 1', (x) => (x - 1) >>> 0, 'u32'],
    ['squared', 'x * x', (x) => Math.imul(x, x) >>> 0, 'u32'],
    ['third', 'x // 3', (x) => Math.floor(x / 3), 'u32'],
    ['last_digit', 'x % 10', (x) => x % 10, 'u32'],
    ['to_i32', 'i32(x)', (x) => x | 0, 'i32'],
    ['to_f32', 'f32(x)', Math.fround, 'f32'],
    ['top_bit', 'x >> 31', (x) => x >>> 31, 'u32'],
    ['max_half', 'max(x, 2147483648)', (x) => Math.max(x, 2147483648), 'u32'],
    ['above_half', 'x > 2147483647', (x) => (x > 2147483647 ? 1 : 0), 'bool'],
    ['flipped', '~x', (x) => ~x >>> 0, 'u32'],
  ];
  const items: Item[] = [
    ...maps.map(([name, e, g, elem]): Item => [name, `map(lam x: ${e}, xs)`, array(elem, xs.map(g))]),
    ['total', 'fold(+, xs)', xs.reduce((a, b) => (a + b) >>> 0, 0)],
    ['most', 'fold(max, xs)', 4294967295],
  ];
  return resultsChecks('u32 limits: wrapping, comparisons above 2^31, conversions', 'xs: u32[n]', { xs: array('u32', xs) }, items, exact);
}

// ---------------------------------------------------------------------------------------------
// bool: not and or !=, generate, gather, reverse, scatter with and/or, folds, scans, filter
// ---------------------------------------------------------------------------------------------

export function boolChecks(n: number, seed: number): Check[] {
  const data = new Data(seed);
  const bs = data.bools(n);
  const cs = data.bools(n);
  const is = data.indices(n, Math.max(n, 1));
  const at5 = is.map((i) => i % 5);
  const and = (a: number, b: number): number => (a !== 0 && b !== 0 ? 1 : 0);
  const or = (a: number, b: number): number => (a !== 0 || b !== 0 ? 1 : 0);
  const scatter = (f: (a: number, b: number) => number, init: number): number[] => {
    const out = new Array<number>(5).fill(init);
    cs.forEach((c, k) => (out[at5[k]!] = f(out[at5[k]!]!, c)));
    return out;
  };
  const items: Item[] = [
    ['negated', 'map(lam b: not b, bs)', array('bool', bs.map((b) => 1 - b))],
    ['both', 'zipWith(lam(x, y): x and y, bs, cs)', array('bool', bs.map((b, i) => and(b, cs[i]!)))],
    ['either', 'zipWith(lam(x, y): x or y, bs, cs)', array('bool', bs.map((b, i) => or(b, cs[i]!)))],
    ['differ', 'zipWith(lam(x, y): x != y, bs, cs)', array('bool', bs.map((b, i) => (b !== cs[i] ? 1 : 0)))],
    ['every_third', 'generate(size(bs), lam i: i % 3 == 0)', array('bool', range(n).map((i) => (i % 3 === 0 ? 1 : 0)))],
    ['gathered', 'gather(is, bs)', array('bool', is.map((i) => bs[i]!))],
    ['reversed', 'reverse(bs)', array('bool', [...bs].reverse())],
    ['scattered_and', 'scatter(and, generate(5, lam i: true), zip(map(lam i: i % 5, is), cs))', array('bool', scatter(and, 1))],
    ['scattered_or', 'scatter(or, generate(5, lam i: false), zip(map(lam i: i % 5, is), cs))', array('bool', scatter(or, 0))],
    ['as_int', 'map(lam b: 1 if b else 0, bs)', array('i32', bs)],
    ['any_so_far', 'scanl(or, bs)', array('bool', scanLeft(bs, or))],
    ['all_after', 'scanr(and, true, cs)', array('bool', scanRight(cs, and, 1))],
    ['kept', 'filter(lam b: b, bs)', array('bool', bs.filter((b) => b === 1))],
    ['all_true', 'fold(and, bs)', bs.reduce((a, b) => and(a, b), 1)],
    ['any_true', 'fold(or, bs)', bs.reduce((a, b) => or(a, b), 0)],
    ['all_seeded', 'fold(and, true, cs)', cs.reduce((a, b) => and(a, b), 1)],
  ];
  return resultsChecks(`bool combinators n=${n}`, 'bs: bool[n], cs: bool[n], is: i32[n]', { bs: array('bool', bs), cs: array('bool', cs), is: array('i32', is) }, items, exact);
}

// ---------------------------------------------------------------------------------------------
// Control flow in the program: a while whose condition reads the data, ifs nested in it
// ---------------------------------------------------------------------------------------------

/**
 * Halve (and sometimes reverse and negate) until the maximum is at most t: every operation is
 * exact in f32 and min/max are exact in any grouping, so the number of iterations is the same
 * on every back end.
 */
export function whileF32Check(n: number, seed: number): Check {
  const data = new Data(seed);
  const xs = data.f32(n).map((x) => Math.fround(x * 100));
  const t = 0.75;
  const source = [
    'def main(xs: f32[n], t: f32):',
    '  ys = xs',
    '  k = 0',
    '  while fold(max, -1.0, ys) > t and k < 60:',
    '    if fold(min, 1.0, ys) < -4.0:',
    '      ys = map(lam y: y * 0.5, ys)',
    '    else:',
    '      ys = map(lam y: y * 0.5, reverse(ys))',
    '      if k % 2 == 1:',
    '        ys = map(lam y: -y, ys)',
    '    k = k + 1',
    '  return ys, k',
    '',
  ].join('\n');
  let ys = [...xs];
  let k = 0;
  while (ys.reduce((m, y) => Math.max(m, y), -1) > t && k < 60) {
    if (ys.reduce((m, y) => Math.min(m, y), 1) < -4) ys = ys.map((y) => y * 0.5);
    else {
      ys = [...ys].reverse().map((y) => y * 0.5);
      if (k % 2 === 1) ys = ys.map((y) => -y);
    }
    k++;
  }
  return check(`while with a data-dependent condition, nested ifs, f32 n=${n}`, source, { xs: array('f32', xs), t }, { ys: array('f32', ys), k }, exact);
}

/** Collatz steps on every element until all reach 1: a loop that runs as long as the data say. */
export function whileI32Check(n: number, seed: number): Check {
  const data = new Data(seed);
  const xs = Array.from({ length: n }, () => data.int(1, 60));
  const source = [
    'def main(xs: i32[n]):',
    '  ys = xs',
    '  steps = 0',
    '  while fold(max, 1, ys) > 1:',
    '    ys = map(lam y: y // 2 if y % 2 == 0 else (3 * y + 1 if y > 1 else 1), ys)',
    '    steps = steps + 1',
    '  return ys, steps',
    '',
  ].join('\n');
  let ys = [...xs];
  let steps = 0;
  while (ys.reduce((m, y) => Math.max(m, y), 1) > 1) {
    ys = ys.map((y) => (y % 2 === 0 ? y / 2 : y > 1 ? 3 * y + 1 : 1));
    steps++;
  }
  return check(`while over the data (Collatz), i32 n=${n}`, source, { xs: array('i32', xs) }, { ys: array('i32', ys), steps }, exact);
}

// ---------------------------------------------------------------------------------------------
// Deep nesting: a long chain of element operations, and selects nested 30 deep
// ---------------------------------------------------------------------------------------------

export function deepCheck(n: number, seed: number): Check {
  const data = new Data(seed);
  const xs = data.f32(n);
  const depth = 60;
  let text = 'x';
  const chain = (x: number): number => {
    let v = x;
    for (let k = 0; k < depth; k++) v = Math.fround(Math.fround(v * 0.5) + (k % 7));
    return v;
  };
  for (let k = 0; k < depth; k++) text = `(${text} * 0.5 + ${k % 7}.0)`;
  // Branches that are literals alone would be f64 (a literal's own type): cast them.
  let select = 'f32(99.0)';
  for (let k = 29; k >= 0; k--) select = `(f32(${k}.0) if x < ${k - 10}.0 else ${select})`;
  const pick = (x: number): number => {
    for (let k = 0; k < 30; k++) if (x < k - 10) return k;
    return 99;
  };
  const source = `def main(xs: f32[n]):\n  return map(lam x: ${text}, xs), map(lam x: ${select}, xs)\n`;
  return check(`deep expressions f32 n=${n}`, source, { xs: array('f32', xs) }, { result0: array('f32', xs.map(chain)), result1: array('f32', xs.map(pick)) }, elementwise);
}

// ---------------------------------------------------------------------------------------------
// Aliasing: one array passed as two parameters, a scatter into an input, a result that is an input
// ---------------------------------------------------------------------------------------------

export function aliasCheck(n: number, seed: number): Check {
  const data = new Data(seed);
  const xs = data.f32Grid(n);
  const is = data.indices(n, Math.max(n, 1));
  const scattered = [...xs];
  xs.forEach((x, k) => (scattered[is[k]!] = Math.fround(scattered[is[k]!]! + x)));
  const source = [
    'def main(xs: f32[n], ys: f32[n], is: i32[n]):',
    '  a = zipWith(lam(x, y): x * 2.0 - y, xs, ys)',
    '  b = scatter(+, xs, zip(is, ys))',
    '  return a, b, ys, xs',
    '',
  ].join('\n');
  const c = check(`aliased inputs (ys is xs) f32 n=${n}`, source, { xs: array('f32', xs), is: array('i32', is) }, {
    a: array('f32', xs.map((x) => Math.fround(Math.fround(x * 2) - x))),
    b: array('f32', scattered),
    ys: array('f32', xs),
    xs: array('f32', xs),
  }, reduction(n + 1, maxAbs(xs)));
  return { ...c, case: { ...c.case, aliases: { ys: 'xs' } } };
}

// ---------------------------------------------------------------------------------------------
// Run-time faults: the interpreter's diagnostic, whatever the fused code met first
// ---------------------------------------------------------------------------------------------

/** Cases that must fail with the interpreter's located diagnostic (compared with the reference's), and one whose fault nobody observes. */
export function faultChecks(): Check[] {
  const xs = array('f32', [1, 2, 3, 4, 5, 6, 7]);
  const fault = (name: string, source: string, inputs: Readonly<Record<string, PlainValue>>, code: string): Check => ({
    case: { name, source, inputs, fileName: `${name.replace(/[^A-Za-z0-9]+/g, '-')}.fuse` },
    tolerance: elementwise,
    expectedCode: code,
  });
  return [
    fault('gather index past the end', 'def main(xs: f32[n], is: i32[k]):\n  return gather(is, xs)\n', { xs, is: array('i32', [0, 6, 7, 2]) }, 'E402'),
    fault('gather negative index', 'def main(xs: f32[n], is: i32[k]):\n  return map(lam y: y * 2.0, gather(is, xs))\n', { xs, is: array('i32', [1, -1]) }, 'E402'),
    fault('the earliest of two faults', 'def main(xs: f32[n], is: i32[k]):\n  return gather(is, xs)\n', { xs, is: array('i32', [0, 99, -5, 100]) }, 'E402'),
    fault('index past the end in element code', 'def main(xs: f32[n]):\n  return generate(size(xs), lam i: xs[i + 1])\n', { xs }, 'E402'),
    fault('i32 division by zero', 'def main(as: i32[n], bs: i32[n]):\n  return zipWith(//, as, bs)\n', { as: array('i32', [5, 6, 7]), bs: array('i32', [1, 0, 2]) }, 'E401'),
    fault('i32 remainder by zero', 'def main(as: i32[n], bs: i32[n]):\n  return fold(+, zipWith(%, as, bs))\n', { as: array('i32', [5, 6, 7]), bs: array('i32', [1, 2, 0]) }, 'E401'),
    fault('u32 division by zero in a fused chain', 'def main(as: u32[n]):\n  return map(lam x: x + 1, map(lam a: 100 // (a - 3), as))\n', { as: array('u32', [1, 2, 3, 4]) }, 'E401'),
    fault('scatter index out of range', 'def main(vs: i32[n], is: i32[n]):\n  return scatter(+, generate(4, lam i: 0), zip(is, vs))\n', { vs: array('i32', [1, 2, 3]), is: array('i32', [0, 4, 1]) }, 'E402'),
    fault('a fault in a while condition', 'def main(xs: f32[n]):\n  k = 0\n  while xs[k] < 100.0:\n    k = k + 1\n  return k\n', { xs }, 'E402'),
    fault('a fault in a large array (the last chunk)', 'def main(xs: f32[n], is: i32[k]):\n  return map(lam y: y + 1.0, gather(is, xs))\n', {
      xs: array('f32', new Array<number>(70000).fill(1)),
      is: array('i32', Array.from({ length: 70000 }, (_, i) => (i === 69999 ? 70000 : i))),
    }, 'E402'),
  ];
}

/** A fault in an element no result needs (docs/LANGUAGE.md, "Run-time faults"): the run succeeds. */
export function unobservedFaultCheck(): Check {
  const source = 'def main(xs: f32[n]):\n  is = generate(size(xs), lam i: i + 5)\n  ys = gather(is, xs)\n  zs = generate(size(xs), lam i: ys[0] if i < 0 else 2.0)\n  return zs, map(lam x: 10.0 // x, xs)\n';
  const xs = [1, 0, -0, 3, 5, 8, 13, 21, 34, 55];
  const c = check('a fault nobody observes; f32 // by zero is no fault', source, { xs: array('f32', xs) }, {
    zs: array('f32', xs.map(() => 2)),
    result1: array('f32', xs.map((x) => Math.floor(10 / x))),
  }, elementwise);
  return { ...c, fallbackAllowed: true };
}
