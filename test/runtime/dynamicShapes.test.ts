// Arrays whose extents are known only at run time (a filter's result, an array a `while` carries
// and resizes, an `if` whose branches yield different sizes), with those extents queried every
// way a program can: a scalar binding, a generate's shape, element code, reverse / take / drop,
// inside `while` and `if` blocks, and as results. Each program runs in the interpreter and in
// every strategy's generated code on every registered back end, and is compared with the same
// computation written in plain TypeScript (not with the interpreter alone, so a bug both share
// cannot hide).
//
// The code generator once computed such extents where they were first asked for, before the data
// they come from existed: `n = size(filter(…))` read the filter's count from a buffer not yet
// allocated (`unsafe identifier "<fused-away>"`), and the size of an array derived from a
// `while`'s result was asked before the loop had run (`"w4_4" is not bound`).

import { describe, expect, test } from 'vitest';
import { compile, UserError, type Input, type Output } from '../../src/index.js';
import { backends } from './backends.js';

type Strategy = 'ilp' | 'greedy-down' | 'greedy-up' | 'none';
const strategies: readonly Strategy[] = ['ilp', 'greedy-down', 'greedy-up', 'none'];

/** An expected result: a number (scalar) or a list (1-D array), or a tuple of those by name. */
type Expected = Readonly<Record<string, number | readonly number[] | { readonly data: readonly number[]; readonly shape: readonly number[] }>>;

interface Case {
  readonly name: string;
  /** `xs: f64[n]` and `ts: f64[1]` (a threshold read from data, so nothing folds it at compile time). */
  readonly source: string;
  readonly expected: (xs: readonly number[], t: number) => Expected;
  /** Inputs the case is not meaningful for (the interpreter faults there by design). */
  readonly skip?: (xs: readonly number[]) => boolean;
}

const above = (xs: readonly number[], t: number): number[] => xs.filter((x) => x > t);
const sumOf = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
const reversed = (xs: readonly number[]): number[] => [...xs].reverse();
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const header = 'def main(xs: f64[n], ts: f64[m]):\n  t = ts[0]\n';

