// The multicore thread pool on its own (src/runtime/multicore/pool.ts), with hand-written module
// texts: every chunk runs exactly once whatever the extent, arguments reach the workers intact,
// faults come back as the lowest faulting chunk's ChunkFault after every thread stopped, a dying
// worker is a WorkerDiedError (never a hang) and the next pool works, and a process that used a
// pool exits promptly. Timings are printed, never asserted (the machine is shared).

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WorkFunction } from '../../../src/runtime/helpers.js';
import { BufferRegistry, acquirePool, multicoreAvailable, poolState } from '../../../src/runtime/multicore/pool.js';
import { ChunkFault, type Job, type LoadedModule, WorkerDiedError } from '../../../src/runtime/multicore/types.js';
import { repoRoot } from '../../util/sources.js';

// A work function sees a worker's `rt` (which has `scratch`) or the calling thread's (here `{}`),
// so the texts below can behave differently on a worker: `onWorker(rt)`.
const text = `
function main() {}
function onWorker(rt) { return typeof rt.scratch === 'function'; }
/** Blocks the calling thread's copy until a worker ran a chunk (flag[0] = 1), so a worker surely takes part. */
function awaitWorker(flag) { const until = Date.now() + 5000; while (Atomics.load(flag, 0) === 0 && Date.now() < until) Atomics.wait(flag, 0, 0, 10); }
function workerDid(flag) { Atomics.store(flag, 0, 1); Atomics.notify(flag, 0); }
const fns = [
  /* 0 */ function count(rt, lo, hi, chunk, hits, runs, bounds) {
    Atomics.add(runs, chunk, 1);
    bounds[2 * chunk] = lo;
    bounds[2 * chunk + 1] = hi;
    for (let i = lo; i < hi; i++) Atomics.add(hits, i, 1);
  },
  /* 1 */ function faulty(rt, lo, hi, chunk, bad, ran) {
    Atomics.add(ran, 0, 1);
    if (bad[chunk]) throw new RangeError('bad chunk ' + chunk);
  },
  /* 2 */ function dies(rt, lo, hi, chunk) {
    if (onWorker(rt)) process.exit(3);
    const until = Date.now() + 200;
    while (Date.now() < until);
  },
  /* 3 */ function empty() {},
  /* 4 */ function echo(rt, lo, hi, chunk, flag, out, a, b, c, view) {
    if (!onWorker(rt)) return awaitWorker(flag);
    if (Atomics.add(flag, 1, 1) !== 0) return; // once per run, whichever chunks the worker takes
    out[0] = a; out[1] = b; out[2] = c;
    for (let i = 0; i < view.length; i++) view[i] = 10 * view[i] + 1;
    const s = rt.scratch(0, 5), t = rt.scratch(0, 3), u = rt.scratch(0, 5), w = rt.scratch(1, 1000);
    out[3] = s.length; out[4] = t.length; out[5] = u.length; out[6] = w.length;
    workerDid(flag);
  },
  /* 5 */ function helper(rt, lo, hi, chunk, flag, which) {
    if (!onWorker(rt)) return awaitWorker(flag);
    try {
      if (which === 0) rt.index(7, [9], [3]);
      if (which === 1) rt.divzero(8, 1, 0);
      rt.oob(9, [9], [3], 0, [1]);
    } finally { workerDid(flag); }
  },
  /* 6 */ function slowOnWorker(rt, lo, hi, chunk, ran) {
    Atomics.add(ran, 0, 1);
    if (onWorker(rt)) { const until = performance.now() + 2; while (performance.now() < until); }
  },
];
`;

function compile(source: string): WorkFunction[] {
  return (new Function(`'use strict';\n${source}return { main, fns };`)() as { fns: WorkFunction[] }).fns;
}

const local = compile(text);

