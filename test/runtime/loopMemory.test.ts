// Compiled `while` loops run in constant memory (issue 9, H3): a loop of many iterations must
// neither keep its iterations' arrays alive nor make the run's own record grow with them. The
// record once held one entry per allocation, so `while True` over a small array grew by
// gigabytes while the interpreter stayed flat.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, test } from 'vitest';
import { generateProgram } from '../../src/codegen/index.js';
import { Compiler } from '../../src/driver/index.js';
import type { TypedArray } from '../../src/ir/scalarOps.js';
import { allocationCounts, Runtime } from '../../src/runtime/helpers.js';
import { array } from '../ir/builders.js';

const strategies = ['ilp', 'greedy-down', 'greedy-up', 'none'] as const;

// At least two arrays per iteration whatever the plan (the reversed values must be in memory
// before the zipWith reads them backwards, and the carried result), sized by the input.
const loop = `
def main(xs: f64[n], iterations: i32[m]):
  k = 0
  while k < iterations[0]:
    ys = map(lam x: x * 0.5 + 1.0, xs)
    xs = zipWith(lam a, b: a + b * 0.0, ys, reverse(ys))
    k = k + 1
  return xs, k
`;

async function runLoop(strategy: (typeof strategies)[number], iterations: number, size: number) {
  const compiler = new Compiler(loop, { fileName: 'loop.fuse' });
  const execution = await compiler.execute(
    { xs: array('f64', [size], new Array<number>(size).fill(0)), iterations: array('i32', [1], [iterations]) },
    { strategy, timeLimitSeconds: 5 },
  );
  return execution;
}

describe('the record of a run does not grow with the iterations of a loop', () => {
  test.each(strategies)('under %s, 20,000 iterations record one entry per allocation site, with the totals', async (strategy) => {
    const short = (await runLoop(strategy, 3, 16)).run!.stats;
    const long = (await runLoop(strategy, 20000, 16)).run!.stats;
    // The same sites allocate, however long the loop runs: entries do not pile up per iteration.
    expect(long.allocations.map((a) => a.array)).toEqual(short.allocations.map((a) => a.array));
    expect(long.allocations.length).toBeLessThan(10);
    // The totals still count every allocation: the loop's sites ran once per iteration.
    const inLoop = long.allocations.filter((a) => a.count > 1);
    expect(inLoop.length).toBeGreaterThan(0);
    for (const a of inLoop) {
      expect(a.count, a.array).toBe(20000);
      expect(a.elements, a.array).toBe(20000 * 16);
      // f64 data or i32 indices (a reverse's), 16 elements each time.
      expect([16 * 8, 16 * 4], a.array).toContain(a.largestBytes);
      expect(a.bytes, a.array).toBe(20000 * a.largestBytes);
    }
    expect(long.bytesAllocated).toBe(long.allocations.reduce((s, a) => s + a.bytes, 0));
  });

  test('a site that allocates different sizes records the largest one', async () => {
    const compiler = new Compiler('def main(xs: f64[n]):\n  while size(xs) < 40:\n    xs = generate(size(xs) * 2, lam i: xs[i // 2])\n  return xs\n');
    const { run } = await compiler.execute({ xs: array('f64', [5], [1, 2, 3, 4, 5]) }, { strategy: 'none' });
    const grown = run!.stats.allocations.filter((a) => a.count === 3);
    expect(grown.length).toBeGreaterThan(0);
    for (const a of grown) {
      expect(a.elements).toBe(10 + 20 + 40);
      expect(a.largestBytes).toBe(40 * 8);
    }
  });
});

/** `gc()` in this process: the test forces collections to see which buffers are still reachable. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/**
 * A runtime that, before each allocation, collects garbage and notes the bytes of live array
 * buffers (at every allocation: a backing store is freed only by a collection after the one that
 * finds it dead, so sparser collections see a few dead arrays as live).
 */
class Watched extends Runtime {
  peak = 0;

  constructor(
    private readonly gc: () => void,
    ...args: ConstructorParameters<typeof Runtime>
  ) {
    super(...args);
  }

  override alloc(k: number, n: number): TypedArray {
    this.gc();
    this.peak = Math.max(this.peak, process.memoryUsage().arrayBuffers);
    return super.alloc(k, n);
  }
}

describe('an iteration\'s arrays become unreachable once the next no longer needs them', () => {
  // Two plans (every collection takes a while in a test process): the most arrays, the fewest.
  test.each(['none', 'ilp'] as const)('under %s, live array buffers stay within a few arrays over 20 iterations of 2 MiB arrays', async (strategy) => {
    const gc = collector();
    const size = 262144; // 2 MiB of f64 per array; 20 iterations allocate at least 40 of them
    const arrayBytes = size * 8;
    const { program, plan } = await runLoop(strategy, 1, size);
    const generated = generateProgram(program, plan!, { counters: false });
    const main = new Function(`'use strict';\n${generated.text}return main;\n`)() as (rt: Runtime, inputs: readonly unknown[]) => unknown[];
    const record = {
      allocations: allocationCounts(generated.allocations.length),
      clusterMs: new Array<number>(generated.clusters.length).fill(0),
      clusterCalls: new Array<number>(generated.clusters.length).fill(0),
      counts: new Float64Array(generated.slots.length),
    };
    const tables = { sites: generated.sites, slots: generated.slots, allocations: generated.allocations, clusterCount: generated.clusters.length };
    const rt = new Watched(gc, tables, undefined, Infinity, record);
    gc();
    const baseline = process.memoryUsage().arrayBuffers;
    const result = main(rt, [{ data: new Float64Array(size), shape: [size] }, { data: new Int32Array([20]), shape: [1] }]);
    expect(result[1]).toBe(20);
    expect(record.allocations.count.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(40);
    // The input, the carried array, this iteration's and the previous iteration's (a backing
    // store may be freed a little after its collection): a handful of arrays, not 40.
    expect((rt.peak - baseline) / arrayBytes).toBeLessThan(12);
  });
});
