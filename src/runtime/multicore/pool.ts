// The process-wide thread pool of the multicore back end (types.ts is its interface): compute
// workers that run chunks of a loaded module's work functions together with the calling thread,
// fork–join over a shared control block (protocol.ts), and a supervisor worker that reports
// their deaths (worker.ts). A fork never posts a message: the calling thread writes the job into
// shared memory, bumps each participant's GO word and notifies it; every thread claims chunks
// with Atomics.add until none are left; the calling thread spins, then waits, on DONE. Messages
// carry only what changes rarely (modules, new buffers), taken synchronously by the workers.
//
// Node built-ins are reached through `process.getBuiltinModule` (Node ≥ 20.16), never imported:
// the core bundles for browsers, where `multicoreAvailable()` is false and `acquirePool` throws.
//
// When a worker dies the run in progress throws WorkerDiedError and the pool's workers are all
// discarded; the next `acquirePool`/`load` starts fresh ones. A module loaded before that is
// bound to the dead workers: its `run` throws the same WorkerDiedError until the back end loads
// the module text again (`acquirePool(threads).load(text)`, async) and runs the new module.

import type { TypedArray } from '../../ir/scalarOps.js';
import type { WorkFunction } from '../helpers.js';
import {
  ARG_HEADER,
  ARG_SLOTS,
  ARRAY_KINDS,
  Command,
  type Layout,
  MAX_THREADS,
  type Mail,
  NUMBER_ARG,
  SPIN_MILLISECONDS,
  type SupervisorOrder,
  makeLayout,
  readText,
  workerWord,
} from './protocol.js';
import { ChunkFault, type Job, type LoadedModule, type ThreadPool, type WorkArgs, WorkerDiedError } from './types.js';
import { supervisorSource } from './worker.js';

/** Node's worker_threads module, typed from @types/node's getBuiltinModule without importing it. */
type WorkerThreads = ReturnType<typeof process.getBuiltinModule<'node:worker_threads'>>;
type NodeWorker = InstanceType<WorkerThreads['Worker']>;
type NodePort = InstanceType<WorkerThreads['MessagePort']>;

/** Node's worker_threads, or undefined where there is none (a browser, Node < 20.16). */
function workerThreads(): WorkerThreads | undefined {
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return host?.getBuiltinModule?.('node:worker_threads') as WorkerThreads | undefined;
}

/**
 * Whether this thread can have a pool: Node ≥ 20.16 (worker_threads through
 * `process.getBuiltinModule`), SharedArrayBuffer, and a thread allowed to block in Atomics.wait.
 */
export function multicoreAvailable(): boolean {
  return workerThreads() !== undefined && typeof SharedArrayBuffer === 'function' && typeof Atomics.wait === 'function';
}

/**
 * Threads this process can run chunks on when none are asked for: under Node with a pool
 * available, `os.availableParallelism()` (reached without importing `node:os`), capped at 256
 * (acquirePool's bound); elsewhere 1 — a browser page's main thread may not block in
 * `Atomics.wait` and the pool is made of Node's worker threads (Web Workers in a
 * cross-origin-isolated page are the web issue's; README, "Threads").
 */
export function availableThreads(): number {
  if (!multicoreAvailable()) return 1;
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const os = host?.getBuiltinModule?.('node:os') as { availableParallelism?: () => unknown } | undefined;
  const counted = os?.availableParallelism?.();
  return typeof counted === 'number' && Number.isInteger(counted) && counted >= 1 ? Math.min(counted, MAX_THREADS) : 1;
}

let shared: ProcessThreadPool | null = null;

/**
 * The process's pool, with at least `threads` threads (the calling thread included, so it runs
 * `threads − 1` workers): started by the first call, grown when a later call asks for more,
 * restarted after a worker died. Workers start asynchronously (~25–55 ms); `load` resolves once
 * they all run. Throws an Error where `multicoreAvailable()` is false (e.g. in a browser).
 */
