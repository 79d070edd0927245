// HiGHS options from IlpTuning reach the solver (bench/plan/ilp-variants.test.ts relies on it).
import { describe, expect, it } from 'vitest';
import type { IlpModel } from '../../src/plan/ilp/model.js';
import { createSolverLoader, solveModel } from '../../src/plan/ilp/solver.js';

// min x + y subject to x + y ≥ 1.5, x, y integer in [0, 2]: optimum 2.
const model: IlpModel = {
  columns: [
    { name: 'x', lower: 0, upper: 2, integer: true, cost: 1 },
    { name: 'y', lower: 0, upper: 2, integer: true, cost: 1 },
  ],
  rows: [{ name: 'r', lower: 1.5, upper: Infinity, cols: [0, 1], coefs: [1, 1] }],
  offset: 0,
  layout: { pi: [], order: [], manifest: [], fused: [], piMax: -1, streams: [], recompute: [], elide: [] },
};

describe('SolveOptions.highsOptions', () => {
  it('are set on the model: an option HiGHS does not know is refused', async () => {
    const handle = await createSolverLoader().load();
    expect(() => solveModel(handle, model, { highsOptions: { no_such_option: 1 } as never })).toThrow();
  });
  it('leave the optimum alone when they only change the search', async () => {
    const handle = await createSolverLoader().load();
    const result = solveModel(handle, model, { highsOptions: { presolve: 'off', mip_detect_symmetry: false } });
    expect(result.outcome).toBe('optimal');
    expect(result.objective).toBe(2);
  });
});
