// The compute benchmark's parts, each a set of contenders on the same inputs (harness.ts times
// them interleaved):
//   mg         NAS MG (class W: 128³, 4 iterations): arrayfuse vs NPB-CPP serial `mg.W`; both
//              checked against NPB's L2 norm (MG_CLASSES), NPB also by its own verification
//   attention  FlashAttention (n = 1024, d = 64, br = bc = 64): arrayfuse vs NumPy on one thread
//              vs the plain JS triple loop (registry.ts referenceAttention); every output
//              compared with the triple loop's, computed once before timing
//   lulesh     LULESH -s 10: arrayfuse vs LLNL LULESH 2.0 serial; LLNL's cycle count and final
//              origin energy (LULESH_RESULTS), arrayfuse's energies also against the TypeScript
//              simulation (bench/paper/lulesh.ts)
//   examples   every shared example (examples/*.fuse, bench/exec/programs.ts: inputs and hand
//              loops): arrayfuse vs the hand loop, bit for bit, and vs a baseline build when given
// A reference that is not here (no binary, no NumPy) is skipped with a notice, never an error.
// `--baseline DIR` adds an earlier build of arrayfuse as a contender in every part.

import { existsSync } from 'node:fs';
import type { InterfaceValue } from '../../src/ir/values.js';
import type { SolverLoader } from '../../src/plan/ilp/solver.js';
import { compareResults } from '../exec/harness.js';
import { execPrograms, type HandResult } from '../exec/programs.js';
import { luleshSize } from '../paper/lulesh.js';
import { attentionSize, compareArrays, f64Array, i32Scalar, referenceAttention, type BenchInputs } from '../paper/registry.js';
import { MG_CLASSES, MG_EPSILON, relativeError, zran3 } from '../programs/mg-reference.js';
import { BaselineArrayfuse, CurrentArrayfuse, loadBaseline, type ArrayfuseProgram } from './arrayfuse.js';
import { interleave, timed, type Contender, type ContenderTiming, type Outcome } from './harness.js';
import { npbKernelMs, parseLuleshOutput, parseNpbOutput, resolveNpbBinary, runNative, verifyLulesh, verifyNpb, type MgClassName } from './native.js';
import { numpyMissing, startNumpyAttention } from './numpy.js';

export type Part = 'mg' | 'attention' | 'lulesh' | 'examples';
export const partNames: readonly Part[] = ['mg', 'attention', 'lulesh', 'examples'];

export interface Sizes {
  readonly mgClass: MgClassName;
  readonly attention: { readonly n: number; readonly d: number; readonly block: number };
  readonly luleshSize: number;
  /** Elements of the largest array of each example (bench:exec's n). */
  readonly examplesN: number;
}

/** `full`: the issue's sizes; `quick`: a smoke run (class S, small attention, -s 5, n = 10^5). */
export const sizePresets: Readonly<Record<'quick' | 'full', Sizes>> = {
  full: { mgClass: 'W', attention: { n: 1024, d: 64, block: 64 }, luleshSize: 10, examplesN: 4_000_000 },
  quick: { mgClass: 'S', attention: { n: 128, d: 16, block: 32 }, luleshSize: 5, examplesN: 100_000 },
};

export interface ComputeContext {
  readonly repoRoot: string;
  readonly solver: SolverLoader;
  readonly repetitions: number;
  /** NPB: a binary or a directory holding mg.<class>; null: not given. */
  readonly npb: string | null;
  readonly lulesh: string | null;
  readonly python: string;
  /** An earlier arrayfuse checkout (built) to run beside this one; null: none. */
  readonly baseline: string | null;
  /** Also time every cluster of arrayfuse's run once (after the timed runs). */
  readonly clusterStats: boolean;
  readonly log: (line: string) => void;
}

/** One cluster's share of an arrayfuse run (`arrayfuse run --stats` numbers clusters from 1). */
export interface ClusterRow {
  readonly cluster: number;
  readonly timeMs: number;
  readonly runs: number;
  readonly share: number;
  readonly writes: readonly string[];
}

export interface PartResult {
  readonly part: Part;
  readonly program: string;
  readonly size: string;
  readonly timings: readonly ContenderTiming[];
  /** References that could not run here, and why. */
  readonly skipped: readonly string[];
  readonly clusters: readonly ClusterRow[] | null;
}

