// `npm run bench:language [-- options]`: the histogram of 10^7 values into 256 bins and the CSR
// sparse matrix–vector product of issue #16, each fused by arrayfuse (one thread, and the
// multicore back end) against the plain JavaScript loop, timed side by side in one run
// (interleaved repetitions after a full collection, medians with min and max, every call's
// output verified outside the timed part; bench/compute/harness.ts). It prints each program's
// plan, then the table. Inputs are built once and reused by every contender.

import { interleave } from '../compute/harness.js';
import { histogramSource, spmvSource } from './programs.js';
import { histogramContenders, parseLanguageArgs, spmvContenders, table } from './suite.js';

async function main(): Promise<void> {
  const o = parseLanguageArgs(process.argv.slice(2));
  const log = (line: string): void => console.error(line);
  const out: string[] = [`# bench:language — ${new Date().toISOString()}`, '', `command: npm run bench:language -- --n ${o.n} --rows ${o.rows} --per-row ${o.perRow} --threads ${o.threads} --repetitions ${o.repetitions}`, ''];
  const h = await histogramContenders(o);
  out.push('## histogram', '', '```', histogramSource.trimEnd(), '```', '', '```', h.plan.trimEnd(), '```', '');
  out.push(table(`histogram of ${o.n} values into 256 bins`, await interleave(h.contenders, { repetitions: o.repetitions, what: 'histogram', log })), '');
  const s = await spmvContenders(o);
  out.push('## CSR sparse matrix–vector product', '', '```', spmvSource.trimEnd(), '```', '', '```', s.plan.trimEnd(), '```', '');
  out.push(table(`SpMV: ${s.m.rows} rows, ${s.m.vals.length} nonzeros`, await interleave(s.contenders, { repetitions: o.repetitions, what: 'spmv', log })), '');
  console.log(out.join('\n'));
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  },
);