export function acquirePool(threads: number): ThreadPool {
  if (!Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS) {
    throw new RangeError(`arrayfuse: a thread pool has 1 to ${MAX_THREADS} threads, not ${threads}`);
  }
  const wt = workerThreads();
  if (wt === undefined || !multicoreAvailable()) {
    throw new Error('arrayfuse: multicore execution needs Node ≥ 20.16 (worker_threads, SharedArrayBuffer, Atomics.wait); it is not available here');
  }
  shared ??= new ProcessThreadPool(wt);
  shared.ensure(threads);
  return shared;
}

/** What the process's pool holds now (null before the first `acquirePool`): for statistics and tests. */
export interface PoolState {
  /** Threads, the calling thread included. */
  readonly threads: number;
  /** Compute workers started (or starting) in the current crew. */
  readonly workers: number;
  /** Modules loaded and not unloaded. */
  readonly modules: number;
  /** SharedArrayBuffers the workers were given and may still hold, and their bytes. */
  readonly buffers: number;
  readonly bufferBytes: number;
}

export function poolState(): PoolState | null {
  return shared?.state() ?? null;
}

/** The pool `acquirePool` hands out: one object for the process, over the current crew of workers. */
class ProcessThreadPool implements ThreadPool {
  private crew: Crew;
  private size = 1;

  constructor(private readonly wt: WorkerThreads) {
    this.crew = new Crew(wt);
  }

  get threads(): number {
    return this.size;
  }

  ensure(threads: number): void {
    this.size = Math.max(this.size, threads);
    this.current().grow(this.size - 1);
  }

  load(text: string): Promise<LoadedModule> {
    return this.current().load(text);
  }

  state(): PoolState {
    return { threads: this.size, ...this.crew.state() };
  }

  /** The live crew, a fresh one (as large as asked for so far) if the last lost a worker. */
  private current(): Crew {
    if (!this.crew.usable()) {
      this.crew = new Crew(this.wt);
      this.crew.grow(this.size - 1);
    }
    return this.crew;
  }
}

/** A module loaded into a crew (`id` names it in the workers). */
class Module implements LoadedModule {
  constructor(
    private readonly crew: Crew,
    readonly id: number,
  ) {}

  run(job: Job, local: WorkFunction, rt: unknown): void {
    this.crew.run(this.id, job, local, rt);
  }

  unload(): void {
    this.crew.unload(this.id);
  }

  get alive(): boolean {
    return this.crew.usable();
  }
}

/** A load whose workers are compiling (its acknowledgement is the join of a mail fork). */
interface PendingLoad {
  readonly seq: number;
  readonly participants: number;
  readonly module: Module;
  readonly resolve: (module: Module) => void;
  readonly reject: (error: unknown) => void;
}

/** Bytes and buffers the workers may keep for buffers the calling thread might pass again (see BufferRegistry). */
const REGISTRY_MAX_BYTES = 256 * 2 ** 20;
const REGISTRY_MAX_BUFFERS = 1024;

interface Registered {
  readonly id: number;
  readonly buffer: WeakRef<SharedArrayBuffer>;
  readonly bytes: number;
  /** The fork that last passed it. */
  lastFork: number;
}

/**
 * The SharedArrayBuffers the workers were given, by id: a buffer is posted once, then forks name
 * it by id. Workers hold what they were given until told to drop it, so the registry decides
 * when they may let go. It keeps a buffer only weakly (a WeakMap finds its entry, a WeakRef
 * tells whether it is still alive) and, when a fork registers new buffers, drops (a) the ids
 * of buffers the calling thread has collected, and (b) the least recently passed ones while
 * more than REGISTRY_MAX_BYTES or REGISTRY_MAX_BUFFERS are registered. (b) is what bounds a
 * long synchronous loop: V8 does not clear a WeakRef within the job that last used its target,
 * so a program that makes a fresh result buffer per run and never yields would otherwise grow
 * the workers' set without bound. A dropped buffer passed again is simply posted again (a few
 * µs, negligible next to work on ≥ 256 MiB of arrays).
 */
