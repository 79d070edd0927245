// The roofline per cluster (docs/EXECUTION.md, "Roofline per cluster"): the counting run's
// per-cluster counts, exact on small programs under every back-end configuration (a counting
// run stays on the calling thread, so multicore counts equal js's); per-cluster counts adding
// up to the per-array counters; the roofline arithmetic and verdicts on synthetic numbers; the
// driver's counted-then-timed runs. No assertion on a time.

import { describe, expect, it } from 'vitest';
import { Compiler } from '../../src/driver/index.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { measureMachine, rooflineOf, type ClusterCounts, type MachineRates, type RunStats } from '../../src/runtime/index.js';
import { rowOf, verdictOf } from '../../src/runtime/roofline.js';
import { backends } from './backends.js';
import { compileProgram } from '../../src/runtime/index.js';
import { interpret } from '../../src/interp/index.js';
import { plan } from '../../src/plan/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { validatePlan } from '../../src/check/validate.js';
import { randomProgram } from '../util/index.js';
import { expectSameValues } from './equal.js';
import { UserError } from '../../src/diagnostics/index.js';

const f64 = (values: readonly number[], shape: readonly number[] = [values.length]): InterfaceValue => ({ kind: 'array', elem: 'f64', shape, data: Float64Array.from(values) });
const i32 = (values: readonly number[]): InterfaceValue => ({ kind: 'array', elem: 'i32', shape: [values.length], data: Int32Array.from(values) });
const scalar = (value: number): InterfaceValue => ({ kind: 'scalar', elem: 'i32', value });
const range = (n: number): number[] => Array.from({ length: n }, (_, k) => k + 0.5);

/** Rates that make the arithmetic easy: 10 GB/s, 4 GFLOP/s (ridge point 0.4 flop/byte). */
const machine: MachineRates = { bandwidth: 10e9, peakFlops: 4e9, triadElements: 1, repetitions: 1 };

const zero: ClusterCounts = { elements: 0, reads: 0, writes: 0, bytesRead: 0, bytesWritten: 0, memoryBytes: 0, flops: 0, intOps: 0 };

