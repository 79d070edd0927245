// singleLoop f32 against the device's bandwidth: one ordinary run (its time includes the
// input's upload and the result's read back, which a real GPU's PCIe link dominates at 10^8),
// and the kernel alone, as the slope of the run time over repetitions of its cluster in a
// `while` (cases.ts repeatedSingleLoop: the counter stays on the host, so the loop is one
// submission with no read back per iteration). The cluster moves 12 bytes per element (xs read
// in order and reversed, the new xs written); the fraction compares that traffic's rate with
// the copy kernel's bandwidth (weights.ts).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Compiler, signatureOf } from '../../src/driver/index.js';
import type { SolverLoader } from '../../src/plan/ilp/solver.js';
import type { Inputs } from '../exec/programs.js';
import { f32Edition, repeatedSingleLoop, singleLoopBytesPerElement, singleLoopInputs } from './cases.js';
import { timeInterleaved, type VariantTiming } from './harness.js';

export interface StreamResult {
  readonly n: number;
  readonly run: VariantTiming;
  readonly repeated: readonly VariantTiming[];
  readonly clusterMs: number | null;
  readonly achievedGBs: number | null;
  readonly copyGBs: number;
  readonly fraction: number | null;
}

async function timedOn(source: string, inputs: Inputs, label: string, solver: SolverLoader) {
  const gpu = new Compiler(source, { fileName: 'singleLoop.fuse', backend: 'webgpu', solver });
  const js = new Compiler(source, { fileName: 'singleLoop.fuse', backend: 'js', solver });
  const signature = signatureOf(gpu.entry, inputs, gpu.file);
  const ordered = gpu.lower(signature).params.map((p) => inputs[p.name]!);
  const jsExe = await js.executable(signature);
  const expected = (await jsExe.run(ordered)).results;
  jsExe.dispose();
  const exe = await gpu.executable(signature);
  return { label, exe, variant: { label, run: async () => (await exe.run(ordered)).results, expected } };
}

export async function measureStream(options: { readonly repoRoot: string; readonly solver: SolverLoader; readonly n: number; readonly copyGBs: number; readonly repetitions: number; readonly minSampleMs: number; readonly log?: (line: string) => void }): Promise<StreamResult> {
  const { n } = options;
  const timing = { repetitions: options.repetitions, minSampleMs: options.minSampleMs, log: options.log };
  const plain = f32Edition(readFileSync(join(options.repoRoot, 'examples/singleLoop.fuse'), 'utf8'));
  const data = singleLoopInputs(n, 0).as!;
  const one = await timedOn(plain, { as: data }, `one run, n = ${n}`, options.solver);
  const [run] = await timeInterleaved([one.variant], timing);
  one.exe.dispose();
  const [short, long] = [2, 12];
  const loops = [await timedOn(repeatedSingleLoop, singleLoopInputs(n, short), `${short} times`, options.solver), await timedOn(repeatedSingleLoop, singleLoopInputs(n, long), `${long} times`, options.solver)];
  const repeated = await timeInterleaved(
    loops.map((l) => l.variant),
    timing,
  );
  for (const l of loops) l.exe.dispose();
  const [a, b] = repeated;
  const clusterMs = a!.ms !== null && b!.ms !== null ? (b!.ms.median - a!.ms.median) / (long - short) : null;
  const achievedGBs = clusterMs !== null && clusterMs > 0 ? (singleLoopBytesPerElement * n) / (clusterMs * 1e6) : null;
  return { n, run: run!, repeated, clusterMs, achievedGBs, copyGBs: options.copyGBs, fraction: achievedGBs === null ? null : achievedGBs / options.copyGBs };
}
