// The measurement of one program at one size: the fused code under each strategy's plan, the
// hand-written loop, and (optionally) the reference interpreter, timed INTERLEAVED: every
// repetition runs each variant once, starting at a different variant each time, so drift on a
// shared machine (other jobs, GC pressure, thermal state) hits every variant alike. Each run
// starts after a full garbage collection (node --expose-gc), so the arrayBuffers delta of a run
// is what it allocated. The warm-up run and the last timed run of every variant are checked bit
// for bit against the hand loop; a mismatch fails the benchmark. The `parallel` variant (the
// ILP plan on the multicore back end, `--threads`) may regroup a whole-array float fold, so its
// floats are checked within bench/multicore's tolerance instead (integers still bit for bit).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Compiler, signatureOf } from '../../src/driver/index.js';
import { interpret } from '../../src/interp/index.js';
import { compileProgram } from '../../src/runtime/index.js';
import type { SolverLoader } from '../../src/plan/ilp/solver.js';
import type { Strategy } from '../../src/plan/types.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import type { ExecProgram, HandResult, Inputs } from './programs.js';
import { agreement, agreementText, compileFor } from '../multicore/threads.js';

/** `parallel`: the ILP plan's code on the multicore back end at `MeasureOptions.threads`. */
export type VariantId = Strategy | 'hand' | 'interpreter' | 'parallel';

export const strategies: readonly Strategy[] = ['ilp', 'greedy-down', 'greedy-up', 'none'];

export interface VariantResult {
  readonly id: VariantId;
  readonly runsMs: readonly number[];
  readonly medianMs: number;
  /** Bytes of arrays one run allocated, from RunStats (fused variants only). */
  readonly bytesAllocated: number | null;
  /** The largest single allocation of a run (fused variants only). */
  readonly largestAllocation: number | null;
  /** Median growth of process.memoryUsage().arrayBuffers over one run, after a full GC. */
  readonly arrayBuffersDelta: number;
  /** Clusters of the plan (fused variants only). */
  readonly clusters: number | null;
}

export interface Measurement {
  readonly program: string;
  readonly size: string;
  readonly elements: number;
  readonly repetitions: number;
  readonly variants: readonly VariantResult[];
}

export interface MeasureOptions {
  readonly repoRoot: string;
  readonly solver: SolverLoader;
  readonly repetitions: number;
  readonly variants: readonly VariantId[];
  /** Threads of the `parallel` variant (≥ 2; the multicore back end must be registered). */
  readonly threads?: number;
  readonly log?: (line: string) => void;
}

interface RunOutcome {
  results: HandResult;
  bytes: number | null;
  largest: number | null;
}

interface Runner {
  readonly id: VariantId;
  readonly clusters: number | null;
  /** Synchronous but for `parallel` (the multicore back end's run may return a promise). */
  run(): RunOutcome | Promise<RunOutcome>;
  /** Releases what the variant holds (the multicore executable's module in the workers). */
  dispose?(): void;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run node with --expose-gc (npm run bench:exec does)');
  // Twice: V8 frees array buffers of a collection by a concurrent sweep, which the next
  // collection completes first; otherwise a previous variant's buffers could be freed during
  // the next run and show up as a negative arrayBuffers delta.
  gc();
  gc();
}

/** The results of a run as hand loops return them: typed arrays and numbers. */
function flatten(results: readonly InterfaceValue[]): HandResult {
  return results.map((r) => {
    if (Array.isArray(r)) throw new Error('tuple results are not used by the benchmark programs');
    const v = r as { kind: 'array'; shape: readonly number[]; data: Float64Array | Int32Array } | { kind: 'scalar'; value: number };
    if (v.kind === 'scalar') return v.value;
    // A fold to one value is a rank-0 array; the hand loops return it as a number.
    return v.shape.length === 0 ? v.data[0]! : v.data;
  });
}

/** Null when `got` equals `want` bit for bit, else where they first differ. */
export function compareResults(want: HandResult, got: HandResult): string | null {
  if (want.length !== got.length) return `${got.length} results, expected ${want.length}`;
  for (let r = 0; r < want.length; r++) {
    const w = want[r]!;
    const g = got[r]!;
    if (typeof w === 'number' || typeof g === 'number') {
      if (!Object.is(w, g)) return `result ${r}: ${String(g)}, expected ${String(w)}`;
      continue;
    }
    if (w.length !== g.length) return `result ${r}: ${g.length} elements, expected ${w.length}`;
    for (let i = 0; i < w.length; i++) {
      if (!Object.is(w[i], g[i])) return `result ${r}[${i}]: ${g[i]}, expected ${w[i]}`;
    }
  }
  return null;
}

