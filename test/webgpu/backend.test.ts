// The webgpu back end in Node (npm webgpu on this machine's GPU, or on SwiftShader: device.ts)
// against the reference interpreter, by the f32 tolerance of compare.ts: every example with f32
// inputs at several sizes, with every kernel on the device; an f64 program's E680; a run-time
// fault's diagnostic (the run redone on the js back end); results into `out` arrays; runs
// queued; one command submission per run of a program that reads nothing back before its end;
// disposal. The per-combinator and random programs run in test/webgpu/differential.test.ts and
// in Chromium (test/web).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Compiler, signatureOf } from '../../src/driver/index.js';
import { compile, type Input, randomInput, type Output } from '../../src/index.js';
import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import type { ScalarType } from '../../src/ir/types.js';
import { ExecutableDisposedError } from '../../src/runtime/index.js';
import type { WebgpuExecutable } from '../../src/runtime/webgpu/backend.js';
import { repoRoot } from '../util/sources.js';
import { rejectionOf } from '../util/userErrors.js';
import { expectClose } from './compare.js';
import { webgpuAdapter } from './device.js';

const adapter = await webgpuAdapter();

const examplesDir = join(repoRoot, 'examples');
const examples = readdirSync(examplesDir).filter((f) => f.endsWith('.fuse')).sort();

/**
 * Random inputs for every parameter (randomInput's), floats as f32: arrays of `size` elements a
 * side, at most 256 a side when a parameter has two dimensions (index arrays stay in range of
 * every extent), scalars (sizes, repeat counts) at most 64, so that no example asks for more
 * than a few million elements.
 */
function f32Inputs(source: string, size: number, seed: number): Record<string, Input> {
  const program = compile(source);
  const inputs: Record<string, Input> = {};
  const types = program.parameters.map((p) => program.parameterTypes[p]!);
  const side = types.some((t) => t.kind === 'array' && t.rank >= 2) ? Math.min(size, 256) : size;
  program.parameters.forEach((p, k) => {
    const type = types[k]!;
    const extent = type.kind === 'scalar' ? Math.min(side, 64) : side;
    const v = randomInput(type, { size: Math.max(extent, type.kind === 'scalar' ? 1 : 0), seed: seed + k });
    const f32 = (d: unknown): unknown => (d instanceof Float64Array ? Float32Array.from(d) : d);
    inputs[p] = (typeof v === 'object' && 'data' in v ? { ...v, data: f32(v.data) } : f32(v)) as Input;
  });
  return inputs;
}

/** Examples with an f64 value whatever their inputs (`f64(i)`): E680 on this back end. */
const usesF64 = new Set(['greedyTopDownBad.fuse']);

