// What a JavaScript caller hands the API and gets back: plain lists as arrays (checked like
// JSON lists), a whole-array fold's result as a number, parameter types and random inputs
// for them, and HiGHS loaded from where `configureSolver` says, with a clear error otherwise.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compile, configureSolver, randomInput, SolverLoadError, type Input } from '../../src/index.js';
import { repoRoot } from '../util/sources.js';
import { firstDiagnostic } from '../util/userErrors.js';


describe('plain lists as array inputs', () => {
  const double = compile('def main(xs: f64[n]):\n  return map(lam x: 2.0 * x, xs)\n');
  const count = compile('def main(is: i32[n], m: i32):\n  return map(lam i: i % m, is)\n');

  it('are converted to the parameter element type', async () => {
    expect(await double.run({ xs: [1, 2.5, -3] })).toEqual({ result: { data: new Float64Array([2, 5, -6]), shape: [3] } });
    expect(await count.run({ is: [7, 8, 9], m: 4 })).toEqual({ result: { data: new Int32Array([3, 0, 1]), shape: [3] } });
    expect(await double.run({ xs: [] })).toEqual({ result: { data: new Float64Array(0), shape: [0] } });
  });

  it('nest for more dimensions, and give tuple components one list each', async () => {
    const rows = compile('def main(xss: f64[n, m]):\n  return fold(+, xss)\n');
    expect(await rows.run({ xss: [[1, 2], [3, 4], [5, 6]] })).toEqual({ result: { data: new Float64Array([3, 7, 11]), shape: [3] } });
    const pairs = compile('def main(ps: (f64, i32)[n]):\n  return map(lam (x, i): x * f64(i), ps)\n');
    expect(await pairs.run({ ps: [[0.5, 1.5], [2, 4]] })).toEqual({ result: { data: new Float64Array([1, 6]), shape: [2] } });
    expect(await pairs.run({ ps: [new Float64Array([1]), [3]] })).toEqual({ result: { data: new Float64Array([3]), shape: [1] } });
  });

  it('are refused with the element and the reason, never a TypeError', async () => {
    expect(await firstDiagnostic(count.run({ is: [1, 2.5], m: 2 }))).toMatch(/^E514: \[1\]: 2.5 is not a value of type i32/);
    expect(await firstDiagnostic(count.run({ is: [1, 2 ** 31], m: 2 }))).toMatch(/^E514: \[1\]: 2147483648 is not a value of type i32/);
    expect(await firstDiagnostic(double.run({ xs: [1, 'two' as unknown as number] }))).toMatch(/^E511: \[1\]: expected a number, got the string "two"/);
    expect(await firstDiagnostic(double.run({ xs: [1, null as unknown as number] }))).toMatch(/^E511: \[1\]: expected a number, got null/);
    // eslint-disable-next-line no-sparse-arrays
    expect(await firstDiagnostic(double.run({ xs: [1, , 3] as number[] }))).toMatch(/^E511: \[1\]: expected a number, got undefined/);
    const rows = compile('def main(xss: f64[n, m]):\n  return fold(+, xss)\n');
    expect(await firstDiagnostic(rows.run({ xss: [[1, 2], [3]] }))).toMatch(/^E511: \[1\]: ragged lists/);
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expect(await firstDiagnostic(double.run({ xs: cyclic as Input }))).toMatch(/^E511: .*nested more than 64 levels/);
    const pairs = compile('def main(ps: (f64, i32)[n]):\n  return map(lam (x, i): x * f64(i), ps)\n');
    expect(await firstDiagnostic(pairs.run({ ps: [[1, 2]] }))).toMatch(/^E414: input 'ps': an array of 2-tuples is given as a list of 2 arrays/);
  });
});

describe('results', () => {
  it("a whole-array fold's result is a number, also interpreted, and in a tuple; with an out, the out array", async () => {
    const sum = compile('def main(xs: f64[n]):\n  return fold(+, xs), fold(max, xs), map(lam x: x, xs)\n');
    const xs = new Float64Array([1, 5, 2]);
    const want = { result0: 8, result1: 5, result2: { data: xs, shape: [3] } };
    expect(await sum.run({ xs })).toEqual(want);
    expect(await sum.run({ xs }, { interpret: true })).toEqual(want);
    expect((await sum.execute({ xs })).results).toEqual(want);
    const out = new Float64Array(1);
    const withOut = await sum.run({ xs }, { out: { result0: out } });
    expect(withOut.result0).toEqual({ data: out, shape: [] });
    expect(out[0]).toBe(8);
    expect(withOut.result1).toBe(5);
    const tuple = compile('def main(xs: f64[n], is: i32[n]):\n  return fold(lam (a, i) (b, j): (a + b, i + j), (0.0, 0), zip(xs, is))\n');
    expect(await tuple.run({ xs, is: new Int32Array([1, 2, 3]) })).toEqual({ result: [8, 6] });
  });
});

