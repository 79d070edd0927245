// The compute benchmark's Markdown: the summary table with its targets, one table per
// program (every contender's own kernel time and, for child processes, wall time), the examples
// against their hand loops (and the baseline build), and arrayfuse's heaviest clusters. Pure
// functions of the measurements (test/bench/compute.test.ts renders made-up ones).

import { ratio, spread } from '../memory/harness.js';
import { arrayfuseWarmUps, type ContenderTiming } from './harness.js';
import type { PartResult } from './programs.js';

/** An example is "no slower than before" within this much noise (interleaved medians). */
export const EXAMPLE_NOISE = 0.05;

export interface Target {
  readonly what: string;
  readonly value: string;
  /** Null: not measured this run (a reference skipped). */
  readonly met: boolean | null;
}

function timing(r: PartResult, id: string): ContenderTiming | undefined {
  return r.timings.find((t) => t.id === id);
}

/** One program's contenders: kernel time, the process's wall time, arrayfuse's ratio to each. */
export function partTable(r: PartResult): string {
  const af = timing(r, 'arrayfuse');
  const lines = ['| contender | kernel ms, median (min–max) | process wall ms, median (min–max) | arrayfuse ÷ this (kernel) | output |', '| --- | --- | --- | --- | --- |'];
  for (const t of r.timings) {
    const vs = af === undefined || t.id === 'arrayfuse' ? '–' : ratio(af.kernel.median / t.kernel.median);
    lines.push(`| ${t.label} | ${spread(t.kernel)} | ${t.wall === null ? '–' : spread(t.wall)} | ${vs} | ${t.verified} |`);
  }
  return lines.join('\n');
}

