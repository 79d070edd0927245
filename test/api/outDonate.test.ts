// `run(inputs, { out, donate })` (issue 11): results written into caller-owned arrays on every
// path (fused, interpreted, the interpreter's fallback), the checks E420–E425 with their
// messages, results that never share memory with the caller's inputs or with each other, inputs
// left bitwise unchanged unless donated, and donation as part of the compiled signature.

import { describe, expect, it } from 'vitest';
import { compile, UserError, type Input, type RunOptions } from '../../src/index.js';
import { rejectionOf } from '../util/userErrors.js';
import { Compiler, signatureOf } from '../../src/driver/index.js';
import type { InterfaceValue } from '../../src/ir/values.js';

const f64s = (...xs: number[]): Float64Array => Float64Array.from(xs);
const i32s = (...xs: number[]): Int32Array => Int32Array.from(xs);
const modes: readonly RunOptions[] = [{}, { strategy: 'greedy-down' }, { strategy: 'none' }, { interpret: true }];
const label = (m: RunOptions): string => (m.interpret === true ? 'interpret' : (m.strategy ?? 'ilp'));

describe('out', () => {
  const double = compile('def main(xs: f64[n]):\n  return map(lam x: x * 2.0, xs)\n');

  it.each(modes)('writes a 1-D result into the array given and returns that array (%o)', async (mode) => {
    const out = new Float64Array(3).fill(-1);
    const r = await double.run({ xs: f64s(1, 2, 3) }, { ...mode, out: { result: out } });
    expect(r['result']).toEqual({ data: f64s(2, 4, 6), shape: [3] });
    expect((r['result'] as { data: unknown }).data).toBe(out);
    // The same out again, other values: written again, nothing stale.
    await double.run({ xs: f64s(5, 6, 7) }, { ...mode, out: { result: out } });
    expect([...out]).toEqual([10, 12, 14]);
  });

  it.each(modes)('takes an n-D result into { data, shape } or a flat typed array of its size (%o)', async (mode) => {
    const p = compile('def main(m: f64[r, c]):\n  return map(lam x: x + 1.0, transpose(m))\n');
    const m = { data: f64s(1, 2, 3, 4, 5, 6), shape: [2, 3] };
    const shaped = { data: new Float64Array(6), shape: [3, 2] };
    const r = await p.run({ m }, { ...mode, out: { result: shaped } });
    expect(r['result']).toEqual({ data: f64s(2, 5, 3, 6, 4, 7), shape: [3, 2] });
    expect((r['result'] as { data: unknown }).data).toBe(shaped.data);
    const flat = new Float64Array(6);
    const r2 = await p.run({ m }, { ...mode, out: { result: flat } });
    expect(r2['result']).toEqual({ data: f64s(2, 5, 3, 6, 4, 7), shape: [3, 2] });
    // A shape that holds 6 elements but is not the result's: E422.
    const wrong = await rejectionOf(p.run({ m }, { ...mode, out: { result: { data: new Float64Array(6), shape: [2, 3] } } }));
    expect(wrong.code).toBe('E422');
    expect(wrong.message).toContain("out 'result': the result has shape [3, 2]");
  });

  it.each(modes)('takes one array per component of a tuple result, and leaves others fresh (%o)', async (mode) => {
    const p = compile('def main(xs: f64[n], ys: i32[n]):\n  s = sum(xs)\n  return zip(map(lam x: x + 1.0, xs), ys), s\n');
    const xs = f64s(1, 2);
    const ys = i32s(3, 4);
    const a = new Float64Array(2);
    const b = new Int32Array(2);
    const r = await p.run({ xs, ys }, { ...mode, out: { result0: [a, b] } });
    const parts = r['result0'] as readonly { data: unknown; shape: number[] }[];
    expect(parts[0]!.data).toBe(a);
    expect(parts[1]!.data).toBe(b);
    expect([...a]).toEqual([2, 3]);
    // The second component is the input `ys` itself: copied into the out array, `ys` untouched.
    expect([...b]).toEqual([3, 4]);
    expect(r['s']).toBe(3);
    // Without out, the tuple's second component is a copy of ys, not ys.
    const fresh = (await p.run({ xs, ys }, mode))['result0'] as readonly { data: unknown }[];
    expect(fresh[1]!.data).not.toBe(ys);
    expect(fresh[1]!.data).toEqual(ys);
    const one = await rejectionOf(p.run({ xs, ys }, { ...mode, out: { result0: a } }));
    expect(one.code).toBe('E420');
    expect(one.message).toContain('is a tuple of 2 arrays, so out must be a list of 2 typed arrays');
  });

  it.each(modes)('refuses a name that is no result, and a scalar result, listing the array results: E420 (%o)', async (mode) => {
    const source = 'def main(xs: f64[n]):\n  total = fold(+, 0.0, xs)\n  ys = map(lam x: x - total, xs)\n  first = xs[0]\n  return total, ys, first\n';
    const p = compile(source, { fileName: 'f.fuse' });
    const xs = f64s(1, 2);
    const scalar = await rejectionOf(p.run({ xs }, { ...mode, out: { first: new Float64Array(1) } }));
    expect(scalar.code).toBe('E420');
    expect(scalar.message).toContain("out names 'first', a scalar result");
    expect(scalar.message).toContain("the array results: 'total', 'ys'");
    expect(scalar.diagnostics[0]!.file?.name).toBe('f.fuse');
    const unknown = await rejectionOf(p.run({ xs }, { ...mode, out: { zs: new Float64Array(2) } }));
    expect(unknown.code).toBe('E420');
    expect(unknown.message).toContain("out names 'zs', which is not a result of 'main' (the array results: 'total', 'ys')");
    // A fold's result is an array of rank 0 ({ data, shape: [] }): one element, and it takes an out of one.
    const cell = new Float64Array(1);
    const r = await p.run({ xs }, { ...mode, out: { total: cell } });
    expect(r['total']).toEqual({ data: f64s(3), shape: [] });
    expect((r['total'] as { data: unknown }).data).toBe(cell);
    expect((await rejectionOf(p.run({ xs }, { ...mode, out: { total: new Float64Array(2) } }))).code).toBe('E422');
  });

  it.each(modes)('checks the element type (E421) and the size (E422) (%o)', async (mode) => {
    const xs = f64s(1, 2, 3);
    const elem = await rejectionOf(double.run({ xs }, { ...mode, out: { result: new Float32Array(3) } }));
    expect(elem.code).toBe('E421');
    expect(elem.message).toContain('must be a Float64Array, got a Float32Array');
    const notTyped = await rejectionOf(double.run({ xs }, { ...mode, out: { result: [1, 2, 3] as unknown as Float64Array } }));
    expect(notTyped.code).toBe('E421');
    const short = await rejectionOf(double.run({ xs }, { ...mode, out: { result: new Float64Array(2) } }));
    expect(short.code).toBe('E422');
    expect(short.message).toMatch(/the result has (shape \[3\] \()?3 elements\)?; the out array has 2 elements/);
    const badShape = await rejectionOf(double.run({ xs }, { ...mode, out: { result: { data: new Float64Array(3), shape: [2] } } }));
    expect(badShape.code).toBe('E422');
  });

  // Found by the red team: a JavaScript caller's `out: { result: undefined }` (or null, or a
  // tuple with a hole) threw a TypeError reading `.data`, and a view of another class was
  // reported as "got undefined".
  it.each(modes)('says E421 for an out that is null, undefined or a view of another class, naming what it got (%o)', async (mode) => {
    const xs = f64s(1, 2, 3);
    for (const [given, got] of [
      [undefined, 'got undefined'],
      [null, 'got null'],
      [new Uint8ClampedArray(3), 'got a Uint8ClampedArray'],
      [new DataView(new ArrayBuffer(24)), 'got a DataView'],
      [new BigInt64Array(3), 'got a BigInt64Array'],
      [{ data: new BigInt64Array(3) }, 'got a BigInt64Array'],
    ] as const) {
      const e = await rejectionOf(double.run({ xs }, { ...mode, out: { result: given as unknown as Float64Array } }));
      expect(e.code).toBe('E421');
      expect(e.message).toContain(got);
    }
    const pair = compile('def main(xs: f64[n]):\n  return map(lam x: (x, i32(x)), xs)\n');
    const hole = await rejectionOf(pair.run({ xs }, { ...mode, out: { result: [new Float64Array(3), undefined as unknown as Int32Array] } }));
    expect(hole.code).toBe('E421');
    expect(hole.message).toContain("out 'result' (component 1)");
  });

  it.each(modes)('refuses an out that shares memory with an input or another out: E423, SharedArrayBuffer too (%o)', async (mode) => {
    const two = compile('def main(xs: f64[n]):\n  return map(lam x: x + 1.0, xs), map(lam x: x * 3.0, xs)\n');
    const buffer = new ArrayBuffer(8 * 8);
    const xs = new Float64Array(buffer, 0, 4).fill(1);
    const overlapping = new Float64Array(buffer, 8 * 3, 4);
    const e = await rejectionOf(double.run({ xs }, { ...mode, out: { result: overlapping } }));
    expect(e.code).toBe('E423');
    expect(e.message).toContain("out 'result' shares memory with the input 'xs'");
    expect((await rejectionOf(double.run({ xs }, { ...mode, out: { result: xs } }))).code).toBe('E423');
    // The other half of the same buffer shares nothing with xs: fine.
    const after = new Float64Array(buffer, 8 * 4, 4);
    await double.run({ xs }, { ...mode, out: { result: after } });
    expect([...after]).toEqual([2, 2, 2, 2]);
    expect([...xs]).toEqual([1, 1, 1, 1]);
    const shared = new SharedArrayBuffer(8 * 8);
    const sxs = new Float64Array(shared, 0, 4);
    expect((await rejectionOf(double.run({ xs: sxs }, { ...mode, out: { result: new Float64Array(shared, 8, 4) } }))).code).toBe('E423');
    const outs = new Float64Array(6);
    const e2 = await rejectionOf(two.run({ xs: f64s(1, 2, 3, 4) }, { ...mode, out: { result0: outs.subarray(0, 4), result1: outs.subarray(2, 6) } }));
    expect(e2.code).toBe('E423');
    expect(e2.message).toContain("out 'result1' shares memory with out 'result0'");
  });

  it('is honoured by the interpreter fallback after a fused fault in an unobserved element', async () => {
    const p = compile('def main(is: i32[n], ix: i32[m]):\n  a = map(lam i: 10 // i, is)\n  return gather(ix, a)\n');
    const out = new Int32Array(2);
    const execution = await p.execute({ is: i32s(1, 1, 0), ix: i32s(0, 1) }, { strategy: 'none', out: { result: out } });
    expect(execution.fallback?.code).toBe('E401');
    expect((execution.results['result'] as { data: unknown }).data).toBe(out);
    expect([...out]).toEqual([10, 10]);
    // The run's E422 is the caller's mistake, not a fault: no fallback hides it.
    expect((await rejectionOf(p.execute({ is: i32s(1, 1, 0), ix: i32s(0, 1) }, { strategy: 'none', out: { result: new Int32Array(3) } }))).code).toBe('E422');
  });

  it('does not make a different executable: the same signature runs the same compiled code with or without out', async () => {
    const c = new Compiler('def main(xs: f64[n]):\n  return map(lam x: x * 2.0, xs)\n');
    const xs: InterfaceValue = { kind: 'array', elem: 'f64', shape: [2], data: f64s(1, 2) };
    const plain = await c.execute({ xs });
    const withOut = await c.execute({ xs }, { out: { result: new Float64Array(2) } });
    expect(withOut.plan).toBe(plain.plan);
    expect(await c.executable(signatureOf(c.entry, { xs }, c.file))).toBeDefined();
  });
});

