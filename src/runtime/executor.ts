// The JavaScript back end: compiles a program and its plan to JavaScript once, then runs it;
// and the run machinery it shares with the multicore back end (`compileModule`, `moduleRunner`:
// both run a generated `main` on the calling thread, with their own runtime).
//
// `compileProgram` generates the module (codegen/), turns it into a function with `new
// Function` once, and keeps it; the counters variant is generated and compiled the first time
// a run asks for counters. A run checks the inputs against the entry parameters (the
// interpreter's E410–E414, skipped for inputs the driver has checked, `inputsChecked`), calls the generated `main` with the
// runtime helpers, and returns the results with what the run recorded: per-cluster calls (and
// time, when asked), every allocation, and counters — built when first read.
// Everything is synchronous: `CompiledProgram.run` returns its result, not a promise.
//
// Memory: the executable owns a `Pool` (helpers.ts) made on the first run from its memory
// plan's slots and kept until `dispose()`; both variants use it (one memory plan). A run leases
// it (the executable holds none while a run has it), so a run started from inside another, or
// one that throws, cannot leave it half-used: the lease is returned in `finally`, and a run that
// finds no pool makes a temporary one. Each variant keeps one `Runtime` with its record, reset
// per run (leased the same way).

import { CompilerBug } from '../diagnostics/index.js';
import { type GeneratedProgram, generateProgram, readOrderKey } from '../codegen/index.js';
import type { Program } from '../ir/types.js';
import type { ArrayValue, InterfaceValue, RuntimeValue } from '../ir/values.js';
import type { Plan } from '../plan/types.js';
import { planMemory } from '../memory/index.js';
import type { MemoryPlan } from '../memory/types.js';
import type { TypedArray } from '../ir/scalarOps.js';
import { allocationsOf, Pool, type RunRecord, Runtime, runRecord, type RuntimeTables, type WorkFunction } from './helpers.js';
import { checkInputs } from '../interp/index.js';
import { type ClusterFunction, KernelMemory, type KernelStats, wasmApi, wasmCluster, type WasmMode } from './wasm.js';
import {
  type ClusterCounts, type CompileOptions, type Executable, inputsChecked, ExecutableDisposedError, type ExecutionBackend, type RunOptions, type RunResult, type RunStats,
} from './backend.js';
import { elementBytes } from '../ir/scalarOps.js';

/** `CompileOptions.wasm` when not given (docs/EXECUTION.md, "WebAssembly": what the measurements say). */
export const defaultWasmMode: WasmMode = 'auto';

/** The JavaScript back end's executable: runs synchronously, and shows the module it runs. */
export interface CompiledProgram extends Executable {
  /** The generated module (the plain variant). */
  readonly source: string;
  /** Per cluster, what its WebAssembly kernel did (CompileOptions.wasm; empty when `off`). */
  readonly kernelStats: readonly KernelStats[];
  run(inputs: readonly InterfaceValue[], runOptions?: RunOptions): RunResult;
}

type Main = (rt: unknown, inputs: readonly unknown[]) => unknown[];

/** One generated module, compiled: its side tables, `main`, its work functions (parallel variant) and its idle runtime. */
export interface CompiledModule {
  readonly generated: GeneratedProgram;
  readonly tables: RuntimeTables;
  readonly main: Main;
  /** The parallel variant's work functions (`fns`); empty for a sequential module. */
  readonly fns: readonly WorkFunction[];
  /** The module's helper object between runs; null while a run holds it. */
  idle: Runtime | null;
  /** Per cluster, what its WebAssembly kernel did (empty unless the module runs kernels: `wasm`). */
  readonly kernelStats: readonly KernelStats[];
}

/** Which module `compileModule` makes (GenerateOptions), and whether its clusters run as WebAssembly kernels. */
export interface ModuleOptions {
  readonly counters: boolean;
  readonly parallel?: boolean;
  readonly device?: boolean;
  readonly fastMath?: boolean;
  readonly wasm?: WasmMode;
}

/**
 * Generates and compiles one module on the calling thread: the sequential one (the `js` back
 * end, and every back end's counters variant), the parallel one, which also defines `fns`, or
 * the device one (the parallel one with an asynchronous main).
 */
