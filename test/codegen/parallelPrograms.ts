// Source programs for the parallel variant's tests, with inputs: one per combinator and fusion
// shape the work functions handle differently (maps, generates, gathers, row folds, whole folds
// with a non-neutral seed, tuple folds, scans both ways and tuple scans, filter, scatters with
// every kind of combine, faults in any chunk, `if`/`while` bodies, empty arrays).

import { SourceFile } from '../../src/diagnostics/index.js';
import { entryDef, lowerModule } from '../../src/lower/index.js';
import { signatureOf } from '../../src/driver/index.js';
import { parseModule } from '../../src/syntax/index.js';
import type { Program, ScalarType } from '../../src/ir/types.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { plan } from '../../src/plan/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import type { Plan, Strategy } from '../../src/plan/types.js';
import { allocate } from '../../src/ir/scalarOps.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const solver = createSolverLoader();

export function array(elem: ScalarType, shape: readonly number[], f: (k: number) => number): InterfaceValue {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = allocate(elem, n);
  for (let k = 0; k < n; k++) data[k] = f(k);
  return { kind: 'array', elem, shape, data };
}

export function scalar(elem: ScalarType, value: number): InterfaceValue {
  return { kind: 'scalar', elem, value };
}

export interface SourceCase {
  readonly name: string;
  readonly source: string;
  /** Input sets (names → values) to run each program on. */
  readonly inputs: readonly Readonly<Record<string, InterfaceValue>>[];
  /** Schedules the module under the ILP plan must have (a cluster each, at least). */
  readonly schedules?: readonly string[];
  /** Mark every top-level scatter `unique` (as the prelude does for filter's; the indices must be distinct). */
  readonly unique?: true;
}

export async function prepare(
  source: string,
  inputs: Readonly<Record<string, InterfaceValue>>,
  strategy: Strategy,
  unique = false,
): Promise<{ program: Program; plan: Plan; values: InterfaceValue[] }> {
  const file = new SourceFile('case.fuse', source);
  const module = parseModule(file);
  const entry = entryDef(module, file);
  const lowered = lowerModule(module, file, { signature: signatureOf(entry, inputs, file) });
  const program: Program = unique
    ? { ...lowered, body: { ...lowered.body, stmts: lowered.body.stmts.map((st) => (st.kind === 'scatter' ? { ...st, unique: true } : st)) } }
    : lowered;
  const p = await plan(program, { strategy, solver });
  const values = entry.params.map((q) => inputs[q.name]!);
  return { program, plan: p, values };
}

// Multiples of 1/8: their sums are exact in any grouping, so regrouped float folds compare bit for bit.
const f64s = (n: number, f: (k: number) => number = (k) => ((k * 7919) % 101) / 8 - 5): InterfaceValue => array('f64', [n], f);
const i32s = (n: number, f: (k: number) => number): InterfaceValue => array('i32', [n], f);
const sizes = [0, 1, 2, 5, 17, 100];