describe('results the caller owns', () => {
  it.each(modes)('a result that is an input, or one array returned twice, is a copy: nothing shared (%o)', async (mode) => {
    for (const source of ['def main(xs):\n  return xs, xs\n', 'def main(xs):\n  ys = map(lam x: x + 1.0, xs)\n  return ys, ys\n']) {
      const c = new Compiler(source);
      const data = f64s(1, 2);
      const execution = await c.execute({ xs: { kind: 'array', elem: 'f64', shape: [2], data } }, mode);
      const [a, b] = execution.results as readonly { data: Float64Array }[];
      expect(a!.data).not.toBe(data);
      expect(b!.data).not.toBe(data);
      expect(a!.data).not.toBe(b!.data);
      expect(a!.data.buffer).not.toBe(b!.data.buffer);
      a!.data[0] = 99;
      expect(b!.data[0]).not.toBe(99);
      expect([...data]).toEqual([1, 2]);
    }
  });

  it.each(modes)('`return xs` through the public API hands back a copy (%o)', async (mode) => {
    const xs = f64s(1, 2, 3);
    const r = await compile('def main(xs):\n  return xs\n').run({ xs }, mode);
    expect((r['xs'] as { data: unknown }).data).not.toBe(xs);
    expect(r['xs']).toEqual({ data: xs, shape: [3] });
  });

  it.each(modes)('an `if` returning an input or an outer array is a copy too (%o)', async (mode) => {
    const p = compile('def main(xs: f64[n], c: i32):\n  ys = map(lam x: x + 1.0, xs)\n  zs = xs if c > 0 else ys\n  return zs, ys\n');
    const xs = f64s(1, 2);
    for (const c of [0, 1]) {
      const r = await p.run({ xs, c }, mode);
      const zs = (r['zs'] as { data: Float64Array }).data;
      expect(zs).not.toBe(xs);
      expect(zs).not.toBe((r['ys'] as { data: Float64Array }).data);
      expect([...zs]).toEqual(c > 0 ? [1, 2] : [2, 3]);
    }
  });
});

