// `npm run bench:exec`: how fast the fused code runs. For every shared example it times the
// ILP plan, greedy-down, greedy-up and no fusion, next to a hand-written JavaScript loop (the
// practical limit), interleaved, median of several runs (harness.ts); the reference interpreter
// separately at a smaller size (it is two orders of magnitude slower); and greedyBottomUpBad at
// n = 1000, m = 10^5 with the memory each strategy allocates. Prints Markdown tables and writes
// results.json and results.md to bench/results/exec/ (gitignored). Exits 1 when a run's output
// differs from the hand loop's, and prints whether the targets of docs/EXECUTION.md are met.
// `--threads N` (or `all`) adds a column: the ILP plan's code on the multicore back end with N
// threads, interleaved with the rest (bench:multicore is the full comparison).
//
//   npm run bench:exec                          # n = 4·10^6, 15 repetitions: about six minutes
//   npm run bench:exec -- --n 1000000 --repetitions 5 --programs singleLoop,simple1
//   npm run bench:exec -- --threads all --no-bottom-up-bad

import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { findRepoRoot, positiveInt } from '../cli.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { measure, strategies, type Measurement, type VariantId, type VariantResult } from './harness.js';
import { execPrograms, greedyBottomUpBadInputs } from './programs.js';
import { parseThreads } from '../multicore/threads.js';

interface Options {
  readonly n: number;
  readonly interpN: number;
  readonly repetitions: number;
  readonly programs: readonly string[] | null;
  readonly bottomUpBad: boolean;
  /** Threads of the parallel column; 1: no such column. */
  readonly threads: number;
  readonly outDir: string;
}

const labels: Record<VariantId, string> = {
  ilp: 'ILP',
  'greedy-down': 'greedy ↓',
  'greedy-up': 'greedy ↑',
  none: 'no fusion',
  hand: 'hand loop',
  interpreter: 'interpreter',
  parallel: 'ILP, N threads',
};

/** The variants of the main table that `rows` measured: the strategies, the hand loop, the parallel column. */
function mainIds(rows: readonly Measurement[]): VariantId[] {
  const parallel = rows.some((m) => m.variants.some((v) => v.id === 'parallel'));
  return [...strategies, 'hand', ...(parallel ? (['parallel'] as const) : [])];
}

function variant(m: Measurement, id: VariantId): VariantResult {
  const v = m.variants.find((x) => x.id === id);
  if (v === undefined) throw new Error(`${m.program}: no ${id} measurement`);
  return v;
}

const ms = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const ratio = (x: number): string => `${x >= 10 ? x.toFixed(0) : x.toFixed(2)}×`;
const mib = (bytes: number | null): string => (bytes === null ? '–' : `${(bytes / 2 ** 20).toFixed(bytes < 2 ** 20 ? 3 : 1)}`);

/** Times per variant, each with its ratio to the ILP plan, and the ILP plan's ratio to the hand loop. */
function speedTable(rows: readonly Measurement[]): string {
  const ids = mainIds(rows);
  const head = `| program | size | ${ids.map((id) => `${labels[id]} ms (÷ ILP)`).join(' | ')} | ILP ÷ hand |`;
  const lines = [head, `|${' --- |'.repeat(ids.length + 3)}`];
  for (const m of rows) {
    const ilp = variant(m, 'ilp').medianMs;
    const cells = ids.map((id) => {
      const v = variant(m, id).medianMs;
      return id === 'ilp' ? ms(v) : `${ms(v)} (${ratio(v / ilp)})`;
    });
    lines.push(`| ${m.program} | ${m.size} | ${cells.join(' | ')} | ${ratio(ilp / variant(m, 'hand').medianMs)} |`);
  }
  return lines.join('\n');
}

