// The JavaScript back end: compiles a program and its plan to JavaScript once, then runs it.
//
// `compileProgram` generates the module (codegen/), turns it into a function with `new
// Function` once, and keeps it; the counters variant is generated and compiled the first time
// a run asks for counters. A run checks the inputs against the entry parameters (the
// interpreter's E410–E414), calls the generated `main` with the runtime helpers, and returns
// the results with what the run recorded: time per cluster, every allocation, and counters.
// Everything is synchronous: `CompiledProgram.run` returns its result, not a promise.

import { CompilerBug } from '../diagnostics/index.js';
import { type GeneratedProgram, generateProgram, readOrderKey } from '../codegen/index.js';
import type { Program } from '../ir/types.js';
import type { ArrayValue, InterfaceValue, RuntimeValue } from '../ir/values.js';
import type { Plan } from '../plan/types.js';
import { planMemory } from '../memory/index.js';
import { allocationCounts, allocationsOf, makeRuntime, type RunRecord } from './helpers.js';
import { checkInputs } from '../interp/index.js';
import {
  type CompileOptions, type Executable, ExecutableDisposedError, type ExecutionBackend, type RunOptions, type RunResult, type RunStats,
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
  readonly main: Main;
}

function compile(program: Program, plan: Plan, counters: boolean): Compiled {
  const generated = generateProgram(program, plan, { counters });
  // The text is built from the JS AST by the printer alone; no user text is in it.
  const main = new Function(`'use strict';\n${generated.text}return main;\n`)() as Main;
  return { generated, main };
}

/** The generated module for a program and plan, for `arrayfuse emit`. */
export function emitJs(program: Program, plan: Plan): string {
  return generateProgram(program, plan, { counters: false }).text;
}

/**
 * The compiled variants of one program and plan. Disposing drops them (the functions, their
 * optimised code and the side tables go to the collector once no run holds them) and makes
 * every later use an `ExecutableDisposedError`.
 *
 * A plain object over closures: `run` works detached (`const { run } = exe`,
 * `inputs.map(exe.run)`), and the compiled state is hidden (a class would put `run` on its
 * prototype, needing `this`, and show its private fields to spreads and JSON.stringify).
 */
export function compileProgram(program: Program, plan: Plan, options: CompileOptions = {}): CompiledProgram {
  const backend = 'js';
  let plain: Compiled | null = compile(program, plan, false);
  let counted: Compiled | null = null;
  const limit = options.maxWhileIterations ?? Infinity;
  const memory = options.memory ?? planMemory(program, plan);
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
      const variant = runOptions.counters === true ? (counted ??= compile(program, plan, true)) : base;
      const g = variant.generated;
      const flat = checkInputs(program, inputs, options.file);
      const record: RunRecord = {
        allocations: allocationCounts(g.allocations.length),
        clusterMs: new Array<number>(g.clusters.length).fill(0),
        clusterCalls: new Array<number>(g.clusters.length).fill(0),
        counts: new Float64Array(g.slots.length),
      };
      const rt = makeRuntime(
        { sites: g.sites, slots: g.slots, allocations: g.allocations, clusterCount: g.clusters.length },
        options.file,
        limit,
        record,
      );
      const raw = variant.main(rt, flat.map((v) => (v.kind === 'scalar' ? { value: v.value } : { data: v.data, shape: v.shape })));
      return { results: groupResults(program, raw), stats: stats(g, record, runOptions.counters === true) };
    },
    dispose(): void {
      plain = null;
      counted = null;
    },
  };
  // `source` and `disposed` read the live state; not enumerable, so that inspecting, comparing
  // or spreading a disposed executable does not throw.
  return Object.defineProperties(executable, {
    source: { get: (): string => live('source').generated.text, enumerable: false },
    disposed: { get: (): boolean => plain === null, enumerable: false },
  }) as typeof executable & Pick<CompiledProgram, 'source' | 'disposed'>;
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

function stats(g: GeneratedProgram, record: RunRecord, counters: boolean): RunStats {
  let traffic: Record<string, { reads: Record<string, number>; writes: number }> | null = null;
  if (counters) {
    // Null-prototype records: array names are the user's, and `__proto__` is a fine name.
    traffic = Object.create(null) as Record<string, { reads: Record<string, number>; writes: number }>;
    g.slots.forEach((slot, k) => {
      const t = (traffic![slot.array] ??= { reads: Object.create(null) as Record<string, number>, writes: 0 });
      const n = record.counts[k]!;
      if (slot.access.kind === 'write') t.writes += n;
      else {
        const key = readOrderKey(slot.access.order);
        t.reads[key] = (t.reads[key] ?? 0) + n;
      }
    });
  }
  const allocations = allocationsOf(g.allocations, record.allocations);
  return {
    clusters: g.clusters.map((c, k) => ({ nodes: c.nodes, manifest: c.manifest, timeMs: record.clusterMs[k]!, runs: record.clusterCalls[k]! })),
    allocations,
    bytesAllocated: allocations.reduce((s, a) => s + a.bytes, 0),
    counters: traffic,
  };
}
