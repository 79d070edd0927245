// What a kernel launch costs on a WebGPU device, in element transfers: the planning weight the
// webgpu back end gives the planner (ExecutionBackend.cost; docs/PLANNING.md "Costs per back
// end"). K = (time of one more cluster of a one-element map) ÷ (time to read or write one
// 4-byte element of device memory), so that a plan trades one kernel launch against K element
// reads and writes.
//
// `npm run bench:webgpu -- --weights` measures K on the adapter at hand (bench/webgpu/weights.ts:
// the slope of run time over a chain of 1-element clusters, and over a chain of large copy
// clusters, both run by this back end) and prints a row for this table. The default row is
// for real GPUs and is a published figure, not a measurement of ours: the machine the back end
// was written on has no GPU, only SwiftShader (a CPU emulation of Vulkan), whose K is listed
// for the record and is not a GPU's. To re-measure on a GPU machine:
//   npm run bench:webgpu -- --weights
// and put its row in `launchCosts` (and, if it is the GPU to optimise for, in `defaultLaunchCost`).

import type { BackendCost } from '../backend.js';

/** A row of the table: K, the device it holds for, and where it comes from. */
export interface LaunchCost extends BackendCost {
  /** The device K was measured on or is quoted for. */
  readonly device: string;
}

/**
 * Known launch prices. Every row says whether it is measured (and how) or quoted (and from
 * where); the back end plans with `defaultLaunchCost`.
 */
export const launchCosts = {
  /**
   * Quoted, for a data-centre GPU: a null kernel launches in about 3 µs on recent NVIDIA hardware
   * and drivers (NVIDIA developer forums, "Too much time for kernel launch latency", 2022:
   * https://forums.developer.nvidia.com/t/too-much-time-for-kernel-launch-latency/233645/3),
   * and an H200 moves 4.8 TB/s (NVIDIA's H200 specification), 0.83 ps per 4-byte element:
   * K = 3 µs ÷ 0.83 ps ≈ 3.6·10^6. WebGPU adds validation and a barrier between dependent
   * dispatches, so a WebGPU launch costs at least this: the figure is a lower bound of K there.
   */
  publishedH200: {
    device: 'NVIDIA H200 (quoted: 3 µs per launch, 4.8 TB/s)',
    launchElements: 3.6e6,
    source: 'published figures: NVIDIA developer forums (null-kernel launch ≈ 3 µs, 2022) and the H200 specification (4.8 TB/s); not measured by arrayfuse',
  },
  /**
   * Measured on SwiftShader (Chromium's Vulkan on the CPU, the only adapter of the machine this
   * back end was written on; 2 shared cores): harness validation, not a GPU's figure.
   */
  swiftshader: {
    device: 'google swiftshader (CPU emulation of Vulkan, 2 shared cores)',
    launchElements: 3.7e3,
    source: 'measured: npm run bench:webgpu -- --weights (chains of 4 and 20 clusters, copies of 2^18 elements, 11 repetitions) on 2026-11-28, twice: K = 3.6e3 and 3.8e3 (launch 131–141 µs, element 37 ns, copy 0.11 GB/s); no GPU on that machine',
  },
} as const satisfies Readonly<Record<string, LaunchCost>>;

/**
 * The launch price the webgpu back end plans with: the quoted data-centre GPU's, since plans are
 * for GPUs (SwiftShader runs for correctness only). Re-measure with `--weights` for another GPU.
 */
export const defaultLaunchCost: LaunchCost = launchCosts.publishedH200;