/** Array memory per strategy: RunStats bytes and the arrayBuffers growth of one run, MiB. */
function memoryTable(rows: readonly Measurement[]): string {
  const ids = mainIds(rows);
  const head = `| program | ${ids.map((id) => (id === 'hand' ? `${labels[id]} Δ` : `${labels[id]} alloc / Δ`)).join(' | ')} |`;
  const lines = [head, `|${' --- |'.repeat(ids.length + 1)}`];
  for (const m of rows) {
    const cells = ids.map((id) => {
      const v = variant(m, id);
      return id === 'hand' ? mib(v.arrayBuffersDelta) : `${mib(v.bytesAllocated)} / ${mib(v.arrayBuffersDelta)}`;
    });
    lines.push(`| ${m.program} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

function interpreterTable(rows: readonly Measurement[]): string {
  const lines = ['| program | size | ILP ms | interpreter ms | interpreter ÷ ILP |', '| --- | --- | --- | --- | --- |'];
  for (const m of rows) {
    const ilp = variant(m, 'ilp').medianMs;
    const interp = variant(m, 'interpreter').medianMs;
    lines.push(`| ${m.program} | ${m.size} | ${ms(ilp)} | ${ms(interp)} | ${ratio(interp / ilp)} |`);
  }
  return lines.join('\n');
}

function bottomUpTable(m: Measurement): string {
  const ilp = variant(m, 'ilp');
  const lines = [
    '| variant | clusters | ms | ÷ ILP | allocated MiB | largest array MiB | arrayBuffers Δ MiB | alloc ÷ ILP |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const v of m.variants) {
    const allocRatio = v.bytesAllocated === null || ilp.bytesAllocated === null ? '–' : ratio(v.bytesAllocated / ilp.bytesAllocated);
    lines.push(
      `| ${labels[v.id]} | ${v.clusters ?? '–'} | ${ms(v.medianMs)} | ${ratio(v.medianMs / ilp.medianMs)} | ${mib(v.bytesAllocated)} | ${mib(v.largestAllocation)} | ${mib(v.arrayBuffersDelta)} | ${allocRatio} |`,
    );
  }
  return lines.join('\n');
}

interface Target {
  readonly what: string;
  readonly value: string;
  readonly met: boolean;
}

function targets(main: readonly Measurement[], bottomUp: Measurement | null): Target[] {
  const out: Target[] = [];
  const single = main.find((m) => m.program === 'singleLoop');
  if (single !== undefined) {
    const ilp = variant(single, 'ilp').medianMs;
    const none = variant(single, 'none').medianMs / ilp;
    const hand = ilp / variant(single, 'hand').medianMs;
    out.push({ what: 'singleLoop: no fusion ÷ ILP ≥ 3', value: ratio(none), met: none >= 3 });
    out.push({ what: 'singleLoop: ILP ÷ hand loop ≤ 1.3', value: ratio(hand), met: hand <= 1.3 });
  }
  if (bottomUp !== null) {
    const ilp = variant(bottomUp, 'ilp');
    const up = variant(bottomUp, 'greedy-up');
    const speed = up.medianMs / ilp.medianMs;
    const mem = ilp.bytesAllocated! / up.bytesAllocated!;
    out.push({ what: 'greedyBottomUpBad n=1000, m=10^5: greedy ↑ ÷ ILP ≥ 10', value: ratio(speed), met: speed >= 10 });
    out.push({ what: 'greedyBottomUpBad n=1000, m=10^5: ILP memory ÷ greedy ↑ memory < 0.1', value: mem.toExponential(2), met: mem < 0.1 });
  }
  return out;
}

async function main(): Promise<void> {
  const cli = new Command('bench:exec')
    .option('--n <elements>', 'elements per array in the main table', positiveInt, 4_000_000)
    .option('--interp-n <elements>', 'elements per array when timing the interpreter', positiveInt, 100_000)
    .option('--repetitions <k>', 'timed runs per variant', positiveInt, 15)
    .option('--programs <names>', 'comma-separated example names (default: all)')
    .option('--no-bottom-up-bad', 'skip greedyBottomUpBad at n = 1000, m = 10^5')
    .option('--threads <n>', 'also run the ILP plan on the multicore back end with n threads ("all" = the available parallelism); 1: no such column', parseThreads, 1)
    .option('--out <dir>', 'results directory', 'bench/results/exec');
  cli.parse(process.argv);
  const raw = cli.opts<{ n: number; interpN: number; repetitions: number; programs?: string; bottomUpBad: boolean; threads: number; out: string }>();
  const repoRoot = findRepoRoot();
  const options: Options = {
    n: raw.n,
    interpN: raw.interpN,
    repetitions: raw.repetitions,
    programs: raw.programs === undefined ? null : raw.programs.split(',').map((s) => s.trim()),
    bottomUpBad: raw.bottomUpBad,
    threads: raw.threads,
    outDir: resolve(repoRoot, raw.out),
  };
  const parallel: VariantId[] = options.threads > 1 ? ['parallel'] : [];
  labels.parallel = `ILP, ${options.threads} threads`;
  const chosen = execPrograms.filter((p) => options.programs === null || options.programs.includes(p.name));
  if (chosen.length === 0) throw new Error(`no example is named ${options.programs?.join(', ')}`);
  const solver = createSolverLoader();
  const log = (line: string): void => console.error(line);
  const common = { repoRoot, solver, log, threads: options.threads };

  const main: Measurement[] = [];
  for (const p of chosen) {
    main.push(await measure(p, p.describe(options.n), options.n, p.inputs(options.n), { ...common, repetitions: options.repetitions, variants: [...strategies, 'hand', ...parallel] }));
  }
  const interpreted: Measurement[] = [];
  for (const p of chosen) {
    const reps = Math.max(3, Math.min(5, options.repetitions));
    interpreted.push(await measure(p, p.describe(options.interpN), options.interpN, p.inputs(options.interpN), { ...common, repetitions: reps, variants: ['ilp', 'interpreter'] }));
  }
  let bottomUp: Measurement | null = null;
  const gbub = execPrograms.find((p) => p.name === 'greedyBottomUpBad')!;
  if (options.bottomUpBad) {
    bottomUp = await measure(gbub, 'n = 1000, m = 10^5', 1e8, greedyBottomUpBadInputs(1000, 100_000), {
      ...common,
      // Runs of one to three seconds (no fusion, greedy-up): at most nine of them.
      repetitions: Math.max(3, Math.min(9, options.repetitions)),
      variants: [...strategies, 'hand', ...parallel],
    });
  }

  const command = `npm run bench:exec --${process.argv.slice(2).length > 0 ? ` ${process.argv.slice(2).join(' ')}` : ''}`.replace(/ --$/, '');
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`;
  const met = targets(main, bottomUp);
  const md = [
    `Command: \`${command}\`  `,
    `Machine: ${machine}  `,
    `Medians of ${options.repetitions} interleaved runs after a checked warm-up; every variant's output equals the hand loop's bit for bit${parallel.length === 0 ? '' : ` (${labels.parallel}: the ILP plan on the multicore back end, floats within 1e-9 relative where a whole-array fold regroups)`}.`,
    '',
    `### Time at n = ${options.n} (ms; in parentheses, ÷ the ILP plan's time)`,
    '',
    speedTable(main),
    '',
    '### Array memory per run (MiB: bytes allocated from RunStats / arrayBuffers growth over the run)',
    '',
    memoryTable(main),
    '',
    `### The reference interpreter, at n = ${options.interpN}`,
    '',
    interpreterTable(interpreted),
    ...(bottomUp === null ? [] : ['', '### greedyBottomUpBad, n = 1000, m = 10^5', '', bottomUpTable(bottomUp)]),
    '',
    '### Targets',
    '',
    '| target | measured | met |',
    '| --- | --- | --- |',
    ...met.map((t) => `| ${t.what} | ${t.value} | ${t.met ? 'yes' : 'NO'} |`),
    '',
  ].join('\n');
  mkdirSync(options.outDir, { recursive: true });
  writeFileSync(join(options.outDir, 'results.md'), md);
  writeFileSync(
    join(options.outDir, 'results.json'),
    JSON.stringify({ command, machine, date: new Date().toISOString(), options, main, interpreted, bottomUp, targets: met }, null, 2),
  );
  console.log(md);
  console.error(`wrote ${join(options.outDir, 'results.md')} and results.json`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