const cases: readonly Case[] = [
  {
    // C1 of issue 9, over f64: the reverse asks the filter's size in a scalar binding.
    name: 'reverse of a filter',
    source: `${header}  w = filter(lam p: p > t, xs)\n  return reverse(w)\n`,
    expected: (xs, t) => ({ result: reversed(above(xs, t)) }),
  },
  {
    // C11: the size of a filter's result in a scalar, used after a fold over it.
    name: 'size of a filter in a scalar binding',
    source: `${header}  ys = filter(lam x: x > t, xs)\n  n = size(ys)\n  return fold(+, ys) / f64(n)\n`,
    expected: (xs, t) => ({ result: sumOf(above(xs, t)) / above(xs, t).length }),
  },
  {
    // C4: a filter, a while of maps over its result, then the size of an array derived from it.
    name: 'size of a map of a while result over a filter',
    source: `${header}  w4 = filter(lam x: x > t, xs)\n  k = 0\n  while k < 3:\n    w4 = map(lam x: x * 2.0, w4)\n    k = k + 1\n  r = map(lam x: x + 1.0, w4)\n  m = size(r)\n  return fold(+, r) / f64(m), reverse(w4)\n`,
    expected: (xs, t) => {
      const w = above(xs, t).map((x) => x * 8);
      return { result0: sumOf(w.map((x) => x + 1)) / w.length, result1: reversed(w) };
    },
  },
  {
    name: 'a filter sizes a generate that indexes it',
    source: `${header}  ys = filter(lam x: x > t, xs)\n  return generate(size(ys) * 2, lam i: ys[i % size(ys)])\n`,
    expected: (xs, t) => {
      const ys = above(xs, t);
      return { result: range(ys.length * 2).map((i) => ys[i % ys.length]!) };
    },
  },
  {
    name: 'the size of a filter in element code',
    source: `${header}  ys = filter(lam x: x > t, xs)\n  return map(lam y: y + f64(size(ys)), ys)\n`,
    expected: (xs, t) => {
      const ys = above(xs, t);
      return { result: ys.map((y) => y + ys.length) };
    },
  },
  {
    name: 'take and drop sized by a filter',
    source: `${header}  ys = filter(lam x: x > t, xs)\n  return take(min(2, size(ys)), reverse(ys)), drop(min(1, size(ys)), ys)\n`,
    expected: (xs, t) => {
      const ys = above(xs, t);
      return { result0: reversed(ys).slice(0, 2), result1: ys.slice(1) };
    },
  },
  {
    name: 'a rank-2 generate and a fold over its rows, shaped by a filter',
    source: `${header}  ys = filter(lam x: x > t, xs)\n  g = generate((size(ys), 3), lam i, j: ys[i] * f64(j + size(ys)))\n  return g, fold(+, g)\n`,
    expected: (xs, t) => {
      const ys = above(xs, t);
      const rows = ys.map((y) => range(3).map((j) => y * (j + ys.length)));
      return { g: { data: rows.flat(), shape: [ys.length, 3] }, result1: rows.map((r) => sumOf(r)) };
    },
  },
  {
    name: 'sizes of two filters index each other',
    source: `${header}  a = filter(lam x: x > t, xs)\n  b = filter(lam x: x <= t, xs)\n  return generate(min(size(a), size(b)), lam i: a[i] + b[size(b) - 1 - i])\n`,
    expected: (xs, t) => {
      const a = above(xs, t);
      const b = xs.filter((x) => x <= t);
      return { result: range(Math.min(a.length, b.length)).map((i) => a[i]! + b[b.length - 1 - i]!) };
    },
  },
  {
    name: 'a scalar while bounded by the size of a filter',
    source: `${header}  w = filter(lam x: x > t, xs)\n  j = 0\n  acc = 0.0\n  while j < size(w):\n    acc = acc + w[j] * f64(size(w))\n    j = j + 1\n  return acc\n`,
    expected: (xs, t) => {
      const w = above(xs, t);
      return { acc: w.reduce((a, x) => a + x * w.length, 0) };
    },
  },
  {
    name: 'a while that filters its carried array, then its size',
    source: `${header}  ys = xs\n  k = 0\n  while k < 2:\n    ys = filter(lam x: x > t + f64(k), ys)\n    k = k + 1\n  m = size(ys)\n  return reverse(ys), m, generate((m, m), lam i, j: ys[i] - ys[j])\n`,
    expected: (xs, t) => {
      const ys = above(above(xs, t), t + 1);
      return {
        result0: reversed(ys),
        m: ys.length,
        result2: { data: ys.flatMap((a) => ys.map((b) => a - b)), shape: [ys.length, ys.length] },
      };
    },
  },
  {
    name: 'a while that shrinks its carried array by its own size',
    source: `${header}  ys = filter(lam x: x > t, xs)\n  while size(ys) > 2:\n    ys = take(size(ys) - 2, reverse(ys))\n  return ys, size(ys)\n`,
    expected: (xs, t) => {
      let ys = above(xs, t);
      while (ys.length > 2) ys = reversed(ys).slice(0, ys.length - 2);
      return { ys, result1: ys.length };
    },
  },
  {
    name: 'a while that grows its carried array, queried in its own element code',
    source: `${header}  w = filter(lam x: x > t, xs)\n  ys = generate(size(w) + 1, lam i: w[i] if i < size(w) else 0.5)\n  while size(ys) < 12:\n    ys = generate(size(ys) + 3, lam i: ys[i % size(ys)] + f64(size(ys)))\n  return ys\n`,
    expected: (xs, t) => {
      let ys = [...above(xs, t), 0.5];
      while (ys.length < 12) {
        const prev = ys;
        ys = range(prev.length + 3).map((i) => prev[i % prev.length]! + prev.length);
      }
      return { ys };
    },
  },
  {
    name: 'an if whose branches differ in size, queried after it',
    source: `${header}  if fold(+, xs) > t:\n    r = filter(lam x: x > t, xs)\n  else:\n    r = generate(size(xs) + 2, lam i: f64(i))\n  return reverse(r), size(r), map(lam v: v * f64(size(r)), r)\n`,
    expected: (xs, t) => {
      const r = sumOf(xs) > t ? above(xs, t) : range(xs.length + 2);
      return { result0: reversed(r), result1: r.length, result2: r.map((v) => v * r.length) };
    },
  },
  {
    name: 'an if on the size of a filter',
    source: `${header}  ys = filter(lam x: x > t, xs)\n  if size(ys) > 2:\n    r = reverse(ys)\n  else:\n    r = map(lam y: y * f64(size(ys) + 1), ys)\n  return r, size(r)\n`,
    expected: (xs, t) => {
      const ys = above(xs, t);
      const r = ys.length > 2 ? reversed(ys) : ys.map((y) => y * (ys.length + 1));
      return { r, result1: r.length };
    },
  },
  {
    name: 'an if inside a while, both sizing by the carried array',
    source: `${header}  w = filter(lam x: x > t, xs)\n  k = 0\n  while k < 3:\n    if size(w) > 2:\n      w = drop(1, reverse(w))\n    else:\n      w = map(lam x: x + f64(size(w)), w)\n    k = k + 1\n  return w, size(w)\n`,
    expected: (xs, t) => {
      let w = above(xs, t);
      for (let k = 0; k < 3; k++) w = w.length > 2 ? reversed(w).slice(1) : w.map((x) => x + w.length);
      return { w, result1: w.length };
    },
  },
  {
    name: 'a while of reverses sized by a filter outside it',
    source: `${header}  w = filter(lam x: x > t, xs)\n  j = 0\n  zs = w\n  while j < 2:\n    zs = map(lam z: z + f64(size(zs) + size(w)), reverse(zs))\n    j = j + 1\n  return zs\n`,
    expected: (xs, t) => {
      const w = above(xs, t);
      let zs = w;
      for (let j = 0; j < 2; j++) zs = reversed(zs).map((z) => z + zs.length + w.length);
      return { zs };
    },
  },
  {
    name: 'a scan of a filter and its size',
    source: `${header}  w = filter(lam x: x > t, xs)\n  s = scanl(+, w)\n  return s, size(s) + size(reverse(s))\n`,
    expected: (xs, t) => {
      const w = above(xs, t);
      let acc = 0;
      return { s: w.map((x) => (acc += x)), result1: 2 * w.length };
    },
  },
  {
    name: 'the size of a filter in the seeds of a fold and a scan',
    source: `${header}  ys = filter(lam x: x > t, xs)\n  return fold(lam a, b: a + b, f64(size(ys)), ys), scanl(lam a, b: a + b, f64(size(ys)), ys)\n`,
    expected: (xs, t) => {
      const ys = above(xs, t);
      let acc = ys.length;
      const scan = ys.map((y) => {
        const before = acc;
        acc += y;
        return before;
      });
      return { result0: ys.reduce((a, y) => a + y, ys.length), result1: scan };
    },
  },
  {
    name: 'a scatter into an array sized by a filter, at indices computed from its size',
    source: `${header}  ys = filter(lam x: x > t, xs)\n  return scatter(+, generate(size(ys) + 1, lam i: 0.0), zip(generate(size(ys), lam i: size(ys) - i), ys))\n`,
    expected: (xs, t) => {
      const ys = above(xs, t);
      const out = new Array<number>(ys.length + 1).fill(0);
      ys.forEach((y, i) => (out[ys.length - i] += y));
      return { result: out };
    },
  },
  {
    name: 'a map over the input asks the size of a filter of it',
    source: `${header}  ys = filter(lam x: x > t, xs)\n  a = map(lam x: x + f64(size(ys)), xs)\n  return a, reverse(ys)\n`,
    expected: (xs, t) => {
      const ys = above(xs, t);
      return { a: xs.map((x) => x + ys.length), result1: reversed(ys) };
    },
  },
  {
    name: 'a while condition asks the size of a reverse of the carried array',
    source: `${header}  q = filter(lam x: x > t, xs)\n  j = 0\n  while j < size(reverse(q)):\n    q = map(lam z: z + 1.0, q)\n    j = j + 2\n  return q, j\n`,
    expected: (xs, t) => {
      let q = above(xs, t);
      let j = 0;
      for (; j < q.length; j += 2) q = q.map((z) => z + 1);
      return { q, j };
    },
  },
  {
    name: 'an if in a while in an if, each sizing by the array of the enclosing block',
    source: `${header}  if size(xs) > 3:\n    ys = filter(lam x: x > t, xs)\n    while size(ys) > 3:\n      ys = drop(1, ys)\n  else:\n    ys = reverse(xs)\n  k = 0\n  q = ys\n  while k < 2:\n    if size(q) > 0:\n      q = generate(size(q) - 1, lam i: q[i + 1] + f64(size(q)))\n    else:\n      q = q\n    k = k + 1\n  m = size(q)\n  return generate(m, lam i: q[m - 1 - i]), size(ys)\n`,
    expected: (xs, t) => {
      let ys: number[];
      if (xs.length > 3) {
        ys = above(xs, t);
        while (ys.length > 3) ys = ys.slice(1);
      } else ys = reversed(xs);
      let q = ys;
      for (let k = 0; k < 2; k++) if (q.length > 0) q = q.slice(1).map((v) => v + q.length);
      return { result0: reversed(q), result1: ys.length };
    },
  },
  {
    // The zipWith takes its extents from its first input, the filter: its size may be bound
    // before the loop that produces its second input has run (once `"w_3" is not bound`).
    name: 'the size of a zipWith of a filter and a while result, bound before the loop',
    source: `${header}  f = filter(lam x: x > t, xs)\n  w = f\n  k = 0\n  while k < 2:\n    w = map(lam x: x + 1.0, w)\n    k = k + 1\n  m = zipWith(lam a, b: a * b, f, w)\n  s = size(m)\n  return map(lam v: v + f64(s), m)\n`,
    expected: (xs, t) => {
      const f = above(xs, t);
      return { result: f.map((a) => a * (a + 2) + f.length) };
    },
  },
];

