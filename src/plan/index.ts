// The planner's entry point: `plan(program, options)` runs one strategy over every block of a
// program (nested blocks get plans of their own, paper §4.1 "Control flow") and returns the
// Plan of src/plan/types.ts with its cost recomputed from the plan and the solver's statistics.
//
// ILP solving: any incumbent is a valid plan; a time limit keeps the best incumbent and its gap;
// no incumbent falls back to greedy-down (said in `notes`); an infeasible model is our bug and
// the model is written to a temporary LP file named in the CompilerBug.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompilerBug, userError } from '../diagnostics/index.js';
import { buildGraph, type GraphContext } from '../graph/build.js';
import type { DependenceGraph } from '../graph/types.js';
import type { Block, Program, ScalarType, VarName } from '../ir/types.js';
import { elementBytes } from '../ir/scalarOps.js';
import { blockPlanFromAssignment, splitByPi, type Assignment } from './clusters.js';
import { defaultCostText, edgeWeightKey, parseCost, type CostSpec, type CostWeights } from './cost.js';
import { staticSizes, type EntrySizes } from './evaluate.js';
import { greedyAssignment, noFusionAssignment } from './greedy.js';
import { buildModel, gatherFactor, type IlpModel, type ModelWeights } from './ilp/model.js';
import { toLpText } from './ilp/lpfile.js';
import { startFromAssignment } from './ilp/start.js';
import { createSolverLoader, solveModel, type SolveOptions, type SolverLoader } from './ilp/solver.js';
import { blockPlanCost } from './objective.js';
import type { BlockPlan, Plan, SolveStatus, Strategy } from './types.js';

export interface PlanOptions {
  readonly strategy?: Strategy;
  /** Cost text (`reads+writes`, `2*reads + writes`) or a parsed spec. Default `defaultCostText` (reads+writes+recompute). */
  readonly cost?: string | CostSpec;
  /**
   * Wall-clock limit for the ILP over all blocks, in seconds. Negative → E600. Absent: the
   * default, DEFAULT_TIME_LIMIT_SECONDS (a JIT cannot wait for a proof forever; see
   * docs/PLANNING.md "Solving").
   */
  readonly timeLimitSeconds?: number;
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
  /** Further HiGHS options (SolveOptions.highsOptions). Default none: HiGHS' own defaults. */
  readonly highsOptions?: SolveOptions['highsOptions'];
}

