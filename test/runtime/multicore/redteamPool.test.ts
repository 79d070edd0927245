// The red team's attack on the multicore back end's use of the caller's memory and of the
// process-wide pool: inputs that are views at odd offsets of SharedArrayBuffers (one buffer
// behind several inputs), `out` and donated arrays on shared buffers, clusters with more
// arguments than the pool's first argument area holds, executables of different thread counts
// compiled at once and run interleaved, results that a later run must not overwrite, and the
// buffers the workers hold over many runs.

import { generateProgram } from '../../../src/codegen/index.js';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../util/sources.js';
import type { TypedArray } from '../../../src/ir/scalarOps.js';
import type { InterfaceValue, RuntimeValue } from '../../../src/ir/values.js';
import { acquirePool, poolState } from '../../../src/runtime/multicore/pool.js';
import { expectSameValues } from '../equal.js';
import { compileMulticore } from '../../../src/runtime/multicore/backend.js';
import { fakePool } from './backendFakePool.js';
import { arr, copyInputs, expectClose, multicore, outcome, prepare } from './redteamHarness.js';

const n = 41;
const f = (i: number): number => ((i * 7919) % 101) / 8 - 5;

/** `v`'s data copied onto `sab` at byte `offset` (a view of exactly its elements). */
function onShared(v: RuntimeValue, sab: SharedArrayBuffer, offset: number): RuntimeValue {
  if (v.kind !== 'array') return v;
  const C = v.data.constructor as new (b: SharedArrayBuffer, o: number, l: number) => TypedArray;
  const data = new C(sab, offset, v.data.length);
  data.set(v.data);
  return { ...v, data };
}

function dataOf(v: InterfaceValue): TypedArray {
  return (v as RuntimeValue & { data: TypedArray }).data;
}

