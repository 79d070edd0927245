// The language benchmark's programs (issue #16): a histogram of n values into 256 bins and a
// CSR sparse matrix–vector product, each as a `.fuse` program run through the public API and as
// the plain JavaScript loop a user would write instead. Inputs are made from a seed; every
// output is checked against the hand loop's (counts exactly, SpMV within a stated tolerance,
// since the segmented scan sums a row in chunks, not strictly left to right).

import { compile, type FuseProgram, type Output } from '../../src/index.js';

export const histogramSource = `def histogram(xs: f64[n]):
  bins = map(lam x: i32(floor(x * 256.0)), xs)
  return hist(+, 0, 256, bins, map(lam x: 1, xs))
`;

// Row lengths, not CSR's row pointers: foldSeg takes segment lengths (Accelerate's form).
export const spmvSource = `def spmv(vals: f64[nnz], cols: i32[nnz], lens: i32[rows], x: f64[m]):
  prods = zipWith(lam v, xc: v * xc, vals, gather(cols, x))
  return foldSeg(+, 0.0, prods, lens)
`;

/** A small, fast generator (xorshift32), so inputs are the same on every machine. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/** n values in [0, 1), a few outside it (dropped by `hist`, skipped by the loop). */
export function histogramInput(n: number, seed = 1): Float64Array {
  const r = rng(seed);
  return Float64Array.from({ length: n }, (_, i) => (i % 1000 === 999 ? 1.5 : r()));
}

/** The loop a user would write: one pass, a bounds test, an increment. */
export function histogramLoop(xs: Float64Array): Int32Array {
  const bins = new Int32Array(256);
  for (let i = 0; i < xs.length; i++) {
    const b = Math.floor(xs[i]! * 256);
    if (b >= 0 && b < 256) bins[b]!++;
  }
  return bins;
}

export interface CsrMatrix {
  readonly rows: number;
  readonly columns: number;
  readonly vals: Float64Array;
  readonly cols: Int32Array;
  /** CSR's row pointers (rows + 1), for the hand loop. */
  readonly rowPtr: Int32Array;
  /** Row lengths (rows), for foldSeg. */
  readonly lens: Int32Array;
  readonly x: Float64Array;
}

/** A random sparse matrix with 0 to 2·perRow nonzeros per row (empty rows included). */
export function csrInput(rows: number, perRow: number, seed = 2): CsrMatrix {
  const r = rng(seed);
  const lens = Int32Array.from({ length: rows }, () => Math.floor(r() * (2 * perRow + 1)));
  const rowPtr = new Int32Array(rows + 1);
  for (let i = 0; i < rows; i++) rowPtr[i + 1] = rowPtr[i]! + lens[i]!;
  const nnz = rowPtr[rows]!;
  const columns = rows;
  const cols = Int32Array.from({ length: nnz }, () => Math.floor(r() * columns));
  const vals = Float64Array.from({ length: nnz }, () => r() * 2 - 1);
  const x = Float64Array.from({ length: columns }, () => r());
  return { rows, columns, vals, cols, rowPtr, lens, x };
}

/** The loop a user would write, its arrays in locals (V8 then keeps them in registers). */
export function spmvLoop(m: CsrMatrix): Float64Array {
  const { rows, rowPtr, vals, cols, x } = m;
  const y = new Float64Array(rows);
  for (let i = 0; i < rows; i++) {
    let s = 0;
    const end = rowPtr[i + 1]!;
    for (let k = rowPtr[i]!; k < end; k++) s += vals[k]! * x[cols[k]!]!;
    y[i] = s;
  }
  return y;
}

/** Null when `got` equals `want` exactly, else the first difference. */
export function sameCounts(got: Output, want: Int32Array): string | null {
  const data = (got as { data: Int32Array }).data;
  if (data.length !== want.length) return `${data.length} bins, expected ${want.length}`;
  for (let i = 0; i < want.length; i++) if (data[i] !== want[i]) return `bin ${i}: ${data[i]}, expected ${want[i]}`;
  return null;
}

/** Relative tolerance of a row sum against the loop's: a handful of roundings per row. */
export const SPMV_TOLERANCE = 1e-12;

/** Null when every row is within SPMV_TOLERANCE·(1 + Σ|terms|) of the loop's, else the worst row. */
export function closeRows(got: Output, want: Float64Array, m: CsrMatrix): string | null {
  const data = (got as { data: Float64Array }).data;
  if (data.length !== want.length) return `${data.length} rows, expected ${want.length}`;
  for (let i = 0; i < want.length; i++) {
    let scale = 1;
    for (let k = m.rowPtr[i]!; k < m.rowPtr[i + 1]!; k++) scale += Math.abs(m.vals[k]! * m.x[m.cols[k]!]!);
    if (!(Math.abs(data[i]! - want[i]!) <= SPMV_TOLERANCE * scale)) return `row ${i}: ${data[i]}, expected ${want[i]}`;
  }
  return null;
}

/** The two programs compiled for one thread (js) or several (multicore). */
export function compiled(threads: number): { histogram: FuseProgram; spmv: FuseProgram } {
  return {
    histogram: compile(histogramSource, { fileName: 'histogram.fuse', threads }),
    spmv: compile(spmvSource, { fileName: 'spmv.fuse', threads }),
  };
}