export function compileModule(program: Program, plan: Plan, memory: MemoryPlan, options: ModuleOptions): CompiledModule {
  const { counters, fastMath = false, wasm = 'off' } = options;
  const parallel = options.parallel === true || options.device === true;
  const generated = generateProgram(program, plan, { counters, memory, parallel, device: options.device, fastMath });
  // The text is built from the JS AST by the printer alone; no user text is in it.
  let main: Main;
  let fns: readonly WorkFunction[] = [];
  const kernelStats: KernelStats[] = [];
  if (parallel) ({ main, fns } = new Function(`'use strict';\n${generated.text}return { main, fns };\n`)() as { main: Main; fns: readonly WorkFunction[] });
  else if (wasm === 'off' || counters || wasmApi === null) main = new Function(`'use strict';\n${generated.text}return main;\n`)() as Main;
  else {
    // Each cluster function is rebound, in the module's scope, to its WebAssembly wrapper
    // (runtime/wasm.ts); the names are the generator's own (`c12`), checked again here.
    const kernels = generated.kernels.filter((k) => k !== undefined && /^c[0-9]+$/.test(k.name));
    const rebind = kernels.map((k, j) => `${k.name} = wrap(${j}, ${k.name});\n`).join('');
    const memoryOfKernels = new KernelMemory(wasmApi);
    const wrap = (j: number, fn: ClusterFunction): ClusterFunction => {
      const stats: KernelStats = { wasmCalls: 0, jsCalls: 0, faults: 0, refusal: null };
      kernelStats[Number(kernels[j]!.name.slice(1))] = stats;
      return wasmCluster(kernels[j]!, fn, wasm, memoryOfKernels, stats);
    };
    main = new Function('wrap', `'use strict';\n${generated.text}${rebind}return main;\n`)(wrap) as Main;
  }
  const tables: RuntimeTables = {
    sites: generated.sites,
    slots: generated.slots,
    allocations: generated.allocations,
    clusterCount: generated.clusters.length,
    results: generated.results,
  };
  return { generated, tables, main, fns, idle: null, kernelStats };
}

/** The generated module for a program and plan, for `arrayfuse emit` (memory planned without entry sizes unless given). */
export function emitJs(program: Program, plan: Plan, memory: MemoryPlan = planMemory(program, plan), fastMath = false): string {
  return generateProgram(program, plan, { counters: false, memory, fastMath }).text;
}

/** What a run's stats say besides its record. */
interface RunFacts {
  /** Bytes the run allocated outside allocation sites (the pool's creation, row buffers, partials). */
  readonly extraBytes: number;
  readonly peakBytes: number;
  readonly poolBytes: number;
  readonly threads: number;
  /** How each cluster runs in the executable's ordinary runs (the parallel module's; empty for a sequential one). */
  readonly schedules: GeneratedProgram['schedules'];
}

/**
 * The stats of one run, built when first read from the record its runtime keeps. The runtime
 * is reused by the next run, so before it resets the record it settles the previous run's
 * stats if nobody read them yet (`Runtime.pending`).
 */
class LazyStats {
  private value: RunStats | null = null;

  get read(): boolean {
    return this.value !== null;
  }

  constructor(
    private readonly g: GeneratedProgram,
    private readonly record: RunRecord,
    private readonly counters: boolean,
    private readonly facts: RunFacts,
  ) {}

  get(): RunStats {
    return (this.value ??= stats(this.g, this.record, this.counters, this.facts));
  }
}

/** A run's result: `results`, and `stats` built when first read (a getter on the prototype: no closure per run). */
class JsRunResult implements RunResult {
  readonly #stats: LazyStats;

  constructor(
    readonly results: InterfaceValue[],
    stats: LazyStats,
  ) {
    this.#stats = stats;
  }

  get stats(): RunStats {
    return this.#stats.get();
  }
}

/** The entry values as checkInputs returns them, for inputs the driver has checked (`inputsChecked`). */
function flatten(inputs: readonly InterfaceValue[]): readonly RuntimeValue[] {
  for (let k = 0; k < inputs.length; k++) if (Array.isArray(inputs[k])) return inputs.flatMap((v) => v);
  return inputs as readonly RuntimeValue[];
}

