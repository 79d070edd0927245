// The code the pool's threads run, as source strings: a compute worker (claims and runs chunks
// of forks) and the supervisor (an idle worker whose only job is to spawn the compute workers
// and report their deaths). Each is a self-contained function — no imports, no closure over
// this module, no helpers a compiler could inject — whose `toString()` becomes the body of a
// `new Worker(source, { eval: true })`, so the same text runs whether this module was loaded
// from src/ (TypeScript under vitest) or from dist/. The protocol's layout comes in as a JSON
// literal (protocol.ts describes every word). test/runtime/multicore/worker.test.ts evaluates
// the sources standalone.

import type { Layout, Mail, SupervisorOrder } from './protocol.js';

/** What the supervisor hands a compute worker. */
interface ComputeWorkerData {
  readonly control: SharedArrayBuffer;
  readonly args: SharedArrayBuffer;
  /** 1 … maxWorkers (the calling thread is thread 0). */
  readonly index: number;
  /** Its end of the MessageChannel the calling thread posts mail on. */
  readonly port: unknown;
}

/** Source of a compute worker for a layout. */
export function computeWorkerSource(layout: Layout): string {
  return `'use strict';\n(${computeWorker.toString()})(${JSON.stringify(layout)});\n`;
}

/** Source of the supervisor for a layout (it embeds the compute workers' source). */
export function supervisorSource(layout: Layout): string {
  return `'use strict';\n(${supervisor.toString()})(${JSON.stringify(layout)}, ${JSON.stringify(computeWorkerSource(layout))});\n`;
}

/**
 * A compute worker: forever waits on its GO word (spinning briefly first), takes its mail, runs
 * the fork's chunks (claiming them with Atomics.add on NEXT until none are left or a thread
 * faulted), then counts itself on DONE. It never returns to its event loop: all it learns
 * arrives through the control block and, synchronously, its port.
 */