describe('loops and empty arrays', () => {
  const loop = 'def main(xs: f64[n], k: i32):\n  ys = xs\n  i = 0\n  while i < k:\n    ys = zipWith(+, map(lam y: y * 0.5, ys), reverse(ys))\n    i = i + 1\n  return ys\n';
  it.each(modes)('a while that runs no iteration returns a copy of its input; with an out, the out (%o)', async (mode) => {
    const p = compile(loop);
    const xs = f64s(1, 2, 3);
    for (const k of [0, 1, 3]) {
      const r = (await p.run({ xs, k }, mode))['ys'] as { data: Float64Array };
      expect(r.data).not.toBe(xs);
      const out = new Float64Array(3);
      const w = (await p.run({ xs, k }, { ...mode, out: { ys: out } }))['ys'] as { data: Float64Array };
      expect(w.data).toBe(out);
      expect([...out]).toEqual([...r.data]);
    }
    expect([...xs]).toEqual([1, 2, 3]);
  });

  it.each(modes)('empty arrays: an empty out is written (nothing) and returned, and shares memory with nothing (%o)', async (mode) => {
    const p = compile('def main(xs: f64[n]):\n  return map(lam x: x + 1.0, xs)\n');
    const buffer = new ArrayBuffer(16);
    const xs = new Float64Array(buffer, 0, 0);
    const out = new Float64Array(buffer, 0, 0);
    const r = await p.run({ xs }, { ...mode, out: { result: out } });
    expect((r['result'] as { data: unknown; shape: number[] }).data).toBe(out);
    expect((r['result'] as { readonly shape: readonly number[] }).shape).toEqual([0]);
  });
});

