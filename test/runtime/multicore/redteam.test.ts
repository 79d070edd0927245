// The red team's attack on the multicore back end (issue 12): programs and uses chosen to break
// it — fusions that mix schedules in one cluster, seeds, tuple and rank-2 scans, scatters inside
// loops and after `if`, chunk edges, type limits, faults in several chunks — each run end to end
// on the real thread pool at threads 1, 2, 3 and several chunk lengths against the js back end
// (redteamHarness.ts `check`).

import { describe, it } from 'vitest';
import { arr, check, sc } from './redteamHarness.js';

const n = 37;
const f = (i: number): number => ((i * 7919) % 101) / 8 - 5;
const wide = (i: number): number => Math.sin(i * 12.9898) * 10 ** ((i % 7) - 3);

describe('red team: fusions and schedules', () => {
  it('scanr exclusive fused with a fold of its input (i32 wrap)', async () => {
    await check('def main(xs):\n  return scanr(+, 3, xs), fold(*, 1, xs), fold(+, 2147483000, xs)\n', {
      xs: arr('i32', [n], (i) => 2147483000 - i * 977),
    });
  });

  it('tuple scanr with min and + (non-neutral seed) and a tuple inclusive scanl', async () => {
    await check(
      'def main(xs, ys):\n  a = scanr(lam (p, q), (x, y): (min(p, x), q + y), (100, 0), zip(xs, ys))\n  b = scanl(lam (p, q), (x, y): (max(p, x), q * y), zip(xs, ys))\n  return a, b\n',
      { xs: arr('i32', [n], (i) => ((i * 31) % 23) - 11), ys: arr('i32', [n], (i) => (i % 3) + 1) },
    );
  });

  it('swapped operators in folds and scans (lam a, x: x + a)', async () => {
    await check(
      'def main(xs, bs):\n  return scanl(lam a, x: x + a, 5, xs), scanr(lam a, x: x * a, xs), fold(lam a, x: x and a, true, bs), scanl(lam a, x: x or a, bs)\n',
      { xs: arr('i32', [n], (i) => i * 3 - 50), bs: arr('bool', [n], (i) => (i % 5 === 3 ? 1 : 0)) },
    );
  });

  it('u32 folds and scans that wrap; min and max of u32 without a seed', async () => {
    await check('def main(xs):\n  return fold(+, xs), fold(*, xs), minimum(xs), maximum(xs), scanl(+, u32(7), xs)\n', {
      xs: arr('u32', [n], (i) => 4294967295 - i * 1234567),
    });
  });

  it('f32 folds and scans (Math.fround every step)', async () => {
    await check('def main(xs):\n  return fold(+, xs), fold(*, f32(1.0), xs), scanl(+, xs), scanr(max, xs)\n', {
      xs: arr('f32', [n], (i) => Math.fround(1 + wide(i) / 100)),
    });
  });

  it('min and max folds and scans with NaN and -0', async () => {
    await check('def main(xs):\n  return minimum(xs), maximum(xs), scanl(min, xs), scanr(max, xs), fold(min, 0.0, xs), fold(max, -0.0, xs)\n', {
      xs: arr('f64', [n], (i) => (i === 11 ? NaN : i % 4 === 0 ? -0 : i % 4 === 1 ? 0 : f(i))),
    }, { exact: true });
    await check('def main(xs):\n  return minimum(xs), maximum(xs), fold(min, 0.0, xs), fold(max, -0.0, xs)\n', {
      xs: arr('f64', [n], (i) => (i % 2 === 0 ? -0 : 0)),
    }, { exact: true });
  });

  it('bool folds with and/or, empty and full', async () => {
    for (const m of [0, 1, 2, n]) {
      await check('def main(bs):\n  return fold(and, bs), fold(or, bs), fold(and, false, bs), fold(or, true, bs), scanl(and, true, bs)\n', {
        bs: arr('bool', [m], (i) => (i === m - 1 ? 0 : 1)),
      });
    }
  });

  it('a rank-2 scan both ways, fused with a row fold', async () => {
    await check('def main(a):\n  s = scanl(+, 1, a)\n  r = scanr(max, a)\n  return s, r, fold(+, s)\n', { a: arr('i32', [9, 7], (i) => ((i * 13) % 17) - 8) });
    await check('def main(a):\n  s = scanl(+, a)\n  return s, fold(+, map(lam x: x * 2.0, s))\n', { a: arr('f64', [5, 11], f) });
  });

  it('a scan of a scan in one cluster (was: phase 1 aggregated the inner scan without its carry — wrong carries)', async () => {
    // Found by the fuzzer's program 78 of seed 7: `is = scanr(+, 2, is)` twice gave [5, 2] for [4, 2].
    await check('def main(is):\n  a = scanr(+, 2, is)\n  return scanr(+, 2, a)\n', { is: arr('i32', [2], (i) => [5, 3][i]!) });
    await check('def main(is):\n  a = scanl(+, is)\n  return scanl(+, a), scanl(+, 1, scanl(*, 1, a))\n', { is: arr('i32', [n], (i) => (i % 7) - 3) });
    await check('def main(xs):\n  return scanl(max, map(lam s: s * 0.5 - 1.0, scanl(+, xs))), fold(+, scanr(+, 0.5, scanr(min, xs)))\n', { xs: arr('f64', [n], f) });
  });

  it('a float scatter fused with a map and a whole fold (was: a reduce whose threads raced on the scatter’s plain updates)', async () => {
    // The reduce schedule applied a colliding scatter's updates unsynchronised from every
    // thread: 200000 updates into 5 bins lost most of them (11427.75 for 35000).
    const m = 200_000;
    await check('def main(is, xs):\n  ys = map(lam x: x * 2.0, xs)\n  return ys, scatter(+, generate(5, lam i: 0.0), zip(is, ys)), fold(+, ys)\n', {
      is: arr('i32', [m], (i) => i % 5),
      xs: arr('f64', [m], (i) => (i % 8) / 8),
    }, { chunks: [1000], threads: [2, 3] });
    await check('def main(is, xs):\n  return scatter(lam o, v: v, generate(5, lam i: 0.0), zip(is, xs)), fold(max, xs)\n', {
      is: arr('i32', [n], (i) => (i * 3) % 5),
      xs: arr('f64', [n], f),
    });
  });

  it('a gather whose index comes from a scan in the same cluster', async () => {
    await check('def main(steps, xs):\n  is = scanl(+, 0, steps)\n  return gather(is, xs), fold(+, gather(is, xs))\n', {
      steps: arr('i32', [n], (i) => i % 2),
      xs: arr('f64', [n], f),
    });
  });

  it('a scatter whose index array is computed in the same cluster (i32 atomic, f64 owner)', async () => {
    await check('def main(is, vs):\n  return scatter(+, generate(5, lam i: 0), zip(map(lam i: (i * 3) % 5, is), vs))\n', {
      is: arr('i32', [n], (i) => i),
      vs: arr('i32', [n], (i) => 2147483600 + i),
    });
    await check('def main(is, vs):\n  return scatter(+, generate(5, lam i: 0.5), zip(map(lam i: (i * 3) % 5, is), vs))\n', {
      is: arr('i32', [n], (i) => i),
      vs: arr('f64', [n], wide),
    }, { exact: true });
  });

  it('atomic scatters on bool (and, or), i32 min/max and old - new', async () => {
    await check(
      'def main(is, vs, b, c):\n  p = scatter(and, b, zip(is, map(lam v: v > 0, vs)))\n  q = scatter(or, c, zip(is, map(lam v: v > 5, vs)))\n  r = scatter(lam o, v: o - v, generate(6, lam i: i), zip(is, vs))\n  return p, q, r, scatter(min, generate(6, lam i: 100), zip(is, vs))\n',
      {
        is: arr('i32', [n], (i) => (i * 5) % 6),
        vs: arr('i32', [n], (i) => (i % 9) - 2),
        b: arr('bool', [6], () => 1),
        c: arr('bool', [6], () => 0),
      },
    );
  });

  it('a scatter into a while-carried array (atomic and owner), with the loop count 0, 1, 3', async () => {
    for (const k of [0, 1, 3]) {
      await check('def main(d, is, vs, k):\n  i = 0\n  while i < k:\n    d = scatter(+, d, zip(is, vs))\n    i = i + 1\n  return d\n', {
        d: arr('i32', [7], (i) => i),
        is: arr('i32', [n], (i) => (i * 3) % 7),
        vs: arr('i32', [n], (i) => i - 10),
        k: sc('i32', k),
      });
      await check('def main(d, is, vs, k):\n  i = 0\n  while i < k:\n    d = scatter(lam o, v: o * 0.5 + v, d, zip(is, map(lam v: v + f64(i), vs)))\n    i = i + 1\n  return d, fold(+, d)\n', {
        d: arr('f64', [7], (i) => i),
        is: arr('i32', [n], (i) => (i * 3) % 7),
        vs: arr('f64', [n], f),
        k: sc('i32', k),
      });
    }
  });

  it('filter after an if, filter of a filter, filter of tuples, filter in a while', async () => {
    const xs = arr('f64', [n], f);
    await check('def main(xs, t):\n  if t > 0:\n    ys = map(lam x: x + 1.0, xs)\n  else:\n    ys = map(lam x: x - 1.0, xs)\n  return filter(lam y: y > 0.0, ys)\n', { xs, t: sc('i32', 1) });
    await check('def main(xs):\n  return filter(lam x: x < 3.0, filter(lam x: x > -2.0, xs))\n', { xs });
    await check('def main(xs, is):\n  return filter(lam (x, i): x > 0.0 and i % 2 == 0, zip(xs, is))\n', { xs, is: arr('i32', [n], (i) => i) });
    await check('def main(xs):\n  i = 0\n  while size(xs) > 3 and i < 5:\n    xs = filter(lam x: x > -4.0 + f64(i), xs)\n    i = i + 1\n  return xs, sum(xs)\n', { xs });
  });

  it('nested per-axis loops with a fold inside; jam remainders at chunk edges', async () => {
    for (const rows of [1, 2, 3, 4, 5, 6, 7, 9]) {
      await check('def main(a):\n  b = generate(shape(a), lam i, j: a[i, j] * 2.0 + f64(i - j))\n  return fold(+, b), fold(max, transpose(b))\n', {
        a: arr('f64', [rows, 6], f),
      }, { exact: true });
    }
  });

  it('extents 0, 1 and chunk length ± 1', async () => {
    for (const m of [0, 1, 2, 3, 4, 6, 7, 8, 13, 14, 15]) {
      await check('def main(xs):\n  ys = scanl(+, xs)\n  return ys, fold(+, 1, xs), scanr(+, 2, xs), filter(lam x: x % 3 != 0, xs)\n', {
        xs: arr('i32', [m], (i) => i * 7 - 20),
      }, { chunks: [1, 2, 3, 7] });
    }
  });
});

