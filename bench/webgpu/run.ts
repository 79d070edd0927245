// `npm run bench:webgpu`: the webgpu back end measured (issue 15, "Benchmarks" and item 4;
// docs/EXECUTION.md "WebGPU: measured"). No timed tests: a harness, interleaved repetitions,
// medians with min and max, every output checked against the js back end within the f32
// tolerance of the WebGPU tests. Results go to bench/results/webgpu/ (gitignored).
//
//   npm run bench:webgpu -- --weights     K, a kernel launch's price in element transfers (weights.ts)
//   npm run bench:webgpu                  every part:
//     stream      singleLoop f32 against the copy kernel's bandwidth (stream.ts)
//     apps        FlashAttention and NAS MG in f32: webgpu against multicore (all threads) and js
//     strategies  ILP (the GPU-weighted default) against greedy-down, greedy-up and no fusion, on the GPU
//     weighting   the GPU-weighted plan against the CPU-weighted one (reads+writes+recompute), on the GPU
//
// On a real GPU the sizes are the issue's (singleLoop n = 10^8, FlashAttention n = 4096, d = 64,
// MG class A); on a software adapter (SwiftShader) they are small and the numbers are
// correctness and harness checks only, which the report says. Without any adapter the
// benchmark prints why and exits 0. Exits 1 when an output is wrong or a variant fails.

import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { CommanderError } from 'commander';
import { findRepoRoot } from '../cli.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { defaultCostText } from '../../src/plan/cost.js';
import { benchAdapter, skipNotice } from './adapter.js';
import { exampleCases, flashCase, mgCase, type WebgpuCase } from './cases.js';
import { compare, type Comparison, type VariantSpec } from './compare.js';
import { parseBenchOptions, sizesFor, type BenchOptions, type Part } from './options.js';
import { comparisonTable, streamTable, weightsTable } from './report.js';
import { measureStream, type StreamResult } from './stream.js';
import { measureWeights, weightsRow, type Weights } from './weights.js';

const partVariants: Readonly<Record<Exclude<Part, 'stream'>, readonly VariantSpec[]>> = {
  apps: [
    { label: 'webgpu', backend: 'webgpu' },
    { label: `multicore (${availableParallelism()} threads)`, backend: 'multicore' },
    { label: 'js (1 thread)', backend: 'js' },
  ],
  strategies: [
    { label: 'ILP (GPU-weighted)', backend: 'webgpu', strategy: 'ilp' },
    { label: 'greedy-down', backend: 'webgpu', strategy: 'greedy-down' },
    { label: 'greedy-up', backend: 'webgpu', strategy: 'greedy-up' },
    { label: 'no fusion', backend: 'webgpu', strategy: 'none' },
  ],
  weighting: [
    { label: 'GPU-weighted (webgpu default)', backend: 'webgpu' },
    { label: `CPU-weighted (${defaultCostText})`, backend: 'webgpu', cost: defaultCostText },
  ],
};

const partTitles: Readonly<Record<Exclude<Part, 'stream'>, string>> = {
  apps: 'FlashAttention and MG: webgpu against the CPU back ends',
  strategies: 'Strategies on the GPU (the paper\'s Figure 3, GPU edition)',
  weighting: 'The GPU-weighted plan against the CPU-weighted plan, both on the GPU',
};

function casesFor(repoRoot: string, ids: readonly string[], sizes: ReturnType<typeof sizesFor>): WebgpuCase[] {
  const all = [...exampleCases(repoRoot, sizes.exampleN), flashCase(repoRoot, sizes.flashN, 64, 64), mgCase(repoRoot, sizes.mgN, 4)];
  const unknown = ids.filter((id) => !all.some((c) => c.id === id));
  if (unknown.length > 0) throw new Error(`unknown program id(s) ${unknown.join(', ')}; known: ${all.map((c) => c.id).join(', ')}`);
  return ids.map((id) => all.find((c) => c.id === id)!);
}

