// Every kernel of a device module, translated to WGSL (codegen/wgsl) and compiled into a compute
// pipeline when the program is compiled, not at its first run: one per work function (`fns`)
// and one per serial cluster. A function the translator refuses, or whose buffers exceed the
// device's storage bindings, has no pipeline: the runtime runs its JavaScript on the host
// (runtime.ts), and the executable's `kernels` says which and why.

import type { GeneratedProgram } from '../../codegen/program.js';
import { CompilerBug } from '../../diagnostics/index.js';
import type { KernelSource } from '../../codegen/wasm/translate.js';
import { translateWgsl, type WgslKernel, type WgslRole } from '../../codegen/wgsl/translate.js';
import type { GpuContext } from './device.js';
import type { KernelReport } from './report.js';

/** Bindings every kernel has before its arrays: the fault word and the params block. */
const FIXED_BINDINGS = 2;

export interface CompiledKernel {
  readonly kernel: WgslKernel;
  readonly pipeline: GPUComputePipeline;
  readonly layout: GPUBindGroupLayout;
  /** Where in main's argument list (a work function's: after lo, hi, chunk) each of `kernel.buffers` and `kernel.scalars` is. */
  readonly bufferArgs: readonly number[];
  readonly scalarArgs: readonly number[];
}

/** A work function's parameters before those main passes: lo, hi, chunk. */
const WORK_HEAD = 3;

/** One function's kernel, or why it runs on the host. */
export type KernelSlot = { readonly ok: true; readonly compiled: CompiledKernel } | { readonly ok: false; readonly reason: string };

export interface DeviceKernels {
  /** By index in `fns`. */
  readonly work: readonly KernelSlot[];
  /** By cluster number (serial clusters only). */
  readonly serial: ReadonlyMap<number, KernelSlot>;
}


/**
 * One kernel after another: each compile is bracketed by an error scope, and the device's
 * error scopes are a stack, so compiles that overlapped would read each other's errors.
 */
export async function compileKernels(gpu: GpuContext, generated: GeneratedProgram): Promise<DeviceKernels> {
  const work: KernelSlot[] = [];
  for (const [k, src] of generated.workKernels.entries()) work.push(await compileOne(gpu, src, { kind: 'work', partials: generated.workFunctions[k]!.partials }));
  const serial = new Map<number, KernelSlot>();
  for (const [c, s] of generated.schedules.entries()) {
    if (s.kind !== 'serial') continue;
    const src = generated.kernels[c];
    serial.set(c, src === undefined ? { ok: false, reason: 'no kernel source' } : await compileOne(gpu, src, { kind: 'serial' }));
  }
  return { work, serial };
}

export function kernelReports(generated: GeneratedProgram, kernels: DeviceKernels): KernelReport[] {
  const reports: KernelReport[] = kernels.work.map((slot, k) => ({
    name: generated.workFunctions[k]!.name,
    cluster: generated.workFunctions[k]!.cluster,
    device: slot.ok,
    reason: slot.ok ? null : slot.reason,
  }));
  for (const [c, slot] of kernels.serial) reports.push({ name: `c${c}`, cluster: c, device: slot.ok, reason: slot.ok ? null : slot.reason });
  return reports.sort((a, b) => a.cluster - b.cluster);
}

async function compileOne(gpu: GpuContext, src: KernelSource, role: WgslRole): Promise<KernelSlot> {
  const t = translateWgsl(src, role);
  if (!t.ok) return { ok: false, reason: t.reason };
  const kernel = t.kernel;
  const passed = role.kind === 'work' ? src.params.slice(WORK_HEAD) : src.params;
  const position = (param: string): number => {
    const at = passed.indexOf(param);
    if (at < 0) throw new CompilerBug('runtime', `kernel ${src.name} binds ${param}, which main does not pass`);
    return at;
  };
  const bufferArgs = kernel.buffers.map((b) => position(b.param));
  const scalarArgs = kernel.scalars.map((b) => position(b.param));
  const bindings = FIXED_BINDINGS + kernel.buffers.length;
  if (bindings > gpu.limits.maxStorageBuffersPerShaderStage) {
    return { ok: false, reason: `${kernel.buffers.length} arrays and 2 fixed buffers exceed the device's ${gpu.limits.maxStorageBuffersPerShaderStage} storage buffers per kernel` };
  }
  const built = await pipelineFor(gpu, kernel);
  if (!built.ok) return built;
  const { pipeline, layout } = built;
  return { ok: true, compiled: { kernel, pipeline, layout, bufferArgs, scalarArgs } };
}

/** The shader compiler's first error with its line (WGSL the translator made invalid: a bug of ours), else `fallback`. */
async function shaderErrors(module: GPUShaderModule, fallback: string): Promise<string> {
  const info = await module.getCompilationInfo();
  const first = info.messages.find((m) => m.type === 'error');
  return first === undefined ? fallback : `line ${first.lineNum}: ${first.message}`;
}

/**
 * The pipeline of a kernel's WGSL, compiled once per device and text: programs compiled for
 * other sizes, or other programs with the same cluster, share it (a kernel takes its sizes from
 * its params block, so its text rarely depends on them). A compile that failed is cached too.
 */
const pipelines = new WeakMap<GPUDevice, Map<string, Promise<{ ok: true; pipeline: GPUComputePipeline; layout: GPUBindGroupLayout } | { ok: false; reason: string }>>>();

function pipelineFor(gpu: GpuContext, kernel: WgslKernel): Promise<{ ok: true; pipeline: GPUComputePipeline; layout: GPUBindGroupLayout } | { ok: false; reason: string }> {
  let byCode = pipelines.get(gpu.device);
  if (byCode === undefined) pipelines.set(gpu.device, (byCode = new Map()));
  let built = byCode.get(kernel.code);
  if (built === undefined) byCode.set(kernel.code, (built = buildPipeline(gpu, kernel)));
  return built;
}

async function buildPipeline(gpu: GpuContext, kernel: WgslKernel): Promise<{ ok: true; pipeline: GPUComputePipeline; layout: GPUBindGroupLayout } | { ok: false; reason: string }> {
  const device = gpu.device;
  const entries: GPUBindGroupLayoutEntry[] = [
    { binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'storage' } },
    { binding: 1, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'read-only-storage' } },
    ...kernel.buffers.map((b, i): GPUBindGroupLayoutEntry => ({
      binding: FIXED_BINDINGS + i,
      visibility: GPUShaderStage.COMPUTE,
      buffer: { type: b.written || b.atomic ? 'storage' : 'read-only-storage' },
    })),
  ];
  device.pushErrorScope('validation');
  const layout = device.createBindGroupLayout({ entries });
  const module = device.createShaderModule({ code: kernel.code });
  let pipeline: GPUComputePipeline;
  try {
    pipeline = await device.createComputePipelineAsync({
      layout: device.createPipelineLayout({ bindGroupLayouts: [layout] }),
      compute: { module, entryPoint: 'main' },
    });
  } catch (e) {
    await device.popErrorScope();
    return { ok: false, reason: `the device did not compile its WGSL: ${await shaderErrors(module, (e as Error).message)}` };
  }
  const error = await device.popErrorScope();
  if (error !== null) return { ok: false, reason: `the device did not compile its WGSL: ${await shaderErrors(module, error.message)}` };
  return { ok: true, pipeline, layout };
}
