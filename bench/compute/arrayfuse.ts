// arrayfuse as a contender of the compute benchmark: a program compiled once under the ILP plan
// (the default planning options) for ONE thread (the js back end), run on the same inputs call
// after call. Two builds can run side by side: this tree's (src/, through the driver's Compiler,
// whose results come in program order, as the verifiers take them) and, with `--baseline DIR`, an
// earlier arrayfuse checkout's, loaded from its built public API (DIR/dist/index.js: `compile`,
// `execute`; its named results are put back in program order), so "not slower than before" is
// measured interleaved in one process rather than across runs on a shared machine.

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Compiler } from '../../src/driver/index.js';
import type { ClusterStats } from '../../src/runtime/index.js';
import type { SolverLoader } from '../../src/plan/ilp/solver.js';
import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import type { BenchInputs } from '../paper/registry.js';

/** One build of arrayfuse compiling one program. */
export interface ArrayfuseProgram {
  /** Results in the program's order; throws when the fused run fell back to the interpreter. */
  run(inputs: BenchInputs): Promise<readonly InterfaceValue[]>;
  dispose(): Promise<void>;
}

/** This tree's arrayfuse: the driver's Compiler, one thread. */
export class CurrentArrayfuse implements ArrayfuseProgram {
  private readonly compiler: Compiler;

  constructor(repoRoot: string, file: string, solver: SolverLoader) {
    this.compiler = new Compiler(readFileSync(join(repoRoot, file), 'utf8'), { fileName: file, solver, threads: 1 });
  }

  async run(inputs: BenchInputs): Promise<readonly InterfaceValue[]> {
    const e = await this.compiler.execute(inputs);
    if (e.run === undefined) throw new Error(`the fused run fell back to the interpreter (${e.fallback?.message ?? 'no fused run'})`);
    return e.results;
  }

  /** One more run with every cluster timed (what `arrayfuse run --stats` prints). */
  async clusterStats(inputs: BenchInputs): Promise<readonly ClusterStats[]> {
    const e = await this.compiler.execute(inputs, { timing: true });
    if (e.run === undefined) throw new Error('the fused run fell back to the interpreter');
    return e.run.stats.clusters;
  }

  dispose(): Promise<void> {
    return this.compiler.dispose();
  }
}

// ---------------------------------------------------------------------------------------------
// An earlier build, through its public API

type TypedData = Float64Array | Float32Array | Int32Array | Uint32Array | Uint8Array | Int8Array;
type PublicInput = number | { readonly data: TypedData; readonly shape: readonly number[] } | readonly { readonly data: TypedData; readonly shape: readonly number[] }[];
type PublicOutput = number | { readonly data: TypedData; readonly shape: readonly number[] } | readonly PublicOutput[];

/** The part of the public API (src/index.ts) the baseline is driven through. */
interface PublicApi {
  compile(
    source: string,
    options: { fileName?: string; threads?: number },
  ): {
    execute(inputs: Readonly<Record<string, PublicInput>>): Promise<{ results: Record<string, PublicOutput>; fallback?: Error; stats?: unknown }>;
    dispose(): Promise<void>;
  };
}

/** The public API's inputs for the driver's: arrays as `{ data, shape }`, scalars as numbers. */
export function toPublicInputs(inputs: BenchInputs): Record<string, PublicInput> {
  const out: Record<string, PublicInput> = {};
  for (const [name, value] of Object.entries(inputs)) {
    if (Array.isArray(value)) out[name] = (value as readonly RuntimeValue[]).map((c) => ({ data: arrayPart(c, name).data, shape: arrayPart(c, name).shape }));
    else {
      const v = value as RuntimeValue;
      out[name] = v.kind === 'scalar' ? v.value : { data: v.data, shape: v.shape };
    }
  }
  return out;
}

function arrayPart(v: RuntimeValue, name: string): { data: TypedData; shape: readonly number[] } {
  if (v.kind !== 'array') throw new Error(`input ${name}: a tuple of scalars`);
  return { data: v.data, shape: v.shape };
}

function elemOf(data: TypedData): 'f64' | 'f32' | 'i32' | 'u32' | 'bool' {
  if (data instanceof Float64Array) return 'f64';
  if (data instanceof Float32Array) return 'f32';
  if (data instanceof Int32Array) return 'i32';
  if (data instanceof Uint32Array) return 'u32';
  return 'bool';
}

/**
 * The public API's named results as the driver's, in the order they were named (the program's).
 * A scalar's type is not in a public result; the verifiers read only its value (i32 stands in).
 */
export function fromPublicResults(results: Readonly<Record<string, PublicOutput>>): InterfaceValue[] {
  const one = (o: PublicOutput): InterfaceValue => {
    if (typeof o === 'number') return { kind: 'scalar', elem: Number.isInteger(o) ? 'i32' : 'f64', value: o };
    if (Array.isArray(o)) return (o as readonly PublicOutput[]).map((c) => one(c) as RuntimeValue);
    const a = o as { data: TypedData; shape: readonly number[] };
    return { kind: 'array', elem: elemOf(a.data), shape: [...a.shape], data: a.data } as RuntimeValue;
  };
  return Object.values(results).map(one);
}

/** An earlier build's public API, from a checkout whose `npm ci` (or `npm run build`) made dist/. */
export async function loadBaseline(dir: string): Promise<PublicApi> {
  const entry = resolve(dir, 'dist', 'index.js');
  const api = (await import(pathToFileURL(entry).href)) as Partial<PublicApi>;
  if (typeof api.compile !== 'function') throw new Error(`${entry} exports no compile: not an arrayfuse build`);
  return api as PublicApi;
}

export class BaselineArrayfuse implements ArrayfuseProgram {
  private readonly program: ReturnType<PublicApi['compile']>;

  constructor(api: PublicApi, repoRoot: string, file: string) {
    this.program = api.compile(readFileSync(join(repoRoot, file), 'utf8'), { fileName: file, threads: 1 });
  }

  async run(inputs: BenchInputs): Promise<readonly InterfaceValue[]> {
    const e = await this.program.execute(toPublicInputs(inputs));
    if (e.fallback !== undefined) throw new Error(`the baseline's fused run fell back to the interpreter (${e.fallback.message})`);
    return fromPublicResults(e.results);
  }

  dispose(): Promise<void> {
    return this.program.dispose();
  }
}
