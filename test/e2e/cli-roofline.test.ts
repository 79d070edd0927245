// The command line's roofline: the machine's rates cached in a file (round trip, a corrupt or
// foreign file, another machine's entry, an unwritable place), the table `run --stats` prints
// (a golden rendering of synthetic numbers, and its presence in a real run), and `arrayfuse
// roofline`. The cache lives in a temporary XDG_CACHE_HOME; nothing is measured for real except
// where a test says so (then with no assertion on the numbers).

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { cachedMachine, count, machineKey, renderRoofline, rooflineCachePath } from '../../src/cli/roofline.js';
import { rooflineOf, type ClusterCounts, type MachineRates, type RunStats } from '../../src/runtime/index.js';

const repo = join(import.meta.dirname, '..', '..');
const example = (name: string): string => join(repo, 'examples', name);

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => (out += t.endsWith('\n') ? t : t + '\n'), err: (t) => (err += t.endsWith('\n') ? t : t + '\n') });
  return { code, out, err };
}

const rates: MachineRates = { bandwidth: 12.5e9, peakFlops: 3.2e9, triadElements: 2097152, repetitions: 6 };
const temporary = (): string => mkdtempSync(join(tmpdir(), 'arrayfuse-roofline-'));

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the cache of machine rates', () => {
  it('lives under XDG_CACHE_HOME, else ~/.cache', () => {
    expect(rooflineCachePath({ XDG_CACHE_HOME: '/x/cache' })).toBe(join('/x/cache', 'arrayfuse', 'roofline.json'));
    expect(rooflineCachePath({ XDG_CACHE_HOME: '' })).toMatch(/\.cache[/\\]arrayfuse[/\\]roofline\.json$/);
    expect(rooflineCachePath({})).toMatch(/\.cache[/\\]arrayfuse[/\\]roofline\.json$/);
  });

  it('measures once, then reads the entry back for the same machine key; another key measures again and keeps both', () => {
    const path = join(temporary(), 'nested', 'roofline.json');
    let measured = 0;
    const measure = (): MachineRates => ({ ...rates, bandwidth: rates.bandwidth + measured++ });
    const first = cachedMachine({ path, key: 'cpu A', measure });
    expect(first).toEqual({ rates: { ...rates, bandwidth: rates.bandwidth }, source: 'measured', path });
    const again = cachedMachine({ path, key: 'cpu A', measure });
    expect(again).toEqual({ rates: first.rates, source: 'cached', path });
    expect(measured).toBe(1);
    const other = cachedMachine({ path, key: 'cpu B', measure });
    expect(other.source).toBe('measured');
    const file = JSON.parse(readFileSync(path, 'utf8')) as { version: number; machines: Record<string, MachineRates> };
    expect(file.version).toBe(1);
    expect(Object.keys(file.machines).sort()).toEqual(['cpu A', 'cpu B']);
    // --remeasure replaces the entry.
    expect(cachedMachine({ path, key: 'cpu A', measure, remeasure: true }).rates.bandwidth).toBe(rates.bandwidth + 2);
    expect(cachedMachine({ path, key: 'cpu A', measure }).rates.bandwidth).toBe(rates.bandwidth + 2);
  });

  it.each([
    ['not JSON', '{ oops'],
    ['another version', JSON.stringify({ version: 2, machines: { k: rates } })],
    ['null', 'null'],
    ['an entry that is not rates', JSON.stringify({ version: 1, machines: { k: { bandwidth: 'fast' } } })],
    ['an entry with a zero rate', JSON.stringify({ version: 1, machines: { k: { ...rates, peakFlops: 0 } } })],
  ])('a file with %s is measured over', (_what, text) => {
    const path = join(temporary(), 'roofline.json');
    writeFileSync(path, text);
    const m = cachedMachine({ path, key: 'k', measure: () => rates });
    expect(m.source).toBe('measured');
    expect(cachedMachine({ path, key: 'k', measure: () => ({ ...rates, bandwidth: 1 }) })).toEqual({ rates, source: 'cached', path });
  });

  it('a place that cannot be written leaves the rates measured for this run, said so', () => {
    const blocker = join(temporary(), 'a-file');
    writeFileSync(blocker, 'not a directory');
    const m = cachedMachine({ path: join(blocker, 'arrayfuse', 'roofline.json'), key: 'k', measure: () => rates });
    expect(m.source).toBe('measured');
    expect(m.rates).toEqual(rates);
    expect(m.unwritable).toBeTypeOf('string');
  });

  it('the machine key names the CPU, its cores, the architecture and Node', () => {
    expect(machineKey()).toMatch(new RegExp(` \\| \\d+ cores \\| ${process.arch} \\| node ${process.version.replace(/\./g, '\\.')}$`));
  });
});

