// The workers' sources (src/runtime/multicore/worker.ts) stand alone: they are scripts built from
// functions' text, evaluated by `new Worker(source, { eval: true })` with no module around them,
// so they must not lean on anything of the module they were written in (an import, a closure,
// a helper a compiler injected). Checked three ways: they run in an empty context up to their
// first use of the host; their text names no import or injected helper; and a compute worker
// started by hand, with no pool around it, follows the protocol (protocol.ts).

import { MessageChannel, Worker } from 'node:worker_threads';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { type Mail, makeLayout, workerWord } from '../../../src/runtime/multicore/protocol.js';
import { computeWorkerSource, supervisorSource } from '../../../src/runtime/multicore/worker.js';

const layout = makeLayout();
const sources = { compute: computeWorkerSource(layout), supervisor: supervisorSource(layout) };

describe('worker sources', () => {
  it.each(Object.entries(sources))('%s: runs in an empty context until it asks the host for worker_threads', (_, source) => {
    const asked: string[] = [];
    const context = vm.createContext({
      process: {
        getBuiltinModule: (id: string) => {
          asked.push(id);
          throw new Error('stop here');
        },
      },
    });
    expect(() => vm.runInContext(source, context)).toThrow('stop here');
    expect(asked).toEqual(['node:worker_threads']);
  });

  it.each(Object.entries(sources))('%s: names no import, require or injected helper', (_, source) => {
    expect(source).not.toMatch(/\brequire\s*\(|\bimport\s*[({'"\w]|\b__\w+|\bexports\b/);
  });

  it('a compute worker on its own: compiles its mail, runs every chunk of a fork, counts itself done', async () => {
    const control = new Int32Array(new SharedArrayBuffer(4 * layout.words));
    const args = new Float64Array(new SharedArrayBuffer(8 * 64));
    const out = new Float64Array(new SharedArrayBuffer(8 * 10));
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(sources.compute, { eval: true, workerData: { control: control.buffer, args: args.buffer, index: 1, port: port2 }, transferList: [port2] });
    try {
      const mail: Mail[] = [
        { kind: 'load', module: 7, text: 'function main() {}\nconst fns = [function (rt, lo, hi, chunk, out, x) { for (let i = lo; i < hi; i++) out[i] = x * i + chunk; }];\n' },
        { kind: 'buffers', entries: [[3, out.buffer as SharedArrayBuffer]] },
      ];
      for (const m of mail) port1.postMessage(m);
      Atomics.store(control, workerWord(layout, 1, layout.posted), mail.length);
      // Fork 1: chunks of 4 over [0, 10) of fns[0](out viewed from element 0, x = 2).
      control[layout.cmd] = layout.commandRun;
      control[layout.module] = 7;
      control[layout.fn] = 0;
      control[layout.chunks] = 3;
      control[layout.argc] = 2;
      control[layout.participants] = 1;
      control[layout.seq] = 1;
      args.set([10, 4, 1, 3, 0, 10, 0, 2, 0, 0]);
      Atomics.store(control, layout.go, 1);
      Atomics.notify(control, layout.go);
      // The worker starts in tens of milliseconds; it then claims all three chunks.
      const deadline = Date.now() + 10_000;
      while (Atomics.load(control, layout.done) === 0 && Date.now() < deadline) Atomics.wait(control, layout.done, 0, 50);
      expect(Atomics.load(control, layout.done)).toBe(1);
      expect(Atomics.load(control, layout.next)).toBeGreaterThanOrEqual(3);
      expect(control[workerWord(layout, 1, layout.finished)]).toBe(1);
      expect(control[layout.fault]).toBe(0);
      expect([...out]).toEqual([0, 2, 4, 6, 9, 11, 13, 15, 18, 20]);
    } finally {
      await worker.terminate();
      port1.close();
    }
  });
});