export class BufferRegistry {
  constructor(
    private readonly maxBytes = REGISTRY_MAX_BYTES,
    private readonly maxBuffers = REGISTRY_MAX_BUFFERS,
  ) {}

  private readonly byBuffer = new WeakMap<SharedArrayBuffer, Registered>();
  private readonly byId = new Map<number, Registered>();
  private nextId = 1;
  private bytes = 0;

  /** The buffer's id; a buffer seen for the first time is appended to `fresh`. */
  idOf(buffer: SharedArrayBuffer, fork: number, fresh: [number, SharedArrayBuffer][]): number {
    let entry = this.byBuffer.get(buffer);
    if (entry === undefined) {
      entry = { id: this.nextId++, buffer: new WeakRef(buffer), bytes: buffer.byteLength, lastFork: fork };
      this.byBuffer.set(buffer, entry);
      this.byId.set(entry.id, entry);
      this.bytes += entry.bytes;
      fresh.push([entry.id, buffer]);
    }
    entry.lastFork = fork;
    return entry.id;
  }

  /** Ids to drop after fork `fork` registered new buffers (never one that fork passes). */
  evict(fork: number): number[] {
    const dropped: number[] = [];
    const drop = (entry: Registered): void => {
      this.byId.delete(entry.id);
      this.bytes -= entry.bytes;
      const buffer = entry.buffer.deref();
      if (buffer !== undefined) this.byBuffer.delete(buffer);
      dropped.push(entry.id);
    };
    for (const entry of this.byId.values()) if (entry.buffer.deref() === undefined) drop(entry);
    if (this.bytes > this.maxBytes || this.byId.size > this.maxBuffers) {
      const oldest = [...this.byId.values()].filter((e) => e.lastFork !== fork).sort((a, b) => a.lastFork - b.lastFork);
      for (const entry of oldest) {
        if (this.bytes <= this.maxBytes && this.byId.size <= this.maxBuffers) break;
        drop(entry);
      }
    }
    return dropped;
  }

  /** Buffers registered, and their bytes. */
  get size(): { readonly buffers: number; readonly bytes: number } {
    return { buffers: this.byId.size, bytes: this.bytes };
  }

  /** Every registered buffer still alive (what a worker that joins later must be given). */
  live(): [number, SharedArrayBuffer][] {
    const out: [number, SharedArrayBuffer][] = [];
    for (const entry of this.byId.values()) {
      const buffer = entry.buffer.deref();
      if (buffer !== undefined) out.push([entry.id, buffer]);
    }
    return out;
  }
}

const ARRAY_CONSTRUCTORS = ARRAY_KINDS.map((name) => globalThis[name]);

/** The type code of an argument (NUMBER_ARG, or 1 + its ARRAY_KINDS position), or −1 for anything else. */
function typeCode(arg: unknown): number {
  if (typeof arg === 'number') return NUMBER_ARG;
  for (let k = 0; k < ARRAY_CONSTRUCTORS.length; k++) if (arg instanceof ARRAY_CONSTRUCTORS[k]!) return k + 1;
  return -1;
}

/** Checks a job's arguments: numbers, and typed arrays of the element types on SharedArrayBuffers. */
function checkArgs(fn: number, args: WorkArgs): void {
  if (!Array.isArray(args)) throw new TypeError(`arrayfuse: the arguments of work function ${fn} must be an array`);
  for (let k = 0; k < args.length; k++) {
    const arg: unknown = args[k];
    const code = typeCode(arg);
    if (code === -1) {
      throw new TypeError(`arrayfuse: argument ${k} of work function ${fn} must be a number or a ${ARRAY_KINDS.join('/')} on a SharedArrayBuffer, not ${shown(arg)}`);
    }
    if (code !== NUMBER_ARG && !((arg as TypedArray).buffer instanceof SharedArrayBuffer)) {
      throw new TypeError(`arrayfuse: argument ${k} of work function ${fn} is a ${ARRAY_KINDS[code - 1]} on an ArrayBuffer; the workers see only SharedArrayBuffers`);
    }
  }
}