/**
 * What a back end that runs generated modules on the calling thread's `main` tells the shared
 * run machinery (`moduleRunner`): its modules and the runtime each gets.
 */
export interface RunnerSpec {
  /** The back end's registry name (in ExecutableDisposedError). */
  readonly backend: string;
  readonly program: Program;
  readonly memory: MemoryPlan;
  readonly options: CompileOptions;
  /** The module of ordinary runs. */
  readonly plain: CompiledModule;
  /** The counters variant, compiled when a run first asks for counters. */
  counted(): CompiledModule;
  /** Whether the pool's buffers (and so the run's fresh arrays) are SharedArrayBuffers. */
  readonly sharedPool: boolean;
  /** The helper object of `module`'s runs (made once per module and pool lease, reset per run). */
  makeRuntime(module: CompiledModule, record: RunRecord, pool: Pool, poisoned: boolean): Runtime;
  /** Threads a run of `module` may use (RunStats.threads). */
  threadsOf(module: CompiledModule): number;
  /** Called with the run's runtime and entry values before `main`, and after it (in `finally`). */
  begin?(rt: Runtime, flat: readonly RuntimeValue[]): void;
  end?(rt: Runtime): void;
}

/** The compiled state of one executable and its run (see `moduleRunner`). */
export interface ModuleRunner {
  run(inputs: readonly InterfaceValue[], runOptions?: RunOptions): RunResult;
  /**
   * The same run of a module whose `main` is asynchronous (the device variant,
   * codegen/device.ts): `settle` is awaited with main's raw results before they are delivered
   * (the device back end reads its arrays back there).
   */
  runAsync(inputs: readonly InterfaceValue[], runOptions: RunOptions, settle: (rt: Runtime, raw: unknown[]) => Promise<void>): Promise<RunResult>;
  dispose(): void;
  readonly disposed: boolean;
  /** The plain module's text (ExecutableDisposedError once disposed). */
  readonly source: string;
}

/** One run under way: its module, entry values, leased pool and runtime. */
interface RunLease {
  readonly variant: CompiledModule;
  readonly base: CompiledModule;
  readonly counters: boolean;
  readonly flat: readonly RuntimeValue[];
  readonly leased: Pool;
  readonly created: number;
  readonly rt: Runtime;
  readonly out: RunOptions['out'];
}

/**
 * The run machinery every back end that calls a generated `main` on the calling thread shares:
 * input checks, the pool and runtime leases (see the header), `out` delivery and poison checks,
 * results grouped by interface, stats built when first read. Disposing drops the modules (the
 * functions, their optimised code, the side tables and the pool's buffers go to the collector
 * once no run holds them) and makes every later use an `ExecutableDisposedError`.
 */
