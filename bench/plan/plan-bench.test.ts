// Planner benchmark (not in the test suite: `npx vitest run --config bench/plan/vitest.config.ts`).
// HiGHS load time first, then, side by side per variant of the ILP path (IlpTuning): the median
// plan time of every shared example once HiGHS is loaded and warm, and for random programs of
// 25 … 400 combinators (5 seeds each, 20 s limit) the median and max time, statuses and max gap;
// greedy-down alongside for scale. Times are wall-clock on whatever else the machine is doing,
// with this process's CPU time beside them (user + system, so other processes' load does not
// count): compare variants within one run only.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'vitest';
import { emitLp } from '../../src/report/render.js';
import { plan, type IlpTuning } from '../../src/plan/index.js';
import { programGraphs } from '../../src/graph/program.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { paperExamples } from '../../test/plan/fixtures.js';
import { randomProgram } from '../../test/util/index.js';

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Runs `f`, returning its wall-clock and process CPU milliseconds. */
async function timed(f: () => Promise<unknown>): Promise<{ readonly wall: number; readonly cpu: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await f();
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { wall, cpu: (cpu.user + cpu.system) / 1000 };
}

/** Variants compared; the first is the default. Edit to compare others (see IlpTuning). */
const variants: readonly { readonly name: string; readonly tuning: IlpTuning }[] = [
  { name: 'default', tuning: {} },
  { name: 'cold-start', tuning: { warmStart: false } },
  { name: 'no-cuts', tuning: { cuts: false } },
];
const sizes = [25, 50, 100, 200, 400];
const seeds = [1, 2, 3, 4, 5];
const timeLimitSeconds = 20;

it('plan times', { timeout: 3_600_000 }, async () => {
  const solver = createSolverLoader();
  const { loadMs } = await solver.load();
  const lines = [`HiGHS load: ${loadMs.toFixed(0)} ms`];
  // Warm-up: the first solves run in V8's baseline WebAssembly tier.
  for (const ex of paperExamples) await plan(ex.build(), { solver });
  for (const ex of paperExamples) {
    const cells = [];
    for (const v of variants) {
      const times: number[] = [];
      const cpus: number[] = [];
      for (let i = 0; i < 7; i++) {
        const { wall, cpu } = await timed(() => plan(ex.build(), { solver, ilpTuning: v.tuning }));
        times.push(wall);
        cpus.push(cpu);
      }
      cells.push(`${v.name} ${median(times).toFixed(2)} ms (cpu ${median(cpus).toFixed(2)})`);
    }
    lines.push(`${ex.name.padEnd(18)} ${cells.join('  |  ')}`);
  }
  for (const size of sizes) {
    const runs = [...variants.map((v) => ({ name: v.name, options: { strategy: 'ilp' as const, ilpTuning: v.tuning } })), { name: 'greedy-down', options: { strategy: 'greedy-down' as const } }];
    for (const run of runs) {
      const times: number[] = [];
      const cpus: number[] = [];
      const statuses: string[] = [];
      const gaps: number[] = [];
      for (const seed of seeds) {
        const { program } = randomProgram(seed * 1000 + size, { combinators: size, controlFlow: false });
        let status = '';
        let gap = 0;
        const { wall, cpu } = await timed(async () => {
          const p = await plan(program, { solver, timeLimitSeconds, ...run.options });
          status = p.stats.status;
          gap = p.stats.gap ?? 0;
        });
        times.push(wall);
        cpus.push(cpu);
        statuses.push(status);
        gaps.push(gap);
      }
      lines.push(
        `${String(size).padStart(3)} combinators ${run.name.padEnd(11)} median ${median(times).toFixed(1)} ms (cpu ${median(cpus).toFixed(1)})  max ${Math.max(...times).toFixed(1)} ms  statuses ${statuses.join(',')}  max gap ${Math.max(...gaps).toFixed(3)}`,
      );
      console.log(lines[lines.length - 1]);
    }
  }
  console.log(lines.join('\n'));
});

/** CBC on one LP file with a time limit: wall milliseconds, and its objective when proven. */
function cbc(path: string, seconds: number): { readonly ms: number; readonly status: string; readonly objective: number | null } {
  const t0 = performance.now();
  const run = spawnSync('cbc', [path, 'sec', String(seconds), 'solve', 'quit'], { encoding: 'utf8', timeout: (seconds + 30) * 1000 });
  const ms = performance.now() - t0;
  const out = `${run.stdout}\n${run.stderr}`;
  const objective = /Objective value:\s+(-?[\d.eE+-]+)/.exec(out);
  const status = /Result - Optimal solution found/.test(out) ? 'optimal' : /Stopped on time/.test(out) ? 'time-limit' : 'error';
  return { ms, status, objective: objective === null ? null : Number(objective[1]) };
}

const cbcFound = spawnSync('cbc', ['-quit'], { encoding: 'utf8' }).status !== null;

// The same models (the root block's LP, reads+writes) solved by CBC beside HiGHS, when `cbc` is
// installed (apt-get install coinor-cbc). Random programs have no control flow, so the root
// block's LP is the whole model.
it.runIf(cbcFound)('HiGHS and CBC side by side on the same LPs', { timeout: 3_600_000 }, async () => {
  const solver = createSolverLoader();
  await solver.load();
  const dir = mkdtempSync(join(tmpdir(), 'arrayfuse-bench-cbc-'));
  const lines: string[] = [];
  const cases = [
    ...paperExamples.map((ex) => ({ name: ex.name, program: ex.build() })),
    ...sizes.flatMap((size) => seeds.map((seed) => ({ name: `${size}/seed ${seed}`, program: randomProgram(seed * 1000 + size, { combinators: size, controlFlow: false }).program }))),
  ];
  for (const { name, program } of cases) {
    const path = join(dir, `${name.replace(/[^a-z0-9]+/gi, '_')}.lp`);
    writeFileSync(path, emitLp(programGraphs(program), 'reads+writes'));
    const { wall } = await timed(() => plan(program, { solver, timeLimitSeconds }));
    const p = await plan(program, { solver, timeLimitSeconds });
    const c = cbc(path, timeLimitSeconds);
    lines.push(
      `${name.padEnd(18)} HiGHS ${wall.toFixed(1)} ms ${p.stats.status} ${p.stats.objective}  |  CBC ${c.ms.toFixed(1)} ms ${c.status} ${c.objective ?? '-'}`,
    );
    console.log(lines[lines.length - 1]);
  }
  console.log(lines.join('\n'));
});
