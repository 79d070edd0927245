// The ILP strategy's time limit on large programs (not in the test suite):
//   N=1000,2000 LIMIT=10 npx vitest run --config bench/plan/vitest.config.ts bench/plan/time-limit.test.ts
// For random programs of N combinators (one block: controlFlow false; CF=1 for nested blocks),
// the wall time of plan() from its call (graphs, greedy walks, model, warm start, HiGHS,
// extraction; HiGHS loading excluded) and of the validation the driver runs after it, against
// the limit; status, objective, bound and gap; both greedy plans' objectives beside it (the ILP
// plan must never cost more than the better one); the process's resident memory.
import { it } from 'vitest';
import { plan } from '../../src/plan/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { assertValidPlan } from '../../src/check/validate.js';
import { randomProgram } from '../../test/util/index.js';

const sizes = (process.env['N'] ?? '1000,2000').split(',').map(Number);
const limit = Number(process.env['LIMIT'] ?? 10);
const controlFlow = process.env['CF'] === '1';

it('time limit on large programs', { timeout: 3_600_000 }, async () => {
  const solver = createSolverLoader();
  await solver.load();
  const lines: string[] = [];
  for (const n of sizes) {
    const { program } = randomProgram(n, { combinators: n, controlFlow });
    const t0 = performance.now();
    const p = await plan(program, { solver, timeLimitSeconds: limit });
    const planMs = performance.now() - t0;
    assertValidPlan(program, p);
    const totalMs = performance.now() - t0;
    const down = await plan(program, { solver, strategy: 'greedy-down' });
    const up = await plan(program, { solver, strategy: 'greedy-up' });
    const s = p.stats;
    lines.push(
      `${n} combinators, limit ${limit} s: plan ${planMs.toFixed(0)} ms, with validation ${totalMs.toFixed(0)} ms (${((100 * totalMs) / (limit * 1000)).toFixed(1)} % of the limit); ` +
        `${s.status} objective ${s.objective} bound ${s.bound} gap ${s.gap?.toFixed(3)}; greedy-down ${down.stats.objective}, greedy-up ${up.stats.objective}; ` +
        `rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB` + (s.notes.length > 0 ? `\n  notes: ${s.notes.filter((x) => !x.startsWith('recompute')).join(' | ')}` : ''),
    );
    console.log(lines[lines.length - 1]);
  }
  console.log(lines.join('\n'));
});
