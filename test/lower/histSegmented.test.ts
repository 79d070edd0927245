// `hist`, `scatterDrop` and the segmented reductions `scanlSeg`, `scanrSeg`, `foldSeg`
// (prelude, docs/LANGUAGE.md §4), checked against values computed here with plain loops from
// their documented meaning: in the interpreter and every strategy, and on every back end
// configuration with tiny chunks, so that segments straddle the chunks of a parallel scan.

import { describe, expect, test } from 'vitest';
import { compile, type Input } from '../../src/index.js';
import { backends } from '../runtime/backends.js';
import { rejectionOf } from '../util/userErrors.js';
import { plain, runAllModes } from './modes.js';
import { chance, pick, seededRng } from '../util/rng.js';

type Inputs = Readonly<Record<string, Input>>;

/** Every result of every mode and back end equals `expected` (result name → plain values). */
async function expectEverywhere(src: string, inputs: Inputs, expected: Readonly<Record<string, unknown>>): Promise<void> {
  const runs: Record<string, Record<string, unknown>> = {};
  for (const [mode, r] of Object.entries(await runAllModes(src, inputs))) runs[mode] = r;
  for (const config of backends) {
    // Chunks of 3 elements: a segmented scan's partials are combined across chunks.
    const program = compile(src, { ...config.api, chunkLength: 3 });
    runs[config.name] = await program.run(inputs);
  }
  for (const [mode, r] of Object.entries(runs)) {
    const got = Object.fromEntries(Object.keys(expected).map((k) => [k, plain(r[k] as never)]));
    expect({ mode, got }).toEqual({ mode, got: expected });
  }
}

// ---- independent meanings ----------------------------------------------------------------

function histOf(op: (a: number, b: number) => number, ne: number, bins: number, is: readonly number[], vs: readonly number[]): number[] {
  const out = Array.from({ length: bins }, () => ne);
  is.forEach((i, p) => {
    if (i >= 0 && i < bins) out[i] = op(out[i]!, vs[p]!);
  });
  return out;
}

function scanlSegOf(op: (a: number, b: number) => number, flags: readonly boolean[], xs: readonly number[]): number[] {
  const out: number[] = [];
  xs.forEach((x, i) => out.push(i === 0 || flags[i] ? x : op(out[i - 1]!, x)));
  return out;
}

function scanrSegOf(op: (x: number, acc: number) => number, flags: readonly boolean[], xs: readonly number[]): number[] {
  const out = new Array<number>(xs.length);
  for (let i = xs.length - 1; i >= 0; i--) out[i] = i === xs.length - 1 || flags[i + 1] ? xs[i]! : op(xs[i]!, out[i + 1]!);
  return out;
}

/** Segments laid end to end from 0; negative lengths empty, cut at the end of xs. */
function foldSegOf(op: (a: number, b: number) => number, z: number, xs: readonly number[], lens: readonly number[]): number[] {
  let start = 0;
  return lens.map((l) => {
    const stop = Math.min(xs.length, start + Math.max(l, 0));
    let acc = z;
    for (let i = start; i < stop; i++) acc = op(acc, xs[i]!);
    start = stop;
    return acc;
  });
}

const add = (a: number, b: number): number => a + b;
const addI32 = (a: number, b: number): number => (a + b) | 0;
const i32 = (xs: readonly number[]): Int32Array => Int32Array.from(xs);
const f64 = (xs: readonly number[]): Float64Array => Float64Array.from(xs);
const bools = (xs: readonly boolean[]): Uint8Array => Uint8Array.from(xs, (b) => (b ? 1 : 0));

// ---- hist and scatterDrop ------------------------------------------------------------------

