// The measurement: plans one program at one size under every strategy of the paper's §5
// (six ILP cost functions, greedy-down, greedy-up, no fusion; plus `bytes`), compiles each plan,
// and times the fused runs INTERLEAVED: every repetition runs each strategy once, round-robin,
// so drift on the machine (other jobs, thermal state, GC pressure) hits every strategy alike;
// each repetition starts one strategy later than the previous, so no strategy always runs
// right after the same neighbour.
// Every run's output is checked; a failed check fails that strategy (it gets no runtime) and is
// reported, never averaged away. With `--threads N` the baseline's plan also runs on the
// multicore back end with N threads (PARALLEL_ID), interleaved with the rest: the parallel bar.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Compiler, entrySizes, signatureOf } from '../../src/driver/index.js';
import { planMemory } from '../../src/memory/index.js';
import type { SolverLoader } from '../../src/plan/ilp/solver.js';
import type { BlockPlan, Plan, SolveStatus, Strategy } from '../../src/plan/types.js';
import { allStmts } from '../../src/ir/walk.js';
import { combinatorKinds, type CombinatorKind } from '../../src/ir/types.js';
import type { BenchProgram, BenchSize } from './registry.js';
import { compileFor } from '../multicore/threads.js';

/** One column of the paper's Figures 3 and 4. */
export interface StrategySpec {
  /** Stable id used in JSON and tables, e.g. `ilp:reads+writes`, `greedy-down`. */
  readonly id: string;
  /** As in the paper's legends. */
  readonly label: string;
  readonly strategy: Strategy;
  /** The cost the ILP minimises (and every plan's objective is evaluated under). */
  readonly cost: string;
  /** Threads that run the plan: absent or 1, the `js` back end; more, the multicore back end. */
  readonly threads?: number;
}

/** The baseline every runtime is normalised to (the paper's "ILP" bar of Figure 3). */
export const BASELINE_ID = 'ilp:reads+writes';

/** The baseline's plan run by the multicore back end (`--threads`): the parallel bar. */
export const PARALLEL_ID = 'ilp:reads+writes@threads';

/** The parallel bar's strategy: the baseline's plan (the Compiler plans it once) at `threads` threads. */
export function parallelStrategy(threads: number): StrategySpec {
  return { id: PARALLEL_ID, label: `ILP, ${threads} threads`, strategy: 'ilp', cost: 'reads+writes', threads };
}

export const allStrategies: readonly StrategySpec[] = [
  { id: 'ilp:reads', label: 'reads', strategy: 'ilp', cost: 'reads' },
  { id: 'ilp:writes', label: 'intermediate arrays', strategy: 'ilp', cost: 'intermediate-arrays' },
  { id: BASELINE_ID, label: 'reads and writes', strategy: 'ilp', cost: 'reads+writes' },
  { id: 'ilp:fused-edges', label: 'fused edges', strategy: 'ilp', cost: 'fused-edges' },
  { id: 'ilp:clusters', label: 'number of clusters', strategy: 'ilp', cost: 'clusters' },
  { id: 'ilp:everything', label: 'everything', strategy: 'ilp', cost: 'everything' },
  // Not in the paper: reads+writes weighted by array sizes (docs/PLANNING.md).
  { id: 'ilp:bytes', label: 'bytes', strategy: 'ilp', cost: 'bytes' },
  // Not in the paper: reads+writes plus work duplicated through gathers (docs/PLANNING.md).
  { id: 'ilp:reads+writes+recompute', label: 'reads, writes and recompute', strategy: 'ilp', cost: 'reads+writes+recompute' },
  { id: 'greedy-down', label: 'greedy ↓', strategy: 'greedy-down', cost: 'reads+writes' },
  { id: 'greedy-up', label: 'greedy ↑', strategy: 'greedy-up', cost: 'reads+writes' },
  { id: 'none', label: 'no fusion', strategy: 'none', cost: 'reads+writes' },
];

export interface PlanSummary {
  readonly status: SolveStatus;
  /** The plan's cost under the strategy's cost function. */
  readonly objective: number;
  readonly gap: number | null;
  readonly nodes: number | null;
  /** The planner's own time (model building and solving; solver loading excluded). */
  readonly planMs: number;
  /** Wall clock of the whole planning call (graph building, validation included). */
  readonly planWallMs: number;
  /** Clusters over every block (a `while` body counted once). */
  readonly clusters: number;
  /** Manifest arrays over every block. */
  readonly manifestArrays: number;
  /** A short fingerprint of the plan's clusters, orders and manifest arrays: equal plans, equal keys. */
  readonly planKey: string;
  readonly notes: readonly string[];
}

