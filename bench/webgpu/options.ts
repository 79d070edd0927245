// bench:webgpu's command line, parsed without running anything (tested in
// test/bench/webgpuOptions.test.ts): the mode (`--weights` or the default comparisons), the
// parts and programs, and the sizes — each either given or left to the adapter: a real GPU gets
// the sizes, a software adapter (SwiftShader) small ones, for correctness only.

import { Command, Option } from 'commander';
import { listOf, nonNegative, positiveInt } from '../cli.js';

export type Part = 'stream' | 'apps' | 'strategies' | 'weighting';
export const parts: readonly Part[] = ['stream', 'apps', 'strategies', 'weighting'];

export interface BenchOptions {
  readonly weights: boolean;
  readonly parts: readonly Part[];
  /** Program ids for apps, strategies and weighting (undefined: the adapter's default set). */
  readonly programs: readonly string[] | undefined;
  readonly repetitions: number;
  readonly minSampleMs: number;
  /** Sizes: undefined where the adapter decides (sizesFor). */
  readonly streamN: number | undefined;
  readonly exampleN: number | undefined;
  readonly flashN: number | undefined;
  readonly mgN: number | undefined;
  readonly out: string;
}

/** Sizes after the adapter has decided what was not given. */
export interface Sizes {
  readonly streamN: number;
  /** Elements of the copy clusters that measure bandwidth and K. */
  readonly copyN: number;
  readonly exampleN: number;
  readonly flashN: number;
  readonly mgN: number;
  /** The default program set of apps, strategies and weighting. */
  readonly programs: readonly string[];
}

/** The sizes on a GPU; on a software adapter, sizes that finish in minutes (correctness only). */
export function sizesFor(o: BenchOptions, software: boolean): Sizes {
  const streamN = o.streamN ?? (software ? 1 << 18 : 100_000_000);
  return {
    streamN,
    copyN: Math.min(streamN, software ? 1 << 18 : 1 << 26),
    exampleN: o.exampleN ?? (software ? 10_000 : 10_000_000),
    flashN: o.flashN ?? (software ? 128 : 4096),
    mgN: o.mgN ?? (software ? 32 : 256),
    // MG's many kernels take minutes each to compile on SwiftShader: asked for by name only there.
    programs: o.programs ?? (software ? ['flash', 'singleLoop', 'simple1', 'greedyBottomUpBad'] : ['flash', 'mg', 'singleLoop', 'simple1', 'greedyBottomUpBad', 'gather', 'simple5']),
  };
}

export function benchCommand(): Command {
  return new Command('bench:webgpu')
    .description('the webgpu back end: launch and bandwidth weights, singleLoop against bandwidth, FlashAttention and MG against multicore, strategies and cost weightings on the GPU (docs/EXECUTION.md "WebGPU: measured")')
    .option('--weights', 'measure K, the launch price in element transfers, and print a row for src/runtime/webgpu/cost.ts', false)
    .addOption(new Option('--parts <names>', `comma-separated: ${parts.join(', ')}`).argParser(listOf(parts)).default([...parts], 'all four'))
    .option('--programs <ids>', 'comma-separated: flash, mg, or an example name (default: by adapter; mg only on a GPU)', (t: string) => t.split(',').map((s) => s.trim()).filter((s) => s !== ''))
    .option('--repetitions <k>', 'timed samples per variant', positiveInt, 7)
    .option('--min-sample-ms <ms>', 'a timed sample repeats a short run until it lasts this long', nonNegative, 50)
    .option('--stream-n <elements>', 'singleLoop (and the copy kernel): elements (default 10^8 on a GPU, 2^18 on a software adapter)', positiveInt)
    .option('--example-n <elements>', 'examples: elements (default 10^7 on a GPU, 10^4 on a software adapter)', positiveInt)
    .option('--flash-n <rows>', 'FlashAttention: rows n, d = 64, blocks of 64 (default 4096 on a GPU, 128 on a software adapter)', positiveInt)
    .option('--mg-n <side>', 'MG: grid side, nit = 4 (default 256, class A, on a GPU; 32 on a software adapter)', positiveInt)
    .option('--out <dir>', 'results directory', 'bench/results/webgpu');
}

/** The options of a command line (argv without node and the script); commander's usage errors throw. */
export function parseBenchOptions(args: readonly string[]): BenchOptions {
  const cli = benchCommand().exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  cli.parse([...args], { from: 'user' });
  const o = cli.opts<{ weights: boolean; parts: Part[]; programs?: string[]; repetitions: number; minSampleMs: number; streamN?: number; exampleN?: number; flashN?: number; mgN?: number; out: string }>();
  return {
    weights: o.weights,
    parts: o.parts,
    programs: o.programs,
    repetitions: o.repetitions,
    minSampleMs: o.minSampleMs,
    streamN: o.streamN,
    exampleN: o.exampleN,
    flashN: o.flashN,
    mgN: o.mgN,
    out: o.out,
  };
}
