// In-place updates (issue 9: W1, C2, C3). A scatter — and filter and permute, which are built on
// it — updates its destination in place, which must never be observable: every program here
// reads the destination in some way (as its own values or index, in its op, through a scalar,
// after the update, through an `if` / `while` output that may share its memory, as the other
// component of a tuple), and must give, through the public API, under the interpreter and every
// strategy, on every registered back end, the values computed here independently by plain
// TypeScript.
import { describe, expect, it } from 'vitest';
import { compile, type Output } from '../../src/index.js';
import type { Strategy } from '../../src/plan/types.js';
import { backends } from './backends.js';

const strategies: readonly Strategy[] = ['ilp', 'greedy-down', 'greedy-up', 'none'];

type Value = number | Value[];
type Expected = Readonly<Record<string, Value>>;

interface Case {
  readonly name: string;
  readonly source: string;
  /** The smallest input length the program is defined for (its fixed scatter indices). */
  readonly minLength: number;
  readonly expected: (xs: readonly number[]) => Expected;
}

const plus1 = (xs: readonly number[]): number[] => xs.map((x) => x + 1);
const keep = (xs: readonly number[], p: (x: number) => boolean): number[] => xs.filter(p);
/** `scatter(+, dest, zip(index, values))`, updates in source order. */
const scatterAdd = (dest: readonly number[], index: readonly number[], values: readonly number[]): number[] => {
  const out = [...dest];
  index.forEach((i, k) => (out[i] = out[i]! + values[k]!));
  return out;
};
const reversedIndex = (n: number): number[] => Array.from({ length: n }, (_, i) => n - 1 - i);

const lines = (...ls: string[]): string => `${ls.join('\n')}\n`;

