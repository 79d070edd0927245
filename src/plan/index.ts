// The planner's entry point: one strategy over every block of a program's dependence graphs
// (nested blocks get plans of their own, paper §4.1 "Control flow"), giving the Plan of
// src/plan/types.ts with its cost recomputed from the plan and the solver's statistics.
//
// One path for both entries of the graph stage: `planFrom(make, options)` checks the options,
// loads HiGHS, then makes the graphs — built from a Program (`plan`, the driver's `planProgram`)
// or read from JSON (the driver's `planGraphJson`) — and plans them; making them counts
// against the time limit.
// Nothing here checks the plan: the checker (src/check) is independent of the planner, and the
// driver runs it on every plan.
//
// ILP solving: any incumbent is a valid plan; a time limit keeps the best incumbent and its gap;
// no incumbent falls back to greedy-down (said in `notes`); an infeasible model is our bug, and
// the CompilerBug carries the model as LP text (the CLI writes it to a file and names it).

import { CompilerBug, userError } from '../diagnostics/index.js';
import { programGraphs, type BlockGraphs } from '../graph/program.js';
import type { DependenceGraph } from '../graph/types.js';
import type { CostWeights } from '../graph/weights.js';
import type { EntrySizes } from '../graph/sizes.js';
import type { Program } from '../ir/types.js';
import { blockPlanFromAssignment, splitByPi, type Assignment } from './clusters.js';
import { defaultCostText, parseCost, type CostSpec } from './cost.js';
import { elideCopies, greedyAssignment, greedyWalk, noFusionAssignment } from './greedy.js';
import { buildModelUnless, gatherFactor, type IlpModel } from './ilp/model.js';
import { toLpText } from './ilp/lpfile.js';
import { startFromAssignment } from './ilp/start.js';
import { defaultSolverLoader, solveModel, type HighsOptionValues, type SolverHandle, type SolverLoader } from './ilp/solver.js';
import { blockPlanCost } from './objective.js';
import { DEFAULT_PROGRESS_EVERY_MS, relativeGap, throttledReporter, type BlockState, type PlanStage, type ProgressListener } from './progress.js';
import type { BlockPlan, Plan, SolveStatus, Strategy } from './types.js';

export interface PlanOptions {
  readonly strategy?: Strategy;
  /** Cost text (`reads+writes`, `2*reads + writes`) or a parsed spec. Default `defaultCostText` (reads+writes+recompute). */
  readonly cost?: string | CostSpec;
  /**
   * Wall-clock limit of the ILP strategy's whole planning call, in seconds: making the graphs,
   * the greedy walks, building and solving every block's model (loading HiGHS excluded), within
   * the overshoot of docs/PLANNING.md "Solving". Negative or not finite → E600. Absent: the
   * default, DEFAULT_TIME_LIMIT_SECONDS (a JIT cannot wait for a proof forever).
   */
  readonly timeLimitSeconds?: number;
  /**
   * Progress of the ILP strategy (src/plan/progress.ts): the block, stage, incumbent, bound,
   * gap, nodes and elapsed time, once planning has run `progressEveryMs` and then at most once
   * per `progressEveryMs`. An error it throws stops planning and is rethrown.
   */
  readonly onProgress?: ProgressListener;
  /** Milliseconds before the first progress report and between reports; default 500. Negative or not finite → E603. */
  readonly progressEveryMs?: number;
  /** Entry array shapes (and scalar values) for `bytes`. */
  readonly shapes?: EntrySizes;
  readonly weights?: CostWeights;
  /** Where HiGHS comes from; pass one loader to many calls to load the solver once. */
  readonly solver?: SolverLoader;
  /** Formulation and solver switches, for benchmarks comparing variants (bench/plan). */
  readonly ilpTuning?: IlpTuning;
}