function shown(x: unknown): string {
  if (x === null) return 'null';
  if (typeof x === 'object') return `a ${(x as object).constructor?.name ?? 'object'}`;
  return `a ${typeof x}`;
}

function checkJob(job: Job, threads: number): number {
  const { fn, extent, chunkLength } = job;
  if (!Number.isInteger(fn) || fn < 0) throw new RangeError(`arrayfuse: work function ${fn} is not an index`);
  if (!Number.isInteger(extent) || extent < 0) throw new RangeError(`arrayfuse: extent ${extent} is not a count of iterations`);
  if (!Number.isInteger(chunkLength) || chunkLength < 1) throw new RangeError(`arrayfuse: chunk length ${chunkLength} is not a positive integer`);
  if (!Number.isInteger(job.threads) || job.threads < 1 || job.threads > threads) {
    throw new RangeError(`arrayfuse: a job on a pool of ${threads} threads takes 1 to ${threads} of them, not ${job.threads}`);
  }
  const chunks = Math.ceil(extent / chunkLength);
  // NEXT is an Int32 that every thread bumps once past the last chunk.
  if (chunks > 2 ** 31 - 1 - MAX_THREADS) throw new RangeError(`arrayfuse: ${chunks} chunks are more than a fork can count`);
  checkArgs(fn, job.args);
  return chunks;
}

/**
 * The calling thread's part of a fork, or the whole job when it runs alone: claims chunks until
 * none are left or some thread faulted. Returns the chunk that threw here and its error, or null.
 */
function claimChunks(
  claim: () => number,
  stopped: () => boolean,
  job: Job,
  chunks: number,
  local: WorkFunction,
  rt: unknown,
): { readonly chunk: number; readonly error: unknown } | null {
  const call: unknown[] = [rt, 0, 0, 0, ...job.args];
  for (;;) {
    if (stopped()) return null;
    const chunk = claim();
    if (chunk >= chunks) return null;
    const lo = chunk * job.chunkLength;
    call[1] = lo;
    call[2] = Math.min(job.extent, lo + job.chunkLength);
    call[3] = chunk;
    try {
      Reflect.apply(local, undefined, call);
    } catch (error) {
      return { chunk, error };
    }
  }
}

function chunkBounds(job: Job, chunk: number): [number, number] {
  const lo = chunk * job.chunkLength;
  return [lo, Math.min(job.extent, lo + job.chunkLength)];
}

let nextModuleId = 1;

/**
 * One generation of workers: the control block, the supervisor and the compute workers it
 * spawned, the modules and buffers they were given. Discarded (`broken`) when one dies.
 */
class Crew {
  private readonly layout: Layout = makeLayout();
  private readonly control: Int32Array;
  private args: Float64Array;
  private supervisor: NodeWorker | null = null;
  /** The calling thread's end of worker i's mail channel, at i − 1. */
  private readonly ports: NodePort[] = [];
  /** Last value written to worker i's GO word, at i − 1 (each fork adds one: a worker's next value always differs from what it saw). */
  private readonly go: number[] = [];
  workers = 0;
  private seq = 0;
  private forks = 0;
  /** The calling thread's adaptive spin window while it waits for a join (protocol.ts, SPIN_MILLISECONDS). */
  private spin = SPIN_MILLISECONDS;
  broken: WorkerDiedError | null = null;
  private pending: PendingLoad | null = null;
  private busy = false;
  /** Module texts the workers hold, by id (a worker spawned later is given them all). */
  private readonly modules = new Map<number, string>();
  private readonly registry = new BufferRegistry();

