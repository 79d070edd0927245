// A solver failure the planner cannot recover from is our bug: the CompilerBug carries the
// ILP as LP text (the core writes no files; the CLI writes it out, src/cli/bugReport.ts).
import { describe, expect, it } from 'vitest';
import { CompilerBug } from '../../src/diagnostics/index.js';
import { plan } from '../../src/plan/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { simple2 } from './fixtures.js';

const solver = createSolverLoader();

describe('an ILP that HiGHS cannot solve', () => {
  it('is a CompilerBug carrying its model as LP text', async () => {
    // An objective bound below every plan's cost, and no start: HiGHS proves the model
    // infeasible, which an ILP of ours never is.
    const failure = await plan(simple2(), { solver, ilpTuning: { warmStart: false, highsOptions: { objective_bound: -1 } } }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(CompilerBug);
    const bug = failure as CompilerBug;
    expect(bug.message).toMatch(/the fusion ILP is infeasible \(HiGHS status \d+\); its model is attached as model\.lp/);
    expect(bug.attachment?.fileName).toBe('model.lp');
    expect(bug.attachment?.text).toMatch(/^(\\.*\n)*minimize/im);
  });
});