/** Switches of the ILP path; every default is the variant measured best (bench/plan). */
export interface IlpTuning {
  /** Valid cuts in the model (ModelOptions.cuts). Default true. */
  readonly cuts?: boolean;
  /** HiGHS' feasibility-jump heuristic (SolveOptions.feasibilityJump). Default false. */
  readonly feasibilityJump?: boolean;
  /** Start HiGHS from greedy-down's plan (start.ts). Default true. */
  readonly warmStart?: boolean;
  /** Further HiGHS options by HiGHS' names (SolveOptions.highsOptions). Default none: HiGHS' own defaults. */
  readonly highsOptions?: HighsOptionValues;
}

/**
 * The ILP's time limit when none is given. Generous next to the planner's usual times (the
 * shared examples take milliseconds, random 100-combinator programs about a second) so that
 * it only stops pathological blocks, which then keep their best plan (status `time-limit`).
 */
export const DEFAULT_TIME_LIMIT_SECONDS = 10;

export function resolveCost(cost: string | CostSpec | undefined): CostSpec {
  if (cost === undefined) return parseCost(defaultCostText);
  return typeof cost === 'string' ? parseCost(cost) : cost;
}

/** A value as a message shows it: strings quoted, so `'1'` is not taken for the number 1. */
function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : typeof value === 'bigint' ? `${value}n` : String(value);
}

/**
 * A longer limit is taken as this one (about 115 days): HiGHS takes only finite limits, and a
 * deadline past it is no limit in practice.
 */
export const MAX_TIME_LIMIT_SECONDS = 1e7;

export function checkTimeLimit(seconds: unknown): void {
  if (seconds !== undefined && !(typeof seconds === 'number' && seconds >= 0 && Number.isFinite(seconds))) {
    throw userError('E600', `the time limit must be a non-negative number of seconds, not ${shown(seconds)}`);
  }
}

/** E603 for a progress interval that is negative or not finite. */
export function checkProgressEvery(ms: unknown): void {
  if (ms !== undefined && !(typeof ms === 'number' && ms >= 0 && Number.isFinite(ms))) {
    throw userError('E603', `the progress interval must be a non-negative number of milliseconds, not ${shown(ms)}`);
  }
}

const strategies: readonly Strategy[] = ['ilp', 'greedy-down', 'greedy-up', 'none'];

/** E604 for a strategy that is none of ours (JavaScript callers may pass anything). */
export function checkStrategy(strategy: unknown): Strategy {
  if (!strategies.includes(strategy as Strategy)) {
    throw userError('E604', `unknown strategy ${shown(strategy)}: expected ${strategies.join(', ')}`);
  }
  return strategy as Strategy;
}

/** E605 for an entry size (options.shapes) that is not a list of non-negative integers, or a scalar's value that is no number (NaN is an f64 value). */
export function checkShapes(shapes: EntrySizes | undefined): void {
  for (const [name, size] of Object.entries(shapes ?? {})) {
    const good = Array.isArray(size) ? size.every((d: unknown) => typeof d === 'number' && Number.isSafeInteger(d) && d >= 0) : typeof size === 'number';
    if (!good) {
      throw userError('E605', `the shape of \`${name}\` must be a list of non-negative integers (or a scalar's value), not ${Array.isArray(size) ? `[${size.map(shown).join(', ')}]` : shown(size)}`);
    }
  }
}

/** E609 for a weight that is negative or not finite: costs are sums of non-negative terms. */
export function checkWeights(weights: CostWeights | undefined): void {
  for (const [kind, table] of [['array', weights?.arrays], ['edge', weights?.edges]] as const) {
    for (const [key, w] of Object.entries(table ?? {})) {
      if (!(typeof w === 'number' && Number.isFinite(w) && w >= 0)) {
        throw userError('E609', `the ${kind} weight of \`${key}\` must be a finite non-negative number, not ${w}`);
      }
    }
  }
}

/**
 * The largest objective coefficient (and constant) the ILP may have: HiGHS takes 1e20 as
 * infinite, and far below that a minimisation loses the precision to tell plans apart.
 */
const MAX_OBJECTIVE_TERM = 1e15;