describe('red team: more shapes that held up', () => {
  const m = 29;
  const cases: [string, string, Record<string, ReturnType<typeof arr>>][] = [
    ['rank-0 maps after whole folds', 'def main(xs):\n  return map(lam s: s * 2.0 + 1.0, fold(+, xs)), map(lam m: m > 0.0, fold(max, xs))\n', { xs: arr('f64', [m], f) }],
    [
      'tuple folds mixing i32 and bool components',
      'def main(is, bs):\n  return fold(lam (a, b), (x, y): (a + x, b and y), (3, true), zip(is, bs)), fold(lam (a, b), (x, y): (min(a, x), b or y), (100, false), zip(is, bs))\n',
      { is: arr('i32', [m], (i) => i - 9), bs: arr('bool', [m], (i) => (i % 4 === 0 ? 0 : 1)) },
    ],
    [
      'folds and scans of row folds',
      'def main(a):\n  return fold(+, fold(+, a)), scanl(+, fold(max, a)), fold(*, 1, scanl(max, fold(min, a)))\n',
      { a: arr('i32', [m, 5], (i) => ((i * 37) % 19) - 9) },
    ],
    ['folds of an exclusive scan', 'def main(xs):\n  s = scanl(+, 5, xs)\n  return fold(+, 7, s), fold(min, s), fold(max, 0 - 100, map(lam x: x * x, s))\n', { xs: arr('i32', [m], (i) => i - 14) }],
    ['infinities in min and max folds', 'def main(xs):\n  return fold(max, map(lam x: x, xs)), fold(min, inf, xs), fold(max, 0.0 - inf, xs)\n', { xs: arr('f64', [m], (i) => (i === 3 ? Infinity : i === 9 ? -Infinity : f(i))) }],
    [
      'scans with swapped lambdas and seeds',
      'def main(xs):\n  return scanl(lam a, x: max(x, a), 0 - 1000, xs), scanr(lam a, x: min(a, x), 1000, xs), scanl(lam a, x: a * x, 1, map(lam x: 1 + x % 2, xs))\n',
      { xs: arr('i32', [m], (i) => ((i * 37) % 19) - 9) },
    ],
    ['row folds over fused scanr (row buffers on workers)', 'def main(a):\n  return fold(+, scanr(+, a)), fold(max, scanr(min, 5.0, a))\n', { a: arr('f64', [7, 9], f) }],
    [
      'tuple scatters: f64 owner, i32 atomic',
      'def main(is, xs, ys):\n  return scatter(lam (a, b), (x, y): (a + x, max(b, y)), zip(generate(5, lam i: 0.0), generate(5, lam i: 0 - 100)), zip(is, zip(xs, ys))), scatter(lam (a, b), (x, y): (a + x, max(b, y)), zip(generate(5, lam i: 0), generate(5, lam i: 0 - 100)), zip(is, zip(ys, ys)))\n',
      { is: arr('i32', [m], (i) => (i * 3) % 5), xs: arr('f64', [m], f), ys: arr('i32', [m], (i) => i % 7) },
    ],
    [
      'a rank-2 scatter (owner), one index out of range',
      'def main(a, is, js, vs):\n  return scatter(+, map(lam x: f64(x), a), zip(zip(is, js), vs))\n',
      { a: arr('i32', [3, 4], (i) => i), is: arr('i32', [m], (i) => i % 3), js: arr('i32', [m], (i) => (i === 20 ? 4 : (i * 7) % 4)), vs: arr('f64', [m], f) },
    ],
  ];
  it.each(cases)('%s', async (_name, source, inputs) => {
    await check(source, inputs);
  });
});

