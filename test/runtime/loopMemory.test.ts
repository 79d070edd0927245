// Compiled `while` loops run in constant memory (issue 9, H3): a loop of many iterations must
// neither keep its iterations' arrays alive nor make the run's own record grow with them. The
// record once held one entry per allocation, so `while True` over a small array grew by
// gigabytes while the interpreter stayed flat. With a memory plan (issue 11) a loop allocates
// nothing per iteration at all: its arrays live on loop pairs and slots of the executable's
// pool, so from the second run on the bytes a run allocates do not depend on its iterations.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, test } from 'vitest';
import { generateProgram } from '../../src/codegen/index.js';
import { Compiler } from '../../src/driver/index.js';
import type { TypedArray } from '../../src/ir/scalarOps.js';
import { allocationsOf, Runtime, runRecord } from '../../src/runtime/helpers.js';
import { compileProgram } from '../../src/runtime/index.js';
import { interpret } from '../../src/interp/index.js';
import { planMemory } from '../../src/memory/index.js';
import { array } from '../ir/builders.js';
import { expectSameValues } from './equal.js';
import { allFresh, ownSlots } from './memoryPlans.js';

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
  test.each(strategies)('under %s, 20,000 iterations with fresh arrays record one entry per allocation site, with the totals', async (strategy) => {
    // Every array fresh (what a loop the planner cannot pair gets): the loop's sites then run
    // once per iteration, and their record still holds one entry each.
    const { program, plan } = await runLoop(strategy, 1, 16);
    const exe = compileProgram(program, plan!, { memory: allFresh(program, plan!) });
    const run = (k: number) => exe.run([array('f64', [16], new Array<number>(16).fill(0)), array('i32', [1], [k])]).stats;
    const short = run(3);
    const long = run(20000);
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

  // On purpose, no longer "the loop's sites ran once per iteration": with loop pairs nothing in
  // the loop allocates after the pool has its buffers.
  test.each(strategies)('under %s, with loop pairs a run allocates the same bytes for 1, 10 and 100 iterations from the second run on', async (strategy) => {
    const { program, plan } = await runLoop(strategy, 1, 16);
    const memory = ownSlots(program, plan!);
    expect(Object.values(memory.buffers).some((b) => b.kind === 'pair')).toBe(true);
    const exe = compileProgram(program, plan!, { memory, poisonBuffers: true });
    const inputs = (k: number) => [array('f64', [16], Array.from({ length: 16 }, (_, i) => i * 0.5)), array('i32', [1], [k])];
    // Sizes read at run time: a pair's second slot gets its buffer at the loop's second
    // iteration, so the first run loops twice.
    const first = exe.run(inputs(2)).stats;
    expect(first.poolBytes).toBeGreaterThan(0);
    const bytes = [1, 10, 100].map((k) => {
      const run = exe.run(inputs(k));
      expectSameValues(run.results, interpret(program, inputs(k)), `${k} iterations`);
      expect(run.stats.poolBytes).toBe(first.poolBytes);
      return run.stats.bytesAllocated;
    });
    // Only the result's copy (16 f64) is allocated, whatever the iterations.
    expect(bytes).toEqual([16 * 8, 16 * 8, 16 * 8]);
  });

  // The real planner (what the driver compiles with): nothing in the loop allocates per
  // iteration, whatever the plan; the result is written straight into its buffer or copied once.
  test.each(strategies)('under %s, with the real memory plan a run allocates the same bytes for 1, 10 and 100 iterations from the second run on', async (strategy) => {
    const { program, plan } = await runLoop(strategy, 1, 16);
    const memory = planMemory(program, plan!);
    expect(Object.values(memory.buffers).some((b) => b.kind === 'fresh')).toBe(false);
    const exe = compileProgram(program, plan!, { memory, poisonBuffers: true });
    const inputs = (k: number) => [array('f64', [16], Array.from({ length: 16 }, (_, i) => i * 0.25)), array('i32', [1], [k])];
    exe.run(inputs(2));
    const bytes = [1, 10, 100].map((k) => {
      const run = exe.run(inputs(k));
      expectSameValues(run.results, interpret(program, inputs(k)), `${k} iterations`);
      expect(run.stats.allocations.every((a) => a.count <= 1), `${k} iterations`).toBe(true);
      return run.stats.bytesAllocated;
    });
    expect(new Set(bytes).size).toBe(1);
    expect(bytes[0]).toBeLessThanOrEqual(16 * 8);
  });

  test('a fold over a fused scanr inside a loop keeps its row buffer in the pool', async () => {
    const source = 'def main(m: f64[r, c], k: i32[q]):\n  i = 0\n  while i < k[0]:\n    a = fold(+, m)\n    ys = scanr(+, m)\n    b = fold(+, ys)\n    m = generate(shape(m), lam p, q: m[p, q] * 0.5 + a[p] - b[p] * 0.25)\n    i = i + 1\n  return m\n';
    const inputs = (k: number) => [array('f64', [3, 4], Array.from({ length: 12 }, (_, i) => i % 5)), array('i32', [1], [k])];
    const execution = await new Compiler(source).execute({ m: inputs(1)[0]!, k: inputs(1)[1]! }, { strategy: 'ilp', timeLimitSeconds: 5 });
    const exe = compileProgram(execution.program, execution.plan!, { memory: ownSlots(execution.program, execution.plan!), poisonBuffers: true });
    expect(exe.source).toMatch(/rt\.scratch\(0, /);
    exe.run(inputs(2));
    for (const k of [1, 7, 50]) {
      const run = exe.run(inputs(k));
      expectSameValues(run.results, interpret(execution.program, inputs(k)));
      expect(run.stats.bytesAllocated).toBe(12 * 8);
    }
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
    // Every array fresh: what this test watches is the collector freeing each iteration's arrays.
    const generated = generateProgram(program, plan!, { counters: false, memory: allFresh(program, plan!) });
    const main = new Function(`'use strict';\n${generated.text}return main;\n`)() as (rt: Runtime, inputs: readonly unknown[]) => unknown[];
    const tables = { sites: generated.sites, slots: generated.slots, allocations: generated.allocations, clusterCount: generated.clusters.length, results: generated.results };
    const record = runRecord(tables);
    const rt = new Watched(gc, tables, undefined, Infinity, record);
    gc();
    const baseline = process.memoryUsage().arrayBuffers;
    const result = main(rt, [{ data: new Float64Array(size), shape: [size] }, { data: new Int32Array([20]), shape: [1] }]);
    expect(result[1]).toBe(20);
    expect(allocationsOf(generated.allocations, record).reduce((a, b) => a + b.count, 0)).toBeGreaterThanOrEqual(40);
    // The input, the carried array, this iteration's and the previous iteration's (a backing
    // store may be freed a little after its collection): a handful of arrays, not 40.
    expect((rt.peak - baseline) / arrayBytes).toBeLessThan(12);
  });
});