export interface StrategyResult {
  readonly id: string;
  readonly plan: PlanSummary | null;
  /** Timed runs in milliseconds, in repetition order (empty when the strategy failed). */
  readonly runsMs: readonly number[];
  readonly medianMs: number | null;
  /** medianMs / the baseline's medianMs. */
  readonly normalised: number | null;
  /**
   * Bytes of arrays one run holds (what it allocates plus the executable's pool), and the largest
   * single array, fresh or a pool slot (reportMemory only).
   */
  readonly bytesAllocated: number | null;
  readonly largestAllocation: number | null;
  /** Why the strategy has no result (planning error, compile error, wrong output). */
  readonly error: string | null;
}

export interface ProgramResult {
  readonly program: string;
  readonly file: string;
  readonly size: string;
  readonly repetitions: number;
  /** Core combinators of the program lowered for these inputs, by kind, and their total. */
  readonly combinators: number;
  readonly combinatorKinds: Readonly<Partial<Record<CombinatorKind, number>>>;
  readonly strategies: readonly StrategyResult[];
}

export interface MeasureOptions {
  readonly repoRoot: string;
  readonly solver: SolverLoader;
  readonly strategies: readonly StrategySpec[];
  /** Overrides the size's repetitions (the smoke test uses 1). */
  readonly repetitions?: number;
  /** Wall-clock limit per ILP plan, seconds. */
  readonly ilpTimeLimitSeconds: number;
  /** Called with progress lines (the CLI prints them; tests pass nothing). */
  readonly log?: (line: string) => void;
}

export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function planShape(block: BlockPlan): { clusters: number; manifest: number } {
  let clusters = block.clusters.length;
  let manifest = block.clusters.reduce((m, c) => m + c.manifest.length, 0);
  for (const children of Object.values(block.children)) {
    for (const child of children) {
      const inner = planShape(child);
      clusters += inner.clusters;
      manifest += inner.manifest;
    }
  }
  return { clusters, manifest };
}

function summarisePlan(plan: Plan, planWallMs: number): PlanSummary {
  const shape = planShape(plan.root);
  return {
    status: plan.stats.status,
    objective: plan.stats.objective,
    gap: plan.stats.gap,
    nodes: plan.stats.nodes,
    planMs: plan.stats.timeMs,
    planWallMs,
    clusters: shape.clusters,
    manifestArrays: shape.manifest,
    planKey: createHash('sha256').update(JSON.stringify(plan.root)).digest('hex').slice(0, 12),
    notes: plan.stats.notes,
  };
}

