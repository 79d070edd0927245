// The JavaScript back end: compiles a program and its plan to JavaScript once, then runs it.
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
import { allocationsOf, Pool, type RunRecord, Runtime, runRecord, type RuntimeTables } from './helpers.js';
import { checkInputs } from '../interp/index.js';
import {
  type CompileOptions, type Executable, inputsChecked, ExecutableDisposedError, type ExecutionBackend, type RunOptions, type RunResult, type RunStats,
} from './backend.js';

/** The JavaScript back end's executable: runs synchronously, and shows the module it runs. */
export interface CompiledProgram extends Executable {
  /** The generated module (the plain variant). */
  readonly source: string;
  run(inputs: readonly InterfaceValue[], runOptions?: RunOptions): RunResult;
}

type Main = (rt: unknown, inputs: readonly unknown[]) => unknown[];

interface Compiled {
  readonly generated: GeneratedProgram;
  readonly tables: RuntimeTables;
  readonly main: Main;
  /** The variant's helper object between runs; null while a run holds it. */
  idle: Runtime | null;
}

function compile(program: Program, plan: Plan, counters: boolean, memory: MemoryPlan): Compiled {
  const generated = generateProgram(program, plan, { counters, memory });
  // The text is built from the JS AST by the printer alone; no user text is in it.
  const main = new Function(`'use strict';\n${generated.text}return main;\n`)() as Main;
  const tables: RuntimeTables = {
    sites: generated.sites,
    slots: generated.slots,
    allocations: generated.allocations,
    clusterCount: generated.clusters.length,
    results: generated.results,
  };
  return { generated, tables, main, idle: null };
}

/** The generated module for a program and plan, for `arrayfuse emit` (memory planned without entry sizes unless given). */
export function emitJs(program: Program, plan: Plan, memory: MemoryPlan = planMemory(program, plan)): string {
  return generateProgram(program, plan, { counters: false, memory }).text;
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
    private readonly extraBytes: number,
    private readonly peakBytes: number,
    private readonly poolBytes: number,
  ) {}

  get(): RunStats {
    return (this.value ??= stats(this.g, this.record, this.counters, this.extraBytes, this.peakBytes, this.poolBytes));
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
 * The compiled variants of one program and plan, and the pool their runs share. Disposing drops
 * them (the functions, their optimised code, the side tables and the pool's buffers go to the
 * collector once no run holds them) and makes every later use an `ExecutableDisposedError`.
 *
 * A plain object over closures: `run` works detached (`const { run } = exe`,
 * `inputs.map(exe.run)`), and the compiled state is hidden (a class would put `run` on its
 * prototype, needing `this`, and show its private fields to spreads and JSON.stringify).
 */
export function compileProgram(program: Program, plan: Plan, options: CompileOptions = {}): CompiledProgram {
  const backend = 'js';
  const memory = options.memory ?? planMemory(program, plan);
  let plain: Compiled | null = compile(program, plan, false, memory);
  let counted: Compiled | null = null;
  let pool: Pool | null = null;
  const limit = options.maxWhileIterations ?? Infinity;
  const poisoned = options.poisonBuffers === true;
  const live = (what: string): Compiled => {
    if (plain === null) throw new ExecutableDisposedError(backend, program.name, what);
    return plain;
  };
  const executable = {
    backend,
    program,
    plan,
    memory,
    run(inputs: readonly InterfaceValue[], runOptions: RunOptions = {}): RunResult {
      const base = live('run');
      const counters = runOptions.counters === true;
      const variant = counters ? (counted ??= compile(program, plan, true, memory)) : base;
      const flat = runOptions[inputsChecked] === true ? flatten(inputs) : checkInputs(program, inputs, options.file);
      // Lease the pool and the runtime (see the header): a nested or failed run cannot share them.
      let leased = pool;
      pool = null;
      let created = 0;
      if (leased === null) {
        leased = new Pool(memory.slots);
        created = leased.createdBytes;
      }
      let rt = variant.idle;
      variant.idle = null;
      if (rt === null) rt = new Runtime(variant.tables, options.file, limit, runRecord(variant.tables), leased, poisoned);
      const out = runOptions.out;
      rt.reset(leased, { out, timing: runOptions.timing === true });
      try {
        // Entry values carry `data` and `shape`, or `value`: what `main` reads of an input.
        const raw = variant.main(rt, flat);
        if (out !== undefined || poisoned) deliver(program, raw, rt, out, poisoned ? leased : null);
        const lazy = new LazyStats(variant.generated, rt.record, counters, created + rt.poolAllocated, memory.peakBytes, leased.bytes);
        rt.pending = lazy;
        return new JsRunResult(groupResults(program, raw), lazy);
      } finally {
        variant.idle = rt;
        if (plain !== null) pool = leased;
      }
    },
    dispose(): void {
      plain = null;
      counted = null;
      pool = null;
    },
  };
  // `source` and `disposed` read the live state; not enumerable, so that inspecting, comparing
  // or spreading a disposed executable does not throw.
  return Object.defineProperties(executable, {
    source: { get: (): string => live('source').generated.text, enumerable: false },
    disposed: { get: (): boolean => plain === null, enumerable: false },
  }) as typeof executable & Pick<CompiledProgram, 'source' | 'disposed'>;
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

function stats(g: GeneratedProgram, record: RunRecord, counters: boolean, extraBytes: number, peakBytes: number, poolBytes: number): RunStats {
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
    clusters: g.clusters.map((c, k) => ({ nodes: c.nodes, manifest: c.manifest, timeMs: record.clusterMs(k), runs: record.clusterCalls(k) })),
    allocations,
    bytesAllocated: allocations.reduce((s, a) => s + a.bytes, extraBytes),
    peakBytes,
    poolBytes,
    counters: traffic,
  };
}
