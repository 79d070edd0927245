// Folds next to fused scans (issue 9, C5). A fused scanr runs its row loop right to left; a
// fold that shares that row must then fold a row buffer left to right. When the fold reached
// the row first (`map(f, fold(+, m), fold(+, scanr(+, m)))`), code generation failed with
// "a fold over a fused scanr … is not supported" under ilp and greedy. Every program here runs
// through the public API under the interpreter and every strategy, on every registered back
// end, against plain TypeScript.
import { describe, expect, it } from 'vitest';
import { compile, type Input, type Output } from '../../src/index.js';
import type { Strategy } from '../../src/plan/types.js';
import { backends } from './backends.js';

const strategies: readonly Strategy[] = ['ilp', 'greedy-down', 'greedy-up', 'none'];

type Row = readonly number[];
const add = (a: number, b: number): number => a + b;
const foldRow = (row: Row, op: (acc: number, x: number) => number, seed: number): number => row.reduce(op, seed);
/** Inclusive scanr: out[last] = x[last], out[i] = x[i] + out[i + 1]. */
const scanrRow = (row: Row): number[] => {
  const out = [...row];
  for (let i = row.length - 2; i >= 0; i--) out[i] = row[i]! + out[i + 1]!;
  return out;
};
/** Exclusive scanr with seed z: out[last] = z, out[i] = x[i + 1] + out[i + 1]. */
const scanrSeeded = (row: Row, z: number): number[] => {
  const out = row.map(() => z);
  for (let i = row.length - 2; i >= 0; i--) out[i] = row[i + 1]! + out[i + 1]!;
  return out;
};
/** Inclusive scanl: out[0] = x[0], out[i] = out[i - 1] + x[i]. */
const scanlRow = (row: Row): number[] => {
  const out = [...row];
  for (let i = 1; i < row.length; i++) out[i] = out[i - 1]! + row[i]!;
  return out;
};

/** The innermost rows of a row-major array of shape `shape`. */
const rowsOf = (data: readonly number[], shape: readonly number[]): Row[] => {
  const c = shape[shape.length - 1]!;
  const count = c === 0 ? shape.slice(0, -1).reduce((a, b) => a * b, 1) : data.length / c;
  return Array.from({ length: count }, (_, r) => data.slice(r * c, r * c + c));
};

interface Case {
  readonly name: string;
  readonly source: string;
  readonly expected: (rows: readonly Row[]) => number[];
}

const cases: readonly Case[] = [
  {
    name: 'a fold of the rows, then a fold of their scanr, in one map',
    source: 'def main(m: f64[r, c]):\n  a = fold(+, m)\n  ys = scanr(+, m)\n  b = fold(+, ys)\n  return map(lam x, y: x + y, a, b)\n',
    expected: (rows) => rows.map((row) => foldRow(row, add, 0) + foldRow(scanrRow(row), add, 0)),
  },
  {
    name: 'the same with a seeded scanr and max',
    source: 'def main(m: f64[r, c]):\n  a = fold(max, m)\n  ys = scanr(+, 1.0, m)\n  b = fold(+, ys)\n  return map(lam x, y: x * y, a, b)\n',
    expected: (rows) => rows.map((row) => foldRow(row, (a, b) => Math.max(a, b), -Infinity) * foldRow(scanrSeeded(row, 1), add, 0)),
  },
  {
    name: 'a fold of a map of a scanr after a fold of the input',
    source: 'def main(m: f64[r, c]):\n  a = fold(min, m)\n  b = fold(+, map(lam y: y * 2.0, scanr(+, m)))\n  return map(lam x, y: x - y, a, b)\n',
    expected: (rows) => rows.map((row) => foldRow(row, (a, b) => Math.min(a, b), Infinity) - foldRow(scanrRow(row).map((y) => y * 2), add, 0)),
  },
  {
    name: 'scanl instead (the row runs forwards)',
    source: 'def main(m: f64[r, c]):\n  a = fold(+, m)\n  b = fold(+, scanl(+, m))\n  return map(lam x, y: x + y, a, b)\n',
    expected: (rows) => rows.map((row) => foldRow(row, add, 0) + foldRow(scanlRow(row), add, 0)),
  },
  {
    name: 'a fold of a scanr alone',
    source: 'def main(m: f64[r, c]):\n  return fold(+, scanr(+, m))\n',
    expected: (rows) => rows.map((row) => foldRow(scanrRow(row), add, 0)),
  },
  {
    name: 'a fold of a scanr and a fold of a scanl of one matrix',
    source: 'def main(m: f64[r, c]):\n  return map(lam x, y: x * y, fold(+, scanr(+, m)), fold(+, scanl(+, m)))\n',
    expected: (rows) => rows.map((row) => foldRow(scanrRow(row), add, 0) * foldRow(scanlRow(row), add, 0)),
  },
];

const matrices: readonly { data: number[]; shape: number[] }[] = [
  { data: [1, 2, 3, 4, 5, 6.5], shape: [2, 3] },
  { data: Array.from({ length: 20 }, (_, k) => ((k * 7) % 11) * 0.5 - 2), shape: [4, 5] },
  { data: Array.from({ length: 12 }, (_, k) => k - 5.25), shape: [1, 12] },
  { data: [7, -1, 2.5], shape: [3, 1] },
  { data: [], shape: [3, 0] },
];

function plain(o: Output): number[] {
  return Array.from((o as { data: ArrayLike<number> }).data);
}

describe.each(backends)('$name back end', (config) => {
  describe.each(cases)('$name', ({ source, expected }) => {
    const program = compile(source, { ...config.api });
    it.each(['interpreter', ...strategies])('%s', async (mode) => {
      for (const m of matrices) {
        const input: Input = { data: Float64Array.from(m.data), shape: m.shape };
        const results = await program.run({ m: input }, mode === 'interpreter' ? { interpret: true } : { strategy: mode as Strategy });
        expect(plain(results.result!), `m = ${JSON.stringify(m)}`).toEqual(expected(rowsOf(m.data, m.shape)));
      }
    });
  });

  describe('rank 3', () => {
    const source = 'def main(m: f64[p, r, c]):\n  a = fold(+, m)\n  b = fold(+, scanr(+, m))\n  return map(lam x, y: x + y, a, b)\n';
    const program = compile(source, { ...config.api });
    const m = { data: Array.from({ length: 24 }, (_, k) => (k % 5) * 1.5 - 3), shape: [2, 3, 4] };
    it.each(['interpreter', ...strategies])('%s', async (mode) => {
      const results = await program.run({ m: { data: Float64Array.from(m.data), shape: m.shape } }, mode === 'interpreter' ? { interpret: true } : { strategy: mode as Strategy });
      expect(plain(results.result!)).toEqual(rowsOf(m.data, m.shape).map((row) => foldRow(row, add, 0) + foldRow(scanrRow(row), add, 0)));
    });
  });
});
