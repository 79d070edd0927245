// Dependences that are not reads: scalars computed by control flow, and sizes known only at run
// time. Without them a plan could run a node before the value it needs exists (found by the
// fused executor's random tests).
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/index.js';
import type { Strategy } from '../../src/plan/types.js';

const strategies: readonly Strategy[] = ['ilp', 'greedy-down', 'greedy-up', 'none'];
const xs = new Float64Array([0.25, 0.75, 0.5, 1.5, 0.1, 0.9]);

describe.each(strategies)('under %s', (strategy) => {
  it('a scalar computed by a while loop is used only after the loop', async () => {
    const p = compile('def main(xs: f64[n], k: i32):\n  s = 0.0\n  it = 0\n  while it < k:\n    s = s + 1.5\n    it = it + 1\n  return map(lam x: x + s, xs)\n');
    const { result } = await p.run({ xs, k: 2 }, { strategy });
    expect(Array.from((result as { data: Float64Array }).data)).toEqual(Array.from(xs, (x) => x + 3));
  });

  it('the size of a while loop output is asked only after the loop', async () => {
    const p = compile('def main(xs: f64[n], k: i32):\n  ys = xs\n  it = 0\n  while it < k:\n    ys = map(lam y: y + 1.0, ys)\n    it = it + 1\n  zs = generate(size(ys), lam i: f64(i))\n  return (ys, zs)\n');
    const { zs } = await p.run({ xs, k: 2 }, { strategy });
    expect(Array.from((zs as { data: Float64Array }).data)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("the size of filter's result (read from its counts) is asked only after the counts exist", async () => {
    const p = compile('def main(xs: f64[n]):\n  ys = filter(lam x: x > 0.5, xs)\n  zs = generate(size(ys), lam i: f64(i) * 2.0)\n  return (ys, zs)\n');
    const { ys, zs } = await p.run({ xs }, { strategy });
    expect(Array.from((ys as { data: Float64Array }).data)).toEqual([0.75, 1.5, 0.9]);
    expect(Array.from((zs as { data: Float64Array }).data)).toEqual([0, 2, 4]);
  });
});
