// Smoke test of `npm run bench:memory` (bench/memory/): every part at a tiny size runs its
// variants interleaved and verifies their outputs; a wrong output fails the benchmark with its
// variant named; the NumPy peer computes what the hand loop does, or is skipped with a notice
// when the python has no NumPy; the tables show what was measured.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { measureApp } from '../../bench/memory/apps.js';
import { interleave, perCall } from '../../bench/memory/harness.js';
import { numpyMissing, startNumpy } from '../../bench/memory/numpy.js';
import { measureOverhead } from '../../bench/memory/overhead.js';
import { appsTable, overheadTable, scatterTable, singleLoopTable, targets } from '../../bench/memory/report.js';
import { compile } from '../../src/index.js';
import { HISTOGRAM_FILE, histogramCopying, histogramInPlace, histogramInputs, histogramSizes, measureScatter } from '../../bench/memory/scatter.js';
import { arrayResult, measureSingleLoop, singleLoopHand, singleLoopInput, type SingleLoopVariant } from '../../bench/memory/singleLoop.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
// The harness collects garbage between runs; without --expose-gc a no-op stands in.
const g = globalThis as { gc?: () => void };
g.gc ??= () => {};

const hasNumpy = numpyMissing('python3') === null;

// `run-out` (run(inputs, { out })) is measured by `npm run bench:memory` and left out here until
// the public API's `out` has landed: add it to this list then.
const workingVariants: readonly SingleLoopVariant[] = ['run', 'hand-reused', 'hand-new', 'numpy'];

