// Run-time faults under fusion (docs/LANGUAGE.md, "Run-time faults"): a fault counts only if a
// demanded element faults, and the reference interpreter decides the diagnostic. Every program
// below runs under the interpreter and all four strategies through the public API; the outcome
// (results, or the rendered diagnostic) must be identical everywhere and equal the expectation.

import { describe, expect, it } from 'vitest';
import { compile, renderDiagnostic, UserError, type Input, type Output } from '../../src/index.js';
import { Compiler } from '../../src/driver/index.js';
import { type Rng, seededRng } from '../util/rng.js';

const i32s = (...xs: number[]): Int32Array => Int32Array.from(xs);
const f64s = (...xs: number[]): Float64Array => Float64Array.from(xs);

type Outcome = { ok: Record<string, unknown> } | { error: string };

function plain(o: Output): unknown {
  if (typeof o === 'number') return o;
  if (Array.isArray(o)) return o.map(plain);
  const a = o as { data: ArrayLike<number> };
  return Array.from(a.data);
}

const modes = [{ interpret: true }, { strategy: 'ilp' }, { strategy: 'greedy-down' }, { strategy: 'greedy-up' }, { strategy: 'none' }] as const;

/** The outcome of a program in every mode; an internal error fails the test. */
async function outcomes(source: string, inputs: Record<string, Input>): Promise<Outcome[]> {
  const program = compile(source, { fileName: 'f.fuse' });
  const all: Outcome[] = [];
  for (const mode of modes) {
    try {
      const results = await program.run(inputs, mode);
      all.push({ ok: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, plain(v)])) });
    } catch (e) {
      if (!(e instanceof UserError)) throw e;
      all.push({ error: e.diagnostics.map(renderDiagnostic).join('\n') });
    }
  }
  return all;
}

interface Case {
  readonly name: string;
  readonly source: string;
  readonly inputs: Record<string, Input>;
  /** Either the results, or [code, message fragment, line:col]. */
  readonly expect: Record<string, unknown> | readonly [string, string, string];
}