export function moduleRunner(spec: RunnerSpec): ModuleRunner {
  const { backend, program, memory, options } = spec;
  let plain: CompiledModule | null = spec.plain;
  let counted: CompiledModule | null = null;
  let pool: Pool | null = null;
  const poisoned = options.poisonBuffers === true;
  const live = (what: string): CompiledModule => {
    if (plain === null) throw new ExecutableDisposedError(backend, program.name, what);
    return plain;
  };
  const release = (l: RunLease): void => {
    spec.end?.(l.rt);
    l.variant.idle = l.rt;
    if (plain !== null) pool = l.leased;
  };
  const lease = (inputs: readonly InterfaceValue[], runOptions: RunOptions): RunLease => {
    const base = live('run');
    const counters = runOptions.counters === true;
    const variant = counters ? (counted ??= spec.counted()) : base;
    const flat = runOptions[inputsChecked] === true ? flatten(inputs) : checkInputs(program, inputs, options.file);
    // Lease the pool and the runtime (see the header): a nested or failed run cannot share them.
    let leased = pool;
    pool = null;
    let created = 0;
    if (leased === null) {
      leased = new Pool(memory.slots, spec.sharedPool);
      created = leased.createdBytes;
    }
    let rt = variant.idle;
    variant.idle = null;
    rt ??= spec.makeRuntime(variant, runRecord(variant.tables), leased, poisoned);
    const out = runOptions.out;
    rt.reset(leased, { out, timing: runOptions.timing === true });
    const l: RunLease = { variant, base, counters, flat, leased, created, rt, out };
    try {
      spec.begin?.(rt, flat);
    } catch (e) {
      release(l);
      throw e;
    }
    return l;
  };
  const finish = (l: RunLease, raw: unknown[]): RunResult => {
    const { rt, leased } = l;
    if (l.out !== undefined || poisoned) deliver(program, raw, rt, l.out, poisoned ? leased : null);
    const lazy = new LazyStats(l.variant.generated, rt.record, l.counters, {
      extraBytes: l.created + rt.poolAllocated,
      peakBytes: memory.peakBytes,
      poolBytes: leased.bytes,
      threads: spec.threadsOf(l.variant),
      // A counting run's sequential module has no schedules; the clusters are the plain module's.
      schedules: l.base.generated.schedules,
    });
    rt.pending = lazy;
    return new JsRunResult(groupResults(program, raw), lazy);
  };
  return {
    run(inputs: readonly InterfaceValue[], runOptions: RunOptions = {}): RunResult {
      const l = lease(inputs, runOptions);
      try {
        // Entry values carry `data` and `shape`, or `value`: what `main` reads of an input.
        return finish(l, l.variant.main(l.rt, l.flat) as unknown[]);
      } finally {
        release(l);
      }
    },
    async runAsync(inputs: readonly InterfaceValue[], runOptions: RunOptions, settle: (rt: Runtime, raw: unknown[]) => Promise<void>): Promise<RunResult> {
      const l = lease(inputs, runOptions);
      try {
        const raw = (await l.variant.main(l.rt, l.flat)) as unknown[];
        await settle(l.rt, raw);
        return finish(l, raw);
      } finally {
        release(l);
      }
    },
    dispose(): void {
      plain = null;
      counted = null;
      pool = null;
    },
    get disposed(): boolean {
      return plain === null;
    },
    get source(): string {
      return live('source').generated.text;
    },
  };
}

/**
 * The compiled variants of one program and plan, and the pool their runs share (`moduleRunner`).
 *
 * A plain object over closures: `run` works detached (`const { run } = exe`,
 * `inputs.map(exe.run)`), and the compiled state is hidden (a class would put `run` on its
 * prototype, needing `this`, and show its private fields to spreads and JSON.stringify).
 */
export function compileProgram(program: Program, plan: Plan, options: CompileOptions = {}): CompiledProgram {
  const backend = 'js';
  const memory = options.memory ?? planMemory(program, plan);
  const limit = options.maxWhileIterations ?? Infinity;
  const plain = compileModule(program, plan, memory, { counters: false, fastMath: options.fastMath === true, wasm: options.wasm ?? defaultWasmMode });
  const runner = moduleRunner({
    backend,
    program,
    memory,
    options,
    plain,
    counted: () => compileModule(program, plan, memory, { counters: true, fastMath: options.fastMath === true }),
    sharedPool: false,
    makeRuntime: (module, record, pool, poisoned) => new Runtime(module.tables, options.file, limit, record, pool, poisoned),
    threadsOf: () => 1,
  });
  const executable = {
    backend,
    program,
    plan,
    memory,
    run: runner.run,
    dispose: runner.dispose,
  };
  // `source` and `disposed` read the live state; not enumerable, so that inspecting, comparing
  // or spreading a disposed executable does not throw.
  return Object.defineProperties(executable, {
    source: { get: (): string => runner.source, enumerable: false },
    disposed: { get: (): boolean => runner.disposed, enumerable: false },
    kernelStats: { value: plain.kernelStats, enumerable: false },
  }) as typeof executable & Pick<CompiledProgram, 'source' | 'disposed' | 'kernelStats'>;
}

/**
 * Makes sure every array result given an `out` is in it (a `direct` delivery whose producer
 * was not planned into the result buffer is copied now), and, with poisoned buffers (tests),
 * that no result is one of the pool's buffers: the caller would then share the program's memory.
 */
