// The runtime's public face: the execution back ends (the boundary, the registry, the
// JavaScript back end), and the JavaScript module a program and plan compile to.

export {
  type ArrayTraffic,
  type Awaitable,
  type ClusterCounts,
  type ClusterStats,
  type CompileOptions,
  type Executable,
  ExecutableDisposedError,
  type ExecutionBackend,
  type RunOptions,
  type RunResult,
  type RunStats,
} from './backend.js';
export { backendNamed, backends, registeredBackends, type BackendName, type RegisteredBackend } from './backends.js';
export { compileProgram, emitJs, jsBackend, type CompiledProgram } from './executor.js';
export { multicoreBackend, type MulticoreBackend, type MulticoreExecutable } from './multicore/backend.js';
export { isWebgpuExecutable, webgpuBackend, type WebgpuExecutable } from './webgpu/backend.js';
export type { KernelReport } from './webgpu/report.js';
export { availableThreads, multicoreAvailable } from './multicore/pool.js';
export { checkThreads, checkTuning, InvalidOptionError, isThreadCount, MAX_THREADS, threadCountOf } from './multicore/options.js';
export type { Allocation } from './helpers.js';
export {
  measureMachine,
  NEAR_ROOF,
  rooflineOf,
  type ClusterRoofline,
  type MachineRates,
  type MeasureOptions,
  type Roofline,
  type RooflineRow,
  type RooflineVerdict,
} from './roofline.js';