  constructor(private readonly wt: WorkerThreads) {
    this.control = new Int32Array(new SharedArrayBuffer(4 * this.layout.words));
    this.args = new Float64Array(new SharedArrayBuffer(8 * (ARG_HEADER + 64 * ARG_SLOTS)));
  }

  /** Spawns workers up to `workers` (they start asynchronously; a fork or a load waits for them). */
  grow(workers: number): void {
    if (this.broken !== null || workers <= this.workers) return;
    const supervisor = this.supervisor ?? this.startSupervisor();
    for (let index = this.workers + 1; index <= workers; index++) {
      const { port1, port2 } = new this.wt.MessageChannel();
      port1.unref();
      this.ports.push(port1);
      this.go.push(0);
      // Queued before the worker exists: the messages travel with its port.
      for (const [module, text] of this.modules) this.post(index, { kind: 'load', module, text });
      const live = this.registry.live();
      if (live.length > 0) this.post(index, { kind: 'buffers', entries: live });
      const order: SupervisorOrder = { kind: 'spawn', index, port: port2, args: this.args.buffer as SharedArrayBuffer };
      supervisor.postMessage(order, [port2]);
    }
    this.workers = workers;
  }

  private startSupervisor(): NodeWorker {
    const supervisor = new this.wt.Worker(supervisorSource(this.layout), { eval: true, workerData: { control: this.control.buffer } });
    // A process whose main script is done exits although workers are blocked in Atomics.wait.
    supervisor.unref();
    const lost = (detail: string): void => {
      if (this.broken === null) this.broken = new WorkerDiedError(0, `the supervisor thread ${detail}`);
    };
    supervisor.on('error', (e) => lost(`failed: ${e instanceof Error ? e.message : String(e)}`));
    supervisor.on('exit', (code) => lost(`exited with code ${code}`));
    this.supervisor = supervisor;
    return supervisor;
  }

  state(): Omit<PoolState, 'threads'> {
    const { buffers, bytes } = this.registry.size;
    return { workers: this.workers, modules: this.modules.size, buffers, bufferBytes: bytes };
  }

  /**
   * False once a worker died (the crew is then broken: its workers are being terminated). A
   * death between forks is only in the control block until someone looks: this looks.
   */
  usable(): boolean {
    if (this.broken === null && Atomics.load(this.control, this.layout.dead) !== 0) {
      try {
        this.settle();
        this.checkAlive();
      } catch (e) {
        if (!(e instanceof WorkerDiedError)) throw e;
      }
    }
    return this.broken === null;
  }

  private post(index: number, mail: Mail): void {
    this.ports[index - 1]!.postMessage(mail);
    Atomics.add(this.control, workerWord(this.layout, index, this.layout.posted), 1);
  }

  private postAll(mail: Mail): void {
    for (let index = 1; index <= this.workers; index++) this.post(index, mail);
  }

  load(text: string): Promise<LoadedModule> {
    if (this.broken !== null) return Promise.reject(this.broken);
    try {
      this.settle();
      this.checkAlive();
    } catch (e) {
      return Promise.reject(e);
    }
    const module = new Module(this, nextModuleId++);
    this.modules.set(module.id, text);
    if (this.workers === 0) return Promise.resolve(module);
    this.postAll({ kind: 'load', module: module.id, text });
    const participants = this.workers;
    const seq = this.fork(Command.mail, participants, module.id, 0, 0, 0);
    return new Promise<LoadedModule>((resolve, reject) => {
      const pending: PendingLoad = { seq, participants, module, resolve, reject };
      this.pending = pending;
      void this.watch(pending);
    });
  }

