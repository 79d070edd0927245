// The command line end to end, in process (main(argv, terminal)) plus one real spawn of the
// installed bin: exit codes, diagnostics with locations, and results computed independently.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledExampleCount, cli, printedArray, tempFile } from './cliHarness.js';
import { Compiler } from '../../src/driver/index.js';
import type { CompiledProgram } from '../../src/runtime/index.js';
import type { MemoryPlan } from '../../src/memory/types.js';
import { memoryJson, memorySummary } from '../../src/report/render.js';

const repo = join(import.meta.dirname, '..', '..');
const example = (name: string): string => join(repo, 'examples', name);

describe('arrayfuse run', () => {
  it('runs singleLoop on a JSON input and prints reverse(as) + 2as + (2as + 1)', async () => {
    const as = [1, 2, 3, 4.5, -1];
    const input = tempFile('as.json', JSON.stringify({ dtype: 'f64', shape: [5], data: as }));
    const { code, out } = await cli('run', example('singleLoop.fuse'), '--input', `as=${input}`);
    expect(code).toBe(0);
    const expected = as.map((a, i) => as[as.length - 1 - i]! + 2 * a + (2 * a + 1));
    expect(printedArray(out, 'result')).toEqual(expected);
  });

  it('gives the same answer fused, with every strategy, and interpreted', async () => {
    const input = tempFile('as.json', JSON.stringify([0.5, 1.5, 2.5, 3.5]));
    const outputs = await Promise.all(
      [['--strategy', 'ilp'], ['--strategy', 'greedy-up'], ['--strategy', 'greedy-down'], ['--strategy', 'none'], ['--interpret']].map((flags) =>
        cli('run', example('singleLoop.fuse'), '--input', `as=${input}`, ...flags),
      ),
    );
    for (const o of outputs) expect(o.code).toBe(0);
    expect(new Set(outputs.map((o) => o.out)).size).toBe(1);
  });

  it('takes scalars with --arg and random arrays with --random, and writes .npy results', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arrayfuse-out-'));
    const { code, out } = await cli('run', example('greedyBottomUpBad.fuse'), '--random', 'xs=f64[6]', '--arg', 'm=3', '--out', dir);
    expect(code).toBe(0);
    expect(out).toMatch(/^result = \[/m);
    const npy = readFileSync(join(dir, 'result.npy'));
    expect(npy.subarray(1, 6).toString('latin1')).toBe('NUMPY');
  });

  it('runs a byte program: --random u8 arrays, JSON u8 and i8 inputs, .npy |u1 results read back as input', async () => {
    const src = tempFile('bytes.fuse', 'def main(px: u8[n], ds: i8[n]):\n  return map(lam p, d: u8(i32(p) + i32(d)), zip(px, ds))\n');
    const random = await cli('run', src, '--random', 'px=u8[64]', '--random', 'ds=i8[64]@-3..3', '--stats');
    expect(random.code).toBe(0);
    const values = printedArray(random.out, 'result');
    expect(values).toHaveLength(64);
    expect(values.every((v) => Number.isInteger(v) && v >= 0 && v <= 255)).toBe(true);
    expect(random.out).toMatch(/allocated 64 bytes this run in 1 array\(s\): result/);
    const px = tempFile('px.json', JSON.stringify({ dtype: 'u8', shape: [4], data: [0, 1, 254, 255] }));
    const ds = tempFile('ds.json', JSON.stringify({ dtype: 'i8', data: [-1, 127, 2, 1] }));
    const dir = mkdtempSync(join(tmpdir(), 'arrayfuse-bytes-'));
    const run = await cli('run', src, '--input', `px=${px}`, '--input', `ds=${ds}`, '--out', dir);
    expect(run.code).toBe(0);
    expect(printedArray(run.out, 'result')).toEqual([255, 128, 0, 0]);
    const npy = readFileSync(join(dir, 'result.npy'));
    expect(npy.toString('latin1')).toContain("'descr': '|u1'");
    const again = await cli('run', src, '--input', `px=${join(dir, 'result.npy')}`, '--input', `ds=${ds}`);
    expect(printedArray(again.out, 'result')).toEqual([254, 255, 2, 1]);
    // NumPy's default int64 pixel values are read as the u8 parameter's type when every value fits.
    const ds3 = tempFile('ds3.json', JSON.stringify({ dtype: 'i8', data: [0, -1, 1] }));
    const wide = await cli('run', src, '--input', `px=${join(repo, 'test', 'io', 'fixtures', 'i64_3.npy')}`, '--input', `ds=${ds3}`);
    expect(wide.code).toBe(0);
    expect(printedArray(wide.out, 'result')).toEqual([1, 1, 4]);
    const bad = await cli('run', src, '--input', `px=${tempFile('bad.json', JSON.stringify({ dtype: 'u8', shape: [1], data: [256] }))}`, '--input', `ds=${ds}`);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toMatch(/256/);
  });

  it('prints the plan, the traffic counters and allocations with --stats', async () => {
    const input = tempFile('as.json', JSON.stringify([1, 2, 3]));
    const { code, out } = await cli('run', example('singleLoop.fuse'), '--input', `as=${input}`, '--stats');
    expect(code).toBe(0);
    expect(out).toMatch(/allocated 24 bytes this run in 1 array\(s\): result/);
    expect(out).toMatch(/^  memory plan: peak \d+ bytes in \d+ slot\(s\)/m);
  });

  it('--stats reports the memory plan of the executable that ran, for its input sizes', async () => {
    const input = tempFile('as.json', JSON.stringify([1, 2, 3, 4]));
    const { code, out } = await cli('run', example('singleLoop.fuse'), '--input', `as=${input}`, '--strategy', 'none', '--stats');
    expect(code).toBe(0);
    const line = /^  memory plan: peak (\d+) bytes in (\d+) slot\(s\)(?: \((\d+) sized at run time\))?$/m.exec(out);
    expect(line).not.toBeNull();
    // The inputs fix every size, so no slot waits for the run to size it.
    expect(line![3]).toBeUndefined();
    // Without fusion bs, cs and ds are intermediates of 4 f64s (32 bytes): at most three slots of them (64 allows alignment).
    expect(Number(line![1])).toBeLessThanOrEqual(3 * 64);
    // The pool of a one-run executable holds exactly the plan's slots, all sized at compile time.
    expect(out).toMatch(new RegExp(`^  pool: ${line![1]} bytes held across runs$`, 'm'));
  });
});

