// The red team through the public API (src/index.ts `compile` with `threads`): inputs large
// enough that the default fork threshold forks, faults the interpreter must decide (fallback),
// `out` arrays after a fallback, donated inputs, several runs at once.

import { describe, expect, it } from 'vitest';
import { compile, type Output } from '../../../src/index.js';

const N = 200_000;

function data(): { ds: Int32Array; xs: Float64Array } {
  const ds = new Int32Array(N).map((_, i) => (i % 97) + 1);
  const xs = new Float64Array(N).map((_, i) => Math.sin(i));
  return { ds, xs };
}

function arrays(o: Output): Float64Array | Int32Array {
  return (o as { data: Float64Array | Int32Array }).data;
}

describe('red team: the public API with threads', () => {
  it('an unobserved fault in a forked chunk: the interpreter decides, as with one thread; out arrays hold its results', async () => {
    const source = 'def main(ds, xs):\n  a = force(map(lam d: 100 // d, ds))\n  b = scanl(+, xs)\n  return gather(generate(3, lam i: i), a), b\n';
    const { ds, xs } = data();
    ds[150_000] = 0;
    const one = compile(source, { threads: 1 });
    const two = compile(source, { threads: 2 });
    const e1 = await one.execute({ ds, xs });
    const e2 = await two.execute({ ds, xs });
    expect(e1.fallback?.code).toBe('E401');
    expect(e2.fallback?.code).toBe('E401');
    expect(e2.fallback?.message).toBe(e1.fallback?.message);
    expect(Array.from(arrays(e2.results['result0']!))).toEqual(Array.from(arrays(e1.results['result0']!)));
    expect(Array.from(arrays(e2.results['b']!))).toEqual(Array.from(arrays(e1.results['b']!)));
    const out = new Float64Array(N).fill(NaN);
    const e3 = await two.execute({ ds, xs }, { out: { b: out } });
    expect(e3.fallback?.code).toBe('E401');
    expect(arrays(e3.results['b']!)).toBe(out);
    expect(Array.from(out)).toEqual(Array.from(arrays(e1.results['b']!)));
    expect(ds[150_000]).toBe(0);
  });

  it('an observed fault: the same diagnostic at threads 1, 2, 3', async () => {
    const source = 'def main(ds, xs):\n  return map(lam d, x: f64(100 // d) + x, zip(ds, xs)), fold(+, map(lam d: 7 // d, ds))\n';
    const { ds, xs } = data();
    ds[180_000] = 0;
    ds[30_000] = 0;
    const messages: string[] = [];
    for (const threads of [1, 2, 3]) {
      const p = compile(source, { threads });
      await expect(p.run({ ds, xs })).rejects.toThrow();
      try {
        await p.run({ ds, xs });
      } catch (e) {
        messages.push((e as Error).message);
      }
    }
    expect(messages[1]).toBe(messages[0]);
    expect(messages[2]).toBe(messages[0]);
  });

  it('a donated input updated in place by a forked scatter; a later run without donation leaves its input alone', async () => {
    const source = 'def main(d, is, vs):\n  return scatter(+, d, zip(is, vs))\n';
    const is = new Int32Array(N).map((_, i) => (i * 7919) % 1000);
    const vs = new Int32Array(N).map((_, i) => i % 13);
    const expected = (await compile(source, { threads: 1 }).run({ d: new Int32Array(1000).fill(5), is, vs }))['result'] as { data: Int32Array };
    const p = compile(source, { threads: 2 });
    const d = new Int32Array(1000).fill(5);
    const r = (await p.run({ d, is, vs }, { donate: ['d'] }))['result'] as { data: Int32Array };
    expect(Array.from(r.data)).toEqual(Array.from(expected.data));
    const kept = new Int32Array(1000).fill(5);
    const r2 = (await p.run({ d: kept, is, vs }))['result'] as { data: Int32Array };
    expect(Array.from(r2.data)).toEqual(Array.from(expected.data));
    expect(kept.every((x) => x === 5)).toBe(true);
  });

  it('runs started together (Promise.all) on one program and on two programs give each its own results', async () => {
    const source = 'def main(xs, c):\n  return scanl(+, map(lam x: x * c, xs))\n';
    const { xs } = data();
    const p = compile(source, { threads: 2 });
    const q = compile(source, { threads: 3 });
    const cs = [1, 2, 3, 4, 5, 6];
    const results = await Promise.all(cs.map((c, k) => (k % 2 === 0 ? p : q).run({ xs, c })));
    // Threads 2 and 3 share the chunk length: the same floats (README "Threads"); one thread is js, within rounding.
    const alone = await Promise.all(cs.map((c, k) => (k % 2 === 0 ? q : p).run({ xs, c })));
    const one = compile(source, { threads: 1 });
    for (let k = 0; k < cs.length; k++) {
      const got = arrays(results[k]!['result']!);
      const other = arrays(alone[k]!['result']!);
      const bad = got.findIndex((x, i) => !Object.is(x, other[i]));
      expect(bad, `run ${k}`).toBe(-1);
      const expected = arrays((await one.run({ xs, c: cs[k]! }))['result']!);
      const far = got.findIndex((x, i) => Math.abs(x - expected[i]!) > 1e-9 * Math.max(1, Math.abs(expected[i]!)));
      expect(far, `run ${k} against one thread`).toBe(-1);
    }
  });
});