describe('bench:memory at tiny sizes', () => {
  it('singleLoop: every variant agrees with the hand loop, with faults counted per call', async () => {
    const r = await measureSingleLoop({ repoRoot, n: 64, repetitions: 2, python: 'python3', variants: workingVariants });
    const ran = r.timings.map((t) => t.id);
    expect(ran).toEqual(hasNumpy ? workingVariants : workingVariants.filter((v) => v !== 'numpy'));
    expect(r.skipped).toHaveLength(hasNumpy ? 0 : 1);
    for (const t of r.timings) {
      expect(t.runsMs).toHaveLength(2);
      expect(t.ms.min).toBeLessThanOrEqual(t.ms.median);
      expect(t.ms.median).toBeLessThanOrEqual(t.ms.max);
      expect(t.minorFaults).toBeGreaterThanOrEqual(0);
    }
    const table = singleLoopTable(r);
    expect(table).toContain('hand loop into a reused array | ');
    expect(table.split('\n')).toHaveLength(2 + r.timings.length);
  });

  it('singleLoop: a NumPy peer that is missing is skipped with a notice, not an error', async () => {
    expect(numpyMissing('/nonexistent/python3')).toMatch(/not found/);
    const r = await measureSingleLoop({ repoRoot, n: 8, repetitions: 1, python: '/nonexistent/python3', variants: ['hand-reused', 'numpy'] });
    expect(r.timings.map((t) => t.id)).toEqual(['hand-reused']);
    expect(r.skipped[0]).toMatch(/^NumPy skipped: /);
  });

  it.runIf(hasNumpy)('the NumPy peer computes singleLoop bit for bit as the hand loop does, and times itself', async () => {
    const as = singleLoopInput(1000);
    const peer = await startNumpy('python3', 'singleLoop', as);
    try {
      const checked = await peer.call(true);
      expect(checked.results[0]).toEqual(singleLoopHand(as, new Float64Array(1000)));
      expect(checked.ms).toBeGreaterThan(0);
      const unchecked = await peer.call(false);
      expect(unchecked.results).toEqual([]);
    } finally {
      peer.close();
    }
  });

  it('a variant whose output differs fails the benchmark and is named', async () => {
    const expected = [new Float64Array([1, 2])];
    await expect(
      interleave(
        [
          { id: 'right', label: 'right one', run: () => ({ results: [new Float64Array([1, 2])] }) },
          { id: 'wrong', label: 'wrong one', run: () => ({ results: [new Float64Array([1, 3])] }) },
        ],
        { repetitions: 1, expected, what: 'test' },
      ),
    ).rejects.toThrow('test, wrong one: result 0[1]: 3, expected 2');
    // Right in the warm-up, wrong at the last timed call: still caught.
    let calls = 0;
    await expect(
      interleave([{ id: 'late', label: 'late', run: () => ({ results: [new Float64Array([1, ++calls > 2 ? 0 : 2])] }) }], { repetitions: 2, expected, what: 'test' }),
    ).rejects.toThrow('late: result 0[1]: 0, expected 2');
    // A reused output poisoned before each call: a call that skips writing it is caught.
    const reused = new Float64Array([1, 2]);
    let writes = 0;
    await expect(
      interleave(
        [
          {
            id: 'stale',
            label: 'stale out',
            prepare: () => reused.fill(Number.NaN),
            run: () => {
              if (writes++ < 1) reused.set([1, 2]);
              return { results: [reused] };
            },
          },
        ],
        { repetitions: 2, expected, what: 'test' },
      ),
    ).rejects.toThrow('stale out: result 0[0]: NaN, expected 1');
    await expect(perCall([{ id: 'p', label: 'per call', run: () => [new Float64Array([0, 2])] }], { rounds: 1, calls: 2, expected, what: 'test' })).rejects.toThrow(
      'test, per call: result 0[0]: 0, expected 1',
    );
  });

  it('scatter: the histogram under the ILP plan and no fusion equals both hand loops', async () => {
    const x = histogramInputs(histogramSizes.quick);
    expect(histogramCopying(x)).toEqual(histogramInPlace(x));
    const r = await measureScatter(repoRoot, histogramSizes.quick, 2);
    expect(r.timings.map((t) => t.id)).toEqual(['ilp', 'none', 'hand-inplace', 'hand-copy']);
    expect(r.plans.map((p) => p.strategy)).toEqual(['ilp', 'none']);
    expect(r.bytesAllocated['ilp']).toBeGreaterThan(0);
    const table = scatterTable(r);
    expect(table).toMatch(/^- ilp: \d+ clusters, \d+ copies elided, manifest /m);
  });

  it.each([
    { m: 0, nbins: 4, batch: 2 },
    { m: 12, nbins: 1, batch: 3 },
    { m: 40, nbins: 7, batch: 8 },
    { m: 30, nbins: 50, batch: 30 },
  ])('histogram.fuse (m = $m, nbins = $nbins, batch = $batch): every strategy equals the interpreter and the hand loop', async (size) => {
    const x = histogramInputs(size);
    const program = compile(readFileSync(join(repoRoot, HISTOGRAM_FILE), 'utf8'), { fileName: HISTOGRAM_FILE });
    const inputs = { keys: x.keys, weights: x.weights, nbins: size.nbins, batch: size.batch };
    const want = histogramInPlace(x);
    expect(arrayResult(await program.run(inputs, { interpret: true }), 'hist')).toEqual(want);
    for (const strategy of ['ilp', 'greedy-down', 'greedy-up', 'none'] as const) {
      expect(arrayResult(await program.run(inputs, { strategy }), 'hist')).toEqual(want);
    }
    // The inputs are the caller's: no plan writes them.
    expect(x.keys).toEqual(histogramInputs(size).keys);
    await program.dispose();
  });

  it('per-call overhead: every layer returns the hand loop result', async () => {
    const r = await measureOverhead(repoRoot, 10, 2, 3);
    expect(r.timings.map((t) => t.id)).toEqual(['api', 'execute', 'executable', 'hand']);
    for (const t of r.timings) expect(t.us.median).toBeGreaterThan(0);
    expect(overheadTable([r])).toMatch(/^\| 10 \| /m);
    expect(targets(null, [], [r]).map((t) => t.what)).toEqual(['public run at n = 10 ≤ 5 µs per call']);
  });

  it('apps: MG and LULESH at their smoke sizes run verified, with bytes per run and peak RSS', async () => {
    const rows = [await measureApp(repoRoot, 'mg', 'quick', 1), await measureApp(repoRoot, 'lulesh', 'quick', 1)];
    for (const a of rows) {
      expect(a.runs).toHaveLength(1);
      expect(a.bytesAllocated).toBeGreaterThanOrEqual(0);
      expect(a.maxRssBytes).toBeGreaterThan(0);
      expect(a.planPeakBytes).toBeGreaterThanOrEqual(0);
    }
    expect(appsTable(rows).split('\n')).toHaveLength(4);
    expect(targets(null, rows, []).map((t) => t.what)).toEqual([
      `NAS MG ${rows[0]!.label}: bytes allocated per run after the first → 0`,
      `LULESH ${rows[1]!.label}: bytes allocated per run after the first → 0`,
    ]);
  });
});