describe.each(backends)('counts per cluster ($name back end)', (config) => {
  /** The counting run's per-cluster counts of `source` on `inputs` (the plan's clusters, in order). */
  async function countsOf(source: string, inputs: Record<string, InterfaceValue>): Promise<{ counts: ClusterCounts[]; stats: RunStats }> {
    const compiler = new Compiler(source, config.api);
    try {
      const run = (await compiler.execute(inputs, { counters: true })).run!;
      return { counts: run.stats.clusters.map((c) => c.counts!), stats: run.stats };
    } finally {
      await compiler.dispose();
    }
  }

  it.each([0, 1, 2, 7])('a map over %i f64 elements: n elements, one read and one write each (16n bytes), two flops each', async (n) => {
    const { counts } = await countsOf('def main(xs: f64[n]):\n  return map(lam x: x * 2.0 + 1.0, xs)\n', { xs: f64(range(n)) });
    expect(counts).toEqual([{ elements: n, reads: n, writes: n, bytesRead: 8 * n, bytesWritten: 8 * n, memoryBytes: 16 * n, flops: 2 * n, intOps: 0 }]);
  });

  it('a fold to a scalar: n points, n reads, one write, n additions', async () => {
    const { counts } = await countsOf('def main(xs: f64[n]):\n  return fold(lam(a, b): a + b, 0.0, xs)\n', { xs: f64(range(5)) });
    expect(counts).toEqual([{ elements: 5, reads: 5, writes: 1, bytesRead: 40, bytesWritten: 8, memoryBytes: 48, flops: 5, intOps: 0 }]);
  });

  it('a fold per row: rows × columns points (the innermost loop), one write per row', async () => {
    const { counts } = await countsOf('def main(xs: f64[r, c]):\n  return fold(lam(a, b): max(a, b), 0.0, xs)\n', { xs: f64(range(12), [3, 4]) });
    expect(counts).toEqual([{ elements: 12, reads: 12, writes: 3, bytesRead: 96, bytesWritten: 24, memoryBytes: 120, flops: 12, intOps: 0 }]);
  });

  it('a gather: one point per index, the i32 index and the f64 source read at each', async () => {
    const { counts } = await countsOf('def main(is: i32[m], xs: f64[n]):\n  return gather(is, xs)\n', { is: i32([3, 0, 9, 3]), xs: f64(range(10)) });
    expect(counts).toEqual([{ elements: 4, reads: 8, writes: 4, bytesRead: 4 * 4 + 4 * 8, bytesWritten: 32, memoryBytes: 4 * 4 + 4 * 8 + 32, flops: 0, intOps: 0 }]);
    // Reading more elements than the source has: its memory bytes are at most its length.
    const many = await countsOf('def main(is: i32[m], xs: f64[n]):\n  return gather(is, xs)\n', { is: i32([1, 0, 1, 1, 0, 0]), xs: f64([7, 8]) });
    expect(many.counts[0]).toMatchObject({ reads: 12, bytesRead: 6 * 4 + 6 * 8, memoryBytes: 6 * 4 + 2 * 8 + 6 * 8 });
  });

  it('a periodic three-point stencil: its index maps are integer operations, its sum float ones', async () => {
    // Neighbour i−1 and i+1 on a ring: (i + n − 1) % n is three integer operations, (i + 1) % n two.
    const source = [
      'def main(xs: f64[m]):',
      '  n = size(xs)',
      '  l = gather(generate(n, lam i: (i + n - 1) % n), xs)',
      '  r = gather(generate(n, lam i: (i + 1) % n), xs)',
      '  return zipWith3(lam(a, b, c): 0.25 * a + 0.5 * b + 0.25 * c, l, xs, r)',
      '',
    ].join('\n');
    for (const n of [1, 2, 3, 8]) {
      const { counts } = await countsOf(source, { xs: f64(range(n)) });
      const total = counts.reduce((s, c) => ({ elements: s.elements + c.elements, reads: s.reads + c.reads, writes: s.writes + c.writes, flops: s.flops + c.flops, intOps: s.intOps + c.intOps }), { elements: 0, reads: 0, writes: 0, flops: 0, intOps: 0 });
      // The optimal plan is one loop: n points, xs read in three orders, one result written.
      expect(counts).toHaveLength(1);
      expect(total).toEqual({ elements: n, reads: 3 * n, writes: n, flops: 5 * n, intOps: 5 * n });
      // xs is loaded three times per point but moved once: 8n bytes, and the result's 8n.
      expect(counts[0]!.memoryBytes).toBe(16 * n);
    }
  });

  it('a conditional counts its condition and the branch taken only; casts, constants and Math calls as documented', async () => {
    // Per element: `x > 0.0` (1 float); taken `x * 2.0 + 1.0` (2 float) or `sqrt(-x)` (neg + sqrt: 2 float);
    // then `i32(...)` is a cast (0) and `+ 1` one integer operation.
    const source = 'def main(xs: f64[n]):\n  return map(lam x: i32(x * 2.0 + 1.0 if x > 0.0 else sqrt(-x)) + 1, xs)\n';
    const { counts } = await countsOf(source, { xs: f64([1, -4, 2, -0, NaN]) });
    // 1 + 2 each (both branches cost 2 here) and one integer addition each.
    expect(counts[0]).toMatchObject({ elements: 5, flops: 15, intOps: 5 });
    const lopsided = 'def main(xs: f64[n]):\n  return map(lam x: x * x * x * x if x > 0.0 else x, xs)\n';
    // Positive elements: 1 + 3; the others: 1 + 0.
    expect((await countsOf(lopsided, { xs: f64([1, -1, 2, 0]) })).counts[0]).toMatchObject({ flops: 2 * 4 + 2 * 1, intOps: 0 });
  });

  it('a while loop sums its iterations; code outside clusters is in no cluster', async () => {
    const source = [
      'def main(xs: f64[n], k: i32):',
      '  ys = xs',
      '  t = 0',
      '  while t < k:',
      '    ys = map(lam y: y * 0.5, ys)',
      '    t = t + 1',
      '  return ys',
      '',
    ].join('\n');
    const { counts } = await countsOf(source, { xs: f64(range(6)), k: scalar(3) });
    const total = counts.reduce((s, c) => s + c.elements, 0);
    expect(total).toBe(18);
    // Each of the three calls moves its 6 elements in and out: memory bytes are per call.
    expect(counts.reduce((s, c) => s + c.memoryBytes, 0)).toBe(3 * 2 * 6 * 8);
    expect(counts.reduce((s, c) => s + c.flops, 0)).toBe(18);
    // `t < k` and `t + 1` are main's scalar code, outside every cluster.
    expect(counts.reduce((s, c) => s + c.intOps, 0)).toBe(0);
  });

  it('per-cluster reads and writes add up to the per-array counters (plan with several clusters)', async () => {
    const source = [
      'def main(xs: f64[n], is: i32[m]):',
      '  ys = map(lam x: x * 2.0 + 1.0, xs)',
      '  s = fold(lam(a, b): a + b, 0.0, ys)',
      '  return (s, gather(is, ys), reverse(ys))',
      '',
    ].join('\n');
    const { counts, stats } = await countsOf(source, { xs: f64(range(9)), is: i32([8, 0, 4]) });
    let reads = 0;
    let writes = 0;
    for (const t of Object.values(stats.counters!)) {
      writes += t.writes;
      for (const n of Object.values(t.reads)) reads += n;
    }
    expect(counts.reduce((s, c) => s + c.reads, 0)).toBe(reads);
    expect(counts.reduce((s, c) => s + c.writes, 0)).toBe(writes);
  });

  it('runs without counters have no counts', async () => {
    const compiler = new Compiler('def main(xs: f64[n]):\n  return map(lam x: x + 1.0, xs)\n', config.api);
    try {
      const run = (await compiler.execute({ xs: f64([1, 2]) }, { timing: true })).run!;
      expect(run.stats.clusters.map((c) => c.counts)).toEqual([null]);
    } finally {
      await compiler.dispose();
    }
  });

  it('execute with a roofline: counted once, timed, the last timed run the results; same counts', async () => {
    const compiler = new Compiler('def main(xs: f64[n]):\n  return map(lam x: x * 2.0 + 1.0, xs)\n', config.api);
    try {
      const execution = await compiler.execute({ xs: f64([1, 2, 3]) }, { roofline: { machine, timedRuns: 3 } });
      expect(Array.from((execution.results[0] as { data: Float64Array }).data)).toEqual([3, 5, 7]);
      const roofline = execution.roofline!;
      expect(roofline.machine).toBe(machine);
      expect(roofline.timedRuns).toBe(3);
      expect(roofline.clusters).toHaveLength(1);
      expect(roofline.clusters[0]).toMatchObject({ cluster: 0, elements: 3, bytes: 48, memoryBytes: 48, flops: 6, runs: 1 });
      expect(roofline.total).toMatchObject({ elements: 3, bytes: 48, flops: 6, runs: 1 });
      expect(roofline.counted.counters).not.toBeNull();
      // The execution's run is a timed run of the plain module, which does not count.
      expect(execution.run!.stats.counters).toBeNull();
    } finally {
      await compiler.dispose();
    }
  });
});

