// The WebGPU back end: each cluster of the plan one WGSL compute kernel (several for a fold or
// scan: per-chunk partials, their combination, then for a scan the chunks again with their
// carries), run on the device's copies of the arrays, which stay there between clusters and,
// for the pool's arrays, between runs (memory.ts). Main — shapes, sizes, `while` and `if`
// conditions — stays JavaScript on the host (the device variant, codegen/device.ts), reading
// back only what it needs: an element per condition or data-dependent size, the results at the
// end (docs/EXECUTION.md "WebGPU").
//
// Compiling rejects what WGSL cannot run (f64: E680, support.ts), gets the process's device
// (E682 without one, device.ts), and translates and compiles every kernel (kernels.ts).
//
// Run-time faults: a kernel that would raise a diagnostic (an index out of range, a division by
// zero) sets the fault word and stops; the run's next read back sees it, and the whole run is
// done again on the js back end, which raises the interpreter's located diagnostic (or, for a
// fault in elements nobody observes, computes what the js back end computes). The same happens
// when main raises a diagnostic after a kernel faulted unseen: the earlier fault is the one to
// report. Runs of one executable are queued: they share its device memory and fault word.

import type { Program } from '../../ir/types.js';
import type { InterfaceValue, RuntimeValue } from '../../ir/values.js';
import type { TypedArray } from '../../ir/scalarOps.js';
import type { Plan } from '../../plan/types.js';
import { UserError } from '../../diagnostics/index.js';
import { planMemory } from '../../memory/index.js';
import type { MemoryPlan } from '../../memory/types.js';
import { type CompileOptions, type Executable, ExecutableDisposedError, type ExecutionBackend, type RunOptions, type RunResult } from '../backend.js';
import { type CompiledProgram, compileModule, compileProgram, moduleRunner } from '../executor.js';
import { Runtime } from '../helpers.js';
import { checkTuning } from '../multicore/options.js';
import { deviceLost, gpuContext } from './device.js';
import { compileKernels, kernelReports } from './kernels.js';
import type { KernelReport } from './report.js';
import { DeviceFault, DeviceMemory } from './memory.js';
import { type DeviceProgram, GpuRuntime } from './runtime.js';
import { checkWebgpuTypes } from './support.js';
import { defaultLaunchCost } from './cost.js';

/**
 * Iterations per chunk of a fold's or scan's kernel invocation (CompileOptions.chunkLength
 * overrides it): each invocation runs its chunk sequentially, and one invocation then combines
 * the partials, one per chunk: shorter chunks give more parallel invocations and a longer
 * combination.
 */
export const DEFAULT_GPU_CHUNK_LENGTH = 1024;

export interface WebgpuExecutable extends Executable {
  /** The device module's text (main and the work functions the kernels are translated from). */
  readonly source: string;
  /** `vendor architecture` of the adapter (`google swiftshader`). */
  readonly adapter: string;
  /** Each kernel: on the device, or on the host and why. */
  readonly kernels: readonly KernelReport[];
  /** Calls that ran on the host since compiling, by function name (refused kernels, aliased buffers). */
  readonly hostCalls: ReadonlyMap<string, number>;
  /** Runs redone on the js back end after a device fault. */
  readonly cpuReruns: number;
  /** Command submissions since compiling (one per read back). */
  readonly submissions: number;
}

export function isWebgpuExecutable(exe: Executable): exe is WebgpuExecutable {
  return exe.backend === 'webgpu';
}