async function runners(program: ExecProgram, inputs: Inputs, options: MeasureOptions): Promise<Runner[]> {
  const source = readFileSync(join(options.repoRoot, program.file), 'utf8');
  const compiler = new Compiler(source, { fileName: program.file, solver: options.solver });
  const signature = signatureOf(compiler.entry, inputs, compiler.file);
  const lowered = compiler.lower(signature);
  const ordered = lowered.params.map((p) => inputs[p.name]!);
  const out: Runner[] = [];
  for (const id of options.variants) {
    if (id === 'parallel') {
      // The very plan the ILP variant runs (the Compiler caches it), on the multicore back end.
      const plan = await compiler.plan(signature, { strategy: 'ilp', cost: 'reads+writes' });
      const exe = await compileFor(options.threads ?? 2, lowered, plan, { file: compiler.file });
      out.push({
        id,
        clusters: plan.root.clusters.length,
        async run() {
          const r = await exe.run(ordered);
          const largest = r.stats.allocations.reduce((m, a) => Math.max(m, a.largestBytes), 0);
          return { results: flatten(r.results), bytes: r.stats.bytesAllocated, largest };
        },
        dispose: () => exe.dispose(),
      });
    } else if (id === 'hand') {
      out.push({ id, clusters: null, run: () => ({ results: program.hand(inputs), bytes: null, largest: null }) });
    } else if (id === 'interpreter') {
      out.push({ id, clusters: null, run: () => ({ results: flatten(interpret(lowered, ordered, { file: compiler.file })), bytes: null, largest: null }) });
    } else {
      // The JavaScript back end itself, whose run is synchronous: the timing loop calls it directly.
      const exe = compileProgram(lowered, await compiler.plan(signature, { strategy: id, cost: 'reads+writes' }), { file: compiler.file });
      const clusters = exe.plan.root.clusters.length;
      out.push({
        id,
        clusters,
        run() {
          const r = exe.run(ordered);
          const largest = r.stats.allocations.reduce((m, a) => Math.max(m, a.largestBytes), 0);
          return { results: flatten(r.results), bytes: r.stats.bytesAllocated, largest };
        },
      });
    }
  }
  return out;
}

/** Plans, compiles and times one program on `inputs` under every requested variant. */
export async function measure(program: ExecProgram, size: string, elements: number, inputs: Inputs, options: MeasureOptions): Promise<Measurement> {
  const log = options.log ?? (() => {});
  const expected = program.hand(inputs);
  const all = await runners(program, inputs, options);
  const check = (r: Runner, results: HandResult): void => {
    const close = r.id === 'parallel' ? agreement(expected, results) : null;
    const wrong = close === null ? compareResults(expected, results) : close.wrong === null ? null : agreementText(close);
    if (wrong !== null) throw new Error(`${program.name} (${size}) under ${r.id}: ${wrong}`);
  };
  // One checked warm-up per variant: V8 compiles the generated code and the hand loop.
  for (const r of all) check(r, (await r.run()).results);
  const times = new Map<VariantId, number[]>(all.map((r) => [r.id, []]));
  const deltas = new Map<VariantId, number[]>(all.map((r) => [r.id, []]));
  const bytes = new Map<VariantId, { bytes: number | null; largest: number | null }>();
  for (let rep = 0; rep < options.repetitions; rep++) {
    for (let k = 0; k < all.length; k++) {
      const r = all[(rep + k) % all.length]!;
      collectGarbage();
      const before = process.memoryUsage().arrayBuffers;
      const t0 = performance.now();
      const out = await r.run();
      const ms = performance.now() - t0;
      deltas.get(r.id)!.push(process.memoryUsage().arrayBuffers - before);
      times.get(r.id)!.push(ms);
      bytes.set(r.id, { bytes: out.bytes, largest: out.largest });
      if (rep === options.repetitions - 1) check(r, out.results);
    }
  }
  for (const r of all) r.dispose?.();
  const variants = all.map((r): VariantResult => {
    const runsMs = times.get(r.id)!;
    const b = bytes.get(r.id)!;
    return {
      id: r.id,
      runsMs,
      medianMs: median(runsMs),
      bytesAllocated: b.bytes,
      largestAllocation: b.largest,
      arrayBuffersDelta: median(deltas.get(r.id)!),
      clusters: r.clusters,
    };
  });
  log(`${program.name} (${size}): ${variants.map((v) => `${v.id} ${v.medianMs.toFixed(2)} ms`).join(', ')}`);
  return { program: program.name, size, elements, repetitions: options.repetitions, variants };
}