describe('inputs', () => {
  const programs = [
    'def main(xs):\n  return xs\n',
    'def main(d: f64[n], ix: i32[m]):\n  return scatter(+, d, zip(ix, generate(size(ix), lam i: 1.0)))\n',
    'def main(d: f64[n], ix: i32[m]):\n  k = 0\n  while k < 3:\n    d = scatter(+, d, zip(ix, generate(size(ix), lam i: 1.0)))\n    k = k + 1\n  return d\n',
    'def main(d: f64[n], ix: i32[m]):\n  ys = scatter(lam o, v: v, d, zip(ix, generate(size(ix), lam i: 9.0)))\n  return reverse(ys), d\n',
    'def main(d: f64[n], ix: i32[m]):\n  return permute(+, d, lam i: i, generate(size(ix), lam i: 5.0))\n',
  ];
  it.each(programs.flatMap((source) => modes.map((mode) => [source, mode] as const)))('are bitwise unchanged after a run without donation: %s %o', async (source, mode) => {
    const p = compile(source);
    const d = f64s(1, -0, Number.NaN, 4);
    const ix = i32s(0, 2, 2);
    const inputs: Record<string, Input> = p.parameters.length === 1 ? { xs: d } : { d, ix };
    const before = new Uint8Array(d.buffer.slice(0));
    await p.run(inputs, mode);
    await p.run(inputs, mode);
    expect(new Uint8Array(d.buffer)).toEqual(before);
    expect([...ix]).toEqual([0, 2, 2]);
  });
});