describe('the roofline table', () => {
  const counts = (c: Partial<ClusterCounts>): ClusterCounts => ({ elements: 0, reads: 0, writes: 0, bytesRead: 0, bytesWritten: 0, memoryBytes: 0, flops: 0, intOps: 0, ...c });
  const stats = (clusters: readonly { timeMs: number; runs: number; counts: ClusterCounts | null }[]): RunStats => ({
    threads: 1,
    clusters: clusters.map((c, k) => ({ nodes: [k], manifest: [`a${k}`], parallelRuns: 0, schedule: null, ...c })),
    allocations: [],
    bytesAllocated: 0,
    peakBytes: 0,
    poolBytes: 0,
    counters: null,
  });

  it('renders counts, rates, fractions and verdicts (golden)', () => {
    const counted = stats([
      // A stream: 16 MB in 2 ms is 8 GB/s of 12.5 (64%), memory-bound.
      { timeMs: 0, runs: 1, counts: counts({ elements: 1e6, reads: 1e6, writes: 1e6, bytesRead: 8e6, bytesWritten: 8e6, memoryBytes: 16e6, flops: 1e6 }) },
      // A stencil: 27 loads per point but its grid moved once; slow: far.
      { timeMs: 0, runs: 4, counts: counts({ elements: 2097152, reads: 56623104, writes: 2097152, bytesRead: 452984832, bytesWritten: 16777216, memoryBytes: 33554432, flops: 62914560, intOps: 201326592 }) },
      // Arithmetic only: compute-bound.
      { timeMs: 0, runs: 1, counts: counts({ elements: 1, flops: 2e6 }) },
      // Did not run.
      { timeMs: 0, runs: 0, counts: counts({}) },
    ]);
    const timed = stats([
      { timeMs: 2, runs: 1, counts: null },
      { timeMs: 150, runs: 4, counts: null },
      { timeMs: 1, runs: 1, counts: null },
      { timeMs: 0, runs: 0, counts: null },
    ]);
    const text = renderRoofline(rooflineOf(counted, [timed], rates), 'cached in /c/roofline.json');
    expect(text).toBe(
      [
        '  roofline (triad 12.50 GB/s, multiply-add 3.20 GFLOP/s; cached in /c/roofline.json):',
        '    counts from a counting run, times one timed run of the plain module; ld/st B: bytes loaded and stored; memory B: at most once per array element and call;',
        '    GB/s, flop/B and bw (the fraction of the triad) of memory B; peak: the fraction of the multiply-add rate',
        '    cluster  runs  elements  ld/st B  memory B  flops  int ops      ms  GB/s  GFLOP/s  flop/B   bw  peak  verdict',
        '    1           1     1.00M    16.0M     16.0M  1.00M        0    2.00  8.00     0.50    0.06  64%   16%  memory-bound',
        '    2           4     2.10M     470M     33.6M  62.9M     201M  150.00  0.22     0.42    1.88   2%   13%  far',
        '    3           1         1        0         0  2.00M        0    1.00  0.00     2.00     inf   0%   63%  compute-bound',
        '    4           0         0        0         0      0        0    0.00  0.00     0.00    0.00   0%    0%  unmeasured',
        '    total       6     3.10M     486M     49.6M  65.9M     201M  153.00  0.32     0.43    1.33   3%   13%  far',
      ].join('\n'),
    );
  });

  it('counts in three significant digits with an SI prefix', () => {
    expect([0, 999, 1000, 1234, 999_499, 999_500, 12_345_678, 4.56e9, 7e12].map(count)).toEqual(['0', '999', '1.00k', '1.23k', '999k', '1.00M', '12.3M', '4.56G', '7.00T']);
  });
});

describe('arrayfuse run --stats and arrayfuse roofline', () => {
  it('run --stats prints the roofline with the cached rates; --interpret has none', async () => {
    const dir = temporary();
    vi.stubEnv('XDG_CACHE_HOME', dir);
    const path = rooflineCachePath();
    cachedMachine({ path, measure: () => rates });
    const { code, out, err } = await cli('run', example('singleLoop.fuse'), '--random', 'as=f64[1000]', '--stats');
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain(`  roofline (triad 12.50 GB/s, multiply-add 3.20 GFLOP/s; cached in ${path}):`);
    // singleLoop is one cluster: 1000 points; `as` loaded in two orders (16 kB) but moved once
    // (8 kB), the result stored (8 kB); 4 flops a point, and reverse's index n − i − 1 two integer operations.
    expect(out).toMatch(/^ {4}1 +1 +1\.00k +24\.0k +16\.0k +4\.00k +2\.00k /m);
    expect(out).toMatch(/^ {4}total /m);
    // The per-array counters are the counting run's.
    expect(out).toMatch(/^ {4}as: reads 0:1000 g\d+:1000; writes 0$/m);
    const interpreted = await cli('run', example('singleLoop.fuse'), '--random', 'as=f64[10]', '--stats', '--interpret');
    expect(interpreted.out).not.toContain('roofline');
  });

  it('roofline shows the rates and where they come from (text and JSON), measuring once', async () => {
    const dir = temporary();
    vi.stubEnv('XDG_CACHE_HOME', dir);
    const path = rooflineCachePath();
    cachedMachine({ path, measure: () => rates });
    const text = await cli('roofline');
    expect(text.code).toBe(0);
    expect(text.out).toBe(`roofline: triad 12.50 GB/s, multiply-add 3.20 GFLOP/s (2097152 f64 elements per triad array, best of 6; cached in ${path})\n`);
    const json = await cli('roofline', '--format', 'json');
    expect(JSON.parse(json.out)).toEqual({ ...rates, source: 'cached', path });
  });

  it('roofline --remeasure measures for real (no assertion on the numbers)', async () => {
    vi.stubEnv('XDG_CACHE_HOME', temporary());
    const { code, out } = await cli('roofline', '--remeasure', '--format', 'json');
    expect(code).toBe(0);
    const m = JSON.parse(out) as MachineRates & { source: string };
    expect(m.source).toBe('measured');
    expect(m.bandwidth).toBeGreaterThan(0);
    expect(m.peakFlops).toBeGreaterThan(0);
  });
});