describe('red team: the caller’s memory', () => {
  it('inputs that are views at odd offsets of one SharedArrayBuffer (u8 at 3, i32 at 4·k, f64 at 8·k)', async () => {
    const source =
      'def main(bs, is, xs):\n  ys = map(lam b, x: x * 2.0 if b else x - 1.0, zip(bs, xs))\n  return gather(is, ys), scanl(+, is), fold(+, ys), filter(lam b: b, bs)\n';
    const inputs = { bs: arr('bool', [n], (i) => i % 3 === 0 ? 1 : 0), is: arr('i32', [n], (i) => (i * 5) % n), xs: arr('f64', [n], f) };
    const p = await prepare(source, inputs);
    const expected = (await p.js.run(p.ordered)).results;
    const sab = new SharedArrayBuffer(4096);
    const shared = [onShared(inputs.bs, sab, 3), onShared(inputs.is, sab, 52), onShared(inputs.xs, sab, 8 * 40)];
    const ordered = p.js.program.params.map((q) => shared[['bs', 'is', 'xs'].indexOf(q.name)]!);
    for (const threads of [2, 3]) {
      const exe = await multicore(p, threads, { chunkLength: 4 });
      for (let run = 0; run < 2; run++) {
        const got = await outcome(exe, ordered);
        expect(got.error).toBeUndefined();
        // chunk 4 regroups the f64 fold (exactly here: multiples of 1/8).
        expectClose(got.result!.results, expected, `threads ${threads} run ${run}`);
      }
      exe.dispose();
    }
  });

  it('the same SharedArrayBuffer behind two inputs, overlapping', async () => {
    const source = 'def main(xs, ys):\n  return map(lam x, y: x * 10.0 + y, zip(xs, ys)), scanl(+, ys)\n';
    const sab = new SharedArrayBuffer(8 * (n + 5));
    const all = new Float64Array(sab);
    for (let i = 0; i < all.length; i++) all[i] = f(i);
    const xs: RuntimeValue = { kind: 'array', elem: 'f64', shape: [n], data: new Float64Array(sab, 0, n) };
    const ys: RuntimeValue = { kind: 'array', elem: 'f64', shape: [n], data: new Float64Array(sab, 40, n) };
    const plain = { xs: { ...xs, data: (xs.data as Float64Array).slice() }, ys: { ...ys, data: (ys.data as Float64Array).slice() } };
    const p = await prepare(source, plain);
    const expected = (await p.js.run(p.ordered)).results;
    for (const threads of [2, 3]) {
      const exe = await multicore(p, threads);
      const got = await outcome(exe, [xs, ys]);
      expect(got.error).toBeUndefined();
      expectSameValues(got.result!.results, expected, `threads ${threads}`);
      exe.dispose();
    }
  });

  it('an out array that is a view at an offset of a SharedArrayBuffer; a donated input on a shared view', async () => {
    const source = 'def main(xs):\n  return map(lam x: x * 3.0 - 1.0, xs), scanl(+, xs)\n';
    const inputs = { xs: arr('f64', [n], f) };
    const p = await prepare(source, inputs);
    const expected = (await p.js.run(p.ordered)).results;
    const sab = new SharedArrayBuffer(8 * (3 * n + 3));
    for (const threads of [2, 3]) {
      const exe = await multicore(p, threads);
      const out0 = new Float64Array(sab, 8, n).fill(NaN);
      const out1 = new Float64Array(sab, 8 * (n + 2), n).fill(NaN);
      const got = await outcome(exe, p.ordered, { out: [out0, out1] });
      expect(got.error).toBeUndefined();
      expect(dataOf(got.result!.results[0]!)).toBe(out0);
      expect(dataOf(got.result!.results[1]!)).toBe(out1);
      expectSameValues(got.result!.results, expected, `threads ${threads}`);
      exe.dispose();
    }
  });

  it('a donated input on a view at an offset of a SharedArrayBuffer, updated in place by a scatter', async () => {
    const source = 'def main(d, is, vs):\n  return scatter(+, d, zip(is, vs)), scatter(+, generate(7, lam i: 0.5), zip(is, map(lam v: f64(v), vs)))\n';
    const make = (sab?: SharedArrayBuffer): Record<string, RuntimeValue> => {
      const d = arr('i32', [7], (i) => i * 100);
      return { d: sab === undefined ? d : onShared(d, sab, 12), is: arr('i32', [n], (i) => (i * 3) % 7), vs: arr('i32', [n], (i) => i - 9) };
    };
    const p = await prepare(source, make());
    const compiler = p.compiler;
    const { signatureOf } = await import('../../../src/driver/index.js');
    const plain = signatureOf(compiler.entry, make(), compiler.file);
    const js = await compiler.executable({ ...plain, d: { ...plain['d']!, donated: true as const } } as typeof plain);
    const ordered = (v: Record<string, RuntimeValue>): RuntimeValue[] => js.program.params.map((q) => v[q.name]!);
    const expected = (await js.run(ordered(make()))).results;
    for (const threads of [2, 3]) {
      const exe = await multicore({ compiler, js, ordered: [] }, threads);
      const inputs = make(new SharedArrayBuffer(4 * 40));
      const got = await outcome(exe, ordered(inputs));
      expect(got.error).toBeUndefined();
      expectSameValues(got.result!.results, expected, `threads ${threads}`);
      expect(dataOf(got.result!.results[0]!)).toBe(dataOf(inputs['d']!));
      exe.dispose();
    }
  });

  it('a cluster with more array arguments than the first argument area holds (80 inputs)', async () => {
    const k = 80;
    const names = Array.from({ length: k }, (_, j) => `a${j}`);
    const source = `def main(${names.join(', ')}):\n  return generate(size(a0), lam i: ${names.map((a) => `${a}[i]`).join(' + ')})\n`;
    const inputs = Object.fromEntries(names.map((a, j) => [a, arr('f64', [n], (i) => i * 1000 + j)]));
    const p = await prepare(source, inputs);
    const expected = (await p.js.run(p.ordered)).results;
    for (const threads of [2, 3]) {
      const exe = await multicore(p, threads);
      for (let run = 0; run < 2; run++) {
        const got = await outcome(exe, copyInputs(p.ordered, true));
        expect(got.error).toBeUndefined();
        expect(got.result!.stats.clusters.some((c) => c.parallelRuns > 0)).toBe(true);
        expectSameValues(got.result!.results, expected, `threads ${threads} run ${run}`);
      }
      exe.dispose();
    }
  });
});