describe('other commands', () => {
  it('check prints the entry with its inferred parameter types', async () => {
    const { code, out } = await cli('check', example('simple4.fuse'));
    expect(code).toBe(0);
    expect(out).toContain('simple4(is: i32[_], xs: f64[_,_])');
  });

  it('lower prints the core IR', async () => {
    const { code, out } = await cli('lower', example('reverse.fuse'));
    expect(code).toBe(0);
    expect(out).toMatch(/gather/);
    expect(out).toMatch(/generate/);
  });

  it('plan shows one cluster for singleLoop, with the solver statistics', async () => {
    const { code, out } = await cli('plan', example('singleLoop.fuse'), '--format', 'json');
    expect(code).toBe(0);
    const plan = JSON.parse(out) as { status: string; clusters: { nodes: string[]; manifest: string[] }[] };
    expect(plan.status).toBe('optimal');
    expect(plan.clusters).toHaveLength(1);
    expect(plan.clusters[0]!.manifest).toEqual(['result']);
  });

  it('emit --shape prints the module a run with those shapes compiles (its memory plan included)', async () => {
    // Arrays of two sizes and element types: sharing slots by size differs once the sizes are known.
    const source = [
      'def main(xs: f64[n], ys: i32[m]):',
      '  a = map(lam x: x + 1.0, xs)',
      '  b = zipWith(lam p, q: p + q, a, reverse(a))',
      '  c = map(lam y: y * 2, ys)',
      '  d = zipWith(lam p, q: p + q, c, reverse(c))',
      '  e = map(lam x: x * 3.0, b)',
      '  f = zipWith(lam p, q: p + q, e, reverse(e))',
      '  return (f, d)',
      '',
    ].join('\n');
    const file = tempFile('sizes.fuse', source);
    const { code, out } = await cli('emit', file, '--strategy', 'none', '--shape', 'xs=f64[100]', '--shape', 'ys=i32[10]');
    expect(code).toBe(0);
    const signature = { xs: { kind: 'array', elem: 'f64', shape: [100] }, ys: { kind: 'array', elem: 'i32', shape: [10] } } as const;
    const exe = (await new Compiler(source).executable(signature, { strategy: 'none' })) as CompiledProgram;
    expect(out.trim()).toBe(exe.source.trim());
  });

  it("plan's JSON and text carry the memory plan when planned from a program", async () => {
    const { code, out } = await cli('plan', example('singleLoop.fuse'), '--strategy', 'none', '--shape', 'as=f64[1000]', '--format', 'json');
    expect(code).toBe(0);
    const plan = JSON.parse(out) as { memory?: { peakBytes: number; slots: { bytes: number | null; arrays: string[] }[]; dynamicSlots: number } };
    const memory = plan.memory!;
    expect(memory).toBeDefined();
    // The summary is consistent with itself: peakBytes sums the slots sized at compile time.
    expect(memory.peakBytes).toBe(memory.slots.reduce((n, s) => n + (s.bytes ?? 0), 0));
    expect(memory.dynamicSlots).toBe(memory.slots.filter((s) => s.bytes === null).length);
    for (const slot of memory.slots) {
      expect(slot.arrays.length).toBeGreaterThan(0);
      // Sizes known from --shape: every intermediate of singleLoop has 1000 elements (f64 data, i32 indices).
      expect(slot.bytes).toBeGreaterThanOrEqual(4000);
    }
    const text = await cli('plan', example('singleLoop.fuse'), '--strategy', 'none', '--shape', 'as=f64[1000]');
    expect(text.code).toBe(0);
    expect(text.out).toMatch(new RegExp(`^memory: peak ${memory.peakBytes} bytes in ${memory.slots.length} slot\\(s\\), holding \\d+ of \\d+ manifest array\\(s\\)$`, 'm'));
  });

  it("plan --format graph-json prints a graph that plan reads back (another compiler's input)", async () => {
    const graph = await cli('plan', example('simple5.fuse'), '--format', 'graph-json');
    expect(graph.code).toBe(0);
    const path = tempFile('simple5.graph.json', graph.out);
    const direct = await cli('plan', example('simple5.fuse'), '--format', 'json');
    const viaGraph = await cli('plan', path, '--format', 'json');
    expect(viaGraph.code).toBe(0);
    expect(JSON.parse(viaGraph.out)).not.toHaveProperty('memory');
    expect(JSON.parse(direct.out)).toHaveProperty('memory');
    const strip = (out: string): unknown => {
      // A JSON graph has no arrays to place: its plan has no memory section.
      const { timeMs: _t, memory: _m, ...rest } = JSON.parse(out) as { timeMs: number; memory?: unknown };
      return rest;
    };
    expect(strip(viaGraph.out)).toEqual(strip(direct.out));
  });

  it('emit prints generated JavaScript', async () => {
    const { code, out } = await cli('emit', example('simple1.fuse'));
    expect(code).toBe(0);
    expect(out).toMatch(/for \(/);
  });

  it('demo (npm start) runs every bundled example, fused code agreeing with the interpreter', async () => {
    const { code, out } = await cli('demo');
    expect(code).toBe(0);
    expect(out.match(/agrees with the reference interpreter: yes/g)).toHaveLength(bundledExampleCount);
    expect(out).not.toMatch(/agrees with the reference interpreter: NO/);
    expect(out.match(/objective \d+ \(optimal/g)).toHaveLength(bundledExampleCount);
  });

  it('--help works for every command and exits 0', async () => {
    for (const cmd of ['check', 'lower', 'plan', 'run', 'emit', 'demo']) {
      const { code, out } = await cli(cmd, '--help');
      expect(code).toBe(0);
      expect(out).toContain(`Usage: arrayfuse ${cmd}`);
    }
  });
});

describe('errors: one diagnostic with a location and the right exit code', () => {
  it.each([
    ['a syntax error', 'def main(xs):\n  ys = map(lam x: x +, xs)\n  return ys\n', /bad\.fuse:2:\d+: error\[E1\d\d\]/],
    ['an unknown name', 'def main(xs):\n  return map(lam x: x * k, xs)\n', /bad\.fuse:2:\d+: error\[E2\d\d\]/],
    ['a tab in the indentation', 'def main(xs):\n\treturn xs\n', /bad\.fuse:2:1: error\[E1\d\d\]/],
  ])('%s exits 1', async (_what, source, pattern) => {
    const file = tempFile('bad.fuse', source);
    const { code, err } = await cli('check', file);
    expect(code).toBe(1);
    expect(err).toMatch(pattern);
    expect(err).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('an out-of-range gather index is a run-time error pointing at the user line', async () => {
    const is = tempFile('is.json', JSON.stringify({ dtype: 'i32', shape: [2], data: [0, 9] }));
    const xs = tempFile('xs.json', JSON.stringify([1.0, 2.0, 3.0]));
    const { code, err } = await cli('run', example('simple1.fuse'), '--input', `is=${is}`, '--input', `xs=${xs}`);
    expect(code).toBe(1);
    expect(err).toMatch(/simple1\.fuse:4:\d+: error\[E4\d\d\]: .*9/);
  });

  it('a bad .npy file exits 1 and names the file', async () => {
    const bad = tempFile('bad.npy', new Uint8Array([1, 2, 3, 4]));
    const { code, err } = await cli('run', example('singleLoop.fuse'), '--input', `as=${bad}`);
    expect(code).toBe(1);
    expect(err).toMatch(/bad\.npy/);
    expect(err).toMatch(/error\[E5\d\d\]/);
  });

  it('a missing input exits 1 and says which', async () => {
    const { code, err } = await cli('run', example('simple1.fuse'), '--random', 'xs=f64[4]');
    expect(code).toBe(1);
    expect(err).toMatch(/'is'/);
  });

  it('an unknown cost and a negative time limit are usage errors: exit 2 with the diagnostic', async () => {
    const cost = await cli('plan', example('simple1.fuse'), '--cost', 'speed');
    expect([cost.code, cost.err]).toEqual([2, expect.stringContaining('error[E651]')]);
    const limit = await cli('plan', example('simple1.fuse'), '--time-limit', '-1');
    expect([limit.code, limit.err]).toEqual([2, expect.stringContaining('error[E600]')]);
  });

  it("plan --backend plans with that back end's default cost; --cost still wins; a graph refuses --backend", async () => {
    const shape = ['--shape', 'as=f32[1000]'];
    const cpu = await cli('plan', example('singleLoop.fuse'), ...shape);
    expect(cpu.out).toMatch(/^plan: strategy ilp, cost reads\+writes\+recompute;/m);
    // K ÷ N: the default launch price over singleLoop's 1000 elements.
    const gpu = await cli('plan', example('singleLoop.fuse'), '--backend', 'webgpu', ...shape);
    expect([gpu.code, gpu.out]).toEqual([0, expect.stringMatching(/^plan: strategy ilp, cost reads\+writes\+recompute \+ 3600\*clusters;/m)]);
    const given = await cli('plan', example('singleLoop.fuse'), '--backend', 'webgpu', '--cost', 'reads+writes', ...shape);
    expect(given.out).toMatch(/^plan: strategy ilp, cost reads\+writes;/m);
    const graph = tempFile('simple5.graph.json', (await cli('plan', example('simple5.fuse'), '--format', 'graph-json')).out);
    const refused = await cli('plan', graph, '--backend', 'webgpu');
    expect([refused.code, refused.err]).toEqual([2, expect.stringContaining('error[E524]')]);
  });

  it('usage errors exit 2', async () => {
    expect((await cli('run', example('simple1.fuse'), '--bogus')).code).toBe(2);
    expect((await cli('frobnicate')).code).toBe(2);
    expect((await cli('plan', example('simple1.fuse'), '--strategy', 'magic')).code).toBe(2);
  });
});

describe('progress on stderr', () => {
  const mg = join(repo, 'bench', 'programs', 'mg.fuse');
  const shapes = ['--shape', 'v=f64[32,32,32]', '--shape', 'nit=4'];

  it('plan of NAS MG (over 0.5 s to plan): progress lines on stderr, stdout the JSON plan alone; none with --no-progress', async () => {
    const { code, out, err } = await cli('plan', mg, ...shapes, '--format', 'json');
    expect(code).toBe(0);
    expect(() => JSON.parse(out)).not.toThrow();
    const lines = err.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^planning \d+\.\d s: block \d+ of 3, (greedy walks|building the ILP|solving): incumbent (\d+|none yet), bound (\S+|none yet)(, gap \d+\.\d %)?, \d+ nodes?$/);
    const quiet = await cli('plan', mg, ...shapes, '--format', 'json', '--no-progress');
    expect([quiet.code, quiet.err]).toEqual([0, '']);
  });

  it('a fast plan says nothing on stderr', async () => {
    const { code, err } = await cli('plan', example('simple1.fuse'));
    expect([code, err]).toEqual([0, '']);
  });
});

describe('the installed command', () => {
  it('bin/arrayfuse.js runs singleLoop with --random as=f64[10] and prints ten numbers', () => {
    const out = execFileSync(process.execPath, [join(repo, 'bin', 'arrayfuse.js'), 'run', example('singleLoop.fuse'), '--random', 'as=f64[10]'], {
      encoding: 'utf8',
    });
    expect(printedArray(out, 'result')).toHaveLength(10);
  });

  it('stops quietly when its reader closes the pipe early', () => {
    // `true` exits without reading long before node starts, so every write meets EPIPE.
    const script = `"${process.execPath}" "${join(repo, 'bin', 'arrayfuse.js')}" emit "${example('simple4.fuse')}" | true; echo "\${PIPESTATUS[0]}"`;
    const out = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
    expect(out.stderr).toBe('');
    expect(out.stdout.trim()).toBe('0');
  });
});

describe('the memory plan in reports', () => {
  // A plan as the planner makes one for a while loop of unknown size: a slot shared by two
  // intermediates, a loop pair sized at run time, a result written directly, an alias.
  const memory = {
    buffers: {
      bs: { kind: 'slot', slot: 0 },
      ds: { kind: 'slot', slot: 0 },
      ys_2: { kind: 'pair', slots: [1, 2] },
      result: { kind: 'result', component: 0 },
      hist_3: { kind: 'alias', of: 'copy' },
    },
    slots: [
      { bytes: 8000, arrays: ['bs', 'ds'] },
      { bytes: null, arrays: ['ys_2'] },
      { bytes: null, arrays: ['ys_2'] },
    ],
    results: ['direct'],
    ranges: [],
    peakBytes: 8000,
    dynamicSlots: 2,
  } as unknown as MemoryPlan;

  it('the text line says the peak, the slots, those sized at run time and the arrays they hold', () => {
    expect(memorySummary(memory)).toBe('memory: peak 8000 bytes in 3 slot(s), 2 sized at run time, holding 3 of 5 manifest array(s)');
  });

  it('the JSON section has the peak, each slot with its bytes and arrays, and the dynamic count', () => {
    expect(memoryJson(memory)).toEqual({
      peakBytes: 8000,
      slots: [
        { bytes: 8000, arrays: ['bs', 'ds'] },
        { bytes: null, arrays: ['ys_2'] },
        { bytes: null, arrays: ['ys_2'] },
      ],
      dynamicSlots: 2,
    });
  });
});
