// Static arguments (docs/LANGUAGE.md, "Static arguments"): every scalar a program is run with
// is a compile-time constant of that run's compilation. A `for` over it unrolls, a `generate` of
// it has a static shape, a returning `if` on it is decided at compile time; each distinct value
// compiles once (counted on the back end's `compile`) and a recurring value reuses it. Results
// are checked against values computed here, fused (ILP and `none`) and interpreted alike.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { backends, compile, printProgram, type Output } from '../../src/index.js';
import { diagnosticPosition } from '../../src/diagnostics/index.js';
import { errorOf, rejectionOf } from '../util/userErrors.js';

/** `tsteps` doublings: E204 for `lower()` without a value, a chain of `tsteps` maps with one. */
const doubling = `
def main(xs: f64[n], tsteps: i32) -> f64[n]:
  ys = xs
  for t in range(tsteps):
    ys = map(lam x: x * 2.0 + f64(t), ys)
  return ys
`;

/** What `doubling` computes, independently: y ← 2y + t for t = 0 … tsteps − 1. */
function doublingOf(xs: readonly number[], tsteps: number): number[] {
  return xs.map((x) => {
    let y = x;
    for (let t = 0; t < tsteps; t++) y = y * 2 + t;
    return y;
  });
}

function dataOf(output: Output | undefined): number[] {
  if (typeof output !== 'object' || Array.isArray(output)) throw new Error(`expected an array result, got ${JSON.stringify(output)}`);
  return Array.from((output as { data: ArrayLike<number> }).data);
}

/** Counts the `js` back end's compilations (one per executable). */
function countCompiles(): { readonly count: () => number } {
  const spy = vi.spyOn(backends.js, 'compile');
  return { count: () => spy.mock.calls.length };
}

/** One thread, the `js` back end: the one whose compilations are counted. */
const js = { threads: 1 } as const;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a for loop over a scalar argument', () => {
  it('is E204 without its value, with a note naming the parameter and the --static that gives it', () => {
    const e = errorOf(() => compile(doubling, { ...js, fileName: 'doubling.fuse' }).lower());
    const d = e.diagnostics[0]!;
    expect(d.code).toBe('E204');
    expect(d.notes?.join('\n')).toContain("the value of the scalar parameter 'tsteps' is not known at compile time");
    expect(d.notes?.join('\n')).toContain('--static tsteps=VALUE');
  });

  it('unrolls for a value given without the arrays (lower, plan)', async () => {
    const program = compile(doubling, js);
    const ir = program.lower({ tsteps: 3 });
    expect(ir.body.stmts.filter((s) => s.kind === 'map')).toHaveLength(3);
    expect(printProgram(ir)).not.toContain('while');
    expect(program.lower({ tsteps: 0 }).body.stmts.filter((s) => s.kind === 'map')).toHaveLength(0);
    // The three maps fuse into one loop.
    expect((await program.plan({ tsteps: 3 }, { strategy: 'ilp' })).clusters).toHaveLength(1);
  });

  it('runs fused (ILP and none) and interpreted with the results computed here, one compilation per distinct value', async () => {
    const compiles = countCompiles();
    const program = compile(doubling, js);
    const xs = [1, -2.5, 0, 3];
    const input = (tsteps: number) => ({ xs: Float64Array.from(xs), tsteps });
    const runs: [number, number][] = [];
    for (const tsteps of [2, 5, 2, 5, 0, 2]) {
      const expected = doublingOf(xs, tsteps);
      expect(dataOf((await program.run(input(tsteps))).ys)).toEqual(expected);
      expect(dataOf((await program.run(input(tsteps), { interpret: true })).ys)).toEqual(expected);
      runs.push([tsteps, compiles.count()]);
    }
    // 2, 5 and 0 compile once each; the recurring 2 and 5 reuse their executables.
    expect(runs).toEqual([[2, 1], [5, 2], [2, 2], [5, 2], [0, 3], [2, 3]]);
    // Another strategy is another executable, per value too.
    expect(dataOf((await program.run(input(5), { strategy: 'none' })).ys)).toEqual(doublingOf(xs, 5));
    expect(dataOf((await program.run(input(5), { strategy: 'none' })).ys)).toEqual(doublingOf(xs, 5));
    expect(dataOf((await program.run(input(7), { strategy: 'none' })).ys)).toEqual(doublingOf(xs, 7));
    expect(compiles.count()).toBe(5);
    await program.dispose();
  });

  it('a negative value runs no iteration; one beyond the unrolling budget is E220 at the loop', async () => {
    const program = compile(doubling, { ...js, fileName: 'doubling.fuse' });
    expect(dataOf((await program.run({ xs: [1, 2], tsteps: -4 })).ys)).toEqual([1, 2]);
    const e = await rejectionOf(program.run({ xs: [1, 2], tsteps: 300000 }));
    expect(e.diagnostics[0]!.code).toBe('E220');
    expect(diagnosticPosition(e.diagnostics[0]!)).toBe('4:3');
  });

  it('works for a parameter named __proto__', async () => {
    const program = compile(('def main(xs: f64[n], __proto__: i32):\n  for t in range(__proto__):\n    xs = map(lam x: x + 1.0, xs)\n  return xs\n'), js);
    const inputs = JSON.parse('{"__proto__": 3}') as Record<string, unknown>;
    Object.defineProperty(inputs, 'xs', { value: [1, 2], enumerable: true });
    expect(Object.hasOwn(inputs, '__proto__')).toBe(true);
    expect(dataOf((await program.run(inputs as never)).xs)).toEqual([4, 5]);
    expect(program.lower(inputs as never).body.stmts.filter((s) => s.kind === 'map')).toHaveLength(3);
  });
});

