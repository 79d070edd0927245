// The multicore back end's `rt`: the js `Runtime` with a `par` that shares a cluster call's
// chunks with the pool's workers when the call's work is worth a fork (types.ts `LoadedModule`),
// and runs it on the calling thread otherwise (the js `par`: fixed chunks in order, so a
// carried loop's result depends on the chunk length only, never on the thread count).
//
// Workers see only SharedArrayBuffers. The pool's slots and the run's fresh arrays are shared
// already (Pool(…, true), helpers.ts `allocateArray`); what is not is the caller's: inputs,
// `out` arrays and donated inputs. A forking call that gets one uses a shared mirror of it when
// its work pays for the copy (`MIRROR_WORK_PER_ELEMENT`), else runs on the calling thread: an
// input that generated code only reads is copied once per run into a mirror the pool keeps
// across runs; an array the call may write (`out`, a donated input) is copied in before the
// fork and back after it.
//
// Faults: the pool reports the lowest chunk that threw (ChunkFault); that chunk is re-run here,
// on the calling thread with this runtime, which throws the diagnostic a sequential run meets
// (faults are deterministic functions of the inputs). A worker that died (WorkerDiedError)
// leaves the module unloaded: the executable reloads it on a fresh pool before its next run.

import { CompilerBug, type SourceFile } from '../../diagnostics/index.js';
import type { TypedArray } from '../../ir/scalarOps.js';
import type { RuntimeValue } from '../../ir/values.js';
import type { Program } from '../../ir/types.js';
import { allocateArray, type Pool, type RunRecord, Runtime, type RuntimeTables, type WorkFunction } from '../helpers.js';
import { elemOfData } from '../outputs.js';
import { ChunkFault, type LoadedModule, WorkerDiedError } from './types.js';

/**
 * The default fork threshold, in the units of `rt.par`'s `work` (codegen's estimate per
 * iteration: loads, operations and stores; a map `x * 1.5 + 0.25` over f64 is 12 an element, one
 * of `exp(x) * sin(x) + sqrt(abs(x)) * cos(x * 0.5)` 31). Measured roughly on the 2-vCPU VM while
 * other processes loaded it (load average ~9), 2 threads against the parallel module on the
 * calling thread alone, runs back to back (medians; `npm run bench:multicore -- --calibrate`
 * measures the break-even again: docs/EXECUTION.md "Threads: measured"):
 * - the light map, memory-bound: 1024 elements 21–40 µs forked vs 5–7 µs alone; 16384: 49 vs 35;
 *   65536 (786k units): 144 vs 135; 262144 (3.1M units): 480–529 vs 538 — it breaks even near
 *   a million units and never gains much (two threads share one memory bus);
 * - the heavy map, compute-bound: 1024 elements (32k units) 36–38 µs vs 17–19; 4096 (127k
 *   units) 57 vs 85; 16384 (508k units) 217–228 vs 399; 65536: 843–852 vs 1634 (1.9×).
 * 2^19 units sits between the two break-evens (~70k units compute-bound, ~1M memory-bound): a
 * compute loop of more than ~17k elements forks at ~1.8×, a streaming loop forks from ~44k
 * elements at a small loss (≤ 10%) until ~200k, and small calls (every example at n ≤ 10^4)
 * stay on the calling thread.
 */
export const DEFAULT_PARALLEL_THRESHOLD = 1 << 19;

/**
 * A mirror of an array that is not shared is made only when the call's work is at least this
 * many times the elements copied (a copy is ~1 element operation per element, and the fork's
 * gain is at best the work divided among the threads).
 */
export const MIRROR_WORK_PER_ELEMENT = 8;

/** A free call is cut into at least this many chunks per thread when its extent allows (load balance: threads run unequally). */
const MIN_CHUNKS_PER_THREAD = 4;
/** …and at most this many: each chunk claim is an atomic add and a call. */
const MAX_CHUNKS_PER_THREAD = 64;
/**
 * The least work of a free call's chunk (~6 µs at 0.2 ns a unit, against a claim's atomic add of
 * ~0.1 µs): smaller chunks only when needed for MIN_CHUNKS_PER_THREAD.
 */
const MIN_CHUNK_WORK = 32768;

