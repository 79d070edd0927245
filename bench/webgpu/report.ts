// bench:webgpu's Markdown tables.

import { spread } from '../memory/harness.js';
import type { Comparison, VariantResult } from './compare.js';
import type { StreamResult } from './stream.js';
import type { Weights } from './weights.js';

function timeCell(v: { readonly ms: VariantResult['ms']; readonly error: string | null }): string {
  if (v.error !== null) return `FAILED: ${v.error}`;
  return v.ms === null ? '–' : `${spread(v.ms, 3)} ms`;
}

/** One row per variant of every comparison; × is the first variant's median ÷ this one's. */
export function comparisonTable(rows: readonly Comparison[]): string {
  const head = ['program', 'size', 'variant', 'cost planned with', 'clusters', 'kernels (refused)', 'ms, median (min–max)', '× vs first'];
  const lines = [`| ${head.join(' | ')} |`, `|${' --- |'.repeat(head.length)}`];
  for (const r of rows) {
    const first = r.variants[0]?.ms?.median ?? null;
    for (const v of r.variants) {
      const ratio = first !== null && v.ms !== null ? `${(first / v.ms.median).toFixed(2)}×` : '–';
      const kernels = v.kernels === null ? '–' : `${v.kernels} (${v.refused})`;
      lines.push(`| ${[r.name, r.size, v.label, v.cost === null ? '–' : `\`${v.cost}\``, String(v.clusters ?? '–'), kernels, timeCell(v), ratio].join(' | ')} |`);
    }
  }
  return lines.join('\n');
}

export function weightsTable(w: Weights): string {
  const lines = ['| quantity | value |', '| --- | --- |'];
  for (const t of w.timings) lines.push(`| ${t.label}, ms per run | ${t.ms === null ? `FAILED: ${t.error}` : spread(t.ms, 3)} |`);
  lines.push(`| one more 1-element cluster (launch) | ${w.launchUs.toFixed(2)} µs |`);
  lines.push(`| one more copy cluster of ${w.copyN} elements | ${w.copyClusterUs.toFixed(1)} µs |`);
  lines.push(`| one 4-byte element read or written | ${w.elementNs.toPrecision(3)} ns |`);
  lines.push(`| copy bandwidth (8 bytes per element) | ${w.bandwidthGBs.toPrecision(3)} GB/s |`);
  lines.push(`| **K = launch ÷ element** | **${w.launchElements === null ? 'not measurable (a slope was not positive)' : w.launchElements.toPrecision(3)}** |`);
  return lines.join('\n');
}

export function streamTable(s: StreamResult): string {
  const lines = ['| quantity | value |', '| --- | --- |'];
  lines.push(`| singleLoop f32, n = ${s.n}, one run (upload, kernel, read back) | ${timeCell(s.run)} |`);
  for (const t of s.repeated) lines.push(`| the cluster repeated ${t.label} | ${timeCell(t)} |`);
  lines.push(`| one singleLoop cluster (slope) | ${s.clusterMs === null ? '–' : `${(s.clusterMs * 1e3).toFixed(1)} µs`} |`);
  lines.push(`| its traffic, 12 bytes per element, over that time | ${s.achievedGBs === null ? '–' : `${s.achievedGBs.toPrecision(3)} GB/s`} |`);
  lines.push(`| the copy kernel's bandwidth | ${s.copyGBs.toPrecision(3)} GB/s |`);
  lines.push(`| **fraction of the copy bandwidth** (issue's target ≥ 70% on a GPU) | **${s.fraction === null ? '–' : `${(100 * s.fraction).toFixed(0)}%`}** |`);
  return lines.join('\n');
}