/** The examples: arrayfuse, the hand loop, and the baseline when it ran. */
export function examplesTable(rows: readonly PartResult[]): string {
  const baseline = rows.some((r) => timing(r, 'baseline') !== undefined);
  const lines = [
    `| example | size | arrayfuse ms, median (min–max) | hand loop ms | arrayfuse ÷ hand |${baseline ? ' before ms | now ÷ before |' : ''}`,
    `|${' --- |'.repeat(baseline ? 7 : 5)}`,
  ];
  for (const r of rows) {
    const af = timing(r, 'arrayfuse');
    const hand = timing(r, 'hand');
    const before = timing(r, 'baseline');
    if (af === undefined || hand === undefined) continue;
    const cells = [r.program, r.size, spread(af.kernel), spread(hand.kernel), ratio(af.kernel.median / hand.kernel.median)];
    if (baseline) cells.push(before === undefined ? '–' : spread(before.kernel), before === undefined ? '–' : ratio(af.kernel.median / before.kernel.median));
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** The heaviest clusters of arrayfuse's run (numbered as `arrayfuse run --stats` numbers them). */
export function clusterTable(r: PartResult, top = 8): string {
  const rows = r.clusters ?? [];
  const lines = ['| cluster | ms (all calls) | calls | share of the run | writes |', '| --- | --- | --- | --- | --- |'];
  for (const c of rows.slice(0, top)) lines.push(`| ${c.cluster} | ${c.timeMs.toFixed(1)} | ${c.runs} | ${(100 * c.share).toFixed(1)} % | ${c.writes.join(', ') || '–'} |`);
  if (rows.length > top) lines.push(`| ${rows.length - top} more | ${rows.slice(top).reduce((s, c) => s + c.timeMs, 0).toFixed(1)} | | ${(100 * rows.slice(top).reduce((s, c) => s + c.share, 0)).toFixed(1)} % | |`);
  return lines.join('\n');
}

function bound(what: string, value: number | null, limit: number, atMost: boolean): Target {
  if (value === null) return { what, value: 'not measured (reference skipped)', met: null };
  return { what, value: ratio(value), met: atMost ? value <= limit : value >= limit };
}

/** The targets, from what ran: ratios of kernel-time medians. */
export function targets(results: readonly PartResult[]): Target[] {
  const out: Target[] = [];
  const ratioOf = (r: PartResult, id: string, inverse = false): number | null => {
    const af = timing(r, 'arrayfuse');
    const other = timing(r, id);
    if (af === undefined || other === undefined) return null;
    return inverse ? other.kernel.median / af.kernel.median : af.kernel.median / other.kernel.median;
  };
  for (const r of results) {
    if (r.part === 'mg') out.push(bound(`NAS MG ${r.size}: arrayfuse ÷ NPB-CPP serial ≤ 4`, ratioOf(r, 'npb'), 4, true));
    if (r.part === 'attention') {
      out.push(bound(`FlashAttention ${r.size}: arrayfuse ÷ NumPy (1 thread) ≤ 5`, ratioOf(r, 'numpy'), 5, true));
      out.push(bound(`FlashAttention ${r.size}: JS triple loop ÷ arrayfuse ≥ 2`, ratioOf(r, 'js', true), 2, false));
    }
    if (r.part === 'lulesh') out.push(bound(`LULESH ${r.size}: arrayfuse ÷ LLNL serial ≤ 1.3`, ratioOf(r, 'lulesh'), 1.3, true));
  }
  const examples = results.filter((r) => r.part === 'examples');
  if (examples.length > 0) {
    const slower = examples.map((r) => ({ name: r.program, x: ratioOf(r, 'baseline') })).filter((e): e is { name: string; x: number } => e.x !== null);
    if (slower.length === 0) {
      out.push({ what: 'every shared example: no slower than before', value: 'no --baseline: compare "arrayfuse ÷ hand" with the previous table', met: null });
    } else {
      const worst = slower.reduce((a, b) => (b.x > a.x ? b : a));
      out.push({ what: `every shared example: now ÷ before ≤ ${1 + EXAMPLE_NOISE} (noise)`, value: `worst ${worst.name} ${ratio(worst.x)}`, met: worst.x <= 1 + EXAMPLE_NOISE });
    }
  }
  return out;
}

export function targetTable(met: readonly Target[]): string {
  return ['| target | measured | met |', '| --- | --- | --- |', ...met.map((t) => `| ${t.what} | ${t.value} | ${t.met === null ? '–' : t.met ? 'yes' : 'NO'} |`)].join('\n');
}

/** The whole report. */
export function renderReport(results: readonly PartResult[], header: { command: string; machine: string; repetitions: number; clusterTop?: number }): string {
  const apps = results.filter((r) => r.part !== 'examples');
  const examples = results.filter((r) => r.part === 'examples');
  const md = [
    `Command: \`${header.command}\`  `,
    `Machine: ${header.machine}  `,
    `Single thread each. Medians (min–max) of ${header.repetitions} interleaved repetitions after verified warm-ups (one; arrayfuse: ${arrayfuseWarmUps}, the calls its WebAssembly trials take at most); EVERY call's output is verified. ` +
      "Kernel time: arrayfuse's call, a native binary's own timed section (NPB's T_BENCH, LULESH's main loop), NumPy's perf_counter; the ratios use it. Wall: the whole child process.",
  ];
  for (const r of apps) {
    md.push('', `### ${r.program}, ${r.size}`, '', partTable(r), ...r.skipped.map((s) => `\n${s}`));
  }
  if (examples.length > 0) {
    md.push('', "### Shared examples (bench/exec's inputs and hand loops; arrayfuse bit for bit equal to the hand loop)", '', examplesTable(examples));
  }
  const met = targets(results);
  if (met.length > 0) md.push('', '### Targets (issue 13)', '', targetTable(met));
  for (const r of results.filter((x) => x.clusters !== null && x.clusters.length > 0 && x.part !== 'examples')) {
    md.push('', `### arrayfuse's heaviest clusters: ${r.program}, ${r.size} (one run with every cluster timed)`, '', clusterTable(r, header.clusterTop));
  }
  md.push('');
  return md.join('\n');
}