  unload(id: number): void {
    if (this.broken !== null || !this.modules.delete(id)) return;
    this.postAll({ kind: 'unload', module: id });
    // Taken at once when idle (a fork round trip), so the workers free the module now; during a
    // run (a work function unloading?) it is taken with the next fork's mail.
    if (this.busy || this.workers === 0) return;
    try {
      this.settle();
      this.checkAlive();
      this.join(this.workers, this.fork(Command.mail, this.workers, 0, 0, 0, 0));
    } catch (e) {
      // The workers died: they hold no module any more.
      if (!(e instanceof WorkerDiedError)) throw e;
    }
  }

  run(id: number, job: Job, local: WorkFunction, rt: unknown): void {
    if (this.broken !== null) throw this.broken;
    if (!this.modules.has(id)) throw new Error('arrayfuse: run of a module that was unloaded');
    if (this.busy) throw new Error('arrayfuse: a work function started a fork while one was running');
    const chunks = checkJob(job, this.workers + 1);
    if (chunks === 0) return;
    const participants = Math.min(job.threads - 1, chunks - 1, this.workers);
    this.busy = true;
    try {
      if (participants === 0) return this.runAlone(job, chunks, local, rt);
      this.settle();
      this.checkAlive();
      const argc = this.writeArgs(job);
      const seq = this.fork(Command.run, participants, id, job.fn, chunks, argc);
      const control = this.control;
      const { next, fault, dead } = this.layout;
      const mine = claimChunks(
        () => Atomics.add(control, next, 1),
        // A dead worker ends the run: no point running more chunks here.
        () => Atomics.load(control, fault) !== 0 || Atomics.load(control, dead) !== 0,
        job,
        chunks,
        local,
        rt,
      );
      if (mine !== null) lowerFault(control, fault, mine.chunk);
      this.join(participants, seq);
      const faulted = Atomics.load(control, fault);
      if (faulted !== 0) throw this.chunkFault(job, faulted - 1, mine, participants, seq);
    } finally {
      this.busy = false;
    }
  }

  /** A job too small to share (or a pool of one thread): its chunks in order here, same fault semantics. */
  private runAlone(job: Job, chunks: number, local: WorkFunction, rt: unknown): void {
    let next = 0;
    const mine = claimChunks(
      () => next++,
      () => false,
      job,
      chunks,
      local,
      rt,
    );
    if (mine !== null) throw new ChunkFault(mine.chunk, ...chunkBounds(job, mine.chunk), mine.error);
  }

  private chunkFault(job: Job, chunk: number, mine: { chunk: number; error: unknown } | null, participants: number, seq: number): ChunkFault {
    const [lo, hi] = chunkBounds(job, chunk);
    if (mine !== null && mine.chunk === chunk) return new ChunkFault(chunk, lo, hi, mine.error);
    const error = this.workerFault(participants, seq, chunk) ?? new Error('a worker faulted but left no record');
    return new ChunkFault(chunk, lo, hi, error);
  }

  /** The error a worker recorded for `chunk` (−1: a module it could not compile) in fork `seq`. */
  private workerFault(participants: number, seq: number, chunk: number): Error | undefined {
    const L = this.layout;
    for (let index = 1; index <= participants; index++) {
      const at = L.faults + (index - 1) * L.faultStride;
      if (Atomics.load(this.control, at) !== seq || this.control[at + 1] !== chunk) continue;
      const nameLength = this.control[at + 2]!;
      const text = 2 * (at + 4);
      const error = new Error(readText(this.control, text + nameLength, this.control[at + 3]!));
      error.name = readText(this.control, text, nameLength);
      return error;
    }
    return undefined;
  }