describe('hist', () => {
  const src = 'def main(is: i32[n], vs: f64[n], ks: i32[n]):\n  h = hist(+, 0.0, 5, is, vs)\n  c = hist(+, 0, 5, is, map(lam v: 1, vs))\n  m = hist(max, -inf, 5, ks, vs)\n  k = hist(min, 7, 3, ks, is)\n  return h, c, m, k\n';
  test.each([0, 1, 7, 40])('indices in and out of range, the type limits among them (n = %d)', async (n) => {
    const rng = seededRng(n + 1);
    const pool = [-2147483648, 2147483647, -1, 5, 6, 0, 4];
    const is = Array.from({ length: n }, () => (chance(rng, 0.3) ? pick(rng, pool) : rng.int(0, 4)));
    const ks = Array.from({ length: n }, () => rng.int(-2, 6));
    const vs = Array.from({ length: n }, () => rng.int(-8, 8) * 0.5);
    await expectEverywhere(src, { is: i32(is), vs: f64(vs), ks: i32(ks) }, {
      h: histOf(add, 0, 5, is, vs),
      c: histOf(addI32, 0, 5, is, vs.map(() => 1)),
      m: histOf(Math.max, -Infinity, 5, ks, vs),
      k: histOf(Math.min, 7, 3, ks, is),
    });
  });

  test('zero bins drop every update; a run-time bin count; bins of a 2-D shape', async () => {
    const src = 'def main(is: i32[n], js: i32[n], vs: i32[n], b: i32[k]):\n  none = hist(+, 0, 0, is, vs)\n  dyn = hist(+, 0, b[0], is, vs)\n  grid = hist(+, 100, (2, 3), zip(is, js), vs)\n  return none, dyn, grid\n';
    const is = [0, 1, 1, 2, -1, 0, 1];
    const js = [0, 2, 2, 0, 0, 3, -5];
    const vs = [1, 2, 3, 4, 5, 6, 7];
    const grid = Array.from({ length: 6 }, () => 100);
    is.forEach((i, p) => {
      if (i >= 0 && i < 2 && js[p]! >= 0 && js[p]! < 3) grid[i * 3 + js[p]!]! += vs[p]!;
    });
    await expectEverywhere(src, { is: i32(is), js: i32(js), vs: i32(vs), b: i32([2]) }, { none: [], dyn: histOf(addI32, 0, 2, is, vs), grid });
  });

  test('tuple bins: a count and a sum at once', async () => {
    const src = 'def main(is: i32[n], vs: f64[n]):\n  c, s = unzip(hist(lam a, b: (fst(a) + fst(b), snd(a) + snd(b)), (0, 0.0), 3, is, zip(map(lam v: 1, vs), vs)))\n  return c, s\n';
    const is = [2, 0, 2, 9, 1, 2];
    const vs = [0.5, 1, 2, 4, 8, 16];
    await expectEverywhere(src, { is: i32(is), vs: f64(vs) }, { c: histOf(addI32, 0, 3, is, vs.map(() => 1)), s: histOf(add, 0, 3, is, vs) });
  });

  test('i32 sums wrap; a fault in a dropped value is not observed, in a kept one it is E401', async () => {
    const wrap = 'def main(is: i32[n], vs: i32[n]):\n  return hist(+, 2147483647, 2, is, vs)\n';
    await expectEverywhere(wrap, { is: i32([0, 0, 1]), vs: i32([1, 1, -1]) }, { result: [-2147483647, 2147483646] });
    const src = 'def main(is: i32[n], ds: i32[n]):\n  return hist(+, 0, 2, is, map(lam d: 10 // d, ds))\n';
    await expectEverywhere(src, { is: i32([0, 5, 1]), ds: i32([2, 0, 5]) }, { result: [5, 2] });
    const e = await rejectionOf(compile(src).run({ is: i32([0, 1, 1]), ds: i32([2, 0, 5]) }));
    expect(e.code).toBe('E401');
  });
});