export const sourceCases: readonly SourceCase[] = [
  {
    name: 'map and generate',
    source: 'def f(xs):\n  ys = map(lam x: x * 2.0 + 1.0, xs)\n  zs = generate(size(xs), lam i: f64(i) * 0.5)\n  return map(lam y, z: y - z, ys, zs)\n',
    inputs: sizes.map((n) => ({ xs: f64s(n) })),
  },
  {
    name: 'gather (reverse)',
    source: 'def f(xs):\n  n = size(xs)\n  is = generate(n, lam i: n - 1 - i)\n  return gather(is, xs)\n',
    inputs: sizes.map((n) => ({ xs: f64s(n) })),
  },
  {
    name: 'row folds and a 2-D map',
    schedules: ['independent'],
    source: 'def f(m):\n  s = fold(+, m)\n  t = map(lam x: x * x, m)\n  return s, fold(max, t)\n',
    inputs: [[0, 3], [3, 0], [1, 1], [5, 7], [9, 4], [13, 2]].map((shape) => ({ m: array('f64', shape, (k) => (k % 11) - 4.5) })),
  },
  {
    name: 'whole folds with a non-neutral seed, and a tuple fold',
    schedules: ['reduce'],
    source:
      'def f(xs, is):\n  a = fold(+, 10.0, xs)\n  b = fold(+, 7, is)\n  c = fold(max, -1000, is)\n  p = fold(lam (s, m), (x, y): (s + x, m * y), (0, 1), zip(is, is))\n  return a, b, c, p\n',
    inputs: sizes.map((n) => ({ xs: f64s(n, (k) => k + 0.25), is: i32s(n, (k) => (k * 37) % 13 - 6) })),
  },
  {
    name: 'whole i32 folds that wrap',
    source: 'def f(is):\n  return fold(+, 2147483000, is), fold(*, 3, is)\n',
    inputs: sizes.map((n) => ({ is: i32s(n, (k) => 2147483000 - k * 1000) })),
  },
  {
    name: 'bool folds',
    source: 'def f(xs):\n  bs = map(lam x: x > 0.0, xs)\n  return fold(or, false, bs), fold(and, true, bs)\n',
    inputs: sizes.map((n) => ({ xs: f64s(n) })),
  },
  {
    name: 'folds and scans over -0 and NaN (the identities start no chunk wrong)',
    source: 'def f(xs):\n  return fold(+, -0.0, xs), fold(min, xs), fold(*, xs), scanl(+, -0.0, xs), scanr(max, xs)\n',
    schedules: ['scan'],
    inputs: [
      ...sizes.map((n) => ({ xs: f64s(n, () => -0) })),
      { xs: f64s(9, (k) => (k === 4 ? NaN : -0)) },
      { xs: f64s(9, (k) => (k === 8 ? NaN : k % 2 === 0 ? -0 : 0)) },
    ],
  },
  {
    name: 'scanl and scanr, exclusive and inclusive',
    schedules: ['scan'],
    source:
      'def f(is):\n  a = scanl(+, 5, is)\n  b = scanr(+, 3, is)\n  c = scanl(max, is)\n  d = scanr(min, is)\n  return a, b, c, d\n',
    inputs: sizes.map((n) => ({ is: i32s(n, (k) => (k * 53) % 17 - 8) })),
  },
  {
    name: 'a tuple scan fused with a map and a fold',
    schedules: ['scan'],
    source:
      'def f(is, xs):\n  s = scanl(lam (a, b), (x, y): (a + x, b * y), (1, 2.0), zip(is, xs))\n  t = map(lam (a, b): f64(a) + b, s)\n  return t, fold(+, 0, is)\n',
    inputs: sizes.map((n) => ({ is: i32s(n, (k) => k % 5), xs: f64s(n, (k) => [1, 2, 0.5][k % 3]!) })),
  },
  {
    name: 'a scan over row folds (a jammed row loop) and a whole fold of row folds (nested rows)',
    source: 'def f(m):\n  s = fold(+, m)\n  return scanl(+, 2, s), scanr(max, s), fold(+, 1, fold(max, m))\n',
    schedules: ['scan'],
    inputs: [[0, 3], [3, 0], [1, 1], [5, 7], [9, 4], [13, 2], [30, 3]].map((shape) => ({ m: array('i32', shape, (k) => ((k * 31) % 19) - 9) })),
  },
  {
    name: 'float scans (exact with integral values)',
    source: 'def f(xs):\n  return scanl(+, 0.5, xs), scanr(+, xs)\n',
    inputs: sizes.map((n) => ({ xs: f64s(n, (k) => (k % 9) - 3) })),
  },
  {
    name: 'filter',
    source: 'def f(xs):\n  return filter(lam x: x > 0.0, xs)\n',
    inputs: sizes.map((n) => ({ xs: f64s(n) })),
  },
  {
    name: 'filter, its scatter unique (fused into the scan)',
    schedules: ['scan', 'reduce'],
    source: 'def f(xs):\n  ys = filter(lam x: x > 0.0, xs)\n  return ys, fold(+, 0.5, ys)\n',
    inputs: sizes.map((n) => ({ xs: f64s(n) })),
    unique: true,
  },
  {
    name: 'scatter with float +, duplicates',
    schedules: ['owner'],
    source: 'def f(xs, is, d):\n  return scatter(+, d, zip(is, xs))\n',
    inputs: sizes.map((n) => ({ xs: f64s(n), is: i32s(n, (k) => (k * 7) % 4), d: f64s(4, (k) => k / 3) })),
  },
  {
    name: 'scatter with i32 +, -, bool or',
    schedules: ['atomic'],
    source:
      'def f(vs, is, d, e, b):\n  p = scatter(+, d, zip(is, vs))\n  q = scatter(lam o, v: o - v, e, zip(is, vs))\n  r = scatter(or, b, zip(is, map(lam v: v > 3, vs)))\n  return p, q, r\n',
    inputs: sizes.map((n) => ({
      vs: i32s(n, (k) => 2147483600 + k * 11),
      is: i32s(n, (k) => (k * 3) % 5),
      d: i32s(5, (k) => k),
      e: i32s(5, (k) => -2147483600 + k),
      b: array('bool', [5], () => 0),
    })),
  },
  {
    name: 'scatter with i32 and u32 max and min (compare-exchange)',
    schedules: ['atomic'],
    source:
      'def f(vs, is, d, e):\n  p = scatter(max, d, zip(is, vs))\n  q = scatter(lam o, v: min(o, v), e, zip(is, map(lam v: u32(v + 5), vs)))\n  return p, q\n',
    inputs: sizes.map((n) => ({
      vs: i32s(n, (k) => ((k * 7919) % 23) - 11),
      is: i32s(n, (k) => (k * 3) % 5),
      d: i32s(5, (k) => k - 8),
      e: array('u32', [5], (k) => 4294967295 - k),
    })),
  },
  {
    name: 'scatter overwrite sharing its loop with another root (owner split in two calls)',
    source: 'def f(xs, is, d):\n  ys = map(lam x: x * 3.0, xs)\n  r = scatter(lam o, v: v, d, zip(is, ys))\n  return r, map(lam y: y + 1.0, ys)\n',
    schedules: ['owner'],
    inputs: sizes.map((n) => ({ xs: f64s(n), is: i32s(n, (k) => (k * 5) % 6), d: f64s(6, () => -1) })),
  },
  {
    name: 'scatter overwrite with duplicates (last write wins)',
    schedules: ['owner'],
    source: 'def f(xs, is, d):\n  return scatter(lam o, v: v, d, zip(is, map(lam x: x * 3.0, xs)))\n',
    inputs: sizes.map((n) => ({ xs: f64s(n), is: i32s(n, (k) => (k * 5) % 6), d: f64s(6, () => -1) })),
  },
  {
    name: 'if and while bodies',
    source:
      'def f(xs, k):\n  ys = xs\n  i = 0\n  while i < k:\n    ys = map(lam y: y * 0.5 + 1.0, ys)\n    i = i + 1\n  s = fold(+, 1.0, ys)\n  if s > 3.0:\n    zs = map(lam y: y - s, ys)\n  else:\n    zs = scanl(+, ys)\n  return zs, s\n',
    inputs: sizes.flatMap((n) => [0, 1, 3].map((k) => ({ xs: f64s(n, (j) => j % 4), k: scalar('i32', k) }))),
  },
];

