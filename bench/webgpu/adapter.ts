// The benchmark's WebGPU adapter: the process's device (the back end's own, src/runtime/webgpu/
// device.ts), found as the tests find it (SwiftShader's Vulkan driver where no other is named,
// test/webgpu/device.ts), and whether it is a software adapter, whose times are correctness and
// harness checks only.

import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../../src/diagnostics/index.js';
import { gpuContext } from '../../src/runtime/webgpu/device.js';

/** Chromium's SwiftShader Vulkan driver (Debian's chromium package). */
const swiftshaderIcd = '/usr/lib/chromium/vk_swiftshader_icd.json';

export interface BenchAdapter {
  /** `vendor architecture` (`google swiftshader`, `nvidia hopper`). */
  readonly name: string;
  /** A CPU emulation (SwiftShader, llvmpipe, lavapipe) or an adapter that says it is a fallback. */
  readonly software: boolean;
  /** The adapter's description and driver as it reports them (may be empty). */
  readonly description: string;
}

/** Whether an adapter with this name and fallback flag runs on the CPU (pure, for tests). */
export function isSoftwareAdapter(name: string, fallback: boolean): boolean {
  return fallback || /swiftshader|llvmpipe|lavapipe|software|warp/i.test(name);
}

/** The adapter, or the reason there is none (no `webgpu` package, no Vulkan driver, no adapter). */
export async function benchAdapter(): Promise<BenchAdapter | { readonly missing: string }> {
  // Before Dawn first loads Vulkan: the software driver where none is named, and a runtime
  // directory (the Vulkan loader complains on stderr without one).
  if (process.env.VK_ICD_FILENAMES === undefined && existsSync(swiftshaderIcd)) process.env.VK_ICD_FILENAMES = swiftshaderIcd;
  process.env.XDG_RUNTIME_DIR ??= mkdtempSync(join(tmpdir(), 'arrayfuse-xdg-'));
  try {
    const gpu = await gpuContext();
    // The context keeps vendor and architecture only; the adapter itself says whether it is a fallback.
    const adapter = await gpu.gpu.requestAdapter({ powerPreference: 'high-performance' });
    const info = adapter?.info;
    const fallback = (info as { isFallbackAdapter?: boolean } | undefined)?.isFallbackAdapter === true;
    const description = [info?.description, info?.device].filter((s) => s !== undefined && s !== '').join(', ');
    return { name: gpu.adapter, software: isSoftwareAdapter(`${gpu.adapter} ${description}`, fallback), description };
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    return { missing: e.diagnostics[0]!.message };
  }
}

/** The line bench:webgpu prints and exits 0 with when there is no adapter; null when there is one. */
export function skipNotice(found: BenchAdapter | { readonly missing: string }): string | null {
  return 'missing' in found ? `bench:webgpu SKIPPED: no WebGPU adapter here (${found.missing}). Nothing was measured.` : null;
}