describe('scatterDrop', () => {
  test('drops what is out of range where scatter faults (E402)', async () => {
    const body = (name: string): string => `def main(d: f64[n], is: i32[m], vs: f64[m]):\n  return ${name}(+, d, zip(is, vs))\n`;
    const d = [1, 2, 3];
    const is = [2, -1, 3, 0, 2147483647, -2147483648];
    const vs = [10, 20, 30, 40, 50, 60];
    await expectEverywhere(body('scatterDrop'), { d: f64(d), is: i32(is), vs: f64(vs) }, { result: [41, 2, 13] });
    const e = await rejectionOf(compile(body('scatter')).run({ d: f64(d), is: i32(is), vs: f64(vs) }));
    expect(e.code).toBe('E402');
  });

  test('an index out of range in one dimension of a 2-D destination is dropped, not wrapped into the next row', async () => {
    const src = 'def main(d: i32[r, c], is: i32[m], js: i32[m], vs: i32[m]):\n  return scatterDrop(lam old, new: new, d, zip(zip(is, js), vs))\n';
    const d = { data: i32([0, 0, 0, 0, 0, 0]), shape: [2, 3] };
    await expectEverywhere(src, { d, is: i32([0, 0, 1, 2]), js: i32([3, 1, -1, 0]), vs: i32([7, 8, 9, 6]) }, { result: [0, 8, 0, 0, 0, 0] });
  });
});

// ---- segmented scans and folds -------------------------------------------------------------

describe('scanlSeg and scanrSeg', () => {
  // `first` and `last` are associative but not commutative: they show the order of a segment.
  const src = 'def main(fl: bool[n], xs: i32[n], ys: f64[n]):\n  a = scanlSeg(+, fl, xs)\n  b = scanrSeg(+, fl, xs)\n  c = scanlSeg(max, fl, ys)\n  first = scanlSeg(lam acc, x: acc, fl, xs)\n  last = scanrSeg(lam x, acc: acc, fl, xs)\n  return a, b, c, first, last\n';
  test.each([
    ['empty', 0, 0],
    ['one element, no flag', 1, 0],
    ['no flags', 9, 0],
    ['every flag', 9, 1],
    ['random flags', 17, 0.3],
    ['random flags, long', 70, 0.15],
  ])('%s', async (_name, n, p) => {
    const rng = seededRng(n * 7 + 3);
    const fl = Array.from({ length: n }, () => chance(rng, p));
    const xs = Array.from({ length: n }, () => rng.int(-9, 9));
    const ys = Array.from({ length: n }, () => rng.int(-9, 9) / 4);
    await expectEverywhere(src, { fl: bools(fl), xs: i32(xs), ys: f64(ys) }, {
      a: scanlSegOf(addI32, fl, xs),
      b: scanrSegOf(addI32, fl, xs),
      c: scanlSegOf(Math.max, fl, ys),
      first: scanlSegOf((acc) => acc, fl, xs),
      last: scanrSegOf((_x, acc) => acc, fl, xs),
    });
  });

  test('tuple elements', async () => {
    const src = 'def main(fl: bool[n], xs: i32[n]):\n  s, m = unzip(scanlSeg(lam p, q: (fst(p) + fst(q), max(snd(p), snd(q))), fl, zip(xs, xs)))\n  return s, m\n';
    const fl = [true, false, true, false, false, true];
    const xs = [3, -1, 4, 1, -5, 9];
    await expectEverywhere(src, { fl: bools(fl), xs: i32(xs) }, { s: scanlSegOf(addI32, fl, xs), m: scanlSegOf(Math.max, fl, xs) });
  });
});

