// The thread pool's shared-memory protocol: where each word of the control block lives, what the
// commands and the mail between the calling thread and its workers are, and how an argument of a
// fork is encoded. The calling thread (pool.ts) and the workers (worker.ts, whose source runs as
// an eval'd string and so cannot import anything) both read the `Layout` made here: the workers
// get it as a JSON literal spliced into their source.
//
// The control block is one Int32Array on a SharedArrayBuffer. Words that threads write during a
// fork (NEXT, DONE, FAULT, each worker's GO) sit alone on their own 64-byte line, so one
// thread's store does not evict the line another spins on; the job's parameters share a line
// (written once per fork by the calling thread, then only read).

/** Int32 words per 64-byte cache line. */
const LINE = 16;

/** Threads a pool can have, the calling thread included (one control block holds their words). */
export const MAX_THREADS = 256;

/**
 * How long a thread that waits for the next fork (a worker) or for the join (the calling thread)
 * spins on its word before it sleeps in `Atomics.wait`: waking a sleeping vCPU costs ~0.1 ms on
 * the machines measured, a spinning one ~1 µs, and one run issues many small forks back to back.
 * The window adapts between the two bounds, per thread: doubled after a wait whose event came
 * while spinning or within twice the longest window (a longer spin would have caught it), halved
 * after a longer wait (the thread was idle: spinning then only burns a core). Halving after every
 * wait that slept got stuck at the lower bound: back-to-back forks a few µs apart then paid a
 * wake-up each (~60 µs median here). On an oversubscribed machine (more runnable threads than
 * cores) spinning steals the time slice the other thread needs: a fixed 50 µs window made an
 * empty fork–join cost 150–200 µs there against ~20 µs without spinning, while on a quiet one
 * spinning takes it from 6–100 µs to ~1 µs.
 */
export const SPIN_MILLISECONDS = 0.05;
export const MIN_SPIN_MILLISECONDS = 0.002;

/** Characters kept of a worker's fault (error name and message) and of a dead worker's last words. */
export const FAULT_CHARS = 512;
export const DEATH_CHARS = 256;

/** The array types a fork's arguments may be, in type-code order (code = position + 1; 0 is a number). */
export const ARRAY_KINDS = ['Float64Array', 'Float32Array', 'Int32Array', 'Uint32Array', 'Uint8Array', 'Int8Array'] as const;
export type ArrayKind = (typeof ARRAY_KINDS)[number];

/** Type code of a number argument. */
export const NUMBER_ARG = 0;

/**
 * Float64 slots per argument in the argument area: [type code, value or buffer id, byteOffset,
 * length]. The area starts with a header of ARG_HEADER slots: [extent, chunkLength].
 */
export const ARG_SLOTS = 4;
export const ARG_HEADER = 2;

/** What the workers of a fork do (the CMD word). */
export const Command = {
  /** Run chunks of `fns[FN]` of module MODULE. */
  run: 1,
  /** Take the mail (a module to compile, buffers, drops), then report done: how a load is acknowledged. */
  mail: 2,
} as const;

/** Word indices (into the control block's Int32Array) and sizes; plain data, so JSON carries it. */
export interface Layout {
  /** The next chunk to claim (Atomics.add). */
  readonly next: number;
  /** Workers that finished the fork (the calling thread waits for `participants`). */
  readonly done: number;
  /** 0, or 1 + the lowest chunk that threw (CAS-min); nonzero stops every thread claiming. */
  readonly fault: number;
  /** Workers that have died (the supervisor counts them and wakes DONE's waiter). */
  readonly dead: number;
  /** The job: CMD, MODULE, FN, CHUNKS, ARGC, PARTICIPANTS, SEQ (the fork's number). */
  readonly cmd: number;
  readonly module: number;
  readonly fn: number;
  readonly chunks: number;
  readonly argc: number;
  readonly participants: number;
  readonly seq: number;
  /** Worker i's GO word (it waits there for a fork's SEQ) is `go + (i − 1) · goStride`. */
  readonly go: number;
  readonly goStride: number;
  /**
   * Worker i's cold words start at `worker + (i − 1) · workerStride`: POSTED (mail the calling
   * thread posted to it), FINISHED (the last SEQ it finished), DIED (1 once dead), EXIT_CODE.
   */
  readonly worker: number;
  readonly workerStride: number;
  readonly posted: number;
  readonly finished: number;
  readonly died: number;
  readonly exitCode: number;
  /**
   * Worker i's fault record at `faults + (i − 1) · faultStride`: SEQ, CHUNK (−1: not a chunk, a
   * module that did not compile), NAME_LENGTH, MESSAGE_LENGTH, then the name's UTF-16 code units
   * directly followed by the message's (two per word, from code unit 2 · (record + 4)).
   */
  readonly faults: number;
  readonly faultStride: number;
  readonly faultChars: number;
  /** Worker i's last words (what killed it) at `deaths + (i − 1) · deathStride`: LENGTH, then code units. */
  readonly deaths: number;
  readonly deathStride: number;
  readonly deathChars: number;
  /** Words in all. */
  readonly words: number;
  readonly maxWorkers: number;
  /** Bounds of the adaptive spin window (SPIN_MILLISECONDS). */
  readonly spinMilliseconds: number;
  readonly minSpinMilliseconds: number;
  readonly arrayKinds: readonly ArrayKind[];
  readonly commandRun: number;
  readonly commandMail: number;
  readonly argSlots: number;
  readonly argHeader: number;
}

