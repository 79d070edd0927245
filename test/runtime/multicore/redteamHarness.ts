// The red team's harness for the multicore back end: a program and its inputs compiled as the
// driver compiles them (its plan and memory plan), run on the js back end and on the multicore
// back end over the real process-wide thread pool (acquirePool) at threads 1, 2 and 3 with the
// fork threshold 0 and several chunk lengths, and compared: integers, bools and free loops bit
// for bit against js; regrouped floats bit for bit across thread counts (the chunk length is
// what decides them) and close to js; a fault gives js's diagnostic.

import { expect } from 'vitest';
import { Compiler, signatureOf } from '../../../src/driver/index.js';
import { UserError } from '../../../src/diagnostics/index.js';
import type { TypedArray } from '../../../src/ir/scalarOps.js';
import type { ScalarType } from '../../../src/ir/types.js';
import type { InterfaceValue, RuntimeValue } from '../../../src/ir/values.js';
import { createSolverLoader } from '../../../src/plan/ilp/solver.js';
import { compileMulticore, type MulticoreExecutable } from '../../../src/runtime/multicore/backend.js';
import { acquirePool } from '../../../src/runtime/multicore/pool.js';
import type { CompileOptions, Executable, RunOptions, RunResult } from '../../../src/runtime/index.js';
import { expectCloseValues, expectSameValues } from '../equal.js';

export const solver = createSolverLoader();

export function arr(elem: ScalarType, shape: readonly number[], f: (i: number) => number, buffer?: (bytes: number) => ArrayBufferLike): RuntimeValue {
  const n = shape.reduce((a, b) => a * b, 1);
  const make = {
    f64: Float64Array,
    f32: Float32Array,
    i32: Int32Array,
    u32: Uint32Array,
    u8: Uint8Array,
    i8: Int8Array,
    bool: Uint8Array,
  }[elem];
  const data: TypedArray = buffer === undefined ? new make(n) : new make(buffer(n * make.BYTES_PER_ELEMENT) as ArrayBuffer);
  for (let i = 0; i < n; i++) data[i] = f(i);
  return { kind: 'array', elem, shape, data };
}

export function sc(elem: ScalarType, value: number): RuntimeValue {
  return { kind: 'scalar', elem, value };
}

export interface Prepared {
  readonly compiler: Compiler;
  readonly js: Executable;
  readonly ordered: InterfaceValue[];
}

export async function prepare(source: string, inputs: Readonly<Record<string, InterfaceValue>>): Promise<Prepared> {
  const compiler = new Compiler(source, { solver });
  const signature = signatureOf(compiler.entry, inputs, compiler.file);
  const js = await compiler.executable(signature);
  return { compiler, js, ordered: js.program.params.map((p) => inputs[p.name]!) };
}

export async function multicore(p: Prepared, threads: number, options: CompileOptions = {}): Promise<MulticoreExecutable> {
  return compileMulticore(
    p.js.program,
    p.js.plan,
    { file: p.compiler.file, memory: p.js.memory, threads, parallelThreshold: 0, ...options },
    (t) => acquirePool(t),
  );
}

export async function outcome(exe: Executable, inputs: readonly InterfaceValue[], options: RunOptions = {}): Promise<{ result?: RunResult; error?: unknown }> {
  try {
    return { result: await exe.run(inputs, options) };
  } catch (error) {
    return { error };
  }
}

/**
 * A deep copy of the inputs (a run must not be able to change the next run's inputs); `shared`:
 * on SharedArrayBuffers, which every call forks on (a call copies other inputs to shared mirrors
 * only when its work pays for the copy).
 */
export function copyInputs(vs: readonly InterfaceValue[], shared = false): InterfaceValue[] {
  const copy = (a: TypedArray): TypedArray => {
    if (!shared) return a.slice();
    const C = a.constructor as new (b: SharedArrayBuffer) => TypedArray;
    const b = new C(new SharedArrayBuffer(Math.max(8, a.byteLength)));
    const view = b.subarray(0, a.length);
    view.set(a);
    return view;
  };
  const one = (v: RuntimeValue): RuntimeValue => (v.kind === 'array' ? { ...v, data: copy(v.data) } : v);
  return vs.map((v) => (Array.isArray(v) ? (v as RuntimeValue[]).map(one) : one(v as RuntimeValue)));
}

/** Float results within a loose tolerance of js (regrouped sums: 1e-6 relative, 1e-6 near 0); integers and bools exact. */
export function expectClose(actual: readonly InterfaceValue[], expected: readonly InterfaceValue[], label: string): void {
  expectCloseValues(actual, expected, label, { rel: 1e-6, abs: 1e-6 });
}

export interface CheckOptions {
  /** Chunk lengths to compile with (undefined: the default). */
  readonly chunks?: readonly (number | undefined)[];
  readonly threads?: readonly number[];
  /** Floats are not regrouped (or regroup exactly): bit for bit js at every chunk length. */
  readonly exact?: boolean;
  readonly runs?: number;
}

/**
 * The program on js and on multicore at every thread count and chunk length: the same results
 * (see the header), or the same diagnostic.
 */
export async function check(source: string, inputs: Readonly<Record<string, InterfaceValue>>, options: CheckOptions = {}): Promise<void> {
  const p = await prepare(source, inputs);
  const js = await outcome(p.js, copyInputs(p.ordered));
  for (const chunkLength of options.chunks ?? [1, 2, 3, 7, undefined]) {
    let first: readonly InterfaceValue[] | null = null;
    for (const threads of options.threads ?? [1, 2, 3]) {
      const exe = await multicore(p, threads, { chunkLength });
      try {
        for (let run = 0; run < (options.runs ?? 2); run++) {
          const label = `chunk ${chunkLength} threads ${threads} run ${run}${run % 2 === 1 ? ' (shared inputs)' : ''}`;
          const got = await outcome(exe, copyInputs(p.ordered, run % 2 === 1));
          if (js.error !== undefined) {
            expect(got.error, `${label}: js threw ${String(js.error)}`).toBeInstanceOf(UserError);
            expect((got.error as UserError).message, label).toBe((js.error as UserError).message);
            continue;
          }
          if (got.error !== undefined) throw got.error;
          const results = got.result!.results;
          if (options.exact === true || chunkLength === undefined) expectSameValues(results, js.result!.results, label);
          else expectClose(results, js.result!.results, label);
          if (first === null) first = results;
          else expectSameValues(results, first, `${label} against the first thread count`);
        }
      } finally {
        exe.dispose();
      }
    }
  }
}
