// The multicore benchmark's tables (Markdown): time per run of every variant with its speed-up
// over one thread and how its results compare, and the bars per program.

import { spread } from '../memory/harness.js';
import { bars } from './cases.js';
import type { CaseResult, VariantResult } from './harness.js';
import { agreementText } from './threads.js';

/** A time in ms as the tables print it: µs below a millisecond. */
export function time(ms: number): string {
  if (ms < 1) return `${(ms * 1000).toFixed(ms < 0.01 ? 2 : 1)} µs`;
  return `${ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2)} ms`;
}

function timeSpread(v: VariantResult): string {
  if (v.error !== null) return 'FAILED';
  if (v.ms === null) return '–';
  // spread() prints ms; below 1 ms the table reads better in µs.
  if (v.ms.median < 1) return `${time(v.ms.median)} (${time(v.ms.min)}–${time(v.ms.max)})`;
  return `${spread(v.ms)} ms`;
}

const speed = (x: number | null): string => (x === null ? '–' : `${x.toFixed(2)}×`);

/** The labels of the variants besides 1 thread, in the order measured (every case has the same). */
function parallelLabels(rows: readonly CaseResult[]): string[] {
  const labels: string[] = [];
  for (const r of rows) for (const v of r.variants) if (v.threads > 1 && !labels.includes(v.label)) labels.push(v.label);
  return labels;
}

/**
 * One row per program: the 1-thread time, each parallel variant's time, speed-up and forks (of
 * its last run's cluster calls, how many the threads shared), and the comparison of results.
 */
export function timeTable(rows: readonly CaseResult[]): string {
  const labels = parallelLabels(rows);
  const head = ['program', 'size', 'clusters', 'calls / sample', '1 thread, median (min–max)', ...labels.flatMap((l) => [l, '×', 'forked']), 'N threads vs 1 thread'];
  const lines = [`| ${head.join(' | ')} |`, `|${' --- |'.repeat(head.length)}`];
  for (const r of rows) {
    const one = r.variants.find((v) => v.threads === 1)!;
    const cells = labels.flatMap((l) => {
      const v = r.variants.find((x) => x.label === l);
      return v === undefined ? ['–', '–', '–'] : [timeSpread(v), speed(v.speedup), v.forks === null ? '–' : `${v.forks.forked}/${v.forks.calls}`];
    });
    const parallel = r.variants.filter((v) => v.threads > 1);
    const worst = parallel.find((v) => v.error !== null) ?? parallel.find((v) => v.agreement !== null && !v.agreement.bitExact) ?? parallel[0];
    const agree = worst === undefined ? '–' : worst.error !== null ? `FAILED (${worst.label}): ${worst.error}` : worst.agreement === null ? '–' : agreementText(worst.agreement);
    lines.push(`| ${[r.name, r.size, String(r.clusters), String(r.callsPerSample), timeSpread(one), ...cells, agree].join(' | ')} |`);
  }
  return lines.join('\n');
}

export interface BarCheck {
  readonly program: string;
  readonly bar: number;
  readonly threads: number;
  /** Speed-up on ordinary inputs, and on shared ones (null: not measured or failed). */
  readonly ordinary: number | null;
  readonly shared: number | null;
  /** Whether every measured speed-up reaches the bar; null when none was measured. */
  readonly met: boolean | null;
}

/**
 * The bars, at `threads` (threads = all: the machine's available parallelism). A program
 * meets its bar when the speed-up on ordinary inputs and on shared ones (each where measured)
 * reaches it.
 */
export function barChecks(rows: readonly CaseResult[], threads: number): BarCheck[] {
  return rows.map((r) => {
    const at = (shared: boolean): number | null => r.variants.find((v) => v.threads === threads && v.shared === shared && v.error === null)?.speedup ?? null;
    const bar = bars[r.kind];
    const ordinary = at(false);
    const shared = at(true);
    const measured = [ordinary, shared].filter((x): x is number => x !== null);
    return { program: `${r.name} (${r.size})`, bar, threads, ordinary, shared, met: measured.length === 0 ? null : measured.every((x) => x >= bar) };
  });
}

export function barTable(checks: readonly BarCheck[]): string {
  const lines = ['| program | bar (≥) | threads | ordinary inputs | shared inputs | met |', '| --- | --- | --- | --- | --- | --- |'];
  for (const c of checks) {
    lines.push(`| ${c.program} | ${c.bar.toFixed(2)}× | ${c.threads} | ${speed(c.ordinary)} | ${speed(c.shared)} | ${c.met === null ? '–' : c.met ? 'yes' : 'NO'} |`);
  }
  return lines.join('\n');
}
