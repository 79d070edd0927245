// The applications' memory: NAS MG class W and LULESH -s 10 (bench/programs; inputs and
// verification from the paper harness, bench/paper/registry.ts), compiled once under the ILP
// plan, then run repeatedly through Compiler.execute. Per run after the first: the bytes of
// arrays it allocated (RunStats.bytesAllocated: with buffers kept across runs, the steady state
// allocates only the fresh results the caller gets), its time, minor page faults and kernel
// time; for the process: peak RSS (resourceUsage().maxRSS; run.ts measures each application in
// a child process of its own, so one's peak is not another's). Every run is verified.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Compiler, signatureOf } from '../../src/driver/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import type { RunStats } from '../../src/runtime/index.js';
import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import type { OutArray, OutArrays } from '../../src/runtime/outputs.js';
import { builtinPrograms, type BenchSize } from '../paper/registry.js';
import { collectGarbage, summarise, type Summary } from './harness.js';

export type AppName = 'mg' | 'lulesh';
export const appNames: readonly AppName[] = ['mg', 'lulesh'];

/** `full`: MG class W, LULESH -s 10 (the sizes); `quick`: the paper harness's smoke sizes. */
export type AppSize = 'quick' | 'full';

export interface AppRun {
  readonly ms: number;
  readonly bytesAllocated: number;
  readonly allocations: number;
  readonly minorFaults: number;
  readonly systemMs: number;
}

export interface AppResult {
  readonly app: AppName;
  readonly label: string;
  /** The first run, lowering, planning and compiling included. */
  readonly firstRunMs: number;
  readonly firstBytesAllocated: number;
  readonly runs: readonly AppRun[];
  readonly ms: Summary;
  /** Median over the runs after the first. */
  readonly bytesAllocated: number;
  readonly minorFaults: number;
  readonly systemMs: number;
  /** The memory plan's peak (Executable.memory.peakBytes) and slots. */
  readonly planPeakBytes: number;
  readonly slots: number;
  readonly dynamicSlots: number;
  /** The bytes the executable's pool holds after the last run (RunStats.poolBytes). */
  readonly poolBytes: number;
  /** process.resourceUsage().maxRSS at the end, bytes. */
  readonly maxRssBytes: number;
}

function sizeOf(app: AppName, size: AppSize): { file: string; size: BenchSize } {
  const name = app === 'mg' ? 'Multigrid' : 'LULESH';
  const program = builtinPrograms.find((p) => p.name === name);
  if (program === undefined) throw new Error(`bench/paper/registry.ts has no ${name}`);
  const sizes = program.sizes[size];
  // MG's full sizes are class S then class W; the issue measures class W.
  const chosen = app === 'mg' && size === 'full' ? sizes.find((s) => s.label.startsWith('class W')) : sizes[0];
  if (chosen === undefined) throw new Error(`${name} has no ${size} size`);
  return { file: program.file, size: chosen };
}

export async function measureApp(repoRoot: string, app: AppName, size: AppSize, runs: number): Promise<AppResult> {
  const { file, size: benchSize } = sizeOf(app, size);
  const inputs = benchSize.inputs();
  const verify = benchSize.verifier(inputs);
  const compiler = new Compiler(readFileSync(join(repoRoot, file), 'utf8'), { fileName: file, solver: createSolverLoader() });
  const check = (results: readonly InterfaceValue[]): void => {
    const wrong = verify(results);
    if (wrong !== null) throw new Error(`${app} (${benchSize.label}): ${wrong}`);
  };
  let t0 = performance.now();
  const first = await compiler.execute(inputs);
  const firstRunMs = performance.now() - t0;
  check(first.results);
  if (first.run === undefined) throw new Error(`${app}: the fused run fell back to the interpreter`);
  const exe = await compiler.executable(signatureOf(compiler.entry, inputs, compiler.file));
  // Later runs write their results into the caller's arrays (`out`, reused run after run), as
  // a time-stepping caller would: what a run then allocates is the program's own memory alone.
  const outArrays = resultArrays(first.program.results.map((r) => r.name), first.results);
  const out: AppRun[] = [];
  let last: RunStats = first.run.stats;
  for (let r = 0; r < runs; r++) {
    collectGarbage();
    const u0 = process.resourceUsage();
    t0 = performance.now();
    const e = await compiler.execute(inputs, { out: outArrays });
    const ms = performance.now() - t0;
    const u1 = process.resourceUsage();
    check(e.results);
    if (e.run === undefined) throw new Error(`${app}: the fused run fell back to the interpreter`);
    last = e.run.stats;
    out.push({
      ms,
      bytesAllocated: last.bytesAllocated,
      allocations: last.allocations.reduce((n, a) => n + a.count, 0),
      minorFaults: u1.minorPageFault - u0.minorPageFault,
      systemMs: (u1.systemCPUTime - u0.systemCPUTime) / 1000,
    });
  }
  await compiler.dispose();
  const med = (f: (r: AppRun) => number): number => summarise(out.map(f)).median;
  return {
    app,
    label: benchSize.label,
    firstRunMs,
    firstBytesAllocated: first.run.stats.bytesAllocated,
    runs: out,
    ms: summarise(out.map((r) => r.ms)),
    bytesAllocated: med((r) => r.bytesAllocated),
    minorFaults: med((r) => r.minorFaults),
    systemMs: med((r) => r.systemMs),
    planPeakBytes: exe.memory.peakBytes,
    slots: exe.memory.slots.length,
    dynamicSlots: exe.memory.dynamicSlots,
    poolBytes: last.poolBytes,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}

/** An `out` array of the same class and shape for every array result (scalars have none). */
function resultArrays(names: readonly string[], results: readonly InterfaceValue[]): OutArrays {
  const arrays: Record<string, OutArray | OutArray[]> = {};
  results.forEach((value, k) => {
    const parts: readonly RuntimeValue[] = Array.isArray(value) ? value : [value as RuntimeValue];
    const copies = parts.flatMap((p): OutArray[] => (p.kind === 'array' ? [{ data: p.data.slice(), shape: p.shape }] : []));
    if (copies.length !== parts.length) return;
    arrays[names[k]!] = Array.isArray(value) ? copies : copies[0]!;
  });
  return arrays;
}
