// The measurement of one program of the multicore benchmark: ONE plan (the driver's default ILP
// plan and its memory plan for the entry sizes) compiled for 1 thread (the `js` back end, what
// `threads: 1` runs) and for each requested thread count (the `multicore` back end), each run
// on ordinary inputs (ArrayBuffer-backed: what users pass by default) and, when asked, on the
// same values on SharedArrayBuffers (the zero-copy path for workers).
//
// Timing is INTERLEAVED as in bench:exec and bench:memory: every repetition runs each variant
// once, starting at a different variant each time, after a full garbage collection, so drift
// on a shared machine hits every variant alike. A program whose run is short is timed in
// samples of several calls (`callsPerSample`, fixed per program from a warm run so a sample
// takes at least `minSampleMs`) and reported per call.
//
// Checks: the warm-up and the last timed sample of every variant are verified against the
// program's reference (cases.ts), compared with the 1-thread result (bit for bit, or floats
// within FLOAT_TOLERANCE where a whole-array fold regroups: the float policy), and every
// multicore variant with every other bit for bit (results depend on the chunk length, never on
// the thread count or on where the inputs live). A failed check fails that variant, reported.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Compiler, entrySizes, signatureOf } from '../../src/driver/index.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { planMemory } from '../../src/memory/index.js';
import type { SolverLoader } from '../../src/plan/ilp/solver.js';
import type { BlockPlan } from '../../src/plan/types.js';
import type { Executable } from '../../src/runtime/index.js';
import { collectGarbage, summarise, type Summary } from '../memory/harness.js';
import type { MulticoreCase } from './cases.js';
import { agreement, compileFor, flatResults, forksOf, sharedInputs, type Agreement, type FlatResults, type Forks, type ParallelTuning } from './threads.js';

/** One way to run the program: a thread count, and where the inputs live. */
export interface VariantSpec {
  readonly threads: number;
  /** The inputs' arrays on SharedArrayBuffers. */
  readonly shared: boolean;
}

export function variantId(v: VariantSpec): string {
  return `${v.threads}t${v.shared ? '-shared' : ''}`;
}

export function variantLabel(v: VariantSpec): string {
  return `${v.threads} thread${v.threads === 1 ? '' : 's'}${v.shared ? ', shared inputs' : ''}`;
}

export interface VariantResult {
  readonly id: string;
  readonly label: string;
  readonly threads: number;
  readonly shared: boolean;
  /** Per-call ms of each timed sample, in repetition order (empty when the variant failed). */
  readonly runsMs: readonly number[];
  readonly ms: Summary | null;
  /** The 1-thread time ÷ this one's (medians): above 1, faster than one thread. */
  readonly speedup: number | null;
  /** Against the 1-thread results (null for the 1-thread variant itself). */
  readonly agreement: Agreement | null;
  /** Cluster calls of its last run, and how many of them forked (null: no run). */
  readonly forks: Forks | null;
  /** Why the variant has no time (compile or run error, a failed check). */
  readonly error: string | null;
}

export interface CaseResult {
  readonly id: string;
  readonly name: string;
  readonly kind: MulticoreCase['kind'];
  readonly file: string;
  readonly size: string;
  /** Clusters of the plan over every block (a `while` body counted once). */
  readonly clusters: number;
  readonly callsPerSample: number;
  readonly repetitions: number;
  readonly variants: readonly VariantResult[];
}

export interface MeasureOptions {
  readonly repoRoot: string;
  readonly solver: SolverLoader;
  /** Thread counts besides 1 (1 is always measured: the baseline). */
  readonly threads: readonly number[];
  /** Also run every multicore variant on SharedArrayBuffer-backed inputs. */
  readonly sharedInputs: boolean;
  /** Also run the multicore variants on ordinary inputs. */
  readonly ordinaryInputs: boolean;
  readonly repetitions: number;
  /** A sample of calls lasts at least this long (ms), measured on the 1-thread variant. */
  readonly minSampleMs: number;
  readonly tuning: ParallelTuning;
  readonly log?: (line: string) => void;
}

