// What a webgpu executable says of its kernels: public (WebgpuExecutable.kernels, `--stats`),
// so kept apart from kernels.ts, whose types name WebGPU's own (GPUComputePipeline): a package
// consumer's type check reaches this file, and must not need the WebGPU type declarations.

/** One kernel of an executable: on the device, or on the host and why. */
export interface KernelReport {
  /** `c3`, `c3_reduce`: the function's name in the module. */
  readonly name: string;
  readonly cluster: number;
  /** On the device, or on the host with the reason. */
  readonly device: boolean;
  readonly reason: string | null;
}