describe('red team: f32 seeds (rounded once, as the sequential module rounds them)', () => {
  it('scans and folds with f32 seeds, literal and input', async () => {
    const xs = arr('f32', [9], (i) => Math.fround(i * 0.37 - 1));
    await check('def main(xs):\n  return scanl(+, f32(0.1), xs), scanr(*, f32(1.1), xs), fold(+, f32(0.1), xs), fold(max, f32(0.3), xs)\n', { xs }, { chunks: [1, 2, 4, undefined] });
    await check('def main(xs, c):\n  return scanl(+, c, xs), fold(+, c, xs)\n', { xs, c: sc('f32', Math.fround(0.1)) }, { chunks: [1, 2, 4, undefined] });
  });
});

describe('red team: long loops (where threads race)', () => {
  const m = 50_003;
  const cases: [string, string, Record<string, ReturnType<typeof arr>>][] = [
    [
      'atomic scatters (i32 +, max; bool or) into 7 bins',
      'def main(is, vs):\n  return scatter(+, generate(7, lam i: 0), zip(is, vs)), scatter(max, generate(7, lam i: 0), zip(is, vs)), scatter(or, generate(7, lam i: false), zip(is, map(lam v: v > 50, vs)))\n',
      { is: arr('i32', [m], (i) => (i * 13) % 7), vs: arr('i32', [m], (i) => i % 101) },
    ],
    ['an overwrite scatter (owner split)', 'def main(is, xs):\n  return scatter(lam o, v: v, generate(7, lam i: 0.0), zip(is, xs))\n', { is: arr('i32', [m], (i) => (i * 13) % 7), xs: arr('f64', [m], f) }],
    [
      'a float scatter beside a map (owner split in two calls)',
      'def main(is, xs):\n  ys = map(lam x: x + 1.0, xs)\n  return ys, scatter(+, generate(7, lam i: 0.0), zip(is, ys))\n',
      { is: arr('i32', [m], (i) => (i * 13) % 7), xs: arr('f64', [m], f) },
    ],
    ['scans, a fold and a filter of a scan', 'def main(xs):\n  s = scanl(+, 3, xs)\n  return s, scanr(max, xs), fold(+, s), filter(lam x: x % 3 == 0, s)\n', { xs: arr('i32', [m], (i) => (i % 17) - 8) }],
    [
      'a scatter into a while-carried array',
      'def main(d, is, vs, k):\n  i = 0\n  while i < k:\n    d = scatter(+, d, zip(is, vs))\n    d = map(lam x: x * 0.5, d)\n    i = i + 1\n  return d\n',
      { d: arr('f64', [64], (i) => i), is: arr('i32', [m], (i) => (i * 13) % 64), vs: arr('f64', [m], f), k: sc('i32', 3) },
    ],
    ['a gather by a scan', 'def main(steps, xs):\n  is = scanl(+, 0, steps)\n  return gather(is, xs)\n', { steps: arr('i32', [m], (i) => i % 2), xs: arr('f64', [m], f) }],
  ];
  it.each(cases)('%s', async (_name, source, inputs) => {
    await check(source, inputs, { chunks: [1000, undefined], threads: [2, 3], exact: true });
  }, 300_000);
});