function shared<T extends Int32Array | Float64Array | Uint8Array>(make: new (b: SharedArrayBuffer) => T, bytesPerElement: number, n: number): T {
  return new make(new SharedArrayBuffer(bytesPerElement * n));
}
const i32 = (n: number): Int32Array => shared(Int32Array, 4, n);
const f64 = (n: number): Float64Array => shared(Float64Array, 8, n);
const u8 = (n: number): Uint8Array => shared(Uint8Array, 1, n);

function job(fn: number, extent: number, chunkLength: number, threads: number, args: Job['args']): Job {
  return { fn, extent, chunkLength, threads, args };
}

/** Runs the counting function; returns per-iteration and per-chunk run counts and the chunks' bounds. */
function countRun(module: LoadedModule, extent: number, chunkLength: number, threads: number) {
  const chunks = Math.ceil(extent / chunkLength);
  const hits = i32(Math.max(1, extent));
  const runs = i32(Math.max(1, chunks));
  const bounds = f64(Math.max(2, 2 * chunks));
  module.run(job(0, extent, chunkLength, threads, [hits, runs, bounds]), local[0]!, {});
  return { hits: [...hits.subarray(0, extent)], runs: [...runs.subarray(0, chunks)], bounds: [...bounds.subarray(0, 2 * chunks)] };
}

function expectedBounds(extent: number, chunkLength: number): number[] {
  const out: number[] = [];
  for (let lo = 0; lo < extent; lo += chunkLength) out.push(lo, Math.min(extent, lo + chunkLength));
  return out;
}

/** The ChunkFault a run throws (fails the test if it throws anything else or nothing). */
function faultOf(run: () => void): ChunkFault {
  try {
    run();
  } catch (e) {
    if (e instanceof ChunkFault) return e;
    throw e;
  }
  throw new Error('the run did not fault');
}