// ---------------------------------------------------------------------------------------------
// Checks (pure)

/** max |actual − expected| / max |expected|: how close two outputs came, for the table. */
export function maxRelativeDeviation(actual: ArrayLike<number>, expected: ArrayLike<number>): number {
  let scale = 0;
  let worst = 0;
  for (let i = 0; i < expected.length; i++) scale = Math.max(scale, Math.abs(expected[i]!));
  for (let i = 0; i < expected.length; i++) {
    const d = Math.abs(actual[i]! - expected[i]!);
    worst = Number.isNaN(d) ? Infinity : Math.max(worst, d);
  }
  return scale === 0 ? worst : worst / scale;
}

/** Tolerance of an attention output against the triple loop: summation orders differ. */
export const ATTENTION_TOLERANCE = 1e-10;

/** An attention output against the triple loop's: the outcome's problem and note. */
export function checkAttention(actual: ArrayLike<number>, expected: ArrayLike<number>): { problem: string | null; verified: string } {
  const problem = compareArrays(actual, expected, ATTENTION_TOLERANCE);
  const deviation = problem === null ? maxRelativeDeviation(actual, expected) : NaN;
  return { problem, verified: deviation === 0 ? 'equals the JS loop bit for bit' : `within ${deviation.toExponential(1)} of the JS loop (max |Δ| ÷ max |ref|)` };
}

/** MG's result (rnm2, a scalar or rank-0 array) against the class's value with NPB's epsilon. */
export function checkMg(results: readonly InterfaceValue[], cls: MgClassName): { problem: string | null; verified: string } {
  const value = scalarResult(results[0]);
  const expected = MG_CLASSES[cls].verifyValue;
  if (value === null) return { problem: 'the result is not a scalar', verified: '' };
  const error = relativeError(value, expected);
  if (!(error <= MG_EPSILON)) return { problem: `rnm2 ${value}, NPB's value ${expected} (relative error ${error.toExponential(2)})`, verified: '' };
  return { problem: null, verified: `rnm2 ${value.toExponential(12)}, error ${error.toExponential(1)} ≤ ${MG_EPSILON}` };
}

function scalarResult(value: InterfaceValue | undefined): number | null {
  if (value === undefined || Array.isArray(value)) return null;
  const v = value as Exclude<InterfaceValue, readonly unknown[]>;
  if (v.kind === 'scalar') return v.value;
  return v.shape.length === 0 && v.data.length === 1 ? v.data[0]! : null;
}

/** Results as the hand loops return them (bench/exec): typed arrays and numbers. */
export function flatten(results: readonly InterfaceValue[]): HandResult {
  return results.map((r) => {
    if (Array.isArray(r)) throw new Error('tuple results are not used by the examples');
    const v = r as Exclude<InterfaceValue, readonly unknown[]>;
    if (v.kind === 'scalar') return v.value;
    return v.shape.length === 0 ? v.data[0]! : (v.data as Float64Array | Int32Array);
  });
}

// ---------------------------------------------------------------------------------------------
// Contenders

/** arrayfuse (this tree's, and the baseline's when given) on one program, checked by `check`. */
async function arrayfuseContenders(
  ctx: ComputeContext,
  file: string,
  inputs: BenchInputs,
  check: (results: readonly InterfaceValue[]) => { problem: string | null; verified: string },
): Promise<{ contenders: Contender[]; current: CurrentArrayfuse }> {
  const current = new CurrentArrayfuse(ctx.repoRoot, file, ctx.solver);
  const builds: { id: string; label: string; kind: 'arrayfuse' | 'baseline'; program: ArrayfuseProgram }[] = [{ id: 'arrayfuse', label: 'arrayfuse (ILP plan, 1 thread)', kind: 'arrayfuse', program: current }];
  if (ctx.baseline !== null) {
    builds.push({ id: 'baseline', label: 'arrayfuse before (baseline build)', kind: 'baseline', program: new BaselineArrayfuse(await loadBaseline(ctx.baseline), ctx.repoRoot, file) });
  }
  const contenders = builds.map(
    (b): Contender => ({
      id: b.id,
      label: b.label,
      kind: b.kind,
      async run(): Promise<Outcome> {
        const { value, ms } = await timed(() => b.program.run(inputs));
        return { kernelMs: ms, ...check(value) };
      },
      close: () => b.program.dispose(),
    }),
  );
  return { contenders, current };
}

