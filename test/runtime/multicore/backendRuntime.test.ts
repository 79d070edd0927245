// The multicore runtime's `par` (src/runtime/multicore/runtime.ts) on hand-written work
// functions and the in-process fake pool: when a call forks (threshold, chunk count, shared
// arguments), the shared mirrors of the caller's arrays (inputs copied once a run, written
// arrays copied in and back, the cost rule), fixed chunks and their partials, faults (the lowest
// faulting chunk's sequential diagnostic; a fault that does not reproduce is a CompilerBug), and
// a dead worker.

import { describe, expect, test } from 'vitest';
import { CompilerBug, UserError } from '../../../src/diagnostics/index.js';
import type { Program } from '../../../src/ir/types.js';
import type { RuntimeValue } from '../../../src/ir/values.js';
import { Pool, Runtime, runRecord, type RuntimeTables, type WorkFunction } from '../../../src/runtime/helpers.js';
import { freeChunkLength, McRuntime, MIRROR_WORK_PER_ELEMENT, type ParallelContext } from '../../../src/runtime/multicore/runtime.js';
import { type LoadedModule, WorkerDiedError } from '../../../src/runtime/multicore/types.js';
import { fakePool } from './backendFakePool.js';

// c0: ys = 2·xs (free). c1: per-chunk sums of xs into partials (fixed). c2: a gather-like
// bounds check (negative xs fault). c3: faults on a worker only (a bug the re-run does not meet).
const text = `
function c0(rt, lo, hi, chunk, n, xs, ys) { for (let i = lo; i < hi; i++) ys[i] = 2 * xs[i]; }
function c1(rt, lo, hi, chunk, n, xs, p) { let acc = 0; for (let i = lo; i < hi; i++) acc += xs[i]; p[chunk] = acc; }
function c2(rt, lo, hi, chunk, n, xs, ys) {
  for (let i = lo; i < hi; i++) { const x = xs[i]; if (x < 0) rt.oob(0, [x], [n], i, [n]); ys[i] = x; }
}
function c3(rt, lo, hi, chunk, n, xs) { if (typeof rt.enter !== 'function') throw new RangeError('only on a worker'); }
const fns = [c0, c1, c2, c3];
function main(rt, inputs) { return []; }
`;
const { fns } = new Function(`'use strict';\n${text}return { main, fns };\n`)() as { fns: readonly WorkFunction[] };

/**
 * A `par` call as generated main makes it: the runtime forks it, or returns false and main runs
 * its chunks here, in order (a fixed call's chunks of rt.chunkLength, a free call in one piece).
 */
function par(rt: McRuntime, c: number, fn: number, extent: number, work: number, fixed: boolean, args: readonly (Float64Array | number)[]): void {
  if (rt.par(c, fn, extent, work, fixed, args)) return;
  const f = fns[fn]!;
  if (!fixed) return f(rt, 0, extent, 0, ...args);
  for (let k = 0, lo = 0; lo < extent; k++, lo += rt.chunkLength) f(rt, lo, Math.min(extent, lo + rt.chunkLength), k, ...args);
}

const tables: RuntimeTables = { sites: [{ kind: 'index', what: 'gather' }], slots: [], allocations: [], clusterCount: 4 };

/** A program with one f64 array parameter `xs`, donated or not (only its params matter to `begin`). */
function programOf(donated: boolean): Program {
  const xs = { name: 'xs', type: { kind: 'array', elem: 'f64', rank: 1 } } as unknown as Program['params'][number]['components'][number];
  return { name: 'p', params: [{ name: 'xs', components: [xs], ...(donated ? { donated: true } : {}) }], body: { params: [xs], stmts: [], results: [] }, results: [] };
}

async function setup(options: { threads?: number; threshold?: number; chunkLength?: number } = {}) {
  const threads = options.threads ?? 2;
  const pool = fakePool(threads);
  const module: LoadedModule = await pool.load(text);
  const context: ParallelContext = { threads, threshold: options.threshold ?? 0, module };
  const memory = new Pool([], true);
  const rt = new McRuntime(tables, undefined, Infinity, runRecord(tables), memory, false, context, fns, options.chunkLength ?? 3, fns.map(() => false));
  rt.reset(memory, { out: undefined, timing: false });
  return { pool, context, rt, memory };
}

function shared(values: readonly number[]): Float64Array {
  const a = new Float64Array(new SharedArrayBuffer(8 * values.length));
  a.set(values);
  return a;
}

const iota = (n: number, f: (i: number) => number = (i) => i): number[] => Array.from({ length: n }, (_, i) => f(i));

function inputOf(xs: Float64Array): RuntimeValue {
  return { kind: 'array', elem: 'f64', shape: [xs.length], data: xs };
}