describe('the counting run on random programs (control flow, selects, folds, scatters)', () => {
  const solver = createSolverLoader();
  it.each(Array.from({ length: 30 }, (_, k) => k + 1))('seed %i: computes what the interpreter does; its counts are consistent', async (seed) => {
    const c = randomProgram(seed, { combinators: { min: 2, max: 8 } });
    let expected: InterfaceValue[];
    try {
      expected = interpret(c.program, c.inputs) as InterfaceValue[];
    } catch (e) {
      if (e instanceof UserError) return; // a program that faults: the fault tests cover it
      throw e;
    }
    const p = await plan(c.program, { strategy: 'ilp', solver });
    expect(validatePlan(c.program, p)).toEqual([]);
    const exe = compileProgram(c.program, p);
    const run = exe.run(c.inputs, { counters: true });
    expectSameValues(run.results, expected, c.description);
    let reads = 0;
    let writes = 0;
    for (const t of Object.values(run.stats.counters!)) {
      writes += t.writes;
      for (const n of Object.values(t.reads)) reads += n;
    }
    const counts = run.stats.clusters.map((k) => k.counts!);
    // Loads outside clusters (main's scalar code) count for no cluster.
    expect(counts.reduce((s, k) => s + k.reads, 0)).toBeLessThanOrEqual(reads);
    expect(counts.reduce((s, k) => s + k.writes, 0)).toBe(writes);
    for (const k of counts) {
      expect(k.memoryBytes, c.description).toBeLessThanOrEqual(k.bytesRead + k.bytesWritten);
      if (k.reads + k.writes > 0) expect(k.memoryBytes, c.description).toBeGreaterThan(0);
      for (const n of [k.elements, k.flops, k.intOps]) expect(Number.isInteger(n) && n >= 0).toBe(true);
    }
  });
});