  /** Writes the job's extent, chunk length and arguments into the argument area; posts buffers the workers lack. */
  private writeArgs(job: Job): number {
    const args = job.args;
    const need = ARG_HEADER + args.length * ARG_SLOTS;
    if (need > this.args.length) {
      this.args = new Float64Array(new SharedArrayBuffer(8 * Math.max(need, 2 * this.args.length)));
      this.postAll({ kind: 'args', buffer: this.args.buffer as SharedArrayBuffer });
    }
    const a = this.args;
    const fork = ++this.forks;
    const fresh: [number, SharedArrayBuffer][] = [];
    a[0] = job.extent;
    a[1] = job.chunkLength;
    for (let k = 0; k < args.length; k++) {
      const arg = args[k]!;
      const p = ARG_HEADER + k * ARG_SLOTS;
      if (typeof arg === 'number') {
        a[p] = NUMBER_ARG;
        a[p + 1] = arg;
        continue;
      }
      a[p] = typeCode(arg);
      a[p + 1] = this.registry.idOf(arg.buffer as SharedArrayBuffer, fork, fresh);
      a[p + 2] = arg.byteOffset;
      a[p + 3] = arg.length;
    }
    if (fresh.length > 0) {
      this.postAll({ kind: 'buffers', entries: fresh });
      const dropped = this.registry.evict(fork);
      if (dropped.length > 0) this.postAll({ kind: 'drop', ids: dropped });
    }
    return args.length;
  }

  /** Publishes a job to workers 1 … participants and wakes them; returns its sequence number. */
  private fork(command: number, participants: number, module: number, fn: number, chunks: number, argc: number): number {
    const c = this.control;
    const L = this.layout;
    const seq = (this.seq = this.seq === 2 ** 31 - 1 ? 1 : this.seq + 1);
    c[L.cmd] = command;
    c[L.module] = module;
    c[L.fn] = fn;
    c[L.chunks] = chunks;
    c[L.argc] = argc;
    c[L.participants] = participants;
    c[L.seq] = seq;
    Atomics.store(c, L.next, 0);
    Atomics.store(c, L.done, 0);
    Atomics.store(c, L.fault, 0);
    for (let index = 1; index <= participants; index++) {
      const word = L.go + (index - 1) * L.goStride;
      const go = (this.go[index - 1] = (this.go[index - 1]! + 1) | 0);
      Atomics.store(c, word, go);
      Atomics.notify(c, word, 1);
    }
    return seq;
  }

  /** Waits until `participants` workers finished fork `seq`: spins briefly, then sleeps; a death throws. */
  private join(participants: number, seq: number): void {
    const c = this.control;
    const L = this.layout;
    const start = performance.now();
    let spins = 0;
    let slept = false;
    for (;;) {
      const done = Atomics.load(c, L.done);
      if (done === participants) break;
      if (Atomics.load(c, L.dead) !== 0) this.abandon(participants, seq);
      if ((++spins & 63) === 0 && performance.now() - start > this.spin) {
        slept = true;
        Atomics.wait(c, L.done, done, 100);
      }
    }
    if (spins > 0) {
      // As the workers' window (worker.ts awaitFork): wider when the join came soon, narrower after a long wait.
      const soon = !slept || performance.now() - start < 2 * L.spinMilliseconds;
      this.spin = soon ? Math.min(L.spinMilliseconds, 2 * this.spin) : Math.max(L.minSpinMilliseconds, this.spin / 2);
    }
  }

  /** Completes the pending load, waiting for it here if the workers are still compiling. */
  private settle(): void {
    const pending = this.pending;
    if (pending === null) return;
    try {
      this.join(pending.participants, pending.seq);
    } catch (e) {
      this.pending = null;
      this.modules.delete(pending.module.id);
      pending.reject(e);
      throw e;
    }
    this.finishLoad(pending);
  }

  /** Waits for a pending load without blocking the calling thread (a timer keeps the event loop alive meanwhile). */
  private async watch(pending: PendingLoad): Promise<void> {
    const c = this.control;
    const L = this.layout;
    while (this.pending === pending) {
      if (this.broken !== null) {
        // The supervisor itself is gone (its 'exit' event): nobody will report on the workers.
        this.pending = null;
        this.modules.delete(pending.module.id);
        return pending.reject(this.broken);
      }
      const done = Atomics.load(c, L.done);
      if (done === pending.participants) return this.finishLoad(pending);
      if (Atomics.load(c, L.dead) !== 0) {
        try {
          this.settle();
        } catch {
          // settle rejected the load.
        }
        return;
      }
      await wake(c, L.done, done, 20);
    }
  }

