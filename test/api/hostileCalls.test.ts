// What an outside tester threw at the API and the command line after issue 14's changes, each
// now a clear error or the right answer: wrong wasm bytes, limits and costs past what HiGHS can
// hold, unknown strategies, bad entry sizes, `__proto__` in a plan's orders, negative numbers
// interpolated into `fuse`, random inputs for extreme sizes, lists of holes, bad arguments to
// writeNpy, and the command line's stricter values.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import {
  compile,
  configureSolver,
  fuse,
  plan,
  planGraph,
  randomInput,
  readNpy,
  renderPlanText,
  planGraphJson,
  SolverLoadError,
  writeNpy,
  type Input,
} from '../../src/index.js';
import { firstDiagnostic } from '../util/userErrors.js';


const twice = 'def main(xs: f64[n]):\n  ys = map(lam x: x * 2.0, xs)\n  return map(lam y: y + 1.0, ys)\n';

describe('the solver and the planning options', () => {
  afterAll(() => configureSolver({}));

  it('a valid WebAssembly module that is not HiGHS fails the plan, it does not crash or hang', async () => {
    configureSolver({ wasm: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]) });
    const error: unknown = await compile(twice).plan().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SolverLoadError);
    expect((error as Error).message).toMatch(/could not be loaded from the 8 bytes given/);
    configureSolver({});
    expect((await compile(twice).plan()).status).toBe('optimal');
  });

  it('configureSolver refuses what is no location or bytes', () => {
    expect(() => configureSolver(null as unknown as { wasm: string })).toThrow(/configureSolver: expected \{ wasm: URL, path or bytes \}, got null/);
    expect(() => configureSolver({ wasm: 42 as unknown as string })).toThrow(/wasm must be a URL, a path or the binary's bytes .* got number/);
  });

  it('a time limit past what HiGHS takes is no limit; a non-number is E600', async () => {
    expect((await compile(twice).plan(undefined, { timeLimitSeconds: Number.MAX_VALUE })).status).toBe('optimal');
    expect(await firstDiagnostic(compile(twice).plan(undefined, { timeLimitSeconds: '1' as unknown as number }))).toBe('E600: the time limit must be a non-negative number of seconds, not "1"');
    expect(await firstDiagnostic(compile(twice).plan(undefined, { timeLimitSeconds: 1n as unknown as number }))).toBe('E600: the time limit must be a non-negative number of seconds, not 1n');
  });

  it('an unknown strategy is E604, from every entry point', async () => {
    const program = compile(twice);
    expect(await firstDiagnostic(program.plan(undefined, { strategy: 'bogus' as 'ilp' }))).toBe('E604: unknown strategy "bogus": expected ilp, greedy-down, greedy-up, none');
    expect(await firstDiagnostic(program.run({ xs: [1] }, { strategy: 'ILP' as 'ilp' }))).toMatch(/^E604/);
    expect(await firstDiagnostic(plan(program.lower(), { strategy: 'bogus' as 'ilp' }))).toMatch(/^E604/);
  });

  it('a coefficient past 1e9 is E656, and a size-weighted term past 1e15 is E608', async () => {
    expect(await firstDiagnostic(compile(twice).plan(undefined, { cost: '1e20*reads' }))).toBe('E656: coefficient `1e20` is too large (at most 1e+9)');
    const huge = { xs: new Float64Array(0) };
    expect(await firstDiagnostic(plan(compile(twice).lower(huge), { cost: '1e9*bytes', shapes: { xs: [2 ** 31 - 1] } }))).toMatch(/^E608: a term of the cost is .* more than the 1e\+15 the ILP solver can weigh exactly/);
  });

  it('entry sizes that are no sizes are E605', async () => {
    const graph = await compile(twice).render('graph-json');
    expect(await firstDiagnostic(planGraph(graph, { cost: 'bytes', shapes: { xs: [-5] } }))).toBe('E605: the shape of `xs` must be a list of non-negative integers (or a scalar\'s value), not [-5]');
    expect(await firstDiagnostic(planGraph(graph, { cost: 'bytes', shapes: { xs: [NaN] } }))).toMatch(/^E605/);
  });

  it('a node named __proto__ keeps its order in the plan JSON', async () => {
    const planned = await compile('def main(xs: f64[n]):\n  __proto__ = map(lam x: x * 2.0, xs)\n  return map(lam y: y + 1.0, __proto__)\n').plan(undefined, { strategy: 'none' });
    const orders = planned.clusters.map((c) => c.orders);
    expect(orders.some((o) => Object.hasOwn(o, '__proto__') && o['__proto__'] === '0')).toBe(true);
  });

  it('the text plan shows line breaks and direction marks in a graph JSON name escaped', async () => {
    const graph = JSON.parse(await compile(twice).render('graph-json')) as { nodes: { name: string }[]; edges: { from: string; to: string }[]; results: string[] };
    const odd = 'ys\ncluster 9\u202e';
    graph.edges = graph.edges.map((e) => ({ ...e, from: e.from === 'ys' ? odd : e.from, to: e.to === 'ys' ? odd : e.to }));
    graph.nodes = graph.nodes.map((n) => (n.name === 'ys' ? { ...n, name: odd } : n));
    const planned = await planGraphJson(graph, { strategy: 'none' });
    const text = renderPlanText(planned.graphs, planned.plan);
    expect(text).toContain('ys\\u{a}cluster 9\\u{202e}');
    expect(text).not.toContain('\u202e');
    expect(text.split('\n').filter((l) => l.trim() === 'cluster 9')).toEqual([]);
  });
});

