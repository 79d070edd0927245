// Which back end a Compiler's fused runs use, and on how many threads: the `backend` and
// `threads` options, else the ARRAYFUSE_THREADS environment variable, else the machine's
// available parallelism. One thread is the `js` back end (today's code path exactly); two or
// more, the `multicore` back end (docs/EXECUTION.md, "Threads").
//
// `chooseBackend` is pure (the environment and the machine's parallelism are its arguments), so
// the rules are tested without touching process.env. The core runs anywhere (no `node:` import):
// the environment and `os.availableParallelism` are reached through `globalThis.process`.

import { checkThreads, InvalidOptionError, threadCountOf, type BackendName } from '../runtime/index.js';

/** The environment variable that sets the default thread count (an explicit `threads` wins). */
export const THREADS_ENV = 'ARRAYFUSE_THREADS';

export interface BackendRequest {
  /** The back end asked for by name, if any. */
  readonly backend?: BackendName;
  /** The thread count asked for, if any (the calling thread included). */
  readonly threads?: number;
  /** Environment variables (`process.env`); undefined where there are none (a browser). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The machine's available parallelism, asked only when neither `threads` nor the environment says. */
  readonly parallelism: () => number;
}

export interface BackendChoice {
  readonly name: BackendName;
  /** Threads the fused loops run on, the calling thread included (1 for a single-threaded back end). */
  readonly threads: number;
}

/**
 * The back end and thread count for a request:
 * - `threads` given: an integer from 1 to MAX_THREADS, honoured as given; else ARRAYFUSE_THREADS
 *   (the same rule; empty counts as unset); else `parallelism()`.
 * - no `backend`: one thread runs `js`, more run `multicore`.
 * - `backend: 'multicore'`: that back end on the thread count above (one thread included: its
 *   chunked loops on the calling thread alone).
 * - any other back end runs on one thread: an explicit `threads` above 1 is a TypeError, while
 *   a default above 1 (the environment's or the machine's) just gives way to it.
 */
export function chooseBackend(request: BackendRequest): BackendChoice {
  const { backend, threads } = request;
  if (threads !== undefined) checkThreads(threads, 'threads');
  if (backend !== undefined && backend !== 'multicore') {
    if (threads !== undefined && threads !== 1) {
      throw new InvalidOptionError(`threads: ${threads}: the ${backend} back end runs on one thread; leave \`backend\` unset (or ask for 'multicore') to run on ${threads} threads`);
    }
    return { name: backend, threads: 1 };
  }
  const count = threads ?? defaultThreads(request.env, request.parallelism);
  return { name: backend ?? (count === 1 ? 'js' : 'multicore'), threads: count };
}

/** ARRAYFUSE_THREADS when set, else the machine's parallelism. */
function defaultThreads(env: Readonly<Record<string, string | undefined>> | undefined, parallelism: () => number): number {
  const text = env?.[THREADS_ENV];
  if (text === undefined || text.trim() === '') return parallelism();
  const count = threadCountOf(text);
  checkThreads(count, `${THREADS_ENV}=${JSON.stringify(text)}`);
  return count;
}

/** The environment variables of this process, or undefined where there is no `process` (a browser). */
export function processEnv(): Readonly<Record<string, string | undefined>> | undefined {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
}
