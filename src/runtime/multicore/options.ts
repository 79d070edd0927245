// The multicore options' rules, stated once: `threads` (also ARRAYFUSE_THREADS and the CLI's
// `--threads`), `parallelThreshold` and `chunkLength`. The back end checks what it is given
// (it can be compiled for directly), and the driver checks the same options with the same
// functions when a Compiler is made, so a bad option is reported before any work.

import { MAX_THREADS } from './protocol.js';

export { MAX_THREADS };

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
 * Whether `value` is a thread count one may ask for: an integer from 1 to MAX_THREADS. The upper
 * bound is not a clamp to the machine (more threads than cores is allowed, only slow) but a
 * guard against a typo that would start thousands of workers.
 */
export function isThreadCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_THREADS;
}

/** A thread count written as text (ARRAYFUSE_THREADS, `--threads`): digits only, else NaN (Number() would also take '0x10', '1e3' and ' 2.0 '). */
export function threadCountOf(text: string): number {
  return /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
}

/** Throws InvalidOptionError unless `value` is a thread count (`isThreadCount`); `what` names the option. */
export function checkThreads(value: unknown, what: string): asserts value is number {
  if (isThreadCount(value)) return;
  const shown = typeof value === 'number' ? String(value) : typeof value === 'string' ? JSON.stringify(value) : typeof value;
  const problem = typeof value === 'number' && Number.isInteger(value) && value > MAX_THREADS ? `at most ${MAX_THREADS} threads can be asked for` : 'expected an integer number of threads, 1 or more';
  // The option's name already holds the environment variable's value; an option's value is shown after it.
  throw new InvalidOptionError(what.includes('=') ? `${what}: ${problem}` : `${what}: ${shown}: ${problem}`);
}

/**
 * The multicore tuning options (tests and benchmarks): a fork threshold, finite and 0 or more; a
 * chunk length of 1 or more iterations. Undefined leaves the back end's defaults.
 */
export function checkTuning(parallelThreshold: unknown, chunkLength: unknown): void {
  if (parallelThreshold !== undefined && !(typeof parallelThreshold === 'number' && parallelThreshold >= 0 && parallelThreshold <= Number.MAX_VALUE)) {
    throw new InvalidOptionError(`parallelThreshold: ${String(parallelThreshold)}: expected a finite number, 0 or more`);
  }
  if (chunkLength !== undefined && !(typeof chunkLength === 'number' && Number.isSafeInteger(chunkLength) && chunkLength >= 1)) {
    throw new InvalidOptionError(`chunkLength: ${String(chunkLength)}: expected an integer number of iterations, 1 or more`);
  }
}