describe('foldSeg', () => {
  const src = 'def main(xs: i32[n], lens: i32[k], ys: f64[n]):\n  s = foldSeg(+, 0, xs, lens)\n  m = foldSeg(max, -100, xs, lens)\n  f = foldSeg(+, 0.5, ys, lens)\n  return s, m, f\n';
  test.each([
    ['segments that cover xs', [1, 2, 3, 4, 5, 6], [2, 3, 1]],
    ['empty segments, first, middle and last', [1, 2, 3, 4], [0, 2, 0, 0, 2, 0]],
    ['negative lengths are empty', [1, 2, 3, 4], [-1, 3, -2147483648, 1]],
    ['a segment past the end is cut, later ones are empty', [1, 2, 3, 4, 5], [2, 10, 4]],
    ['lengths that would overflow a sum', [1, 2, 3], [2147483647, 2147483647, 2147483647]],
    ['elements after the last segment are ignored', [1, 2, 3, 4, 5], [1, 1]],
    ['no segments', [1, 2], []],
    ['empty xs', [], [0, 3, -1]],
  ])('%s', async (_name, xs, lens) => {
    const ys = xs.map((x) => x / 4);
    await expectEverywhere(src, { xs: i32(xs), lens: i32(lens), ys: f64(ys) }, {
      s: foldSegOf(addI32, 0, xs, lens),
      m: foldSegOf(Math.max, -100, xs, lens),
      f: foldSegOf(add, 0.5, ys, lens),
    });
  });

  test('random segmentations', async () => {
    const rng = seededRng(11);
    for (let round = 0; round < 3; round++) {
      const n = rng.int(0, 40);
      const xs = Array.from({ length: n }, () => rng.int(-50, 50));
      const lens = Array.from({ length: rng.int(0, 12) }, () => (chance(rng, 0.1) ? rng.int(-3, -1) : rng.int(0, 6)));
      await expectEverywhere(src, { xs: i32(xs), lens: i32(lens), ys: f64(xs.map((x) => x / 8)) }, {
        s: foldSegOf(addI32, 0, xs, lens),
        m: foldSegOf(Math.max, -100, xs, lens),
        f: foldSegOf(add, 0.5, xs.map((x) => x / 8), lens),
      });
    }
  });
});

describe('the plans: inputs fuse with their producers', () => {
  test('a histogram of computed bins and values is one loop after its fill', async () => {
    const src = 'def main(xs: f64[n]):\n  bins = map(lam x: i32(floor(x * 4.0)), xs)\n  ws = map(lam x: x * x, xs)\n  return hist(+, 0.0, 4, bins, ws)\n';
    const p = await compile(src).plan({ xs: f64([0.1, 0.5, 0.9]) });
    // The fill of the bins, then one loop computing each bin and value and updating the bins
    // in place: neither the bin numbers nor the values are ever in memory.
    expect(p.clusters.map((c) => c.ids.length)).toEqual([1, 3]);
    const manifest = p.clusters.flatMap((c) => c.manifest);
    expect(manifest).not.toContain('bins');
    expect(manifest).not.toContain('ws');
  });

  test('a segmented scan of a map is one loop', async () => {
    const src = 'def main(fl: bool[n], xs: f64[n]):\n  return scanlSeg(+, fl, map(lam x: x * 2.0, xs))\n';
    const p = await compile(src).plan({ fl: bools([true, false]), xs: f64([1, 2]) });
    expect(p.clusters).toHaveLength(1);
  });
});

describe('errors', () => {
  test('a rank-2 input to a segmented scan, and flags that are not bools, are located errors', async () => {
    const rank2 = await rejectionOf(compile('def main(fl: bool[n, m], xs: f64[n, m]):\n  return foldSeg(+, 0.0, xs, fl)\n').run({ fl: { data: bools([true]), shape: [1, 1] }, xs: { data: f64([1]), shape: [1, 1] } }));
    expect(rank2.code).toBe('E304');
    expect(rank2.message).toContain("'foldSeg' needs arrays of rank 1");
    const notBool = await rejectionOf(compile('def main(fl: i32[n], xs: f64[n]):\n  return scanlSeg(+, fl, xs)\n').run({ fl: i32([1]), xs: f64([1]) }));
    expect(notBool.code).toBe('E301');
    expect(notBool.diagnostics[0]!.notes).toContain("in the prelude's 'scanlSeg' (docs/LANGUAGE.md §4 gives its argument types)");
  });
});
