// The memory benchmark's tables (Markdown) and the issue's targets, from the measurements of
// singleLoop.ts, apps.ts, scatter.ts and overhead.ts.

import type { AppResult } from './apps.js';
import { mib, ratio, spread, type VariantTiming } from './harness.js';
import type { OverheadResult } from './overhead.js';
import type { ScatterResult } from './scatter.js';
import type { SingleLoopResult } from './singleLoop.js';

function timing(rows: readonly VariantTiming[], id: string): VariantTiming | undefined {
  return rows.find((r) => r.id === id);
}

export function singleLoopTable(r: SingleLoopResult): string {
  const reused = timing(r.timings, 'hand-reused');
  const numpy = timing(r.timings, 'numpy');
  const lines = [
    '| variant | ms, median (min–max) | ÷ hand loop, reused array | NumPy ÷ this (speed-up) | minor faults / call |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const t of r.timings) {
    const vsHand = reused === undefined ? '–' : ratio(t.ms.median / reused.ms.median);
    const vsNumpy = numpy === undefined ? '–' : ratio(numpy.ms.median / t.ms.median);
    lines.push(`| ${t.label} | ${spread(t.ms)} | ${vsHand} | ${vsNumpy} | ${t.minorFaults.toFixed(0)} |`);
  }
  return lines.join('\n');
}

export function appsTable(rows: readonly AppResult[]): string {
  const lines = [
    '| program | size | first run ms (incl. planning) | run ms, median (min–max) | allocated / run after the first (results into `out`), MiB (arrays) | minor faults / run | system ms / run | memory plan: peak MiB, slots (sized at run time) | pool MiB | peak RSS MiB |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const a of rows) {
    const allocations = a.runs.map((r) => r.allocations).sort((x, y) => x - y)[a.runs.length >> 1] ?? 0;
    lines.push(
      `| ${a.app === 'mg' ? 'NAS MG' : 'LULESH'} | ${a.label} | ${a.firstRunMs.toFixed(0)} | ${spread(a.ms)} | ${mib(a.bytesAllocated)} (${allocations}) | ${a.minorFaults.toFixed(0)} | ${a.systemMs.toFixed(0)} | ${mib(a.planPeakBytes)}, ${a.slots} (${a.dynamicSlots}) | ${mib(a.poolBytes)} | ${mib(a.maxRssBytes)} |`,
    );
  }
  return lines.join('\n');
}

export function scatterTable(r: ScatterResult): string {
  const inPlace = timing(r.timings, 'hand-inplace');
  const lines = ['| variant | ms / run, median (min–max) | ÷ hand loop in place | allocated / run MiB |', '| --- | --- | --- | --- |'];
  for (const t of r.timings) {
    lines.push(`| ${t.label} | ${spread(t.ms)} | ${inPlace === undefined ? '–' : ratio(t.ms.median / inPlace.ms.median)} | ${mib(r.bytesAllocated[t.id])} |`);
  }
  const plans = r.plans.map((p) => `- ${p.strategy}: ${p.clusters} clusters, ${p.elided} copies elided, manifest ${p.manifest.join(', ')}`);
  return [lines.join('\n'), '', ...plans].join('\n');
}

export function overheadTable(rows: readonly OverheadResult[]): string {
  const ids = ['api', 'execute', 'executable', 'hand'];
  const first = rows[0];
  if (first === undefined) return '';
  const head = `| n | ${ids.map((id) => `${first.timings.find((t) => t.id === id)?.label ?? id} µs`).join(' | ')} | public run ÷ hand |`;
  const lines = [head, `|${' --- |'.repeat(ids.length + 2)}`];
  for (const r of rows) {
    const cell = (id: string): string => {
      const t = r.timings.find((x) => x.id === id);
      return t === undefined ? '–' : spread(t.us);
    };
    const api = r.timings.find((t) => t.id === 'api');
    const hand = r.timings.find((t) => t.id === 'hand');
    lines.push(`| ${r.n} | ${ids.map(cell).join(' | ')} | ${api === undefined || hand === undefined ? '–' : ratio(api.us.median / hand.us.median)} |`);
  }
  return lines.join('\n');
}

export interface Target {
  readonly what: string;
  readonly value: string;
  readonly met: boolean | null;
}

export function targets(single: SingleLoopResult | null, apps: readonly AppResult[], overhead: readonly OverheadResult[]): Target[] {
  const out: Target[] = [];
  if (single !== null) {
    const withOut = timing(single.timings, 'run-out');
    const reused = timing(single.timings, 'hand-reused');
    const numpy = timing(single.timings, 'numpy');
    if (withOut !== undefined && reused !== undefined) {
      const x = withOut.ms.median / reused.ms.median;
      out.push({ what: `singleLoop n = ${single.n}: run with out ÷ hand loop into a reused array ≤ 1.2`, value: ratio(x), met: x <= 1.2 });
    }
    if (withOut !== undefined && numpy !== undefined) {
      const x = numpy.ms.median / withOut.ms.median;
      out.push({ what: `singleLoop n = ${single.n}: run with out ≥ 3× faster than NumPy`, value: ratio(x), met: x >= 3 });
    }
  }
  for (const a of apps) {
    out.push({ what: `${a.app === 'mg' ? 'NAS MG' : 'LULESH'} ${a.label}: bytes allocated per run after the first → 0`, value: `${mib(a.bytesAllocated)} MiB`, met: a.bytesAllocated === 0 });
  }
  const small = overhead.find((o) => o.n === 10);
  const api = small?.timings.find((t) => t.id === 'api');
  if (api !== undefined) out.push({ what: 'public run at n = 10 ≤ 5 µs per call', value: `${api.us.median.toFixed(2)} µs`, met: api.us.median <= 5 });
  return out;
}
