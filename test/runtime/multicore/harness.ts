// Shared by the multicore tests: the back end's configurations, and a program lowered and
// planned from source with its inputs in parameter order, for a run through a configuration
// (test/runtime/backends.ts).

import type { SourceFile } from '../../../src/diagnostics/index.js';
import { Compiler, signatureOf } from '../../../src/driver/index.js';
import { interpret } from '../../../src/interp/index.js';
import type { Program } from '../../../src/ir/types.js';
import type { InterfaceValue } from '../../../src/ir/values.js';
import type { Plan, Strategy } from '../../../src/plan/types.js';
import { backendNamed } from '../../../src/runtime/index.js';
import { type BackendConfig, configOf, type ThreadOptions } from '../backends.js';

/** The multicore back end (src/runtime/backends.ts). */
export const multicore = backendNamed('multicore');

/** A multicore configuration: `threads`, the fork threshold 0 (every call of two chunks or more forks), and `more`. */
export function mc(threads: number, more: ThreadOptions = {}): BackendConfig {
  const config = configOf(multicore, { threads, parallelThreshold: 0, ...more });
  return more.chunkLength === undefined ? config : { ...config, name: `${config.name}/chunk ${more.chunkLength}` };
}

export interface Prepared {
  readonly program: Program;
  readonly plan: Plan;
  /** The inputs in the entry's parameter order. */
  readonly inputs: readonly InterfaceValue[];
  readonly file: SourceFile;
}

/** `source` lowered and planned (by `strategy`, default the ILP) for the shapes of `inputs`. */
export async function prepare(source: string, inputs: Readonly<Record<string, InterfaceValue>>, strategy?: Strategy): Promise<Prepared> {
  const compiler = new Compiler(source, { fileName: 'test.fuse', backend: 'js', threads: 1 });
  const signature = signatureOf(compiler.entry, inputs, compiler.file);
  const program = compiler.lower(signature);
  const plan = await compiler.plan(signature, strategy === undefined ? {} : { strategy });
  return { program, plan, inputs: compiler.parameterNames.map((n) => inputs[n]!), file: compiler.file };
}

/** The reference interpreter's values for a prepared program (unique scatters checked). */
export function reference(p: Prepared): InterfaceValue[] {
  return interpret(p.program, p.inputs, { file: p.file, checkUniqueScatters: true });
}

// ---- inputs ------------------------------------------------------------------------------------

/** mulberry32: a seeded source of doubles in [0, 1). */
export function uniform(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function f64Array(data: Float64Array | readonly number[], shape: readonly number[] = [data.length]): InterfaceValue {
  return { kind: 'array', elem: 'f64', shape, data: Float64Array.from(data) };
}

export function i32Array(data: Int32Array | readonly number[], shape: readonly number[] = [data.length]): InterfaceValue {
  return { kind: 'array', elem: 'i32', shape, data: Int32Array.from(data) };
}

export function i32Scalar(value: number): InterfaceValue {
  return { kind: 'scalar', elem: 'i32', value };
}

/** n doubles of both signs whose magnitudes span `decades` decimal exponents (sums that round a lot). */
export function wideDoubles(n: number, seed: number, decades = 30): Float64Array {
  const r = uniform(seed);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = (r() < 0.5 ? -1 : 1) * (1 + r()) * 10 ** Math.floor((r() - 0.5) * decades);
  return out;
}

/** n i32 values over the whole range (sums wrap). */
export function wideInts(n: number, seed: number): Int32Array {
  const r = uniform(seed);
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(r() * 4294967296) | 0;
  return out;
}