describe('shapes and compile-time ifs on a scalar argument', () => {
  const ramp = 'def main(k: i32):\n  return generate(k, lam i: f64(i) * 0.5)\n';

  it('generate(k, …) has the static shape [k]: the result interface and the plan know the size', async () => {
    const program = compile(ramp, js);
    const ir = program.lower({ k: 5 });
    const text = printProgram(ir);
    expect(text).toContain('generate((5), ');
    for (const k of [0, 1, 5]) {
      const expected = Array.from({ length: k }, (_, i) => i * 0.5);
      for (const strategy of ['ilp', 'none'] as const) expect(dataOf((await program.run({ k }, { strategy })).result)).toEqual(expected);
      expect(dataOf((await program.run({ k }, { interpret: true })).result)).toEqual(expected);
    }
  });

  it('a size beyond 2^31 − 1 elements from a static argument is E313 at compile time', async () => {
    const e = await rejectionOf(compile('def main(k: i32):\n  return generate((k, k), lam i, j: 1.0)\n', js).run({ k: 65536 }));
    expect(e.diagnostics[0]!.code).toBe('E313');
  });

  const levels = `
def smooth(xs, k):
  if k > 1:
    return smooth(map(lam x: x * 0.5, xs), k - 1)
  else:
    return map(lam x: x + 1.0, xs)
def main(xs: f64[n], k: i32):
  return smooth(xs, k)
`;

  it('a returning if on it (recursion over levels) is decided at compile time; without the value the recursion never ends at compile time (E205)', async () => {
    const program = compile(levels, js);
    expect(errorOf(() => program.lower()).diagnostics[0]!.code).toBe('E205');
    expect(program.lower({ k: 4 }).body.stmts.filter((s) => s.kind === 'map')).toHaveLength(4);
    const xs = [8, -4, 1];
    for (const k of [1, 2, 4]) {
      const expected = xs.map((x) => x * 0.5 ** (k - 1) + 1);
      for (const strategy of ['ilp', 'none'] as const) expect(dataOf((await program.run({ xs, k }, { strategy })).result)).toEqual(expected);
      expect(dataOf((await program.run({ xs, k }, { interpret: true })).result)).toEqual(expected);
    }
  });

  it('a static value used where a run-time one would do is a constant, and a one-element array keeps a value dynamic', async () => {
    const scaled = compile('def main(xs: f64[n], a: f64):\n  return map(lam x: x * a, xs)\n', js);
    const ir = scaled.lower({ a: 2.5 });
    expect(printProgram(ir)).toContain('2.5');
    expect(dataOf((await scaled.run({ xs: [1, -2], a: 2.5 })).result)).toEqual([2.5, -5]);
    const boxed = compile('def main(xs: f64[n], a: f64[m]):\n  return map(lam x: x * a[0], xs)\n', js);
    const compiles = countCompiles();
    const first = dataOf((await boxed.run({ xs: [1, -2], a: [2.5] })).result);
    const second = dataOf((await boxed.run({ xs: [1, -2], a: [3] })).result);
    expect([first, second]).toEqual([[2.5, -5], [3, -6]]);
    expect(compiles.count()).toBe(1);
  });
});