function computeWorker(L: Layout): void {
  type Fns = readonly unknown[];
  type Helpers = Record<string, (...a: number[]) => unknown>;
  type ViewConstructor = new (buffer: SharedArrayBuffer, byteOffset: number, length: number) => unknown;

  const wt = process.getBuiltinModule('node:worker_threads');
  const data = wt.workerData as ComputeWorkerData;
  const port = data.port as Parameters<typeof wt.receiveMessageOnPort>[0];
  const control = new Int32Array(data.control);
  const units = new Uint16Array(data.control);
  const me = data.index;
  const goWord = L.go + (me - 1) * L.goStride;
  const cold = L.worker + (me - 1) * L.workerStride;
  const faultRecord = L.faults + (me - 1) * L.faultStride;
  const kinds = L.arrayKinds.map((name) => (globalThis as unknown as Record<string, ViewConstructor>)[name]!);

  let args = new Float64Array(data.args);
  const buffers = new Map<number, SharedArrayBuffer>();
  const modules = new Map<number, { readonly fns: Fns; readonly rt: Helpers }>();
  // Views of the last fork's arguments, by position: consecutive forks of a loop pass the same
  // arrays, so most forks make no view at all.
  const cachedCode: number[] = [];
  const cachedId: number[] = [];
  const cachedOffset: number[] = [];
  const cachedLength: number[] = [];
  const cachedView: unknown[] = [];
  let taken = 0;
  let seen = 0;
  /** The adaptive spin window (protocol.ts, SPIN_MILLISECONDS). */
  let spin = L.spinMilliseconds;

  /** Stores up to `max` UTF-16 code units of `s` from code unit `unit` of the control block; returns how many. */
  function writeText(unit: number, max: number, s: string): number {
    const n = Math.min(max, s.length);
    for (let k = 0; k < n; k++) units[unit + k] = s.charCodeAt(k);
    return n;
  }

  function nameAndMessage(e: unknown): [string, string] {
    try {
      if (e instanceof Error) return [String(e.name), String(e.message)];
      return ['Error', String(e)];
    } catch {
      return ['Error', 'a value that cannot be shown'];
    }
  }

  /** Records this worker's fault (the first it meets in a fork is its lowest chunk: it claims in increasing order). */
  function recordFault(seq: number, chunk: number, e: unknown): void {
    const [name, message] = nameAndMessage(e);
    const text = 2 * (faultRecord + 4);
    const nameLength = writeText(text, L.faultChars, name);
    const messageLength = writeText(text + nameLength, L.faultChars - nameLength, message);
    control[faultRecord + 1] = chunk;
    control[faultRecord + 2] = nameLength;
    control[faultRecord + 3] = messageLength;
    Atomics.store(control, faultRecord, seq);
  }

  /** FAULT := min(FAULT, 1 + chunk), nonzero from now on. */
  function lowerFault(chunk: number): void {
    for (;;) {
      const was = Atomics.load(control, L.fault);
      if (was !== 0 && was <= chunk + 1) return;
      if (Atomics.compareExchange(control, L.fault, was, chunk + 1) === was) return;
    }
  }

  /** A fault helper of the work functions: the calling thread re-runs the chunk for the real diagnostic. */
  function faulted(what: string, site: number): Error {
    return new Error(`${what} (error site ${site}; the calling thread re-runs the chunk for the diagnostic)`);
  }

  /** A module's `rt`: the helpers codegen lets a work function call (workerHelpers), with this thread's scratch rows. */
  function helpers(): Helpers {
    const rows: Float64Array[] = [];
    const views: Float64Array[] = [];
    return {
      index: (site) => {
        throw faulted('an index out of range', site);
      },
      divzero: (site) => {
        throw faulted('an integer division by zero', site);
      },
      oob: (site) => {
        throw faulted('a gather or scatter index out of range', site);
      },
      scratch: (k, n) => {
        const view = views[k];
        if (view !== undefined && view.length === n) return view;
        let row = rows[k];
        if (row === undefined || row.length < n) {
          row = new Float64Array(Math.max(n, 2 * (row === undefined ? 0 : row.length)));
          rows[k] = row;
        }
        const made = row.length === n ? row : row.subarray(0, n);
        views[k] = made;
        return made;
      },
    };
  }

  function forget(id: number): void {
    buffers.delete(id);
    for (let k = 0; k < cachedId.length; k++) {
      if (cachedId[k] === id) {
        cachedCode[k] = -1;
        cachedView[k] = undefined;
      }
    }
  }

  /** Takes every message posted so far, in order; returns the error of a module that did not compile, if any. */
  function takeMail(): unknown {
    let failed: unknown = undefined;
    const posted = Atomics.load(control, cold + L.posted);
    let attempts = 0;
    while (taken !== posted) {
      const got = wt.receiveMessageOnPort(port);
      if (got === undefined) {
        // Posted before this thread was woken, so it is there; a message not yet visible is waited for, within reason.
        if (++attempts > 10_000_000) throw new Error(`worker ${me}: mail ${taken + 1} of ${posted} never arrived`);
        continue;
      }
      taken++;
      const mail = got.message as Mail;
      switch (mail.kind) {
        case 'load':
          try {
            const made = new Function(`'use strict';\n${mail.text}return { main, fns };`)() as { fns: unknown };
            if (!Array.isArray(made.fns)) throw new TypeError('the module defines no array `fns`');
            modules.set(mail.module, { fns: made.fns, rt: helpers() });
          } catch (e) {
            if (failed === undefined) failed = e;
          }
          break;
        case 'unload':
          modules.delete(mail.module);
          break;
        case 'buffers':
          for (const [id, buffer] of mail.entries) buffers.set(id, buffer);
          break;
        case 'drop':
          for (const id of mail.ids) forget(id);
          break;
        case 'args':
          args = new Float64Array(mail.buffer);
          break;
        default:
          throw new Error(`worker ${me}: unknown mail ${JSON.stringify(mail)}`);
      }
    }
    return failed;
  }

  /** The fork's arguments after `rt, lo, hi, chunk` (filled per chunk). */
  function callArguments(rt: Helpers, argc: number): unknown[] {
    const call: unknown[] = [rt, 0, 0, 0];
    for (let k = 0; k < argc; k++) {
      const p = L.argHeader + k * L.argSlots;
      const code = args[p]!;
      if (code === 0) {
        call.push(args[p + 1]);
        continue;
      }
      const id = args[p + 1]!;
      const offset = args[p + 2]!;
      const length = args[p + 3]!;
      if (cachedCode[k] !== code || cachedId[k] !== id || cachedOffset[k] !== offset || cachedLength[k] !== length) {
        const buffer = buffers.get(id);
        if (buffer === undefined) throw new Error(`worker ${me}: argument ${k} names buffer ${id}, which it was never given`);
        cachedView[k] = new kinds[code - 1]!(buffer, offset, length);
        cachedCode[k] = code;
        cachedId[k] = id;
        cachedOffset[k] = offset;
        cachedLength[k] = length;
      }
      call.push(cachedView[k]);
    }
    return call;
  }

  function runChunks(seq: number): void {
    const id = control[L.module]!;
    const module = modules.get(id);
    if (module === undefined) throw new Error(`worker ${me}: module ${id} is not loaded here`);
    const fn = control[L.fn]!;
    const work = module.fns[fn];
    if (typeof work !== 'function') throw new Error(`worker ${me}: module ${id} has no work function ${fn}`);
    const call = callArguments(module.rt, control[L.argc]!);
    const extent = args[0]!;
    const length = args[1]!;
    const chunks = control[L.chunks]!;
    for (;;) {
      if (Atomics.load(control, L.fault) !== 0) return;
      const chunk = Atomics.add(control, L.next, 1);
      if (chunk >= chunks) return;
      const lo = chunk * length;
      call[1] = lo;
      call[2] = Math.min(extent, lo + length);
      call[3] = chunk;
      try {
        Reflect.apply(work, undefined, call);
      } catch (e) {
        recordFault(seq, chunk, e);
        lowerFault(chunk);
        return;
      }
    }
  }

  /** Waits for the GO word to move past `seen`: spins a while (a fork often follows a fork), then sleeps. */
  function awaitFork(): void {
    let go = Atomics.load(control, goWord);
    if (go === seen) {
      const start = performance.now();
      let spins = 0;
      let slept = false;
      while ((go = Atomics.load(control, goWord)) === seen) {
        if ((++spins & 63) === 0 && performance.now() - start > spin) {
          slept = true;
          Atomics.wait(control, goWord, seen);
        }
      }
      // Widen the window when the fork came while spinning, or soon after falling asleep (a
      // longer spin would have caught it without the wake-up); narrow it after a long idle wait.
      const soon = !slept || performance.now() - start < 2 * L.spinMilliseconds;
      spin = soon ? Math.min(L.spinMilliseconds, 2 * spin) : Math.max(L.minSpinMilliseconds, spin / 2);
    }
    seen = go;
  }

  for (;;) {
    awaitFork();
    const seq = control[L.seq]!;
    const failed = takeMail();
    const command = control[L.cmd];
    if (command === L.commandRun) {
      // A module that did not compile here is reported by its load's mail fork; only a run of it fails (it is not loaded).
      runChunks(seq);
    } else if (command === L.commandMail) {
      if (failed !== undefined) {
        recordFault(seq, -1, failed);
        lowerFault(0);
      }
    } else {
      throw new Error(`worker ${me}: unknown command ${command}`);
    }
    Atomics.store(control, cold + L.finished, seq);
    if (Atomics.add(control, L.done, 1) + 1 === control[L.participants]) Atomics.notify(control, L.done);
  }
}