describe.skipIf(adapter === null)(`the webgpu back end on ${adapter ?? 'no adapter'}`, () => {
  describe.each(examples)('%s with f32 inputs', (name) => {
    const source = readFileSync(join(examplesDir, name), 'utf8');
    it.each([0, 1, 7, 1000, 70000])('n = %i: the interpreter\'s results, every kernel on the device', async (n) => {
      const inputs = values(f32Inputs(source, n, n + 1));
      const gpu = new Compiler(source, { backend: 'webgpu', fileName: name });
      if (usesF64.has(name)) {
        const e = await rejectionOf(gpu.execute(inputs));
        expect(e.diagnostics[0]!.code).toBe('E680');
        return;
      }
      const got = await gpu.execute(inputs);
      const want = await gpu.execute(inputs, { interpret: true });
      expectClose(outputs(got.results), outputs(want.results), `${name} n=${n}`);
      // The executable the run used: no kernel refused, nothing run on the host or redone on the CPU.
      const exe = (await gpu.executable(signatureOf(gpu.entry, inputs, gpu.file))) as WebgpuExecutable;
      expect(exe.kernels.filter((k) => !k.device)).toEqual([]);
      expect([...exe.hostCalls.keys()]).toEqual([]);
      expect(exe.cpuReruns).toBe(0);
      await gpu.dispose();
    });
  });

  it('rejects an f64 program with E680 at the first f64 value, naming the back end', async () => {
    const program = compile('def main(xs: f64[n]):\n  return map(lam x: x * 2.0, xs)\n', { backend: 'webgpu', fileName: 'f64.fuse' });
    const e = await rejectionOf(program.run({ xs: new Float64Array([1, 2]) }));
    expect(e.diagnostics[0]!.code).toBe('E680');
    expect(e.message).toMatch(/f64.*webgpu back end.*f32.*js or multicore/s);
    expect(e.diagnostics[0]!.file?.name).toBe('f64.fuse');
    expect(e.diagnostics[0]!.span).toBeDefined();
  });

  it('rejects an f64 value inside a lambda of an f32 program', async () => {
    const program = compile('def main(xs: f32[n]):\n  return map(lam x: f32(f64(x) * 2.0), xs)\n', { backend: 'webgpu' });
    const e = await rejectionOf(program.run({ xs: new Float32Array([1, 2]) }));
    expect(e.diagnostics[0]!.code).toBe('E680');
  });

  it('a gather index out of range: the interpreter\'s E402, located, the run redone on the js back end', async () => {
    const source = 'def main(is: i32[n], xs: f32[m]):\n  ys = map(lam x: x + 1.0, xs)\n  return gather(is, ys)\n';
    const program = compile(source, { backend: 'webgpu', fileName: 'oob.fuse' });
    const inputs = { is: new Int32Array([0, 5, 1]), xs: new Float32Array([1, 2, 3]) };
    const e = await rejectionOf(program.run(inputs));
    const ref = await rejectionOf(program.run(inputs, { interpret: true }));
    expect(e.diagnostics[0]!.code).toBe('E402');
    expect(e.message).toBe(ref.message);
    // The same executable runs good inputs on the device afterwards.
    const ok = await program.run({ is: new Int32Array([2, 0]), xs: new Float32Array([1, 2, 3]) });
    expect(Array.from((ok.result as { data: Float32Array }).data)).toEqual([4, 2]);
  });

  it('an integer division by zero inside a while: E401 as the interpreter has it', async () => {
    const source = 'def main(xs: i32[n], d: i32):\n  i = 0\n  ys = xs\n  while i < 3:\n    ys = map(lam x: x // (d - i), ys)\n    i = i + 1\n  return ys\n';
    const program = compile(source, { backend: 'webgpu' });
    const inputs = { xs: new Int32Array([7, -7, 100]), d: 2 };
    const e = await rejectionOf(program.run(inputs));
    const ref = await rejectionOf(program.run(inputs, { interpret: true }));
    expect(e.diagnostics[0]!.code).toBe('E401');
    expect(e.message).toBe(ref.message);
    const ok = await program.run({ xs: new Int32Array([7, -7, 100]), d: 5 });
    const want = await program.run({ xs: new Int32Array([7, -7, 100]), d: 5 }, { interpret: true });
    expectClose(ok, want, 'd = 5');
  });

  it('a donated input updated in place on the device; with a fault after it, the interpreter\'s diagnostic', async () => {
    const source = 'def main(xs: i32[n], is: i32[m]):\n  ys = scatter(+, xs, zip(is, map(lam i: 10, is)))\n  return gather(is, ys)\n';
    const program = compile(source, { backend: 'webgpu' });
    const xs = new Int32Array([1, 2, 3, 4]);
    const r = await program.run({ xs, is: new Int32Array([3, 1, 3]) }, { donate: ['xs'] });
    expect(Array.from((r.result as { data: Int32Array }).data)).toEqual([24, 12, 24]);
    const bad = { xs: new Int32Array([1, 2, 3, 4]), is: new Int32Array([3, 9]) };
    const e = await rejectionOf(program.run(bad, { donate: ['xs'] }));
    const ref = await rejectionOf(program.run({ xs: new Int32Array([1, 2, 3, 4]), is: new Int32Array([3, 9]) }, { interpret: true }));
    expect(e.diagnostics[0]!.code).toBe('E402');
    expect(e.message).toBe(ref.message);
  });

  it('writes results into out arrays, and runs given together are queued, each with its own result', async () => {
    const program = compile('def main(xs: f32[n]):\n  ys = map(lam x: x * 3.0, xs)\n  return (fold(+, 0.0, ys), scanl(+, 0.0, ys))\n', { backend: 'webgpu' });
    const out = new Float32Array(4);
    const r = await program.run({ xs: new Float32Array([1, 2, 3, 4]) }, { out: { result1: out } });
    expect(r.result0).toBe(30);
    expect((r.result1 as { data: Float32Array }).data).toBe(out);
    expect(Array.from(out)).toEqual([0, 3, 9, 18]);
    const runs = await Promise.all([1, 2, 3].map((k) => program.run({ xs: new Float32Array(5).fill(k) })));
    expect(runs.map((x) => x.result0)).toEqual([15, 30, 45]);
  });

  it('one command submission per run when nothing is read back before the results; a while reads its condition once per iteration', async () => {
    const c = new Compiler('def main(xs: f32[n]):\n  ys = map(lam x: x * 2.0, xs)\n  return map(lam y: y + 1.0, reverse(ys))\n', { backend: 'webgpu' });
    const inputs = values({ xs: new Float32Array(1000).fill(1) });
    const exe = (await c.executable(signatureOf(c.entry, inputs, c.file))) as WebgpuExecutable;
    const flat = c.parameterNames.map((p) => inputs[p]!);
    await exe.run(flat);
    let before = exe.submissions;
    await exe.run(flat);
    expect(exe.submissions - before).toBe(1);
    await c.dispose();
    const w = new Compiler('def main(xs: f32[n]):\n  ys = xs\n  while fold(+, 0.0, ys) < 100.0:\n    ys = map(lam y: y * 2.0, ys)\n  return ys\n', { backend: 'webgpu' });
    const wi = values({ xs: new Float32Array([1, 2]) });
    const we = (await w.executable(signatureOf(w.entry, wi, w.file))) as WebgpuExecutable;
    before = we.submissions;
    const r = await we.run(w.parameterNames.map((p) => wi[p]!));
    // 3 → 6 → 12 → 24 → 48 → 96 → 192: 7 conditions, each reading its fold's result back, then the result.
    expect(Array.from((r.results[0] as { data: Float32Array }).data)).toEqual([64, 128]);
    expect(we.submissions - before).toBe(8);
    await w.dispose();
  });

  it('after dispose, run rejects with ExecutableDisposedError', async () => {
    const c = new Compiler('def main(xs: f32[n]):\n  return map(lam x: x, xs)\n', { backend: 'webgpu' });
    const inputs = values({ xs: new Float32Array(2) });
    const exe = await c.executable(signatureOf(c.entry, inputs, c.file));
    exe.dispose();
    await expect(exe.run([inputs.xs!])).rejects.toBeInstanceOf(ExecutableDisposedError);
    await c.dispose();
  });
});