async function clusterRows(ctx: ComputeContext, current: CurrentArrayfuse, inputs: BenchInputs): Promise<ClusterRow[] | null> {
  if (!ctx.clusterStats) return null;
  const stats = await current.clusterStats(inputs);
  const total = stats.reduce((s, c) => s + c.timeMs, 0);
  return stats
    .map((c, k) => ({ cluster: k + 1, timeMs: c.timeMs, runs: c.runs, share: total > 0 ? c.timeMs / total : 0, writes: c.manifest }))
    .sort((a, b) => b.timeMs - a.timeMs);
}

/**
 * Times the contenders interleaved, then (with --cluster-stats) times arrayfuse's clusters in one
 * more run, and releases every contender whatever happened.
 */
async function finish(ctx: ComputeContext, what: string, contenders: readonly Contender[], current: CurrentArrayfuse, inputs: BenchInputs): Promise<{ timings: ContenderTiming[]; clusters: ClusterRow[] | null }> {
  try {
    const timings = await interleave(contenders, { repetitions: ctx.repetitions, what, log: ctx.log });
    return { timings, clusters: await clusterRows(ctx, current, inputs) };
  } finally {
    for (const c of contenders) await c.close?.();
  }
}

export async function measureMg(ctx: ComputeContext, sizes: Sizes): Promise<PartResult> {
  const cls = MG_CLASSES[sizes.mgClass];
  const inputs: BenchInputs = { v: f64Array([cls.n, cls.n, cls.n], zran3(cls.n)), nit: i32Scalar(cls.nit) };
  const { contenders, current } = await arrayfuseContenders(ctx, 'bench/programs/mg.fuse', inputs, (r) => checkMg(r, sizes.mgClass));
  const skipped: string[] = [];
  const binary = ctx.npb === null ? null : resolveNpbBinary(ctx.npb, sizes.mgClass);
  if (binary === null) skipped.push(`NPB-CPP skipped: ${ctx.npb === null ? 'no --npb given' : `no mg.${sizes.mgClass} at ${ctx.npb}`} (bench/compute/build-references.sh builds it)`);
  else {
    contenders.push({
      id: 'npb',
      label: `NPB-CPP serial mg.${sizes.mgClass} (g++ -O3)`,
      kind: 'native',
      async run() {
        const { stdout, wallMs } = runNative(binary, []);
        const report = parseNpbOutput(stdout);
        if (typeof report === 'string') return { kernelMs: NaN, wallMs, problem: report };
        const problem = verifyNpb(report, cls);
        return { kernelMs: npbKernelMs(report), wallMs, problem, verified: `NPB: VERIFICATION SUCCESSFUL, L2 norm ${report.l2Norm.toExponential(12)}` };
      },
    });
  }
  const { timings, clusters } = await finish(ctx, `MG class ${cls.name}`, contenders, current, inputs);
  return { part: 'mg', program: 'NAS MG', size: `class ${cls.name} (${cls.n}³, ${cls.nit} iterations)`, timings, skipped, clusters };
}