describe('when a call forks', () => {
  test('shared arrays and enough work: the chunks go to the pool, and the record counts the fork', async () => {
    const { pool, rt } = await setup();
    const xs = shared(iota(20));
    const ys = shared(iota(20, () => NaN));
    rt.enter(0);
    par(rt, 0, 0, 20, 1, false, [20, xs, ys]);
    par(rt, 0, 0, 20, 1, false, [20, xs, ys]);
    rt.leave(0);
    expect(pool.jobs).toHaveLength(2);
    expect(pool.jobs[0]!.threads).toBe(2);
    expect(Array.from(ys)).toEqual(iota(20, (i) => 2 * i));
    // One cluster call (enter … leave) that forked, whatever its number of par calls.
    expect(rt.record.clusterForks(0)).toBe(1);
    expect(rt.record.clusterCalls(0)).toBe(1);
  });

  test('below the threshold, or with one chunk, the call runs here alone', async () => {
    const { pool, rt } = await setup({ threshold: 100 });
    const xs = shared(iota(20));
    const ys = shared(iota(20, () => NaN));
    par(rt, 0, 0, 20, 4, false, [20, xs, ys]); // 80 < 100
    expect(pool.jobs).toHaveLength(0);
    expect(Array.from(ys)).toEqual(iota(20, (i) => 2 * i));
    par(rt, 1, 1, 3, 1000, true, [3, xs, shared([NaN])]); // one chunk of 3
    expect(pool.jobs).toHaveLength(0);
    par(rt, 0, 0, 0, 1000, false, [0, xs, ys]); // nothing to do
    rt.leave(0);
    expect(pool.jobs).toHaveLength(0);
    expect(rt.record.clusterForks(0)).toBe(0);
  });

  test('a fixed call keeps the chunk length and writes one partial per chunk', async () => {
    const { pool, rt } = await setup({ chunkLength: 3 });
    const xs = shared(iota(10, (i) => i + 1));
    const p = shared(iota(4, () => NaN));
    par(rt, 1, 1, 10, 1, true, [10, xs, p]);
    expect(pool.jobs[0]!.chunkLength).toBe(3);
    expect(Array.from(p)).toEqual([6, 15, 24, 10]);
  });

  test('without a module (one thread) par is the js runtime’s', async () => {
    const { context, rt, pool } = await setup();
    context.module = null;
    const xs = shared(iota(10));
    const ys = shared(iota(10, () => NaN));
    par(rt, 0, 0, 10, 1e9, false, [10, xs, ys]);
    expect(pool.jobs).toHaveLength(0);
    expect(Array.from(ys)).toEqual(iota(10, (i) => 2 * i));
  });
});

describe('arrays that are not on a SharedArrayBuffer', () => {
  test('an input only read is mirrored once a run when the work pays for the copy, on a buffer the pool keeps', async () => {
    const { pool, rt, memory } = await setup();
    const program = programOf(false);
    const xs = new Float64Array(iota(16));
    rt.begin(program, [inputOf(xs)]);
    const ys = shared(iota(16, () => NaN));
    // Work 1 per element: 16 < 8·16, too little to copy: runs here.
    par(rt, 0, 0, 16, 1, false, [16, xs, ys]);
    expect(pool.jobs).toHaveLength(0);
    par(rt, 0, 0, 16, MIRROR_WORK_PER_ELEMENT, false, [16, xs, ys]);
    expect(pool.jobs).toHaveLength(1);
    expect(Array.from(ys)).toEqual(iota(16, (i) => 2 * i));
    expect(memory.mirrors.size).toBe(1);
    const mirror = [...memory.mirrors.values()][0]!;
    // Mirrored already this run: a light call forks too, on the same copy.
    ys.fill(NaN);
    par(rt, 0, 0, 16, 1, false, [16, xs, ys]);
    expect(pool.jobs).toHaveLength(2);
    expect(pool.jobs[1]!.args[1]).toBe(mirror);
    expect(Array.from(ys)).toEqual(iota(16, (i) => 2 * i));
    rt.end();
    // The next run copies again (the caller may have changed the array), into the same buffer.
    xs.fill(5);
    rt.reset(memory, { out: undefined, timing: false });
    rt.begin(program, [inputOf(xs)]);
    par(rt, 0, 0, 16, MIRROR_WORK_PER_ELEMENT, false, [16, xs, ys]);
    expect(pool.jobs[2]!.args[1]).toBe(mirror);
    expect(Array.from(ys)).toEqual(iota(16, () => 10));
    expect(memory.owns(mirror.buffer)).toBe(true);
    rt.end();
  });

  test('an array the call may write (out, a donated input) is copied in and back, when the work pays for two copies', async () => {
    const { pool, rt } = await setup();
    rt.begin(programOf(true), [inputOf(new Float64Array(4))]);
    const xs = shared(iota(16));
    const ys = new Float64Array(16).fill(NaN);
    par(rt, 0, 0, 16, MIRROR_WORK_PER_ELEMENT, false, [16, xs, ys]); // 8·16 < 8·2·16: here
    expect(pool.jobs).toHaveLength(0);
    expect(Array.from(ys)).toEqual(iota(16, (i) => 2 * i));
    ys.fill(NaN);
    par(rt, 0, 0, 16, 2 * MIRROR_WORK_PER_ELEMENT, false, [16, xs, ys]);
    expect(pool.jobs).toHaveLength(1);
    expect(pool.jobs[0]!.args[2]).not.toBe(ys);
    expect(Array.from(ys)).toEqual(iota(16, (i) => 2 * i));
    rt.end();
  });

  test('one array passed twice gets one mirror', async () => {
    const { pool, rt } = await setup();
    const xs = new Float64Array(iota(16));
    rt.begin(programOf(true), [inputOf(xs)]);
    par(rt, 0, 0, 16, 1000, false, [16, xs, xs]); // xs = 2·xs in place
    expect(pool.jobs[0]!.args[1]).toBe(pool.jobs[0]!.args[2]);
    expect(Array.from(xs)).toEqual(iota(16, (i) => 2 * i));
    rt.end();
  });
});

