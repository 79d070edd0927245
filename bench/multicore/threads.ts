// What the benchmarks share about threads (bench:multicore, and `--threads` of bench:exec and
// bench:paper): thread counts as a command line writes them (`2`, `all`, `1,2,4`), one plan
// compiled for a thread count (1: the `js` back end, today's path exactly, as the driver does;
// more: `multicore`), inputs moved onto SharedArrayBuffers (the zero-copy path for the workers),
// and the comparison of an N-thread result with the 1-thread one under the float policy of
// docs/EXECUTION.md "Threads".

import { availableParallelism } from 'node:os';
import { InvalidArgumentError } from 'commander';
import type { SourceFile } from '../../src/diagnostics/index.js';
import type { TypedArray } from '../../src/ir/scalarOps.js';
import type { Program } from '../../src/ir/types.js';
import type { ArrayValue, InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import type { MemoryPlan } from '../../src/memory/types.js';
import type { Plan } from '../../src/plan/types.js';
import { backends, compileProgram, type Executable, type RunStats } from '../../src/runtime/index.js';

/** `all`: the threads this machine offers (os.availableParallelism(), what `threads` defaults to). */
export function allThreads(): number {
  return availableParallelism();
}

/** One thread count: a positive integer, or `all`. */
export function parseThreads(text: string): number {
  const t = text.trim();
  if (t === 'all') return allThreads();
  const v = Number(t);
  if (t === '' || !Number.isInteger(v) || v < 1) throw new InvalidArgumentError('expected a positive integer or "all"');
  return v;
}

/** Comma-separated thread counts (`1,2,4`, `all`), ascending, each once. */
export function parseThreadList(text: string): number[] {
  const counts = text.split(',').map(parseThreads);
  return [...new Set(counts)].sort((a, b) => a - b);
}

/** The back-end options a benchmark may set; unset ones keep the back end's defaults. */
export interface ParallelTuning {
  /** CompileOptions.parallelThreshold: work below it stays on the calling thread. */
  readonly parallelThreshold?: number;
  /** CompileOptions.chunkLength: iterations per chunk of a loop that carries a value. */
  readonly chunkLength?: number;
}

/**
 * `program` under `plan` compiled for `threads` threads: the `js` back end for 1 (what the
 * driver runs for `threads: 1`), the multicore back end otherwise. Without `memory` the back
 * end plans memory itself, sizes read at run time; tuning options left undefined are not passed.
 */
export async function compileFor(
  threads: number,
  program: Program,
  plan: Plan,
  options: { readonly file: SourceFile; readonly memory?: MemoryPlan; readonly tuning?: ParallelTuning },
): Promise<Executable> {
  if (threads === 1) return compileProgram(program, plan, { file: options.file, memory: options.memory });
  const tuning = Object.fromEntries(Object.entries(options.tuning ?? {}).filter(([, v]) => v !== undefined));
  return backends.multicore.compile(program, plan, { file: options.file, memory: options.memory, threads, ...tuning });
}

/** A copy of `data` on a SharedArrayBuffer, same element type. */
export function sharedArray<T extends TypedArray>(data: T): T {
  const Ctor = data.constructor as new (buffer: SharedArrayBuffer) => T;
  const copy = new Ctor(new SharedArrayBuffer(data.byteLength));
  copy.set(data as never);
  return copy;
}

/** The same inputs with every array's data copied onto a SharedArrayBuffer (scalars as they are). */
export function sharedInputs<K extends string>(inputs: Readonly<Record<K, InterfaceValue>>): Record<K, InterfaceValue> {
  const one = (v: RuntimeValue): RuntimeValue => (v.kind === 'array' ? ({ ...v, data: sharedArray(v.data) } satisfies ArrayValue) : v);
  const out = {} as Record<K, InterfaceValue>;
  for (const key of Object.keys(inputs) as K[]) {
    const value = inputs[key];
    out[key] = Array.isArray(value) ? (value as readonly RuntimeValue[]).map(one) : one(value as RuntimeValue);
  }
  return out;
}

/** Results as flat numbers: one typed array (or number) per result component. */
export type FlatResults = readonly (TypedArray | number)[];

/** Every component of every result, in order: arrays as their data, scalars as their value. */
export function flatResults(results: readonly InterfaceValue[]): FlatResults {
  return results.flatMap((r) => (Array.isArray(r) ? (r as readonly RuntimeValue[]) : [r as RuntimeValue])).map((v) => (v.kind === 'array' ? v.data : v.value));
}

/**
 * Relative tolerance of a float result of N threads against 1 thread's, scaled by the largest
 * magnitude of the 1-thread result (results are equal bit for bit unless a whole-array fold or
 * scan spans several chunks: its partials are then added in another grouping). 1e-9 bounds
 * n·ε for the n ≤ 10^7 of these benchmarks.
 */
export const FLOAT_TOLERANCE = 1e-9;

/** How one result set compares with the reference one. */
export interface Agreement {
  /** Every element equal (Object.is: -0 and NaN too). */
  readonly bitExact: boolean;
  /** The largest |got − want| ÷ max |want| over float elements that differ (0 when bit-exact). */
  readonly maxRelative: number;
  /** Null when within the policy (bit-exact, or floats within FLOAT_TOLERANCE); else where it fails. */
  readonly wrong: string | null;
}

function isFloatData(x: TypedArray | number): boolean {
  return typeof x === 'number' || x instanceof Float64Array || x instanceof Float32Array;
}

/** Compares `got` with `want`: integers and booleans must be identical, floats within `tolerance`. */
export function agreement(want: FlatResults, got: FlatResults, tolerance = FLOAT_TOLERANCE): Agreement {
  if (want.length !== got.length) return { bitExact: false, maxRelative: Infinity, wrong: `${got.length} results, expected ${want.length}` };
  let bitExact = true;
  let maxRelative = 0;
  let wrong: string | null = null;
  for (let r = 0; r < want.length && wrong === null; r++) {
    const w = want[r]!;
    const g = got[r]!;
    const ws: ArrayLike<number> = typeof w === 'number' ? [w] : w;
    const gs: ArrayLike<number> = typeof g === 'number' ? [g] : g;
    if (typeof w !== typeof g || ws.length !== gs.length) {
      wrong = `result ${r}: ${typeof g === 'number' ? 'a number' : `${gs.length} elements`}, expected ${typeof w === 'number' ? 'a number' : `${ws.length} elements`}`;
      break;
    }
    let scale = 0;
    for (let i = 0; i < ws.length; i++) scale = Math.max(scale, Math.abs(ws[i]!));
    for (let i = 0; i < ws.length; i++) {
      if (Object.is(ws[i], gs[i])) continue;
      bitExact = false;
      const rel = Math.abs(gs[i]! - ws[i]!) / (scale > 0 ? scale : 1);
      if (!isFloatData(w) || !(rel <= tolerance)) {
        wrong = `result ${r}[${i}]: ${gs[i]}, expected ${ws[i]}${isFloatData(w) ? ` (relative ${rel.toExponential(2)} > ${tolerance})` : ''}`;
        break;
      }
      maxRelative = Math.max(maxRelative, rel);
    }
  }
  return { bitExact: wrong === null && bitExact, maxRelative: wrong === null ? maxRelative : Infinity, wrong };
}

/** `bit-exact`, `≤ 3.1e-15 rel`, or the failure. */
export function agreementText(a: Agreement): string {
  if (a.wrong !== null) return `DIFFERS: ${a.wrong}`;
  return a.bitExact ? 'bit-exact' : `≤ ${a.maxRelative.toExponential(1)} rel`;
}

/** Of one run's cluster calls, how many several threads shared. */
export interface Forks {
  readonly forked: number;
  readonly calls: number;
}

/** A run's forks: Σ ClusterStats.parallelRuns (0 on the js back end) over Σ runs. */
export function forksOf(stats: RunStats): Forks {
  let forked = 0;
  let calls = 0;
  for (const c of stats.clusters) {
    forked += c.parallelRuns;
    calls += c.runs;
  }
  return { forked, calls };
}
