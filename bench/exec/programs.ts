// The execution benchmark's programs: every shared example (examples/*.fuse) with its inputs at a
// given size and a hand-written JavaScript loop that does the same work in as few passes as the
// computation allows (one, except where a result must be complete before it is read: simple3's
// `as`, scatterExample's destination). The hand loops are the practical limit the fused code is
// measured against, and they are also the check: every fused and interpreted run must produce
// exactly (bit for bit) what its hand loop produces, since both compute each element with the
// same operations in the same order.

import type { InterfaceValue } from '../../src/ir/values.js';

/** Inputs by entry parameter name, as the driver's Compiler takes them. */
export type Inputs = Readonly<Record<string, InterfaceValue>>;

/** What a hand loop returns: one typed array or number per program result. */
export type HandResult = readonly (Float64Array | Int32Array | number)[];

export interface ExecProgram {
  readonly name: string;
  /** Relative to the repository root. */
  readonly file: string;
  /** Inputs with about `n` elements in the largest array the program reads or writes. */
  inputs(n: number): Inputs;
  /** The same computation as one plain loop (or two, where the data dependence forces it). */
  hand(inputs: Inputs): HandResult;
  /** What `n` means for this program's inputs, for the table. */
  describe(n: number): string;
}

/** A seeded linear congruential generator: the same inputs on every run and machine. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s;
  };
}

function f64s(n: number, seed: number): Float64Array {
  const next = lcg(seed);
  const a = new Float64Array(n);
  for (let i = 0; i < n; i++) a[i] = (next() / 4294967296) * 2 - 0.5;
  return a;
}

/** Random indices in [0, bound): gathers that miss the cache, as real index arrays do. */
function indices(n: number, bound: number, seed: number): Int32Array {
  const next = lcg(seed);
  const a = new Int32Array(n);
  for (let i = 0; i < n; i++) a[i] = next() % bound;
  return a;
}

const vec = (data: Float64Array | Int32Array): InterfaceValue => ({
  kind: 'array',
  elem: data instanceof Int32Array ? 'i32' : 'f64',
  shape: [data.length],
  data,
});

function arrayOf(inputs: Inputs, name: string): Float64Array | Int32Array {
  const v = inputs[name];
  if (v === undefined || Array.isArray(v) || (v as { kind: string }).kind !== 'array') throw new Error(`input ${name} is not an array`);
  return (v as { data: Float64Array | Int32Array }).data;
}

function scalarOf(inputs: Inputs, name: string): number {
  const v = inputs[name] as { kind: string; value: number };
  if (v.kind !== 'scalar') throw new Error(`input ${name} is not a scalar`);
  return v.value;
}

/** Floor modulo of i32s, as scalarOps computes it (the divisor is positive here). */
function modPos(a: number, b: number): number {
  const r = a % b;
  return r < 0 ? r + b : r;
}

/** Rows of simple4's matrix; `n` elements are n / rows columns. */
const SIMPLE4_COLUMNS = 64;

