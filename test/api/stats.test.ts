// The public `execute` reports what the fused run did, memory included: the plan's peak bytes
// and the pool the program keeps between calls.

import { expect, it } from 'vitest';
import { compile } from '../../src/index.js';

it('execute returns the run stats: the memory plan peak, the pool, and nothing allocated in steady state with out', async () => {
  // `reverse` reads its input backwards, so `ys` is written to memory before the zipWith reads it.
  const program = compile('def main(xs: f64[n]):\n  ys = map(lam x: x * 2.0, xs)\n  return zipWith(lam a, b: a + b, ys, reverse(ys))\n', { strategy: 'none' });
  const xs = new Float64Array([1, 2, 3, 4]);
  const first = await program.execute({ xs });
  expect(first.stats).toBeDefined();
  expect(first.stats!.peakBytes).toBeGreaterThan(0);
  expect(first.stats!.poolBytes).toBe(first.stats!.peakBytes);
  const out = new Float64Array(4);
  const again = await program.execute({ xs }, { out: { result: out } });
  expect(again.results.result).toEqual({ data: new Float64Array([10, 10, 10, 10]), shape: [4] });
  expect(again.stats!.bytesAllocated).toBe(0);
  const interpreted = await program.execute({ xs }, { interpret: true });
  expect(interpreted.stats).toBeUndefined();
});
