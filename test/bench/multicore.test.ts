// The multicore benchmark's own checks (bench/multicore): thread counts parse as the command
// line writes them, the float policy's comparison accepts regrouped floats and nothing else,
// inputs move onto SharedArrayBuffers unchanged, the bars are judged on every input kind, the
// calibration reads the work estimate of a parallel module, and a small measurement runs,
// verifies and times every variant; bench:paper's parallel bar and bench:exec's parallel column
// run and verify the baseline's plan on the multicore back end.

import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { availableParallelism, tmpdir } from 'node:os';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import type { ArrayValue } from '../../src/ir/values.js';
import { multicoreCases } from '../../bench/multicore/cases.js';
import { measureCase, variantSpecs, type CaseResult } from '../../bench/multicore/harness.js';
import { barChecks } from '../../bench/multicore/report.js';
import { breakEven, proposedThreshold, workOf, type CalibrationResult } from '../../bench/multicore/calibrate.js';
import { agreement, agreementText, parseThreadList, parseThreads, sharedInputs } from '../../bench/multicore/threads.js';
import { runPaperBenchmark } from '../../bench/paper/run.js';
import { BASELINE_ID, PARALLEL_ID } from '../../bench/paper/harness.js';
import { measure } from '../../bench/exec/harness.js';
import { execPrograms } from '../../bench/exec/programs.js';

const repoRoot = join(import.meta.dirname, '..', '..');
// The harness collects garbage between runs; without --expose-gc a no-op stands in.
const g = globalThis as { gc?: () => void };
g.gc ??= () => {};

describe('thread counts', () => {
  it('parses counts, all, and lists (sorted, each once)', () => {
    expect(parseThreads('3')).toBe(3);
    expect(parseThreads('all')).toBe(availableParallelism());
    expect(parseThreadList('4,1,2,4')).toEqual([1, 2, 4]);
    for (const bad of ['0', '-1', '1.5', '', 'two']) expect(() => parseThreads(bad)).toThrow(/positive integer or "all"/);
  });

  it('measures 1 thread first, then each count on the input kinds asked for', () => {
    expect(variantSpecs({ threads: [1, 2, 4], ordinaryInputs: true, sharedInputs: true })).toEqual([
      { threads: 1, shared: false },
      { threads: 2, shared: false },
      { threads: 2, shared: true },
      { threads: 4, shared: false },
      { threads: 4, shared: true },
    ]);
    expect(variantSpecs({ threads: [2], ordinaryInputs: false, sharedInputs: true })).toEqual([
      { threads: 1, shared: false },
      { threads: 2, shared: true },
    ]);
  });
});

describe('the float policy', () => {
  it('is bit-exact when every element is the same (Object.is: -0 and NaN included)', () => {
    const a = agreement([new Float64Array([1, -0, NaN]), 5], [new Float64Array([1, -0, NaN]), 5]);
    expect(a).toEqual({ bitExact: true, maxRelative: 0, wrong: null });
    expect(agreementText(a)).toBe('bit-exact');
  });

  it('accepts floats regrouped within the tolerance, relative to the largest magnitude', () => {
    const a = agreement([new Float64Array([1e6, 1])], [new Float64Array([1e6, 1 + 1e-6])]);
    expect(a.wrong).toBeNull();
    expect(a.bitExact).toBe(false);
    expect(a.maxRelative).toBeCloseTo(1e-12, 15);
    expect(agreementText(a)).toBe('≤ 1.0e-12 rel');
  });

  it('rejects floats beyond the tolerance, any integer difference, NaN against a number, and other shapes', () => {
    expect(agreement([new Float64Array([1])], [new Float64Array([1.001])]).wrong).toMatch(/^result 0\[0\]: 1.001, expected 1 \(relative 1.00e-3 > 1e-9\)$/);
    expect(agreement([new Int32Array([7])], [new Int32Array([8])]).wrong).toBe('result 0[0]: 8, expected 7');
    expect(agreement([new Float64Array([0])], [new Float64Array([NaN])]).wrong).toMatch(/NaN, expected 0/);
    expect(agreement([new Float64Array(2)], [new Float64Array(3)]).wrong).toBe('result 0: 3 elements, expected 2 elements');
    expect(agreement([1], [1, 2]).wrong).toBe('2 results, expected 1');
    expect(agreementText(agreement([new Int32Array([7])], [new Int32Array([8])]))).toMatch(/^DIFFERS: /);
  });
});