/** E608 for an objective the solver cannot hold: a large coefficient times a large weight (an array's bytes). */
function checkObjectiveRange(model: IlpModel): void {
  const largest = model.columns.reduce((m, c) => Math.max(m, Math.abs(c.cost)), Math.abs(model.offset));
  if (!(largest <= MAX_OBJECTIVE_TERM)) {
    throw userError('E608', `a term of the cost is ${largest}, more than the ${MAX_OBJECTIVE_TERM.toExponential()} the ILP solver can weigh exactly`, undefined, [
      'use smaller coefficients, or a cost that does not multiply them by sizes in bytes',
    ]);
  }
}

/** Where a block's lower bound comes from (said in the plan's notes unless HiGHS proved it). */
type BoundSource =
  /** HiGHS proved the plan optimal: bound = objective. */
  | 'optimal'
  /** HiGHS' best bound when the time limit stopped it. */
  | 'solver'
  /** The model's objective with every variable at its cheapest bound (HiGHS had none yet). */
  | 'box'
  /** 0: every cost term is non-negative (no model was built in time). */
  | 'zero';

/** How far a block's greedy walks got before the deadline. */
type WalkExtent = 'complete' | 'stopped';

/** Which plan a block uses under the ILP strategy. */
type Choice = 'ilp' | 'greedy-down' | 'greedy-up';

interface BlockOutcome {
  readonly plan: BlockPlan;
  readonly status: SolveStatus;
  readonly objective: number;
  readonly bound: number | null;
  readonly nodes: number;
  readonly notes: readonly string[];
  readonly choice?: Choice;
  readonly boundSource?: BoundSource;
  /** ILP strategy: whether the block's greedy walks were stopped by the deadline. */
  readonly walks?: WalkExtent;
}

/** The ILP assignment of one block from a solved model. */
function assignmentFromSolution(graph: DependenceGraph, model: IlpModel, values: Float64Array): Assignment {
  const { layout } = model;
  const pi = layout.pi.map((c) => values[c]!);
  const fused = layout.fused.map((c) => values[c]! < 0.5);
  const order = layout.order.map((c) => (c < 0 ? -1 : values[c]!));
  const manifest = layout.manifest.map((c) => c >= 0 && values[c]! > 0.5);
  const elided = layout.elide.filter((e) => values[e.col]! > 0.5).map((e) => graph.nodes[e.copy]!.id);
  return { cluster: splitByPi(graph, pi, fused, order), level: pi, order, manifest, ...(elided.length === 0 ? {} : { elided }) };
}

/**
 * A lower bound of the model's objective with no solving: every column at whichever of its
 * bounds is cheaper. Valid for every plan, since the model is exact (each plan is a point of
 * it at exactly its cost).
 */
function boxBound(model: IlpModel): number {
  let bound = model.offset;
  for (const c of model.columns) bound += Math.min(c.cost * c.lower, c.cost * c.upper);
  return bound;
}

/**
 * The time one planning call may spend, shared out over the blocks it plans. Each block gets
 * the remaining time in proportion to its size (nodes + edges + 1) among the blocks not yet
 * planned, so a big root block cannot starve its nested blocks and time a block leaves unused
 * passes on to the next.
 */
export interface TimeBudget {
  /** performance.now() milliseconds by which every block is planned. */
  readonly deadline: number;
  /** Summed size of the blocks not yet planned. */
  remainingSize: number;
}

function blockSize(bg: BlockGraphs): number {
  return 1 + bg.graph.nodes.length + bg.graph.edges.length;
}

/** Every block of the tree, root first, without recursion (blocks may nest deeply). */
function allBlocks(root: BlockGraphs): BlockGraphs[] {
  const out: BlockGraphs[] = [];
  const pending = [root];
  for (let b = pending.pop(); b !== undefined; b = pending.pop()) {
    out.push(b);
    for (const blocks of Object.values(b.children)) pending.push(...blocks);
  }
  return out;
}