describe('donate', () => {
  const scatter = 'def main(d: f64[n], ix: i32[m]):\n  return scatter(+, d, zip(ix, generate(size(ix), lam i: 1.0)))\n';

  it.each(modes)('gives the same results as a run without it (%o)', async (mode) => {
    const p = compile(scatter);
    const expected = await p.run({ d: f64s(1, 2, 3), ix: i32s(0, 2, 2) }, mode);
    const donated = await p.run({ d: f64s(1, 2, 3), ix: i32s(0, 2, 2) }, { ...mode, donate: ['d'] });
    expect(donated).toEqual(expected);
    expect(expected['result']).toEqual({ data: f64s(2, 2, 5), shape: [3] });
  });

  it.each(modes)('refuses a name that is no parameter, or a scalar parameter: E424 (%o)', async (mode) => {
    const p = compile('def main(xs: f64[n], k: i32):\n  return map(lam x: x + 1.0, take(k, xs))\n', { fileName: 'd.fuse' });
    const unknown = await rejectionOf(p.run({ xs: f64s(1, 2), k: 1 }, { ...mode, donate: ['ys'] }));
    expect(unknown.code).toBe('E424');
    expect(unknown.message).toContain("donate names 'ys', which is not a parameter (the parameters: xs, k)");
    const scalar = await rejectionOf(p.run({ xs: f64s(1, 2), k: 1 }, { ...mode, donate: ['k'] }));
    expect(scalar.code).toBe('E424');
    expect(scalar.message).toContain("donate names 'k', a scalar parameter");
    expect(scalar.diagnostics[0]!.span).toBeDefined();
  });

  it.each(modes)('refuses a donated input that shares memory with another input or an out: E425 (%o)', async (mode) => {
    const p = compile('def main(d: f64[n], e: f64[n]):\n  return zipWith(+, d, e)\n');
    const d = f64s(1, 2);
    const same = await rejectionOf(p.run({ d, e: d }, { ...mode, donate: ['d'] }));
    expect(same.code).toBe('E425');
    expect(same.message).toContain("the donated input 'd' shares memory with the input 'e'");
    // Without donation the same array twice is fine: nothing writes it.
    expect((await p.run({ d, e: d }, mode))['result']).toEqual({ data: f64s(2, 4), shape: [2] });
    const out = await rejectionOf(p.run({ d, e: f64s(0, 0) }, { ...mode, donate: ['d'], out: { result: d } }));
    expect(out.code).toBe('E425');
    expect(out.message).toContain("the donated input 'd' shares memory with out 'result'");
  });

  it('is part of the compiled signature: donated and not donated runs get their own executables', async () => {
    const c = new Compiler(scatter);
    const inputs = {
      d: { kind: 'array', elem: 'f64', shape: [3], data: f64s(1, 2, 3) },
      ix: { kind: 'array', elem: 'i32', shape: [1], data: i32s(1) },
    } as const;
    const signature = signatureOf(c.entry, inputs, c.file);
    const plain = await c.executable(signature);
    const donatedSignature = { ...signature, d: { ...signature['d']!, donated: true as const } };
    const donated = await c.executable(donatedSignature);
    expect(donated).not.toBe(plain);
    const runPlain = await c.execute(inputs);
    const runDonated = await c.execute({ ...inputs, d: { ...inputs.d, data: f64s(1, 2, 3) } }, { donate: ['d'] });
    expect(runPlain.plan).toBe(plain.plan);
    expect(runDonated.plan).toBe(donated.plan);
    // Alternating keeps each on its own executable.
    expect((await c.execute(inputs)).plan).toBe(plain.plan);
    expect((await c.execute({ ...inputs, d: { ...inputs.d, data: f64s(1, 2, 3) } }, { donate: ['d', 'd'] })).plan).toBe(donated.plan);
  });

  it('turns the interpreter fallback off: a fused fault fails the run as it is', async () => {
    const p = compile('def main(d: f64[n], is: i32[n], ix: i32[m]):\n  a = map(lam i: 10 // i, is)\n  return gather(ix, a), map(lam x: x + 1.0, d)\n');
    const inputs = { d: f64s(1, 2, 3), is: i32s(1, 1, 0), ix: i32s(0, 1) };
    const kept = await p.execute(inputs, { strategy: 'none' });
    expect(kept.fallback?.code).toBe('E401');
    const e = await rejectionOf(p.execute({ ...inputs, d: f64s(1, 2, 3) }, { strategy: 'none', donate: ['d'] }));
    expect(e.code).toBe('E401');
  });
});

