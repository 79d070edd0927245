// `npm run bench:memory`: what arrayfuse's runs cost in memory, side by side in one run
// (docs/EXECUTION.md, "Memory"). Four parts:
//   singleLoop  n = 10^7 f64: `run` with `out`, `run`, the hand loop into a reused array and into
//               a new one, NumPy (singleLoop.ts); minor page faults per call
//   apps        NAS MG class W and LULESH -s 10: bytes allocated per run after the first, run time,
//               faults, peak RSS; each application in a child process of its own (apps.ts)
//   scatter     histogram.fuse, a scatter-add into a loop-carried array: ILP plan vs no fusion vs
//               hand loops in place and copying (scatter.ts)
//   overhead    µs per call at n = 10 and 10^4 through each API layer (overhead.ts)
// Prints the command and Markdown tables; writes results.md and results.json to
// bench/results/memory/ (gitignored). Exits 1 when an output differs from its reference.
//
//   npm run bench:memory                                   # everything, full sizes: about 3 minutes
//   npm run bench:memory -- --parts singleLoop --n 1000000 --repetitions 5
//   npm run bench:memory -- --skip run-out                 # before `run(inputs, { out })` exists

import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { findRepoRoot, listOf, positiveInt } from '../cli.js';
import { measureApp, appNames, type AppName, type AppResult, type AppSize } from './apps.js';
import { measureOverhead, type OverheadResult } from './overhead.js';
import { appsTable, overheadTable, scatterTable, singleLoopTable, targets } from './report.js';
import { histogramSizes, measureScatter, type ScatterResult } from './scatter.js';
import { measureSingleLoop, singleLoopVariants, type SingleLoopResult, type SingleLoopVariant } from './singleLoop.js';

export type Part = 'singleLoop' | 'apps' | 'scatter' | 'overhead';
const parts: readonly Part[] = ['singleLoop', 'apps', 'scatter', 'overhead'];

// ---------------------------------------------------------------------------------------------
// Main

interface RawOptions {
  parts: Part[];
  n: number;
  repetitions: number;
  skip: SingleLoopVariant[];
  python: string;
  appSize: AppSize;
  appRuns: number;
  apps: AppName[];
  scatterSize: 'quick' | 'full';
  overheadN: string;
  rounds: number;
  out: string;
  app?: AppName;
}

/** Each application in a child process of this script, so that its peak RSS is its own. */
function appInChild(app: AppName, o: RawOptions): AppResult {
  const script = fileURLToPath(import.meta.url);
  const child = spawnSync(process.execPath, [...process.execArgv, script, '--app', app, '--app-size', o.appSize, '--app-runs', String(o.appRuns)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 2 ** 20,
  });
  if (child.status !== 0) throw new Error(`${app}: the child process failed (exit ${child.status ?? child.signal})`);
  return JSON.parse(child.stdout) as AppResult;
}