/**
 * The part of the limit kept back for what follows the last solve and cannot be stopped:
 * HiGHS running past its deadline (its presolve checks the clock between passes, its MIP
 * search at each callback checkpoint), extracting the plan,
 * and the caller's validation of it (src/driver), which took 25–130 µs per node and edge on a
 * loaded 2-core machine (bench/plan/time-limit.test.ts). 3 % of the limit plus 0.1 ms per node
 * and edge, at most half the limit.
 */
function reserveMs(limitMs: number, totalSize: number): number {
  return Math.min(limitMs / 2, 0.03 * limitMs + 0.1 * totalSize);
}

/** The time budget of one planning call that started at `started` (performance.now()). */
function timeBudget(graphs: BlockGraphs, started: number, limitSeconds: number): TimeBudget {
  const totalSize = allBlocks(graphs).reduce((s, b) => s + blockSize(b), 0);
  const limitMs = limitSeconds * 1000;
  return { deadline: started + limitMs - reserveMs(limitMs, totalSize), remainingSize: totalSize };
}

/** This block's deadline: its share of the time left (see TimeBudget). */
function blockDeadline(bg: BlockGraphs, budget: TimeBudget): number {
  const now = performance.now();
  const size = blockSize(bg);
  const share = budget.remainingSize > 0 ? size / budget.remainingSize : 1;
  budget.remainingSize -= size;
  return now + Math.max(0, budget.deadline - now) * share;
}

/**
 * The block being planned under the ILP strategy: its deadline, and its state for progress
 * reports, which go out (throttled) whenever the planner checks the deadline or HiGHS reports.
 */
class BlockWatch {
  private state: BlockState;

  constructor(
    block: number,
    blocks: number,
    /** performance.now() milliseconds: this block's share of the time limit ends. */
    readonly deadline: number,
    private readonly report: (state: BlockState) => void,
  ) {
    this.state = { block, blocks, stage: 'greedy', incumbent: null, bound: null, nodes: 0 };
  }

  /** Whether the deadline has passed; reports progress first. A property: walks and model building call it. */
  readonly expired = (): boolean => {
    this.report(this.state);
    return performance.now() >= this.deadline;
  };

  update(change: { readonly stage?: PlanStage; readonly incumbent?: number | null; readonly bound?: number | null; readonly nodes?: number }): void {
    this.state = { ...this.state, ...change };
    this.report(this.state);
  }
}

/**
 * One block under the ILP strategy, within its share of the time limit. Both greedy walks run
 * first, stopped by the deadline with the plan they had reached (no fusion at worst): the
 * better of their plans starts HiGHS, so its incumbent is never worse, and is the plan if
 * HiGHS is stopped with nothing better or there is no time left to build the model (building
 * stops at the deadline too). The block's plan is the cheapest of the ILP's incumbent and the
 * two greedy plans; its bound is HiGHS' when it has one, else the model's box bound, else 0.
 */