describe('the fast path of repeated calls', () => {
  // Found by the red team: an input that is not an array where an array is declared (a string
  // for a scalar, null, a plain list) threw a TypeError, on the first call and on the fast path.
  it.each([false, true])('says E414 for an input that is no typed array (after a good call: %s)', async (warm) => {
    const p = compile('def main(a: f64, xs: f64[n]):\n  return map(lam x: a * x, xs)\n');
    if (warm) await p.run({ a: 2, xs: f64s(1, 2) });
    for (const inputs of [
      { a: '3', xs: f64s(1, 2) },
      { a: 2, xs: null },
      { a: 2, xs: { data: f64s(1, 2), shape: 2 } },
      { a: 2, xs: { data: f64s(1, 2), shape: ['2'] } },
    ]) {
      const e = await rejectionOf(p.run(inputs as unknown as Record<string, Input>));
      expect(e.code).toBe('E414');
    }
    expect((await p.run({ a: 2, xs: f64s(1, 2) }))['result']).toEqual({ data: f64s(2, 4), shape: [2] });
    // A plain list is an array of the parameter's element type (test/api/inputsOutputs.test.ts).
    expect((await p.run({ a: 2, xs: [1, 2] }))['result']).toEqual({ data: f64s(2, 4), shape: [2] });
  });

  it('still checks what the signature does not say: data class and length (E414)', async () => {
    const c = new Compiler('def main(xs: f64[n]):\n  return map(lam x: x * 2.0, xs)\n');
    const good = { xs: { kind: 'array', elem: 'f64', shape: [2], data: f64s(1, 2) } } as const;
    await c.execute(good);
    await c.execute(good);
    const short = { xs: { kind: 'array', elem: 'f64', shape: [2], data: f64s(1) } } as const;
    await expect(c.execute(short)).rejects.toThrow(/E414/);
    // Element type f64 claimed for Float32Array data (only callers of the driver can say that).
    const wrongClass = { kind: 'array', elem: 'f64', shape: [2], data: new Float32Array(2) } as const;
    await expect(c.execute({ xs: wrongClass })).rejects.toThrow(/E414.*f64 data must be a Float64Array, got a Float32Array/);
    await expect(c.execute({ ...good, ys: good.xs })).rejects.toThrow(/E410/);
    await expect(c.execute({})).rejects.toThrow(/E410/);
    expect((await c.execute(good)).results).toEqual([{ kind: 'array', elem: 'f64', shape: [2], data: f64s(2, 4) }]);
  });

  it('follows a change of shape, of scalar value and of planning options', async () => {
    const p = compile('def main(a, xs):\n  return map(lam x: a * x, xs)\n');
    expect((await p.run({ a: 2, xs: f64s(1, 2) }))['result']).toEqual({ data: f64s(2, 4), shape: [2] });
    expect((await p.run({ a: 2, xs: f64s(1, 2, 3) }))['result']).toEqual({ data: f64s(2, 4, 6), shape: [3] });
    expect((await p.run({ a: 3, xs: f64s(1, 2, 3) }))['result']).toEqual({ data: f64s(3, 6, 9), shape: [3] });
    expect((await p.run({ a: 2.5, xs: f64s(2) }, { strategy: 'none' }))['result']).toEqual({ data: f64s(5), shape: [1] });
    expect((await p.run({ a: 2.5, xs: f64s(2) }))['result']).toEqual({ data: f64s(5), shape: [1] });
  });

  it('memoises the entry types, errors included', () => {
    const c = new Compiler('def main(a, xs):\n  return map(lam x: a * x, xs)\n');
    expect(c.parameterTypes()).toBe(c.parameterTypes());
    const bad = new Compiler('def main(x):\n  return y\n');
    const first = (() => {
      try {
        return bad.parameterTypes();
      } catch (e) {
        return e;
      }
    })();
    const second = (() => {
      try {
        return bad.parameterTypes();
      } catch (e) {
        return e;
      }
    })();
    expect(first).toBeInstanceOf(UserError);
    expect(second).toBe(first);
    // The public API asks for a number's type on each call: an uninferable program still runs
    // for its inputs, reporting the lowering's own error.
    expect(bad.scalarInputType('x')).toBeUndefined();
  });

  it('runs a later call right after a fault in the middle of a run on the same executable', async () => {
    const p = compile('def main(is: i32[n]):\n  return map(lam i: 10 // i, is)\n');
    await expect(p.run({ is: i32s(1, 0) })).rejects.toThrow(/E401/);
    expect((await p.run({ is: i32s(2, 5) }))['result']).toEqual({ data: i32s(5, 2), shape: [2] });
  });
});

describe('names that are Object.prototype properties', () => {
  it.each([{}, { interpret: true }] as const)('work as parameters, results, out and donate names, call after call (%o)', async (mode) => {
    const p = compile('def main(__proto__: f64[n], toString: f64[n]):\n  constructor = zipWith(+, __proto__, toString)\n  return constructor\n');
    for (let call = 0; call < 3; call++) {
      const out = new Float64Array(2);
      const inputs: Record<string, Input> = {};
      Object.defineProperty(inputs, '__proto__', { value: f64s(1, 2), enumerable: true });
      inputs['toString'] = f64s(10, 20 + call);
      const r = await p.run(inputs, { ...mode, out: { constructor: out }, donate: ['__proto__'] });
      expect(Object.keys(r)).toEqual(['constructor']);
      expect((r['constructor'] as { data: unknown }).data).toBe(out);
      expect([...out]).toEqual([11, 22 + call]);
      const plain = await p.run(inputs, mode);
      expect(Object.hasOwn(plain, 'constructor')).toBe(true);
      expect(plain['constructor']).toEqual({ data: f64s(11, 22 + call), shape: [2] });
    }
  });
});
