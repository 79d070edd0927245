// Node's WebGPU for the tests: the optional npm package `webgpu` (Dawn), on this machine's GPU
// or, without one, on the SwiftShader Vulkan driver Debian's chromium package ships (the same
// software adapter the browser tests get). `hasWebgpu()` says whether a device came up; without
// one the WebGPU suites are skipped with a notice, except under CI (`CI` set), where
// .ci/run installs chromium and the Vulkan loader and a missing device is a failure.

import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../../src/diagnostics/index.js';
import { gpuContext } from '../../src/runtime/webgpu/device.js';

/** Chromium's SwiftShader Vulkan driver (apt package chromium). */
export const swiftshaderIcd = '/usr/lib/chromium/vk_swiftshader_icd.json';

let found: Promise<string | null> | null = null;

/** The adapter's `vendor architecture`, or null (with the reason printed) when there is no device. */
export function webgpuAdapter(): Promise<string | null> {
  found ??= (async () => {
    // Before Dawn first loads Vulkan: the software driver where no other is named, and a runtime
    // directory (the loader complains on stderr without one).
    if (process.env.VK_ICD_FILENAMES === undefined && existsSync(swiftshaderIcd)) process.env.VK_ICD_FILENAMES = swiftshaderIcd;
    process.env.XDG_RUNTIME_DIR ??= mkdtempSync(join(tmpdir(), 'arrayfuse-xdg-'));
    try {
      return (await gpuContext()).adapter;
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
      const why = e.diagnostics[0]!.message;
      if (process.env.CI !== undefined) throw new Error(`CI has no WebGPU device for the webgpu back end's tests: ${why}`);
      console.warn(`\n*** WebGPU tests SKIPPED: ${why} ***\n`);
      return null;
    }
  })();
  return found;
}