const cases: readonly Case[] = [
  {
    name: 'integer division by zero in a demanded element',
    source: 'def main(is: i32[n]):\n  return map(lam i: 10 // i, is)\n',
    inputs: { is: i32s(1, 0, 2) },
    expect: ['E401', 'integer division by zero (10 // 0)', '2:21'],
  },
  {
    name: 'remainder by zero',
    source: 'def main(is: i32[n]):\n  return map(lam i: 10 % i, is)\n',
    inputs: { is: i32s(3, 0) },
    expect: ['E401', '(10 % 0)', '2:21'],
  },
  {
    name: 'index out of range in element code',
    source: 'def main(is: i32[n], xs: f64[m]):\n  return map(lam i: xs[i] * 2.0, is)\n',
    inputs: { is: i32s(0, 5), xs: f64s(1, 2) },
    expect: ['E402', 'index 5 is out of range for xs of shape [2]', '2:21'],
  },
  {
    name: 'gather index out of range',
    source: 'def main(ix: i32[n], xs: f64[m]):\n  ys = map(lam x: x + 1.0, xs)\n  return gather(ix, ys)\n',
    inputs: { ix: i32s(0, 7), xs: f64s(1, 2) },
    expect: ['E402', 'gather: index 7 is out of range for an array of shape [2] (position 1', '3:10'],
  },
  {
    name: 'scatter index out of range',
    source: 'def main(ix: i32[n], xs: f64[n]):\n  d = generate(3, lam i: 0.0)\n  return scatter(+, d, zip(ix, xs))\n',
    inputs: { ix: i32s(0, 3), xs: f64s(1, 2) },
    expect: ['E402', 'scatter: index 3 is out of range for a destination of shape [3]', '3:10'],
  },
  {
    name: 'a fault in an element a gather never reads (W3)',
    source: 'def main(is: i32[n], ix: i32[m]):\n  a = map(lam i: 10 // i, is)\n  return gather(ix, a)\n',
    inputs: { is: i32s(1, 1, 0), ix: i32s(0, 1) },
    expect: { result: [10, 10] },
  },
  {
    name: 'the same gather reading the faulting element',
    source: 'def main(is: i32[n], ix: i32[m]):\n  a = map(lam i: 10 // i, is)\n  return gather(ix, a)\n',
    inputs: { is: i32s(1, 1, 0), ix: i32s(0, 2) },
    expect: ['E401', '(10 // 0)', '2:18'],
  },
  {
    name: 'a fault in an element take drops',
    source: 'def main(is: i32[n]):\n  a = map(lam i: 10 // i, is)\n  return take(2, a)\n',
    inputs: { is: i32s(5, 2, 0) },
    expect: { result: [2, 5] },
  },
  {
    name: 'a fault in an element reverse then take drops',
    source: 'def main(is: i32[n]):\n  a = map(lam i: 100 // i, is)\n  return take(1, reverse(a))\n',
    inputs: { is: i32s(0, 4) },
    expect: { result: [25] },
  },
  {
    name: 'a fault in an element a filter tests',
    source: 'def main(is: i32[n]):\n  a = map(lam i: 10 // i, is)\n  return filter(lam x: x > 1, a)\n',
    inputs: { is: i32s(1, 0, 2) },
    expect: ['E401', '(10 // 0)', '2:18'],
  },
  {
    name: 'a fault in a value a filter drops by another array',
    source: 'def main(is: i32[n], ks: i32[n]):\n  a = map(lam i: 10 // i, is)\n  p = filter(lam q: q[1] > 0, zip(a, ks))\n  return map(lam q: q[0], p)\n',
    inputs: { is: i32s(1, 0, 2), ks: i32s(1, 0, 1) },
    expect: { result: [10, 5] },
  },
  {
    name: 'two faults: the earlier in program order is reported (results in reverse order)',
    source: 'def main(is: i32[n], xs: f64[m]):\n  a = map(lam i: 10 // i, is)\n  b = map(lam i: xs[i], is)\n  return b, a\n',
    inputs: { is: i32s(1, 0, 9), xs: f64s(1, 2) },
    expect: ['E401', '(10 // 0)', '2:18'],
  },
  {
    name: 'two faults in one map: the earlier element is reported',
    source: 'def main(is: i32[n], xs: f64[m]):\n  return map(lam i: xs[i] + f64(10 // i), is)\n',
    inputs: { is: i32s(1, 0, 9), xs: f64s(1, 2) },
    expect: ['E401', '(10 // 0)', '2:33'],
  },
  {
    name: 'two faults, the one in a later statement read first by the result',
    source: 'def main(is: i32[n], xs: f64[m]):\n  b = map(lam i: xs[i], is)\n  a = map(lam i: 10 // i, is)\n  return zipWith(lam p, q: p + f64(q), b, a)\n',
    inputs: { is: i32s(0, 9), xs: f64s(1, 2) },
    expect: ['E402', 'index 9 is out of range for xs', '2:18'],
  },
  {
    name: 'a fault inside a while body, demanded',
    source: 'def main(is: i32[n]):\n  k = 0\n  while k < 2:\n    is = map(lam i: 12 // (i - k), is)\n    k = k + 1\n  return is\n',
    inputs: { is: i32s(3, 12) },
    expect: ['E401', 'integer division by zero (12 // 0)', '4:21'],
  },
  {
    name: 'a fault inside a while body in an element dropped afterwards',
    source: 'def main(is: i32[n]):\n  k = 0\n  while k < 2:\n    is = map(lam i: 12 // (i - k), is)\n    k = k + 1\n  return take(1, is)\n',
    inputs: { is: i32s(3, 12) },
    expect: { result: [4] },
  },
  {
    name: 'a fault inside an if branch, demanded',
    source: 'def main(is: i32[n], c: i32):\n  if c > 0:\n    r = map(lam i: 6 // i, is)\n  else:\n    r = is\n  return r\n',
    inputs: { is: i32s(2, 0), c: 1 },
    expect: ['E401', '(6 // 0)', '3:20'],
  },
  {
    name: 'a poisoned if condition',
    source: 'def main(is: i32[n]):\n  a = map(lam i: 6 // i, is)\n  s = fold(+, a)\n  if s > 0:\n    r = is\n  else:\n    r = a\n  return r\n',
    inputs: { is: i32s(2, 0) },
    expect: ['E401', '(6 // 0)', '2:18'],
  },
  {
    name: 'a fault in a scalar statement that is returned',
    source: 'def main(xs: f64[n], ks: i32[m]):\n  s = 7 // ks[0]\n  return map(lam x: x + f64(s), xs)\n',
    inputs: { xs: f64s(1), ks: i32s(0) },
    expect: ['E401', 'scalar binding: integer division by zero (7 // 0)', '2:7'],
  },
  {
    name: 'a scalar read out of range and returned',
    source: 'def main(xs: f64[n]):\n  s = xs[5]\n  return s\n',
    inputs: { xs: f64s(1, 2) },
    expect: ['E402', 'index 5 is out of range for xs of shape [2]', '2:7'],
  },
  {
    name: 'a fold over a poisoned element that is used',
    source: 'def main(is: i32[n]):\n  a = map(lam i: 10 // i, is)\n  return fold(+, a)\n',
    inputs: { is: i32s(1, 0) },
    expect: ['E401', '(10 // 0)', '2:18'],
  },
  {
    name: 'a fold over poisoned elements whose result is unused',
    source: 'def main(is: i32[n]):\n  a = map(lam i: 10 // i, is)\n  s = fold(+, a)\n  return take(1, a)\n',
    inputs: { is: i32s(1, 0) },
    expect: { result: [10] },
  },
  {
    name: 'a size computed from a poisoned scalar',
    source: 'def main(ks: i32[n]):\n  m = 4 // ks[0]\n  return generate(m, lam i: i)\n',
    inputs: { ks: i32s(0) },
    expect: ['E401', '(4 // 0)', '2:7'],
  },
  {
    name: 'a scatter whose index is poisoned',
    source: 'def main(is: i32[n], xs: f64[n]):\n  j = map(lam i: 2 // i, is)\n  d = generate(3, lam i: 0.0)\n  return scatter(+, d, zip(j, xs))\n',
    inputs: { is: i32s(1, 0), xs: f64s(1, 2) },
    expect: ['E401', '(2 // 0)', '2:18'],
  },
  {
    name: 'a scatter index out of range breaks the whole result: asking only its size succeeds',
    source:
      'def main(xs: f64[n]):\n  ys = filter(lam x: x > 1.5, xs)\n  v = scatter(lam o, w: w, ys, zip(generate(size(ys), lam i: i + 1), ys))\n  return size(v)\n',
    inputs: { xs: f64s(1, 2, 3, 4, 5) },
    expect: { result: 4 },
  },
  {
    name: 'a scatter index out of range breaks its result even when it is empty',
    source:
      'def main(xs: f64[n]):\n  e = filter(lam x: x > 100.0, xs)\n  v = scatter(lam o, w: w, e, zip(generate(1, lam i: 1), generate(1, lam i: 2.0)))\n  return size(v), fold(+, v)\n',
    inputs: { xs: f64s(1, 2) },
    expect: ['E402', 'scatter: index 1 is out of range for a destination of shape [0] (position 0 of the source)', '3:7'],
  },
  {
    name: 'an array built from a broken one is broken, even reading none of it',
    source:
      'def main(xs: f64[n]):\n  v = scatter(+, map(lam x: x, xs), zip(generate(1, lam i: 9), generate(1, lam i: 2.0)))\n  return gather(generate(0, lam i: 0), v)\n',
    inputs: { xs: f64s(1, 2) },
    expect: ['E402', 'scatter: index 9 is out of range for a destination of shape [2]', '2:7'],
  },
  {
    name: 'a scatter index out of range breaks the whole result: any element read fails',
    source:
      'def main(xs: f64[n]):\n  ys = filter(lam x: x > 1.5, xs)\n  v = scatter(lam o, w: w, ys, zip(generate(size(ys), lam i: i + 1), ys))\n  return take(1, v)\n',
    inputs: { xs: f64s(1, 2, 3, 4, 5) },
    expect: ['E402', 'scatter: index 4 is out of range for a destination of shape [4] (position 3 of the source)', '3:7'],
  },
  {
    name: 'a constant division by zero is a fault of its own: demanded, it fails at run time',
    source: 'def main(xs: f64[n]):\n  return map(lam x: x + f64(1 // 0), xs)\n',
    inputs: { xs: f64s(1, 2) },
    expect: ['E401', 'integer division by zero (1 // 0)', '2:29'],
  },
  {
    name: 'a constant division by zero nobody demands is ignored',
    source: 'def main(xs: f64[n]):\n  if xs[0] > 100.0:\n    s = 7 % (2 - 2)\n    ys = map(lam x: x + f64(s), xs)\n  else:\n    ys = xs\n  return ys\n',
    inputs: { xs: f64s(1, 2) },
    expect: { ys: [1, 2] },
  },
  {
    name: 'a constant division by zero over an empty array is never demanded',
    source: 'def main(xs: f64[n]):\n  s = 7 // 0\n  return map(lam x: x + f64(s), xs)\n',
    inputs: { xs: f64s() },
    expect: { result: [] },
  },
  {
    name: 'a negative size asked through size() runs its generate: E404, never a negative size',
    source: 'def main(xs: f64[n]):\n  ys = drop(2, xs)\n  return size(ys)\n',
    inputs: { xs: f64s(1) },
    expect: ['E404', 'generate: size -1 of dimension 0 is not a non-negative integer', '2:8'],
  },
  {
    name: 'a negative size in a generate nobody runs is not an error',
    source: 'def main(xs: f64[n]):\n  zs = drop(5, xs)\n  return size(xs)\n',
    inputs: { xs: f64s(1) },
    expect: { result: 1 },
  },
  {
    name: 'zip of arrays whose lengths differ at run time, taken apart again, is E403',
    source: 'def main(xs: f64[n]):\n  ys = filter(lam x: x > 1.5, xs)\n  a, b = unzip(zip(xs, ys))\n  return b\n',
    inputs: { xs: f64s(1, 2, 3) },
    expect: ['E403', 'zip', '3:16'],
  },
  {
    name: 'a scatter overwriting a poisoned destination element',
    source: 'def main(is: i32[n]):\n  d = map(lam i: 8 // i, is)\n  return scatter(lam o, v: v, d, zip(generate(1, lam i: 1), generate(1, lam i: 5)))\n',
    inputs: { is: i32s(2, 0) },
    expect: { result: [4, 5] },
  },
  {
    name: 'a scan carries a fault to every later element only',
    source: 'def main(is: i32[n]):\n  a = map(lam i: 12 // i, is)\n  s = scanl(+, a)\n  return take(2, s)\n',
    inputs: { is: i32s(1, 2, 0, 3) },
    expect: { result: [12, 18] },
  },
  {
    name: 'a scan whose faulting prefix is read',
    source: 'def main(is: i32[n]):\n  a = map(lam i: 12 // i, is)\n  return scanr(+, a)\n',
    inputs: { is: i32s(1, 2, 0, 3) },
    expect: ['E401', '(12 // 0)', '2:18'],
  },
  {
    name: 'one component of a tuple map faults, the other is returned',
    source: 'def main(is: i32[n]):\n  a, b = unzip(map(lam i: (10 // i, i + 1), is))\n  return b\n',
    inputs: { is: i32s(0, 5) },
    expect: { b: [1, 6] },
  },
  {
    name: 'a poisoned scalar read by a select not taken',
    source: 'def main(is: i32[n], ks: i32[m]):\n  s = 10 // ks[0]\n  return map(lam i: i if i >= 0 else s, is)\n',
    inputs: { is: i32s(1, 2), ks: i32s(0) },
    expect: { result: [1, 2] },
  },
  {
    name: 'a fault in a branch not taken by select',
    source: 'def main(is: i32[n]):\n  return map(lam i: 10 // i if i != 0 else -1, is)\n',
    inputs: { is: i32s(5, 0) },
    expect: { result: [2, -1] },
  },
];