function deliver(program: Program, raw: unknown[], rt: Runtime, out: readonly (TypedArray | undefined)[] | undefined, pool: Pool | null): void {
  let k = 0;
  for (const iface of program.results) {
    for (const c of iface.components) {
      if (c.kind === 'array') {
        const pair = raw[k] as [TypedArray, number[]];
        const o = out?.[k];
        if (o !== undefined && pair[0] !== o) pair[0] = rt.into(k, o, pair[0]);
        if (pool !== null && pool.owns(pair[0].buffer)) throw new CompilerBug('runtime', `result ${iface.name} is one of the pool's buffers`);
      }
      k++;
    }
  }
}

/** Generated JavaScript run in this thread: the reference back end, and the only one so far. */
export const jsBackend = {
  name: 'js',
  description: 'JavaScript loop nests over typed arrays, compiled with new Function and run in the calling thread',
  compile: compileProgram,
} as const satisfies ExecutionBackend;

function groupResults(program: Program, raw: readonly unknown[]): InterfaceValue[] {
  let next = 0;
  return program.results.map((iface): InterfaceValue => {
    const comps = iface.components.map((c): RuntimeValue => {
      const value = raw[next++];
      if (c.kind === 'scalar') return { kind: 'scalar', elem: c.elem, value: value as number };
      const [data, shape] = value as [ArrayValue['data'], number[]];
      if (shape.length !== c.rank) throw new CompilerBug('runtime', `result ${c.name} has rank ${shape.length}, declared ${c.rank}`);
      return { kind: 'array', elem: c.elem, shape, data };
    });
    return comps.length === 1 ? comps[0]! : comps;
  });
}

function stats(g: GeneratedProgram, record: RunRecord, counters: boolean, facts: RunFacts): RunStats {
  const { extraBytes, peakBytes, poolBytes, threads, schedules } = facts;
  let traffic: Record<string, { reads: Record<string, number>; writes: number }> | null = null;
  if (counters) {
    // Null-prototype records: array names are the user's, and `__proto__` is a fine name.
    traffic = Object.create(null) as Record<string, { reads: Record<string, number>; writes: number }>;
    g.slots.forEach((slot, k) => {
      const t = (traffic![slot.array] ??= { reads: Object.create(null) as Record<string, number>, writes: 0 });
      const n = record.counted(k);
      if (slot.access.kind === 'write') t.writes += n;
      else {
        const key = readOrderKey(slot.access.order);
        t.reads[key] = (t.reads[key] ?? 0) + n;
      }
    });
  }
  const allocations = allocationsOf(g.allocations, record);
  return {
    threads,
    clusters: g.clusters.map((c, k) => ({
      nodes: c.nodes,
      manifest: c.manifest,
      timeMs: record.clusterMs(k),
      runs: record.clusterCalls(k),
      parallelRuns: record.clusterForks(k),
      schedule: schedules[k]?.kind ?? null,
      counts: counters ? clusterCounts(g, record, k) : null,
    })),
    allocations,
    bytesAllocated: allocations.reduce((s, a) => s + a.bytes, extraBytes),
    peakBytes,
    poolBytes,
    counters: traffic,
  };
}

/** What the counters variant counted inside cluster `c` (its slots' counts between its `enter` and `leave`). */
function clusterCounts(g: GeneratedProgram, record: RunRecord, c: number): ClusterCounts {
  let reads = 0;
  let writes = 0;
  let bytesRead = 0;
  let bytesWritten = 0;
  g.slots.forEach((slot, k) => {
    const n = record.countedIn(c, k);
    if (n === 0) return;
    const bytes = n * elementBytes(slot.elem);
    if (slot.access.kind === 'write') {
      writes += n;
      bytesWritten += bytes;
    } else {
      reads += n;
      bytesRead += bytes;
    }
  });
  const ops = record.opsIn(c);
  return { elements: record.pointsIn(c), reads, writes, bytesRead, bytesWritten, memoryBytes: record.memoryBytesIn(c), flops: ops.float, intOps: ops.int };
}
