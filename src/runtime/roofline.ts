// A roofline per cluster (docs/EXECUTION.md, "Roofline per cluster"): how far each fused loop
// runs from what this machine can do, and which roof it is under.
//
// Three ingredients, each from where it is exact:
// - counts (elements, bytes, operations) from a counting run: the counters variant of the
//   generated code counts, per cluster, every element its element code loads and stores, every
//   arithmetic operation of the program's lambdas, and the iterations of its innermost loops
//   (`ClusterCounts`). That variant runs the plan's loop nests before any loop optimisation,
//   so the counts are the program's, whichever code shape the plain module runs;
// - times from timed runs of the plain module (the code an ordinary run executes): each
//   cluster's fastest over the runs, since the counters variant is several times slower;
// - the machine's rates, measured here as pure functions (no Node module: the CLI caches them
//   in a file, the API takes them as an option): a STREAM-like triad for the bandwidth, and
//   independent scalar multiply-add chains for the operation rate a JavaScript loop can reach.
//
// Two byte counts. `bytes`: what the loop's loads and stores carry, each gather neighbour its
// own load (a 27-point stencil loads each element 27 times, from the caches mostly). The roofline
// uses `memoryBytes`: per call and array, the elements read (and written) but at most the
// array's length, the traffic between memory and the caches if they keep what a call reads. A
// loop that moves more of those per second than the triad streams is `in-cache` (its arrays
// stayed in the caches between calls); one under half its roof (the bandwidth times its
// intensity, or the operation rate, whichever is lower) is `far` from it: its time goes to
// overhead (index arithmetic, bounds checks, branches, calls), not to memory or arithmetic.

import { CompilerBug } from '../diagnostics/index.js';
import type { ClusterCounts, RunStats } from './backend.js';

/** This machine's rates, as `measureMachine` measures them (or a caller gives them). */
export interface MachineRates {
  /** Bytes per second of the triad a[i] = b[i] + s·c[i] (24 bytes per element: two loads and a store), the best repetition. */
  readonly bandwidth: number;
  /** Floating-point operations per second of independent scalar multiply-add chains in a JavaScript loop, the best repetition. */
  readonly peakFlops: number;
  /** Elements of each of the triad's three Float64Arrays. */
  readonly triadElements: number;
  /** Repetitions each measurement took the best of. */
  readonly repetitions: number;
}

/** What a cluster's rates say, in one word (`verdictOf`). */
export type RooflineVerdict =
  /** At least half of the bandwidth, its roof. */
  | 'memory-bound'
  /** At least half of the operation rate, its roof. */
  | 'compute-bound'
  /** It moves more memory bytes per second than the triad streams: its arrays stayed in the caches between calls. */
  | 'in-cache'
  /** Below half of its roof: overhead (index arithmetic, checks, branches) dominates. */
  | 'far'
  /** No time measured (it did not run, or too briefly to time). */
  | 'unmeasured';

/** Counts, time and rates of one cluster (or of all of them together: `Roofline.total`). */
export interface RooflineRow extends ClusterCounts {
  /** Calls of the cluster in the counting run. */
  readonly runs: number;
  /** `bytesRead + bytesWritten`: what its loads and stores carry. */
  readonly bytes: number;
  /** The cluster's time in milliseconds, summed over its calls: the fastest timed run's. */
  readonly timeMs: number;
  /** `memoryBytes` per nanosecond (10⁹ bytes per second): the rate the memory roof limits. */
  readonly gbPerSecond: number;
  /** `bytes` per nanosecond: the rate of its loads and stores. */
  readonly loadStoreGbPerSecond: number;
  /** Floating-point operations per nanosecond. */
  readonly gflopPerSecond: number;
  /** Floating-point operations per memory byte (`memoryBytes`; Infinity when it moves none and computes). */
  readonly intensity: number;
  /** `gbPerSecond` over the machine's bandwidth (above 1: in caches). */
  readonly bandwidthFraction: number;
  /** `gflopPerSecond` over the machine's operation rate. */
  readonly peakFraction: number;
  /** The roof its intensity puts it under: memory below the ridge point (peakFlops / bandwidth), compute above. */
  readonly roof: 'memory' | 'compute';
  readonly verdict: RooflineVerdict;
}

export interface ClusterRoofline extends RooflineRow {
  /** The cluster's number in `RunStats.clusters` (from 0). */
  readonly cluster: number;
  readonly manifest: readonly string[];
}

export interface Roofline {
  readonly machine: MachineRates;
  readonly clusters: readonly ClusterRoofline[];
  /** Every cluster together. */
  readonly total: RooflineRow;
  /** The counting run's stats (per-array counters included). */
  readonly counted: RunStats;
  /** How many timed runs each cluster's time is the fastest of. */
  readonly timedRuns: number;
}

/** A roof is reached from this fraction of it on (the verdicts' threshold). */
export const NEAR_ROOF = 0.5;

/**
 * The roofline of a run: counts from `counted` (a run with `counters`), each cluster's time the
 * fastest of `timed` (runs of the same executable with `timing`), rates against `machine`.
 */