describe('red team: faults', () => {
  it('two chunks fault: the sequential first fault is reported (gather, division)', async () => {
    await check('def main(is, xs, ds):\n  a = gather(is, xs)\n  b = map(lam d: 100 // d, ds)\n  return a, b\n', {
      is: arr('i32', [n], (i) => (i === 30 ? 99 : i === 5 ? -1 : i % 10)),
      xs: arr('f64', [10], f),
      ds: arr('i32', [n], (i) => (i === 20 ? 0 : 1)),
    });
    await check('def main(is, xs, ds):\n  a = gather(is, xs)\n  b = map(lam d: 100 // d, ds)\n  return fold(+, a), fold(+, b)\n', {
      is: arr('i32', [n], (i) => (i === 30 ? 99 : i % 10)),
      xs: arr('f64', [10], f),
      ds: arr('i32', [n], (i) => (i === 20 || i === 3 ? 0 : 1)),
    });
  });

  it('an owner-split scatter with an index out of range and a value that faults', async () => {
    // Element 3's value faults (10 // 0), element 7's index is out of range: the sequential run meets element 3 first.
    await check('def main(is, vs):\n  return scatter(+, generate(5, lam i: 0.0), zip(is, map(lam v: f64(10 // v), vs)))\n', {
      is: arr('i32', [n], (i) => (i === 7 ? 5 : i % 5)),
      vs: arr('i32', [n], (i) => (i === 3 ? 0 : 1)),
    });
    // The other way round.
    await check('def main(is, vs):\n  return scatter(+, generate(5, lam i: 0.0), zip(is, map(lam v: f64(10 // v), vs)))\n', {
      is: arr('i32', [n], (i) => (i === 3 ? -1 : i % 5)),
      vs: arr('i32', [n], (i) => (i === 7 ? 0 : 1)),
    });
    // Overwrite, index of element 20 out of range, element 2's value faults.
    await check('def main(is, vs):\n  return scatter(lam o, v: v, generate(5, lam i: 0.0), zip(is, map(lam v: f64(10 // v), vs)))\n', {
      is: arr('i32', [n], (i) => (i === 20 ? 5 : (i * 2) % 5)),
      vs: arr('i32', [n], (i) => (i === 2 ? 0 : 1)),
    });
  });

  it('an owner-split scatter into an empty destination from a non-empty source: E402 as js (was: an empty result)', async () => {
    await check('def main(is, vs, m):\n  return scatter(+, generate(m, lam i: 0.0), zip(is, vs))\n', {
      is: arr('i32', [5], (i) => i),
      vs: arr('f64', [5], (i) => i),
      m: sc('i32', 0),
    });
    await check('def main(is, vs, m):\n  return scatter(lam o, v: v, generate(m, lam i: 0.0), zip(is, vs))\n', {
      is: arr('i32', [0], (i) => i),
      vs: arr('f64', [0], (i) => i),
      m: sc('i32', 0),
    });
  });

  it('an owner-split scatter whose combine faults before a later index is out of range (was: the index fault)', async () => {
    // Found by the fuzzer (seed 11, programs 243 and 519): only the owner of an index applied the
    // combine, while every call checked every index, so chunk 0 met element 1's bad index before
    // element 0's division by zero, which the sequential run meets first.
    await check('def main(is, vs):\n  return scatter(lam o, w: w // o, is, zip(map(lam v: v + 1, vs), vs))\n', {
      is: arr('i32', [2], () => 0),
      vs: arr('i32', [2], (i) => i),
    });
    await check('def main(d, is, xs):\n  return scatter(lam o, w: o + xs[i32(w)], d, zip(is, map(lam x: x * 2.0, xs)))\n', {
      d: arr('f64', [5], (i) => i),
      is: arr('i32', [n], (i) => (i === 20 ? 9 : (i * 3) % 5)),
      xs: arr('f64', [n], (i) => (i === 6 ? 100 : i % 10)),
    });
  });

  it('a fault in a scanr cluster, whose loop runs right to left (was: the lowest chunk’s fault, not the highest)', async () => {
    // Found by the fuzzer (seed 31, program 2462): gather(scanr(…), ys) with every index out of
    // range: the sequential loop runs right to left and meets the last position first.
    await check('def main(is, ys):\n  return gather(scanr(+, 6, is), ys)\n', {
      is: arr('i32', [5], (i) => [1, 1, 0, 0, 0][i]!),
      ys: arr('f64', [0], () => 0),
    });
    await check('def main(is, ds):\n  s = scanr(+, is)\n  return map(lam x, d: x // d, zip(s, ds))\n', {
      is: arr('i32', [n], (i) => i),
      ds: arr('i32', [n], (i) => (i === 3 || i === 30 ? 0 : 1)),
    });
  });

  it('an atomic scatter with an index out of range and a value that faults', async () => {
    await check('def main(is, vs):\n  return scatter(+, generate(5, lam i: 0), zip(is, map(lam v: 10 // v, vs)))\n', {
      is: arr('i32', [n], (i) => (i === 30 ? 5 : i % 5)),
      vs: arr('i32', [n], (i) => (i === 31 || i === 2 ? 0 : 1)),
    });
  });

  it('a fault in a scan fused with a fold', async () => {
    await check('def main(ds):\n  s = scanl(+, map(lam d: 100 // d, ds))\n  return s, fold(+, s)\n', { ds: arr('i32', [n], (i) => (i === 25 || i === 9 ? 0 : 1)) });
  });

  it('E405 in a while whose body has parallel clusters', async () => {
    const src = 'def main(xs):\n  i = 0\n  while i >= 0:\n    xs = map(lam x: x + 1.0, xs)\n    i = i + 1\n  return xs\n';
    const { prepare, multicore, outcome } = await import('./redteamHarness.js');
    const p = await prepare(src, { xs: arr('f64', [n], f) });
    const { expect } = await import('vitest');
    for (const threads of [2, 3]) {
      const exe = await multicore(p, threads, { maxWhileIterations: 5 });
      const got = await outcome(exe, p.ordered);
      expect(String(got.error)).toContain('E405');
      exe.dispose();
    }
  });
});