/** What the executable shares with every runtime of its parallel module. */
export interface ParallelContext {
  /** Threads a fork uses, the calling thread included (≥ 2 when `module` is set; set when the module loads). */
  threads: number;
  /** Forks only calls whose `extent × work` reaches it (CompileOptions.parallelThreshold). */
  readonly threshold: number;
  /** The module loaded in the pool's workers; null when threads is 1, or after the pool died (reloaded before the next run). */
  module: LoadedModule | null;
}

/**
 * Iterations per chunk of a free (`fixed: false`) call: as small as `MIN_CHUNK_WORK` allows
 * but no more than `MAX_CHUNKS_PER_THREAD` chunks a thread, and small enough for
 * `MIN_CHUNKS_PER_THREAD` when the extent is short (a call that passed the threshold is worth
 * sharing even then). With threshold 0 (tests) the minimum work goes: tiny arrays get tiny chunks.
 */
export function freeChunkLength(extent: number, work: number, threads: number, threshold: number): number {
  const minWork = Math.min(MIN_CHUNK_WORK, threshold / (MIN_CHUNKS_PER_THREAD * threads));
  const byWork = work > 0 ? Math.ceil(minWork / work) : 1;
  const byCount = Math.ceil(extent / (MAX_CHUNKS_PER_THREAD * threads));
  const balanced = Math.ceil(extent / (MIN_CHUNKS_PER_THREAD * threads));
  return Math.max(1, Math.min(balanced, Math.max(byWork, byCount)));
}

/** A caller's array a forking call gets, and the shared mirror it runs on instead. */
interface Mirror {
  readonly original: TypedArray;
  readonly mirror: TypedArray;
  /** Copied back after the fork (an array the call may write). */
  readonly writable: boolean;
}

function isShared(a: TypedArray): boolean {
  return a.buffer instanceof SharedArrayBuffer;
}

export class McRuntime extends Runtime {
  /** This run's entry arrays that generated code only reads (not donated), by identity → flat input index. */
  private readonly readOnly = new Map<TypedArray, number>();
  /** Read-only inputs mirrored this run (each copied once a run). */
  private readonly mirroredInputs = new Map<TypedArray, TypedArray>();
  /** Whether a `par` call of the cluster call under way forked (counted at `leave`). */
  private forked = false;

  constructor(
    tables: RuntimeTables,
    file: SourceFile | undefined,
    maxWhileIterations: number,
    record: RunRecord,
    pool: Pool,
    poisoned: boolean,
    private readonly context: ParallelContext,
    /** The module's work functions (its `fns`), which forked calls run on this thread too. */
    private readonly fns: readonly WorkFunction[],
    chunkLength: number,
    /** Per work function: an owner split's scatter, which a fork cuts into one range per thread (WorkFunctionInfo.wholeSource). */
    private readonly wholeSource: readonly boolean[],
  ) {
    super(tables, file, maxWhileIterations, record, pool, poisoned);
    this.chunkLength = chunkLength;
  }

  /** The run's entry values (`begin`), to tell the inputs a call only reads from those it may write. */
  begin(program: Program, flat: readonly RuntimeValue[]): void {
    this.forked = false;
    this.readOnly.clear();
    this.mirroredInputs.clear();
    let k = 0;
    for (const p of program.params) {
      for (let j = 0; j < p.components.length; j++, k++) {
        const v = flat[k];
        if (p.donated !== true && v !== undefined && v.kind === 'array' && !isShared(v.data)) this.readOnly.set(v.data, k);
      }
    }
  }

  /**
   * A cluster call ends: it counts as parallel (RunRecord `forksAt`) if any of its `par` calls
   * forked (a scan's cluster calls `par` twice, reduce then scan).
   */
  override leave(c: number): void {
    if (this.forked) {
      this.record.data[this.record.forksAt + c]! += 1;
      this.forked = false;
    }
    super.leave(c);
  }

  /** Drops the run's references to the caller's arrays. */
  end(): void {
    this.readOnly.clear();
    this.mirroredInputs.clear();
  }