function planBlockIlp(bg: BlockGraphs, cost: CostSpec, loaded: SolverHandle, watch: BlockWatch, tuning: IlpTuning): BlockOutcome {
  const { graph } = bg;
  const walk = (direction: 'down' | 'up') => {
    const walked = greedyWalk(graph, direction, watch.expired);
    const assignment = elideCopies(graph, walked.assignment, cost);
    const plan = blockPlanFromAssignment(graph, assignment);
    return { choice: `greedy-${direction}` as const, assignment, plan, objective: blockPlanCost(graph, plan, cost), complete: walked.complete };
  };
  // Greedy-up only when greedy-down finished in time: after the deadline it would stop at once
  // with no fusion at all, and costing that plan is time past the limit.
  const down = walk('down');
  const walks = down.complete ? [down, walk('up')] : [down];
  // The better greedy plan; greedy-down on a tie.
  const greedy = walks.reduce((best, w) => (w.objective < best.objective ? w : best));
  const walked: WalkExtent = walks.every((w) => w.complete) ? 'complete' : 'stopped';
  watch.update({ incumbent: greedy.objective });
  const fallback = (status: SolveStatus, bound: number, boundSource: BoundSource, nodes: number): BlockOutcome => ({
    plan: greedy.plan,
    status,
    objective: greedy.objective,
    bound,
    nodes,
    notes: [],
    choice: greedy.choice,
    boundSource,
    walks: walked,
  });
  if (watch.expired()) return fallback('fallback-greedy', 0, 'zero', 0);
  watch.update({ stage: 'model' });
  const model = buildModelUnless(graph, cost, { cuts: tuning.cuts ?? true }, watch.expired);
  if (model === null) return fallback('fallback-greedy', 0, 'zero', 0);
  checkObjectiveRange(model);
  if (watch.expired()) return fallback('fallback-greedy', boxBound(model), 'box', 0);
  const start = (tuning.warmStart ?? true) ? startFromAssignment(graph, model, greedy.assignment) : null;
  watch.update({ stage: 'solve' });
  const result = solveModel(loaded, model, {
    feasibilityJump: tuning.feasibilityJump ?? false,
    // HiGHS checks its own limit between phases (presolve included) and overran it by up to 8 %
    // at 1,000 combinators (bench/plan/time-limit.test.ts): it gets 90 % of the block's time
    // left. The deadline itself interrupts it at its next MIP checkpoint.
    timeLimitSeconds: Math.max(0, (0.9 * (watch.deadline - performance.now())) / 1000),
    deadline: watch.deadline,
    onProgress: (p) => watch.update({ incumbent: p.incumbent === null ? greedy.objective : Math.min(greedy.objective, p.incumbent), bound: p.bound, nodes: p.nodes }),
    ...(start === null ? {} : { start }),
    ...(tuning.highsOptions === undefined ? {} : { highsOptions: tuning.highsOptions }),
  });
  if (result.outcome === 'infeasible' || result.outcome === 'error') {
    throw new CompilerBug(
      'plan/ilp',
      `the fusion ILP is ${result.outcome} (HiGHS status ${result.modelStatus}); its model is attached as model.lp`,
      { fileName: 'model.lp', text: toLpText(model) },
    );
  }
  // HiGHS reports −∞ (or nothing) as its bound until its root LP is solved.
  const solverBound = result.bound !== null && Number.isFinite(result.bound) ? result.bound : null;
  const [bound, boundSource]: [number, BoundSource] = solverBound === null ? [boxBound(model), 'box'] : [solverBound, 'solver'];
  if (result.outcome === 'no-solution' || result.values === null) return fallback('fallback-greedy', bound, boundSource, result.nodes);
  const plan = blockPlanFromAssignment(graph, assignmentFromSolution(graph, model, result.values));
  const objective = blockPlanCost(graph, plan, cost);
  if (result.outcome === 'optimal') {
    if (result.objective !== null && Math.abs(result.objective - objective) > 1e-6 * Math.max(1, Math.abs(objective))) {
      throw new CompilerBug('plan/ilp', `the ILP objective ${result.objective} differs from its plan's cost ${objective}`);
    }
    if (greedy.objective < objective - 1e-6 * Math.max(1, Math.abs(objective))) {
      throw new CompilerBug('plan/ilp', `${greedy.choice}'s plan costs ${greedy.objective}, below the ILP's proven optimum ${objective}`);
    }
    return { plan, status: 'optimal', objective, bound: objective, nodes: result.nodes, notes: [], choice: 'ilp', boundSource: 'optimal', walks: walked };
  }
  if (greedy.objective < objective) return fallback('time-limit', bound, boundSource, result.nodes);
  return { plan, status: 'time-limit', objective, bound, nodes: result.nodes, notes: [], choice: 'ilp', boundSource, walks: walked };
}

function planBlockHeuristic(bg: BlockGraphs, cost: CostSpec, strategy: Exclude<Strategy, 'ilp'>): BlockOutcome {
  // `none` is the baseline: it fuses nothing and elides nothing.
  const a =
    strategy === 'none' ? noFusionAssignment(bg.graph) : elideCopies(bg.graph, greedyAssignment(bg.graph, strategy === 'greedy-down' ? 'down' : 'up'), cost);
  const plan = blockPlanFromAssignment(bg.graph, a);
  return { plan, status: 'heuristic', objective: blockPlanCost(bg.graph, plan, cost), bound: null, nodes: 0, notes: [] };
}