describe('roofline options', () => {
  const source = 'def main(xs: f64[n]):\n  return map(lam x: x * 2.0, xs)\n';

  it('refuses donated inputs (a run may write them) and a timedRuns that is not a positive integer', async () => {
    const compiler = new Compiler(source, {});
    await expect(compiler.execute({ xs: f64([1]) }, { roofline: { machine }, donate: ['xs'] })).rejects.toThrow(TypeError);
    for (const timedRuns of [0, -1, 1.5, NaN]) await expect(compiler.execute({ xs: f64([1]) }, { roofline: { machine, timedRuns } })).rejects.toThrow(/timedRuns/);
  });

  it('an interpreted run has none; false asks for none', async () => {
    const compiler = new Compiler(source, {});
    expect((await compiler.execute({ xs: f64([1]) }, { roofline: { machine }, interpret: true })).roofline).toBeUndefined();
    expect((await compiler.execute({ xs: f64([1]) }, { roofline: false })).roofline).toBeUndefined();
  });

  it('the public API returns it from execute', async () => {
    const api = await import('../../src/index.js');
    const program = api.compile(source);
    const execution = await program.execute({ xs: new Float64Array([1, 2]) }, { roofline: { machine, timedRuns: 1 } });
    expect(execution.roofline?.clusters[0]).toMatchObject({ elements: 2, bytes: 32, flops: 2 });
    expect((await program.execute({ xs: new Float64Array([1, 2]) })).roofline).toBeUndefined();
    await program.dispose();
  });
});

