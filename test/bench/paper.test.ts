// Smoke test of `npm run bench:paper` (bench/paper/): the harness on the smallest sizes with one
// repetition plans, runs and verifies every strategy and writes its JSON, Markdown and SVG; the
// verifiers reject wrong outputs; the charts cut tall bars and keep their values.

import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPaperBenchmark } from '../../bench/paper/run.js';
import { allStrategies, BASELINE_ID, median } from '../../bench/paper/harness.js';
import { builtinPrograms, f64Array, i32Scalar, loadRegistry } from '../../bench/paper/registry.js';
import { renderBarChart } from '../../bench/paper/charts.js';
import type { PaperResults } from '../../bench/paper/report.js';

const repoRoot = join(import.meta.dirname, '..', '..');

describe('bench:paper on the quick sizes', () => {
  let results: PaperResults;
  const outDir = mkdtempSync(join(tmpdir(), 'arrayfuse-paper-test-'));

  it('plans, runs and verifies every strategy of both greedy traps', async () => {
    ({ results } = await runPaperBenchmark({
      mode: 'quick',
      programs: ['greedyTopDownBad', 'greedyBottomUpBad'],
      repetitions: 1,
      outDir,
      cbcSeconds: 0,
      ilpTimeLimitSeconds: 30,
      command: 'test',
    }));
    expect(results.failures).toEqual([]);
    expect(results.programs.map((p) => p.program)).toEqual(['greedyTopDownBad', 'greedyBottomUpBad']);
    for (const p of results.programs) {
      expect(p.strategies.map((s) => s.id)).toEqual(allStrategies.map((s) => s.id));
      for (const s of p.strategies) {
        expect(s.runsMs).toHaveLength(1);
        expect(s.plan?.clusters).toBeGreaterThan(0);
      }
      expect(p.strategies.find((s) => s.id === BASELINE_ID)!.normalised).toBe(1);
    }
  });

  it('measures greedyBottomUpBad\'s memory: greedy-up allocates the n×m array, the bytes-optimal plan does not', () => {
    const bottomUp = results.programs.find((p) => p.program === 'greedyBottomUpBad')!;
    const bytes = bottomUp.strategies.find((s) => s.id === 'ilp:bytes')!;
    const greedyUp = bottomUp.strategies.find((s) => s.id === 'greedy-up')!;
    // n = 20, m = 1000: `large` is 20 000 doubles = 160 000 bytes, allocated only when manifest.
    // (Under unit-weight reads+writes the two plans tie, so only `bytes` is sure to avoid it.)
    expect(bytes.largestAllocation!).toBeLessThan(160_000);
    expect(greedyUp.largestAllocation).toBe(160_000);
    expect(greedyUp.bytesAllocated!).toBeGreaterThan(bytes.bytesAllocated!);
    // Different plans, different keys; the key is a pure function of the plan.
    expect(greedyUp.plan!.planKey).not.toBe(bytes.plan!.planKey);
    expect(greedyUp.plan!.planKey).toMatch(/^[0-9a-f]{12}$/);
  });

  it('writes results.json, results.md and the two charts', () => {
    const json = JSON.parse(readFileSync(join(outDir, 'results.json'), 'utf8')) as PaperResults;
    expect(json.programs).toHaveLength(2);
    const md = readFileSync(join(outDir, 'results.md'), 'utf8');
    expect(md).toContain('## Figure 3: ILP against greedy and no fusion');
    expect(md).toContain('| greedyBottomUpBad (n=20, m=1e3) |');
    for (const figure of ['figure3.svg', 'figure4.svg']) {
      const svg = readFileSync(join(outDir, figure), 'utf8');
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
      expect(svg).toContain('greedyTopDownBad (n=1e4)');
    }
  });
});

describe('verifiers reject wrong outputs', () => {
  const bottomUp = builtinPrograms.find((p) => p.name === 'greedyBottomUpBad')!.sizes.quick[0]!;
  const inputs = bottomUp.inputs();
  const verify = bottomUp.verifier(inputs);
  const right = Float64Array.from({ length: 20 }, (_, i) => 1000 * ((i % 7) + 1) + 1);

  it.each([
    ['the right answer', right, null],
    ['one element off by one', right.map((x, i) => (i === 3 ? x + 1 : x)), 'element 3 is 4002, expected 4001'],
    ['a short array', right.subarray(0, 19), 'length 19, expected 20'],
  ])('%s', (_, data, verdict) => {
    expect(verify([f64Array([data.length], data)])).toBe(verdict);
  });

  it('a scalar where an array belongs', () => {
    expect(() => verify([i32Scalar(1)])).toThrow('expected an f64 array');
  });
});

describe('the registry', () => {
  it('runs the built-in programs whose .fuse exists and lists the others, and any .fuse without an adapter, as skipped', async () => {
    const registry = await loadRegistry(repoRoot, join(repoRoot, 'bench', 'programs'));
    for (const p of builtinPrograms) {
      const present = existsSync(join(repoRoot, p.file));
      expect(registry.programs.includes(p)).toBe(present);
      expect(registry.skipped.some((s) => s.file === p.file && s.reason === 'the file does not exist (yet)')).toBe(!present);
    }
    for (const s of registry.skipped.filter((s) => !builtinPrograms.some((p) => p.file === s.file))) {
      expect(s.reason).toContain('.paper.ts exporting paperProgram');
    }
  });
});

describe('charts and medians', () => {
  it('cuts a bar above the axis and prints its value with an arrow', () => {
    const svg = renderBarChart({ title: 't', yLabel: 'y', yMax: 5, groups: ['a'], series: [{ label: 'x', values: [19.6] }, { label: 'z', values: [null] }] });
    expect(svg).toContain('>19.6↑</text>');
    expect(svg.match(/<rect [^>]*><title>/g)).toHaveLength(1);
  });

  it.each([
    [[3, 1, 2], 2],
    [[4, 1, 3, 2], 2.5],
    [[], null],
  ])('median of %j is %j', (xs, m) => {
    expect(median(xs)).toBe(m);
  });
});