export async function compileWebgpu(program: Program, plan: Plan, options: CompileOptions = {}): Promise<WebgpuExecutable> {
  const backend = 'webgpu';
  checkWebgpuTypes(program, options.file);
  checkTuning(undefined, options.chunkLength);
  const gpu = await gpuContext();
  const memory: MemoryPlan = options.memory ?? planMemory(program, plan);
  const limit = options.maxWhileIterations ?? Infinity;
  const fastMath = options.fastMath === true;
  const plain = compileModule(program, plan, memory, { counters: false, device: true, fastMath });
  const kernels = await compileKernels(gpu, plain.generated);
  const dp: DeviceProgram = {
    memory: new DeviceMemory(gpu),
    kernels,
    fns: plain.fns,
    workFunctions: plain.generated.workFunctions,
    chunkLength: options.chunkLength ?? DEFAULT_GPU_CHUNK_LENGTH,
    hostCalls: new Map(),
  };
  const runner = moduleRunner({
    backend,
    program,
    memory,
    options,
    plain,
    counted: () => compileModule(program, plan, memory, { counters: true, fastMath }),
    sharedPool: false,
    makeRuntime: (module, record, pool, poisoned) =>
      module === plain ? new GpuRuntime(module.tables, options.file, limit, record, pool, dp) : new Runtime(module.tables, options.file, limit, record, pool, poisoned),
    threadsOf: () => 1,
    begin: (rt) => {
      if (rt instanceof GpuRuntime) rt.begin();
    },
    end: (rt) => {
      if (rt instanceof GpuRuntime) rt.end();
    },
  });
  const settle = async (rt: Runtime, raw: unknown[]): Promise<void> => {
    if (rt instanceof GpuRuntime) await rt.settle(raw);
  };
  // The js back end, compiled at the first fault, redoes a faulted run.
  let cpu: CompiledProgram | null = null;
  let cpuReruns = 0;
  const rerun = (inputs: readonly InterfaceValue[], runOptions: RunOptions): RunResult => {
    cpuReruns++;
    cpu ??= compileProgram(program, plan, { ...options, memory, wasm: 'off' });
    return cpu.run(inputs, runOptions);
  };
  /** Whether a kernel has faulted in the run that just failed (its fault word, read back). */
  const faulted = async (): Promise<boolean> => {
    try {
      await dp.memory.toHost([], true);
      return false;
    } catch (e) {
      if (e instanceof DeviceFault) return true;
      throw e;
    }
  };
  let queue: Promise<unknown> = Promise.resolve();
  // A donated input may be updated in place, on the device and, when main reads it, back into
  // the caller's buffer: a run that faults is redone from a copy taken before it.
  const donated = program.params.flatMap((p, k) => (p.donated === true ? [k] : []));
  const runOnce = async (inputs: readonly InterfaceValue[], runOptions: RunOptions): Promise<RunResult> => {
    if (gpu.lost.reason !== null) throw deviceLost(gpu);
    const saved = donated.flatMap((k) => arraysOf(inputs[k]!)).map((a) => ({ a, copy: a.slice() }));
    try {
      return await runner.runAsync(inputs, runOptions, settle);
    } catch (e) {
      if (e instanceof DeviceFault || (e instanceof UserError && e.diagnostics[0]?.code !== 'E682' && (await faulted()))) {
        for (const { a, copy } of saved) a.set(copy as never);
        return rerun(inputs, runOptions);
      }
      throw e;
    }
  };
  const executable: WebgpuExecutable = {
    backend,
    program,
    plan,
    memory,
    adapter: gpu.adapter,
    kernels: kernelReports(plain.generated, kernels),
    run(inputs: readonly InterfaceValue[], runOptions: RunOptions = {}): Promise<RunResult> {
      if (runner.disposed) return Promise.reject(new ExecutableDisposedError(backend, program.name, 'run'));
      const next = queue.then(() => runOnce(inputs, runOptions));
      queue = next.catch(() => undefined);
      return next;
    },
    dispose(): void {
      if (runner.disposed) return;
      runner.dispose();
      cpu?.dispose();
      void queue.then(() => dp.memory.dispose());
    },
    get disposed(): boolean {
      return runner.disposed;
    },
    get source(): string {
      return runner.source;
    },
    get hostCalls(): ReadonlyMap<string, number> {
      return dp.hostCalls;
    },
    get cpuReruns(): number {
      return cpuReruns;
    },
    get submissions(): number {
      return dp.memory.submissions;
    },
  };
  return executable;
}

/** The typed arrays of an entry value (one per array component). */
function arraysOf(v: InterfaceValue): TypedArray[] {
  const parts: readonly RuntimeValue[] = Array.isArray(v) ? v : [v as RuntimeValue];
  return parts.flatMap((c) => (c.kind === 'array' ? [c.data] : []));
}

export const webgpuBackend = {
  name: 'webgpu',
  description: 'WGSL compute kernels on a WebGPU device (the browser\'s navigator.gpu, or the npm package webgpu in Node), arrays resident on the device',
  compile: compileWebgpu,
  // Plans weigh kernel launches (cost.ts): a default plan here fuses more than a CPU's.
  cost: defaultLaunchCost,
} as const satisfies ExecutionBackend;
