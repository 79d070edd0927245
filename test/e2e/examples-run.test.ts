// Every shared example parses, lowers, plans and runs — fused under every strategy and in the
// reference interpreter — and equals values computed independently here by plain loops.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compile, type Input, type Output } from '../../src/index.js';

const repo = join(import.meta.dirname, '..', '..');
const source = (name: string): string => readFileSync(join(repo, 'examples', `${name}.fuse`), 'utf8');

const n = 7;
const xs = Float64Array.from({ length: n }, (_, i) => 0.25 + ((i * 5) % 7) * 1.5);
const is = Int32Array.from({ length: 5 }, (_, j) => (j * 3 + 1) % n);
const matrix = Float64Array.from({ length: n * 4 }, (_, k) => (k % 5) - 1.5);

const range = (length: number, f: (i: number) => number): number[] => Array.from({ length }, (_, i) => f(i));

interface Case {
  readonly inputs: Readonly<Record<string, Input>>;
  /** Expected results by name, computed by plain loops. */
  readonly expected: Readonly<Record<string, readonly number[] | number>>;
}

const cases: Readonly<Record<string, Case>> = {
  singleLoop: {
    inputs: { as: xs },
    expected: { result: range(n, (i) => xs[n - 1 - i]! + 2 * xs[i]! + (2 * xs[i]! + 1)) },
  },
  simple1: { inputs: { is, xs }, expected: { bs: range(is.length, (j) => xs[is[j]!]! * xs[is[j]!]! + 1) } },
  simple2: {
    inputs: { is1: Int32Array.from([6, 5, 0, 2, 2, 3, 1]), is2: Int32Array.from([1, 1, 0, 6]), xs },
    expected: { bs: [1, 1, 0, 6].map((i2) => xs[[6, 5, 0, 2, 2, 3, 1][i2]!]!) },
  },
  simple3: {
    inputs: { is, xs },
    expected: { as: range(n, (i) => xs[i]! * xs[i]! + 1), bs: range(is.length, (j) => xs[is[j]!]! * xs[is[j]!]! + 1) },
  },
  simple4: {
    inputs: { is, xs: { data: matrix, shape: [n, 4] } },
    expected: {
      bs: range(is.length, (j) => range(4, (c) => matrix[is[j]! * 4 + c]!).reduce((a, b) => a + b, 0)),
    },
  },
  simple5: { inputs: { is: Int32Array.from(range(n, (i) => (i * 2) % n)), xs }, expected: { cs: range(n, (i) => (xs[i]! + 1) * xs[(i * 2) % n]!) } },
  reverse: { inputs: { xs }, expected: { result: range(n, (i) => xs[n - 1 - i]!) } },
  backpermute: { inputs: { xs }, expected: { zs: range(Math.floor(n / 2), (i) => 3 * xs[2 * i]!) } },
  gather: {
    inputs: { is: Int32Array.from([3, 11, 0, 5]), xs },
    expected: { ys: [3, 11, 0, 5].map((i) => xs[(i * 7) % n]!) },
  },
  histogram: {
    inputs: { xs },
    expected: {
      result: (() => {
        const bins = range(16, () => 0);
        for (const x of xs) {
          const b = Math.floor(x * 2);
          if (b >= 0 && b < 16) bins[b]! += x * x;
        }
        return bins;
      })(),
    },
  },
  segmented: {
    // Segment lengths with an empty one and one running past the end of xs (cut there).
    inputs: { xs, lens: Int32Array.from([2, 0, 3, 5]) },
    expected: {
      sums: (() => {
        let start = 0;
        return [2, 0, 3, 5].map((l) => {
          const stop = Math.min(n, start + l);
          let s = 0;
          for (let i = start; i < stop; i++) s += xs[i]! * 2;
          start = stop;
          return s;
        });
      })(),
      runs: (() => {
        const out: number[] = [];
        xs.forEach((x, i) => out.push(i === 0 || x > 0.5 ? x * 2 : Math.max(out[i - 1]!, x * 2)));
        return out;
      })(),
    },
  },
  scatterExample: {
    inputs: { xs },
    expected: {
      result: (() => {
        const out = range(n, (i) => xs[i]! + 1);
        for (const x of xs) {
          const index = Math.trunc(x * 2) % n;
          out[index]! += x;
        }
        return out;
      })(),
    },
  },
  greedyBottomUpBad: {
    inputs: { xs, m: 3 },
    expected: { result: range(n, (i) => 3 * xs[i]! + xs[0]! ** 3) },
  },
  greedyTopDownBad: {
    inputs: { as: xs },
    expected: { result: range(n, (i) => 2 * xs[i]! + 1 + (i + 2 * xs[0]!)).reduce((a, b) => a + b, 0) },
  },
};

function numbers(o: Output): readonly number[] | number {
  if (typeof o === 'number') return o;
  if (Array.isArray(o)) throw new Error('unexpected tuple result');
  const { data, shape } = o as { data: ArrayLike<number>; shape: readonly number[] };
  return shape.length === 0 ? data[0]! : Array.from(data);
}

function expectClose(actual: readonly number[] | number, expected: readonly number[] | number): void {
  const a = typeof actual === 'number' ? [actual] : actual;
  const e = typeof expected === 'number' ? [expected] : expected;
  expect(a).toHaveLength(e.length);
  a.forEach((x, i) => expect(Math.abs(x - e[i]!)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(e[i]!))));
}

const modes = [{ interpret: true }, { strategy: 'ilp' }, { strategy: 'greedy-down' }, { strategy: 'greedy-up' }, { strategy: 'none' }] as const;

describe.each(Object.entries(cases))('%s', (name, c) => {
  const program = compile(source(name), { fileName: `examples/${name}.fuse` });
  it.each(modes.map((m) => [JSON.stringify(m), m] as const))('computes the expected values (%s)', async (_label, mode) => {
    const results = await program.run(c.inputs, mode);
    expect(Object.keys(results).sort()).toEqual(Object.keys(c.expected).sort());
    for (const [result, expected] of Object.entries(c.expected)) expectClose(numbers(results[result]!), expected);
  });
});

it('covers every bundled example', () => {
  const bundled = readdirSync(join(repo, 'examples')).filter((f) => f.endsWith('.fuse')).map((f) => f.replace(/\.fuse$/, ''));
  expect(Object.keys(cases).sort()).toEqual(bundled.sort());
});