describe('inputs', () => {
  it('fuse parenthesises a negative interpolation and keeps -0', async () => {
    const square = fuse`
      def main(xs: f64[n]):
        return map(lam x: x * 0.0 + ${-2} ** 2.0, xs)
    `;
    expect((await square.run({ xs: [1] })).result).toEqual({ data: new Float64Array([4]), shape: [1] });
    const inverse = fuse`
      def main(xs: f64[n]):
        return map(lam x: 1.0 / ${-0}, xs)
    `;
    expect((await inverse.run({ xs: [1] })).result).toEqual({ data: new Float64Array([-Infinity]), shape: [1] });
  });

  it('a list of holes is an error at the hole; -0 is the integer 0; other values say what they are', async () => {
    const double = compile(twice);
    // eslint-disable-next-line no-sparse-arrays
    expect(await firstDiagnostic(double.run({ xs: [, ,] as unknown as number[] }))).toMatch(/^E511: \[0\]: expected a number, got undefined/);
    expect(await firstDiagnostic(double.run({ xs: new Array(3) as number[] }))).toMatch(/^E511: \[0\]/);
    expect(await firstDiagnostic(double.run({ xs: new Array(2 ** 30) as number[] }))).toMatch(/^E414: input 'xs': a list of 1073741824 elements; pass a typed array instead/);
    const scale = compile('def main(k: i32, xs: i32[n]):\n  return map(lam x: x * k, xs)\n');
    expect(await scale.run({ k: -0, xs: [3] })).toEqual({ result: { data: new Int32Array([0]), shape: [1] } });
    expect(await firstDiagnostic(scale.run({ k: 'three' as unknown as number, xs: [3] }))).toMatch(/^E414: input 'k': expected a number, a boolean, a typed array .* got string/);
    await expect(double.run(null as unknown as Record<string, Input>)).rejects.toThrow(/run: the inputs must be an object of named inputs, not null/);
    expect(() => compile(null as unknown as string)).toThrow(/compile: the source must be a string, not null/);
    expect(() => compile(twice, { wasm: 'yes' as 'on' })).toThrow(/wasm: "yes": expected 'auto', 'on' or 'off'/);
  });

  it('randomInput stays inside the type and refuses sizes, seeds and types that are none', () => {
    const int = randomInput({ kind: 'scalar', elem: 'i32' }, { size: 2 ** 31 - 1, seed: 394144346 }) as number;
    expect(int).toBeGreaterThanOrEqual(1);
    expect(int).toBeLessThanOrEqual(2 ** 31 - 1);
    const indices = randomInput({ kind: 'array', elems: ['u32'], rank: 1, shape: null }, { size: 5, seed: 3 }) as { data: Uint32Array };
    expect(Array.from(indices.data).every((v) => v < 5)).toBe(true);
    const bad = (size: unknown, seed: unknown): (() => unknown) => () => randomInput({ kind: 'scalar', elem: 'i32' }, { size: size as number, seed: seed as number });
    for (const size of [NaN, -5, Infinity, 2.5, 2 ** 31, [], '3']) expect(bad(size, 1), String(size)).toThrow(TypeError);
    for (const seed of [NaN, 1.5, undefined]) expect(bad(3, seed), String(seed)).toThrow(/randomInput: seed/);
    expect(() => randomInput({ kind: 'array', elems: ['f16' as 'f32'], rank: 1, shape: null }, { size: 3, seed: 1 })).toThrow(/element types \["f16"\]/);
    expect(() => randomInput({ kind: 'array', elems: ['f64'], rank: 2, shape: null }, { size: 2 ** 20, seed: 1 })).toThrow(/more than the 2147483647 elements/);
  });

  it('writeNpy refuses what it would write wrong', () => {
    const write = (a: unknown, version?: unknown): (() => unknown) => () => writeNpy(a as Parameters<typeof writeNpy>[0], { version: version as 1 });
    expect(write({ data: new Float64Array(2), shape: [2] })).toThrow(/writeNpy: elem undefined is none of/);
    expect(write({ kind: 'array', elem: 'f64', data: new Float64Array(2), shape: [3] })).toThrow(/shape \[3\] does not hold the 2 elements/);
    expect(write({ kind: 'array', elem: 'f64', data: new Int32Array(2), shape: [2] })).toThrow(/data is a Int32Array, but elem f64 needs a Float64Array/);
    expect(write({ kind: 'array', elem: 'f64', data: new Float64Array(2), shape: [2] }, 4)).toThrow(/version 4: expected 1, 2 or 3/);
    expect(() => readNpy(new Uint8Array(0), 'x.npy', { integer: 'f64' as 'i32' })).toThrow(/readNpy: integer must be 'i32', 'u32', 'u8' or 'i8'/);
  });
});

