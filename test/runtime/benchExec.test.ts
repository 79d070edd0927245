// The execution benchmark's own check (bench/exec): at a tiny size, every example's hand-written
// loop agrees bit for bit with the fused code under every strategy and with the interpreter, so
// `npm run bench:exec` compares like with like; and a wrong result is reported, not timed.

import { describe, expect, test } from 'vitest';
import { fileURLToPath } from 'node:url';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { compareResults, measure, median, strategies } from '../../bench/exec/harness.js';
import { execPrograms, greedyBottomUpBadHand, greedyBottomUpBadInputs } from '../../bench/exec/programs.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
// measure() collects garbage between runs; without --expose-gc a no-op stands in.
const g = globalThis as { gc?: () => void };
g.gc ??= () => {};

describe('bench:exec', () => {
  const solver = createSolverLoader();

  test.each(execPrograms.map((p) => [p.name, p] as const))('%s: hand loop, every strategy and the interpreter agree', async (_, program) => {
    const n = 96;
    const m = await measure(program, program.describe(n), n, program.inputs(n), {
      repoRoot,
      solver,
      repetitions: 2,
      variants: [...strategies, 'hand', 'interpreter'],
    });
    expect(m.variants.map((v) => v.id)).toEqual([...strategies, 'hand', 'interpreter']);
    for (const v of m.variants) {
      expect(v.runsMs).toHaveLength(2);
      if (v.id !== 'hand' && v.id !== 'interpreter') expect(v.bytesAllocated).toBeGreaterThan(0);
    }
  });

  test('a result that differs in one bit is reported with its position', () => {
    expect(compareResults([new Float64Array([1, 2])], [new Float64Array([1, 2])])).toBeNull();
    expect(compareResults([new Float64Array([1, 0])], [new Float64Array([1, -0])])).toBe('result 0[1]: 0, expected 0');
    expect(compareResults([3], [4])).toBe('result 0: 4, expected 3');
    expect(compareResults([new Float64Array(2)], [new Float64Array(3)])).toBe('result 0: 3 elements, expected 2');
  });

  test('greedyBottomUpBad at the size of the memory comparison is built as the table says', () => {
    const inputs = greedyBottomUpBadInputs(3, 5);
    expect(greedyBottomUpBadHand(inputs)).toHaveLength(1);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
  });
});
