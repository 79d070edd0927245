// The harness's results as data (the JSON file), as Markdown tables (Figures 3 and 4 as
// numbers, each program's plans, greedyBottomUpBad's memory, Table 2) and as the two SVG charts.

import type { CbcResult } from './solvers.js';
import { allStrategies, BASELINE_ID, type ProgramResult, type StrategyResult } from './harness.js';
import type { SkippedProgram } from './registry.js';
import { renderBarChart, type BarChart } from './charts.js';

export interface MachineInfo {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly node: string;
  readonly platform: string;
  readonly memoryGiB: number;
  readonly loadAverage: readonly number[];
}

export interface SolveTimeRow {
  readonly program: string;
  readonly size: string;
  readonly combinators: number;
  readonly highs: { readonly status: string; readonly planMs: number; readonly nodes: number | null; readonly objective: number } | null;
  /** Null when CBC is not installed or was not asked for. */
  readonly cbc: CbcResult | null;
}

export interface PaperResults {
  readonly mode: string;
  readonly date: string;
  readonly command: string;
  readonly machine: MachineInfo;
  readonly totalSeconds: number;
  readonly programs: readonly ProgramResult[];
  readonly skipped: readonly SkippedProgram[];
  readonly solveTimes: readonly SolveTimeRow[];
  /** Strategies whose output was wrong or that failed to plan or run. */
  readonly failures: readonly string[];
}

/** The paper's Figure 3 bars: ILP (reads+writes), the two greedy planners, no fusion. */
export const figure3Ids: readonly string[] = [BASELINE_ID, 'greedy-down', 'greedy-up', 'none'];
/** The paper's Figure 4 bars (its six cost functions), then `bytes`, which it does not have. */
export const figure4Ids: readonly string[] = ['ilp:reads', 'ilp:writes', BASELINE_ID, 'ilp:fused-edges', 'ilp:clusters', 'ilp:everything', 'ilp:bytes'];

function labelOf(id: string): string {
  if (id === BASELINE_ID) return 'ILP (reads+writes)';
  return allStrategies.find((s) => s.id === id)?.label ?? id;
}

function strategyOf(p: ProgramResult, id: string): StrategyResult | undefined {
  return p.strategies.find((s) => s.id === id);
}

function cell(s: StrategyResult | undefined): string {
  if (s === undefined) return '';
  if (s.error !== null) return 'FAILED';
  return s.normalised === null ? '–' : s.normalised.toFixed(2);
}

function ms(x: number | null): string {
  if (x === null) return '–';
  return x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(x >= 100 ? 0 : 1)} ms`;
}

function mib(bytes: number | null): string {
  return bytes === null ? '–' : `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function groupName(p: ProgramResult): string {
  return `${p.program} (${p.size})`;
}

function normalisedTable(results: PaperResults, ids: readonly string[]): string {
  const present = ids.filter((id) => results.programs.some((p) => strategyOf(p, id) !== undefined));
  return table(
    ['program (size)', 'ILP reads+writes median', ...present.map(labelOf)],
    results.programs.map((p) => [groupName(p), ms(strategyOf(p, BASELINE_ID)?.medianMs ?? null), ...present.map((id) => cell(strategyOf(p, id)))]),
  );
}

function planTable(p: ProgramResult): string {
  return table(
    ['strategy', 'status', 'objective', 'gap', 'plan time', 'clusters', 'manifest arrays', 'median run', 'normalised', 'array bytes per run'],
    p.strategies.map((s) => [
      labelOf(s.id) + (s.plan === null ? '' : ` (${s.id.startsWith('ilp:') ? s.id.slice(4) : 'cost reads+writes'})`),
      s.plan?.status ?? '–',
      s.plan === null ? '–' : String(s.plan.objective),
      s.plan?.gap === null || s.plan?.gap === undefined ? '–' : s.plan.gap.toFixed(3),
      s.plan === null ? '–' : ms(s.plan.planWallMs),
      s.plan === null ? '–' : String(s.plan.clusters),
      s.plan === null ? '–' : String(s.plan.manifestArrays),
      s.error !== null ? `FAILED: ${s.error}` : ms(s.medianMs),
      cell(s),
      mib(s.bytesAllocated),
    ]),
  );
}