const example = (file: string): string => readFileSync(fileURLToPath(new URL(`../../examples/${file}.fuse`, import.meta.url)), 'utf8');
const idx = (n: number, bound: number): InterfaceValue => i32s(n, (k) => (k * 7 + 3) % Math.max(1, bound));

/** The bundled examples (examples/*.fuse, the paper's programs), and the histogram benchmark. */
export const exampleCases: readonly SourceCase[] = [
  { name: 'backpermute', source: example('backpermute'), inputs: sizes.map((n) => ({ xs: f64s(n) })) },
  { name: 'gather', source: example('gather'), inputs: sizes.filter((n) => n > 0).map((n) => ({ is: idx(n + 3, n), xs: f64s(n) })) },
  { name: 'greedyBottomUpBad', source: example('greedyBottomUpBad'), inputs: sizes.map((n) => ({ xs: f64s(n), m: scalar('i32', 5) })) },
  { name: 'greedyTopDownBad', source: example('greedyTopDownBad'), inputs: sizes.filter((n) => n > 0).map((n) => ({ as: f64s(n) })) },
  { name: 'reverse', source: example('reverse'), inputs: sizes.map((n) => ({ xs: f64s(n) })) },
  { name: 'scatterExample', source: example('scatterExample'), inputs: sizes.map((n) => ({ xs: f64s(n, (k) => (k * 5) % 9) })) },
  { name: 'simple1', source: example('simple1'), inputs: sizes.map((n) => ({ is: idx(2 * n, n), xs: f64s(Math.max(1, n)) })) },
  { name: 'simple2', source: example('simple2'), inputs: sizes.map((n) => ({ is1: idx(n, n), is2: idx(n === 0 ? 0 : n + 1, n), xs: f64s(Math.max(1, n)) })) },
  { name: 'simple3', source: example('simple3'), inputs: sizes.map((n) => ({ is: idx(n, n), xs: f64s(Math.max(1, n)) })) },
  { name: 'simple4', source: example('simple4'), inputs: sizes.map((n) => ({ is: idx(n, 6), xs: array('f64', [6, n], (k) => (k % 13) / 4) })) },
  { name: 'simple5', source: example('simple5'), inputs: sizes.map((n) => ({ is: idx(Math.max(1, n), n), xs: f64s(Math.max(1, n)) })) },
  { name: 'singleLoop', source: example('singleLoop'), inputs: sizes.map((n) => ({ as: f64s(n) })) },
  {
    name: 'histogram (bench/programs)',
    source: readFileSync(fileURLToPath(new URL('../../bench/programs/histogram.fuse', import.meta.url)), 'utf8'),
    inputs: sizes.map((n) => ({ keys: i32s(n, (k) => (k * 13) % 11), weights: f64s(n), nbins: scalar('i32', 4), batch: scalar('i32', n === 100 ? 25 : 1) })),
  },
  {
    name: '3-D stencil as an indexing generate (a per-axis loop nest)',
    schedules: ['independent'],
    source:
      'def f(a):\n  p, q, r = shape(a)\n  return generate((p, q, r), lam i, j, k: a[i, j, k] * 2.0 + a[(i + 1) % p, j, (k + r - 1) % r] - f64(j))\n',
    inputs: [[1, 1, 1], [2, 3, 4], [5, 1, 3], [9, 2, 2]].map((shape) => ({ a: array('f64', shape, (k) => (k % 7) - 3) })),
  },
  {
    name: 'row folds of a transpose, and a rank-2 scan (rows independent)',
    source: 'def f(m):\n  return fold(+, transpose(m)), scanl(+, 1, m)\n',
    inputs: [[0, 3], [3, 0], [1, 1], [5, 7], [9, 4]].map((shape) => ({ m: array('i32', shape, (k) => (k % 11) - 4) })),
  },
];

