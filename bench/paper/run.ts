// `npm run bench:paper`: reproduces the paper's evaluation (§5: Figures 3 and 4, Table 2) on our
// programs. For every program of the registry and every size of the chosen mode it measures
// every strategy (harness.ts), solves the reads+writes models with CBC when `cbc` is installed
// (solvers.ts), and writes results.json, results.md and the two SVG charts into the output
// directory (bench/results/ is gitignored). Exits 1 when any strategy failed to plan, run or
// verify. docs/EVALUATION.md holds a full run's numbers next to the paper's.
//
//   npm run bench:paper                      # full sizes (about 15 minutes on 2 cores)
//   npm run bench:paper -- --mode quick      # smallest sizes, one repetition: seconds
//   npm run bench:paper -- --programs Multigrid,FlashAttention --strategies ilp:reads+writes,none
//   npm run bench:paper -- --threads all --programs Multigrid,LULESH,FlashAttention   # with the parallel bar
//   npm run bench:paper -- --from-json bench/results/paper-full/results.json   # tables and charts again

import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { findRepoRoot, nonNegative, positiveInt } from '../cli.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { allStrategies, BASELINE_ID, measureProgram, parallelStrategy, type ProgramResult } from './harness.js';
import { loadRegistry, type SizeName } from './registry.js';
import { renderCharts, renderMarkdown, type MachineInfo, type PaperResults, type SolveTimeRow } from './report.js';
import { cbcAvailable, solveWithCbc } from './solvers.js';
import { parseThreads } from '../multicore/threads.js';

export interface PaperOptions {
  readonly mode: SizeName;
  /** Program names to run (default: all of the registry). */
  readonly programs?: readonly string[];
  /** Strategy ids to run (default: all; the baseline is always added). */
  readonly strategies?: readonly string[];
  /** Overrides every size's repetitions. */
  readonly repetitions?: number;
  /** Where results go; default bench/results/paper-<mode>. */
  readonly outDir?: string;
  /** CBC's budget per program and size; 0 skips CBC. */
  readonly cbcSeconds: number;
  readonly ilpTimeLimitSeconds: number;
  /**
   * Threads of the parallel bar: the baseline's plan also run by the multicore back end with
   * this many threads (default 1: no such bar).
   */
  readonly threads?: number;
  /** The command line recorded in the results. */
  readonly command: string;
  readonly log?: (line: string) => void;
}

/** HEAD's commit and whether src/ differs from it (the generated code depends on src/). */
function gitState(repoRoot: string): { commit: string; srcDirty: boolean } {
  const git = (args: readonly string[]) => spawnSync('git', [...args], { cwd: repoRoot, encoding: 'utf8' });
  const head = git(['rev-parse', 'HEAD']);
  if (head.status !== 0) return { commit: 'unknown (not a git checkout)', srcDirty: false };
  const status = git(['status', '--porcelain', '--', 'src']);
  return { commit: head.stdout.trim(), srcDirty: status.stdout.trim().length > 0 };
}