async function main(o: BenchOptions, args: readonly string[]): Promise<number> {
  const log = (line: string): void => console.error(line);
  const adapter = await benchAdapter();
  const skipped = skipNotice(adapter);
  if (skipped !== null || 'missing' in adapter) {
    console.log(skipped);
    return 0;
  }
  const repoRoot = findRepoRoot();
  const solver = createSolverLoader();
  const sizes = sizesFor(o, adapter.software);
  const command = `npm run bench:webgpu${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`;
  const date = new Date().toISOString();
  const machine = `adapter ${adapter.name}${adapter.description === '' ? '' : ` (${adapter.description})`}; host ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, Node ${process.version}`;
  const note = adapter.software
    ? `**${adapter.name} is a software adapter (a CPU emulation): every time below is a correctness and harness check, not a GPU's performance; the sizes are small for that reason.**`
    : 'A hardware adapter: the issue\'s sizes unless the command line set others.';
  const outDir = resolve(repoRoot, o.out);
  mkdirSync(outDir, { recursive: true });
  const header = [`Command: \`${command}\`  `, `Date: ${date}  `, `Machine: ${machine}  `, '', note, ''];
  const weightsOptions = { solver, copyN: sizes.copyN, shortChain: 4, longChain: 20, repetitions: o.repetitions, minSampleMs: o.minSampleMs, log };

  if (o.weights) {
    log(`measuring K on ${adapter.name} …`);
    const w = await measureWeights(weightsOptions);
    const md = [...header, `Chains of ${w.shortChain} and ${w.longChain} clusters (strategy none), of 1 and ${w.copyN} f32 elements; medians of ${o.repetitions} interleaved samples (weights.ts).`, '', weightsTable(w), '', 'Row for src/runtime/webgpu/cost.ts:', '', '```ts', weightsRow(adapter.name, w, command, date), '```', ''].join('\n');
    writeFileSync(join(outDir, 'weights.md'), md);
    writeFileSync(join(outDir, 'weights.json'), JSON.stringify({ command, date, machine, software: adapter.software, weights: w }, null, 2));
    console.log(md);
    log(`wrote ${join(outDir, 'weights.md')} and weights.json`);
    return w.launchElements === null ? 1 : 0;
  }

  const sections: string[] = [];
  const failures: string[] = [];
  let weights: Weights | null = null;
  let stream: StreamResult | null = null;
  const comparisons: Partial<Record<Part, Comparison[]>> = {};
  if (o.parts.includes('stream')) {
    log(`copy bandwidth and K (${sizes.copyN} elements) …`);
    weights = await measureWeights(weightsOptions);
    log(`singleLoop at n = ${sizes.streamN} …`);
    stream = await measureStream({ repoRoot, solver, n: sizes.streamN, copyGBs: weights.bandwidthGBs, repetitions: o.repetitions, minSampleMs: o.minSampleMs, log });
    for (const t of [...weights.timings, stream.run, ...stream.repeated]) if (t.error !== null) failures.push(`${t.label}: ${t.error}`);
    sections.push('### The copy kernel and K', '', weightsTable(weights), '', `### singleLoop f32 against the copy kernel's bandwidth`, '', streamTable(stream), '');
  }
  for (const part of o.parts) {
    if (part === 'stream') continue;
    const ids = part === 'apps' ? sizes.programs.filter((id) => id === 'flash' || id === 'mg') : sizes.programs;
    const rows: Comparison[] = [];
    for (const c of casesFor(repoRoot, ids, sizes)) {
      log(`${partTitles[part]}: ${c.name} (${c.size}) …`);
      const r = await compare(c, partVariants[part], { solver, repetitions: o.repetitions, minSampleMs: o.minSampleMs, log });
      for (const v of r.variants) if (v.error !== null) failures.push(`${part}, ${c.name}, ${v.label}: ${v.error}`);
      rows.push(r);
    }
    comparisons[part] = rows;
    sections.push(`### ${partTitles[part]}`, '', comparisonTable(rows), '');
  }
  const md = [
    ...header,
    `Per-run medians (min–max) of ${o.repetitions} interleaved samples, a full GC before each; every output checked against the js back end's by the f32 tolerance of test/webgpu/tolerance.ts. A webgpu run's time ends at its read back: it includes uploading the inputs and reading the results.`,
    '',
    ...sections,
    ...(failures.length === 0 ? [] : ['### Failures', '', ...failures.map((f) => `- ${f}`), '']),
  ].join('\n');
  writeFileSync(join(outDir, 'results.md'), md);
  writeFileSync(join(outDir, 'results.json'), JSON.stringify({ command, date, machine, software: adapter.software, sizes, weights, stream, comparisons, failures }, null, 2));
  console.log(md);
  log(`wrote ${join(outDir, 'results.md')} and results.json`);
  return failures.length === 0 ? 0 : 1;
}

const args = process.argv.slice(2);
let options: BenchOptions;
try {
  options = parseBenchOptions(args);
} catch (e) {
  if (!(e instanceof CommanderError)) throw e;
  // --help is no error; anything else is a usage error.
  if (e.code === 'commander.helpDisplayed' || e.code === 'commander.help') {
    console.log((await import('./options.js')).benchCommand().helpInformation());
    process.exit(0);
  }
  console.error(`bench:webgpu: ${e.message}`);
  process.exit(2);
}
// process.exit, not exitCode: Dawn's device keeps Node's event loop alive.
main(options, args).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
    process.exit(1);
  },
);
