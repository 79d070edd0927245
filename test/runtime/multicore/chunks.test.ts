// Chunk boundaries: with the fork threshold at 0 and chunks of 1, 2 and 3 iterations, every
// shared example and a set of scan, fold and filter programs (tuples, rows, fused folds, loops,
// branches, atomic and owner-split scatters) give the interpreter's values on 2 and 3 threads, at
// lengths 0, 1, 2, 3, 7 and 13 (not multiples of the chunk: a last short chunk, and chunks that
// end mid-row). Floats may regroup across chunks (within a relative 1e-9 here: the values are
// a few units, the sums short); integers and bools are exact.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'vitest';
import { Compiler } from '../../../src/driver/index.js';
import type { InterfaceValue } from '../../../src/ir/values.js';
import type { EntryParamType } from '../../../src/lower/index.js';
import type { ScalarType } from '../../../src/ir/types.js';
import { allocate } from '../../../src/ir/scalarOps.js';
import { compileOn, runOn } from '../backends.js';
import { expectCloseValues } from '../equal.js';
import { mc, prepare, reference, uniform } from './harness.js';

const repo = join(import.meta.dirname, '..', '..', '..');
const examples = ['backpermute', 'gather', 'greedyBottomUpBad', 'greedyTopDownBad', 'reverse', 'scatterExample', 'simple1', 'simple2', 'simple3', 'simple4', 'simple5', 'singleLoop'];

const programs: Readonly<Record<string, string>> = {
  filter: 'def main(xs: f64[n]):\n  return filter(lam x: x > 0.0, xs)\n',
  'filter, its sum and size': 'def main(xs: f64[n]):\n  ys = filter(lam x: x < 1.0, xs)\n  return fold(+, ys), size(ys), scanl(+, ys)\n',
  'filter of tuples': 'def main(xs: f64[n], is: i32[n]):\n  return unzip(filter(lam p: snd(p) % 2 == 0, zip(xs, is)))\n',
  'filter in an if and a while': 'def main(xs: f64[n], is: i32[n]):\n  ys = xs\n  k = 0\n  while k < 3:\n    ys = filter(lam x: x > -2.0 + k, ys)\n    k = k + 1\n  if size(ys) > 2:\n    zs = filter(lam x: x < 2.0, ys)\n  else:\n    zs = ys\n  return zs\n',
  'scans f64': 'def main(xs: f64[n]):\n  return scanl(+, xs), scanl(+, 1.5, xs), scanr(+, xs), scanr(*, 1.0, xs)\n',
  'scans i32 and bool': 'def main(is: i32[n]):\n  return scanl(+, is), scanr(max, -7, is), scanl(or, map(lam i: i % 3 == 0, is)), fold(lam a, b: a + b * 1, 0, map(lam i: i - 1, is))\n',
  'scan of pairs': 'def main(xs: f64[n], is: i32[n]):\n  return scanl(lam p, q: (fst(p) + fst(q), max(snd(p), snd(q))), zip(xs, is))\n',
  'scans and folds along rows': 'def main(m: f64[r, c]):\n  return scanl(+, m), scanr(max, m), fold(+, m), fold(min, scanl(+, m))\n',
  'fold fused with a scan': 'def main(xs: f64[n], is: i32[n]):\n  ys = scanl(+, map(lam x: x * 2.0, xs))\n  return fold(max, ys), fold(+, ys), fold(+, is), fold(*, map(lam i: i + 1, is))\n',
  'scans of scans (fused: a scan whose input is another scan)': 'def main(xs: f64[n], is: i32[n]):\n  return scanl(+, scanl(+, is)), scanr(+, 0, scanr(+, 0, is)), scanl(+, 0.5, scanl(+, xs)), scanl(max, scanl(+, is))\n',
  'scan in a while': 'def main(is: i32[n]):\n  k = 0\n  ys = is\n  while k < 3:\n    ys = scanl(+, ys)\n    k = k + 1\n  return ys\n',
  'scatter atomic and owner-split': 'def main(xs: f64[n], is: i32[n]):\n  h = scatter(+, generate(5, lam i: 0), zip(map(lam i: i % 5, is), generate(size(is), lam i: 1)))\n  f = scatter(+, generate(5, lam i: 0.0), zip(map(lam i: i % 5, is), xs))\n  o = scatter(lam a, b: b, generate(5, lam i: -1.0), zip(map(lam i: i % 5, is), xs))\n  return h, f, o\n',
};

