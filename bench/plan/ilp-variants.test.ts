// ILP variants at 100 combinators (not in the test suite:
// `npx vitest run --config bench/plan/vitest.config.ts bench/plan/ilp-variants.test.ts`).
// The hard size for the `reads` term: seeds 1 … 7 of the random generator, each planned by every
// variant (IlpTuning: model options and HiGHS options) under a 60 s limit, so that statuses are
// proofs and process CPU time measures work rather than the shared machine's load. Per seed:
// status, branch-and-bound nodes, CPU ms. Variants run one after another in one process, after
// a warm-up (HiGHS' first solves run in V8's baseline WebAssembly tier). Branch-and-bound node
// counts swing several-fold from seed to seed between variants, so read every seed, not only
// the median.
import { it } from 'vitest';
import { plan, type IlpTuning } from '../../src/plan/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { randomProgram } from '../../test/util/index.js';

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The variants measured for docs (see bench/plan/FINDINGS.md); the first is the default. */
const variants: readonly { readonly name: string; readonly tuning: IlpTuning }[] = [
  { name: 'default', tuning: {} },
  { name: 'no-symmetry', tuning: { highsOptions: { mip_detect_symmetry: false } } },
  { name: 'no-restart', tuning: { highsOptions: { mip_allow_restart: false } } },
  { name: 'heuristics-0', tuning: { highsOptions: { mip_heuristic_effort: 0 } } },
];
const size = 100;
const seeds = [1, 2, 3, 4, 5, 6, 7];
const timeLimitSeconds = 60;

it('ILP variants at 100 combinators', { timeout: 3_600_000 }, async () => {
  const solver = createSolverLoader();
  await solver.load();
  const programs = seeds.map((seed) => randomProgram(seed * 1000 + size, { combinators: size, controlFlow: false }).program);
  for (const program of programs.slice(0, 2)) await plan(program, { solver, timeLimitSeconds });
  for (const v of variants) {
    const cpus: number[] = [];
    const walls: number[] = [];
    const cells: string[] = [];
    for (const [i, program] of programs.entries()) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const p = await plan(program, { solver, timeLimitSeconds, ilpTuning: v.tuning });
      const wall = performance.now() - t0;
      const used = process.cpuUsage(cpu0);
      const cpu = (used.user + used.system) / 1000;
      cpus.push(cpu);
      walls.push(wall);
      cells.push(`${seeds[i]}:${p.stats.status === 'optimal' ? 'opt' : `${p.stats.status} gap ${(p.stats.gap ?? 0).toFixed(3)}`}/${p.stats.nodes} nodes/${cpu.toFixed(0)} ms`);
    }
    console.log(`${v.name.padEnd(13)} median cpu ${median(cpus).toFixed(0)} ms wall ${median(walls).toFixed(0)} ms  ${cells.join('  ')}`);
  }
});