/**
 * The supervisor: spawns the compute workers (on the calling thread's orders) and watches them.
 * A calling thread blocked in Atomics.wait never sees a worker's 'exit' event, so when one dies
 * the supervisor writes its exit code and last words into the control block, counts it on DEAD
 * and wakes whoever waits on DONE. It runs nothing else: its event loop is always free.
 */
export function supervisor(L: Layout, computeSource: string): void {
  const wt = process.getBuiltinModule('node:worker_threads');
  const control = new Int32Array((wt.workerData as { control: SharedArrayBuffer }).control);
  const units = new Uint16Array(control.buffer);
  const parent = wt.parentPort!;
  const workers: InstanceType<typeof wt.Worker>[] = [];

  function lastWords(index: number, e: unknown): void {
    let s: string;
    try {
      s = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    } catch {
      s = 'an error that cannot be shown';
    }
    const at = L.deaths + (index - 1) * L.deathStride;
    const n = Math.min(L.deathChars, s.length);
    for (let k = 0; k < n; k++) units[2 * (at + 1) + k] = s.charCodeAt(k);
    Atomics.store(control, at, n);
  }

  function died(index: number, code: number): void {
    const cold = L.worker + (index - 1) * L.workerStride;
    Atomics.store(control, cold + L.exitCode, code);
    Atomics.store(control, cold + L.died, 1);
    Atomics.add(control, L.dead, 1);
    Atomics.notify(control, L.done);
  }

  function spawn(index: number, port: unknown, args: SharedArrayBuffer): void {
    let worker: InstanceType<typeof wt.Worker>;
    try {
      const workerData: ComputeWorkerData = { control: control.buffer as SharedArrayBuffer, args, index, port };
      worker = new wt.Worker(computeSource, { eval: true, workerData, transferList: [port as Parameters<typeof wt.receiveMessageOnPort>[0]] });
    } catch (e) {
      lastWords(index, e);
      died(index, -1);
      return;
    }
    workers.push(worker);
    worker.on('error', (e) => lastWords(index, e));
    worker.on('exit', (code) => died(index, code));
  }

  parent.on('message', (order: SupervisorOrder) => {
    if (order.kind === 'spawn') spawn(order.index, order.port, order.args);
    else if (order.kind === 'terminate') {
      // Once every worker is gone, nothing keeps this thread's event loop alive: it ends too.
      void Promise.all(workers.map((w) => w.terminate())).then(() => parent.close());
    }
  });
}
