// The `threads` option (src/driver/threads.ts): which back end a Compiler's fused runs use and on
// how many threads, from the options, the ARRAYFUSE_THREADS environment variable and the
// machine; every bad value a TypeError that names the option (or the variable) and the value.

import { availableParallelism as osParallelism } from 'node:os';
import { availableThreads, checkTuning, InvalidOptionError, MAX_THREADS } from '../../src/runtime/index.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Compiler } from '../../src/driver/index.js';
import { chooseBackend, processEnv, THREADS_ENV, type BackendRequest } from '../../src/driver/threads.js';
import { interpret } from '../../src/interp/index.js';
import { array } from '../ir/builders.js';
import { expectSameValues } from '../runtime/equal.js';

/** A request on a machine of `cores` with the environment `env`; parallelism is asked at most once. */
function request(fields: Omit<BackendRequest, 'parallelism'>, cores = 4): BackendRequest {
  return { ...fields, parallelism: vi.fn(() => cores) };
}

const source = 'def main(xs: f64[n]):\n  return map(lam x: x * 2.0 + 1.0, xs)\n';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('chooseBackend', () => {
  it('one thread is the js back end, more the multicore one', () => {
    expect(chooseBackend(request({ threads: 1 }))).toEqual({ name: 'js', threads: 1 });
    expect(chooseBackend(request({ threads: 2 }))).toEqual({ name: 'multicore', threads: 2 });
    // More threads than cores is honoured (only slow), up to the guard.
    expect(chooseBackend(request({ threads: MAX_THREADS }, 2))).toEqual({ name: 'multicore', threads: MAX_THREADS });
  });

  it('defaults to ARRAYFUSE_THREADS, else the machine, asked only when needed', () => {
    expect(chooseBackend(request({}, 4))).toEqual({ name: 'multicore', threads: 4 });
    expect(chooseBackend(request({}, 1))).toEqual({ name: 'js', threads: 1 });
    expect(chooseBackend(request({ env: {} }, 3))).toEqual({ name: 'multicore', threads: 3 });
    expect(chooseBackend(request({ env: { [THREADS_ENV]: '1' } }, 4))).toEqual({ name: 'js', threads: 1 });
    expect(chooseBackend(request({ env: { [THREADS_ENV]: ' 3 ' } }, 1))).toEqual({ name: 'multicore', threads: 3 });
    // Set but empty: unset.
    expect(chooseBackend(request({ env: { [THREADS_ENV]: '' } }, 2))).toEqual({ name: 'multicore', threads: 2 });
    const explicit = request({ threads: 1, env: { [THREADS_ENV]: '5' } });
    expect(chooseBackend(explicit)).toEqual({ name: 'js', threads: 1 });
    expect(explicit.parallelism).not.toHaveBeenCalled();
    const fromEnv = request({ env: { [THREADS_ENV]: '2' } });
    chooseBackend(fromEnv);
    expect(fromEnv.parallelism).not.toHaveBeenCalled();
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, MAX_THREADS + 1, 2 ** 53])('threads: %s is a TypeError naming the option', (threads) => {
    const call = () => chooseBackend(request({ threads }));
    expect(call).toThrow(InvalidOptionError);
    expect(call).toThrow(TypeError);
    expect(call).toThrow(new RegExp(`^threads: ${String(threads).replace('+', '\\+')}: `));
  });

  it('threads given as a string from plain JavaScript is refused too', () => {
    expect(() => chooseBackend(request({ threads: '2' as unknown as number }))).toThrow(/^threads: "2": expected an integer number of threads, 1 or more$/);
    expect(() => chooseBackend(request({ threads: MAX_THREADS + 1 }))).toThrow(`at most ${MAX_THREADS} threads`);
  });

  it.each(['abc', '0', '-2', '1.5', '2.0', '0x10', '1e3', '2 threads', String(MAX_THREADS + 1)])('ARRAYFUSE_THREADS=%j is a TypeError naming the variable and its value', (text) => {
    const call = () => chooseBackend(request({ env: { [THREADS_ENV]: text } }));
    expect(call).toThrow(InvalidOptionError);
    expect(call).toThrow(`${THREADS_ENV}=${JSON.stringify(text)}: `);
  });

  it('an explicit threads count wins over a bad ARRAYFUSE_THREADS, which is then not read', () => {
    expect(chooseBackend(request({ threads: 2, env: { [THREADS_ENV]: 'abc' } }))).toEqual({ name: 'multicore', threads: 2 });
  });

  it("backend: 'js' runs on one thread: an explicit count above 1 is a TypeError, a default one gives way", () => {
    expect(() => chooseBackend(request({ backend: 'js', threads: 2 }))).toThrow(/^threads: 2: the js back end runs on one thread/);
    expect(() => chooseBackend(request({ backend: 'js', threads: 0 }))).toThrow(/^threads: 0: expected/);
    expect(chooseBackend(request({ backend: 'js', threads: 1 }))).toEqual({ name: 'js', threads: 1 });
    expect(chooseBackend(request({ backend: 'js' }, 8))).toEqual({ name: 'js', threads: 1 });
    expect(chooseBackend(request({ backend: 'js', env: { [THREADS_ENV]: '4' } }))).toEqual({ name: 'js', threads: 1 });
    // The default is not even computed: a bad variable does not stop an explicit js back end.
    expect(chooseBackend(request({ backend: 'js', env: { [THREADS_ENV]: 'abc' } }))).toEqual({ name: 'js', threads: 1 });
  });

  it("backend: 'multicore' runs on the count asked, one thread included", () => {
    expect(chooseBackend(request({ backend: 'multicore', threads: 1 }))).toEqual({ name: 'multicore', threads: 1 });
    expect(chooseBackend(request({ backend: 'multicore' }, 6))).toEqual({ name: 'multicore', threads: 6 });
    expect(chooseBackend(request({ backend: 'multicore', env: { [THREADS_ENV]: '3' } }, 6))).toEqual({ name: 'multicore', threads: 3 });
  });
});

