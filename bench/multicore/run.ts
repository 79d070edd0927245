// `npm run bench:multicore`: the multicore back end against one thread (issue 12, "Benchmarks";
// docs/EXECUTION.md "Threads: measured"). The same plan at 1 thread (the `js` back end) and at
// each `--threads` count (the `multicore` back end), on ordinary inputs and on inputs already on
// SharedArrayBuffers, interleaved, medians with min and max, every output checked (harness.ts):
//   apps      NAS MG class W, LULESH -s 10, FlashAttention n = 1024, d = 64   bar: ≥ 1.7× at all threads
//   stream    singleLoop at n = 10^7 (memory-bound)                          bar: ≥ 0.95×
//   examples  every shared example at n = 10^4                               bar: ≥ 0.95×
// `--calibrate` measures the fork threshold's break-even instead (calibrate.ts). Prints the
// command and Markdown tables; writes results.md and results.json to bench/results/multicore/
// (gitignored). Exits 1 when an output is wrong (a bar missed is reported, not an error).
//
//   npm run bench:multicore                                    # threads = all: about 3 minutes
//   npm run bench:multicore -- --threads 1,2,4,8,16             # a scaling table
//   npm run bench:multicore -- --parts apps --programs mg --repetitions 3
//   npm run bench:multicore -- --calibrate                      # the fork threshold

import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { findRepoRoot, listOf, nonNegative, positiveInt } from '../cli.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { calibrate, calibrationPrograms, calibrationTable, proposedThreshold, type CalibrationProgram } from './calibrate.js';
import { multicoreCases, type CaseKind } from './cases.js';
import { measureCase, type CaseResult } from './harness.js';
import { barChecks, barTable, timeTable } from './report.js';
import { allThreads, parseThreadList, parseThreads } from './threads.js';

type Part = 'apps' | 'stream' | 'examples';
const parts: readonly Part[] = ['apps', 'stream', 'examples'];
const kindOf: Readonly<Record<Part, CaseKind>> = { apps: 'app', stream: 'stream', examples: 'example' };

type InputKind = 'ordinary' | 'shared';

interface RawOptions {
  threads: number[];
  parts: Part[];
  programs?: string;
  inputs: InputKind[];
  repetitions: number;
  exampleN: number;
  streamN: number;
  minSampleMs: number;
  parallelThreshold?: number;
  chunkLength?: number;
  calibrate: boolean;
  calibrateFrom: number;
  calibrateTo: number;
  calibratePrograms: CalibrationProgram[];
  out: string;
}

function machineLine(): string {
  return `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'} (available parallelism ${availableParallelism()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`;
}

