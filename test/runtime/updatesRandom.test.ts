// Random .fuse programs built around in-place updates (issue 9, W1): filters chained, before
// and inside loops; scatters and permutes whose destination a program produces and then reads
// as their values, in their op (directly or through a scalar), through an `if` that may return
// it, as one component of a tuple, or afterwards. Each runs through the public API under every
// strategy, on every registered back end, and must equal the reference interpreter.
// ARRAYFUSE_UPDATES_PROGRAMS sets how many (default 16; main at 346721e failed about one program
// in five of these).
import { describe, expect, it } from 'vitest';
import { compile, type Output } from '../../src/index.js';
import type { Strategy } from '../../src/plan/types.js';
import { seededRng, pick, type Rng } from '../util/rng.js';
import { backends } from './backends.js';

const strategies: readonly Strategy[] = ['ilp', 'greedy-down', 'greedy-up', 'none'];
const count = Number(process.env.ARRAYFUSE_UPDATES_PROGRAMS ?? 16);

type Step = (r: Rng, s: GenState) => void;

interface GenState {
  readonly lines: string[];
  readonly arrays: string[];
  readonly scalars: string[];
  next: number;
}

const fresh = (s: GenState): string => `v${s.next++}`;
const half = (a: string): string => `size(${a}) // 2`;

const steps: readonly Step[] = [
  (r, s) => {
    const v = fresh(s);
    s.lines.push(`  ${v} = map(lam x: x * 0.5 + 1.0, ${pick(r, s.arrays)})`);
    s.arrays.push(v);
  },
  (r, s) => {
    const v = fresh(s);
    s.lines.push(`  ${v} = filter(lam x: x > ${pick(r, ['0.5', '1.5', '2.5'])}, ${pick(r, s.arrays)})`);
    s.arrays.push(v);
  },
  (r, s) => {
    // Its own values, at reversed places.
    const a = pick(r, s.arrays);
    const v = fresh(s);
    s.lines.push(`  ${v} = scatter(lam o, w: o + w, ${a}, zip(generate(size(${a}), lam i: size(${a}) - 1 - i), ${a}))`);
    s.arrays.push(v);
  },
  (r, s) => {
    // The op reads a scalar computed from an array (maybe the destination).
    const a = pick(r, s.arrays);
    const b = pick(r, s.arrays);
    const t = fresh(s);
    const v = fresh(s);
    s.lines.push(`  ${t} = ${b}[0] * 2.0 if size(${b}) > 0 else 0.0`);
    s.lines.push(`  ${v} = scatter(lam o, w: o * 0.5 + w + ${t}, ${a}, zip(generate(${half(a)}, lam i: i * 2), generate(${half(a)}, lam i: f64(i))))`);
    s.arrays.push(v);
    s.scalars.push(t);
  },
  (r, s) => {
    // The op indexes the destination directly.
    const a = pick(r, s.arrays);
    const v = fresh(s);
    s.lines.push(`  ${v} = scatter(lam o, w: ${a}[0] + w, ${a}, zip(generate(${half(a)}, lam i: i), generate(${half(a)}, lam i: 10.0)))`);
    s.arrays.push(v);
  },
  (r, s) => {
    const a = pick(r, s.arrays);
    const v = fresh(s);
    s.lines.push(`  ${v} = permute(lam o, w: w, ${a}, lam i: size(${a}) - 1 - i, map(lam x: x + 0.25, ${a}))`);
    s.arrays.push(v);
  },
  (r, s) => {
    // A reverse of any array, a filter's result among them (issue 9, C1/C4).
    const v = fresh(s);
    s.lines.push(`  ${v} = reverse(${pick(r, s.arrays)})`);
    s.arrays.push(v);
  },
  (r, s) => {
    const a = pick(r, s.arrays);
    const v = fresh(s);
    s.lines.push(`  ${v} = ${a}[0] if size(${a}) > 0 else -1.0`);
    s.scalars.push(v);
  },
  (r, s) => {
    // A scatter into one component of a tuple-producing map.
    const a = pick(r, s.arrays);
    const [p, q, v] = [fresh(s), fresh(s), fresh(s)];
    s.lines.push(`  ${p}, ${q} = map(lam x: (x + 1.0, x * 2.0), ${a})`);
    s.lines.push(`  ${v} = scatter(+, ${pick(r, [p, q])}, zip(generate(${half(a)}, lam i: i), generate(${half(a)}, lam i: 1.0)))`);
    s.arrays.push(p, q, v);
  },
  (r, s) => {
    // An if that may return the array a later scatter updates.
    const a = pick(r, s.arrays);
    const [m, w, v] = [fresh(s), fresh(s), fresh(s)];
    s.lines.push(`  ${m} = map(lam x: x + 0.5, ${a})`);
    s.lines.push(`  if fold(+, ${pick(r, s.arrays)}) > 2.0:`, `    ${w} = ${m}`, '  else:', `    ${w} = map(lam x: x * 3.0, ${m})`);
    s.lines.push(`  ${v} = scatter(+, ${pick(r, [m, w])}, zip(generate(${half(m)}, lam i: i), generate(${half(m)}, lam i: 1.0)))`);
    s.arrays.push(m, w, v);
  },
  (r, s) => {
    // A loop whose body filters, scatters or reverses its carried array.
    const a = pick(r, s.arrays);
    const [k, v] = [fresh(s), fresh(s)];
    const body = pick(r, [
      `filter(lam x: x > 0.75, map(lam x: x - 0.25, ${v}))`,
      `scatter(+, ${v}, zip(generate(size(${v}), lam i: size(${v}) - 1 - i), ${v}))`,
      `map(lam x: x + 1.0, ${v})`,
      `reverse(${v})`,
    ]);
    s.lines.push(`  ${k} = 0`, `  ${v} = ${a}`, `  while ${k} < 2:`, `    ${v} = ${body}`, `    ${k} = ${k} + 1`);
    s.arrays.push(v);
  },
];

function randomSource(r: Rng): string {
  const s: GenState = { lines: ['def main(xs: f64[n]):'], arrays: ['xs'], scalars: [], next: 0 };
  const length = 2 + r.int(0, 5);
  for (let k = 0; k < length; k++) pick(r, steps)(r, s);
  const results = new Set([pick(r, s.arrays), pick(r, s.arrays), ...(s.scalars.length > 0 ? [pick(r, s.scalars)] : [])]);
  s.lines.push(`  return ${[...results].join(', ')}`);
  return `${s.lines.join('\n')}\n`;
}

function plain(o: Output): unknown {
  if (typeof o === 'number') return o;
  if (Array.isArray(o)) return (o as readonly Output[]).map(plain);
  return Array.from((o as { data: ArrayLike<number> }).data);
}

describe.each(backends)('$name back end', (config) => {
  describe('random programs around in-place updates equal the interpreter under every strategy', () => {
    it.each(Array.from({ length: count }, (_, k) => k + 1))('program %i', async (seed) => {
      const r = seededRng(seed * 7919);
      const source = randomSource(r);
      const xs = Float64Array.from({ length: r.int(1, 9) }, () => r.int(0, 8) / 2);
      const program = compile(source, { ...config.api });
      const expected = Object.values(await program.run({ xs }, { interpret: true })).map(plain);
      for (const strategy of strategies) {
        const got = Object.values(await program.run({ xs }, { strategy })).map(plain);
        expect(got, `${strategy}, xs = [${xs.join(', ')}]\n${source}`).toEqual(expected);
      }
    });
  });
});