export function makeLayout(): Layout {
  const maxWorkers = MAX_THREADS - 1;
  const go = 5 * LINE;
  const worker = go + maxWorkers * LINE;
  const workerStride = 4;
  const faults = worker + maxWorkers * workerStride;
  const faultStride = 4 + FAULT_CHARS / 2;
  const deaths = faults + maxWorkers * faultStride;
  const deathStride = 1 + DEATH_CHARS / 2;
  return {
    next: 0,
    done: LINE,
    fault: 2 * LINE,
    dead: 3 * LINE,
    cmd: 4 * LINE,
    module: 4 * LINE + 1,
    fn: 4 * LINE + 2,
    chunks: 4 * LINE + 3,
    argc: 4 * LINE + 4,
    participants: 4 * LINE + 5,
    seq: 4 * LINE + 6,
    go,
    goStride: LINE,
    worker,
    workerStride,
    posted: 0,
    finished: 1,
    died: 2,
    exitCode: 3,
    faults,
    faultStride,
    faultChars: FAULT_CHARS,
    deaths,
    deathStride,
    deathChars: DEATH_CHARS,
    words: deaths + maxWorkers * deathStride,
    maxWorkers,
    spinMilliseconds: SPIN_MILLISECONDS,
    minSpinMilliseconds: MIN_SPIN_MILLISECONDS,
    arrayKinds: ARRAY_KINDS,
    commandRun: Command.run,
    commandMail: Command.mail,
    argSlots: ARG_SLOTS,
    argHeader: ARG_HEADER,
  };
}

/** Word index of one of worker `index`'s cold words (`which`: layout.posted, .finished, .died, .exitCode). */
export function workerWord(layout: Layout, index: number, which: number): number {
  return layout.worker + (index - 1) * layout.workerStride + which;
}

/**
 * Mail: what the calling thread posts on a worker's own MessagePort, which the worker takes
 * synchronously (`receiveMessageOnPort`) when it wakes and sees its POSTED count ahead of what
 * it took. Messages are taken in the order posted.
 */
export type Mail =
  /** Compile a module and keep its `fns` under `module`. */
  | { readonly kind: 'load'; readonly module: number; readonly text: string }
  /** Forget a module (and its scratch rows). */
  | { readonly kind: 'unload'; readonly module: number }
  /** Buffers that arguments will name by id from now on. */
  | { readonly kind: 'buffers'; readonly entries: readonly (readonly [number, SharedArrayBuffer])[] }
  /** Buffer ids no fork will name again (the worker drops its references: the memory can go). */
  | { readonly kind: 'drop'; readonly ids: readonly number[] }
  /** The argument area moved to a larger buffer. */
  | { readonly kind: 'args'; readonly buffer: SharedArrayBuffer };

/** What the calling thread tells the supervisor (on its parentPort). */
export type SupervisorOrder =
  | { readonly kind: 'spawn'; readonly index: number; readonly port: unknown; readonly args: SharedArrayBuffer }
  | { readonly kind: 'terminate' };

/** Reads `length` UTF-16 code units stored in the control block from code unit `unit` (two per Int32 word). */
export function readText(control: Int32Array, unit: number, length: number): string {
  const units = new Uint16Array(control.buffer, control.byteOffset, 2 * control.length);
  let s = '';
  for (let k = 0; k < length; k++) s += String.fromCharCode(units[unit + k]!);
  return s;
}