describe('the command line', () => {
  async function cli(...argv: string[]): Promise<{ code: number; err: string }> {
    let err = '';
    const code = await main(argv, { out: () => {}, err: (t) => (err += t) });
    return { code, err };
  }

  it('takes decimal time limits only, names --shape in its errors, and refuses one file for LP and MPS', async () => {
    expect(await cli('plan', 'examples/simple1.fuse', '--time-limit', '0x10')).toMatchObject({ code: 2, err: expect.stringContaining('error[E600]: --time-limit "0x10"') });
    expect(await cli('plan', 'examples/simple1.fuse', '--shape', 'xs=f64[-5]')).toMatchObject({ code: 2, err: expect.stringContaining('error[E521]: --shape xs "f64[-5]"') });
    expect(await cli('plan', 'examples/simple1.fuse', '--emit-lp', 'm', '--emit-mps', 'm')).toMatchObject({ code: 2, err: expect.stringContaining('error[E524]: --emit-lp and --emit-mps name one file') });
    expect(await cli('plan', 'examples/simple1.fuse', '--time-limit', '1e308')).toMatchObject({ code: 0 });
  });

  it('warns before laying out the picture of a plan of more than 150 loops', async () => {
    const chain = ['def main(xs: f64[n]):', '  y0 = map(lam x: x + 1.0, xs)', ...Array.from({ length: 151 }, (_, k) => `  y${k + 1} = map(lam x: x * 2.0, y${k})`), '  return y151', ''].join('\n');
    const file = join(mkdtempSync(join(tmpdir(), 'arrayfuse-chain-')), 'chain.fuse');
    writeFileSync(file, chain);
    const svg = await cli('plan', file, '--strategy', 'none', '--format', 'svg');
    expect(svg).toEqual({ code: 0, err: 'note: the plan has 152 loops; laying its picture out may take minutes (--format dot prints the graph at once)' });
    expect(await cli('plan', file, '--strategy', 'none', '--format', 'dot')).toEqual({ code: 0, err: '' });
  });
});