function location(error: string): string {
  return /^f\.fuse:(\d+:\d+):/.exec(error)?.[1] ?? 'none';
}

describe('run-time faults: interpreter and every strategy agree', () => {
  it.each(cases)('$name', async ({ source, inputs, expect: expected }) => {
    const all = await outcomes(source, inputs);
    for (const o of all.slice(1)) expect(o).toEqual(all[0]);
    const reference = all[0]!;
    if (Array.isArray(expected)) {
      const [code, fragment, at] = expected as readonly [string, string, string];
      expect('error' in reference, JSON.stringify(reference)).toBe(true);
      const text = (reference as { error: string }).error;
      expect(text).toContain(`error[${code}]`);
      expect(text).toContain(fragment);
      expect(location(text)).toBe(at);
    } else {
      expect(reference).toEqual({ ok: expected });
    }
  });
});

describe('the fallback to the interpreter', () => {
  const source = 'def main(is: i32[n], ix: i32[m]):\n  a = map(lam i: 10 // i, is)\n  return gather(ix, a)\n';
  const inputs = { is: { kind: 'array', elem: 'i32', shape: [3], data: i32s(1, 1, 0) }, ix: { kind: 'array', elem: 'i32', shape: [2], data: i32s(0, 1) } } as const;

  it('is recorded on the execution when the fused run failed and the interpreter did not', async () => {
    const compiler = new Compiler(source);
    const none = await compiler.execute(inputs, { strategy: 'none' });
    expect(none.fallback?.code).toBe('E401');
    expect(none.run).toBeUndefined();
    const interpreted = await compiler.execute(inputs, { interpret: true });
    expect(interpreted.fallback).toBeUndefined();
    const fine = await compiler.execute({ ...inputs, is: { ...inputs.is, data: i32s(1, 1, 1) } }, { strategy: 'none' });
    expect(fine.fallback).toBeUndefined();
  });

  it('is visible through the public API as execute().fallback', async () => {
    const program = compile(source);
    const none = await program.execute({ is: i32s(1, 1, 0), ix: i32s(0, 1) }, { strategy: 'none' });
    expect(plain(none.results.result!)).toEqual([10, 10]);
    expect(none.fallback?.code).toBe('E401');
    const clean = await program.execute({ is: i32s(1, 1, 2), ix: i32s(0, 2) }, { strategy: 'none' });
    expect(clean.fallback).toBeUndefined();
  });

  it.each([
    'def main(d: f64[n], ix: i32[m]):\n  k = 0\n  while k < 2:\n    d = scatter(+, d, zip(ix, generate(size(ix), lam i: 1.0)))\n    k = k + 1\n  return d\n',
    'def main(d: f64[n], ix: i32[m]):\n  return permute(+, d, lam i: i, generate(size(ix), lam i: 5.0))\n',
    'def main(d: f64[n], ix: i32[m]):\n  ys = scatter(lam o, v: v, d, zip(ix, generate(size(ix), lam i: 9.0)))\n  return reverse(ys)\n',
  ])('leaves the caller’s inputs as they were, in every strategy: %s', async (source) => {
    for (const mode of modes) {
      const d = f64s(1, 2, 3);
      const ix = i32s(0, 2);
      await compile(source).run({ d, ix }, mode);
      expect([Array.from(d), Array.from(ix)]).toEqual([[1, 2, 3], [0, 2]]);
    }
  });

  it('leaves the caller’s inputs as they were, in every strategy', async () => {
    const scatterSource = 'def main(d: f64[n], ix: i32[m], xs: f64[m]):\n  return scatter(+, d, zip(ix, xs))\n';
    for (const mode of modes) {
      const d = f64s(1, 2, 3);
      const ix = i32s(0, 2);
      const xs = f64s(10, 20);
      const program = compile(scatterSource);
      const out = await program.run({ d, ix, xs }, mode);
      expect(plain(out.result!)).toEqual([11, 2, 23]);
      expect(Array.from(d)).toEqual([1, 2, 3]);
      expect(Array.from(ix)).toEqual([0, 2]);
    }
  });
});

