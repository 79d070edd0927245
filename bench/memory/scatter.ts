// The scatter-heavy benchmark: bench/programs/histogram.fuse, a weighted histogram whose
// `while` loop adds one batch of keys per iteration into the loop-carried `hist` with a
// scatter-add. A plan that copies the destination before each update moves all `nbins` bins per
// iteration to add `batch` of them; an in-place plan moves only the batch. Timed interleaved:
// the ILP plan (which may update in place where it proves the destination dead), no fusion
// (strategy `none`), and two hand loops: in place, and copying the histogram per batch as a
// copying plan does. The weights are small integers, so every order of additions gives the same
// doubles and the check is bit for bit.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Compiler, signatureOf } from '../../src/driver/index.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import type { BlockPlan, Plan, Strategy } from '../../src/plan/types.js';
import { interleave, type Variant, type VariantTiming } from './harness.js';

export const HISTOGRAM_FILE = 'bench/programs/histogram.fuse';

export interface HistogramSize {
  /** Keys in all (a multiple of `batch`). */
  readonly m: number;
  readonly nbins: number;
  readonly batch: number;
}

export const histogramSizes: Readonly<Record<'quick' | 'full', HistogramSize>> = {
  quick: { m: 256, nbins: 64, batch: 32 },
  full: { m: 1_000_000, nbins: 1_000_000, batch: 10_000 },
};

export interface HistogramInputs {
  readonly keys: Int32Array;
  readonly weights: Float64Array;
  readonly size: HistogramSize;
}

export function histogramInputs(size: HistogramSize): HistogramInputs {
  if (size.m % size.batch !== 0) throw new Error('m must be a multiple of batch');
  const keys = new Int32Array(size.m);
  const weights = new Float64Array(size.m);
  let s = 12345;
  for (let i = 0; i < size.m; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    keys[i] = s >>> 1; // non-negative i32
    weights[i] = (i % 7) + 1;
  }
  return { keys, weights, size };
}

/** The histogram in place: one pass over the keys. */
export function histogramInPlace(x: HistogramInputs): Float64Array {
  const hist = new Float64Array(x.size.nbins);
  for (let i = 0; i < x.size.m; i++) hist[x.keys[i]! % x.size.nbins]! += x.weights[i]!;
  return hist;
}

/** The histogram as a copying plan runs it: a fresh copy of every bin before each batch's update. */
export function histogramCopying(x: HistogramInputs): Float64Array {
  let hist = new Float64Array(x.size.nbins);
  for (let start = 0; start < x.size.m; start += x.size.batch) {
    hist = new Float64Array(hist);
    for (let i = start; i < start + x.size.batch; i++) hist[x.keys[i]! % x.size.nbins]! += x.weights[i]!;
  }
  return hist;
}

export type ScatterVariant = 'ilp' | 'none' | 'hand-inplace' | 'hand-copy';
export const scatterVariants: readonly ScatterVariant[] = ['ilp', 'none', 'hand-inplace', 'hand-copy'];

export interface PlanShape {
  readonly strategy: Strategy;
  /** Clusters over all blocks. */
  readonly clusters: number;
  /** Copies the plan elides (BlockPlan.elided, all blocks). */
  readonly elided: number;
  /** Manifest arrays over all blocks. */
  readonly manifest: readonly string[];
}

export interface ScatterResult {
  readonly size: HistogramSize;
  readonly repetitions: number;
  readonly timings: readonly VariantTiming[];
  /** Bytes one run allocated (RunStats), per fused variant. */
  readonly bytesAllocated: Readonly<Record<string, number>>;
  readonly plans: readonly PlanShape[];
}

function planShape(plan: Plan): PlanShape {
  let clusters = 0;
  let elided = 0;
  const manifest: string[] = [];
  const visit = (b: BlockPlan): void => {
    clusters += b.clusters.length;
    elided += b.elided?.length ?? 0;
    for (const c of b.clusters) manifest.push(...c.manifest);
    for (const children of Object.values(b.children)) for (const child of children) visit(child);
  };
  visit(plan.root);
  return { strategy: plan.strategy, clusters, elided, manifest };
}

const labels: Readonly<Record<ScatterVariant, string>> = {
  ilp: 'arrayfuse, ILP plan',
  none: 'arrayfuse, no fusion',
  'hand-inplace': 'hand loop, in place',
  'hand-copy': 'hand loop, copy per batch',
};

export async function measureScatter(repoRoot: string, size: HistogramSize, repetitions: number, variants: readonly ScatterVariant[] = scatterVariants): Promise<ScatterResult> {
  const x = histogramInputs(size);
  const expected = [histogramInPlace(x)];
  const compiler = new Compiler(readFileSync(join(repoRoot, HISTOGRAM_FILE), 'utf8'), { fileName: HISTOGRAM_FILE, solver: createSolverLoader() });
  const inputs: Record<string, InterfaceValue> = {
    keys: { kind: 'array', elem: 'i32', shape: [size.m], data: x.keys },
    weights: { kind: 'array', elem: 'f64', shape: [size.m], data: x.weights },
    nbins: { kind: 'scalar', elem: 'i32', value: size.nbins },
    batch: { kind: 'scalar', elem: 'i32', value: size.batch },
  };
  const signature = signatureOf(compiler.entry, inputs, compiler.file);
  const ordered = compiler.lower(signature).params.map((p) => inputs[p.name]!);
  const bytes: Record<string, number> = {};
  const plans: PlanShape[] = [];
  const list: Variant[] = [];
  for (const id of variants) {
    if (id === 'hand-inplace') list.push({ id, label: labels[id], run: () => ({ results: [histogramInPlace(x)] }) });
    else if (id === 'hand-copy') list.push({ id, label: labels[id], run: () => ({ results: [histogramCopying(x)] }) });
    else {
      const exe = await compiler.executable(signature, { strategy: id });
      plans.push(planShape(exe.plan));
      list.push({
        id,
        label: labels[id],
        run: async () => {
          const r = await exe.run(ordered);
          bytes[id] = r.stats.bytesAllocated;
          const hist = r.results[0] as { data: Float64Array };
          return { results: [hist.data] };
        },
      });
    }
  }
  try {
    const timings = await interleave(list, { repetitions, expected, what: `histogram m = ${size.m}, nbins = ${size.nbins}, batch = ${size.batch}` });
    return { size, repetitions, timings, bytesAllocated: bytes, plans };
  } finally {
    await compiler.dispose();
  }
}
