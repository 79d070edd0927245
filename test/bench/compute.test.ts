// The compute benchmark's pure parts (bench/compute): its command line, the native references'
// output parsers and checks (on output captured from NPB-CPP's mg.S and LLNL's lulesh2.0 -s 5),
// the output checks of arrayfuse and NumPy, the interleaved schedule and its failure on a wrong
// output, the baseline's conversion to and from the public API, and the tables. No timing is
// asserted; one small end-to-end part (an example against its hand loop) runs at a tiny size.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { fromPublicResults, toPublicInputs } from '../../bench/compute/arrayfuse.js';
import { interleave, schedule, type Contender, type ContenderTiming } from '../../bench/compute/harness.js';
import { npbKernelMs, parseLuleshOutput, parseNpbOutput, resolveNpbBinary, verifyLulesh, verifyNpb } from '../../bench/compute/native.js';
import { parseComputeArgs } from '../../bench/compute/options.js';
import { ATTENTION_TOLERANCE, checkAttention, checkMg, maxRelativeDeviation, measureExamples, sizePresets, type ComputeContext, type PartResult } from '../../bench/compute/programs.js';
import { clusterTable, examplesTable, partTable, renderReport, targets } from '../../bench/compute/report.js';
import { MG_CLASSES } from '../../bench/programs/mg-reference.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';

const repoRoot = join(import.meta.dirname, '..', '..');
// The harness collects garbage between calls; without --expose-gc a no-op stands in.
const g = globalThis as { gc?: () => void };
g.gc ??= () => {};

// What NPB-CPP 4.1's serial mg.S printed (abridged: the compile options are left out).
const NPB_S = `
 No input file. Using compiled defaults


 NAS Parallel Benchmarks 4.1 Serial C++ version - MG Benchmark

 Size:  32x 32x 32 (class_npb S)
 Iterations:   4
 Initialization time:           0.016 seconds
  iter   1
  iter   4
 Benchmark completed
 VERIFICATION SUCCESSFUL
 L2 Norm is  5.3077070057349e-05
 Error is    1.6596889470214e-13


 MG Benchmark Completed
 class_npb       =                        S
 Size            =             32x  32x  32
 Iterations      =                        4
 Time in seconds =                     0.00
 Mop/s total     =                  7977.10
 Operation type  =           floating point
 Verification    =               SUCCESSFUL
 Version         =                      4.1
`;

// What LLNL's lulesh2.0 -s 5 (serial build) printed after its run.
const LULESH_5 = `Run completed:
   Problem size        =  5
   MPI tasks           =  1
   Iteration count     =  72
   Final Origin Energy =  7.853665e+03
   Testing Plane 0 of Energy Array on rank 0:
        MaxAbsDiff   = 3.410605e-13
        TotalAbsDiff = 7.716553e-13
        MaxRelDiff   = 7.092198e-14

Elapsed time         =      0.033 (s)
Grind time (us/z/c)  =  3.6235556 (per dom)  (  0.032612 overall)
FOM                  =  275.97203 (z/s)
`;

describe('the command line', () => {
  it('defaults to every part at the issue sizes, the references skipped until given', () => {
    const o = parseComputeArgs([]);
    expect(o.parts).toEqual(['mg', 'attention', 'lulesh', 'examples']);
    expect(o.sizes).toEqual(sizePresets.full);
    expect(o.sizes).toEqual({ mgClass: 'W', attention: { n: 1024, d: 64, block: 64 }, luleshSize: 10, examplesN: 4_000_000 });
    expect([o.npb, o.lulesh, o.baseline, o.examples]).toEqual([null, null, null, null]);
    expect(o.python).toBe('python3');
    expect(o.clusterStats).toBe(false);
  });

  it('takes the references, parts, sizes and overrides', () => {
    const o = parseComputeArgs(['--parts', 'lulesh, mg', '--size', 'quick', '--mg-class', 'W', '--lulesh-size', '10', '--npb', '/x/bin', '--lulesh', '/x/lulesh2.0', '--python', '/usr/bin/python3', '--repetitions', '3', '--examples', 'simple1,reverse', '--cluster-stats', '--baseline', '../old']);
    expect(o.parts).toEqual(['lulesh', 'mg']);
    expect(o.sizes).toEqual({ ...sizePresets.quick, mgClass: 'W', luleshSize: 10 });
    expect([o.npb, o.lulesh, o.python, o.baseline]).toEqual(['/x/bin', '/x/lulesh2.0', '/usr/bin/python3', '../old']);
    expect(o.repetitions).toBe(3);
    expect(o.examples).toEqual(['simple1', 'reverse']);
    expect(o.clusterStats).toBe(true);
  });

  it.each([
    [['--parts', 'mg,fft']],
    [['--mg-class', 'B']],
    [['--size', 'huge']],
    [['--repetitions', '0']],
    [['--lulesh-size', '2.5']],
    [['--npb']],
    [['--frobnicate']],
    [['stray']],
  ])('refuses %j as a usage error', (args) => {
    expect(() => parseComputeArgs(args)).toThrow(CommanderError);
  });
});

