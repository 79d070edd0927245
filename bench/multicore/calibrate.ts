// The fork threshold's calibration (`npm run bench:multicore -- --calibrate`): where sharing a
// cluster call with the workers starts to pay on this machine. Three one-cluster programs — a
// light map (one multiply-add per element: memory-bound), a heavy map (transcendentals: compute-
// bound) and a whole-array fold (a loop that carries a value: fixed chunks, partials) — at
// extents 2^10 … 2^22, each compiled for the multicore back end twice from the same plan: with
// the threshold at the call's own work (extent × the cluster's work per iteration, as its
// `rt.par` call passes it: the call forks, chunked as a default threshold of that value would
// chunk it) and with a threshold no call reaches (the same chunked code on the calling thread
// alone), plus the `js` back end for reference. The multicore runs get their input on a
// SharedArrayBuffer, so what is timed is the fork and not the copy of an ordinary input (which
// the back end makes only when the call's work pays for it). Interleaved samples of several
// calls, medians. The break-even extent of a program is the smallest from which the forked run is
// faster at that extent and every larger one; in work units it proposes the default threshold:
// the largest break-even over the programs that broke even (one whose forked run never won — a
// memory-bound loop whose threads share the bandwidth — cannot be helped by any threshold).

import type { InterfaceValue } from '../../src/ir/values.js';
import { generateProgram } from '../../src/codegen/index.js';
import { Compiler, entrySizes, signatureOf } from '../../src/driver/index.js';
import { planMemory } from '../../src/memory/index.js';
import type { SolverLoader } from '../../src/plan/ilp/solver.js';
import type { Executable } from '../../src/runtime/index.js';
import { collectGarbage, summarise, type Summary } from '../memory/harness.js';
import { samplingCalls, warm } from './harness.js';
import { time } from './report.js';
import { agreement, compileFor, flatResults, forksOf, sharedInputs } from './threads.js';

/** The calibration programs: one cluster each. */
export const calibrationPrograms = [
  { id: 'light', what: 'light map (x · 1.5 + 0.25)', source: 'def light(xs):\n  return map(lam x: x * 1.5 + 0.25, xs)\n' },
  { id: 'heavy', what: 'heavy map (sin, cos, exp, sqrt)', source: 'def heavy(xs):\n  return map(lam x: sin(x) * cos(x) + exp(x * 0.001) + sqrt(abs(x)), xs)\n' },
  { id: 'fold', what: 'whole-array fold (+)', source: 'def total(xs):\n  return fold(+, xs)\n' },
] as const;

export type CalibrationProgram = (typeof calibrationPrograms)[number]['id'];

/** A threshold no cluster call of these sizes reaches: the multicore back end never forks. */
export const NEVER_FORK = Number.MAX_SAFE_INTEGER;

export interface CalibrationRow {
  readonly extent: number;
  /** The cluster's work per iteration, read from the parallel module's `rt.par` call (null: not found). */
  readonly workPerIteration: number | null;
  readonly callsPerSample: number;
  /** Whether the forking variant's call forked (a fold of one chunk cannot: the row says nothing). */
  readonly didFork: boolean;
  readonly js: Summary;
  readonly serial: Summary;
  readonly forked: Summary;
}

export interface CalibrationResult {
  readonly program: CalibrationProgram;
  readonly what: string;
  readonly threads: number;
  readonly rows: readonly CalibrationRow[];
  /** The smallest extent from which forking is faster at it and every larger one (null: never). */
  readonly breakEvenExtent: number | null;
  /** The same in work units (null when the extent or the work per iteration is unknown). */
  readonly breakEvenWork: number | null;
}

export interface CalibrationOptions {
  readonly solver: SolverLoader;
  readonly threads: number;
  /** log2 of the smallest and largest extents. */
  readonly fromLog2: number;
  readonly toLog2: number;
  readonly repetitions: number;
  readonly minSampleMs: number;
  readonly programs: readonly CalibrationProgram[];
  readonly log?: (line: string) => void;
}

