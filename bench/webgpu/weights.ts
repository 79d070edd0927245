// `npm run bench:webgpu -- --weights`: K, what one kernel launch costs in element transfers on
// the adapter at hand (the webgpu back end's planning weight, src/runtime/webgpu/cost.ts).
//
// Both quantities are measured through the back end itself, as slopes, so that what every run
// pays once (uploading the input, the read back, the host's set-up) cancels:
//   chain(k, n): k maps `y = y + 1` over n f32 elements, then a maximum, planned with strategy
//   `none`, so each map is its own cluster — one kernel launch that reads n elements and writes n.
//   launch    = (t(chain(long, 1)) − t(chain(short, 1))) ÷ (long − short)
//   cluster   = (t(chain(long, N)) − t(chain(short, N))) ÷ (long − short)   (a copy kernel of N)
//   element   = (cluster − launch) ÷ 2N     (one 4-byte element read or written)
//   K         = launch ÷ element;  copy bandwidth = 8N bytes ÷ (cluster − launch)
// A "launch" is therefore everything one more cluster costs the back end beyond its memory
// traffic: main's call, the bind group and params buffer, the dispatch, the barrier after it.

import type { InterfaceValue } from '../../src/ir/values.js';
import { Compiler, signatureOf } from '../../src/driver/index.js';
import type { SolverLoader } from '../../src/plan/ilp/solver.js';
import type { Executable } from '../../src/runtime/index.js';
import { timeInterleaved, type VariantTiming } from './harness.js';

/** `k` maps of `y + 1` over an f32 vector, one after another, then their maximum (exact in f32, unlike a sum). */
export function chainSource(k: number): string {
  if (!(Number.isSafeInteger(k) && k >= 1)) throw new RangeError(`chain length: expected a positive integer, got ${k}`);
  const lines = ['def main(xs: f32[n]):'];
  for (let i = 1; i <= k; i++) lines.push(`  y${i} = map(lam x: x + 1.0, ${i === 1 ? 'xs' : `y${i - 1}`})`);
  lines.push(`  return fold(max, 0.0, y${k})`);
  return `${lines.join('\n')}\n`;
}

export interface WeightsOptions {
  readonly solver: SolverLoader;
  /** Elements of the copy clusters (large enough that their traffic dwarfs a launch). */
  readonly copyN: number;
  /** Chain lengths whose difference the slopes are taken over. */
  readonly shortChain: number;
  readonly longChain: number;
  readonly repetitions: number;
  readonly minSampleMs: number;
  readonly log?: (line: string) => void;
}

export interface Weights {
  readonly copyN: number;
  readonly shortChain: number;
  readonly longChain: number;
  /** Medians of the four chains, ms per run. */
  readonly timings: readonly VariantTiming[];
  /** One more 1-element cluster, µs. */
  readonly launchUs: number;
  /** One more copy cluster of copyN elements, µs. */
  readonly copyClusterUs: number;
  /** One 4-byte element read or written, ns. */
  readonly elementNs: number;
  /** The copy cluster's memory traffic (8 bytes per element) over its time without the launch, GB/s. */
  readonly bandwidthGBs: number;
  /** launch ÷ element: the planning weight. Null when a slope is not positive (noise swamped it). */
  readonly launchElements: number | null;
}

/** Inputs of a chain: xs = 0, 1/n, 2/n … (small values: the f32 sum stays exact enough). */
function chainInputs(n: number): Record<string, InterfaceValue> {
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = (i % 1024) / 1024;
  return { xs: { kind: 'array', elem: 'f32', shape: [n], data } };
}

async function compiled(source: string, inputs: Record<string, InterfaceValue>, backend: 'webgpu' | 'js', solver: SolverLoader): Promise<Executable> {
  const c = new Compiler(source, { fileName: 'chain.fuse', backend, solver });
  return c.executable(signatureOf(c.entry, inputs, c.file), { strategy: 'none' });
}

/** Measures K (see the file comment). Runs on the process's WebGPU device. */
export async function measureWeights(options: WeightsOptions): Promise<Weights> {
  const { copyN, shortChain, longChain } = options;
  if (!(longChain > shortChain)) throw new RangeError(`--weights: the long chain (${longChain}) must be longer than the short one (${shortChain})`);
  const cases = [
    { n: 1, k: shortChain },
    { n: 1, k: longChain },
    { n: copyN, k: shortChain },
    { n: copyN, k: longChain },
  ];
  const timings: VariantTiming[] = [];
  // One comparison per size: the 1-element chains take microseconds, the copies milliseconds, and
  // a sample's calls are sized from the first variant of a comparison.
  for (const n of [1, copyN]) {
    const inputs = chainInputs(n);
    const ordered = [inputs.xs!];
    const pair = cases.filter((c) => c.n === n);
    const exes = await Promise.all(pair.map((c) => compiled(chainSource(c.k), inputs, 'webgpu', options.solver)));
    try {
      // Each chain checked against the js back end's run of itself.
      const references = await Promise.all(
        pair.map(async (c) => {
          const js = await compiled(chainSource(c.k), inputs, 'js', options.solver);
          try {
            return (await js.run(ordered)).results;
          } finally {
            js.dispose();
          }
        }),
      );
      options.log?.(`chains of ${pair.map((c) => c.k).join(' and ')} clusters over ${n} element${n === 1 ? '' : 's'} …`);
      const measured = await timeInterleaved(
        pair.map((c, i) => ({ label: `chain ${c.k} × n = ${n}`, run: async () => (await exes[i]!.run(ordered)).results, expected: references[i]! })),
        { repetitions: options.repetitions, minSampleMs: options.minSampleMs, log: options.log },
      );
      timings.push(...measured);
    } finally {
      for (const e of exes) e.dispose();
    }
  }
  const failed = timings.find((t) => t.ms === null);
  if (failed !== undefined) throw new Error(`--weights: ${failed.label} failed: ${failed.error ?? 'no time'}`);
  const median = (i: number): number => timings[i]!.ms!.median;
  const steps = longChain - shortChain;
  const launchMs = (median(1) - median(0)) / steps;
  const clusterMs = (median(3) - median(2)) / steps;
  const trafficMs = clusterMs - launchMs;
  const elementMs = trafficMs / (2 * copyN);
  const launchElements = launchMs > 0 && elementMs > 0 ? launchMs / elementMs : null;
  return {
    copyN,
    shortChain,
    longChain,
    timings,
    launchUs: launchMs * 1e3,
    copyClusterUs: clusterMs * 1e3,
    elementNs: elementMs * 1e6,
    bandwidthGBs: trafficMs > 0 ? (8 * copyN) / (trafficMs * 1e6) : NaN,
    launchElements,
  };
}

/** The row for src/runtime/webgpu/cost.ts's table, as the harness prints it. */
export function weightsRow(adapter: string, w: Weights, command: string, date: string): string {
  const k = w.launchElements === null ? 'null /* a slope was not positive: re-run with more repetitions */' : String(Number(w.launchElements.toPrecision(2)));
  return [
    `{`,
    `  device: ${JSON.stringify(adapter)},`,
    `  launchElements: ${k},`,
    `  source: ${JSON.stringify(`measured: ${command} on ${date.slice(0, 10)} (launch ${w.launchUs.toFixed(2)} µs, element ${w.elementNs.toPrecision(3)} ns, copy ${w.bandwidthGBs.toFixed(1)} GB/s)`)},`,
    `}`,
  ].join('\n');
}