async function main(): Promise<void> {
  const cli = new Command('bench:memory')
    .option('--parts <names>', `comma-separated parts: ${parts.join(', ')}`, listOf(parts), [...parts])
    .option('--n <elements>', 'singleLoop: elements', positiveInt, 10_000_000)
    .option('--repetitions <k>', 'singleLoop and scatter: timed runs per variant', positiveInt, 15)
    .option('--skip <variants>', `singleLoop: variants to leave out (${singleLoopVariants.join(', ')})`, listOf(singleLoopVariants), [])
    .option('--python <path>', 'python with NumPy for the NumPy peer (skipped with a notice when absent)', 'python3')
    .addOption(new Option('--app-size <size>', 'apps: full = MG class W and LULESH -s 10; quick = smoke sizes').choices(['quick', 'full']).default('full'))
    .option('--app-runs <k>', 'apps: runs after the first', positiveInt, 5)
    .option('--apps <names>', `apps: ${appNames.join(', ')}`, listOf(appNames), [...appNames])
    .addOption(new Option('--scatter-size <size>', 'scatter: full = 10^6 keys into 10^6 bins, batches of 10^4').choices(['quick', 'full']).default('full'))
    .option('--overhead-n <list>', 'overhead: sizes', '10,10000')
    .option('--rounds <k>', 'overhead: rounds of calls', positiveInt, 7)
    .option('--out <dir>', 'results directory', 'bench/results/memory')
    .addOption(new Option('--app <name>', 'internal: measure one application and print its JSON').choices([...appNames]).hideHelp());
  cli.parse(process.argv);
  const o = cli.opts<RawOptions>();
  const repoRoot = findRepoRoot();
  if (o.app !== undefined) {
    process.stdout.write(JSON.stringify(await measureApp(repoRoot, o.app, o.appSize, o.appRuns)));
    return;
  }
  const log = (line: string): void => console.error(line);
  const wanted = new Set(o.parts);
  const overheadSizes = o.overheadN.split(',').map((s) => positiveInt(s.trim()));

  let single: SingleLoopResult | null = null;
  if (wanted.has('singleLoop')) {
    log(`singleLoop n = ${o.n} …`);
    single = await measureSingleLoop({ repoRoot, n: o.n, repetitions: o.repetitions, python: o.python, variants: singleLoopVariants.filter((v) => !o.skip.includes(v)) });
    for (const s of single.skipped) log(s);
  }
  const apps: AppResult[] = [];
  if (wanted.has('apps')) {
    for (const app of o.apps) {
      log(`${app} (${o.appSize}) in a child process …`);
      apps.push(appInChild(app, o));
    }
  }
  let scatter: ScatterResult | null = null;
  if (wanted.has('scatter')) {
    log(`histogram (${o.scatterSize}) …`);
    scatter = await measureScatter(repoRoot, histogramSizes[o.scatterSize], o.repetitions);
  }
  const overhead: OverheadResult[] = [];
  if (wanted.has('overhead')) {
    for (const n of overheadSizes) {
      log(`per-call overhead n = ${n} …`);
      overhead.push(await measureOverhead(repoRoot, n, o.rounds, n <= 100 ? 20_000 : 5_000));
    }
  }

  const args = process.argv.slice(2);
  const command = `npm run bench:memory${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`;
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`;
  const met = targets(single, apps, overhead);
  const md = [
    `Command: \`${command}\`  `,
    `Machine: ${machine}  `,
    'Medians (min–max) of interleaved repetitions after a checked warm-up, a full GC before each timed call; every output is checked against its reference.',
    ...(single === null
      ? []
      : [
          '',
          `### singleLoop, n = ${single.n} f64 (${single.repetitions} repetitions; NumPy timed inside its own process, its calls interleaved with the others)`,
          '',
          singleLoopTable(single),
          ...single.skipped.map((s) => `\n${s}`),
        ]),
    ...(apps.length === 0 ? [] : ['', '### Applications (ILP plan, Compiler.execute; each in its own process)', '', appsTable(apps)]),
    ...(scatter === null
      ? []
      : ['', `### Scatter-heavy: histogram.fuse, m = ${scatter.size.m} keys, ${scatter.size.nbins} bins, batches of ${scatter.size.batch} (${scatter.repetitions} repetitions)`, '', scatterTable(scatter)]),
    ...(overhead.length === 0 ? [] : ['', `### Per-call overhead, singleLoop (µs per call, median (min–max) of ${o.rounds} rounds)`, '', overheadTable(overhead)]),
    ...(met.length === 0 ? [] : ['', '### Targets (issue 11)', '', '| target | measured | met |', '| --- | --- | --- |', ...met.map((t) => `| ${t.what} | ${t.value} | ${t.met === null ? '–' : t.met ? 'yes' : 'NO'} |`)]),
    '',
  ].join('\n');
  const outDir = resolve(repoRoot, o.out);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'results.md'), md);
  writeFileSync(join(outDir, 'results.json'), JSON.stringify({ command, machine, date: new Date().toISOString(), options: o, single, apps, scatter, overhead, targets: met }, null, 2));
  console.log(md);
  console.error(`wrote ${join(outDir, 'results.md')} and results.json`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