export function rooflineOf(counted: RunStats, timed: readonly RunStats[], machine: MachineRates): Roofline {
  if (timed.length === 0) throw new CompilerBug('runtime', 'a roofline needs a timed run');
  const clusters = counted.clusters.map((c, k): ClusterRoofline => {
    const counts = c.counts;
    if (counts === null) throw new CompilerBug('runtime', 'a roofline of a run that did not count');
    const times = timed.map((t) => {
      const tc = t.clusters[k];
      if (tc === undefined || t.clusters.length !== counted.clusters.length) throw new CompilerBug('runtime', 'a roofline of runs of different executables');
      return tc.timeMs;
    });
    return { cluster: k, manifest: c.manifest, ...rowOf(counts, c.runs, Math.min(...times), machine) };
  });
  const sum = (f: (c: ClusterRoofline) => number): number => clusters.reduce((s, c) => s + f(c), 0);
  const total = rowOf(
    {
      elements: sum((c) => c.elements),
      reads: sum((c) => c.reads),
      writes: sum((c) => c.writes),
      bytesRead: sum((c) => c.bytesRead),
      bytesWritten: sum((c) => c.bytesWritten),
      memoryBytes: sum((c) => c.memoryBytes),
      flops: sum((c) => c.flops),
      intOps: sum((c) => c.intOps),
    },
    sum((c) => c.runs),
    sum((c) => c.timeMs),
    machine,
  );
  return { machine, clusters, total, counted, timedRuns: timed.length };
}

/** One row's rates and verdict from its counts and time. */
export function rowOf(counts: ClusterCounts, runs: number, timeMs: number, machine: MachineRates): RooflineRow {
  const bytes = counts.bytesRead + counts.bytesWritten;
  const ns = timeMs * 1e6;
  const gbPerSecond = ns > 0 ? counts.memoryBytes / ns : 0;
  const gflopPerSecond = ns > 0 ? counts.flops / ns : 0;
  const intensity = counts.memoryBytes > 0 ? counts.flops / counts.memoryBytes : counts.flops > 0 ? Infinity : 0;
  const bandwidthFraction = gbPerSecond / (machine.bandwidth / 1e9);
  const peakFraction = gflopPerSecond / (machine.peakFlops / 1e9);
  const roof = intensity * machine.bandwidth < machine.peakFlops ? 'memory' : 'compute';
  return {
    ...counts,
    runs,
    bytes,
    timeMs,
    gbPerSecond,
    loadStoreGbPerSecond: ns > 0 ? bytes / ns : 0,
    gflopPerSecond,
    intensity,
    bandwidthFraction,
    peakFraction,
    roof,
    verdict: verdictOf(ns > 0, roof, bandwidthFraction, peakFraction),
  };
}

/** The verdict of a timed row (see `RooflineVerdict`). */
export function verdictOf(measured: boolean, roof: 'memory' | 'compute', bandwidthFraction: number, peakFraction: number): RooflineVerdict {
  if (!measured) return 'unmeasured';
  if (roof === 'memory') {
    if (bandwidthFraction > 1) return 'in-cache';
    return bandwidthFraction >= NEAR_ROOF ? 'memory-bound' : 'far';
  }
  return peakFraction >= NEAR_ROOF ? 'compute-bound' : 'far';
}

/** How long and how large `measureMachine` measures (defaults: 2²¹ elements, 3 × 16 MiB; 6 repetitions). */
export interface MeasureOptions {
  readonly triadElements?: number;
  readonly repetitions?: number;
  /** Iterations of the multiply-add loop (8 chains, 2 operations each per iteration; default 2²¹). */
  readonly chainIterations?: number;
}

/**
 * Measures this machine's rates, in about half a second: the triad over three Float64Arrays of
 * `triadElements` (large enough to leave the caches) and the multiply-add chains, each the best
 * of `repetitions` (the first repetitions also warm the code up and fault the pages in).
 */
export function measureMachine(options: MeasureOptions = {}): MachineRates {
  const n = options.triadElements ?? 2 ** 21;
  const repetitions = options.repetitions ?? 6;
  const iterations = options.chainIterations ?? 2 ** 21;
  if (!(Number.isSafeInteger(n) && n > 0 && Number.isSafeInteger(repetitions) && repetitions > 0 && Number.isSafeInteger(iterations) && iterations > 0)) {
    throw new RangeError('measureMachine: sizes and repetitions are positive integers');
  }
  const a = new Float64Array(n);
  const b = new Float64Array(n).fill(1);
  const c = new Float64Array(n).fill(2);
  let triadMs = Infinity;
  let chainMs = Infinity;
  let sink = 0;
  for (let r = 0; r < repetitions; r++) {
    const t0 = performance.now();
    triad(a, b, c, 3);
    const t1 = performance.now();
    sink += chains(iterations, 1 - 2 ** -20, 2 ** -30);
    const t2 = performance.now();
    triadMs = Math.min(triadMs, t1 - t0);
    chainMs = Math.min(chainMs, t2 - t1);
  }
  // The results are used, so no optimiser may drop the loops (a[0] is 7, the sum finite).
  if (!(a[n - 1] === 7 && Number.isFinite(sink))) throw new CompilerBug('runtime', 'the machine measurement computed wrong values');
  const seconds = (ms: number): number => Math.max(ms, 1e-3) / 1e3;
  return {
    bandwidth: (24 * n) / seconds(triadMs),
    peakFlops: (16 * iterations) / seconds(chainMs),
    triadElements: n,
    repetitions,
  };
}

/** STREAM's triad: two loads and a store per element. */
function triad(a: Float64Array, b: Float64Array, c: Float64Array, s: number): void {
  const n = a.length;
  for (let i = 0; i < n; i++) a[i] = b[i]! + s * c[i]!;
}

/** Eight independent chains of x = x·m + c: 16 floating-point operations per iteration, enough in flight to fill the pipelines. */
function chains(n: number, m: number, c: number): number {
  let x0 = 0.1, x1 = 0.2, x2 = 0.3, x3 = 0.4, x4 = 0.5, x5 = 0.6, x6 = 0.7, x7 = 0.8;
  for (let i = 0; i < n; i++) {
    x0 = x0 * m + c;
    x1 = x1 * m + c;
    x2 = x2 * m + c;
    x3 = x3 * m + c;
    x4 = x4 * m + c;
    x5 = x5 * m + c;
    x6 = x6 * m + c;
    x7 = x7 * m + c;
  }
  return x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}