describe('roofline arithmetic', () => {
  const counts = (c: Partial<ClusterCounts>): ClusterCounts => ({ ...zero, ...c });

  it('rates, fractions, intensity and the roof from counts and a time', () => {
    // 16 MB and 2 Mflop in 2 ms: 8 GB/s (80% of 10), 1 GFLOP/s (25% of 4), 0.125 flop/byte < 0.4: memory.
    const row = rowOf(counts({ elements: 1e6, bytesRead: 24e6, bytesWritten: 8e6, memoryBytes: 16e6, flops: 2e6 }), 1, 2, machine);
    expect(row.bytes).toBe(32e6);
    expect(row.loadStoreGbPerSecond).toBeCloseTo(16, 12);
    expect(row.gbPerSecond).toBeCloseTo(8, 12);
    expect(row.gflopPerSecond).toBeCloseTo(1, 12);
    expect(row.intensity).toBe(0.125);
    expect(row.bandwidthFraction).toBeCloseTo(0.8, 12);
    expect(row.peakFraction).toBeCloseTo(0.25, 12);
    expect(row.roof).toBe('memory');
    expect(row.verdict).toBe('memory-bound');
  });

  it('verdicts: memory-bound, in-cache, compute-bound, far, unmeasured', () => {
    expect(verdictOf(true, 'memory', 0.5, 0)).toBe('memory-bound');
    expect(verdictOf(true, 'memory', 0.49, 0.9)).toBe('far');
    expect(verdictOf(true, 'memory', 1.01, 0)).toBe('in-cache');
    expect(verdictOf(true, 'compute', 3, 0.5)).toBe('compute-bound');
    expect(verdictOf(true, 'compute', 0.9, 0.2)).toBe('far');
    expect(verdictOf(false, 'memory', 0, 0)).toBe('unmeasured');
  });

  it('a loop that computes without moving bytes has infinite intensity and the compute roof; one that does neither, none', () => {
    const compute = rowOf(counts({ elements: 1, flops: 8e6 }), 1, 1, machine);
    expect([compute.intensity, compute.roof, compute.gflopPerSecond, compute.verdict]).toEqual([Infinity, 'compute', 8, 'compute-bound']);
    const idle = rowOf(zero, 1, 0, machine);
    expect([idle.intensity, idle.gbPerSecond, idle.roof, idle.verdict]).toEqual([0, 0, 'memory', 'unmeasured']);
  });

  it('rooflineOf: each cluster its fastest timed run, the total their sums', () => {
    const stats = (times: readonly number[], withCounts: boolean): RunStats => ({
      threads: 1,
      clusters: times.map((timeMs, k) => ({
        nodes: [k],
        manifest: [`a${k}`],
        timeMs,
        runs: 2,
        parallelRuns: 0,
        schedule: null,
        counts: withCounts ? counts({ elements: 100, reads: 100, writes: 100, bytesRead: 800 * (k + 1), bytesWritten: 800, memoryBytes: 1600, flops: 200 }) : null,
      })),
      allocations: [],
      bytesAllocated: 0,
      peakBytes: 0,
      poolBytes: 0,
      counters: null,
    });
    const r = rooflineOf(stats([0, 0], true), [stats([3, 1], false), stats([2, 5], false)], machine);
    expect(r.clusters.map((c) => c.timeMs)).toEqual([2, 1]);
    expect(r.clusters.map((c) => c.bytes)).toEqual([1600, 2400]);
    expect(r.total).toMatchObject({ elements: 200, bytes: 4000, memoryBytes: 3200, flops: 400, timeMs: 3, runs: 4 });
    expect(r.timedRuns).toBe(2);
    expect(() => rooflineOf(stats([0], false), [stats([1], false)], machine)).toThrow(/did not count/);
    expect(() => rooflineOf(stats([0, 0], true), [stats([1], false)], machine)).toThrow(/different executables/);
    expect(() => rooflineOf(stats([0], true), [], machine)).toThrow(/timed run/);
  });
});

describe('measureMachine', () => {
  it('returns positive finite rates for the sizes asked (small here; no assertion on their values)', () => {
    const m = measureMachine({ triadElements: 1000, repetitions: 2, chainIterations: 1000 });
    expect(m.triadElements).toBe(1000);
    expect(m.repetitions).toBe(2);
    for (const rate of [m.bandwidth, m.peakFlops]) expect(Number.isFinite(rate) && rate > 0).toBe(true);
  });

  it('refuses sizes that are not positive integers', () => {
    for (const bad of [{ triadElements: 0 }, { repetitions: 0.5 }, { chainIterations: -1 }]) expect(() => measureMachine(bad)).toThrow(RangeError);
  });
});
