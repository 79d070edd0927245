// Planner benchmark (not in the test suite: `npx vitest run --config bench/plan/vitest.config.ts`).
// Median plan time per shared example once HiGHS is loaded, and for random programs of
// 25 … 400 combinators: median time, status and gap; HiGHS load time reported separately.
import { it } from 'vitest';
import { plan } from '../../src/plan/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { paperExamples } from '../../test/plan/fixtures.js';
import { randomProgram } from '../../test/util/index.js';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

it('plan times', { timeout: 600_000 }, async () => {
  const solver = createSolverLoader();
  const { loadMs } = await solver.load();
  const lines = [`HiGHS load: ${loadMs.toFixed(0)} ms`];
  for (const ex of paperExamples) {
    const times: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      await plan(ex.build(), { solver });
      times.push(performance.now() - t0);
    }
    lines.push(`${ex.name.padEnd(18)} median ${median(times).toFixed(2)} ms`);
  }
  for (const size of [25, 50, 100, 200, 400]) {
    for (const strategy of ['ilp', 'greedy-down'] as const) {
      const times: number[] = [];
      const statuses: string[] = [];
      const gaps: number[] = [];
      for (let seed = 1; seed <= 5; seed++) {
        const { program } = randomProgram(seed * 1000 + size, { combinators: size, controlFlow: false });
        const t0 = performance.now();
        const p = await plan(program, { solver, strategy, timeLimitSeconds: 20 });
        times.push(performance.now() - t0);
        statuses.push(p.stats.status);
        gaps.push(p.stats.gap ?? 0);
      }
      lines.push(`${String(size).padStart(3)} combinators ${strategy.padEnd(11)} median ${median(times).toFixed(1)} ms  max ${Math.max(...times).toFixed(1)} ms  statuses ${[...new Set(statuses)].join('/')}  max gap ${Math.max(...gaps).toFixed(3)}`);
    }
  }
  console.log(lines.join('\n'));
});