describe('thread pool', () => {
  it('is available here (Node ≥ 20.16)', () => {
    expect(multicoreAvailable()).toBe(true);
  });

  // First: the process's pool only grows, and every later test asks for 2 threads or more.
  it('of one thread runs jobs on the calling thread alone, without workers', async () => {
    const pool = acquirePool(1);
    expect(pool.threads).toBe(1);
    const module = await pool.load(text);
    expect(countRun(module, 10, 3, 1).hits).toEqual(new Array(10).fill(1));
    expect(() => countRun(module, 10, 3, 2)).toThrow(/takes 1 to 1 of them, not 2/);
    const bad = u8(4);
    bad[2] = 1;
    const fault = faultOf(() => module.run(job(1, 4, 1, 1, [bad, i32(1)]), local[1]!, {}));
    expect([fault.chunk, (fault.error as Error).message]).toEqual([2, 'bad chunk 2']);
    module.unload();
  });

  it('refuses thread counts it cannot have', () => {
    expect(() => acquirePool(0)).toThrow(RangeError);
    expect(() => acquirePool(1.5)).toThrow(RangeError);
    expect(() => acquirePool(257)).toThrow(RangeError);
  });

  for (const threads of [2, 3]) {
    describe(`${threads} threads`, () => {
      it.each([
        [0, 4],
        [1, 4],
        [3, 4],
        [4, 4],
        [5, 4],
        [1000, 3],
        [777, 1],
        [20_000, 16_384],
      ])('runs every chunk of extent %i (chunk length %i) exactly once', async (extent, chunkLength) => {
        const module = await acquirePool(threads).load(text);
        try {
          for (let rep = 0; rep < 3; rep++) {
            const { hits, runs, bounds } = countRun(module, extent, chunkLength, threads);
            expect(hits).toEqual(new Array(extent).fill(1));
            expect(runs).toEqual(new Array(Math.ceil(extent / chunkLength)).fill(1));
            expect(bounds).toEqual(expectedBounds(extent, chunkLength));
          }
        } finally {
          module.unload();
        }
      });

      it('runs a job on fewer threads than the pool has', async () => {
        const module = await acquirePool(threads).load(text);
        const { hits } = countRun(module, 100, 1, 1);
        expect(hits).toEqual(new Array(100).fill(1));
        module.unload();
      });
    });
  }

  it('hands numbers (NaN, −0, large), views at an offset and scratch rows to a worker intact', async () => {
    const module = await acquirePool(2).load(text);
    const whole = f64(12);
    for (let i = 0; i < 12; i++) whole[i] = i;
    const view = whole.subarray(4, 7);
    for (const [a, b, c] of [
      [Number.NaN, -0, 2 ** 53 + 2],
      [1.5, -1e308, Number.NEGATIVE_INFINITY],
    ] as const) {
      const flag = i32(2);
      const out = f64(7);
      module.run(job(4, 2, 1, 2, [flag, out, a, b, c, view]), local[4]!, {});
      expect(Object.is(out[0], a) && Object.is(out[1], b) && Object.is(out[2], c)).toBe(true);
      expect([...out.subarray(3)]).toEqual([5, 3, 5, 1000]);
    }
    // Two runs, each multiplied the viewed elements by 10 and added 1; the rest untouched.
    expect([...whole]).toEqual([0, 1, 2, 3, 411, 511, 611, 7, 8, 9, 10, 11]);
    module.unload();
  });

  it('completes 10,000 back-to-back forks', async () => {
    const module = await acquirePool(2).load(text);
    const fork = job(3, 2, 1, 2, []);
    for (let k = 0; k < 1000; k++) module.run(fork, local[3]!, {});
    const times: number[] = [];
    for (let round = 0; round < 10; round++) {
      const start = performance.now();
      for (let k = 0; k < 1000; k++) module.run(fork, local[3]!, {});
      times.push((performance.now() - start) / 1000);
    }
    times.sort((x, y) => x - y);
    console.log(`fork–join round trip, empty job, 2 threads: median of 10 rounds of 1000: ${(times[5]! * 1000).toFixed(2)} µs`);
    module.unload();
  });

  describe('faults', () => {
    it.each([
      ['the first chunk', [0], 0],
      ['a middle chunk', [50], 50],
      ['the last chunk', [99], 99],
      ['two chunks', [70, 31], 31],
      ['every chunk', Array.from({ length: 100 }, (_, k) => k), 0],
    ])('in %s: ChunkFault of the lowest, with its error', async (_, badChunks, lowest) => {
      const module = await acquirePool(2).load(text);
      for (const threads of [1, 2]) {
        const bad = u8(100);
        for (const k of badChunks) bad[k] = 1;
        const ran = i32(1);
        const fault = faultOf(() => module.run(job(1, 300, 3, threads, [bad, ran]), local[1]!, {}));
        expect(fault.chunk).toBe(lowest);
        expect([fault.lo, fault.hi]).toEqual([3 * lowest, 3 * lowest + 3]);
        expect(fault.error).toBeInstanceOf(Error);
        expect((fault.error as Error).name).toBe('RangeError');
        expect((fault.error as Error).message).toBe(`bad chunk ${lowest}`);
        // Every thread stopped claiming once a chunk faulted.
        if (lowest === 0 && threads === 1) expect(ran[0]).toBe(1);
      }
      // A later run on the same module works.
      const { hits } = countRun(module, 50, 3, 2);
      expect(hits).toEqual(new Array(50).fill(1));
      module.unload();
    });

    it('stops every thread claiming chunks after a fault', async () => {
      const module = await acquirePool(2).load(text);
      const ran = i32(1);
      // The calling thread faults in its first chunk; the worker's chunks take 2 ms each: it stops long before the end.
      const stop: WorkFunction = () => {
        throw new Error('stop');
      };
      faultOf(() => module.run(job(6, 10_000, 1, 2, [ran]), stop, {}));
      expect(ran[0]).toBeLessThan(1000);
      module.unload();
    });

    it("returns the calling thread's own error object when it ran the lowest faulting chunk", async () => {
      const module = await acquirePool(2).load(text);
      const ran = i32(1);
      const mine = { mine: true };
      let first = -1;
      // The worker's copy takes 2 ms a chunk and never throws; the calling thread throws in the first chunk it runs.
      const throwing: WorkFunction = (_rt, _lo, _hi, chunk) => {
        first = chunk;
        throw mine;
      };
      const fault = faultOf(() => module.run(job(6, 100, 1, 2, [ran]), throwing, {}));
      expect(fault.error).toBe(mine);
      expect(fault.chunk).toBe(first);
      expect(fault.message).toContain(`chunk ${first}`);
      module.unload();
    });

    it.each([
      [0, 'an index out of range (error site 7'],
      [1, 'an integer division by zero (error site 8'],
      [2, 'a gather or scatter index out of range (error site 9'],
    ])("a worker's fault helper %i throws: ChunkFault with what it was", async (which, message) => {
      const module = await acquirePool(2).load(text);
      const flag = i32(1);
      const fault = faultOf(() => module.run(job(5, 2, 1, 2, [flag, which]), local[5]!, {}));
      expect((fault.error as Error).message).toContain(message);
      module.unload();
    });
  });

  it('refuses arguments the workers cannot see, naming them', async () => {
    const module = await acquirePool(2).load(text);
    const ok = i32(4);
    const cases: [unknown, RegExp][] = [
      [new Int32Array(4), /argument 1 of work function 0 is a Int32Array on an ArrayBuffer/],
      ['x', /argument 1 of work function 0 must be a number or a .* not a string/],
      [new Uint8ClampedArray(new SharedArrayBuffer(4)), /argument 1 .* not a Uint8ClampedArray/],
      [new BigInt64Array(new SharedArrayBuffer(8)), /argument 1 .* not a BigInt64Array/],
      [[1, 2], /argument 1 .* not a Array/],
      [null, /argument 1 .* not null/],
    ];
    for (const [bad, message] of cases) {
      for (const threads of [1, 2]) {
        expect(() => module.run(job(0, 8, 1, threads, [ok, bad as number, ok]), local[0]!, {})).toThrow(message);
      }
    }
    expect(() => module.run(job(0, 8, 1, 3000, [ok, ok, ok]), local[0]!, {})).toThrow(RangeError);
    expect(() => module.run(job(0, -1, 1, 2, [ok, ok, ok]), local[0]!, {})).toThrow(RangeError);
    expect(() => module.run(job(0, 8, 0, 2, [ok, ok, ok]), local[0]!, {})).toThrow(RangeError);
    // Nothing was forked: the pool still works.
    expect(countRun(module, 10, 2, 2).hits).toEqual(new Array(10).fill(1));
    module.unload();
  });

  it('gives a worker that joins later the modules and buffers loaded before', async () => {
    const module = await acquirePool(2).load(text);
    const hits = i32(64);
    const runs = i32(64);
    const bounds = f64(128);
    module.run(job(0, 64, 1, 2, [hits, runs, bounds]), local[0]!, {});
    const pool = acquirePool(4);
    expect(pool.threads).toBe(4);
    for (let rep = 0; rep < 3; rep++) module.run(job(0, 64, 1, 4, [hits, runs, bounds]), local[0]!, {});
    expect([...hits]).toEqual(new Array(64).fill(4));
    module.unload();
  });

  it('keeps working while fresh buffers displace old ones in the workers', async () => {
    const module = await acquirePool(2).load(text);
    const first = { hits: i32(8), runs: i32(8), bounds: f64(16) };
    module.run(job(0, 8, 1, 2, [first.hits, first.runs, first.bounds]), local[0]!, {});
    // More buffers than the registry keeps: the first ones are dropped in the workers…
    for (let k = 0; k < 800; k++) module.run(job(0, 8, 1, 2, [i32(8), i32(8), f64(16)]), local[0]!, {});
    expect(poolState()!.buffers).toBeLessThanOrEqual(1024);
    // …and posted again when passed again.
    module.run(job(0, 8, 1, 2, [first.hits, first.runs, first.bounds]), local[0]!, {});
    expect([...first.hits]).toEqual(new Array(8).fill(2));
    module.unload();
  });

  it("registry: drops the least recently passed buffers beyond its bounds, never one the fork passes", () => {
    const registry = new BufferRegistry(100, 3);
    const [a, b, c, d, e] = [40, 40, 40, 200, 1].map((n) => new SharedArrayBuffer(n));
    const fresh: [number, SharedArrayBuffer][] = [];
    const ia = registry.idOf(a!, 1, fresh);
    const ib = registry.idOf(b!, 1, fresh);
    expect(registry.evict(1)).toEqual([]);
    const ic = registry.idOf(c!, 2, fresh);
    registry.idOf(b!, 2, fresh); // b passed again: now newer than a
    expect(fresh.map(([id]) => id)).toEqual([ia, ib, ic]);
    expect(registry.evict(2)).toEqual([ia]);
    expect(registry.size).toEqual({ buffers: 2, bytes: 80 });
    // a again: a new id, posted again.
    fresh.length = 0;
    const ia2 = registry.idOf(a!, 3, fresh);
    expect(ia2).not.toBe(ia);
    expect(fresh).toEqual([[ia2, a]]);
    expect(registry.evict(3)).toEqual([ib]);
    // A fork that passes more than the bounds keeps all it passes.
    registry.idOf(d!, 4, fresh);
    registry.idOf(e!, 4, fresh);
    expect(registry.evict(4).sort()).toEqual([ic, ia2].sort());
    expect(registry.size).toEqual({ buffers: 2, bytes: 201 });
    expect(registry.live().map(([, buffer]) => buffer)).toEqual([d, e]);
  });

  it('moves the argument area when a job has many arguments', async () => {
    const module = await acquirePool(2).load(`function main() {}
      const fns = [function sum(rt, lo, hi, chunk, out, ...xs) { let s = 0; for (const x of xs) s += x; out[chunk] = s; }];`);
    const sum = compile(`function main() {} const fns = [function sum(rt, lo, hi, chunk, out, ...xs) { let s = 0; for (const x of xs) s += x; out[chunk] = s; }];`)[0]!;
    const out = f64(4);
    const xs = Array.from({ length: 500 }, (_, k) => k);
    module.run(job(0, 4, 1, 2, [out, ...xs]), sum, {});
    expect([...out]).toEqual(new Array(4).fill((499 * 500) / 2));
    module.unload();
  });

  it('unloads a module (idempotent); a run of it then fails', async () => {
    const before = poolState()!.modules;
    const module = await acquirePool(2).load(text);
    expect(poolState()!.modules).toBe(before + 1);
    module.unload();
    module.unload();
    expect(poolState()!.modules).toBe(before);
    expect(() => countRun(module, 4, 1, 2)).toThrow(/unloaded/);
  });

  it('rejects a load the workers cannot compile', async () => {
    await expect(acquirePool(2).load('function main() {} const fns = [')).rejects.toThrow(/could not compile the module \(SyntaxError/);
    await expect(acquirePool(2).load('function main() {} const fns = 3;')).rejects.toThrow(/no array `fns`/);
    // The pool is fine afterwards.
    const module = await acquirePool(2).load(text);
    expect(countRun(module, 9, 2, 2).hits).toEqual(new Array(9).fill(1));
    module.unload();
  });

  it('refuses a work function that starts a fork while one runs', async () => {
    const module = await acquirePool(2).load(text);
    const nested: WorkFunction = () => module.run(job(3, 4, 1, 2, []), local[3]!, {});
    // Alone, and forked (the worker's chunks take 2 ms, so the calling thread surely runs one).
    for (const threads of [1, 2]) {
      const fault = faultOf(() => module.run(job(6, 100, 1, threads, [i32(1)]), nested, {}));
      expect((fault.error as Error).message).toMatch(/started a fork while one was running/);
    }
    expect(countRun(module, 9, 2, 2).hits).toEqual(new Array(9).fill(1));
    module.unload();
  });

  describe('a worker that dies', () => {
    it('in a chunk: WorkerDiedError within 2 s; the module must be reloaded; a fresh pool works', async () => {
      const module = await acquirePool(2).load(text);
      const start = performance.now();
      let error: unknown;
      try {
        module.run(job(2, 4, 1, 2, []), local[2]!, {});
      } catch (e) {
        error = e;
      }
      const took = performance.now() - start;
      expect(error).toBeInstanceOf(WorkerDiedError);
      expect((error as WorkerDiedError).detail).toContain('exit code 3');
      expect(took).toBeLessThan(2000);
      // The module belonged to the dead workers.
      expect(() => countRun(module, 4, 1, 2)).toThrow(WorkerDiedError);
      module.unload();
      const fresh = await acquirePool(2).load(text);
      expect(countRun(fresh, 40, 3, 2).hits).toEqual(new Array(40).fill(1));
      fresh.unload();
    });

    it('while it compiles a module: the load rejects with WorkerDiedError; a fresh pool works', async () => {
      const deadly = 'function main() {}\nprocess.exit(4);\nconst fns = [];\n';
      await expect(acquirePool(2).load(deadly)).rejects.toThrow(/worker thread \d died \(exit code 4\)/);
      const fresh = await acquirePool(2).load(text);
      expect(countRun(fresh, 10, 1, 2).hits).toEqual(new Array(10).fill(1));
      fresh.unload();
    });

    it('of an error outside any chunk: WorkerDiedError with its last words', async () => {
      const module = await acquirePool(2).load(text);
      let error: unknown;
      try {
        // The workers have no work function 42: the worker throws outside a chunk.
        module.run(job(42, 4, 1, 2, []), local[3]!, {});
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(WorkerDiedError);
      expect((error as WorkerDiedError).detail).toMatch(/has no work function 42.*exit code 1/);
      const fresh = await acquirePool(2).load(text);
      expect(countRun(fresh, 10, 1, 2).hits).toEqual(new Array(10).fill(1));
      fresh.unload();
    });
  });

  /** Runs a module script importing the built pool as `acquirePool`; returns its output and how long it took. */
  function runScript(body: string): { stdout: string; stderr: string; status: number | null; took: number } {
    const pool = join(repoRoot, 'dist/runtime/multicore/pool.js');
    expect(existsSync(pool), 'run `npm run build` first').toBe(true);
    const script = `const { acquirePool } = await import(${JSON.stringify(pool)});\n${body}`;
    const start = performance.now();
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    return { stdout: child.stdout, stderr: child.stderr, status: child.status, took: performance.now() - start };
  }

  it('does not keep a process alive: a script that only starts a pool exits at once', () => {
    const { stderr, status, took } = runScript('acquirePool(3);');
    expect([stderr, status]).toEqual(['', 0]);
    expect(took).toBeLessThan(3000);
  });

  it('does not keep a process alive: a script that forks and returns exits at once', () => {
    const script = `
      const text = 'function main() {} const fns = [function (rt, lo, hi, chunk, out) { for (let i = lo; i < hi; i++) out[i] = i; }];';
      const local = new Function("'use strict';\\n" + text + "return { main, fns };")().fns[0];
      const module = await acquirePool(2).load(text);
      const out = new Float64Array(new SharedArrayBuffer(8000));
      for (let k = 0; k < 100; k++) module.run({ fn: 0, extent: 1000, chunkLength: 10, threads: 2, args: [out] }, local, {});
      console.log(out.reduce((a, b) => a + b));
    `;
    const { stdout, stderr, status, took } = runScript(script);
    expect([stderr, status]).toEqual(['', 0]);
    expect(stdout.trim()).toBe(String((999 * 1000) / 2));
    expect(took).toBeLessThan(3000);
  });
});
