// The code generator's public face: a program and its plan → a JavaScript module.

export {
  generateProgram, type AllocationSite, type ClusterInfo, type ClusterSchedule, type GeneratedProgram, type GenerateOptions, type ResultSite,
  type WorkFunctionInfo,
} from './program.js';
export { type CounterSlot, type ErrorSite, type ReadOrder, readOrderKey } from './sites.js';
export { printNumber } from './printer.js';
export { type RuntimeHelpers, workerHelpers } from './runtimeHelpers.js';