async function main(): Promise<number> {
  const calibrationIds = calibrationPrograms.map((p) => p.id);
  const cli = new Command('bench:multicore')
    .description('the multicore back end against one thread: same plan, interleaved, outputs checked (docs/EXECUTION.md "Threads: measured")')
    .addOption(new Option('--threads <list>', 'thread counts to compare with 1 thread (always measured), comma-separated; "all" = os.availableParallelism()').argParser(parseThreadList).default([allThreads()], `all (${allThreads()})`))
    .addOption(new Option('--parts <names>', `comma-separated: ${parts.join(', ')}`).argParser(listOf(parts)).default([...parts], 'all three'))
    .option('--programs <ids>', 'comma-separated program ids: mg, lulesh, flash, stream, or an example name (default: every program of the parts)')
    .addOption(
      new Option('--inputs <kinds>', 'inputs of the N-thread runs: ordinary (ArrayBuffer), shared (SharedArrayBuffer), or both')
        .argParser(listOf<InputKind>(['ordinary', 'shared']))
        .default(['ordinary', 'shared'], 'ordinary,shared'),
    )
    .option('--repetitions <k>', 'timed samples per variant', positiveInt, 9)
    .option('--example-n <elements>', 'examples: elements', positiveInt, 10_000)
    .option('--stream-n <elements>', 'stream (singleLoop): elements', positiveInt, 10_000_000)
    .option('--min-sample-ms <ms>', 'a timed sample repeats a short run until it lasts this long', nonNegative, 20)
    .option('--parallel-threshold <work>', "the multicore back end's fork threshold (default: the back end's own)", nonNegative)
    .option('--chunk-length <k>', "the multicore back end's chunk length for carried loops (default: the back end's own)", positiveInt)
    .option('--calibrate', 'measure the fork break-even instead (light map, heavy map, fold at 2^from … 2^to elements)', false)
    .option('--calibrate-from <log2>', 'calibration: log2 of the smallest extent', positiveInt, 10)
    .option('--calibrate-to <log2>', 'calibration: log2 of the largest extent', positiveInt, 22)
    .addOption(new Option('--calibrate-programs <ids>', `calibration: comma-separated ${calibrationIds.join(', ')}`).argParser(listOf(calibrationIds)).default([...calibrationIds], 'all three'))
    .option('--out <dir>', 'results directory', 'bench/results/multicore');
  cli.parse(process.argv);
  const o = cli.opts<RawOptions>();
  const repoRoot = findRepoRoot();
  const log = (line: string): void => console.error(line);
  const solver = createSolverLoader();
  const args = process.argv.slice(2);
  const command = `npm run bench:multicore${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`;
  const machine = machineLine();
  const parallel = o.threads.filter((t) => t > 1);
  const notes: string[] = [];
  if (parallel.length === 0) notes.push('No thread count above 1 was asked for (`--threads`): only 1-thread numbers.');
  const over = parallel.filter((t) => t > availableParallelism());
  if (over.length > 0) notes.push(`${over.join(', ')} threads is more than this machine's ${availableParallelism()}: threads then share cores.`);
  const tuning = { parallelThreshold: o.parallelThreshold, chunkLength: o.chunkLength };
  const outDir = resolve(repoRoot, o.out);
  mkdirSync(outDir, { recursive: true });

  if (o.calibrate) {
    const threads = parallel.at(-1) ?? parseThreads('all');
    log(`calibration at ${threads} threads …`);
    const results = await calibrate({
      solver,
      threads,
      fromLog2: o.calibrateFrom,
      toLog2: o.calibrateTo,
      repetitions: o.repetitions,
      minSampleMs: o.minSampleMs,
      programs: o.calibratePrograms,
      log,
    });
    const proposal = proposedThreshold(results);
    const md = [
      `Command: \`${command}\`  `,
      `Machine: ${machine}  `,
      `Per-call medians of ${o.repetitions} interleaved samples; one plan per extent, compiled three times. "never forks": the multicore back end with a threshold no call reaches (its chunked code on the calling thread); "forks": its threshold set to the call's own work (extent × work per iteration), so the call forks and is chunked as that default would chunk it. Both multicore runs read their input from a SharedArrayBuffer (the fork alone is timed, not an input's copy).`,
      ...results.flatMap((r) => [
        '',
        `### ${r.what} (\`${calibrationPrograms.find((p) => p.id === r.program)!.source.trim().replace(/\n\s*/g, ' ')}\`)`,
        '',
        calibrationTable(r),
        '',
        `Break-even: ${r.breakEvenExtent === null ? 'forking never won' : `2^${Math.log2(r.breakEvenExtent)} elements${r.breakEvenWork === null ? '' : ` = ${r.breakEvenWork} work units`}`}.`,
      ]),
      '',
      `Proposed parallelThreshold (the largest break-even in work units of the programs that broke even): ${proposal.threshold === null ? 'none (no program broke even, or the work per iteration is unknown)' : `${proposal.threshold} (${proposal.from}'s)`}${proposal.neverWon.length === 0 ? '' : `; forking never won for ${proposal.neverWon.join(', ')}`}.`,
      '',
    ].join('\n');
    writeFileSync(join(outDir, 'calibration.md'), md);
    writeFileSync(join(outDir, 'calibration.json'), JSON.stringify({ command, machine, date: new Date().toISOString(), options: o, results, proposal }, null, 2));
    console.log(md);
    console.error(`wrote ${join(outDir, 'calibration.md')} and calibration.json`);
    return 0;
  }

  const wantedIds = o.programs?.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const kinds = new Set(o.parts.map((p) => kindOf[p]));
  const all = multicoreCases({ streamN: o.streamN, exampleN: o.exampleN });
  const unknown = (wantedIds ?? []).filter((id) => !all.some((c) => c.id === id));
  if (unknown.length > 0) throw new InvalidArgumentError(`unknown program id(s) ${unknown.join(', ')}; known: ${all.map((c) => c.id).join(', ')}`);
  const chosen = all.filter((c) => kinds.has(c.kind) && (wantedIds === undefined || wantedIds.includes(c.id)));
  const measured: CaseResult[] = [];
  for (const c of chosen) {
    log(`${c.name} (${c.size}) …`);
    measured.push(
      await measureCase(c, {
        repoRoot,
        solver,
        threads: parallel,
        ordinaryInputs: o.inputs.includes('ordinary'),
        sharedInputs: o.inputs.includes('shared'),
        repetitions: o.repetitions,
        minSampleMs: o.minSampleMs,
        tuning,
        log,
      }),
    );
  }
  // The issue's bars are for threads = all; else the largest count measured.
  const barThreads = parallel.includes(allThreads()) ? allThreads() : (parallel.at(-1) ?? allThreads());
  const checks = barChecks(measured, barThreads);
  const failures = measured.flatMap((r) => r.variants.filter((v) => v.error !== null).map((v) => `${r.name} (${r.size}), ${v.label}: ${v.error}`));
  const md = [
    `Command: \`${command}\`  `,
    `Machine: ${machine}  `,
    `Per-call medians (min–max) of ${o.repetitions} interleaved samples, a full GC before each; one plan per program (the default ILP plan), run by the \`js\` back end at 1 thread and by \`multicore\` at N; × = 1-thread time ÷ N-thread time. "shared inputs": the same values on SharedArrayBuffers. Every output is checked against its reference (NPB, the LULESH and attention references, the hand loops) and against 1 thread's (bit-exact, or floats within 1e-9 relative where a whole-array fold regroups).`,
    ...notes.map((n) => `\n${n}`),
    '',
    '### Time per run',
    '',
    timeTable(measured),
    '',
    `### The issue's bars (at ${barThreads} threads)`,
    '',
    barTable(checks),
    '',
    ...(failures.length === 0 ? [] : ['### Failures', '', ...failures.map((f) => `- ${f}`), '']),
  ].join('\n');
  writeFileSync(join(outDir, 'results.md'), md);
  writeFileSync(join(outDir, 'results.json'), JSON.stringify({ command, machine, date: new Date().toISOString(), options: o, measured, bars: checks, failures }, null, 2));
  console.log(md);
  console.error(`wrote ${join(outDir, 'results.md')} and results.json`);
  return failures.length === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
    process.exitCode = 1;
  },
);
