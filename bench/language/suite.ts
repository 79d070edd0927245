// The language benchmark's command line, contenders and table (run.ts runs them): the
// histogram and the CSR SpMV of issue #16, each fused by arrayfuse on one thread and on the
// multicore back end, against the plain JavaScript loop, every call's output verified.

import { Command, Option } from 'commander';
import { positiveInt } from '../cli.js';
import { interleave, timed, type Contender, type ContenderTiming } from '../compute/harness.js';
import type { FuseProgram, Input, Output } from '../../src/index.js';
import {
  closeRows, compiled, csrInput, histogramInput, histogramLoop, sameCounts, spmvLoop, type CsrMatrix,
} from './programs.js';

export interface LanguageOptions {
  readonly n: number;
  readonly rows: number;
  readonly perRow: number;
  readonly threads: number;
  readonly repetitions: number;
}

export function languageCommand(): Command {
  return new Command('bench:language')
    .option('--n <values>', 'values in the histogram', positiveInt, 10_000_000)
    .option('--rows <rows>', 'rows (and columns) of the sparse matrix', positiveInt, 1_000_000)
    .option('--per-row <k>', 'mean nonzeros per row (each row has 0 to 2k)', positiveInt, 10)
    .addOption(new Option('--threads <n>', 'threads of the multicore contender').argParser(positiveInt).default(2))
    .option('--repetitions <k>', 'timed calls per contender, interleaved', positiveInt, 7)
    .exitOverride();
}

export function parseLanguageArgs(argv: readonly string[]): LanguageOptions {
  const cmd = languageCommand();
  cmd.parse([...argv], { from: 'user' });
  return cmd.opts<LanguageOptions>();
}

/** A contender that runs a compiled program and checks its one result. */
function fused(id: string, label: string, program: FuseProgram, inputs: Readonly<Record<string, Input>>, check: (o: Output) => string | null): Contender {
  return {
    id, label, kind: 'arrayfuse',
    async run() {
      const { value, ms } = await timed(() => program.run(inputs));
      return { kernelMs: ms, problem: check(Object.values(value)[0]!) };
    },
  };
}

function loop<T>(label: string, f: () => T, check: (o: T) => string | null): Contender {
  return {
    id: 'loop', label, kind: 'js',
    async run() {
      const { value, ms } = await timed(f);
      return { kernelMs: ms, problem: check(value) };
    },
  };
}

export async function histogramContenders(o: LanguageOptions): Promise<{ contenders: Contender[]; plan: string }> {
  const xs = histogramInput(o.n);
  const want = histogramLoop(xs);
  const one = compiled(1).histogram;
  const many = compiled(o.threads).histogram;
  const inputs = { xs };
  return {
    plan: await one.render('text', inputs),
    contenders: [
      fused('fused', 'arrayfuse (1 thread)', one, inputs, (r) => sameCounts(r, want)),
      fused('multicore', `arrayfuse (${o.threads} threads)`, many, inputs, (r) => sameCounts(r, want)),
      loop('hand-written JS loop', () => histogramLoop(xs), (r) => sameCounts({ data: r, shape: [r.length] } as Output, want)),
    ],
  };
}

export async function spmvContenders(o: LanguageOptions): Promise<{ contenders: Contender[]; plan: string; m: CsrMatrix }> {
  const m = csrInput(o.rows, o.perRow);
  const want = spmvLoop(m);
  const one = compiled(1).spmv;
  const many = compiled(o.threads).spmv;
  const inputs = { vals: m.vals, cols: m.cols, lens: m.lens, x: m.x };
  return {
    m,
    plan: await one.render('text', inputs),
    contenders: [
      fused('fused', 'arrayfuse (1 thread)', one, inputs, (r) => closeRows(r, want, m)),
      fused('multicore', `arrayfuse (${o.threads} threads)`, many, inputs, (r) => closeRows(r, want, m)),
      loop('hand-written JS loop (CSR)', () => spmvLoop(m), (r) => closeRows({ data: r, shape: [r.length] } as Output, want, m)),
    ],
  };
}

export function table(title: string, timings: readonly ContenderTiming[]): string {
  const loopMs = timings.find((t) => t.kind === 'js')!.kernel.median;
  const rows = timings.map((t) => `| ${t.label} | ${t.kernel.median.toFixed(1)} | ${t.kernel.min.toFixed(1)} | ${t.kernel.max.toFixed(1)} | ${(t.kernel.median / loopMs).toFixed(2)}× |`);
  return [`### ${title}`, '', '| contender | median ms | min | max | ÷ loop |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