export const execPrograms: readonly ExecProgram[] = [
  {
    name: 'backpermute',
    file: 'examples/backpermute.fuse',
    inputs: (n) => ({ xs: vec(f64s(n, 1)) }),
    hand(inputs) {
      const xs = arrayOf(inputs, 'xs');
      const m = (xs.length / 2) | 0;
      const zs = new Float64Array(m);
      for (let i = 0; i < m; i++) zs[i] = xs[2 * i]! * 3;
      return [zs];
    },
    describe: (n) => `xs: ${n}`,
  },
  {
    name: 'gather',
    file: 'examples/gather.fuse',
    inputs: (n) => ({ is: vec(indices(n, n, 2)), xs: vec(f64s(n, 3)) }),
    hand(inputs) {
      const is = arrayOf(inputs, 'is');
      const xs = arrayOf(inputs, 'xs');
      const n = xs.length;
      const ys = new Float64Array(is.length);
      for (let k = 0; k < is.length; k++) ys[k] = xs[modPos(Math.imul(is[k]!, 7), n)]!;
      return [ys];
    },
    describe: (n) => `is, xs: ${n}`,
  },
  {
    name: 'greedyBottomUpBad',
    file: 'examples/greedyBottomUpBad.fuse',
    // n rows of m columns: the table's size is the n*m elements of `large`.
    inputs: (n) => greedyBottomUpBadInputs(Math.max(1, Math.round(n / 100)), 100),
    hand: greedyBottomUpBadHand,
    describe: (n) => `n = ${Math.max(1, Math.round(n / 100))}, m = 100`,
  },
  {
    name: 'greedyTopDownBad',
    file: 'examples/greedyTopDownBad.fuse',
    inputs: (n) => ({ as: vec(f64s(n, 4)) }),
    hand(inputs) {
      const as = arrayOf(inputs, 'as');
      const b0 = as[0]! * 2;
      let acc = 0;
      for (let i = 0; i < as.length; i++) acc = acc + ((as[i]! * 2 + 1) + (i + b0));
      return [acc];
    },
    describe: (n) => `as: ${n}`,
  },
  {
    name: 'reverse',
    file: 'examples/reverse.fuse',
    inputs: (n) => ({ xs: vec(f64s(n, 5)) }),
    hand(inputs) {
      const xs = arrayOf(inputs, 'xs');
      const n = xs.length;
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) out[i] = xs[n - i - 1]!;
      return [out];
    },
    describe: (n) => `xs: ${n}`,
  },
  {
    name: 'scatterExample',
    file: 'examples/scatterExample.fuse',
    inputs: (n) => {
      // Non-negative values below n/2, so i32(x * 2.0) % n spreads over the whole destination.
      const xs = f64s(n, 6).map((x) => (x + 0.5) * (n / 4));
      return { xs: vec(xs) };
    },
    hand(inputs) {
      const xs = arrayOf(inputs, 'xs');
      const n = xs.length;
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) out[i] = xs[i]! + 1;
      for (let i = 0; i < n; i++) {
        const x = xs[i]!;
        const j = modPos((x * 2) | 0, n);
        out[j] = out[j]! + x;
      }
      return [out];
    },
    describe: (n) => `xs: ${n}`,
  },
  {
    name: 'simple1',
    file: 'examples/simple1.fuse',
    inputs: (n) => ({ is: vec(indices(n, n, 7)), xs: vec(f64s(n, 8)) }),
    hand(inputs) {
      const is = arrayOf(inputs, 'is');
      const xs = arrayOf(inputs, 'xs');
      const bs = new Float64Array(is.length);
      for (let k = 0; k < is.length; k++) {
        const x = xs[is[k]!]!;
        bs[k] = x * x + 1;
      }
      return [bs];
    },
    describe: (n) => `is, xs: ${n}`,
  },
  {
    name: 'simple2',
    file: 'examples/simple2.fuse',
    inputs: (n) => ({ is1: vec(indices(n, n, 9)), is2: vec(indices(n, n, 10)), xs: vec(f64s(n, 11)) }),
    hand(inputs) {
      const is1 = arrayOf(inputs, 'is1');
      const is2 = arrayOf(inputs, 'is2');
      const xs = arrayOf(inputs, 'xs');
      const bs = new Float64Array(is2.length);
      for (let k = 0; k < is2.length; k++) bs[k] = xs[is1[is2[k]!]!]!;
      return [bs];
    },
    describe: (n) => `is1, is2, xs: ${n}`,
  },
  {
    name: 'simple3',
    file: 'examples/simple3.fuse',
    inputs: (n) => ({ is: vec(indices(n, n, 12)), xs: vec(f64s(n, 13)) }),
    hand(inputs) {
      const is = arrayOf(inputs, 'is');
      const xs = arrayOf(inputs, 'xs');
      const as = new Float64Array(xs.length);
      for (let i = 0; i < xs.length; i++) as[i] = xs[i]! * xs[i]! + 1;
      const bs = new Float64Array(is.length);
      for (let k = 0; k < is.length; k++) bs[k] = as[is[k]!]!;
      return [as, bs];
    },
    describe: (n) => `is, xs: ${n}`,
  },
  {
    name: 'simple4',
    file: 'examples/simple4.fuse',
    inputs: (n) => {
      const rows = Math.max(1, Math.round(n / SIMPLE4_COLUMNS));
      const xs: InterfaceValue = { kind: 'array', elem: 'f64', shape: [rows, SIMPLE4_COLUMNS], data: f64s(rows * SIMPLE4_COLUMNS, 14) };
      return { is: vec(indices(rows, rows, 15)), xs };
    },
    hand(inputs) {
      const is = arrayOf(inputs, 'is');
      const xs = arrayOf(inputs, 'xs');
      const bs = new Float64Array(is.length);
      for (let k = 0; k < is.length; k++) {
        const row = is[k]! * SIMPLE4_COLUMNS;
        let acc = 0;
        for (let j = 0; j < SIMPLE4_COLUMNS; j++) acc = acc + xs[row + j]!;
        bs[k] = acc;
      }
      return [bs];
    },
    describe: (n) => `xs: ${Math.max(1, Math.round(n / SIMPLE4_COLUMNS))} × ${SIMPLE4_COLUMNS}`,
  },
  {
    name: 'simple5',
    file: 'examples/simple5.fuse',
    inputs: (n) => ({ is: vec(indices(n, n, 16)), xs: vec(f64s(n, 17)) }),
    hand(inputs) {
      const is = arrayOf(inputs, 'is');
      const xs = arrayOf(inputs, 'xs');
      const cs = new Float64Array(xs.length);
      for (let i = 0; i < xs.length; i++) cs[i] = (xs[i]! + 1) * xs[is[i]!]!;
      return [cs];
    },
    describe: (n) => `is, xs: ${n}`,
  },
  {
    name: 'singleLoop',
    file: 'examples/singleLoop.fuse',
    inputs: (n) => ({ as: vec(f64s(n, 18)) }),
    hand(inputs) {
      const as = arrayOf(inputs, 'as');
      const n = as.length;
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const c = as[i]! * 2;
        out[i] = as[n - i - 1]! + c + (c + 1);
      }
      return [out];
    },
    describe: (n) => `as: ${n}`,
  },
];

/** greedyBottomUpBad's inputs: xs of n values close to 1 (so the m-fold product stays finite). */
export function greedyBottomUpBadInputs(n: number, m: number): Inputs {
  const xs = f64s(n, 19).map((x) => 1 + x * 1e-6);
  return { xs: vec(xs), m: { kind: 'scalar', elem: 'i32', value: m } };
}

export function greedyBottomUpBadHand(inputs: Inputs): HandResult {
  const xs = arrayOf(inputs, 'xs');
  const m = scalarOf(inputs, 'm');
  const n = xs.length;
  let z0 = 1;
  for (let j = 0; j < m && n > 0; j++) z0 = z0 * xs[0]!;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = xs[i]!;
    let acc = 0;
    for (let j = 0; j < m; j++) acc = acc + x;
    out[i] = acc + z0;
  }
  return [out];
}