function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model.trim() ?? 'unknown CPU',
    node: process.versions.node,
    platform: `${process.platform} ${process.arch}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    loadAverage: loadavg(),
  };
}

/** Runs the evaluation and writes its files; returns the results. */
export async function runPaperBenchmark(options: PaperOptions): Promise<{ results: PaperResults; outDir: string }> {
  const log = options.log ?? (() => {});
  const started = performance.now();
  const repoRoot = findRepoRoot();
  const registry = await loadRegistry(repoRoot, join(dirname(fileURLToPath(import.meta.url)), '..', 'programs'));
  const wanted = options.programs;
  const programs = wanted === undefined ? registry.programs : registry.programs.filter((p) => wanted.includes(p.name));
  const unknownPrograms = (wanted ?? []).filter((n) => !registry.programs.some((p) => p.name === n));
  if (unknownPrograms.length > 0) throw new Error(`unknown program(s) ${unknownPrograms.join(', ')}; known: ${registry.programs.map((p) => p.name).join(', ')}`);
  const ids = options.strategies;
  const chosen = ids === undefined ? allStrategies : allStrategies.filter((s) => s.id === BASELINE_ID || ids.includes(s.id));
  const threads = options.threads ?? 1;
  const strategies = threads > 1 ? [...chosen, parallelStrategy(threads)] : chosen;
  const unknownStrategies = (ids ?? []).filter((id) => !allStrategies.some((s) => s.id === id));
  if (unknownStrategies.length > 0) throw new Error(`unknown strateg(ies) ${unknownStrategies.join(', ')}; known: ${allStrategies.map((s) => s.id).join(', ')}`);

  const solver = createSolverLoader();
  const useCbc = options.cbcSeconds > 0 && cbcAvailable();
  const measured: ProgramResult[] = [];
  const solveTimes: SolveTimeRow[] = [];
  for (const program of programs) {
    for (const size of program.sizes[options.mode]) {
      const result = await measureProgram(program, size, {
        repoRoot,
        solver,
        strategies,
        repetitions: options.repetitions,
        ilpTimeLimitSeconds: options.ilpTimeLimitSeconds,
        log,
      });
      measured.push(result);
      if (program.solveTimeTable === true) {
        const baseline = result.strategies.find((s) => s.id === BASELINE_ID);
        let cbc = null;
        if (useCbc) {
          log(`  CBC on ${program.name} ${size.label} (budget ${options.cbcSeconds} s)`);
          cbc = solveWithCbc(program, size, repoRoot, options.cbcSeconds);
          log(`  CBC: ${cbc.status} ${cbc.objective ?? ''} ${(cbc.wallMs / 1000).toFixed(1)} s ${cbc.detail}`);
        }
        solveTimes.push({
          program: program.name,
          size: size.label,
          combinators: result.combinators,
          highs: baseline?.plan == null ? null : { status: baseline.plan.status, planMs: baseline.plan.planMs, nodes: baseline.plan.nodes, objective: baseline.plan.objective },
          cbc,
        });
      }
    }
  }
  const failures = measured.flatMap((p) => p.strategies.filter((s) => s.error !== null).map((s) => `${p.program} (${p.size}), ${s.id}: ${s.error}`));
  const results: PaperResults = {
    mode: options.mode,
    date: new Date().toISOString(),
    command: options.command,
    ...gitState(repoRoot),
    machine: machineInfo(),
    totalSeconds: (performance.now() - started) / 1000,
    programs: measured,
    skipped: registry.skipped,
    solveTimes,
    failures,
    threads,
  };
  const outDir = resolve(options.outDir ?? join(repoRoot, 'bench', 'results', `paper-${options.mode}`));
  writeReport(results, outDir);
  return { results, outDir };
}

/** Writes results.json, results.md and the two charts. */
export function writeReport(results: PaperResults, outDir: string): void {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(outDir, 'results.md'), renderMarkdown(results));
  const charts = renderCharts(results);
  writeFileSync(join(outDir, 'figure3.svg'), charts.figure3);
  writeFileSync(join(outDir, 'figure4.svg'), charts.figure4);
}

function list(text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
}

async function main(argv: readonly string[]): Promise<number> {
  const command = new Command('bench:paper')
    .description("reproduce the paper's evaluation (Figures 3 and 4, Table 2)")
    .option('--mode <mode>', 'quick (CI smoke sizes) or full', 'full')
    .option('--programs <names>', 'comma-separated program names', list)
    .option('--strategies <ids>', `comma-separated strategy ids (${allStrategies.map((s) => s.id).join(', ')})`, list)
    .option('--repetitions <n>', 'timed repetitions for every size', positiveInt)
    .option('--out <dir>', 'output directory (default bench/results/paper-<mode>)')
    .option('--cbc-seconds <s>', 'CBC budget per program and size; 0 skips CBC', nonNegative, 600)
    .option('--ilp-time-limit <s>', 'HiGHS time limit per plan, seconds', nonNegative, 300)
    .option('--threads <n>', 'also run the ILP (reads+writes) plan on the multicore back end with n threads ("all" = the available parallelism): a parallel bar in Figure 3', parseThreads, 1)
    .option('--from-json <file>', 'measure nothing: write the report again from an earlier results.json (into --out or its directory)')
    .parse([...argv], { from: 'user' });
  const o = command.opts<{ mode: string; programs?: string[]; strategies?: string[]; repetitions?: number; out?: string; cbcSeconds: number; ilpTimeLimit: number; threads: number; fromJson?: string }>();
  if (o.fromJson !== undefined) {
    const results = JSON.parse(readFileSync(o.fromJson, 'utf8')) as PaperResults;
    const outDir = resolve(o.out ?? dirname(o.fromJson));
    writeReport(results, outDir);
    process.stdout.write(`wrote ${outDir}/results.{json,md}, figure3.svg, figure4.svg from ${o.fromJson}\n`);
    return 0;
  }
  if (o.mode !== 'quick' && o.mode !== 'full') {
    process.stderr.write(`--mode must be quick or full, not ${o.mode}\n`);
    return 2;
  }
  const { results, outDir } = await runPaperBenchmark({
    mode: o.mode,
    programs: o.programs,
    strategies: o.strategies,
    repetitions: o.repetitions,
    outDir: o.out,
    cbcSeconds: o.cbcSeconds,
    ilpTimeLimitSeconds: o.ilpTimeLimit,
    threads: o.threads,
    command: ['npm run bench:paper --', ...argv].join(' ').replace(/ --$/, ''),
    log: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(`\nwrote ${outDir}/results.{json,md}, figure3.svg, figure4.svg (${results.totalSeconds.toFixed(0)} s; free memory ${(freemem() / 2 ** 30).toFixed(1)} GiB)\n`);
  for (const f of results.failures) process.stderr.write(`FAILED ${f}\n`);
  return results.failures.length === 0 ? 0 : 1;
}

if (process.argv[1] !== undefined && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
