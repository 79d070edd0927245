// The back-end boundary (src/runtime/backend.ts, backends.ts): the registry names each back
// end by its own name, the driver compiles through it, and an executable's `dispose` releases
// what it holds and turns every later use into a clear error, on every registered back end.

import { describe, expect, test } from 'vitest';
import { Compiler, signatureOf } from '../../src/driver/index.js';
import { compile } from '../../src/index.js';
import { interpret } from '../../src/interp/index.js';
import { backendNamed, backends as registry, ExecutableDisposedError, jsBackend } from '../../src/runtime/index.js';
import { array } from '../ir/builders.js';
import { paperCases } from '../codegen/paper.js';
import { expectSameValues } from './equal.js';
import { backends, compileOn } from './backends.js';

test('each back end is registered under its own name, and js is one of them', () => {
  for (const [name, backend] of Object.entries(registry)) expect(backend.name).toBe(name);
  expect(backendNamed('js')).toBe(jsBackend);
  expect(backends.map((b) => b.name)).toContain('js');
});

describe.each(backends)('$name back end', (config) => {
  const c = paperCases[0]!();
  const inputs = [array('f64', [3], [1, 2, 3])];

  test('an executable runs until disposed, then refuses with ExecutableDisposedError', async () => {
    const exe = await compileOn(config, c.program, c.plan);
    expect(exe.backend).toBe(config.backend.name);
    expect(exe.disposed).toBe(false);
    // Runs any number of times before.
    for (let k = 0; k < 2; k++) expectSameValues((await exe.run(inputs)).results, interpret(c.program, inputs));
    exe.dispose();
    expect(exe.disposed).toBe(true);
    // Disposing again does nothing; running is an error that says what happened.
    exe.dispose();
    await expect(async () => exe.run(inputs)).rejects.toThrow(ExecutableDisposedError);
    await expect(async () => exe.run(inputs)).rejects.toThrow(/the .* executable of 'singleLoop' was disposed; run needs it compiled again/);
  });

  test('the driver compiles fused runs for the back end it is given, once, and disposes them', async () => {
    const compiler = new Compiler('def main(xs: f64[n]):\n  return map(lam x: x * 2.0 + 1.0, xs)\n', { ...config.api });
    const xs = array('f64', [3], [1, 2, 3]);
    const signature = signatureOf(compiler.entry, { xs }, compiler.file);
    // Concurrent runs share one executable.
    const [first, second] = await Promise.all([compiler.executable(signature), compiler.executable(signature)]);
    expect(first).toBe(second);
    expect(first.backend).toBe(config.backend.name);
    expectSameValues((await compiler.execute({ xs })).results, [array('f64', [3], [3, 5, 7])]);
    await compiler.dispose();
    expect(first.disposed).toBe(true);
    // The compiler compiles again on the next run.
    expectSameValues((await compiler.execute({ xs })).results, [array('f64', [3], [3, 5, 7])]);
    expect(await compiler.executable(signature)).not.toBe(first);
    await compiler.dispose();
  });
});

test('a program compiled through the public API is disposed with it, and compiles again when run', async () => {
  const program = compile('def main(xs: f64[n]):\n  return map(lam x: x + 1.0, xs)\n', { backend: 'js' });
  const xs = new Float64Array([1, 2]);
  expect(await program.run({ xs })).toEqual({ result: { data: new Float64Array([2, 3]), shape: [2] } });
  await program.dispose();
  expect(await program.run({ xs })).toEqual({ result: { data: new Float64Array([2, 3]), shape: [2] } });
  await program.dispose();
});

test('a disposed JavaScript executable lets go of its module', () => {
  const c = paperCases[0]!();
  const exe = jsBackend.compile(c.program, c.plan);
  expect(exe.source).toContain('function main(rt, inputs)');
  exe.dispose();
  expect(() => exe.source).toThrow(ExecutableDisposedError);
  expect(() => exe.run([array('f64', [1], [1])], { counters: true })).toThrow(ExecutableDisposedError);
});

test('runs already under way when dispose() is called finish, whatever tick dispose() comes in', async () => {
  // The window is a few microtask ticks after a run has asked for its executable; dispose()
  // must not dispose it under the run (it did while `executable` was an async wrapper).
  const source = 'def main(xs):\n  return map(lam x: x * 2.0, reverse(xs))\n';
  const xs = new Float64Array([1, 2, 3]);
  const expected = { result: { data: new Float64Array([6, 4, 2]), shape: [3] } };
  for (const strategy of ['none', 'greedy-down'] as const) {
    for (let ticks = 0; ticks < 12; ticks++) {
      const program = compile(source);
      const runs = [program.run({ xs }, { strategy }), program.run({ xs }, { strategy })];
      for (let i = 0; i < ticks; i++) await Promise.resolve();
      const disposed = program.dispose();
      expect(await Promise.all(runs), `${strategy}, dispose after ${ticks} ticks`).toEqual([expected, expected]);
      await disposed;
      expect(await program.run({ xs }, { strategy })).toEqual(expected);
      await program.dispose();
    }
  }
});

test('an unknown back end name (from plain JavaScript) is a TypeError naming the back ends, when the program is compiled', () => {
  const source = 'def main(xs):\n  return map(lam x: x + 1.0, xs)\n';
  for (const name of ['cuda', '', 'toString', '__proto__']) {
    expect(() => backendNamed(name as 'js'), name).toThrow(TypeError);
    expect(() => compile(source, { backend: name as 'js' }), name).toThrow(/unknown execution back end .*; the back ends are: js, multicore, webgpu$/);
  }
  expect(compile(source, { backend: undefined }).parameters).toEqual(['xs']);
});

test('compileProgram returns a plain object, as it always has: run works detached, the compiled state is hidden', () => {
  const c = paperCases[0]!();
  const inputs = [array('f64', [3], [1, 2, 3])];
  const exe = jsBackend.compile(c.program, c.plan);
  const { run } = exe;
  expectSameValues(run(inputs).results, interpret(c.program, inputs));
  expect(Object.keys(exe).sort()).toEqual(['backend', 'dispose', 'memory', 'plan', 'program', 'run']);
  expect(exe.source).toContain('function main(rt, inputs)');
  exe.dispose();
  expect(() => run(inputs)).toThrow(ExecutableDisposedError);
});