const inputs: readonly (readonly [readonly number[], number])[] = [
  [[3, 1, 4, 1, 5, 9, 2, 6], 2.5],
  [[3, 1, 4, 1, 5, 9, 2, 6], -1],
  [[3, 1, 4, 1, 5, 9, 2, 6], 100],
  [[], 0],
  [[7], 0],
];

function plain(out: Output): unknown {
  if (typeof out === 'number') return out;
  if (Array.isArray(out)) return out.map(plain);
  const a = out as { data: ArrayLike<number>; shape: readonly number[] };
  // A fold returned in a tuple is a rank-0 array: compared as its one number.
  if (a.shape.length === 0) return a.data[0];
  return a.shape.length === 1 ? Array.from(a.data) : { data: Array.from(a.data), shape: [...a.shape] };
}

describe.each(backends)('$name back end', (config) => {
  describe('extents known only at run time, asked everywhere', () => {
    test.each(cases.map((c) => [c.name, c] as const))('%s: the interpreter and every strategy compute the plain TypeScript values', async (_, c) => {
      const program = compile(c.source, { fileName: 'dynamic.fuse', ...config.api });
      for (const [xs, t] of inputs) {
        if (c.skip?.(xs) === true) continue;
        const expected = c.expected(xs, t);
        const args: Record<string, Input> = { xs: new Float64Array(xs), ts: new Float64Array([t]) };
        for (const mode of ['interpreter', ...strategies] as const) {
          const run = await program.run(args, mode === 'interpreter' ? { interpret: true } : { strategy: mode, timeLimitSeconds: 5 });
          const got = Object.fromEntries(Object.entries(run).map(([k, v]) => [k, plain(v)]));
          expect(got, `${mode} on xs = [${xs.join(', ')}], t = ${t}`).toEqual(expected);
        }
      }
    });

    test('inputs of different run-time sizes fail with the interpreter E403 in every strategy, also when the size is asked first', async () => {
      const source = `${header}  f = filter(lam x: x > t, xs)\n  w = f\n  k = 0\n  while k < 2:\n    w = filter(lam x: x > t + 1.0, w)\n    k = k + 1\n  m = zipWith(lam a, b: a * b, f, w)\n  s = size(m)\n  return map(lam v: v + f64(s), m)\n`;
      const program = compile(source, { fileName: 'dynamic.fuse', ...config.api });
      const args: Record<string, Input> = { xs: new Float64Array([3, 1, 4, 1, 5, 9, 2, 6]), ts: new Float64Array([2.5]) };
      const failure = async (options: Parameters<typeof program.run>[1]): Promise<string> => {
        try {
          await program.run(args, options);
          return 'no error';
        } catch (err) {
          return err instanceof UserError ? err.diagnostics.map((d) => `${d.code} ${d.message} at ${d.span?.start}-${d.span?.end}`).join('; ') : String(err);
        }
      };
      const expected = await failure({ interpret: true });
      expect(expected).toMatch(/^E403 map: shapes \[5\] and \[4\] differ/);
      for (const strategy of strategies) expect(await failure({ strategy }), strategy).toBe(expected);
    });

    test('an i32 filter reversed (issue 9, C1), in every strategy', async () => {
      const program = compile('def main(is: i32[n]):\n  w = filter(lam p: p > 0, is)\n  return reverse(w)\n', { ...config.api });
      const is = [-5, 3, 0, 2, -1, 4, 4, -3, 1, 5];
      for (const strategy of strategies) {
        const { result } = await program.run({ is: new Int32Array(is) }, { strategy });
        expect(plain(result!), strategy).toEqual(reversed(is.filter((p) => p > 0)));
      }
    });
  });
});