// ---- random programs that fault ------------------------------------------------------------
// Chains of maps that divide by (x - d), gathers through indices that may be out of range,
// takes, reverses, filters, scans, folds read back as scalars and an `if` on a fold: the
// places where a fused plan skips elements or meets faults in another order. Every mode must
// give the interpreter's outcome, diagnostic text included.

/** One random program over `is: i32[n]` and `ix: i32[m]` (statement lines and returned names). */
function faultingProgram(rng: Rng): string {
  const lines: string[] = [];
  const arrays = ['is'];
  const pick = (): string => arrays[rng.int(Math.max(0, arrays.length - 3), arrays.length - 1)]!;
  const count = rng.int(2, 6);
  for (let k = 0; k < count; k++) {
    const name = `a${k}`;
    const src = pick();
    const c = rng.int(1, 9);
    switch (rng.int(0, 8)) {
      case 0:
      case 1:
        lines.push(`${name} = map(lam x: ${c * 6} // (x - ${rng.int(0, 3)}), ${src})`);
        break;
      case 2:
        lines.push(`${name} = map(lam x: x % ${c} + ${src === 'is' ? 0 : 1}, ${src})`);
        break;
      case 3:
        lines.push(`${name} = gather(ix, ${src})`);
        break;
      case 4:
        lines.push(`${name} = take(1, ${src})`);
        break;
      case 5:
        lines.push(`${name} = reverse(${src})`);
        break;
      case 6:
        lines.push(`${name} = filter(lam x: x > ${rng.int(0, 3)}, ${src})`);
        break;
      case 7:
        lines.push(`${name} = scanl(+, ${src})`);
        break;
      default: {
        lines.push(`s${k} = fold(+, ${src})`);
        lines.push(rng.int(0, 1) === 0 ? `${name} = map(lam x: x + s${k}, ${pick()})` : `if s${k} > 10:\n    ${name} = ${src}\n  else:\n    ${name} = reverse(${src})`);
      }
    }
    arrays.push(name);
  }
  const results = [arrays[arrays.length - 1]!, ...(rng.int(0, 2) === 0 ? [arrays[rng.int(1, arrays.length - 1)]!] : [])];
  return `def main(is: i32[n], ix: i32[m]):\n  ${lines.join('\n  ')}\n  return ${[...new Set(results)].join(', ')}\n`;
}

describe('random faulting programs: every strategy gives the interpreter’s outcome', () => {
  const rng = seededRng(9);
  const programs = Array.from({ length: 80 }, (_, k) => {
    const source = faultingProgram(rng);
    const is = Int32Array.from({ length: rng.int(1, 6) }, () => rng.int(0, 4));
    const ix = Int32Array.from({ length: rng.int(1, 3) }, () => rng.int(0, 3));
    return [k, source, is, ix] as const;
  });
  it.each(programs)('program %i', async (_k, source, is, ix) => {
    const all = await outcomes(source, { is, ix });
    for (const o of all.slice(1)) expect(o, source).toEqual(all[0]);
  });
});