export async function measureAttention(ctx: ComputeContext, sizes: Sizes): Promise<PartResult> {
  const { n, d, block } = sizes.attention;
  const size = attentionSize(n, d, block, ctx.repetitions);
  const inputs = size.inputs();
  const data = (name: string): Float64Array => (inputs[name] as { data: Float64Array }).data;
  const [q, k, v] = [data('Q'), data('K'), data('V')];
  const expected = referenceAttention(q, k, v, n, d);
  const outputOf = (results: readonly InterfaceValue[]): Float64Array => (results[0] as { data: Float64Array }).data;
  const { contenders, current } = await arrayfuseContenders(ctx, 'bench/programs/flashAttention.fuse', inputs, (r) => checkAttention(outputOf(r), expected));
  contenders.push({
    id: 'js',
    label: 'plain JS triple loop (referenceAttention)',
    kind: 'js',
    async run() {
      const { value, ms } = await timed(() => referenceAttention(q, k, v, n, d));
      return { kernelMs: ms, ...checkAttention(value, expected) };
    },
  });
  const skipped: string[] = [];
  const missing = numpyMissing(ctx.python);
  if (missing !== null) skipped.push(`NumPy skipped: ${missing}`);
  else {
    const peer = await startNumpyAttention(ctx.python, q, k, v, n, d);
    contenders.push({
      id: 'numpy',
      label: `NumPy ${peer.version}, 1 thread (OPENBLAS_NUM_THREADS=1)`,
      kind: 'numpy',
      async run() {
        const { ms, result } = await peer.call();
        return { kernelMs: ms, ...checkAttention(result, expected) };
      },
      close: () => peer.close(),
    });
  }
  const { timings, clusters } = await finish(ctx, `FlashAttention ${size.label}`, contenders, current, inputs);
  return { part: 'attention', program: 'FlashAttention', size: size.label, timings, skipped, clusters };
}

export async function measureLulesh(ctx: ComputeContext, sizes: Sizes): Promise<PartResult> {
  const nx = sizes.luleshSize;
  const size = luleshSize(nx, ctx.repetitions);
  const inputs = size.inputs();
  ctx.log(`LULESH -s ${nx}: the TypeScript reference simulation for the check …`);
  const verify = size.verifier(inputs);
  const { contenders, current } = await arrayfuseContenders(ctx, 'bench/programs/lulesh.fuse', inputs, (r) => {
    const problem = verify(r);
    const cycles = r[1] as { value: number } | undefined;
    return { problem, verified: `${cycles?.value ?? '?'} cycles; energies = TypeScript reference (≤ 1e-8), e(0) = LLNL's` };
  });
  const skipped: string[] = [];
  const binary = ctx.lulesh;
  if (binary === null || !existsSync(binary)) skipped.push(`LLNL LULESH skipped: ${binary === null ? 'no --lulesh given' : `${binary} does not exist`} (bench/compute/build-references.sh builds it)`);
  else {
    contenders.push({
      id: 'lulesh',
      label: 'LLNL LULESH 2.0 serial (g++ -O3, no MPI/OpenMP)',
      kind: 'native',
      async run() {
        const { stdout, wallMs } = runNative(binary, ['-s', String(nx)]);
        const report = parseLuleshOutput(stdout);
        if (typeof report === 'string') return { kernelMs: NaN, wallMs, problem: report };
        return { kernelMs: report.elapsedS * 1000, wallMs, problem: verifyLulesh(report, nx), verified: `${report.iterations} cycles, e(0) = ${report.originEnergy.toExponential(6)}` };
      },
    });
  }
  const { timings, clusters } = await finish(ctx, `LULESH -s ${nx}`, contenders, current, inputs);
  return { part: 'lulesh', program: 'LULESH', size: `-s ${nx}`, timings, skipped, clusters };
}

/** Every shared example: arrayfuse (and the baseline) against its hand loop, bit for bit. */
export async function measureExamples(ctx: ComputeContext, sizes: Sizes, only: readonly string[] | null): Promise<PartResult[]> {
  const out: PartResult[] = [];
  for (const p of execPrograms.filter((e) => only === null || only.includes(e.name))) {
    const inputs = p.inputs(sizes.examplesN);
    const expected = p.hand(inputs);
    const check = (got: HandResult): { problem: string | null; verified: string } => ({ problem: compareResults(expected, got), verified: 'equals the hand loop bit for bit' });
    const { contenders, current } = await arrayfuseContenders(ctx, p.file, inputs, (r) => check(flatten(r)));
    contenders.push({
      id: 'hand',
      label: 'hand loop (bench/exec)',
      kind: 'js',
      async run() {
        const { value, ms } = await timed(() => p.hand(inputs));
        return { kernelMs: ms, ...check(value) };
      },
    });
    const { timings, clusters } = await finish(ctx, `${p.name} (${p.describe(sizes.examplesN)})`, contenders, current, inputs);
    out.push({ part: 'examples', program: p.name, size: p.describe(sizes.examplesN), timings, skipped: [], clusters });
  }
  return out;
}