describe('red team: executables sharing the pool', () => {
  it('compiled at once with threads 2, 3 and 4, run interleaved, disposed in between', async () => {
    const source = 'def main(xs):\n  ys = scanl(+, xs)\n  return ys, map(lam y: y * 2, ys), fold(max, ys)\n';
    const inputs = { xs: arr('i32', [n], (i) => (i * 37) % 11 - 5) };
    const p = await prepare(source, inputs);
    const expected = (await p.js.run(p.ordered)).results;
    const exes = await Promise.all([2, 3, 4, 2].map((t) => multicore(p, t, { chunkLength: 5 })));
    for (let round = 0; round < 3; round++) {
      for (const exe of exes) {
        if (exe.disposed) continue;
        const got = await outcome(exe, p.ordered);
        expect(got.error).toBeUndefined();
        expectSameValues(got.result!.results, expected, `threads ${exe.threads} round ${round}`);
      }
      exes[round]!.dispose();
    }
    exes[3]!.dispose();
  });

  it('results of run k are not overwritten by run k+1 (every schedule)', async () => {
    const source =
      'def main(xs, is):\n  s = scanl(+, xs)\n  m = map(lam x: x * 2, xs)\n  a = scatter(+, generate(5, lam i: 0), zip(is, xs))\n  o = scatter(lam u, v: v, generate(5, lam i: 0.0), zip(is, map(lam x: f64(x), xs)))\n  return s, m, a, o, fold(+, xs)\n';
    const mk = (c: number) => ({ xs: arr('i32', [n], (i) => i * c), is: arr('i32', [n], (i) => (i * c) % 5) });
    const p = await prepare(source, mk(1));
    const exe = await multicore(p, 2, { chunkLength: 4 });
    const order = (v: Record<string, RuntimeValue>) => p.js.program.params.map((q) => v[q.name]!);
    const runs: InterfaceValue[][] = [];
    const expected: InterfaceValue[][] = [];
    for (let c = 1; c <= 4; c++) {
      expected.push((await p.js.run(order(mk(c)))).results.map((v) => ({ ...(v as RuntimeValue), ...('data' in (v as object) ? { data: dataOf(v).slice() } : {}) }) as InterfaceValue));
      runs.push((await exe.run(order(mk(c)))).results);
    }
    runs.forEach((r, k) => expectSameValues(r, expected[k]!, `run ${k}`));
    exe.dispose();
  });

  it('1000 runs that return fresh shared results: the buffers the workers hold stay bounded', async () => {
    const source = 'def main(xs):\n  return map(lam x: x + 1.0, xs)\n';
    const p = await prepare(source, { xs: arr('f64', [4096], f) });
    const exe = await multicore(p, 2);
    let most = 0;
    for (let run = 0; run < 1000; run++) {
      await exe.run(p.ordered);
      most = Math.max(most, poolState()!.buffers);
    }
    exe.dispose();
    expect(most).toBeLessThanOrEqual(1024 + 8);
  });
});

describe('red team: the workers’ buffer registry under eviction', () => {
  it('400 runs, each on a fresh 1 MiB shared input and returning a fresh 1 MiB result: right results, registry ≤ 256 MiB', async () => {
    const m = 1 << 17;
    const p = await prepare('def main(xs):\n  return scanl(+, map(lam x: x + 1.0, xs))\n', { xs: arr('f64', [m], (i) => i) });
    const exe = await multicore(p, 2, { chunkLength: 8192 });
    let most = 0;
    for (let run = 0; run < 400; run++) {
      const xs = new Float64Array(new SharedArrayBuffer(8 * m)).fill(run);
      const r = (await exe.run([{ kind: 'array', elem: 'f64', shape: [m], data: xs }])).results;
      expect(dataOf(r[0]!)[m - 1], `run ${run}`).toBe(m * (run + 1));
      most = Math.max(most, poolState()!.bufferBytes);
    }
    expect(most).toBeLessThanOrEqual(256 * 2 ** 20 + 16 * 2 ** 20);
    exe.dispose();
  }, 120_000);
});

describe('red team: a worker that dies', () => {
  // An executable whose module was loaded on the dead crew must notice (LoadedModule.alive) and reload before it runs.
  it('an idle executable’s next run after another module killed a worker succeeds (reloads first)', async () => {
    const p = await prepare('def main(xs):\n  return map(lam x: x + 1.0, xs)\n', { xs: arr('f64', [100], (i) => i) });
    const expected = (await p.js.run(p.ordered)).results;
    const exe = await multicore(p, 2);
    expectSameValues((await exe.run(copyInputs(p.ordered, true))).results, expected);
    await expect(acquirePool(2).load('function main() {}\nprocess.exit(4);\nconst fns = [];\n')).rejects.toThrow();
    const after = await outcome(exe, copyInputs(p.ordered, true));
    expect(after.error).toBeUndefined();
    expectSameValues(after.result!.results, expected);
    exe.dispose();
  });

  it('after a death elsewhere, the run after the failed one reloads and is right', async () => {
    const p = await prepare('def main(xs):\n  return scanl(+, map(lam x: x + 1, xs))\n', { xs: arr('i32', [100], (i) => i) });
    const expected = (await p.js.run(p.ordered)).results;
    const exe = await multicore(p, 2, { chunkLength: 7 });
    await expect(acquirePool(2).load('function main() {}\nprocess.exit(4);\nconst fns = [];\n')).rejects.toThrow();
    await outcome(exe, copyInputs(p.ordered, true));
    const again = await outcome(exe, copyInputs(p.ordered, true));
    expect(again.error).toBeUndefined();
    expectSameValues(again.result!.results, expected);
    expect(again.result!.stats.clusters.some((c) => c.parallelRuns > 0)).toBe(true);
    exe.dispose();
  });
});

