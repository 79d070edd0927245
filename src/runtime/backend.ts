// The execution back-end boundary: what every back end offers the driver and the tests.
//
// A back end compiles a program with its validated plan into an `Executable`, which runs it on
// inputs as often as asked and is disposed when no longer needed. The JavaScript back end
// (executor.ts: loop nests compiled with `new Function`) and the multicore one (multicore/:
// the same loops in chunks on the calling thread and a pool of workers) are in the registry
// (backends.ts); WebGPU and browser back ends implement the same interface and are added there,
// and the differential tests then run them against the reference interpreter without a line of
// test code changed.
//
// Compiling and running may be asynchronous (a GPU pipeline is built and its results read back
// asynchronously; workers answer by message), so both return `Awaitable`. A synchronous back end
// returns plain values: the JavaScript back end's run costs a caller that awaits it one
// microtask, nothing more, and callers that hold its own type (`CompiledProgram`) call it
// synchronously.

import type { Program } from '../ir/types.js';
import type { InterfaceValue } from '../ir/values.js';
import type { Plan } from '../plan/types.js';
import type { SourceFile } from '../diagnostics/index.js';
import type { Allocation } from './helpers.js';
import type { MemoryPlan } from '../memory/types.js';
import type { TypedArray } from '../ir/scalarOps.js';
import type { ClusterSchedule } from '../codegen/program.js';

export type Awaitable<T> = T | Promise<T>;

export interface CompileOptions {
  /** The source the program's spans point into, for error locations. */
  readonly file?: SourceFile;
  /** A `while` that runs more iterations than this fails with E405 (default: no limit). */
  readonly maxWhileIterations?: number;
  /**
   * Where the program's arrays live (src/memory): the driver passes the checked plan for the
   * entry shapes; without one the back end plans memory itself with every size read at run time.
   */
  readonly memory?: MemoryPlan;
  /**
   * Test only (like `verifyEachPass`): every pooled buffer and `out` array is filled with NaN
   * (floats) or 0xDEADBEEF-like bits (integers) each time it is handed to generated code, so a
   * read of stale data from an earlier array or run diverges from the interpreter.
   */
  readonly poisonBuffers?: boolean;
  /**
   * The multicore back end: threads that run a cluster's chunks, the calling thread included
   * (default: the machine's available parallelism). The `js` back end runs on one thread.
   */
  readonly threads?: number;
  /**
   * Multicore, for tests and tuning: a cluster call whose estimated work (iterations × cost per
   * iteration) is below this runs on the calling thread alone (default: measured, see
   * docs/EXECUTION.md "Threads"); 0 forks every call that has two chunks or more.
   */
  readonly parallelThreshold?: number;
  /**
   * Multicore, for tests: iterations per chunk of a loop that carries a value (whole-array
   * folds, scans), whose partial values are combined in chunk order (default 16384). Results
   * depend on it (floats regroup), never on the thread count.
   */
  readonly chunkLength?: number;
  /**
   * Floating-point `+` and `*` folds may be regrouped (docs/LANGUAGE.md, "Floating-point
   * reassociation"; src/codegen/loops/reassociate.ts). Default false: every float result is bit
   * for bit the reference interpreter's.
   */
  readonly fastMath?: boolean;
  /**
   * The `js` back end: run clusters as WebAssembly kernels (docs/EXECUTION.md, "WebAssembly"):
   * `auto` where the measured rule says they are faster, `on` wherever the translator accepts
   * the cluster (tests), `off` never. Results are the same bit for bit. Default: `defaultWasmMode`.
   */
  readonly wasm?: 'auto' | 'on' | 'off';
}

/** The key of RunOptions' internal flag for inputs the driver has already checked. */
export const inputsChecked: unique symbol = Symbol('inputsChecked');

export interface RunOptions {
  /** Count every element read (per array and order) and written; slower. */
  readonly counters?: boolean;
  /**
   * Caller-owned result buffers by flat result component (undefined: a fresh array). Each is
   * checked against the result's element type and size before it is written.
   */
  readonly out?: readonly (TypedArray | undefined)[];
  /**
   * Time every cluster call (`ClusterStats.timeMs`; `performance.now` twice per call, per
   * `while` iteration too). Off: `timeMs` is 0 and a call costs a counter increment. `--stats`
   * turns it on.
   */
  readonly timing?: boolean;
  /**
   * Internal, for the driver: the inputs have just been matched against the exact signature the
   * executable was compiled for (kinds, element types, shapes, tuple arity), so the entry checks
   * (E410–E414) are skipped. Keyed by a symbol the package does not export, so a user of the
   * public API cannot skip the checks by mistake.
   */
  readonly [inputsChecked]?: boolean;
}

/** Elements one array had read, by read order (`0`, `1`, `g<gather id>`, `indexed`, `unordered`), and written. */
export interface ArrayTraffic {
  readonly reads: Readonly<Record<string, number>>;
  readonly writes: number;
}

/**
 * What a counting run (`RunOptions.counters`) counted inside one cluster, summed over its calls
 * (docs/EXECUTION.md, "Roofline per cluster"). The counters variant runs the loop nests as the
 * plan builds them, before any loop optimisation, so these are the program's own counts, the
 * same whichever code shape the plain module runs.
 */