/**
 * Plans every block, children included; outcomes in visiting order (root first). Without
 * recursion: blocks may nest deeply. Plans are assembled bottom-up once every block has one.
 */
function planTree(root: BlockGraphs, planBlock: (bg: BlockGraphs, position: number, count: number) => BlockOutcome, outcomes: BlockOutcome[]): BlockPlan {
  const blocks = allBlocks(root);
  const own = new Map<BlockGraphs, BlockOutcome>();
  for (const [position, bg] of blocks.entries()) {
    const outcome = planBlock(bg, position, blocks.length);
    own.set(bg, outcome);
    outcomes.push(outcome);
  }
  const plans = new Map<BlockGraphs, BlockPlan>();
  // allBlocks lists every block before the blocks inside it, so the reverse has children first.
  for (let i = blocks.length - 1; i >= 0; i--) {
    const bg = blocks[i]!;
    const children: Record<number, readonly BlockPlan[]> = {};
    for (const [id, inner] of Object.entries(bg.children)) children[Number(id)] = inner.map((b) => plans.get(b)!);
    plans.set(bg, { ...own.get(bg)!.plan, children });
  }
  return plans.get(root)!;
}

const statusRank: Readonly<Record<SolveStatus, number>> = { optimal: 0, heuristic: 0, 'time-limit': 1, 'fallback-greedy': 2 };

/** What the ILP strategy's notes say about where plans and bounds came from, when not all proven. */
function ilpNotes(outcomes: readonly BlockOutcome[]): string[] {
  const count = (pred: (o: BlockOutcome) => boolean): number => outcomes.filter(pred).length;
  const blocks = (k: number): string => (k === 1 ? '1 block' : `${k} blocks`);
  const notes: string[] = [];
  const skipped = count((o) => o.status === 'fallback-greedy');
  if (skipped > 0) notes.push(`the time limit left the ILP no plan in ${blocks(skipped)}; each uses the cheaper of greedy-down's and greedy-up's plans`);
  const greedyBetter = count((o) => o.status === 'time-limit' && o.choice !== 'ilp');
  if (greedyBetter > 0) notes.push(`in ${blocks(greedyBetter)} a greedy plan is cheaper than the ILP's incumbent when time ran out, and is used instead`);
  const stopped = count((o) => o.walks === 'stopped');
  if (stopped > 0) notes.push(`the time limit stopped the greedy walks in ${blocks(stopped)}; each starts from the plan its walks had reached (no fusion at worst)`);
  const box = count((o) => o.boundSource === 'box');
  const zero = count((o) => o.boundSource === 'zero');
  if (box + zero > 0) {
    const parts = [
      ...(box > 0 ? [`in ${blocks(box)} the model's objective with every variable at its cheapest bound (HiGHS had no bound yet)`] : []),
      ...(zero > 0 ? [`in ${blocks(zero)} 0, as no model was built in time (every cost term is non-negative)`] : []),
    ];
    notes.push(`bound: HiGHS' bound where it has one; ${parts.join('; ')}`);
  }
  return notes;
}

/** A plan with the graphs it was made from: what checking, code generation and reports read. */
export interface PlannedGraphs {
  readonly graphs: BlockGraphs;
  readonly plan: Plan;
}

/**
 * The one planning path, for graphs built from a Program and graphs read from JSON alike:
 * checks the options, loads HiGHS for the ILP (once per loader, reported apart: not counted),
 * then makes the graphs with `make` (which may return more with them, such as the JSON they
 * were read from) and plans them. Making the graphs counts against the time limit and in
 * `timeMs`, as part of planning.
 */
