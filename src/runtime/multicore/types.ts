// The boundary between the multicore back end (backend.ts: compile, run; runtime.ts: the `rt.par` decision)
// and its thread pool (pool.ts: workers, shared memory, fork–join). The pool knows nothing of
// programs: it loads a module's work functions into its workers and runs chunks of one of them
// over an iteration range on the calling thread and the workers together.

import type { TypedArray } from '../../ir/scalarOps.js';
import type { WorkFunction } from '../helpers.js';

/** A cluster call's arguments: numbers, and typed arrays that must view SharedArrayBuffers. */
export type WorkArgs = readonly (TypedArray | number)[];

/** One fork: the chunks of `fns[fn]` over [0, extent). */
export interface Job {
  readonly fn: number;
  readonly extent: number;
  /** Iterations per chunk: chunk k is [k·chunkLength, min(extent, (k+1)·chunkLength)). */
  readonly chunkLength: number;
  /** Threads that take part, the calling thread included (at most the pool's `threads`). */
  readonly threads: number;
  readonly args: WorkArgs;
}

/**
 * The process-wide pool of workers (started once, by the first executable that asks for it;
 * its workers never keep the process alive).
 */
export interface ThreadPool {
  /** Threads that can run chunks, the calling thread included. */
  readonly threads: number;
  /**
   * Compiles a parallel module (`GeneratedProgram.text`, which defines `fns`) in every worker.
   * Resolves once all have it; rejects with WorkerDiedError if a worker dies meanwhile.
   */
  load(text: string): Promise<LoadedModule>;
}

export interface LoadedModule {
  /**
   * Runs every chunk of the job once, on the calling thread (through `local`, the calling
   * thread's own compiled copy of the same function) and on the workers, claiming chunks in
   * order; returns when all are done. If chunks threw, every thread first stops claiming, then
   * this throws a ChunkFault for the lowest faulting chunk (the calling thread's own error
   * object when that chunk ran here). A worker that dies: WorkerDiedError, never a hang.
   */
  run(job: Job, local: WorkFunction, rt: unknown): void;
  /** Drops the module in every worker (idempotent). */
  unload(): void;
  /**
   * False once a worker of its pool died (during any module's run, or between runs): `run` would
   * throw WorkerDiedError, so the back end loads the module text again on a fresh pool first.
   */
  readonly alive: boolean;
}

/**
 * The lowest chunk that threw during a fork. The back end re-runs that chunk on the calling
 * thread, which throws the same diagnostic a sequential run meets (faults are deterministic
 * functions of the inputs); `error` is what the thread that ran it threw (the error itself on
 * the calling thread, its name and message from a worker).
 */
export class ChunkFault extends Error {
  constructor(
    readonly chunk: number,
    readonly lo: number,
    readonly hi: number,
    readonly error: unknown,
  ) {
    super(`chunk ${chunk} [${lo}, ${hi}) failed: ${error instanceof Error ? error.message : String(error)}`);
    this.name = 'ChunkFault';
  }
}

/** A worker of the pool exited or crashed during a fork or a load: the run fails, the pool restarts on next use. */
export class WorkerDiedError extends Error {
  constructor(
    readonly worker: number,
    readonly detail: string,
  ) {
    super(`arrayfuse: worker thread ${worker} died (${detail}); the run was abandoned and the pool restarts on next use`);
    this.name = 'WorkerDiedError';
  }
}