describe('the machine and the environment', () => {
  it("available parallelism is Node's os.availableParallelism(), reached without importing node:os", () => {
    expect(availableThreads()).toBe(Math.min(osParallelism(), MAX_THREADS));
  });

  it('without Node: 1, even in a page that reports its cores (the pool needs Node\'s worker threads)', () => {
    vi.stubGlobal('process', undefined);
    try {
      expect(processEnv()).toBeUndefined();
      expect(availableThreads()).toBe(1);
      vi.stubGlobal('navigator', { hardwareConcurrency: 8 });
      vi.stubGlobal('crossOriginIsolated', true);
      expect(availableThreads()).toBe(1);
    } finally {
      vi.unstubAllGlobals();
    }
    expect(processEnv()).toBe(process.env);
  });

  it('a Node without process.getBuiltinModule (before 20.16): 1', () => {
    vi.stubGlobal('process', { env: {} });
    try {
      expect(availableThreads()).toBe(1);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('the test suite pins the default to one thread (vitest.config.ts), so only tests that ask start workers', () => {
    expect(process.env[THREADS_ENV]).toBe('1');
    expect(new Compiler(source).backend).toEqual({ name: 'js', threads: 1 });
  });
});

describe('multicore tuning options', () => {
  it.each<[{ parallelThreshold?: number; chunkLength?: number }, RegExp]>([
    [{ parallelThreshold: -1 }, /^parallelThreshold: -1: expected a finite number, 0 or more$/],
    [{ parallelThreshold: Number.NaN }, /^parallelThreshold: NaN/],
    [{ parallelThreshold: Number.POSITIVE_INFINITY }, /^parallelThreshold: Infinity/],
    [{ chunkLength: 0 }, /^chunkLength: 0: expected an integer number of iterations, 1 or more$/],
    [{ chunkLength: 2.5 }, /^chunkLength: 2\.5/],
  ])('%o is a TypeError', (options, message) => {
    expect(() => checkTuning(options.parallelThreshold, options.chunkLength)).toThrow(message);
    expect(() => new Compiler(source, { threads: 1, ...options })).toThrow(TypeError);
  });

  it('good values pass, and the js back end ignores them', async () => {
    expect(() => checkTuning(0, 1)).not.toThrow();
    expect(() => checkTuning(undefined, undefined)).not.toThrow();
    const compiler = new Compiler(source, { threads: 1, parallelThreshold: 0, chunkLength: 3 });
    const xs = array('f64', [4], [1, 2, 3, 4]);
    expectSameValues((await compiler.execute({ xs })).results, [array('f64', [4], [3, 5, 7, 9])]);
  });
});

describe('the Compiler', () => {
  const xs = array('f64', [5], [1, -2, 3.5, 0, 8]);

  it('threads: 1 compiles for the js back end, exactly as before', async () => {
    const compiler = new Compiler(source, { threads: 1 });
    expect(compiler.backend).toEqual({ name: 'js', threads: 1 });
    const execution = await compiler.execute({ xs });
    const exe = await compiler.executable({ xs: { kind: 'array', elem: 'f64', shape: [5] } });
    expect(exe.backend).toBe('js');
    expectSameValues(execution.results, interpret(compiler.lower(), [xs]));
  });

  it('refuses bad options when it is made, naming them', () => {
    expect(() => new Compiler(source, { threads: 0 })).toThrow(/^threads: 0: /);
    expect(() => new Compiler(source, { threads: 1.5 })).toThrow(TypeError);
    expect(() => new Compiler(source, { backend: 'js', threads: 2 })).toThrow(/the js back end runs on one thread/);
  });

  it('reads ARRAYFUSE_THREADS when it is made, and only then', () => {
    vi.stubEnv(THREADS_ENV, 'lots');
    expect(() => new Compiler(source)).toThrow(`${THREADS_ENV}="lots": expected an integer number of threads, 1 or more`);
    expect(new Compiler(source, { threads: 1 }).backend).toEqual({ name: 'js', threads: 1 });
    expect(new Compiler(source, { backend: 'js' }).backend).toEqual({ name: 'js', threads: 1 });
    vi.stubEnv(THREADS_ENV, '1');
    const compiler = new Compiler(source);
    vi.stubEnv(THREADS_ENV, '2');
    expect(compiler.backend).toEqual({ name: 'js', threads: 1 });
  });

  describe('with the multicore back end', () => {
    it('threads: 2 compiles for it, and computes what the interpreter does', async () => {
      const compiler = new Compiler(source, { threads: 2, parallelThreshold: 0 });
      expect(compiler.backend).toEqual({ name: 'multicore', threads: 2 });
      const execution = await compiler.execute({ xs });
      expect(execution.fallback).toBeUndefined();
      const exe = await compiler.executable({ xs: { kind: 'array', elem: 'f64', shape: [5] } });
      expect(exe.backend).toBe('multicore');
      expectSameValues(execution.results, interpret(compiler.lower(), [xs]));
      await compiler.dispose();
    });

    it('ARRAYFUSE_THREADS=2 makes it the default', async () => {
      vi.stubEnv(THREADS_ENV, '2');
      const compiler = new Compiler(source);
      expect(compiler.backend).toEqual({ name: 'multicore', threads: 2 });
      expectSameValues((await compiler.execute({ xs })).results, interpret(compiler.lower(), [xs]));
      await compiler.dispose();
    });

    it('the same source with threads 1 and 2 gives two executables, one per back end', async () => {
      const signature = { xs: { kind: 'array', elem: 'f64', shape: [5] } } as const;
      const one = new Compiler(source, { threads: 1 });
      const two = new Compiler(source, { threads: 2 });
      const [a, b] = [await one.executable(signature), await two.executable(signature)];
      expect(a).not.toBe(b);
      expect([a.backend, b.backend]).toEqual(['js', 'multicore']);
      expectSameValues((await two.execute({ xs })).results, (await one.execute({ xs })).results);
      await Promise.all([one.dispose(), two.dispose()]);
    });
  });
});

it('an unknown back end is named as such, whatever the threads', () => {
  expect(() => new Compiler(source, { backend: 'gpu' as 'js', threads: 2 })).toThrow(/^unknown execution back end "gpu"/);
});