function solveTimeTable(rows: readonly SolveTimeRow[]): string {
  return table(
    ['program (size)', 'combinators', 'HiGHS status', 'HiGHS time', 'B&B nodes', 'objective', 'CBC (exported LP)', 'CBC objective'],
    rows.map((r) => [
      `${r.program} (${r.size})`,
      String(r.combinators),
      r.highs?.status ?? 'FAILED',
      r.highs === null ? '–' : ms(r.highs.planMs),
      r.highs?.nodes === null || r.highs === null ? '–' : String(r.highs.nodes),
      r.highs === null ? '–' : String(r.highs.objective),
      r.cbc === null ? 'not run (no cbc)' : r.cbc.status === 'optimal' ? `${ms(r.cbc.wallMs)} (${r.cbc.blocks} block${r.cbc.blocks === 1 ? '' : 's'})` : `${r.cbc.status}: ${r.cbc.detail}`,
      r.cbc?.objective === null || r.cbc === null ? '–' : String(r.cbc.objective),
    ]),
  );
}

/** The whole Markdown report. */
export function renderMarkdown(results: PaperResults): string {
  const m = results.machine;
  const out: string[] = [
    `# arrayfuse paper evaluation (${results.mode})`,
    '',
    `${results.date}; ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, Node ${m.node} on ${m.platform}; load average at start ${m.loadAverage.map((x) => x.toFixed(1)).join(' ')}; ${results.totalSeconds.toFixed(0)} s in all.`,
    '',
    `Reproduce: \`${results.command}\``,
    '',
    'Runtimes are medians of interleaved repetitions, normalised to the ILP plan under `reads+writes`; every run\'s output was verified.',
    '',
    '## Figure 3: ILP against greedy and no fusion',
    '',
    normalisedTable(results, figure3Ids),
    '',
    '## Figure 4: cost functions',
    '',
    normalisedTable(results, figure4Ids),
    '',
    '## Table 2: ILP solve time (reads+writes)',
    '',
    solveTimeTable(results.solveTimes),
    '',
    '## Plans per program',
  ];
  for (const p of results.programs) {
    out.push('', `### ${groupName(p)}`, '', `${p.combinators} combinators (${Object.entries(p.combinatorKinds).map(([k, n]) => `${n} ${k}`).join(', ')}); ${p.repetitions} timed repetition(s).`, '', planTable(p));
  }
  if (results.skipped.length > 0) {
    out.push('', '## Programs not run', '', ...results.skipped.map((s) => `- \`${s.file}\`: ${s.reason}`));
  }
  out.push('', '## Failures', '', results.failures.length === 0 ? 'None: every plan was made, and every run verified.' : results.failures.map((f) => `- ${f}`).join('\n'), '');
  return out.join('\n');
}

function chart(results: PaperResults, ids: readonly string[], title: string, yMax: number): BarChart {
  const present = ids.filter((id) => results.programs.some((p) => strategyOf(p, id) !== undefined));
  return {
    title,
    yLabel: 'Normalised runtime',
    yMax,
    groups: results.programs.map(groupName),
    series: present.map((id) => ({
      label: id === BASELINE_ID ? (ids === figure3Ids ? 'ILP' : 'reads and writes') : labelOf(id),
      values: results.programs.map((p) => strategyOf(p, id)?.normalised ?? null),
    })),
  };
}

/** Figure 3 (ILP, greedy ↓, greedy ↑, no fusion) and Figure 4 (cost functions) as SVG. */
export function renderCharts(results: PaperResults): { readonly figure3: string; readonly figure4: string } {
  return {
    figure3: renderBarChart(chart(results, figure3Ids, 'Comparing ILP to greedy and no fusion', 5)),
    figure4: renderBarChart(chart(results, figure4Ids, 'Comparing cost functions', 3)),
  };
}