  private finishLoad(pending: PendingLoad): void {
    if (this.pending !== pending) return;
    this.pending = null;
    if (Atomics.load(this.control, this.layout.fault) === 0) return pending.resolve(pending.module);
    const error = this.workerFault(pending.participants, pending.seq, -1);
    this.modules.delete(pending.module.id);
    this.postAll({ kind: 'unload', module: pending.module.id });
    pending.reject(new Error(`arrayfuse: a worker could not compile the module (${error?.name ?? 'Error'}: ${error?.message ?? 'no record'})`));
  }

  private checkAlive(): void {
    if (this.broken !== null) throw this.broken;
    if (Atomics.load(this.control, this.layout.dead) !== 0) this.abandon(0, this.seq);
  }

  /**
   * A worker died: stops the fork (FAULT set, so no thread claims another chunk), has the
   * supervisor terminate every worker, waits until each participant of fork `seq` has finished
   * or is gone (nothing may still write into the caller's arrays when the run throws), and
   * throws WorkerDiedError. The crew is broken from then on.
   */
  private abandon(participants: number, seq: number): never {
    const c = this.control;
    const L = this.layout;
    Atomics.store(c, L.fault, 1);
    const error = this.broken ?? this.obituary();
    this.broken = error;
    this.supervisor?.postMessage({ kind: 'terminate' } satisfies SupervisorOrder);
    const settled = (index: number): boolean =>
      Atomics.load(c, workerWord(L, index, L.finished)) === seq || Atomics.load(c, workerWord(L, index, L.died)) !== 0;
    const deadline = performance.now() + 2000;
    for (let index = 1; index <= participants; index++) {
      while (!settled(index) && performance.now() < deadline) Atomics.wait(c, L.done, Atomics.load(c, L.done), 10);
    }
    throw error;
  }

  /** WorkerDiedError for the first worker marked dead: its exit code and last words. */
  private obituary(): WorkerDiedError {
    const L = this.layout;
    for (let index = 1; index <= this.workers; index++) {
      if (Atomics.load(this.control, workerWord(L, index, L.died)) === 0) continue;
      const code = this.control[workerWord(L, index, L.exitCode)]!;
      const at = L.deaths + (index - 1) * L.deathStride;
      const words = readText(this.control, 2 * (at + 1), Atomics.load(this.control, at));
      return new WorkerDiedError(index, words === '' ? `exit code ${code}` : `${words}; exit code ${code}`);
    }
    return new WorkerDiedError(0, 'a worker was reported dead');
  }
}

/** FAULT := min(FAULT, 1 + chunk). */
function lowerFault(control: Int32Array, word: number, chunk: number): void {
  for (;;) {
    const was = Atomics.load(control, word);
    if (was !== 0 && was <= chunk + 1) return;
    if (Atomics.compareExchange(control, word, was, chunk + 1) === was) return;
  }
}

type WaitAsync = (array: Int32Array, index: number, value: number, timeout: number) => { async: boolean; value: Promise<string> | string };

/**
 * Resolves when `control[index]` may have moved from `value` (Atomics.waitAsync, where the
 * engine has it) or after `milliseconds`: the timer is what keeps the event loop alive, since a
 * pending waitAsync does not.
 */
function wake(control: Int32Array, index: number, value: number, milliseconds: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, milliseconds);
    const waitAsync = (Atomics as unknown as { waitAsync?: WaitAsync }).waitAsync;
    if (waitAsync === undefined) return;
    const waited = waitAsync(control, index, value, milliseconds);
    if (!waited.async) {
      clearTimeout(timer);
      resolve();
      return;
    }
    void (waited.value as Promise<string>).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
