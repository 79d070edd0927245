// The runtime's public face: compile a program with its plan, run it, emit its JavaScript.

export {
  compileProgram,
  emitJs,
  type ArrayTraffic,
  type ClusterStats,
  type CompileOptions,
  type CompiledProgram,
  type RunOptions,
  type RunResult,
  type RunStats,
} from './executor.js';
export type { Allocation } from './helpers.js';