describe('faults', () => {
  /** The js runtime's diagnostic for the same call (run here, as main runs a call par leaves to it). */
  function sequentialError(args: readonly (Float64Array | number)[]): UserError {
    const js = new Runtime(tables, undefined, Infinity, runRecord(tables), new Pool([]));
    try {
      fns[2]!(js, 0, args[0] as number, 0, ...args);
    } catch (e) {
      if (e instanceof UserError) return e;
      throw e;
    }
    throw new Error('no fault');
  }

  test.each([
    ['the first chunk', [1]],
    ['the last chunk', [19]],
    ['a middle chunk and a later one', [9, 16]],
    ['every chunk', iota(20)],
  ])('in %s: the sequential diagnostic of the first fault', async (_, bad) => {
    for (const threads of [2, 3]) {
      const { rt } = await setup({ threads });
      const xs = shared(iota(20, (i) => (bad.includes(i) ? -i - 1 : i)));
      const ys = shared(iota(20, () => 0));
      let thrown: unknown = null;
      try {
        par(rt, 2, 2, 20, 1, false, [20, xs, ys]);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(UserError);
      expect((thrown as UserError).message).toBe(sequentialError([20, xs, shared(iota(20))]).message);
      // The runtime is fine after it: a later call is right.
      par(rt, 0, 0, 20, 1, false, [20, shared(iota(20)), ys]);
      expect(Array.from(ys)).toEqual(iota(20, (i) => 2 * i));
    }
  });

  test('a chunk that faults on a worker but not when run again here is a CompilerBug quoting the worker’s error', async () => {
    const { rt } = await setup();
    expect(() => par(rt, 3, 3, 20, 1, false, [20, shared(iota(20))])).toThrow(CompilerBug);
    expect(() => par(rt, 3, 3, 20, 1, false, [20, shared(iota(20))])).toThrow(/RangeError: only on a worker/);
  });

  test('a worker that dies: WorkerDiedError, and the module is dropped (the executable reloads it)', async () => {
    const { rt, pool, context } = await setup();
    pool.killNext = true;
    expect(() => par(rt, 0, 0, 20, 1, false, [20, shared(iota(20)), shared(iota(20))])).toThrow(WorkerDiedError);
    expect(context.module).toBeNull();
    // Without a module the next call runs here.
    const ys = shared(iota(20, () => NaN));
    par(rt, 0, 0, 20, 1, false, [20, shared(iota(20)), ys]);
    expect(Array.from(ys)).toEqual(iota(20, (i) => 2 * i));
  });
});

describe('free chunk lengths', () => {
  test('at least 4 chunks a thread when the extent allows, at most 64, each of some least work (less with a lower threshold)', () => {
    // Threshold 0 (tests): no least work, chunks as small as 64 a thread allow.
    expect(freeChunkLength(10, 1, 2, 0)).toBe(1);
    expect(freeChunkLength(1000, 1, 2, 0)).toBe(8);
    expect(freeChunkLength(1e7, 1, 2, 1 << 15)).toBe(Math.ceil(1e7 / 128));
    // The least work of a chunk is at most threshold / (4 · threads): 4096 here.
    expect(freeChunkLength(1e5, 1, 2, 1 << 15)).toBe(4096);
    expect(freeChunkLength(1e5, 1, 2, 1 << 20)).toBe(12_500);
    expect(freeChunkLength(1e6, 1, 2, 1 << 20)).toBe(32_768);
    expect(freeChunkLength(20_000, 1, 2, 1 << 15)).toBe(2500);
    expect(freeChunkLength(1e6, 1000, 2, 1 << 15)).toBe(Math.ceil(1e6 / 128));
    for (const [extent, work, threads] of [[1, 1, 2], [7, 0, 3], [1e9, 1e-3, 16]] as const) {
      const l = freeChunkLength(extent, work, threads, 1 << 15);
      expect(Number.isInteger(l) && l >= 1).toBe(true);
    }
  });
});