interface Prepared {
  readonly spec: VariantSpec;
  exe: Executable | null;
  readonly ordered: readonly InterfaceValue[];
  readonly runsMs: number[];
  agreement: Agreement | null;
  forks: Forks | null;
  error: string | null;
}

function message(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/** The variants of a measurement: 1 thread first, then each count on ordinary and/or shared inputs. */
export function variantSpecs(options: Pick<MeasureOptions, 'threads' | 'sharedInputs' | 'ordinaryInputs'>): VariantSpec[] {
  const specs: VariantSpec[] = [{ threads: 1, shared: false }];
  for (const t of options.threads.filter((x) => x > 1)) {
    if (options.ordinaryInputs) specs.push({ threads: t, shared: false });
    if (options.sharedInputs) specs.push({ threads: t, shared: true });
  }
  return specs;
}

/** Clusters of a block plan and every block inside it. */
function clusterCount(block: BlockPlan): number {
  let n = block.clusters.length;
  for (const children of Object.values(block.children)) for (const child of children) n += clusterCount(child);
  return n;
}

/**
 * Runs `exe` for at least `ms` (three calls at least) and returns the mean ms per call. As a
 * warm-up it lets V8 optimise the code on every thread that runs it: each worker compiles its
 * own copy of a module, whose first calls are many times slower.
 */
export async function warm(exe: Executable, inputs: readonly InterfaceValue[], ms: number): Promise<number> {
  collectGarbage();
  let calls = 0;
  const t0 = performance.now();
  let elapsed = 0;
  while (calls < 3 || elapsed < ms) {
    await exe.run(inputs);
    calls++;
    elapsed = performance.now() - t0;
  }
  return elapsed / calls;
}

/**
 * Calls per timed sample so that one lasts at least `minSampleMs`: from the mean of warm runs
 * of `exe` over at least that long, after as long a warm-up.
 */
export async function samplingCalls(exe: Executable, inputs: readonly InterfaceValue[], minSampleMs: number): Promise<number> {
  await warm(exe, inputs, minSampleMs);
  const perCall = await warm(exe, inputs, minSampleMs);
  return Math.max(1, Math.min(100_000, Math.ceil(minSampleMs / Math.max(perCall, 1e-4))));
}

/** Plans, compiles and times one program under every variant. */
export async function measureCase(c: MulticoreCase, options: MeasureOptions): Promise<CaseResult> {
  const log = options.log ?? (() => {});
  const inputs = c.inputs();
  const verify = c.verifier(inputs);
  const shared = options.sharedInputs ? sharedInputs(inputs) : inputs;
  const source = readFileSync(join(options.repoRoot, c.file), 'utf8');
  const compiler = new Compiler(source, { fileName: c.file, solver: options.solver });
  const signature = signatureOf(compiler.entry, inputs, compiler.file);
  const program = compiler.lower(signature);
  const plan = await compiler.plan(signature);
  const memory = planMemory(program, plan, entrySizes(signature));

  const prepared: Prepared[] = [];
  for (const spec of variantSpecs(options)) {
    const source = spec.shared ? shared : inputs;
    const entry: Prepared = { spec, exe: null, ordered: program.params.map((p) => source[p.name]!), runsMs: [], agreement: null, forks: null, error: null };
    prepared.push(entry);
    try {
      entry.exe = await compileFor(spec.threads, program, plan, { file: compiler.file, memory, tuning: options.tuning });
    } catch (e) {
      entry.error = `compile failed: ${message(e)}`;
      log(`  ${variantLabel(spec)}: ${entry.error}`);
    }
  }

  let baseline: FlatResults | null = null;
  let multicore: FlatResults | null = null;
  /** Verifies one result set of `entry`; false (and the error recorded) when it fails. */
  const check = (entry: Prepared, results: readonly InterfaceValue[]): boolean => {
    const wrong = verify(results);
    const flat = flatResults(results);
    if (wrong !== null) entry.error = `wrong output: ${wrong}`;
    else if (entry.spec.threads === 1) baseline ??= flat;
    else if (baseline === null) entry.error = 'no 1-thread result to compare with';
    else {
      entry.agreement = agreement(baseline, flat);
      if (entry.agreement.wrong !== null) entry.error = `differs from 1 thread: ${entry.agreement.wrong}`;
      else if (multicore === null) multicore = flat;
      else {
        const same = agreement(multicore, flat, 0);
        if (!same.bitExact) entry.error = `differs from ${variantLabel(prepared.find((p) => p.spec.threads > 1)!.spec)} (thread counts and input buffers must not change a result): ${same.wrong ?? 'not bit-exact'}`;
      }
    }
    if (entry.error !== null) log(`  ${variantLabel(entry.spec)}: ${entry.error}`);
    return entry.error === null;
  };
  const live = (): Prepared[] => prepared.filter((e) => e.exe !== null && e.error === null);
  const runOnce = async (entry: Prepared): Promise<readonly InterfaceValue[] | null> => {
    try {
      const r = await entry.exe!.run(entry.ordered);
      entry.forks = forksOf(r.stats);
      return r.results;
    } catch (e) {
      entry.error = `run failed: ${message(e)}`;
      log(`  ${variantLabel(entry.spec)}: ${entry.error}`);
      return null;
    }
  };

  // Checked warm-up (V8 compiles the generated code; the pool is made); the 1-thread variant first.
  for (const entry of live()) {
    const results = await runOnce(entry);
    if (results !== null) check(entry, results);
  }
  const first = prepared[0]!;
  const callsPerSample = first.error === null && first.exe !== null ? await samplingCalls(first.exe, first.ordered, options.minSampleMs) : 1;
  // Every other variant warmed as long (the workers' copies of the code too).
  for (const entry of live().slice(1)) await warm(entry.exe!, entry.ordered, options.minSampleMs);

  for (let rep = 0; rep < options.repetitions; rep++) {
    const entries = live();
    for (let k = 0; k < entries.length; k++) {
      const entry = entries[(rep + k) % entries.length]!;
      collectGarbage();
      let results: readonly InterfaceValue[] | null = null;
      const t0 = performance.now();
      for (let call = 0; call < callsPerSample && entry.error === null; call++) results = await runOnce(entry);
      const ms = (performance.now() - t0) / callsPerSample;
      if (results === null) continue;
      if (rep === options.repetitions - 1 && !check(entry, results)) continue;
      entry.runsMs.push(ms);
    }
    log(`  repetition ${rep + 1}/${options.repetitions}: ${prepared.map((e) => `${variantLabel(e.spec)} ${e.runsMs.at(-1)?.toFixed(3) ?? '–'} ms`).join(', ')}`);
  }
  for (const entry of prepared) entry.exe?.dispose();

  const oneThread = first.error === null && first.runsMs.length > 0 ? summarise(first.runsMs).median : null;
  const variants = prepared.map((e): VariantResult => {
    const ms = e.error === null && e.runsMs.length > 0 ? summarise(e.runsMs) : null;
    return {
      id: variantId(e.spec),
      label: variantLabel(e.spec),
      threads: e.spec.threads,
      shared: e.spec.shared,
      runsMs: e.error === null ? e.runsMs : [],
      ms,
      speedup: ms !== null && oneThread !== null ? oneThread / ms.median : null,
      agreement: e.agreement,
      forks: e.forks,
      error: e.error,
    };
  });
  return {
    id: c.id,
    name: c.name,
    kind: c.kind,
    file: c.file,
    size: c.size,
    clusters: clusterCount(plan.root),
    callsPerSample,
    repetitions: options.repetitions,
    variants,
  };
}
