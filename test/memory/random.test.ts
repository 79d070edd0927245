// The memory planner on random programs (the shared generator, test/util) under every strategy:
// every memory plan keeps the invariants of ./check.ts (one buffer per manifest array, no two
// arrays live at once in one slot, slots large enough, results never pooled, loop results never
// in a plain slot), its static sizes extend the planner's own, and every array it sizes at
// compile time has that size at run time (the JS back end records the size of each allocation).
import { describe, expect, it } from 'vitest';
import { staticSizes, type EntrySizes } from '../../src/graph/sizes.js';
import type { Program } from '../../src/ir/types.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { memorySizes, planMemory } from '../../src/memory/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { plan } from '../../src/plan/index.js';
import type { Strategy } from '../../src/plan/types.js';
import { jsBackend } from '../../src/runtime/index.js';
import { generatorSizes, randomProgram } from '../util/index.js';
import { memoryProblems } from './check.js';

const solver = createSolverLoader();

function entryOf(program: Program, inputs: readonly InterfaceValue[]): EntrySizes {
  const out: Record<string, readonly number[] | number> = {};
  program.params.forEach((param, i) => {
    const value = inputs[i]!;
    const values = Array.isArray(value) ? value : [value];
    param.components.forEach((c, k) => {
      const v = values[k]!;
      out[c.name] = v.kind === 'array' ? v.shape : v.value;
    });
  });
  return out;
}

async function check(seed: number, size: 'small' | 'medium', strategies: readonly Strategy[], run: boolean): Promise<void> {
  const c = randomProgram(seed, generatorSizes[size]);
  const entry = entryOf(c.program, c.inputs);
  const sizes = memorySizes(c.program, entry);
  for (const [name, shape] of staticSizes(c.program, entry)) expect(sizes.get(name), `${c.description}: ${name}`).toEqual(shape);
  for (const strategy of strategies) {
    const p = await plan(c.program, { strategy, solver, shapes: entry });
    const memory = planMemory(c.program, p, entry);
    expect(memoryProblems(c.program, p, memory), `${c.description}, ${strategy}`).toEqual([]);
    expect(planMemory(c.program, p, entry), 'deterministic').toEqual(memory);
    if (!run) continue;
    const exe = jsBackend.compile(c.program, p, { memory, maxWhileIterations: 1000 });
    const { stats } = await exe.run(c.inputs);
    const bytes = new Map(memory.ranges.map((r) => [r.array, r.bytes]));
    for (const a of stats.allocations) {
      const planned = bytes.get(a.array);
      if (planned === undefined || planned === null) continue;
      expect(a.largestBytes, `${c.description}, ${strategy}: ${a.array}`).toBe(planned);
      expect(a.bytes, `${c.description}, ${strategy}: ${a.array} every time`).toBe(planned * a.count);
    }
    exe.dispose();
  }
}

describe('memory plans of random programs', () => {
  it('small programs, every strategy, sizes checked at run time', async () => {
    for (let seed = 1; seed <= 150; seed++) await check(seed, 'small', ['ilp', 'greedy-down', 'greedy-up', 'none'], true);
  }, 120_000);

  it('medium programs, heuristic strategies, sizes checked at run time', async () => {
    for (let seed = 1000; seed < 1150; seed++) await check(seed, 'medium', ['greedy-down', 'greedy-up', 'none'], true);
  }, 120_000);
});