/** One block's graph and weights, with its nested blocks: what strategies and renderers walk. */
export interface BlockGraphs {
  readonly graph: DependenceGraph;
  readonly weights: ModelWeights;
  /** By control-flow node id: `[then, else]` or `[cond, body]`. */
  readonly children: Readonly<Record<number, readonly BlockGraphs[]>>;
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

export function checkTimeLimit(seconds: number | undefined): void {
  if (seconds !== undefined && !(seconds >= 0 && Number.isFinite(seconds))) {
    throw userError('E600', `the time limit must be a non-negative number of seconds, not ${seconds}`);
  }
}

/** Dependence graphs of every block of a program, with resolved weights. */
export function programGraphs(program: Program, weights: CostWeights = {}, shapes: EntrySizes = {}): BlockGraphs {
  const sizes = staticSizes(program, shapes);
  const groupOf = new Map<VarName, string>();
  const outer = new Map<VarName, ScalarType>();
  for (const p of program.params) {
    const first = p.components[0]?.name;
    for (const comp of p.components) if (comp.kind === 'array' && first !== undefined) groupOf.set(comp.name, first);
  }
  return blockGraphs(program.body, { outerArrays: outer, groupOf }, weights, sizes);
}

function blockGraphs(block: Block, context: GraphContext, weights: CostWeights, sizes: ReadonlyMap<VarName, readonly number[]>): BlockGraphs {
  const graph = buildGraph(block, context);
  const modelWeights: ModelWeights = {
    array(group, byteWeighted) {
      const v = graph.groups[group]!;
      if (!byteWeighted) return weights.arrays?.[v.name] ?? 1;
      let bytes = 0;
      let elements: number | null = null;
      for (let i = 0; i < v.names.length; i++) {
        const shape = sizes.get(v.names[i]!);
        if (shape === undefined) return 1;
        elements = shape.reduce((a, b) => a * b, 1);
        bytes += elementBytes(v.elems[i]!);
      }
      return elements === null ? 1 : elements * bytes;
    },
    elements(group) {
      // Every component of a group has one shape; the first whose shape is known gives it.
      for (const name of graph.groups[group]!.names) {
        const shape = sizes.get(name);
        if (shape !== undefined) return shape.reduce((a, b) => a * b, 1);
      }
      return null;
    },
    edge(e) {
      const name = (id: number): string => graph.nodes.find((n) => n.id === id)!.name;
      return weights.edges?.[edgeWeightKey(name(e.from), name(e.to))] ?? 1;
    },
  };
  // Arrays visible inside nested blocks: everything in scope here.
  const inScope = new Map<VarName, ScalarType>(context.outerArrays);
  for (const p of block.params) if (p.kind === 'array') inScope.set(p.name, p.elem);
  for (const s of block.stmts) {
    if (s.kind === 'scalar') continue;
    for (const o of s.outs) if (!('kind' in o) || o.kind === 'array') inScope.set(o.name, o.elem);
  }
  const children: Record<number, readonly BlockGraphs[]> = {};
  for (const s of block.stmts) {
    if (s.kind === 'if') children[s.id] = [s.then, s.else].map((b) => blockGraphs(b, { ...context, outerArrays: inScope }, weights, sizes));
    if (s.kind === 'while') children[s.id] = [s.cond, s.body].map((b) => blockGraphs(b, { ...context, outerArrays: inScope }, weights, sizes));
  }
  return { graph, weights: modelWeights, children };
}

interface BlockOutcome {
  readonly plan: BlockPlan;
  readonly status: SolveStatus;
  readonly objective: number;
  readonly bound: number | null;
  readonly nodes: number;
  readonly notes: readonly string[];
}

/** The ILP assignment of one block from a solved model. */
function assignmentFromSolution(graph: DependenceGraph, model: IlpModel, values: Float64Array): Assignment {
  const { layout } = model;
  const pi = layout.pi.map((c) => values[c]!);
  const fused = layout.fused.map((c) => values[c]! < 0.5);
  const order = layout.order.map((c) => (c < 0 ? -1 : values[c]!));
  const manifest = layout.manifest.map((c) => c >= 0 && values[c]! > 0.5);
  return { cluster: splitByPi(graph, pi, fused, order), level: pi, order, manifest };
}

function planBlockIlp(bg: BlockGraphs, cost: CostSpec, loaded: Parameters<typeof solveModel>[0], deadline: number, tuning: IlpTuning): BlockOutcome {
  const { graph } = bg;
  const model = buildModel(graph, cost, bg.weights, { cuts: tuning.cuts ?? true });
  const timeLimitSeconds = Math.max(0, (deadline - performance.now()) / 1000);
  const start = (tuning.warmStart ?? true) ? startFromAssignment(graph, model, greedyAssignment(graph, 'down')) : null;
  const result = solveModel(loaded, model, {
    feasibilityJump: tuning.feasibilityJump ?? false,
    timeLimitSeconds,
    ...(start === null ? {} : { start }),
    ...(tuning.highsOptions === undefined ? {} : { highsOptions: tuning.highsOptions }),
  });
  if (result.outcome === 'infeasible' || result.outcome === 'error') {
    const dir = mkdtempSync(join(tmpdir(), 'arrayfuse-'));
    const file = join(dir, 'model.lp');
    writeFileSync(file, toLpText(model));
    throw new CompilerBug('plan/ilp', `the fusion ILP is ${result.outcome} (HiGHS status ${result.modelStatus}); the model is in ${file}`);
  }
  if (result.outcome === 'no-solution' || result.values === null) {
    const plan = blockPlanFromAssignment(graph, greedyAssignment(graph, 'down'));
    return {
      plan,
      status: 'fallback-greedy',
      objective: blockPlanCost(graph, plan, cost, bg.weights),
      bound: result.bound,
      nodes: result.nodes,
      notes: ['the ILP found no plan within the time limit; this block uses greedy-down\'s plan'],
    };
  }
  const plan = blockPlanFromAssignment(graph, assignmentFromSolution(graph, model, result.values));
  const objective = blockPlanCost(graph, plan, cost, bg.weights);
  if (result.outcome === 'optimal' && result.objective !== null && Math.abs(result.objective - objective) > 1e-6 * Math.max(1, Math.abs(objective))) {
    throw new CompilerBug('plan/ilp', `the ILP objective ${result.objective} differs from its plan's cost ${objective}`);
  }
  return {
    plan,
    status: result.outcome === 'optimal' ? 'optimal' : 'time-limit',
    objective,
    bound: result.outcome === 'optimal' ? objective : result.bound,
    nodes: result.nodes,
    notes: [],
  };
}

function planBlockHeuristic(bg: BlockGraphs, cost: CostSpec, strategy: Exclude<Strategy, 'ilp'>): BlockOutcome {
  const a =
    strategy === 'none' ? noFusionAssignment(bg.graph) : greedyAssignment(bg.graph, strategy === 'greedy-down' ? 'down' : 'up');
  const plan = blockPlanFromAssignment(bg.graph, a);
  return { plan, status: 'heuristic', objective: blockPlanCost(bg.graph, plan, cost, bg.weights), bound: null, nodes: 0, notes: [] };
}

/** Plans every block, children included; outcomes in visiting order (root first). */
function planTree(bg: BlockGraphs, planBlock: (bg: BlockGraphs) => BlockOutcome, outcomes: BlockOutcome[]): BlockPlan {
  const own = planBlock(bg);
  outcomes.push(own);
  const children: Record<number, readonly BlockPlan[]> = {};
  for (const [id, blocks] of Object.entries(bg.children)) children[Number(id)] = blocks.map((b) => planTree(b, planBlock, outcomes));
  return { ...own.plan, children };
}

const statusRank: Readonly<Record<SolveStatus, number>> = { optimal: 0, heuristic: 0, 'time-limit': 1, 'fallback-greedy': 2 };

/** Plans a program's already-built graphs. */
export async function planGraphs(graphs: BlockGraphs, options: PlanOptions = {}): Promise<Plan> {
  const strategy = options.strategy ?? 'ilp';
  const cost = resolveCost(options.cost);
  checkTimeLimit(options.timeLimitSeconds);
  const outcomes: BlockOutcome[] = [];
  let root: BlockPlan;
  let timeMs: number;
  if (strategy === 'ilp') {
    const loaded = await (options.solver ?? createSolverLoader()).load();
    const start = performance.now();
    const deadline = start + (options.timeLimitSeconds ?? DEFAULT_TIME_LIMIT_SECONDS) * 1000;
    root = planTree(graphs, (bg) => planBlockIlp(bg, cost, loaded, deadline, options.ilpTuning ?? {}), outcomes);
    timeMs = performance.now() - start;
  } else {
    const start = performance.now();
    root = planTree(graphs, (bg) => planBlockHeuristic(bg, cost, strategy), outcomes);
    timeMs = performance.now() - start;
  }
  const objective = outcomes.reduce((s, o) => s + o.objective, 0);
  const status = strategy === 'ilp' ? outcomes.reduce<SolveStatus>((s, o) => (statusRank[o.status] > statusRank[s] ? o.status : s), 'optimal') : 'heuristic';
  const bound = strategy === 'ilp' && outcomes.every((o) => o.bound !== null) ? outcomes.reduce((s, o) => s + o.bound!, 0) : null;
  return {
    strategy,
    cost: cost.text,
    root,
    stats: {
      status,
      objective,
      bound,
      gap: bound === null ? null : Math.max(0, (objective - bound) / Math.max(1, Math.abs(objective))),
      nodes: strategy === 'ilp' ? outcomes.reduce((s, o) => s + o.nodes, 0) : null,
      timeMs,
      notes: [...outcomes.flatMap((o) => o.notes), ...unknownFactorNotes(graphs, cost)],
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
  const visit = (b: BlockGraphs): void => {
    const { graph } = b;
    for (const node of graph.nodes) {
      const fusibleSource = graph.edges.some((e) => e.to === node.id && e.fusible && e.reads.some((r) => r.order === 'label'));
      if (fusibleSource && gatherFactor(graph, node, b.weights) === null) unknown.push(node.name);
    }
    for (const blocks of Object.values(b.children)) blocks.forEach(visit);
  };
  visit(bg);
  if (unknown.length === 0) return [];
  return [
    `recompute: the sizes of ${unknown.map((name) => `\`${name}\``).join(', ')} or of their sources are not known at compile time, so work fused into them is not charged (give input shapes)`,
  ];
}

/** Plans a program with one strategy (default: the ILP, cost `reads+writes+recompute`). */
export async function plan(program: Program, options: PlanOptions = {}): Promise<Plan> {
  resolveCost(options.cost);
  checkTimeLimit(options.timeLimitSeconds);
  return planGraphs(programGraphs(program, options.weights, options.shapes), options);
}
