// The differential tests' view of the back ends: every *configuration* they run under, for
// `describe.each(backends)('$name back end', …)` as jax-js does, and a run that compiles, runs
// once and disposes, awaiting whatever the back end returns (a synchronous back end's values,
// an asynchronous one's promises).
//
// A configuration is a registered back end (src/runtime/backends.ts) with the compile options
// it runs under: every registered back end with its defaults, except `js`, which also runs as
// `js+wasm` (every cluster the WebAssembly translator accepts run as a kernel), and `multicore`, which runs as
// `multicore@2` and `multicore@3` (2 and 3 threads, the fork threshold at 0 so
// that the tests' tiny arrays really are split between threads; 3 threads on this 2-core machine
// is slow but must be right). Their chunk length stays the default (16384): every test array is
// one chunk, so float folds and scans are bit-identical to the interpreter's left-to-right order
// and every body keeps its exact comparison (test/runtime/multicore covers small chunks, with a
// tolerance for floats).

import type { Program } from '../../src/ir/types.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import type { Plan } from '../../src/plan/types.js';
import {
  type BackendName, type CompileOptions, type Executable, type ExecutionBackend, registeredBackends, type RunOptions, type RunResult,
} from '../../src/runtime/index.js';

/** The tuning options a configuration sets (the back ends' CompileOptions and the driver's CompilerOptions both have them). */
export interface ThreadOptions {
  readonly threads?: number;
  readonly parallelThreshold?: number;
  readonly chunkLength?: number;
  /** The `js` back end's WebAssembly kernels (CompileOptions.wasm). */
  readonly wasm?: 'auto' | 'on' | 'off';
}

/** One configuration the differential tests run under. */
export interface BackendConfig {
  /** `js`, `multicore@2`, …: the back end's name, and `@threads` where it runs on several. */
  readonly name: string;
  readonly backend: ExecutionBackend;
  /** Merged into every ExecutionBackend.compile of this configuration (see `compileOn`). */
  readonly options: ThreadOptions;
  /** For the public `compile` and the driver's `Compiler`: the back end's name and the tuning. */
  readonly api: { readonly backend: BackendName } & ThreadOptions;
}

/** The multicore configurations: thread counts the tests run it with. */
export const multicoreThreads = [2, 3] as const;

/** A configuration of `backend` with `options` (named `name@threads` when it sets threads). */
export function configOf(backend: ExecutionBackend, options: ThreadOptions = {}): BackendConfig {
  const threads = options.threads === undefined ? backend.name : `${backend.name}@${options.threads}`;
  const name = options.wasm === 'on' ? `${threads}+wasm` : threads;
  return { name, backend, options, api: { backend: backend.name as BackendName, ...options } };
}

function allConfigs(): BackendConfig[] {
  const configs: BackendConfig[] = [];
  for (const backend of registeredBackends as readonly ExecutionBackend[]) {
    if (backend.name === 'js') {
      configs.push(configOf(backend, { wasm: 'off' }));
      // Every cluster the translator accepts runs as a WebAssembly kernel (docs/EXECUTION.md, "WebAssembly").
      configs.push(configOf(backend, { wasm: 'on' }));
    } else if (backend.name === 'webgpu') {
      // f32/i32/u32/bool only (WGSL has no f64), on a device that may be missing: its own suites (test/webgpu, test/web).
      continue;
    } else if (backend.name !== 'multicore') configs.push(configOf(backend));
    else for (const threads of multicoreThreads) configs.push(configOf(backend, { threads, parallelThreshold: 0 }));
  }
  return configs;
}

/**
 * Every configuration: a back end added to the registry is tested by these bodies (the
 * multicore one under its thread counts).
 */
export const backends: readonly BackendConfig[] = allConfigs();

/** Compiles `program` for `plan` under `config` (the caller's options win over the configuration's). */
export async function compileOn(config: BackendConfig, program: Program, plan: Plan, options: CompileOptions = {}): Promise<Executable> {
  return await config.backend.compile(program, plan, { ...config.options, ...options });
}

/** Compiles `program` for `plan` under `config`, runs it once on `inputs`, and disposes it. */
export async function runOn(
  config: BackendConfig,
  program: Program,
  plan: Plan,
  inputs: readonly InterfaceValue[],
  options: CompileOptions & RunOptions = {},
): Promise<RunResult> {
  const exe = await compileOn(config, program, plan, options);
  try {
    return await exe.run(inputs, options);
  } finally {
    exe.dispose();
  }
}
