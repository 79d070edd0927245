// The harness's results as data (the JSON file), as Markdown tables (Figures 3 and 4 as
// numbers, each program's plans, greedyBottomUpBad's memory, Table 2) and as the two SVG charts.

import type { CbcResult } from './solvers.js';
import { allStrategies, BASELINE_ID, PARALLEL_ID, type ProgramResult, type StrategyResult } from './harness.js';
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
  /** The commit measured, and whether src/ had uncommitted changes (a shared tree moves). */
  readonly commit: string;
  readonly srcDirty: boolean;
  readonly machine: MachineInfo;
  readonly totalSeconds: number;
  readonly programs: readonly ProgramResult[];
  readonly skipped: readonly SkippedProgram[];
  readonly solveTimes: readonly SolveTimeRow[];
  /** Strategies whose output was wrong or that failed to plan or run. */
  readonly failures: readonly string[];
  /**
   * `--threads`: the threads of the parallel bar (the baseline's plan on the multicore back end,
   * PARALLEL_ID); 1 or absent (results from before the option) when there is none.
   */
  readonly threads?: number;
}

/**
 * The paper's Figure 3 bars: ILP (reads+writes), the two greedy planners, no fusion; beside its
 * ILP bar, the same plan on N threads (`--threads`) and ours under the default cost
 * (reads+writes+recompute), which the paper does not have.
 */
export const figure3Ids: readonly string[] = [BASELINE_ID, PARALLEL_ID, 'ilp:reads+writes+recompute', 'greedy-down', 'greedy-up', 'none'];
/** The paper's Figure 4 bars (its six cost functions), then `bytes` and the default, which it does not have. */
export const figure4Ids: readonly string[] = ['ilp:reads', 'ilp:writes', BASELINE_ID, 'ilp:fused-edges', 'ilp:clusters', 'ilp:everything', 'ilp:bytes', 'ilp:reads+writes+recompute'];

/**
 * The paper's numbers (§5, read from its .tex): Figure 3 normalised to its ILP bar; Figure 4 as
 * published, normalised to `reads` (its first bar), which `paperFigure4` re-normalises to
 * `reads+writes` so that it compares with ours.
 */
const paperFigure3: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  greedyTopDownBad: { [BASELINE_ID]: 1, 'greedy-down': 1.54294538198288, 'greedy-up': 1.00978296747171, none: 4.0889465854366 },
  greedyBottomUpBad: { [BASELINE_ID]: 1, 'greedy-down': 1.00708059290469, 'greedy-up': 19.6438368583689, none: 37.1991904624318 },
  FlashAttention: { [BASELINE_ID]: 1, 'greedy-down': 0.845647526879652, 'greedy-up': 0.831861636007883, none: 3.76622532842107 },
  Multigrid: { [BASELINE_ID]: 1, 'greedy-down': 0.905114261220461, 'greedy-up': 0.992425160848971, none: 2.47863220720633 },
  LULESH: { [BASELINE_ID]: 1, 'greedy-down': 0.827938107371296, 'greedy-up': 0.837543549025881, none: 2.61163331185919 },
};

const paperFigure4Raw: Readonly<Record<string, readonly number[]>> = {
  // reads, intermediate arrays, reads and writes, fused edges, number of clusters, everything
  FlashAttention: [1, 0.681190683887872, 0.688360387967554, 0.682336072071049, 1.32774446195189, 0.69419113386357],
  Multigrid: [1, 0.886329045306388, 0.943835384174659, 1.00212693319299, 1.34074685414164, 1.00104786942769],
  LULESH: [1, 0.929235213784258, 1.01036791654502, 0.883475206313214, 1.64095822074677, 0.920122531875014],
};

function paperFigure4(program: string): Readonly<Record<string, number>> | undefined {
  const raw = paperFigure4Raw[program];
  if (raw === undefined) return undefined;
  const ids = ['ilp:reads', 'ilp:writes', BASELINE_ID, 'ilp:fused-edges', 'ilp:clusters', 'ilp:everything'];
  return Object.fromEntries(ids.map((id, k) => [id, raw[k]! / raw[2]!]));
}

/** The paper's Table 2: combinators and Gurobi's solve time; CBC solved none within an hour. */
const paperTable2: Readonly<Record<string, { readonly combinators: number; readonly gurobiSeconds: number }>> = {
  FlashAttention: { combinators: 66, gurobiSeconds: 9.77 },
  LULESH: { combinators: 51, gurobiSeconds: 0.42 },
  Multigrid: { combinators: 99, gurobiSeconds: 0.29 },
};