/** A seeded xorshift32 in [-0.5, 1.5): the same inputs every run. */
function values(n: number, seed: number): Float64Array {
  let s = seed >>> 0 || 1;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    out[i] = (s / 2 ** 32) * 2 - 0.5;
  }
  return out;
}

/**
 * The `work` argument of the first `rt.par(c, fn, extent, work, fixed, args)` call of a parallel
 * module, when it is a number literal (the code generator's per-iteration estimate); null otherwise.
 */
export function workOf(parallelModule: string): number | null {
  const m = /rt\.par\(\s*[^,]+,\s*[^,]+,\s*[^,]+,\s*([0-9.e+-]+)\s*,/.exec(parallelModule);
  if (m === null) return null;
  const w = Number(m[1]);
  return Number.isFinite(w) ? w : null;
}

/** Times the variants interleaved: `repetitions` samples of `calls` calls each, per-call ms. */
async function interleaved(runs: readonly (() => unknown)[], calls: number, repetitions: number): Promise<number[][]> {
  const times = runs.map((): number[] => []);
  for (let rep = 0; rep < repetitions; rep++) {
    for (let k = 0; k < runs.length; k++) {
      const i = (rep + k) % runs.length;
      collectGarbage();
      const t0 = performance.now();
      for (let c = 0; c < calls; c++) await runs[i]!();
      times[i]!.push((performance.now() - t0) / calls);
    }
  }
  return times;
}

async function calibrateOne(p: (typeof calibrationPrograms)[number], options: CalibrationOptions): Promise<CalibrationResult> {
  const log = options.log ?? (() => {});
  const compiler = new Compiler(p.source, { fileName: `${p.id}.fuse`, solver: options.solver });
  const rows: CalibrationRow[] = [];
  for (let k = options.fromLog2; k <= options.toLog2; k++) {
    const extent = 2 ** k;
    const inputs = { xs: { kind: 'array', elem: 'f64', shape: [extent], data: values(extent, 1000 + k) } } satisfies Record<string, InterfaceValue>;
    const signature = signatureOf(compiler.entry, inputs, compiler.file);
    const program = compiler.lower(signature);
    const plan = await compiler.plan(signature);
    const memory = planMemory(program, plan, entrySizes(signature));
    const workPerIteration = workOf(generateProgram(program, plan, { counters: false, memory, parallel: true }).text);
    const compile = (threads: number, parallelThreshold?: number): Promise<Executable> =>
      compileFor(threads, program, plan, { file: compiler.file, memory, tuning: parallelThreshold === undefined ? {} : { parallelThreshold } });
    // Without a work estimate (a module the regex does not read), 0: every call of two chunks forks.
    const exes = [await compile(1), await compile(options.threads, NEVER_FORK), await compile(options.threads, extent * (workPerIteration ?? 0))];
    const ordered = program.params.map((q) => inputs[q.name as 'xs']);
    const shared = sharedInputs(inputs);
    const inputsOf = [ordered, ...[1, 2].map(() => program.params.map((q) => shared[q.name as 'xs']))];
    // Warm-up, checked: the three agree (the fold may regroup against js, never between the two multicore ones).
    const results = [];
    for (const [i, exe] of exes.entries()) results.push(flatResults((await exe.run(inputsOf[i]!)).results));
    for (const [i, r] of results.entries()) {
      const a = agreement(results[i === 2 ? 1 : 0]!, r, i === 2 ? 0 : undefined);
      if (a.wrong !== null || (i === 2 && !a.bitExact)) throw new Error(`calibration ${p.id} at 2^${k}: variant ${i} ${a.wrong ?? 'not bit-exact'}`);
    }
    const calls = await samplingCalls(exes[0]!, ordered, options.minSampleMs);
    for (const [i, exe] of exes.entries()) if (i > 0) await warm(exe, inputsOf[i]!, options.minSampleMs);
    const times = await interleaved(
      exes.map((exe, i) => () => exe.run(inputsOf[i]!)),
      calls,
      options.repetitions,
    );
    const didFork = forksOf((await exes[2]!.run(inputsOf[2]!)).stats).forked > 0;
    for (const exe of exes) exe.dispose();
    const [js, serial, forked] = times.map(summarise) as [Summary, Summary, Summary];
    rows.push({ extent, workPerIteration, callsPerSample: calls, didFork, js, serial, forked });
    log(`  ${p.id} 2^${k}: js ${time(js.median)}, serial ${time(serial.median)}, forked ${time(forked.median)} (${(serial.median / forked.median).toFixed(2)}×)`);
  }
  return { program: p.id, what: p.what, threads: options.threads, rows, ...breakEven(rows) };
}

/**
 * The smallest extent (rows ascending by extent) from which the forked run is faster at it and
 * at every larger one, and that extent's work units; nulls when the largest extent's fork lost.
 * Rows whose call did not fork (too few chunks) say nothing and are passed over.
 */
export function breakEven(rows: readonly Pick<CalibrationRow, 'extent' | 'workPerIteration' | 'didFork' | 'serial' | 'forked'>[]): { breakEvenExtent: number | null; breakEvenWork: number | null } {
  let at: (typeof rows)[number] | null = null;
  const forking = rows.filter((r) => r.didFork);
  for (let i = forking.length - 1; i >= 0 && forking[i]!.forked.median < forking[i]!.serial.median; i--) at = forking[i]!;
  return { breakEvenExtent: at?.extent ?? null, breakEvenWork: at === null || at.workPerIteration === null ? null : at.extent * at.workPerIteration };
}

export async function calibrate(options: CalibrationOptions): Promise<CalibrationResult[]> {
  const out: CalibrationResult[] = [];
  for (const p of calibrationPrograms.filter((x) => options.programs.includes(x.id))) out.push(await calibrateOne(p, options));
  return out;
}

/** The proposed default threshold, and which programs decide it. */
export interface Proposal {
  /** The largest break-even in work units over the programs that broke even (null: none did). */
  readonly threshold: number | null;
  /** The program whose break-even it is. */
  readonly from: CalibrationProgram | null;
  /**
   * Programs whose forked run never won at and above some extent (a memory-bound loop on a
   * machine whose threads share the bandwidth): no threshold keeps their large calls from
   * forking, so they do not bound it.
   */
  readonly neverWon: readonly CalibrationProgram[];
}

/**
 * The proposed default threshold: the largest break-even in work units among the programs that
 * broke even, so that no call of theirs above it forks at a loss.
 */
export function proposedThreshold(results: readonly CalibrationResult[]): Proposal {
  let best: CalibrationResult | null = null;
  for (const r of results) if (r.breakEvenWork !== null && (best === null || r.breakEvenWork > best.breakEvenWork!)) best = r;
  return {
    threshold: best?.breakEvenWork ?? null,
    from: best?.program ?? null,
    neverWon: results.filter((r) => r.breakEvenExtent === null).map((r) => r.program),
  };
}

export function calibrationTable(r: CalibrationResult): string {
  const lines = [
    `| extent | work (extent × ${r.rows[0]?.workPerIteration ?? '?'}) | calls / sample | js (1 thread) | multicore, never forks | multicore, ${r.threads} threads, forks | never ÷ forked |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const row of r.rows) {
    const work = row.workPerIteration === null ? '–' : String(row.extent * row.workPerIteration);
    const gain = `${(row.serial.median / row.forked.median).toFixed(2)}×`;
    lines.push(
      `| 2^${Math.log2(row.extent)} | ${work} | ${row.callsPerSample} | ${time(row.js.median)} | ${time(row.serial.median)} | ${time(row.forked.median)}${row.didFork ? '' : ' (did not fork)'} | ${row.didFork ? gain : '–'} |`,
    );
  }
  return lines.join('\n');
}