export interface ClusterCounts {
  /** Iterations of the cluster's innermost loops (its points; a rank-0 cluster with no loop has one per call). */
  readonly elements: number;
  /** Array elements loaded (every load of the program's element code, each gather neighbour its own). */
  readonly reads: number;
  /** Array elements stored. */
  readonly writes: number;
  /** Σ elements loaded × their element size in bytes, and the same for stores. */
  readonly bytesRead: number;
  readonly bytesWritten: number;
  /**
   * The bytes the cluster's calls must move between memory and the caches at least, if the
   * caches keep what a call reads: per call and array, its elements read in every order (and,
   * apart, written) but at most the array's length, × the element size. A stencil that reads
   * each element for 27 neighbours moves its grid once; `bytesRead` counts it 27 times.
   */
  readonly memoryBytes: number;
  /** Arithmetic operations whose operands are floating point (f64, f32): +, −, ×, /, //, %, **, comparisons, min, max, each Math call as one. */
  readonly flops: number;
  /** The same over integer and bool operands (index maps' arithmetic included; codegen's own index bookkeeping not). */
  readonly intOps: number;
}

export interface ClusterStats {
  readonly nodes: readonly number[];
  readonly manifest: readonly string[];
  /** Summed over every time the cluster ran (a cluster inside a `while` runs many times). */
  readonly timeMs: number;
  readonly runs: number;
  /** Of `runs`, those whose chunks several threads shared (the multicore back end; 0 elsewhere). */
  readonly parallelRuns: number;
  /**
   * How the multicore back end runs the cluster in its ordinary runs (codegen's ClusterSchedule;
   * a counting run stays on the calling thread whatever it says); null on the js back end.
   */
  readonly schedule: ClusterSchedule['kind'] | null;
  /** What the run counted inside the cluster when it counted (`RunOptions.counters`); null otherwise. */
  readonly counts: ClusterCounts | null;
}

export interface RunStats {
  /** Threads the run's clusters could share, the calling thread included (1: the calling thread alone). */
  readonly threads: number;
  readonly clusters: readonly ClusterStats[];
  /**
   * Per allocation site that allocated this run (a site in a loop sums its iterations): fresh
   * arrays, results, copies, and a pooled slot's growth by the site that outgrew it.
   */
  readonly allocations: readonly Allocation[];
  /**
   * Bytes allocated this run: `allocations` plus the pool's creation (the first run) and its row
   * buffers' growth. From the second run on a program whose sizes do not grow allocates only its
   * results (none with `out`).
   */
  readonly bytesAllocated: number;
  /** The memory plan's peak: Σ bytes of the slots sized at compile time. */
  readonly peakBytes: number;
  /** Σ bytes the executable's pool holds after the run (slots and row buffers). */
  readonly poolBytes: number;
  /** Per array name, when the run counted; null otherwise. */
  readonly counters: Readonly<Record<string, ArrayTraffic>> | null;
}

export interface RunResult {
  readonly results: InterfaceValue[];
  readonly stats: RunStats;
}

/**
 * A program compiled by one back end for one plan. `run` checks its inputs against the entry
 * parameters (the interpreter's E410–E414) and returns the results in the order of
 * `program.results`, or throws the interpreter's diagnostic for a run-time fault.
 */
export interface Executable {
  /** The name of the back end that compiled it (its key in the registry). */
  readonly backend: string;
  readonly program: Program;
  readonly plan: Plan;
  /** The memory plan it allocates from (slots kept across runs until `dispose()`). */
  readonly memory: MemoryPlan;
  run(inputs: readonly InterfaceValue[], options?: RunOptions): Awaitable<RunResult>;
  /**
   * Releases what the executable holds (compiled code, device buffers, workers). Calling it
   * again does nothing; `run` afterwards throws `ExecutableDisposedError`.
   */
  dispose(): void;
  readonly disposed: boolean;
}

/**
 * What a back end tells the planner about its own costs, beyond the default cost function's
 * (docs/PLANNING.md "Costs per back end"). A GPU pays for every kernel launch — a cluster is
 * one — a price a CPU loop nest does not: K, in element transfers. The driver turns it into cost
 * text for a signature (driver/backendCost.ts): the default cost plus K ÷ N per cluster on the
 * longest chain, N the elements of the largest entry array.
 */
export interface BackendCost {
  /**
   * K: one kernel launch costs as much time as reading or writing this many 4-byte elements of
   * device memory (a positive finite number).
   */
  readonly launchElements: number;
  /** Where K comes from: a measurement (its command, device, date) or a published figure and its source. */
  readonly source: string;
}

export interface ExecutionBackend {
  /** The registry key: `js`. */
  readonly name: string;
  /** One line saying where and how the code runs. */
  readonly description: string;
  /**
   * The back end's own costs, which its default plan weighs (the caller's `cost` always wins).
   * Absent: the planner's default (`reads+writes+recompute`), as for the CPU back ends.
   */
  readonly cost?: BackendCost;
  compile(program: Program, plan: Plan, options?: CompileOptions): Awaitable<Executable>;
}

/** Using an executable after `dispose()`: the caller's mistake, said plainly. */
export class ExecutableDisposedError extends Error {
  constructor(backend: string, program: string, what: string) {
    super(`the ${backend} executable of '${program}' was disposed; ${what} needs it compiled again`);
    this.name = 'ExecutableDisposedError';
  }
}