function labelOf(id: string, threads: number): string {
  if (id === BASELINE_ID) return 'ILP (reads+writes)';
  if (id === PARALLEL_ID) return `ILP (reads+writes), ${threads} threads`;
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

function bytesText(bytes: number | null): string {
  if (bytes === null) return '–';
  if (bytes >= 2 ** 20) return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  return bytes >= 2 ** 10 ? `${(bytes / 2 ** 10).toFixed(1)} KiB` : `${bytes} B`;
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function groupName(p: ProgramResult): string {
  return `${p.program} (${p.size})`;
}

/** Ours, and the paper's in parentheses where it has the bar. */
function normalisedTable(results: PaperResults, ids: readonly string[], paper: (program: string) => Readonly<Record<string, number>> | undefined): string {
  const present = ids.filter((id) => results.programs.some((p) => strategyOf(p, id) !== undefined));
  return table(
    ['program (size)', 'ILP reads+writes median', ...present.map((id) => labelOf(id, results.threads ?? 1))],
    results.programs.map((p) => [
      groupName(p),
      ms(strategyOf(p, BASELINE_ID)?.medianMs ?? null),
      ...present.map((id) => {
        const theirs = paper(p.program)?.[id];
        return theirs === undefined ? cell(strategyOf(p, id)) : `${cell(strategyOf(p, id))} (${theirs.toFixed(2)})`;
      }),
    ]),
  );
}

function planTable(p: ProgramResult): string {
  // Results written before plans had keys have none; the column then says nothing.
  const baselineKey = strategyOf(p, BASELINE_ID)?.plan?.planKey;
  return table(
    ['strategy', 'status', 'objective', 'gap', 'plan time', 'clusters', 'manifest arrays', 'same plan as reads+writes', 'median run', 'normalised', 'array bytes per run'],
    p.strategies.map((s) => [
      `\`${s.id}\``,
      s.plan?.status ?? '–',
      s.plan === null ? '–' : String(s.plan.objective),
      s.plan?.gap === null || s.plan?.gap === undefined ? '–' : s.plan.gap.toFixed(3),
      s.plan === null ? '–' : ms(s.plan.planWallMs),
      s.plan === null ? '–' : String(s.plan.clusters),
      s.plan === null ? '–' : String(s.plan.manifestArrays),
      s.plan === null || baselineKey === undefined ? '–' : s.plan.planKey === baselineKey ? 'yes' : 'no',
      s.error !== null ? `FAILED: ${s.error}` : ms(s.medianMs),
      cell(s),
      bytesText(s.bytesAllocated),
    ]),
  );
}

function solveTimeTable(rows: readonly SolveTimeRow[]): string {
  return table(
    ['program (size)', 'combinators (paper)', 'HiGHS status', 'HiGHS time', 'B&B nodes', 'objective', 'CBC (exported LP)', 'CBC objective', 'paper: Gurobi'],
    rows.map((r) => [
      `${r.program} (${r.size})`,
      `${r.combinators} (${paperTable2[r.program]?.combinators ?? '–'})`,
      r.highs?.status ?? 'FAILED',
      r.highs === null ? '–' : ms(r.highs.planMs),
      r.highs?.nodes === null || r.highs === null ? '–' : String(r.highs.nodes),
      r.highs === null ? '–' : String(r.highs.objective),
      r.cbc === null ? 'not run (no cbc)' : r.cbc.status === 'optimal' ? `${ms(r.cbc.wallMs)} (${r.cbc.blocks} block${r.cbc.blocks === 1 ? '' : 's'})` : `${r.cbc.status}: ${r.cbc.detail}`,
      r.cbc?.objective === null || r.cbc === null ? '–' : String(r.cbc.objective),
      paperTable2[r.program] === undefined ? '–' : `${paperTable2[r.program]!.gurobiSeconds} s`,
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
    `Reproduce: \`${results.command}\` at commit ${results.commit}${results.srcDirty ? ' (src/ had uncommitted changes)' : ''}`,
    '',
    'Runtimes are medians of interleaved repetitions, normalised to the ILP plan under `reads+writes`; every run\'s output was verified. In parentheses: the paper\'s value (its Figure 4 re-normalised from `reads` to `reads+writes`).',
    ...((results.threads ?? 1) > 1
      ? ['', `The parallel bar (\`ILP (reads+writes), ${results.threads} threads\`): the same plan run by the multicore back end with ${results.threads} threads, interleaved with the rest; its runtime normalised to the 1-thread ILP bar (below 1: faster).`]
      : []),
    '',
    '## Figure 3: ILP against greedy and no fusion',
    '',
    normalisedTable(results, figure3Ids, (program) => paperFigure3[program]),
    '',
    '## Figure 4: cost functions',
    '',
    normalisedTable(results, figure4Ids, paperFigure4),
    '',
    '## Table 2: ILP solve time (reads+writes)',
    '',
    'The paper: Gurobi 9.1.2 times below; CBC 2.10.7 solved none of the three within an hour.',
    '',
    solveTimeTable(results.solveTimes),
    '',
  ];
  for (const p of results.programs.filter((p) => p.strategies.some((s) => s.bytesAllocated !== null))) {
    out.push(
      `## Memory: ${groupName(p)}`,
      '',
      table(
        ['strategy', 'array bytes per run', 'largest array', 'median run'],
        p.strategies.map((s) => [labelOf(s.id, results.threads ?? 1), bytesText(s.bytesAllocated), bytesText(s.largestAllocation), s.error !== null ? 'FAILED' : ms(s.medianMs)]),
      ),
      '',
    );
  }
  out.push('## Plans per program', '', 'Objective: the plan\'s cost under its strategy\'s cost function (`reads+writes` for greedy and no fusion). Clusters and manifest arrays are summed over all blocks. Strategies with the same plan as `reads+writes` run the same generated code, so their spread around 1.00 is the measurement\'s noise.');
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
      label: id === BASELINE_ID ? (ids === figure3Ids ? 'ILP' : 'reads and writes') : id === PARALLEL_ID ? `ILP, ${results.threads ?? 1} threads` : labelOf(id, results.threads ?? 1),
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
