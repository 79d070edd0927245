// An in-process stand-in for the thread pool (src/runtime/multicore/types.ts `ThreadPool`), for
// the multicore back end's tests: a "worker" is the calling thread running the module's own
// compiled copy of a work function with a worker-like `rt` (only the worker helpers), chunks
// are run in a shuffled order (threads claim them in any order), every array argument must view
// a SharedArrayBuffer (what real workers can see), and faults are reported as the real pool
// reports them: a ChunkFault for the lowest faulting chunk.

import type { TypedArray } from '../../../src/ir/scalarOps.js';
import type { WorkFunction } from '../../../src/runtime/helpers.js';
import { ChunkFault, type Job, type LoadedModule, type ThreadPool, WorkerDiedError } from '../../../src/runtime/multicore/types.js';

/** A worker's `rt`: the worker helpers only (codegen/runtimeHelpers.ts `workerHelpers`); faults throw a plain Error as a worker's copy would arrive. */
function workerRuntime(): object {
  const rows: Float64Array[] = [];
  return {
    index: (k: number) => {
      throw new Error(`index fault at site ${k}`);
    },
    divzero: (k: number) => {
      throw new Error(`division by zero at site ${k}`);
    },
    oob: (k: number) => {
      throw new Error(`out of range at site ${k}`);
    },
    scratch: (k: number, n: number) => {
      const r = rows[k];
      if (r !== undefined && r.length >= n) return r.subarray(0, n);
      return (rows[k] = new Float64Array(n));
    },
  };
}

/** A deterministic shuffle (xorshift), so a failing order can be replayed. */
function shuffled(n: number, seed: number): number[] {
  const order = Array.from({ length: n }, (_, k) => k);
  let s = seed | 0 || 1;
  for (let k = n - 1; k > 0; k--) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const j = (s >>> 0) % (k + 1);
    [order[k], order[j]] = [order[j]!, order[k]!];
  }
  return order;
}

export interface FakePool extends ThreadPool {
  /** Jobs run so far (forks), with the thread count and chunk length each used. */
  readonly jobs: Job[];
  /** Modules loaded and not unloaded. */
  loaded: number;
  /** Loads so far. */
  loads: number;
  /** The next fork fails as if a worker died. */
  killNext: boolean;
  /** Set when the pool "died": loads and runs on it fail. */
  dead: boolean;
}

export function fakePool(threads: number, seed = 12345): FakePool {
  let round = seed;
  const pool: FakePool = {
    threads,
    jobs: [],
    loaded: 0,
    loads: 0,
    killNext: false,
    dead: false,
    load(text: string): Promise<LoadedModule> {
      if (pool.dead) return Promise.reject(new WorkerDiedError(1, 'the pool is dead'));
      const { fns } = new Function(`'use strict';\n${text}return { main, fns };\n`)() as { fns: readonly WorkFunction[] };
      pool.loads++;
      pool.loaded++;
      let unloaded = false;
      const module: LoadedModule = {
        get alive(): boolean {
          return !pool.dead;
        },
        run(job: Job, local: WorkFunction, rt: unknown): void {
          if (unloaded) throw new Error('fake pool: run of an unloaded module');
          if (pool.dead) throw new WorkerDiedError(1, 'the pool is dead');
          if (pool.killNext) {
            pool.killNext = false;
            pool.dead = true;
            throw new WorkerDiedError(1, 'killed by the test');
          }
          for (const a of job.args) {
            if (typeof a !== 'number' && !((a as TypedArray).buffer instanceof SharedArrayBuffer)) throw new Error('fake pool: an array argument is not on a SharedArrayBuffer');
          }
          if (!(job.threads >= 2 && job.threads <= threads)) throw new Error(`fake pool: a job for ${job.threads} threads`);
          pool.jobs.push(job);
          const chunks = Math.ceil(job.extent / job.chunkLength);
          const worker = fns[job.fn]!;
          const wrt = workerRuntime();
          let fault: ChunkFault | null = null;
          // Chunk k runs "on thread" k mod threads: thread 0 is the calling thread (local, rt).
          for (const k of shuffled(chunks, round++)) {
            const lo = k * job.chunkLength;
            const hi = Math.min(job.extent, lo + job.chunkLength);
            try {
              if (k % job.threads === 0) local(rt as never, lo, hi, k, ...job.args);
              else worker(wrt as never, lo, hi, k, ...job.args);
            } catch (e) {
              if (fault === null || k < fault.chunk) fault = new ChunkFault(k, lo, hi, e);
            }
          }
          if (fault !== null) throw fault;
        },
        unload(): void {
          if (!unloaded) pool.loaded--;
          unloaded = true;
        },
      };
      return Promise.resolve(module);
    },
  };
  return pool;
}
