// Whether this page can run the WebGPU back end: `navigator.gpu` exists (a secure context of a
// browser with WebGPU) and gives an adapter. Chromium without `--enable-unsafe-webgpu` on a
// machine with no GPU has `navigator.gpu` but no adapter ("No available adapters"), so the
// adapter, not the object, is the test. The adapter found here is only described, never used:
// the back end requests its own (an adapter that made a device cannot make another).

/** What the page's adapter says about itself (GPUAdapterInfo), for the page and the tests to show. */
export interface AdapterSummary {
  readonly vendor: string;
  readonly architecture: string;
  readonly device: string;
  readonly description: string;
  /** A software or otherwise limited adapter the browser fell back to (not SwiftShader's own flag). */
  readonly fallback: boolean;
  /** The limits a kernel cares about first: storage buffers per stage and workgroups per dimension. */
  readonly maxStorageBuffersPerShaderStage: number;
  readonly maxComputeWorkgroupsPerDimension: number;
}

/**
 * The adapter `gpu` gives (a page's `navigator.gpu`, undefined where the browser has no WebGPU
 * or the page is not a secure context), described; null when there is none, or when asking
 * failed (a browser may refuse rather than answer null).
 */
export async function webgpuAdapter(gpu: GPU | undefined): Promise<AdapterSummary | null> {
  if (gpu === undefined) return null;
  let adapter: GPUAdapter | null;
  try {
    adapter = await gpu.requestAdapter();
  } catch {
    return null;
  }
  if (adapter === null) return null;
  const { info, limits } = adapter;
  return {
    vendor: info.vendor,
    architecture: info.architecture,
    device: info.device,
    description: info.description,
    fallback: info.isFallbackAdapter ?? false,
    maxStorageBuffersPerShaderStage: limits.maxStorageBuffersPerShaderStage,
    maxComputeWorkgroupsPerDimension: limits.maxComputeWorkgroupsPerDimension,
  };
}

/** `google swiftshader`, or the description when vendor and architecture are blank (some drivers). */
export function adapterName(a: AdapterSummary): string {
  const name = [a.vendor, a.architecture].filter((s) => s !== '').join(' ');
  return name !== '' ? name : a.description !== '' ? a.description : 'unnamed adapter';
}