describe('NPB-CPP MG: output, time, verification', () => {
  const report = parseNpbOutput(NPB_S);
  if (typeof report === 'string') throw new Error(report);

  it('reads the class, size, norm and NPB verdict', () => {
    expect(report).toEqual({ cls: 'S', n: 32, iterations: 4, successful: true, l2Norm: 5.3077070057349e-5, seconds: 0, mops: 7977.1 });
  });

  it('takes the timed section from Mop/s (finer than the two-decimal seconds)', () => {
    // 58 · nit · n³ · 1e-6 / Mop/s seconds: 0.9527 ms, where NPB prints "0.00".
    expect(npbKernelMs(report)).toBeCloseTo(((58 * 4 * 32 ** 3 * 1e-6) / 7977.1) * 1000, 12);
    expect(npbKernelMs({ ...report, mops: 0, seconds: 0.07 })).toBeCloseTo(70, 9);
  });

  it('verifies against NPB verdict and MG_CLASSES value, each on its own', () => {
    expect(verifyNpb(report, MG_CLASSES.S)).toBeNull();
    expect(verifyNpb(report, MG_CLASSES.W)).toMatch(/NPB ran class S \(32³, 4 iterations\), expected class W/);
    expect(verifyNpb({ ...report, successful: false }, MG_CLASSES.S)).toMatch(/NPB says its verification failed/);
    expect(verifyNpb({ ...report, l2Norm: report.l2Norm * (1 + 2e-8) }, MG_CLASSES.S)).toMatch(/L2 norm .*relative error 2\.00e-8/);
    expect(verifyNpb({ ...report, l2Norm: NaN }, MG_CLASSES.S)).toMatch(/L2 norm NaN/);
  });

  it('a failed or truncated run is not a success', () => {
    const failed = parseNpbOutput(NPB_S.replace('VERIFICATION SUCCESSFUL', 'VERIFICATION FAILED'));
    expect(typeof failed !== 'string' && failed.successful).toBe(false);
    expect(parseNpbOutput(NPB_S.slice(0, NPB_S.indexOf(' MG Benchmark Completed')))).toBe("NPB's output has no class_npb, Size, Iterations, Time in seconds, Mop/s total");
    expect(parseNpbOutput('')).toMatch(/^NPB's output has no class_npb/);
  });

  it('finds mg.<class> in a directory, its bin/, or takes a file as given', () => {
    const dir = mkdtempSync(join(tmpdir(), 'compute-test-'));
    expect(resolveNpbBinary(join(dir, 'nothing'), 'W')).toBeNull();
    expect(resolveNpbBinary(dir, 'W')).toBeNull();
    mkdirSync(join(dir, 'bin'));
    writeFileSync(join(dir, 'bin', 'mg.W'), '');
    expect(resolveNpbBinary(dir, 'W')).toBe(join(dir, 'bin', 'mg.W'));
    expect(resolveNpbBinary(dir, 'S')).toBeNull();
    writeFileSync(join(dir, 'mg.W'), '');
    expect(resolveNpbBinary(dir, 'W')).toBe(join(dir, 'mg.W'));
    expect(resolveNpbBinary(join(dir, 'bin', 'mg.W'), 'S')).toBe(join(dir, 'bin', 'mg.W'));
  });
});

describe('LLNL LULESH: output, time, verification', () => {
  const report = parseLuleshOutput(LULESH_5);
  if (typeof report === 'string') throw new Error(report);

  it('reads the size, cycles, origin energy and the six-digit elapsed time', () => {
    expect(report).toEqual({ size: 5, iterations: 72, originEnergy: 7853.665, elapsedS: 0.032612, maxRelDiff: 7.092198e-14 });
    const coarse = parseLuleshOutput(LULESH_5.replace(/Grind time.*\n/, ''));
    expect(typeof coarse !== 'string' && coarse.elapsedS).toBe(0.033);
    expect(parseLuleshOutput('Run completed:\n')).toBe("LULESH's output has no Problem size, Iteration count, Final Origin Energy, Elapsed time");
  });

  it("verifies against LLNL's published cycles and energy", () => {
    expect(verifyLulesh(report, 5)).toBeNull();
    expect(verifyLulesh(report, 10)).toBe('LULESH ran -s 5, expected -s 10');
    expect(verifyLulesh({ ...report, iterations: 71 }, 5)).toBe("LULESH ran 71 cycles, LLNL's reference 72");
    expect(verifyLulesh({ ...report, originEnergy: 7853.67 }, 5)).toMatch(/final origin energy 7853.67, LLNL's reference 7853.665/);
    expect(verifyLulesh({ ...report, originEnergy: NaN }, 5)).toMatch(/final origin energy NaN/);
    expect(verifyLulesh({ ...report, size: 7 }, 7)).toMatch(/no published LULESH result for -s 7/);
  });
});

describe('output checks', () => {
  it('attention: within the tolerance relative to the largest magnitude; NaN and length fail', () => {
    const ref = new Float64Array([1, -2, 0.5]);
    expect(checkAttention(ref.slice(), ref)).toEqual({ problem: null, verified: 'equals the JS loop bit for bit' });
    const close = new Float64Array([1, -2 + 2e-15, 0.5]);
    expect(checkAttention(close, ref).problem).toBeNull();
    expect(checkAttention(close, ref).verified).toBe('within 1.0e-15 of the JS loop (max |Δ| ÷ max |ref|)');
    expect(checkAttention(new Float64Array([1, -2, 0.5 + 4 * ATTENTION_TOLERANCE]), ref).problem).toMatch(/^element 2 is/);
    expect(checkAttention(new Float64Array([1, NaN, 0.5]), ref).problem).toMatch(/^element 1 is NaN/);
    expect(checkAttention(new Float64Array(2), ref).problem).toBe('length 2, expected 3');
    expect(maxRelativeDeviation([NaN], [1])).toBe(Infinity);
    expect(maxRelativeDeviation([0, 1e-300], [0, 0])).toBe(1e-300);
  });

  it("MG: rnm2, a scalar or a rank-0 array, against the class's value with NPB's epsilon", () => {
    const value = MG_CLASSES.W.verifyValue;
    expect(checkMg([{ kind: 'scalar', elem: 'f64', value }], 'W').problem).toBeNull();
    expect(checkMg([{ kind: 'array', elem: 'f64', shape: [], data: new Float64Array([value * (1 + 5e-9)]) }], 'W').problem).toBeNull();
    expect(checkMg([{ kind: 'scalar', elem: 'f64', value: value * (1 + 2e-8) }], 'W').problem).toMatch(/^rnm2 .* NPB's value/);
    expect(checkMg([{ kind: 'scalar', elem: 'f64', value }], 'S').problem).toMatch(/NPB's value 0.00005307707005734/);
    expect(checkMg([{ kind: 'array', elem: 'f64', shape: [2], data: new Float64Array(2) }], 'W').problem).toBe('the result is not a scalar');
  });
});

describe('interleaving', () => {
  it('starts each repetition at the next contender', () => {
    expect(schedule(3, 4)).toEqual([
      [0, 1, 2],
      [1, 2, 0],
      [2, 0, 1],
      [0, 1, 2],
    ]);
    expect(schedule(1, 2)).toEqual([[0], [0]]);
    expect(schedule(2, 0)).toEqual([]);
  });

  it("records each contender's own times, and verifies every call, the warm-up included", async () => {
    const order: string[] = [];
    const contender = (id: string, ms: number[], wall?: number): Contender => ({
      id,
      label: id.toUpperCase(),
      kind: 'js',
      run: async () => {
        order.push(id);
        return { kernelMs: ms.shift()!, wallMs: wall, problem: null, verified: `${id} ok` };
      },
    });
    const timings = await interleave([contender('a', [9, 3, 1, 2]), contender('b', [9, 5, 6, 7], 40)], { repetitions: 3, what: 'test' });
    expect(order).toEqual(['a', 'b', 'a', 'b', 'b', 'a', 'a', 'b']);
    expect(timings.map((t) => [t.id, t.kernelRunsMs, t.kernel, t.wall, t.verified])).toEqual([
      ['a', [3, 1, 2], { median: 2, min: 1, max: 3 }, null, 'a ok'],
      ['b', [5, 6, 7], { median: 6, min: 5, max: 7 }, { median: 40, min: 40, max: 40 }, 'b ok'],
    ]);
  });

  it('fails at the first wrong output, naming the contender, also late in the run', async () => {
    let calls = 0;
    const late: Contender = { id: 'x', label: 'late one', kind: 'native', run: async () => ({ kernelMs: 1, problem: ++calls === 3 ? 'L2 norm off' : null }) };
    await expect(interleave([late], { repetitions: 3, what: 'MG' })).rejects.toThrow('MG, late one: L2 norm off');
    const first: Contender = { id: 'y', label: 'wrong one', kind: 'numpy', run: async () => ({ kernelMs: 1, problem: 'element 0 is 2, expected 1' }) };
    await expect(interleave([first], { repetitions: 0, what: 'attention' })).rejects.toThrow('attention, wrong one: element 0 is 2, expected 1');
  });
});

describe('the baseline through the public API', () => {
  it('passes arrays as { data, shape } and scalars as numbers, and reads results back in order', () => {
    const data = new Float64Array(6);
    expect(toPublicInputs({ v: { kind: 'array', elem: 'f64', shape: [2, 3], data }, nit: { kind: 'scalar', elem: 'i32', value: 4 } })).toEqual({ v: { data, shape: [2, 3] }, nit: 4 });
    const e = new Float64Array([1, 2]);
    const back = fromPublicResults({ e: { data: e, shape: [2] }, cycle: 72, rnm2: { data: new Float64Array([0.5]), shape: [] } });
    expect(back).toEqual([
      { kind: 'array', elem: 'f64', shape: [2], data: e },
      { kind: 'scalar', elem: 'i32', value: 72 },
      { kind: 'array', elem: 'f64', shape: [], data: new Float64Array([0.5]) },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// Tables

const summary = (median: number, min = median, max = median) => ({ median, min, max });
const timing = (id: string, label: string, kind: ContenderTiming['kind'], ms: number, wall: number | null = null): ContenderTiming => ({
  id,
  label,
  kind,
  kernelRunsMs: [ms],
  kernel: summary(ms),
  wall: wall === null ? null : summary(wall),
  verified: `${id} verified`,
});

const mg: PartResult = {
  part: 'mg',
  program: 'NAS MG',
  size: 'class W (128³, 4 iterations)',
  timings: [timing('arrayfuse', 'arrayfuse', 'arrayfuse', 740), timing('npb', 'NPB', 'native', 74, 400)],
  skipped: [],
  clusters: Array.from({ length: 10 }, (_, k) => ({ cluster: k + 1, timeMs: 100 - k, runs: 4, share: (100 - k) / 955, writes: k === 0 ? [] : [`a${k}`] })),
};
const attention: PartResult = {
  part: 'attention',
  program: 'FlashAttention',
  size: 'n=1024, d=64, br=bc=64',
  timings: [timing('arrayfuse', 'arrayfuse', 'arrayfuse', 700), timing('js', 'JS loop', 'js', 350)],
  skipped: ['NumPy skipped: python3 has no NumPy'],
  clusters: null,
};
const lulesh: PartResult = { part: 'lulesh', program: 'LULESH', size: '-s 10', timings: [timing('arrayfuse', 'arrayfuse', 'arrayfuse', 130), timing('lulesh', 'LLNL', 'native', 100, 160)], skipped: [], clusters: null };
const example = (name: string, now: number, before: number | null): PartResult => ({
  part: 'examples',
  program: name,
  size: 'xs: 100',
  timings: [timing('arrayfuse', 'arrayfuse', 'arrayfuse', now), ...(before === null ? [] : [timing('baseline', 'before', 'baseline', before)]), timing('hand', 'hand', 'js', 2)],
  skipped: [],
  clusters: null,
});

describe('tables', () => {
  it('one program: kernel and wall times, arrayfuse ÷ each, how each output was checked', () => {
    expect(partTable(mg).split('\n')).toEqual([
      '| contender | kernel ms, median (min–max) | process wall ms, median (min–max) | arrayfuse ÷ this (kernel) | output |',
      '| --- | --- | --- | --- | --- |',
      '| arrayfuse | 740 (740–740) | – | – | arrayfuse verified |',
      '| NPB | 74.0 (74.0–74.0) | 400 (400–400) | 10× | npb verified |',
    ]);
  });

  it('the examples, with the before column only when a baseline ran', () => {
    expect(examplesTable([example('reverse', 3, null)]).split('\n')[2]).toBe('| reverse | xs: 100 | 3.00 (3.00–3.00) | 2.00 (2.00–2.00) | 1.50× |');
    const both = examplesTable([example('reverse', 3, 2.5), example('simple1', 1, null)]).split('\n');
    expect(both[0]).toContain('| before ms | now ÷ before |');
    expect(both[2]).toBe('| reverse | xs: 100 | 3.00 (3.00–3.00) | 2.00 (2.00–2.00) | 1.50× | 2.50 (2.50–2.50) | 1.20× |');
    expect(both[3]).toBe('| simple1 | xs: 100 | 1.00 (1.00–1.00) | 2.00 (2.00–2.00) | 0.50× | – | – |');
  });

  it('the heaviest clusters, the rest summed', () => {
    const lines = clusterTable(mg, 3).split('\n');
    expect(lines).toHaveLength(2 + 3 + 1);
    expect(lines[2]).toBe('| 1 | 100.0 | 4 | 10.5 % | – |');
    expect(lines[5]).toMatch(/^\| 7 more \| 658\.0 \| \| 68\.9 % \| \|$/);
  });

  it("judges the issue's targets on what ran, and says what did not", () => {
    expect(targets([mg, attention, lulesh]).map((t) => [t.value, t.met])).toEqual([
      ['10×', false],
      ['not measured (reference skipped)', null],
      ['0.50×', false],
      ['1.30×', true],
    ]);
    expect(targets([example('a', 1, 1.02), example('b', 1.04, 1)]).map((t) => [t.what, t.value, t.met])).toEqual([['every shared example: now ÷ before ≤ 1.05 (noise)', 'worst b 1.04×', true]]);
    expect(targets([example('a', 1.2, 1)])[0]!.met).toBe(false);
    expect(targets([example('a', 1, null)])[0]!.met).toBeNull();
  });

  it('the report: command, machine, each program, the skipped references, targets, clusters', () => {
    const md = renderReport([mg, attention, lulesh, example('reverse', 3, null)], { command: 'npm run bench:compute', machine: 'test', repetitions: 7 });
    expect(md).toContain('Command: `npm run bench:compute`');
    expect(md).toContain('### NAS MG, class W (128³, 4 iterations)');
    expect(md).toContain('\nNumPy skipped: python3 has no NumPy');
    expect(md).toContain('### Shared examples');
    expect(md).toContain('### Targets (issue 13)');
    expect(md).toContain("### arrayfuse's heaviest clusters: NAS MG");
    expect(md).not.toContain("heaviest clusters: LULESH");
  });
});

describe('a small end-to-end part', () => {
  it('an example runs interleaved with its hand loop, verified bit for bit', async () => {
    const ctx: ComputeContext = { repoRoot, solver: createSolverLoader(), repetitions: 2, npb: null, lulesh: null, python: 'python3', baseline: null, clusterStats: true, log: () => {} };
    const [r] = await measureExamples(ctx, { ...sizePresets.quick, examplesN: 50 }, ['reverse']);
    expect(r!.timings.map((t) => [t.id, t.kernelRunsMs.length, t.verified])).toEqual([
      ['arrayfuse', 2, 'equals the hand loop bit for bit'],
      ['hand', 2, 'equals the hand loop bit for bit'],
    ]);
    expect(r!.clusters!.length).toBeGreaterThan(0);
  });
});