const elemOf = (a: ArrayBufferView): ScalarType =>
  a instanceof Float32Array ? 'f32' : a instanceof Float64Array ? 'f64' : a instanceof Int32Array ? 'i32' : a instanceof Uint32Array ? 'u32' : 'bool';

/** Plain inputs (1-D typed arrays, integer scalars) as the driver's entry values. */
function values(inputs: Record<string, Input>): Record<string, InterfaceValue> {
  const out: Record<string, InterfaceValue> = {};
  for (const [k, v] of Object.entries(inputs)) {
    if (typeof v === 'number') out[k] = { kind: 'scalar', elem: 'i32', value: v };
    else if (ArrayBuffer.isView(v)) out[k] = { kind: 'array', elem: elemOf(v), shape: [(v as Float32Array).length], data: v as Float32Array };
    else if (typeof v === 'object' && 'data' in v && 'shape' in v) out[k] = { kind: 'array', elem: elemOf(v.data), shape: [...(v.shape ?? [])], data: v.data as Float32Array };
    else throw new Error(`values: ${k} is not an array or a number`);
  }
  return out;
}

/** The driver's results as the public API's outputs, for compare.ts. */
function outputs(results: readonly InterfaceValue[]): Record<string, Output> {
  const one = (v: RuntimeValue): Output => (v.kind === 'scalar' ? v.value : { data: v.data, shape: v.shape });
  const out: Record<string, Output> = {};
  results.forEach((r, k) => (out[`r${k}`] = Array.isArray(r) ? r.map(one) : one(r as RuntimeValue)));
  return out;
}
