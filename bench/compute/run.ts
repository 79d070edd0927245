// `npm run bench:compute`: how fast arrayfuse's loops run against native code and NumPy, single
// thread each, side by side in one run (docs/EXECUTION.md, "Compute: measured"; issue 13):
//   mg         NAS MG class W vs NPB-CPP serial mg.W
//   attention  FlashAttention n=1024 d=64 vs NumPy (one BLAS thread) vs the plain JS triple loop
//   lulesh     LULESH -s 10 vs LLNL LULESH 2.0 serial
//   examples   every shared example vs its hand loop (and vs --baseline, an earlier build)
// Contenders are timed interleaved, each by itself (programs.ts, harness.ts); every output is
// verified; a native reference or NumPy that is not here is skipped with a notice. Prints the
// command, the machine and Markdown tables; writes results.md and results.json to
// bench/results/compute/ (gitignored). Exits 1 when an output is wrong.
//
//   bench/compute/build-references.sh /tmp/refs13/src /tmp/refs13/bin     # once: mg.W, lulesh2.0
//   npm run bench:compute -- --npb /tmp/refs13/bin --lulesh /tmp/refs13/bin/lulesh2.0
//   npm run bench:compute -- --parts examples --baseline /path/to/earlier/arrayfuse
//   npm run bench:compute -- --parts lulesh --lulesh /tmp/refs13/bin/lulesh2.0 --cluster-stats

import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { CommanderError } from 'commander';
import { findRepoRoot } from '../cli.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { parseComputeArgs } from './options.js';
import { measureAttention, measureExamples, measureLulesh, measureMg, type ComputeContext, type PartResult } from './programs.js';
import { renderReport, targets } from './report.js';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const o = parseComputeArgs(args);
  const repoRoot = findRepoRoot();
  const log = (line: string): void => console.error(line);
  const ctx: ComputeContext = {
    repoRoot,
    solver: createSolverLoader(),
    repetitions: o.repetitions,
    npb: o.npb === null ? null : resolve(o.npb),
    lulesh: o.lulesh === null ? null : resolve(o.lulesh),
    python: o.python,
    baseline: o.baseline === null ? null : resolve(o.baseline),
    clusterStats: o.clusterStats,
    log,
  };
  const results: PartResult[] = [];
  for (const part of o.parts) {
    log(`${part} …`);
    const measured =
      part === 'mg' ? [await measureMg(ctx, o.sizes)]
      : part === 'attention' ? [await measureAttention(ctx, o.sizes)]
      : part === 'lulesh' ? [await measureLulesh(ctx, o.sizes)]
      : await measureExamples(ctx, o.sizes, o.examples);
    for (const r of measured) for (const s of r.skipped) log(s);
    results.push(...measured);
  }
  const command = `npm run bench:compute${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`;
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, load ${loadavg().map((x) => x.toFixed(2)).join(' ')}`;
  const md = renderReport(results, { command, machine, repetitions: o.repetitions, clusterTop: o.clusterTop });
  const outDir = resolve(repoRoot, o.out);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'results.md'), md);
  writeFileSync(join(outDir, 'results.json'), JSON.stringify({ command, machine, date: new Date().toISOString(), options: o, results, targets: targets(results) }, null, 2));
  console.log(md);
  console.error(`wrote ${join(outDir, 'results.md')} and results.json`);
}

main().catch((e: unknown) => {
  if (e instanceof CommanderError) {
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.help') process.exit(0);
    console.error(`bench:compute: ${e.message}`);
    process.exit(e.exitCode === 0 ? 0 : 2);
  }
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