function message(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/** Asks V8 for a full collection between runs when node runs with --expose-gc. */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

interface Prepared {
  readonly spec: StrategySpec;
  plan: PlanSummary | null;
  run: (() => Promise<{ ms: number; verdict: string | null; bytes: number; largest: number }>) | null;
  readonly runsMs: number[];
  bytes: number | null;
  largest: number | null;
  error: string | null;
  /** Releases the executable (the multicore one holds its module in the workers). */
  dispose: () => void;
}

/** Plans, compiles and times one program at one size under every strategy. */
export async function measureProgram(program: BenchProgram, size: BenchSize, options: MeasureOptions): Promise<ProgramResult> {
  const log = options.log ?? (() => {});
  const source = readFileSync(join(options.repoRoot, program.file), 'utf8');
  const compiler = new Compiler(source, { fileName: program.file, solver: options.solver });
  const inputs = size.inputs();
  const verify = size.verifier(inputs);
  const signature = signatureOf(compiler.entry, inputs, compiler.file);
  const lowered = compiler.lower(signature);
  const ordered = lowered.params.map((p) => inputs[p.name]!);
  const kinds: Partial<Record<CombinatorKind, number>> = {};
  let combinators = 0;
  for (const s of allStmts(lowered)) {
    if ((combinatorKinds as readonly string[]).includes(s.kind)) {
      kinds[s.kind as CombinatorKind] = (kinds[s.kind as CombinatorKind] ?? 0) + 1;
      combinators++;
    }
  }
  log(`${program.name} ${size.label}: ${combinators} combinators`);

  const prepared: Prepared[] = [];
  for (const spec of options.strategies) {
    const entry: Prepared = { spec, plan: null, run: null, runsMs: [], bytes: null, largest: null, error: null, dispose: () => {} };
    prepared.push(entry);
    const planning = { strategy: spec.strategy, cost: spec.cost, timeLimitSeconds: spec.strategy === 'ilp' ? options.ilpTimeLimitSeconds : undefined };
    try {
      const t0 = performance.now();
      const plan = await compiler.plan(signature, planning);
      entry.plan = summarisePlan(plan, performance.now() - t0);
      // The back end itself (js; multicore for the parallel bar, on the same cached plan): the
      // timing loop calls the executable directly. Its memory is planned for the entry sizes, as
      // the driver does, so slots have bytes.
      const fused = await compiler.plan(signature, planning);
      const memory = planMemory(lowered, fused, entrySizes(signature));
      const exe = await compileFor(spec.threads ?? 1, lowered, fused, { file: compiler.file, memory });
      entry.dispose = () => exe.dispose();
      // From the second run on pooled arrays allocate nothing: a run's array memory is what it
      // allocates plus what the pool holds for it, and its largest array a fresh one or a slot.
      const largestSlot = memory.slots.reduce((m, slot) => Math.max(m, slot.bytes ?? 0), 0);
      entry.run = async () => {
        const t = performance.now();
        const pending = exe.run(ordered);
        // The js back end's run is synchronous: no microtask in its time.
        const result = pending instanceof Promise ? await pending : pending;
        const ms = performance.now() - t;
        const largest = result.stats.allocations.reduce((m, a) => Math.max(m, a.largestBytes), largestSlot);
        return { ms, verdict: verify(result.results), bytes: result.stats.bytesAllocated + result.stats.poolBytes, largest };
      };
      log(`  planned ${spec.id}: ${plan.stats.status}, objective ${plan.stats.objective}, ${entry.plan.planWallMs.toFixed(0)} ms`);
    } catch (e) {
      entry.error = `planning or compiling failed: ${message(e)}`;
      log(`  ${spec.id}: ${entry.error}`);
    }
  }

  // One untimed warm-up per strategy (V8 compiles the generated code), checked like the rest;
  // sizes with runs of seconds skip it (BenchSize.warmUp).
  const step = async (entry: Prepared, timed: boolean): Promise<void> => {
    if (entry.run === null || entry.error !== null) return;
    collectGarbage();
    try {
      const r = await entry.run();
      if (r.verdict !== null) {
        entry.error = `wrong output: ${r.verdict}`;
        log(`  ${entry.spec.id}: ${entry.error}`);
        return;
      }
      entry.bytes = r.bytes;
      entry.largest = r.largest;
      if (timed) entry.runsMs.push(r.ms);
    } catch (e) {
      entry.error = `run failed: ${message(e)}`;
      log(`  ${entry.spec.id}: ${entry.error}`);
    }
  };
  if (size.warmUp ?? true) for (const entry of prepared) await step(entry, false);
  const repetitions = options.repetitions ?? size.repetitions;
  for (let rep = 0; rep < repetitions; rep++) {
    for (let k = 0; k < prepared.length; k++) await step(prepared[(rep + k) % prepared.length]!, true);
    log(`  repetition ${rep + 1}/${repetitions}: ${prepared.map((e) => `${e.spec.id} ${e.runsMs.at(-1)?.toFixed(0) ?? '-'}`).join(', ')}`);
  }

  for (const entry of prepared) entry.dispose();
  const baseline = median(prepared.find((e) => e.spec.id === BASELINE_ID && e.error === null)?.runsMs ?? []);
  const strategies = prepared.map((e): StrategyResult => {
    const failed = e.error !== null;
    const med = failed ? null : median(e.runsMs);
    return {
      id: e.spec.id,
      plan: e.plan,
      runsMs: failed ? [] : e.runsMs,
      medianMs: med,
      normalised: med !== null && baseline !== null && baseline > 0 ? med / baseline : null,
      bytesAllocated: program.reportMemory === true ? e.bytes : null,
      largestAllocation: program.reportMemory === true ? e.largest : null,
      error: e.error,
    };
  });
  return { program: program.name, file: program.file, size: size.label, repetitions, combinators, combinatorKinds: kinds, strategies };
}
