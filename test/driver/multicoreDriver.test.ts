// What the driver does with the multicore back end, with a stand-in for it (the registry is
// mocked in this file only): the options reach its `compile`, which may be asynchronous and is
// awaited; a fault (UserError) in its run falls back to the interpreter as on `js`, while a worker
// that died (WorkerDiedError) fails the run as it is. The real back end's own tests are
// test/runtime's; this file pins the driver's side of the contract.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { UserError, userError } from '../../src/diagnostics/index.js';
import { Compiler } from '../../src/driver/index.js';
import * as api from '../../src/index.js';
import { compile } from '../../src/index.js';
import type { CompileOptions, Executable, ExecutionBackend, RunResult } from '../../src/runtime/backend.js';
import { jsBackend } from '../../src/runtime/executor.js';
import { WorkerDiedError } from '../../src/runtime/multicore/types.js';
import { array } from '../ir/builders.js';
import { expectSameValues } from '../runtime/equal.js';

/** What the stand-in saw and what its next runs do. */
const fake = vi.hoisted(() => ({
  compiled: [] as CompileOptions[],
  /** Thrown by the next run instead of running, then cleared. */
  failNext: null as Error | null,
}));

vi.mock('../../src/runtime/backends.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/runtime/backends.js')>();
  /** The js back end under the name `multicore`, compiling after a tick and recording its options. */
  const standIn: ExecutionBackend = {
    name: 'multicore',
    description: 'a stand-in for the multicore back end (test)',
    async compile(program, plan, options = {}) {
      fake.compiled.push(options);
      await new Promise((resolve) => setTimeout(resolve, 1));
      const inner = jsBackend.compile(program, plan, { file: options.file, memory: options.memory });
      const exe: Executable = {
        backend: 'multicore',
        program,
        plan,
        memory: inner.memory,
        get disposed() {
          return inner.disposed;
        },
        async run(inputs, runOptions): Promise<RunResult> {
          const failure = fake.failNext;
          fake.failNext = null;
          if (failure !== null) throw failure;
          return inner.run(inputs, runOptions);
        },
        dispose: () => inner.dispose(),
      };
      return exe;
    },
  };
  return {
    ...original,
    backendNamed: (name: string) => (name === 'multicore' ? standIn : original.backendNamed(name as 'js')),
  };
});

const source = 'def main(xs: f64[n], is: i32[m]):\n  return map(lam i: xs[i] * 2.0, is)\n';
const xs = array('f64', [3], [1, 2, 3]);
const is = array('i32', [4], [2, 0, 1, 2]);

afterEach(() => {
  fake.compiled.length = 0;
  fake.failNext = null;
});

describe('the driver and the multicore back end', () => {
  it('passes threads and the tuning options to its compile, and awaits it', async () => {
    const compiler = new Compiler(source, { threads: 3, parallelThreshold: 0, chunkLength: 2, poisonBuffers: true });
    expect(compiler.backend).toEqual({ name: 'multicore', threads: 3 });
    const execution = await compiler.execute({ xs, is });
    expectSameValues(execution.results, [array('f64', [4], [6, 2, 4, 6])]);
    expect(fake.compiled).toHaveLength(1);
    expect(fake.compiled[0]).toMatchObject({ threads: 3, parallelThreshold: 0, chunkLength: 2, poisonBuffers: true });
    expect(fake.compiled[0]!.memory).toBeDefined();
    // Compiled once per signature: a second run reuses it.
    await compiler.execute({ xs, is });
    expect(fake.compiled).toHaveLength(1);
    await compiler.dispose();
  });

  it('leaves the tuning options to the back end when not given', async () => {
    const compiler = new Compiler(source, { threads: 2 });
    await compiler.execute({ xs, is });
    expect(fake.compiled[0]).toMatchObject({ threads: 2, parallelThreshold: undefined, chunkLength: undefined });
  });

  it('a fault in the fused run falls back to the interpreter, as on js', async () => {
    const compiler = new Compiler(source, { threads: 2 });
    fake.failNext = userError('E402', 'index 7 is out of bounds');
    const execution = await compiler.execute({ xs, is });
    expect(execution.fallback).toBeInstanceOf(UserError);
    expect(execution.run).toBeUndefined();
    expectSameValues(execution.results, [array('f64', [4], [6, 2, 4, 6])]);
  });

  it('a worker that died fails the run with WorkerDiedError, never masked by the interpreter', async () => {
    const compiler = new Compiler(source, { threads: 2 });
    fake.failNext = new WorkerDiedError(1, 'exit code 1');
    await expect(compiler.execute({ xs, is })).rejects.toBeInstanceOf(WorkerDiedError);
    // The executable stays usable: the next run runs.
    expectSameValues((await compiler.execute({ xs, is })).results, [array('f64', [4], [6, 2, 4, 6])]);
  });

  it('through the public API too: compile(…, { threads: 2 }) runs it, and a dead worker rejects the run', async () => {
    const program = compile(source, { threads: 2 });
    expect([program.backend, program.threads]).toEqual(['multicore', 2]);
    const inputs = { xs: new Float64Array([1, 2, 3]), is: new Int32Array([2, 0, 1, 2]) };
    expect(await program.run(inputs)).toEqual({ result: { data: new Float64Array([6, 2, 4, 6]), shape: [4] } });
    fake.failNext = new WorkerDiedError(0, 'killed');
    // The public entry point exports the class, so a caller can tell a dead worker from a fault.
    await expect(program.run(inputs)).rejects.toBeInstanceOf(api.WorkerDiedError);
    fake.failNext = new WorkerDiedError(0, 'killed');
    await expect(program.run(inputs)).rejects.toThrow(/worker thread 0 died \(killed\)/);
    await program.dispose();
  });

  it("threads: 1 and backend: 'js' do not touch it", async () => {
    for (const options of [{ threads: 1 }, { backend: 'js' as const }, {}]) {
      const compiler = new Compiler(source, options);
      expect(compiler.backend.name).toBe('js');
      await compiler.execute({ xs, is });
    }
    expect(fake.compiled).toHaveLength(0);
  });
});
