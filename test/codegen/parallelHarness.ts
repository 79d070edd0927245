// Runs the parallel variant of a generated module (GenerateOptions.parallel) on the calling
// thread, with a runtime whose `rt.par` is as adversarial as a thread pool may be: the chunks of
// every call run in a shuffled order, a fixed call with the chunk length asked for, a free call
// split into random uneven ranges (empty and single-iteration ones included). A fault is thrown
// as the pool does: every chunk runs, then the lowest faulting chunk (by its first iteration) is
// re-run, which must throw again (faults are deterministic) — its diagnostic is the one thrown.
//
// Shared with the multicore back end's and the test helpers' tests: `runParallel` returns the
// results as the js back end groups them, and the module's schedules and work functions.

import type { GeneratedProgram } from '../../src/codegen/index.js';
import { checkInputs } from '../../src/interp/index.js';
import type { TypedArray } from '../../src/ir/scalarOps.js';
import type { Program } from '../../src/ir/types.js';
import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import { planMemory } from '../../src/memory/index.js';
import type { Plan } from '../../src/plan/types.js';
import { compileModule, type CompiledModule } from '../../src/runtime/executor.js';
import { Pool, Runtime, runRecord, type RuntimeTables, type WorkFunction } from '../../src/runtime/helpers.js';
import { seededRng, type Rng } from '../util/index.js';

/** The parallel module compiled as the multicore back end compiles it (executor.ts `compileModule`). */
export function compileParallel(program: Program, plan: Plan): CompiledModule {
  return compileModule(program, plan, planMemory(program, plan), { counters: false, parallel: true });
}

function shuffle<T>(rng: Rng, xs: T[]): T[] {
  for (let k = xs.length - 1; k > 0; k--) {
    const j = rng.int(0, k);
    [xs[k], xs[j]] = [xs[j]!, xs[k]!];
  }
  return xs;
}

/** Random uneven ranges covering [0, extent): cuts anywhere, repeated cuts making empty ranges. */
function randomRanges(rng: Rng, extent: number): [number, number][] {
  const cuts = Array.from({ length: rng.int(0, 6) }, () => rng.int(0, extent));
  if (extent > 1 && rng.int(0, 1) === 1) cuts.push(1, extent - 1);
  cuts.sort((a, b) => a - b);
  const bounds = [0, ...cuts, extent];
  return bounds.slice(1).map((hi, k) => [bounds[k]!, hi]);
}

/** The js runtime with a shuffling `par` (see the header). */
export class ShuffleRuntime extends Runtime {
  /** Every par call: cluster, work function, extent, fixed, the ranges run. */
  readonly calls: { c: number; fn: number; extent: number; fixed: boolean; ranges: [number, number][] }[] = [];

  /** The module's work functions, which this runtime runs itself. */
  fns: readonly WorkFunction[] = [];

  constructor(
    tables: RuntimeTables,
    private readonly rng: Rng,
    chunkLength: number,
  ) {
    super(tables, undefined, Infinity, runRecord(tables), new Pool([]));
    this.chunkLength = chunkLength;
  }

  override par(c: number, fn: number, extent: number, work: number, fixed: boolean, args: readonly (TypedArray | number)[]): boolean {
    const f = this.fns[fn];
    if (f === undefined) throw new Error(`unknown work function ${fn}`);
    if (!(Number.isInteger(extent) && extent >= 0)) throw new Error(`par: extent ${extent}`);
    if (!(work >= 0 && work < Infinity)) throw new Error(`par: work ${work} for cluster ${c}`);
    const L = this.chunkLength;
    const ranges: [number, number][] = fixed
      ? Array.from({ length: Math.ceil(extent / L) }, (_, k) => [k * L, Math.min(extent, (k + 1) * L)])
      : randomRanges(this.rng, extent);
    this.calls.push({ c, fn, extent, fixed, ranges });
    const order = shuffle(this.rng, ranges.map((_, k) => k));
    const faulted: number[] = [];
    for (const k of order) {
      const [lo, hi] = ranges[k]!;
      try {
        f(this, lo, hi, fixed ? k : this.rng.int(0, 1000), ...args);
      } catch {
        faulted.push(k);
      }
    }
    if (faulted.length === 0) return true;
    const lowest = Math.min(...faulted);
    const [lo, hi] = ranges[lowest]!;
    f(this, lo, hi, fixed ? lowest : 0, ...args);
    throw new Error(`par: chunk ${lowest} of cluster ${c} faulted, then ran without a fault`);
  }
}

export interface ParallelRun {
  readonly results: InterfaceValue[];
  readonly generated: GeneratedProgram;
  readonly rt: ShuffleRuntime;
}

/** Runs the parallel module of `program` under `plan` on `inputs` with the shuffling runtime. */
export function runParallel(program: Program, plan: Plan, inputs: readonly InterfaceValue[], options: { readonly chunkLength: number; readonly seed: number }): ParallelRun {
  const { generated, main, fns, tables } = compileParallel(program, plan);
  const rt = new ShuffleRuntime(tables, seededRng(options.seed), options.chunkLength);
  rt.fns = fns;
  const memory = planMemory(program, plan);
  rt.reset(new Pool(memory.slots), { out: undefined, timing: false });
  const raw = main(rt, checkInputs(program, inputs, undefined));
  return { results: groupResults(program, raw), generated, rt };
}

/** `main`'s flat results as interface values (copied out of whatever buffers they are in). */
export function groupResults(program: Program, raw: readonly unknown[]): InterfaceValue[] {
  let next = 0;
  return program.results.map((iface): InterfaceValue => {
    const comps = iface.components.map((c): RuntimeValue => {
      const value = raw[next++];
      if (c.kind === 'scalar') return { kind: 'scalar', elem: c.elem, value: value as number };
      const [data, shape] = value as [TypedArray, number[]];
      return { kind: 'array', elem: c.elem, shape, data: data.slice() };
    });
    return comps.length === 1 ? comps[0]! : comps;
  });
}