describe('red team: how calls are cut', () => {
  it('an owner-split scatter gets one destination range per thread (was: up to 64 a thread, each walking the whole source), and none at a default threshold', async () => {
    // A float scatter into 1000 bins from 10^5 elements: 2 threads cut it into 125 ranges, each
    // walking all 10^5 source elements (45× the serial time at 10^6). At threshold 0 it forks
    // into one range per thread; at the default threshold it does not fork (it never won).
    const source = 'def main(is, xs):\n  return scatter(+, generate(1000, lam i: 0.0), zip(is, xs))\n';
    const m = 100_000;
    const inputs = { is: arr('i32', [m], (i) => (i * 7919) % 1000), xs: arr('f64', [m], f) };
    const p = await prepare(source, inputs);
    const expected = (await p.js.run(p.ordered)).results;
    for (const threads of [2, 3]) {
      const pool = fakePool(threads);
      for (const parallelThreshold of [0, undefined]) {
        const before = pool.jobs.length;
        const exe = await compileMulticore(p.js.program, p.js.plan, { memory: p.js.memory, threads, parallelThreshold }, () => pool);
        const got = await exe.run(copyInputs(p.ordered, true));
        expectSameValues(got.results, expected, `threads ${threads}`);
        const owner = got.stats.clusters.findIndex((c) => c.schedule === 'owner');
        expect(owner).toBeGreaterThanOrEqual(0);
        const { workFunctions } = generateProgram(p.js.program, p.js.plan, { counters: false, memory: p.js.memory, parallel: true });
        const jobs = pool.jobs.slice(before).filter((j) => workFunctions[j.fn]!.wholeSource);
        if (parallelThreshold === 0) {
          expect(jobs).toHaveLength(1);
          expect(jobs[0]!.chunkLength).toBe(Math.ceil(1000 / threads));
        } else expect(jobs).toHaveLength(0);
        exe.dispose();
      }
    }
  });
});

describe('red team: processes exit', () => {
  // Through the built package (run `npm run build` first), as a user's script runs it.
  function script(body: string): { stdout: string; stderr: string; status: number | null; took: number } {
    const index = join(repoRoot, 'dist/index.js');
    expect(existsSync(index), 'run `npm run build` first').toBe(true);
    const start = performance.now();
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', `const { compile } = await import(${JSON.stringify(index)});\n${body}`], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, ARRAYFUSE_THREADS: '' },
    });
    return { stdout: child.stdout, stderr: child.stderr, status: child.status, took: performance.now() - start };
  }
  const program = `const source = 'def main(xs):\\n  return scanl(+, map(lam x: x * 2, xs))\\n';
    const xs = new Int32Array(300000).fill(1);`;

  it('a script that runs a program on 2 and 3 threads and never disposes it exits', () => {
    const r = script(`${program}
      for (const threads of [2, 3]) { const p = compile(source, { threads }); const out = await p.run({ xs }); console.log(p.backend, out.result.data[299999]); }`);
    expect([r.stderr, r.status]).toEqual(['', 0]);
    expect(r.stdout.trim().split('\n')).toEqual(['multicore 600000', 'multicore 600000']);
  });

  it('a script that throws after a run on threads 2 exits with the error, and one that starts a compile it never awaits exits', () => {
    const thrown = script(`${program}
      const p = compile(source, { threads: 2 }); await p.run({ xs }); throw new Error('boom');`);
    expect(thrown.status).toBe(1);
    expect(thrown.stderr).toContain('boom');
    const pending = script(`${program}
      void compile(source, { threads: 4 }).run({ xs }); console.log('left');`);
    expect([pending.stderr, pending.status, pending.stdout.trim()]).toEqual(['', 0, 'left']);
  });
});
