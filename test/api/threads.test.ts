// The public `threads` option: `compile(source, { threads })` says which back end and how many
// threads its program uses, refuses bad values with a TypeError naming the option, and (on the
// multicore back end) computes what one thread computes.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { compile, fuse } from '../../src/index.js';

const source = 'def main(xs: f64[n], is: i32[m]):\n  ys = map(lam x: x * 0.5 + 1.0, xs)\n  return (map(lam i: ys[i], is), fold(+, 0, is))\n';
const inputs = { xs: new Float64Array([1, 2, 3, 4]), is: new Int32Array([3, 3, 0, 1, 2]) };
const expected = { result0: { data: new Float64Array([3, 3, 1.5, 2, 2.5]), shape: [5] }, result1: 9 };

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('compile(…, { threads })', () => {
  it('threads: 1 is the js back end on one thread', async () => {
    const program = compile(source, { threads: 1 });
    expect([program.backend, program.threads]).toEqual(['js', 1]);
    expect(await program.run(inputs)).toEqual(expected);
  });

  it('defaults to ARRAYFUSE_THREADS (one thread in this suite), and so does fuse`…`', () => {
    expect([compile(source).backend, compile(source).threads]).toEqual(['js', 1]);
    const program = fuse`
      def main(xs: f64[n]):
        return map(lam x: x + 1.0, xs)
    `;
    expect([program.backend, program.threads]).toEqual(['js', 1]);
  });

  it.each([0, -3, 2.5, Number.NaN, 1e9])('threads: %s is a TypeError naming the option', (threads) => {
    expect(() => compile(source, { threads })).toThrow(TypeError);
    expect(() => compile(source, { threads })).toThrow(/^threads: /);
  });

  it("backend: 'js' with threads above 1 is a TypeError; with one thread, or the default, it runs", async () => {
    expect(() => compile(source, { backend: 'js', threads: 2 })).toThrow(/^threads: 2: the js back end runs on one thread/);
    vi.stubEnv('ARRAYFUSE_THREADS', '4');
    const program = compile(source, { backend: 'js' });
    expect([program.backend, program.threads]).toEqual(['js', 1]);
    expect(await program.run(inputs)).toEqual(expected);
  });

  it('a bad ARRAYFUSE_THREADS is a TypeError naming it, unless threads is given', () => {
    vi.stubEnv('ARRAYFUSE_THREADS', '0');
    expect(() => compile(source)).toThrow(/^ARRAYFUSE_THREADS="0": expected an integer number of threads, 1 or more$/);
    expect(compile(source, { threads: 1 }).threads).toBe(1);
  });

  describe('on the multicore back end', () => {
    it('threads: 2 and 3 compute what threads: 1 does, bit for bit, and say so', async () => {
      const one = await compile(source, { threads: 1 }).run(inputs);
      for (const threads of [2, 3]) {
        const program = compile(source, { threads });
        expect([program.backend, program.threads]).toEqual(['multicore', threads]);
        expect(await program.run(inputs)).toEqual(one);
        const execution = await program.execute(inputs);
        expect(execution.fallback).toBeUndefined();
        expect(execution.stats).toBeDefined();
        await program.dispose();
      }
    });

    it('takes SharedArrayBuffer-backed inputs and out arrays', async () => {
      const xs = new Float64Array(new SharedArrayBuffer(8 * 4));
      xs.set(inputs.xs);
      const is = new Int32Array(new SharedArrayBuffer(4 * 5));
      is.set(inputs.is);
      const out = new Float64Array(new SharedArrayBuffer(8 * 5));
      const program = compile(source, { threads: 2 });
      const results = await program.run({ xs, is }, { out: { result0: out } });
      expect(results.result0).toEqual({ data: out, shape: [5] });
      expect([...out]).toEqual([...expected.result0.data]);
      await program.dispose();
    });
  });
});
