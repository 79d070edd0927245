// Which back end a Compiler's fused runs use, and on how many threads: the `backend` and
// `threads` options, else the ARRAYFUSE_THREADS environment variable, else the machine's
// available parallelism. One thread is the `js` back end (today's code path exactly); two or
// more, the `multicore` back end (docs/EXECUTION.md, "Threads").
//
// `chooseBackend` is pure (the environment and the machine's parallelism are its arguments), so
// the rules are tested without touching process.env. The core runs anywhere (no `node:` import):
// the environment and `os.availableParallelism` are reached through `globalThis.process`.

import type { BackendName } from '../runtime/index.js';

/** The environment variable that sets the default thread count (an explicit `threads` wins). */
export const THREADS_ENV = 'ARRAYFUSE_THREADS';

/**
 * The most threads one Compiler may ask for: not a clamp to the machine (more threads than cores
 * is allowed, only slow), a guard against a typo that would start thousands of workers.
 */
export const MAX_THREADS = 256;

/** The back ends a choice can name. */
export type ChosenBackend = BackendName;

export interface BackendRequest {
  /** The back end asked for by name, if any. */
  readonly backend?: ChosenBackend;
  /** The thread count asked for, if any (the calling thread included). */
  readonly threads?: number;
  /** Environment variables (`process.env`); undefined where there are none (a browser). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The machine's available parallelism, asked only when neither `threads` nor the environment says. */
  readonly parallelism: () => number;
}

export interface BackendChoice {
  readonly name: ChosenBackend;
  /** Threads the fused loops run on, the calling thread included (1 for a single-threaded back end). */
  readonly threads: number;
}

/**
 * A bad `threads` (or ARRAYFUSE_THREADS, or tuning) option: the caller's mistake, said when the
 * program is compiled. A TypeError, as an unknown back end name is; the CLI reports it as a usage
 * error.
 */
export class InvalidOptionError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidOptionError';
  }
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
  // Digits only: Number() would also take '0x10', '1e3' and ' 2.0 '.
  const count = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  checkThreads(count, `${THREADS_ENV}=${JSON.stringify(text)}`);
  return count;
}

/** Throws InvalidOptionError unless `value` is an integer from 1 to MAX_THREADS; `what` names the option. */
export function checkThreads(value: unknown, what: string): asserts value is number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_THREADS) return;
  const shown = typeof value === 'number' ? String(value) : typeof value === 'string' ? JSON.stringify(value) : typeof value;
  const problem = typeof value === 'number' && Number.isInteger(value) && value > MAX_THREADS ? `at most ${MAX_THREADS} threads can be asked for` : 'expected an integer number of threads, 1 or more';
  // The option's name already holds the environment variable's value; an option's value is shown after it.
  throw new InvalidOptionError(what.includes('=') ? `${what}: ${problem}` : `${what}: ${shown}: ${problem}`);
}

/**
 * The multicore tuning options (tests and benchmarks): a fork threshold of 0 or more, a chunk
 * length of 1 or more iterations. Undefined leaves the back end's defaults.
 */
export function checkTuning(parallelThreshold: unknown, chunkLength: unknown): void {
  if (parallelThreshold !== undefined && !(typeof parallelThreshold === 'number' && parallelThreshold >= 0 && parallelThreshold <= Number.MAX_VALUE)) {
    throw new InvalidOptionError(`parallelThreshold: ${String(parallelThreshold)}: expected a finite number, 0 or more`);
  }
  if (chunkLength !== undefined && !(typeof chunkLength === 'number' && Number.isSafeInteger(chunkLength) && chunkLength >= 1)) {
    throw new InvalidOptionError(`chunkLength: ${String(chunkLength)}: expected an integer number of iterations, 1 or more`);
  }
}

/** The environment variables of this process, or undefined where there is no `process` (a browser). */
export function processEnv(): Readonly<Record<string, string | undefined>> | undefined {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
}