/** Programs whose runs fault, at an element in the first, a middle or the last chunk. */
export const faultCases: readonly SourceCase[] = [
  {
    name: 'gather out of range',
    source: 'def f(xs, is):\n  return gather(is, xs)\n',
    inputs: [0, 7, 49].map((bad) => ({ xs: f64s(10), is: i32s(50, (k) => (k === bad ? 10 : k % 10)) })),
  },
  {
    name: 'scatter out of range (float +)',
    source: 'def f(xs, is, d):\n  return scatter(+, d, zip(is, xs))\n',
    inputs: [0, 23, 49].map((bad) => ({ xs: f64s(50), is: i32s(50, (k) => (k === bad ? -1 : k % 3)), d: f64s(3) })),
  },
  {
    name: 'scatter out of range (i32 +)',
    source: 'def f(vs, is, d):\n  return scatter(+, d, zip(is, vs))\n',
    inputs: [0, 23, 49].map((bad) => ({ vs: i32s(50, (k) => k), is: i32s(50, (k) => (k === bad ? 3 : k % 3)), d: i32s(3, () => 0) })),
  },
  {
    name: 'scatter out of range, sharing its loop with another root',
    source: 'def f(xs, is, d):\n  ys = map(lam x: x * 3.0, xs)\n  r = scatter(lam o, v: v, d, zip(is, ys))\n  return r, map(lam y: y + 1.0, ys)\n',
    inputs: [0, 23, 49].map((bad) => ({ xs: f64s(50), is: i32s(50, (k) => (k === bad ? 6 : k % 6)), d: f64s(6) })),
  },
  {
    name: 'integer division by zero in a fold and a map',
    source: 'def f(is):\n  qs = map(lam i: 100 // i, is)\n  return qs, fold(+, qs)\n',
    inputs: [0, 31, 59].map((bad) => ({ is: i32s(60, (k) => (k === bad ? 0 : k + 1)) })),
  },
  {
    // One loop over `is` (fused horizontally): the gather faults from element 10 on (xs has 10
    // elements), the scan's input at element 50 only. Phase 1 would meet only the later one.
    name: 'a gather faulting before a later fault of a fused scan input',
    source: 'def f(is, xs):\n  g = gather(map(lam i: i - 1, is), xs)\n  s = scanl(+, 0, map(lam i: 7 // (i - 51), is))\n  return g, s\n',
    inputs: [{ is: i32s(60, (k) => k + 1), xs: f64s(10) }],
  },
  {
    name: 'scan input faults',
    source: 'def f(is):\n  return scanl(+, 0, map(lam i: 7 % i, is))\n',
    inputs: [0, 31, 59].map((bad) => ({ is: i32s(60, (k) => (k === bad ? 0 : k + 1)) })),
  },
];
