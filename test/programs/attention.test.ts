// The attention case study (the paper's §5 FlashAttention): bench/programs/naiveAttention.fuse
// and bench/programs/flashAttention.fuse, checked against an independent attention written here
// as plain JavaScript loops. Each program is lowered once without inputs (every size a run-time
// value) and planned once per strategy, then run fused under every plan and by the reference
// interpreter on several shapes; one shape also goes through the public API, which specialises
// the program to its inputs' shapes and block sizes, as `arrayfuse run` does.

import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { compile } from '../../src/index.js';
import { Compiler } from '../../src/driver/index.js';
import { interpret } from '../../src/interp/index.js';
import { compileProgram } from '../../src/runtime/index.js';
import { allStmts } from '../../src/ir/walk.js';
import { combinatorKinds, type CombinatorKind, type Program } from '../../src/ir/types.js';
import type { ArrayValue, InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import type { Plan, Strategy } from '../../src/plan/types.js';
import { seededRng } from '../util/rng.js';

const TOLERANCE = 1e-11;
const strategies: readonly Strategy[] = ['ilp', 'greedy-down', 'greedy-up', 'none'];

function source(name: string): string {
  return readFileSync(new URL(`../../bench/programs/${name}.fuse`, import.meta.url), 'utf8');
}

/** A row-major [rows, cols] matrix. */
interface Matrix {
  readonly rows: number;
  readonly cols: number;
  readonly data: Float64Array;
}

/** softmax(Q Kᵀ / sqrt(d)) V, one query row at a time, the row maximum subtracted before exp. */
function referenceAttention(q: Matrix, k: Matrix, v: Matrix): Float64Array {
  const n = q.rows;
  const d = q.cols;
  const out = new Float64Array(n * v.cols);
  const scores = new Float64Array(k.rows);
  for (let i = 0; i < n; i++) {
    let max = -Infinity;
    for (let j = 0; j < k.rows; j++) {
      let dot = 0;
      for (let c = 0; c < d; c++) dot += q.data[i * d + c]! * k.data[j * d + c]!;
      scores[j] = dot / Math.sqrt(d);
      max = Math.max(max, scores[j]!);
    }
    let total = 0;
    for (let j = 0; j < k.rows; j++) {
      scores[j] = Math.exp(scores[j]! - max);
      total += scores[j]!;
    }
    for (let c = 0; c < v.cols; c++) {
      let acc = 0;
      for (let j = 0; j < k.rows; j++) acc += scores[j]! * v.data[j * v.cols + c]!;
      out[i * v.cols + c] = acc / total;
    }
  }
  return out;
}

/** Uniform values in [lo, hi) from a seed: the same matrices on every run. */
function randomMatrix(seed: number, rows: number, cols: number, lo: number, hi: number): Matrix {
  const rng = seededRng(seed);
  const data = Float64Array.from({ length: rows * cols }, () => lo + ((hi - lo) * rng.int(0, 2 ** 30 - 1)) / 2 ** 30);
  return { rows, cols, data };
}

function arrayValue(m: Matrix): ArrayValue {
  return { kind: 'array', elem: 'f64', shape: [m.rows, m.cols], data: m.data };
}

/** Relative error of every element, against the reference: the largest one. */
function maxRelativeError(actual: InterfaceValue, expected: Float64Array, shape: readonly number[]): number {
  const value = actual as RuntimeValue;
  if (value.kind !== 'array') throw new Error('attention returned a scalar');
  expect([...value.shape]).toEqual([...shape]);
  let worst = 0;
  value.data.forEach((x, i) => {
    const y = expected[i]!;
    worst = Math.max(worst, Number.isNaN(x) ? Infinity : Math.abs(x - y) / Math.abs(y));
  });
  return worst;
}

/** Number of core combinators in a program, all blocks (loop bodies once) included. */
function combinatorCount(program: Program): number {
  const kinds = new Set<string>(combinatorKinds);
  return allStmts(program).filter((s) => kinds.has(s.kind)).length;
}

function countByKind(program: Program): Partial<Record<CombinatorKind, number>> {
  const counts: Partial<Record<CombinatorKind, number>> = {};
  const kinds = new Set<string>(combinatorKinds);
  for (const s of allStmts(program)) if (kinds.has(s.kind)) counts[s.kind as CombinatorKind] = (counts[s.kind as CombinatorKind] ?? 0) + 1;
  return counts;
}

/** One test input: attention over n rows of width d; br, bc are flashAttention's block sizes. */
interface Shape {
  readonly n: number;
  readonly d: number;
  readonly br: number;
  readonly bc: number;
}

const shapes: readonly Shape[] = [
  { n: 1, d: 1, br: 1, bc: 1 },
  { n: 8, d: 4, br: 4, bc: 2 }, // multiples of both block sizes
  { n: 7, d: 3, br: 2, bc: 3 }, // neither a multiple of br nor of bc: both padded
  { n: 10, d: 5, br: 4, bc: 4 }, // last blocks hold 2 real rows of 4
  { n: 5, d: 2, br: 8, bc: 6 }, // blocks larger than the whole input
  { n: 9, d: 6, br: 3, bc: 1 }, // one key per block: the loop runs 9 times
];

interface Case {
  readonly q: Matrix;
  readonly k: Matrix;
  readonly v: Matrix;
  readonly expected: Float64Array;
}

/** Scores of a few units (Q, K in [−2, 2)) so the softmax is far from flat; V in [1, 2) so the
 * outputs are weighted means in [1, 2) and a relative error is meaningful. */
function caseOf({ n, d }: Shape, seed: number, spread = 2): Case {
  const q = randomMatrix(seed, n, d, -spread, spread);
  const k = randomMatrix(seed + 1, n, d, -spread, spread);
  const v = randomMatrix(seed + 2, n, d, 1, 2);
  return { q, k, v, expected: referenceAttention(q, k, v) };
}

interface ProgramUnderTest {
  readonly name: 'naiveAttention' | 'flashAttention';
  readonly inputs: (c: Case, s: Shape) => readonly InterfaceValue[];
}

const programs: readonly ProgramUnderTest[] = [
  { name: 'naiveAttention', inputs: (c) => [arrayValue(c.q), arrayValue(c.k), arrayValue(c.v)] },
  {
    name: 'flashAttention',
    inputs: (c, s) => [
      arrayValue(c.q),
      arrayValue(c.k),
      arrayValue(c.v),
      { kind: 'scalar', elem: 'i32', value: s.br },
      { kind: 'scalar', elem: 'i32', value: s.bc },
    ],
  },
];

describe.each(programs)('$name', ({ name, inputs }) => {
  const compiler = new Compiler(source(name), { fileName: `bench/programs/${name}.fuse` });
  // Lowered without inputs: sizes and block sizes are run-time values, so one plan serves all shapes.
  const program = compiler.lower();
  const plans = new Map<Strategy, Promise<Plan>>(strategies.map((s) => [s, compiler.plan(undefined, { strategy: s })]));
  const cases = shapes.map((s, k) => ({ shape: s, c: caseOf(s, 100 * k + 1) }));

  test.each(cases)('the interpreter equals the JavaScript attention at n=$shape.n d=$shape.d br=$shape.br bc=$shape.bc', ({ shape, c }) => {
    const [result] = interpret(program, inputs(c, shape), { file: compiler.file });
    expect(maxRelativeError(result!, c.expected, [shape.n, shape.d])).toBeLessThanOrEqual(TOLERANCE);
  });

  test.each(strategies)('fused under the %s plan, it equals the JavaScript attention on every shape', async (strategy) => {
    const exe = compileProgram(program, await plans.get(strategy)!, { file: compiler.file });
    for (const { shape, c } of cases) {
      const [result] = exe.run(inputs(c, shape)).results;
      expect(maxRelativeError(result!, c.expected, [shape.n, shape.d]), JSON.stringify(shape)).toBeLessThanOrEqual(TOLERANCE);
    }
  });

  test('the ILP plan is optimal and no worse than either greedy plan', async () => {
    const ilp = await plans.get('ilp')!;
    expect(ilp.stats.status).toBe('optimal');
    for (const greedy of ['greedy-down', 'greedy-up'] as const) {
      expect(ilp.stats.objective).toBeLessThanOrEqual((await plans.get(greedy)!).stats.objective!);
    }
    expect(ilp.stats.objective).toBeLessThan((await plans.get('none')!).stats.objective!);
  });

  test('scores far beyond exp’s range do not overflow: the row maximum is subtracted', async () => {
    const shape = { n: 6, d: 4, br: 4, bc: 4 };
    const c = caseOf(shape, 7, 40); // scores up to 40·40·4/2 = 3200; exp(3200) is Infinity
    const exe = compileProgram(program, await plans.get('ilp')!, { file: compiler.file });
    const [result] = exe.run(inputs(c, shape)).results;
    expect(maxRelativeError(result!, c.expected, [shape.n, shape.d])).toBeLessThanOrEqual(TOLERANCE);
  });
});

describe('through the public API, specialised to the inputs (as `arrayfuse run` does)', () => {
  const shape = { n: 7, d: 3, br: 2, bc: 3 };
  const c = caseOf(shape, 42);
  const arrays = { Q: { data: c.q.data, shape: [shape.n, shape.d] }, K: { data: c.k.data, shape: [shape.n, shape.d] }, V: { data: c.v.data, shape: [shape.n, shape.d] } };

  test.each([
    ['naiveAttention', arrays],
    ['flashAttention', { ...arrays, br: shape.br, bc: shape.bc }],
  ] as const)('%s under the ILP plan', async (name, given) => {
    const { result } = await compile(source(name), { fileName: name }).run(given);
    const out = result as { data: Float64Array; shape: readonly number[] };
    const value: ArrayValue = { kind: 'array', elem: 'f64', shape: out.shape, data: out.data };
    expect(maxRelativeError(value, c.expected, [shape.n, shape.d])).toBeLessThanOrEqual(TOLERANCE);
  });
});

describe('size of the programs (the paper counts 66 combinators in its FlashAttention)', () => {
  // Counted in the IR lowered without inputs; a while body counts once.
  test.each([
    ['naiveAttention', 23, { generate: 7, gather: 7, map: 5, fold: 4 }],
    ['flashAttention', 39, { generate: 15, gather: 11, map: 9, fold: 4 }],
  ] as const)('%s lowers to %i core combinators', (name, total, byKind) => {
    const program = new Compiler(source(name)).lower();
    expect(combinatorCount(program)).toBe(total);
    expect(countByKind(program)).toEqual(byKind);
    expect(allStmts(program).filter((s) => s.kind === 'while')).toHaveLength(name === 'flashAttention' ? 1 : 0);
  });
});
