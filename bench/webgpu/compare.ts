// One comparison of bench:webgpu: a program (cases.ts) run by several variants — a back end, a
// strategy, a cost — each planned and compiled by the driver as a user's run would be, timed
// interleaved (harness.ts) and checked against the js back end's results of the default plan.

import { availableParallelism } from 'node:os';
import { Compiler, signatureOf } from '../../src/driver/index.js';
import type { SolverLoader } from '../../src/plan/ilp/solver.js';
import type { BlockPlan, Strategy } from '../../src/plan/types.js';
import type { BackendName, Executable } from '../../src/runtime/index.js';
import type { WebgpuExecutable } from '../../src/runtime/webgpu/backend.js';
import type { WebgpuCase } from './cases.js';
import { message, timeInterleaved, type VariantTiming } from './harness.js';

export interface VariantSpec {
  readonly label: string;
  readonly backend: BackendName;
  readonly strategy?: Strategy;
  /** Undefined: the back end's default cost (the GPU-weighted one on webgpu). */
  readonly cost?: string;
}

export interface VariantResult extends VariantTiming {
  readonly backend: BackendName;
  readonly strategy: Strategy;
  /** The cost text the plan was made with. */
  readonly cost: string | null;
  /** Clusters of the plan over every block (a `while` body counted once). */
  readonly clusters: number | null;
  /** webgpu: kernels on the device, and kernels refused (their cluster runs on the host). */
  readonly kernels: number | null;
  readonly refused: number | null;
}

export interface Comparison {
  readonly id: string;
  readonly name: string;
  readonly size: string;
  readonly variants: readonly VariantResult[];
}

export function clusterCount(block: BlockPlan): number {
  let n = block.clusters.length;
  for (const children of Object.values(block.children)) for (const child of children) n += clusterCount(child);
  return n;
}

function isWebgpu(exe: Executable): exe is WebgpuExecutable {
  return exe.backend === 'webgpu';
}

export async function compare(c: WebgpuCase, specs: readonly VariantSpec[], options: { readonly solver: SolverLoader; readonly repetitions: number; readonly minSampleMs: number; readonly log?: (line: string) => void }): Promise<Comparison> {
  const log = options.log ?? (() => {});
  const inputs = c.inputs();
  const reference = new Compiler(c.source, { fileName: `${c.id}.fuse`, backend: 'js', solver: options.solver });
  const signature = signatureOf(reference.entry, inputs, reference.file);
  const ordered = reference.lower(signature).params.map((p) => inputs[p.name]!);
  const refExe = await reference.executable(signature);
  const expected = (await refExe.run(ordered)).results;
  refExe.dispose();

  const compiled: { spec: VariantSpec; exe: Executable | null; error: string | null }[] = [];
  for (const spec of specs) {
    try {
      const threads = spec.backend === 'multicore' ? availableParallelism() : undefined;
      const compiler = new Compiler(c.source, { fileName: `${c.id}.fuse`, backend: spec.backend, threads, solver: options.solver });
      const t0 = performance.now();
      const exe = await compiler.executable(signature, { strategy: spec.strategy, cost: spec.cost });
      log(`  ${spec.label}: planned and compiled in ${(performance.now() - t0).toFixed(0)} ms (cost ${exe.plan.cost})`);
      // A refused kernel's cluster runs on the host (correct, slow): say which and why.
      if (isWebgpu(exe)) for (const k of exe.kernels.filter((x) => !x.device)) log(`    ${k.name} runs on the host: ${k.reason ?? 'no reason given'}`);
      compiled.push({ spec, exe, error: null });
    } catch (e) {
      compiled.push({ spec, exe: null, error: `compile failed: ${message(e)}` });
      log(`  ${spec.label}: compile failed: ${message(e)}`);
    }
  }
  const live = compiled.filter((v) => v.exe !== null);
  const timings = await timeInterleaved(
    live.map((v) => ({ label: v.spec.label, run: async () => (await v.exe!.run(ordered)).results, expected })),
    { repetitions: options.repetitions, minSampleMs: options.minSampleMs, log },
  );
  const variants = compiled.map((v): VariantResult => {
    const t = timings.find((x) => x.label === v.spec.label);
    const exe = v.exe;
    const base = t ?? { label: v.spec.label, runsMs: [], ms: null, error: v.error };
    return {
      ...base,
      backend: v.spec.backend,
      strategy: v.spec.strategy ?? 'ilp',
      cost: exe?.plan.cost ?? null,
      clusters: exe === null ? null : clusterCount(exe.plan.root),
      kernels: exe !== null && isWebgpu(exe) ? exe.kernels.filter((k) => k.device).length : null,
      refused: exe !== null && isWebgpu(exe) ? exe.kernels.filter((k) => !k.device).length : null,
    };
  });
  for (const v of compiled) v.exe?.dispose();
  return { id: c.id, name: c.name, size: c.size, variants };
}