describe('parameter types and random inputs', () => {
  const source = readFileSync(join(repoRoot, 'examples/simple1.fuse'), 'utf8');

  it('names each parameter type and makes valid random inputs for it, the same for the same seed', async () => {
    const program = compile(source);
    expect(program.parameterTypes).toEqual({
      is: { kind: 'array', elems: ['i32'], rank: 1, shape: null },
      xs: { kind: 'array', elems: ['f64'], rank: 1, shape: null },
    });
    const inputs = (seed: number): Record<string, Input> =>
      Object.fromEntries(Object.entries(program.parameterTypes).map(([name, type], k) => [name, randomInput(type, { size: 50, seed: seed + k })]));
    const a = inputs(1);
    expect(a).toEqual(inputs(1));
    expect(a).not.toEqual(inputs(2));
    const is = (a.is as { data: Int32Array }).data;
    expect(is.every((i) => i >= 0 && i < 50)).toBe(true);
    expect(new Set(is).size).toBeGreaterThan(10);
    const fused = await program.run(a);
    expect(fused).toEqual(await program.run(a, { interpret: true }));
  });

  it('covers scalars, booleans, tuples, fixed shapes and given extents', () => {
    expect(randomInput({ kind: 'scalar', elem: 'i32' }, { size: 5, seed: 3 })).toSatisfy((v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 5);
    expect(typeof randomInput({ kind: 'scalar', elem: 'bool' }, { size: 5, seed: 3 })).toBe('boolean');
    const tuple = randomInput({ kind: 'array', elems: ['f32', 'u32'], rank: 2, shape: null }, { size: [2, 3], seed: 9 }) as unknown as { data: ArrayLike<number>; shape: number[] }[];
    expect(tuple.map((c) => [c.data.constructor.name, c.shape])).toEqual([
      ['Float32Array', [2, 3]],
      ['Uint32Array', [2, 3]],
    ]);
    expect(Array.from(tuple[1]!.data).every((v) => v >= 0 && v < 2)).toBe(true);
    const fixed = randomInput({ kind: 'array', elems: ['f64'], rank: 1, shape: [4] }, { size: 100, seed: 1 }) as unknown as { shape: number[] };
    expect(fixed.shape).toEqual([4]);
    expect(() => randomInput({ kind: 'array', elems: ['f64'], rank: 2, shape: null }, { size: [3], seed: 1 })).toThrow(TypeError);
  });
});

describe('configureSolver', () => {
  afterAll(() => configureSolver({}));
  const program = (): ReturnType<typeof compile> => compile('def main(xs):\n  return map(lam x: x + 1.0, map(lam x: x * 2.0, xs))\n');

  it('a wasm that cannot be loaded is a SolverLoadError naming it and the remedy; the next location is used', async () => {
    configureSolver({ wasm: '/nonexistent/highs.wasm' });
    const p = program();
    const error: unknown = await p.plan().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SolverLoadError);
    expect((error as Error).message).toMatch(/could not be loaded from \/nonexistent\/highs\.wasm \(.*ENOENT.*\)\. Tell arrayfuse where highs\.wasm is with configureSolver/);
    // Not an ILP strategy: no solver needed.
    expect((await p.plan(undefined, { strategy: 'greedy-down' })).status).toBe('heuristic');
    configureSolver({ wasm: new Uint8Array([0, 97, 115, 109, 9, 9, 9, 9]) });
    await expect(p.plan()).rejects.toThrow(/could not be loaded from the 8 bytes given/);
    // The same program plans once HiGHS is found, from bytes or a path.
    configureSolver({ wasm: readFileSync(join(repoRoot, 'node_modules/highs/build/highs.wasm')) });
    expect((await p.plan()).status).toBe('optimal');
    configureSolver({ wasm: join(repoRoot, 'node_modules/highs/build/highs.wasm') });
    expect((await program().plan()).status).toBe('optimal');
  });
});