const cases: readonly Case[] = [
  {
    name: 'W1a: a scatter whose values are its destination (a reversal)',
    source: lines(
      'def main(xs: f64[n]):',
      '  ys = map(lam x: x + 1.0, xs)',
      '  return scatter(lam old, new: new, ys, zip(generate(size(ys), lam i: size(ys) - 1 - i), ys))',
    ),
    minLength: 0,
    expected: (xs) => ({ result: plus1(xs).reverse() }),
  },
  {
    name: 'W1b: a filter of a map, twice (filter scatters xs into xs)',
    source: lines(
      'def main(xs: f64[n]):',
      '  ys = map(lam x: x - 0.5, xs)',
      '  zs = filter(lam x: x > 2.5, ys)',
      '  ws = map(lam x: x - 0.5, zs)',
      '  return filter(lam x: x > 2.5, ws)',
    ),
    minLength: 0,
    expected: (xs) => ({ result: keep(keep(xs.map((x) => x - 0.5), (x) => x > 2.5).map((x) => x - 0.5), (x) => x > 2.5) }),
  },
  {
    name: "W1c: a scatter whose op indexes its destination",
    source: lines(
      'def main(xs: f64[n]):',
      '  a = map(lam x: x + 1.0, xs)',
      '  return scatter(lam o, v: a[0] + v, a, zip(generate(2, lam i: i), generate(2, lam i: 10.0)))',
    ),
    minLength: 2,
    expected: (xs) => {
      const a = plus1(xs);
      const r = [...a];
      r[0] = a[0]! + 10;
      r[1] = a[0]! + 10;
      return { result: r };
    },
  },
  {
    name: 'W1d: a filter of a map in a while loop',
    source: lines(
      'def main(xs: f64[n]):',
      '  k = 0',
      '  while k < 3:',
      '    xs = filter(lam x: x > 1.5, map(lam x: x - 0.25, xs))',
      '    k = k + 1',
      '  return xs',
    ),
    minLength: 0,
    expected: (xs0) => {
      let xs = [...xs0];
      for (let k = 0; k < 3; k++) xs = keep(xs.map((x) => x - 0.25), (x) => x > 1.5);
      return { xs };
    },
  },
  {
    name: 'a scatter whose op reads its destination through a scalar statement',
    source: lines(
      'def main(xs: f64[n]):',
      '  a = map(lam x: x + 1.0, xs)',
      '  t = a[0] * 3.0',
      '  return scatter(lam o, v: o + t + v, a, zip(generate(2, lam i: i + 1), generate(2, lam i: 10.0)))',
    ),
    minLength: 3,
    expected: (xs) => {
      const a = plus1(xs);
      const t = a[0]! * 3;
      const r = [...a];
      for (const i of [1, 2]) r[i] = r[i]! + t + 10;
      return { result: r };
    },
  },
  {
    name: 'a scatter whose values a map computes from its destination',
    source: lines(
      'def main(xs: f64[n]):',
      '  a = map(lam x: x + 1.0, xs)',
      '  v = map(lam x: x * 2.0, a)',
      '  return scatter(+, a, zip(generate(size(a), lam i: size(a) - 1 - i), v))',
    ),
    minLength: 0,
    expected: (xs) => {
      const a = plus1(xs);
      return { result: scatterAdd(a, reversedIndex(a.length), a.map((x) => x * 2)) };
    },
  },
  {
    name: 'a scalar result read from the destination before the scatter',
    source: lines(
      'def main(xs: f64[n]):',
      '  a = map(lam x: x + 1.0, xs)',
      '  t = a[0]',
      '  r = scatter(+, a, zip(generate(1, lam i: 0), generate(1, lam i: 100.0)))',
      '  return r, t',
    ),
    minLength: 1,
    expected: (xs) => {
      const a = plus1(xs);
      return { r: scatterAdd(a, [0], [100]), t: a[0]! };
    },
  },
  {
    name: 'a scalar result reading the destination and a fold (evaluated when the fold exists)',
    source: lines(
      'def main(xs: f64[n]):',
      '  a = map(lam x: x + 1.0, xs)',
      '  t = a[0] + fold(+, map(lam x: x * 2.0, xs))',
      '  r = scatter(+, a, zip(generate(1, lam i: 0), generate(1, lam i: 100.0)))',
      '  return r, t',
    ),
    minLength: 1,
    expected: (xs) => {
      const a = plus1(xs);
      return { r: scatterAdd(a, [0], [100]), t: a[0]! + xs.reduce((s, x) => s + x * 2, 0) };
    },
  },
  {
    name: 'a loop-carried destination that is also its own values',
    source: lines(
      'def main(xs: f64[n]):',
      '  ys = map(lam x: x * 1.0, xs)',
      '  k = 0',
      '  while k < 2:',
      '    ys = scatter(+, ys, zip(generate(size(ys), lam i: size(ys) - 1 - i), ys))',
      '    k = k + 1',
      '  return ys',
    ),
    minLength: 0,
    expected: (xs) => {
      let ys = [...xs];
      for (let k = 0; k < 2; k++) ys = scatterAdd(ys, reversedIndex(ys.length), ys);
      return { ys };
    },
  },
  {
    name: 'a destination an if output may share (r = a in one branch)',
    source: lines(
      'def main(xs: f64[n]):',
      '  a = map(lam x: x + 1.0, xs)',
      '  if xs[0] > 1.0:',
      '    r = a',
      '  else:',
      '    r = map(lam x: x * 2.0, xs)',
      '  s = scatter(+, a, zip(generate(2, lam i: i), generate(2, lam i: 100.0)))',
      '  return s, r',
    ),
    minLength: 2,
    expected: (xs) => {
      const a = plus1(xs);
      return { s: scatterAdd(a, [0, 1], [100, 100]), r: xs[0]! > 1 ? a : xs.map((x) => x * 2) };
    },
  },
  {
    name: 'a scatter in an if branch into an array of the enclosing block, read afterwards',
    source: lines(
      'def main(xs: f64[n]):',
      '  a = map(lam x: x + 1.0, xs)',
      '  if xs[0] > 1.0:',
      '    r = scatter(+, a, zip(generate(2, lam i: i), generate(2, lam i: 100.0)))',
      '  else:',
      '    r = map(lam x: x * 2.0, a)',
      '  return r, map(lam x: x * 3.0, a)',
    ),
    minLength: 2,
    expected: (xs) => {
      const a = plus1(xs);
      return { r: xs[0]! > 1 ? scatterAdd(a, [0, 1], [100, 100]) : a.map((x) => x * 2), result1: a.map((x) => x * 3) };
    },
  },
  {
    name: 'a filter of the input, which is returned too',
    source: lines('def main(xs: f64[n]):', '  ys = filter(lam x: x > 1.5, xs)', '  return ys, xs'),
    minLength: 0,
    expected: (xs) => ({ ys: keep(xs, (x) => x > 1.5), xs: [...xs] }),
  },
  {
    name: 'a filter of the components of a tuple-producing map',
    source: lines(
      'def main(xs: f64[n]):',
      '  a, b = map(lam x: (x, x * 10.0), xs)',
      '  return filter(lam p: p[0] > 1.5, zip(a, b))',
    ),
    minLength: 0,
    expected: (xs) => {
      const kept = keep(xs, (x) => x > 1.5);
      return { result: [kept, kept.map((x) => x * 10)] };
    },
  },
  {
    name: 'C3: a scatter into one component of a map, the other read by indexing afterwards',
    source: lines(
      'def main(xs: f64[n]):',
      '  a, b = map(lam x: (x, x + 1.0), xs)',
      '  r = scatter(+, a, zip(generate(2, lam i: i), generate(2, lam i: 10.0)))',
      '  return map(lam x: x + b[0], r)',
    ),
    minLength: 2,
    expected: (xs) => ({ result: scatterAdd(xs, [0, 1], [10, 10]).map((x) => x + (xs[0]! + 1)) }),
  },
  {
    name: 'C3: scatters into both components of one map',
    source: lines(
      'def main(xs: f64[n]):',
      '  a, b = map(lam x: (x, x + 1.0), xs)',
      '  r = scatter(+, a, zip(generate(2, lam i: i), generate(2, lam i: 10.0)))',
      '  q = scatter(+, b, zip(generate(2, lam i: i), generate(2, lam i: 100.0)))',
      '  return r, q',
    ),
    minLength: 2,
    expected: (xs) => ({ r: scatterAdd(xs, [0, 1], [10, 10]), q: scatterAdd(plus1(xs), [0, 1], [100, 100]) }),
  },
  {
    name: 'C3: a scatter into one component, the other a result scalar',
    source: lines(
      'def main(xs: f64[n]):',
      '  a, b = map(lam x: (x, x + 1.0), xs)',
      '  r = scatter(+, a, zip(generate(2, lam i: i), generate(2, lam i: 10.0)))',
      '  return r, b[0]',
    ),
    minLength: 2,
    expected: (xs) => ({ r: scatterAdd(xs, [0, 1], [10, 10]), result1: xs[0]! + 1 }),
  },
  {
    name: 'C2: a result scalar indexing an array a map consumes',
    source: lines(
      'def main(xs: f64[n]):',
      '  a = map(lam x: x + 1.0, xs)',
      '  s = a[0]',
      '  b = map(lam x: x * 2.0, a)',
      '  return b, s',
    ),
    minLength: 1,
    expected: (xs) => ({ b: plus1(xs).map((x) => x * 2), s: xs[0]! + 1 }),
  },
  {
    name: 'C2: a result scalar through another scalar',
    source: lines(
      'def main(xs: f64[n]):',
      '  a = map(lam x: x + 1.0, xs)',
      '  s = a[0] * 2.0',
      '  t = s + a[1]',
      '  b = map(lam x: x * 2.0, a)',
      '  return b, t',
    ),
    minLength: 2,
    expected: (xs) => ({ b: plus1(xs).map((x) => x * 2), t: (xs[0]! + 1) * 2 + (xs[1]! + 1) }),
  },
  {
    name: "C2: a while loop's scalar initial value indexing an array a map consumes",
    source: lines(
      'def main(xs: f64[n]):',
      '  a = map(lam x: x + 1.0, xs)',
      '  s = a[0]',
      '  b = map(lam x: x * 2.0, a)',
      '  k = 0',
      '  while k < 3:',
      '    s = s + 1.0',
      '    k = k + 1',
      '  return b, s',
    ),
    minLength: 1,
    expected: (xs) => ({ b: plus1(xs).map((x) => x * 2), s: xs[0]! + 1 + 1 + 1 + 1 }),
  },
];