  override par(c: number, fn: number, extent: number, work: number, fixed: boolean, args: readonly (TypedArray | number)[]): boolean {
    const module = this.context.module;
    const cost = extent * work;
    if (module === null || !(cost >= this.context.threshold)) return false;
    // An owner split forks only when every call is asked to (threshold 0, the tests): each thread
    // walks the whole source, so only the updates divide, and measured it never won here
    // (bench:multicore: scatterExample 0.27× at n = 10^4; a float histogram of 10^6 into 1000
    // bins 2–3× slower on 2 threads). Its results are one thread's either way.
    if (this.wholeSource[fn] === true && this.context.threshold > 0) return false;
    const threads = this.context.threads;
    const length = fixed
      ? this.chunkLength
      : this.wholeSource[fn] === true
        ? Math.ceil(extent / threads)
        : freeChunkLength(extent, work, threads, this.context.threshold);
    if (extent <= length) return false;
    const mirrors = this.mirrorsFor(args, cost);
    if (mirrors === null) return false;
    const f = this.fns[fn];
    if (f === undefined) throw new CompilerBug('runtime', `generated code called unknown work function ${fn}`);
    const shared = mirrors.length === 0 ? args : substitute(args, mirrors);
    this.forked = true;
    try {
      module.run({ fn, extent, chunkLength: length, threads, args: shared }, f, this);
    } catch (e) {
      if (e instanceof ChunkFault) this.rethrow(e, f, shared);
      // The pool is gone with its worker: the executable loads the module on a fresh one before its next run.
      if (e instanceof WorkerDiedError) this.context.module = null;
      throw e;
    }
    for (const m of mirrors) if (m.writable) m.original.set(m.mirror);
    return true;
  }

  /**
   * Throws the diagnostic of the fault's chunk by running it again here (what a sequential run
   * meets first in that chunk). A chunk that does not fault again is a bug: the worker's error
   * is quoted.
   */
  private rethrow(fault: ChunkFault, f: WorkFunction, args: readonly (TypedArray | number)[]): never {
    f(this, fault.lo, fault.hi, fault.chunk, ...args);
    const error = fault.error instanceof Error ? `${fault.error.name}: ${fault.error.message}` : String(fault.error);
    throw new CompilerBug('runtime', `chunk ${fault.chunk} [${fault.lo}, ${fault.hi}) threw on a worker (${error}) but not when run again on the calling thread`);
  }

  /**
   * The mirrors a forking call needs for its arrays that are not shared, or null when copying
   * them costs too much for the call's work (it then runs on the calling thread). An input
   * already mirrored this run costs nothing more.
   */
  private mirrorsFor(args: readonly (TypedArray | number)[], cost: number): Mirror[] | null {
    const need: TypedArray[] = [];
    let copied = 0;
    for (const a of args) {
      if (typeof a === 'number' || isShared(a) || need.includes(a)) continue;
      need.push(a);
      if (!this.mirroredInputs.has(a)) copied += this.readOnly.has(a) ? a.length : 2 * a.length;
    }
    if (need.length === 0) return [];
    if (!(cost >= MIRROR_WORK_PER_ELEMENT * copied)) return null;
    let written = 0;
    return need.map((original): Mirror => {
      const input = this.readOnly.get(original);
      if (input !== undefined) return { original, mirror: this.inputMirror(original, input), writable: false };
      const mirror = this.pooledMirror(`w${written++}`, original);
      mirror.set(original);
      return { original, mirror, writable: true };
    });
  }

  /** Input `k`'s shared copy for this run: copied on first use, on a buffer the pool keeps across runs. */
  private inputMirror(original: TypedArray, k: number): TypedArray {
    let mirror = this.mirroredInputs.get(original);
    if (mirror === undefined) {
      mirror = this.pooledMirror(`i${k}`, original);
      mirror.set(original);
      this.mirroredInputs.set(original, mirror);
    }
    return mirror;
  }

  /** A shared array of `like`'s type and length under `key` in the pool, reused while they match. */
  private pooledMirror(key: string, like: TypedArray): TypedArray {
    const have = this.pool.mirrors.get(key);
    if (have !== undefined && have.length === like.length && have.constructor === like.constructor) return have;
    const elem = elemOfData(like);
    if (elem === null) throw new CompilerBug('runtime', `an argument of a cluster call is a ${like.constructor.name}`);
    const made = allocateArray(elem, like.length, true);
    this.pool.bytes += made.byteLength - (have?.byteLength ?? 0);
    this.poolAllocated += made.byteLength;
    this.pool.mirrors.set(key, made);
    return made;
  }
}

/** `args` with every mirrored array replaced by its mirror. */
function substitute(args: readonly (TypedArray | number)[], mirrors: readonly Mirror[]): (TypedArray | number)[] {
  return args.map((a) => (typeof a === 'number' ? a : (mirrors.find((m) => m.original === a)?.mirror ?? a)));
}