describe('shared inputs', () => {
  it('copies every array (tuple components too) onto a SharedArrayBuffer and leaves scalars', () => {
    const xs = new Float64Array([1.5, -0, NaN]);
    const is = new Int32Array([3, -4]);
    const shared = sharedInputs({
      xs: { kind: 'array', elem: 'f64', shape: [3], data: xs },
      pairs: [
        { kind: 'array', elem: 'i32', shape: [2], data: is },
        { kind: 'array', elem: 'f64', shape: [2], data: new Float64Array([1, 2]) },
      ],
      k: { kind: 'scalar', elem: 'i32', value: 4 },
    });
    const x = shared['xs'] as ArrayValue;
    expect(x.data.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(x.data).toBeInstanceOf(Float64Array);
    expect(Array.from(x.data)).toEqual([1.5, -0, NaN]);
    expect(x.data).not.toBe(xs);
    expect(x.shape).toEqual([3]);
    const pair = shared['pairs'] as readonly ArrayValue[];
    expect(pair[0]!.data).toBeInstanceOf(Int32Array);
    expect(pair[0]!.data.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Array.from(pair[0]!.data)).toEqual([3, -4]);
    expect(shared['k']).toEqual({ kind: 'scalar', elem: 'i32', value: 4 });
  });
});

describe('bars and calibration', () => {
  const result = (kind: CaseResult['kind'], speedups: readonly [number | null, number | null]): CaseResult => ({
    id: 'x',
    name: 'x',
    kind,
    file: 'x.fuse',
    size: 'n',
    clusters: 1,
    callsPerSample: 1,
    repetitions: 1,
    variants: [
      { id: '1t', label: '1 thread', threads: 1, shared: false, runsMs: [1], ms: { median: 1, min: 1, max: 1 }, speedup: 1, agreement: null, forks: null, error: null },
      ...speedups.map((s, k) => ({
        id: `2t${k === 1 ? '-shared' : ''}`,
        label: '2 threads',
        threads: 2,
        shared: k === 1,
        runsMs: [1],
        ms: { median: 1, min: 1, max: 1 },
        speedup: s,
        agreement: null,
        forks: null,
        error: s === null ? 'wrong output' : null,
      })),
    ],
  });

  it('holds an application to 1.7× and the rest to 0.95×, on every input kind measured', () => {
    const [app, example, failed] = barChecks([result('app', [1.8, 1.6]), result('example', [0.96, 1]), result('stream', [null, null])], 2);
    expect(app).toMatchObject({ bar: 1.7, ordinary: 1.8, shared: 1.6, met: false });
    expect(example).toMatchObject({ bar: 0.95, met: true });
    expect(failed).toMatchObject({ ordinary: null, shared: null, met: null });
  });

  it('breaks even at the smallest extent from which forking wins at every larger one, and proposes the largest break-even', () => {
    const t = (median: number) => ({ median, min: median, max: median });
    const rows = (forkedWins: readonly boolean[], work: number | null) =>
      forkedWins.map((wins, k) => ({ extent: 2 ** (10 + k), workPerIteration: work, didFork: true, serial: t(10), forked: t(wins ? 9 : 11) }));
    expect(breakEven(rows([false, true, false, true, true], 3))).toEqual({ breakEvenExtent: 2 ** 13, breakEvenWork: 3 * 2 ** 13 });
    expect(breakEven(rows([true, true], null))).toEqual({ breakEvenExtent: 2 ** 10, breakEvenWork: null });
    expect(breakEven(rows([true, false], 3))).toEqual({ breakEvenExtent: null, breakEvenWork: null });
    // A row whose call did not fork (a fold of one chunk) is passed over, whatever its times.
    const folds = rows([true, false, true], 2).map((r, k) => (k === 1 ? { ...r, didFork: false } : k === 0 ? { ...r, didFork: false } : r));
    expect(breakEven(folds)).toEqual({ breakEvenExtent: 2 ** 12, breakEvenWork: 2 * 2 ** 12 });
    const result = (program: CalibrationResult['program'], breakEvenWork: number | null): CalibrationResult =>
      ({ program, what: program, threads: 2, rows: [], breakEvenExtent: breakEvenWork === null ? null : 1, breakEvenWork });
    expect(proposedThreshold([result('light', null), result('heavy', 5000), result('fold', 70000)])).toEqual({ threshold: 70000, from: 'fold', neverWon: ['light'] });
    expect(proposedThreshold([result('light', null)])).toEqual({ threshold: null, from: null, neverWon: ['light'] });
  });

  it("reads the work estimate of a parallel module's rt.par call", () => {
    expect(workOf('function main(rt) { rt.par(0, 1, n3, 12, false, [a, b]); }')).toBe(12);
    expect(workOf('rt.par(2, 0, 4096, 2.5, true, [])')).toBe(2.5);
    expect(workOf('function main(rt) { c0(rt, a); }')).toBeNull();
    expect(workOf('rt.par(0, 1, n, w * 2, false, [])')).toBeNull();
  });
});

describe('a measurement', () => {
  const small = { streamN: 4096, exampleN: 512 };

  it.each(['singleLoop', 'greedyTopDownBad', 'scatterExample'])('%s: 1 thread verified against the hand loop and timed', async (id) => {
    const c = multicoreCases(small).find((x) => x.id === id)!;
    const r = await measureCase(c, {
      repoRoot,
      solver: createSolverLoader(),
      threads: [],
      ordinaryInputs: true,
      sharedInputs: true,
      repetitions: 2,
      minSampleMs: 0,
      tuning: {},
    });
    expect(r.variants.map((v) => v.id)).toEqual(['1t']);
    expect(r.variants[0]).toMatchObject({ error: null, speedup: 1 });
    expect(r.variants[0]!.runsMs).toHaveLength(2);
  });

  it('singleLoop and greedyTopDownBad: 2 threads on both input kinds agree with 1 thread (threshold 0, chunks of 100)', async () => {
    for (const id of ['singleLoop', 'greedyTopDownBad']) {
      const c = multicoreCases(small).find((x) => x.id === id)!;
      const r = await measureCase(c, {
        repoRoot,
        solver: createSolverLoader(),
        threads: [2],
        ordinaryInputs: true,
        sharedInputs: true,
        repetitions: 2,
        minSampleMs: 0,
        tuning: { parallelThreshold: 0, chunkLength: 100 },
      });
      expect(r.variants.map((v) => [v.id, v.error])).toEqual([
        ['1t', null],
        ['2t', null],
        ['2t-shared', null],
      ]);
      for (const v of r.variants.slice(1)) {
        expect(v.agreement?.wrong).toBeNull();
        expect(v.speedup).toBeGreaterThan(0);
      }
      // One thread never forks; on shared inputs with the threshold at 0 every cluster call does.
      expect(r.variants[0]!.forks).toEqual({ forked: 0, calls: r.clusters });
      expect(r.variants[2]!.forks).toEqual({ forked: r.clusters, calls: r.clusters });
    }
  });

  it('lists the issue\'s programs at the issue\'s sizes', () => {
    const cases = multicoreCases();
    expect(cases.slice(0, 4).map((c) => [c.id, c.kind, c.size])).toEqual([
      ['mg', 'app', 'class W (128³, nit=4)'],
      ['lulesh', 'app', '-s 10'],
      ['flash', 'app', 'n=1024, d=64, br=bc=64'],
      ['stream', 'stream', 'as: 10000000'],
    ]);
    expect(cases.filter((c) => c.kind === 'example')).toHaveLength(12);
    expect(cases.find((c) => c.id === 'simple1')!.size).toBe('is, xs: 10000');
  });
});

describe('--threads on bench:paper and bench:exec', () => {
  const paper = (threads: number) =>
    runPaperBenchmark({
      mode: 'quick',
      programs: ['greedyTopDownBad', 'Multigrid'],
      strategies: [BASELINE_ID, 'none'],
      repetitions: 1,
      outDir: mkdtempSync(join(tmpdir(), 'arrayfuse-paper-threads-')),
      cbcSeconds: 0,
      ilpTimeLimitSeconds: 30,
      threads,
      command: 'test',
    });

  it('bench:paper: the parallel bar runs the baseline plan on 2 threads, verified, and Figure 3 shows it', async () => {
    const { results, outDir } = await paper(2);
    expect(results.failures).toEqual([]);
    expect(results.threads).toBe(2);
    for (const p of results.programs) {
      expect(p.strategies.map((s) => s.id)).toEqual([BASELINE_ID, 'none', PARALLEL_ID]);
      const base = p.strategies.find((s) => s.id === BASELINE_ID)!;
      const parallel = p.strategies.find((s) => s.id === PARALLEL_ID)!;
      expect(parallel.plan!.planKey).toBe(base.plan!.planKey);
      expect(parallel.normalised).toBeGreaterThan(0);
    }
    expect(readFileSync(join(outDir, 'figure3.svg'), 'utf8')).toContain('ILP, 2 threads');
    expect(readFileSync(join(outDir, 'results.md'), 'utf8')).toContain('| ILP (reads+writes), 2 threads |');
  });

  it('bench:exec: the parallel column runs the ILP plan on 2 threads and checks it against the hand loop', async () => {
    for (const name of ['singleLoop', 'greedyTopDownBad', 'scatterExample']) {
      const program = execPrograms.find((p) => p.name === name)!;
      const m = await measure(program, 'n = 300', 300, program.inputs(300), { repoRoot, solver: createSolverLoader(), repetitions: 2, variants: ['ilp', 'hand', 'parallel'], threads: 2 });
      expect(m.variants.map((v) => v.id)).toEqual(['ilp', 'hand', 'parallel']);
      expect(m.variants[2]!.runsMs).toHaveLength(2);
    }
  });
});
