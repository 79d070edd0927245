// Where the WebGPU back end gets its device: the page's `navigator.gpu` in a browser, the npm
// package `webgpu` (Dawn; an optional dependency, imported only when a program first asks for
// this back end) in Node. One device per process, shared by every executable, requested with
// the adapter's own limits (the defaults allow 8 storage buffers per kernel; adapters usually
// allow more). A host without either, or whose adapter request gives nothing, gets E682 saying
// what is missing; the next request tries again.
//
// In Node on a machine without a GPU, Dawn needs a Vulkan driver: a software one such as
// SwiftShader works (point VK_ICD_FILENAMES at its ICD file; docs/EXECUTION.md "WebGPU").

import { userError } from '../../diagnostics/index.js';

/** The device and what the back end needs to know of it. */
export interface GpuContext {
  /**
   * The GPU object the device came from, held for as long as the device: Dawn's Node binding
   * tears its instance down when that object is collected, and the process then aborts at the
   * next use of the device (seen with webgpu 0.6.2).
   */
  readonly gpu: GPU;
  readonly device: GPUDevice;
  /** Set when the device is lost (a driver reset, the page's GPU process gone): why. The next compile asks for a new one. */
  readonly lost: { reason: string | null };
  /** The adapter's vendor and architecture, for stats and docs (`google swiftshader`). */
  readonly adapter: string;
  readonly limits: {
    readonly maxStorageBufferBindingSize: number;
    readonly maxBufferSize: number;
    readonly maxStorageBuffersPerShaderStage: number;
    readonly maxComputeWorkgroupsPerDimension: number;
  };
}

let pending: Promise<GpuContext> | null = null;

/** The process's WebGPU device (E682 when there is none). */
export function gpuContext(): Promise<GpuContext> {
  pending ??= requestContext().catch((e: unknown) => {
    pending = null;
    throw e;
  });
  return pending;
}

/** Whether this host could have a WebGPU device: a browser's `navigator.gpu`, or Node (the `webgpu` package may be installed). */
export function webgpuConceivable(): boolean {
  return browserGpu() !== null || isNode();
}

function browserGpu(): GPU | null {
  const nav = (globalThis as { navigator?: { gpu?: GPU } }).navigator;
  return nav?.gpu ?? null;
}

function isNode(): boolean {
  const p = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof p?.versions?.node === 'string';
}

async function requestContext(): Promise<GpuContext> {
  const gpu = browserGpu() ?? (isNode() ? await nodeGpu() : null);
  if (gpu === null) throw userError('E682', 'no WebGPU here: this page has no navigator.gpu (a browser with WebGPU enabled, on a secure page, has one); use the js back end');
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (adapter === null) {
    throw userError(
      'E682',
      'no WebGPU adapter: the WebGPU implementation found no GPU (in Node without a GPU, point VK_ICD_FILENAMES at a software Vulkan driver such as SwiftShader; docs/EXECUTION.md "WebGPU"); use the js or multicore back end',
    );
  }
  const l = adapter.limits;
  const limits = {
    maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
    maxBufferSize: l.maxBufferSize,
    maxStorageBuffersPerShaderStage: l.maxStorageBuffersPerShaderStage,
    maxComputeWorkgroupsPerDimension: l.maxComputeWorkgroupsPerDimension,
  };
  const device = await adapter.requestDevice({ requiredLimits: limits });
  const info = adapter.info;
  const lost: { reason: string | null } = { reason: null };
  void device.lost.then((i) => {
    lost.reason = i.message || i.reason || 'unknown';
    pending = null;
  });
  return { gpu, device, lost, adapter: `${info.vendor} ${info.architecture}`.trim() || 'unknown', limits };
}

/** Node: the `webgpu` package's GPU object (its globals, GPUBufferUsage and the rest, installed once). */
async function nodeGpu(): Promise<GPU> {
  let mod: { create(flags: string[]): GPU; globals: object };
  try {
    // A variable specifier: bundlers for the browser must not try to resolve a Node-only package.
    const name = 'webgpu';
    mod = (await import(/* @vite-ignore */ name)) as typeof mod;
  } catch (e) {
    throw userError('E682', `the WebGPU back end in Node needs the npm package 'webgpu' (an optional dependency of arrayfuse: npm install webgpu): ${(e as Error).message}`);
  }
  for (const [k, v] of Object.entries(mod.globals)) if (!(k in globalThis)) (globalThis as Record<string, unknown>)[k] = v;
  return mod.create([]);
}

/** E682 for a device that was lost while a program used it. */
export function deviceLost(ctx: GpuContext): Error {
  return userError('E682', `the WebGPU device was lost (${ctx.lost.reason ?? 'unknown'}); compile the program again for a new one, or use the js or multicore back end`);
}