export async function planFrom<Made extends { readonly graphs: BlockGraphs }>(make: () => Made, options: PlanOptions = {}): Promise<Made & { readonly plan: Plan }> {
  const strategy = checkStrategy(options.strategy ?? 'ilp');
  const cost = resolveCost(options.cost);
  checkTimeLimit(options.timeLimitSeconds);
  checkProgressEvery(options.progressEveryMs);
  checkWeights(options.weights);
  checkShapes(options.shapes);
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw new TypeError(`onProgress must be a function, not ${typeof options.onProgress}`);
  }
  const solver = strategy === 'ilp' ? await (options.solver ?? defaultSolverLoader()).load() : null;
  const started = performance.now();
  const made = make();
  return { ...made, plan: planGraphsSince(made.graphs, strategy, cost, solver, options, started) };
}

/** Plans a program with one strategy (default: the ILP, cost `reads+writes+recompute`); unchecked (the driver's `plan` checks). */
export async function plan(program: Program, options: PlanOptions = {}): Promise<Plan> {
  return (await planFrom(() => ({ graphs: programGraphs(program, options.weights, options.shapes) }), options)).plan;
}

/**
 * Plans every block of `graphs`, with the time since `started` (performance.now(), before the
 * graphs were made) counted against the time limit and in `timeMs`. `solver` is HiGHS, loaded,
 * for the ILP strategy; null for the others.
 */
function planGraphsSince(
  graphs: BlockGraphs,
  strategy: Strategy,
  cost: CostSpec,
  solver: SolverHandle | null,
  options: PlanOptions,
  started: number,
): Plan {
  const outcomes: BlockOutcome[] = [];
  let root: BlockPlan;
  if (strategy === 'ilp') {
    if (solver === null) throw new CompilerBug('plan', 'the ILP strategy was given no solver');
    const budget = timeBudget(graphs, started, Math.min(options.timeLimitSeconds ?? DEFAULT_TIME_LIMIT_SECONDS, MAX_TIME_LIMIT_SECONDS));
    const report = throttledReporter(options.onProgress, started, options.progressEveryMs ?? DEFAULT_PROGRESS_EVERY_MS);
    root = planTree(
      graphs,
      (bg, position, count) => planBlockIlp(bg, cost, solver, new BlockWatch(position + 1, count, blockDeadline(bg, budget), report), options.ilpTuning ?? {}),
      outcomes,
    );
  } else {
    root = planTree(graphs, (bg) => planBlockHeuristic(bg, cost, strategy), outcomes);
  }
  const timeMs = performance.now() - started;
  const objective = outcomes.reduce((s, o) => s + o.objective, 0);
  const status = strategy === 'ilp' ? outcomes.reduce<SolveStatus>((s, o) => (statusRank[o.status] > statusRank[s] ? o.status : s), 'optimal') : 'heuristic';
  const bound = strategy === 'ilp' ? outcomes.reduce((s, o) => s + o.bound!, 0) : null;
  return {
    strategy,
    cost: cost.text,
    root,
    stats: {
      status,
      objective,
      bound,
      gap: relativeGap(objective, bound),
      nodes: strategy === 'ilp' ? outcomes.reduce((s, o) => s + o.nodes, 0) : null,
      timeMs,
      notes: [...(strategy === 'ilp' ? ilpNotes(outcomes) : []), ...unknownFactorNotes(graphs, cost)],
    },
  };
}

/**
 * With a `recompute` term: which gathers that could have work fused into them have a growth
 * factor unknown at compile time, so that work is not charged (docs/PLANNING.md).
 */
function unknownFactorNotes(bg: BlockGraphs, cost: CostSpec): string[] {
  if (!cost.terms.some((t) => t.term === 'recompute')) return [];
  const unknown: string[] = [];
  for (const b of allBlocks(bg)) {
    const { graph } = b;
    for (const node of graph.nodes) {
      const fusibleSource = graph.edges.some((e) => e.to === node.id && e.fusible && e.reads.some((r) => r.order === 'label'));
      if (fusibleSource && gatherFactor(graph, node) === null) unknown.push(node.name);
    }
  }
  if (unknown.length === 0) return [];
  return [
    `recompute: the sizes of ${unknown.map((name) => `\`${name}\``).join(', ')} or of their sources are not known at compile time, so work fused into them is not charged (give input shapes)`,
  ];
}
