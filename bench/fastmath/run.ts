// `npm run bench:fastmath`: what `fastMath` (docs/LANGUAGE.md, "Floating-point reassociation";
// src/codegen/loops/reassociate.ts) buys. For a long sum, a dot product, a matrix product in
// combinator form and FlashAttention (bench/programs/flashAttention.fuse), the program is
// compiled twice through the public API, exact and fast, on one thread; runs alternate between
// the two (interleaved, so machine noise hits both alike) and the medians are printed with their
// ratio, the largest relative difference of the fast results from the exact ones, and whether the
// exact results are bit for bit the interpreter's (checked where the interpreter is fast enough).
//
//   npm run bench:fastmath                         # every case
//   npm run bench:fastmath -- --cases sum,dot --repetitions 30

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { findRepoRoot, listOf, positiveInt } from '../cli.js';
import { compile, type Input, type Output } from '../../src/index.js';
import { uniform } from '../../test/util/rng.js';

const caseNames = ['sum', 'dot', 'matmul', 'flashAttention'] as const;
type CaseName = (typeof caseNames)[number];

interface Case {
  readonly name: string;
  readonly source: string;
  readonly inputs: Readonly<Record<string, Input>>;
  /** The interpreter is fast enough to check the exact results against. */
  readonly interpret: boolean;
}

/** n values in (-1/6, 1/6): uniform's multiples of 2⁻³² divided by 3, so that sums round (multiples of 2⁻³² would add exactly in any grouping). */
function values(n: number, seed: number): Float64Array {
  const next = uniform(seed);
  return Float64Array.from({ length: n }, () => (next() - 0.5) / 3);
}

function caseOf(name: CaseName, root: string): Case {
  switch (name) {
    case 'sum': {
      const n = 1 << 22;
      return { name: `fold(+, xs), ${n} f64`, source: 'def main(xs: f64[n]):\n  return fold(+, xs)\n', inputs: { xs: values(n, 1) }, interpret: true };
    }
    case 'dot': {
      const n = 1 << 22;
      return { name: `fold(+, zipWith(*, xs, ys)), ${n} f64`, source: 'def main(xs: f64[n], ys: f64[n]):\n  return fold(+, zipWith(*, xs, ys))\n', inputs: { xs: values(n, 1), ys: values(n, 2) }, interpret: true };
    }
    case 'matmul': {
      const n = 256;
      const source = [
        'def main(a: f64[n, k], b: f64[k, m]):',
        '  n, k = shape(a)',
        '  k2, m = shape(b)',
        '  as = gather(generate((n, m, k), lam i, j, l: (i, l)), a)',
        '  bs = gather(generate((n, m, k), lam i, j, l: (l, j)), b)',
        '  return fold(+, zipWith(*, as, bs))',
        '',
      ].join('\n');
      return { name: `matrix product ${n}³ (gathers, zipWith, fold)`, source, inputs: { a: { data: values(n * n, 3), shape: [n, n] }, b: { data: values(n * n, 4), shape: [n, n] } }, interpret: true };
    }
    case 'flashAttention': {
      const [n, d] = [1024, 64];
      const source = readFileSync(join(root, 'bench', 'programs', 'flashAttention.fuse'), 'utf8');
      const m = (seed: number): Input => ({ data: values(n * d, seed), shape: [n, d] });
      return { name: `FlashAttention n = ${n}, d = ${d}, br = bc = 64`, source, inputs: { Q: m(5), K: m(6), V: m(7), br: 64, bc: 64 }, interpret: false };
    }
    default:
      return name satisfies never;
  }
}

function flat(results: Record<string, Output>): number[] {
  const out: number[] = [];
  const walk = (o: Output): void => {
    if (typeof o === 'number') out.push(o);
    else if (Array.isArray(o)) (o as readonly Output[]).forEach(walk);
    else out.push(...Array.from((o as { data: ArrayLike<number> }).data));
  };
  Object.values(results).forEach(walk);
  return out;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function measureCase(c: Case, repetitions: number): Promise<void> {
  const exact = compile(c.source, { threads: 1, fastMath: false });
  const fast = compile(c.source, { threads: 1, fastMath: true });
  try {
    const e = flat(await exact.run(c.inputs));
    const f = flat(await fast.run(c.inputs));
    let checked = 'not checked (the interpreter is too slow at this size)';
    if (c.interpret) {
      const r = flat(await exact.run(c.inputs, { interpret: true }));
      checked = r.length === e.length && r.every((x, i) => Object.is(x, e[i])) ? 'yes' : 'NO';
    }
    const rel = e.reduce((m, x, i) => Math.max(m, Math.abs(f[i]! - x) / Math.max(Number.MIN_VALUE, Math.abs(x))), 0);
    const times = { exact: [] as number[], fast: [] as number[] };
    for (let k = 0; k < repetitions; k++) {
      for (const [which, program] of [['exact', exact], ['fast', fast]] as const) {
        const t0 = performance.now();
        await program.run(c.inputs);
        times[which].push(performance.now() - t0);
      }
    }
    const [te, tf] = [median(times.exact), median(times.fast)];
    console.log(`| ${c.name} | ${te.toFixed(2)} ms | ${tf.toFixed(2)} ms | ${(te / tf).toFixed(2)}× | ${rel.toExponential(1)} | ${checked} |`);
  } finally {
    exact.dispose();
    fast.dispose();
  }
}

async function main(): Promise<void> {
  const options = new Command('bench:fastmath')
    .option('--cases <list>', `cases to run (${caseNames.join(', ')})`, listOf(caseNames), [...caseNames])
    .option('--repetitions <n>', 'timed runs of each variant', positiveInt, 11)
    .parse()
    .opts<{ cases: CaseName[]; repetitions: number }>();
  const root = findRepoRoot();
  console.log('| program | exact | fastMath | speed-up | max relative difference | exact = interpreter, bit for bit |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const name of options.cases) await measureCase(caseOf(name, root), options.repetitions);
}

await main();