const inputs: readonly (readonly number[])[] = [
  [3.0, 0.5, 4.0, 1.0, 2.5, 0.2, 5.0, 1.75],
  [1, 2, 3, 4, 5],
  Array.from({ length: 13 }, (_, i) => ((i * 7) % 13) * 0.5 - 1),
  [0.5, 2.0],
  [],
];

/** An Output as plain numbers: arrays as number lists, tuples as lists of those. */
function plain(o: Output): Value {
  if (typeof o === 'number') return o;
  if (Array.isArray(o)) return (o as readonly Output[]).map(plain);
  return Array.from((o as { data: ArrayLike<number> }).data);
}

describe.each(backends)('$name back end', (config) => {
  describe.each(cases)('$name', ({ source, minLength, expected }) => {
    const program = compile(source, { ...config.api });
    const usable = inputs.filter((xs) => xs.length >= minLength);
    it.each(['interpreter', ...strategies])('%s', async (mode) => {
      for (const xs of usable) {
        const results = await program.run(
          { xs: Float64Array.from(xs) },
          mode === 'interpreter' ? { interpret: true } : { strategy: mode as Strategy },
        );
        const got = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, plain(v)]));
        expect(got, `xs = [${xs.join(', ')}]`).toEqual(expected(xs));
      }
    });
  });
});