const lengths = [0, 1, 2, 3, 7, 13];
const chunkLengths = [1, 2, 3];
const threads = [2, 3];

/** Deterministic inputs for an entry's parameter types: arrays of `length` (rows of 3 for rank 2), indices in range. */
function inputsFor(types: Readonly<Record<string, EntryParamType>>, length: number, seed: number, positive = false): Record<string, InterfaceValue> {
  const r = uniform(seed);
  const scalar = (t: ScalarType): number => (t === 'f64' || t === 'f32' ? Math.round(r() * 16 - 4) / 4 : t === 'bool' ? (r() < 0.5 ? 1 : 0) : 2 + Math.floor(r() * 3));
  const out: Record<string, InterfaceValue> = {};
  for (const [name, t] of Object.entries(types)) {
    if (t.kind === 'scalar') {
      out[name] = { kind: 'scalar', elem: t.elem, value: scalar(t.elem) };
      continue;
    }
    const shape = t.rank === 1 ? [length] : [length, ...Array.from({ length: t.rank - 1 }, () => 3)];
    const count = shape.reduce((a, b) => a * b, 1);
    const leaves = Array.isArray(t.elem) ? (t.elem as readonly ScalarType[]) : [t.elem as ScalarType];
    const comps = leaves.map((elem) => {
      const data = allocate(elem, count);
      // i32 entries are indices into arrays of `length` (gathers, scatters) where length > 0.
      for (let i = 0; i < count; i++) data[i] = elem === 'i32' ? Math.floor(r() * Math.max(1, length)) : elem === 'f64' || elem === 'f32' ? Math.round((r() * 8 - (positive ? 0 : 2)) * 64) / 64 : scalar(elem);
      return { kind: 'array' as const, elem, shape, data };
    });
    out[name] = comps.length === 1 ? comps[0]! : comps;
  }
  return out;
}

async function checkProgram(source: string, seed: number, positive = false): Promise<void> {
  const types = new Compiler(source, { backend: 'js', threads: 1 }).parameterTypes();
  for (const length of lengths) {
    const p = await prepare(source, inputsFor(types, length, seed + length, positive));
    const want = reference(p);
    for (const t of threads) {
      for (const chunkLength of chunkLengths) {
        const c = mc(t, { chunkLength });
        const got = (await runOn(c, p.program, p.plan, p.inputs, { file: p.file })).results;
        expectCloseValues(got, want, `${c.name}, length ${length}`, { rel: 1e-9, abs: 1e-12 });
      }
    }
  }
}

describe('chunks of 1, 2 and 3 iterations on 2 and 3 threads equal the interpreter', () => {
  test.each(examples)('example %s', async (name) => {
    const source = readFileSync(join(repo, 'examples', `${name}.fuse`), 'utf8');
    // scatterExample indexes with its f64 values: keep them positive (a negative index is E402).
    await checkProgram(source, 11, true);
  });

  test.each(Object.keys(programs))('%s', async (name) => {
    await checkProgram(programs[name]!, 101);
  });

  test('one executable runs again and again (new values each time, the same shapes) and stays right', async () => {
    const source = programs['filter, its sum and size']!;
    const types = new Compiler(source, { backend: 'js', threads: 1 }).parameterTypes();
    const first = await prepare(source, inputsFor(types, 13, 5));
    const exe = await compileOn(mc(2, { chunkLength: 2 }), first.program, first.plan, { file: first.file });
    try {
      for (let k = 0; k < 4; k++) {
        const p = k === 0 ? first : { ...first, inputs: (await prepare(source, inputsFor(types, 13, 5 + k))).inputs };
        expectCloseValues((await exe.run(p.inputs)).results, reference(p), `run ${k}`, { rel: 1e-9, abs: 1e-12 });
      }
    } finally {
      exe.dispose();
    }
  });
});
