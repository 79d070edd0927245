// Progress of a planning call (PlanOptions.onProgress): what the ILP strategy is doing in which
// block, with the block's incumbent, bound and gap, throttled so that fast plans say nothing and
// long ones speak a few times a second. The reports come from the planner's own checkpoints (the
// greedy walks' steps, model building) and from HiGHS' MIP callbacks (src/plan/ilp/solver.ts).

/** What the planner is doing in a block. */
export type PlanStage =
  /** Walking greedy-down and greedy-up: the plans every block's plan must match or beat. */
  | 'greedy'
  /** Building the block's ILP. */
  | 'model'
  /** HiGHS is solving the block's ILP. */
  | 'solve';

/** One progress report of a planning call. Costs are under the plan's cost function. */
export interface PlanProgress {
  /** The block being planned, from 1, in planning order (the program's block first). */
  readonly block: number;
  /** How many blocks the call plans (one per `if` branch and `while` condition and body, plus 1). */
  readonly blocks: number;
  readonly stage: PlanStage;
  /** The cost of the block's cheapest plan found so far (greedy or HiGHS'); null before any. */
  readonly incumbent: number | null;
  /** HiGHS' proven lower bound of the block's cost; null until it has one. */
  readonly bound: number | null;
  /** (incumbent − bound) / max(1, |incumbent|), as SolverStats.gap; null without both. */
  readonly gap: number | null;
  /** HiGHS' branch-and-bound nodes in this block so far. */
  readonly nodes: number;
  /** Milliseconds since planning started (making the graphs included, loading HiGHS not). */
  readonly elapsedMs: number;
}

/**
 * Receives progress reports, called synchronously inside planning; an error it throws stops
 * planning and is rethrown by `plan`. A promise it returns is not awaited (planning does not
 * yield), so an async listener's rejection is the caller's to handle.
 */
export type ProgressListener = (progress: PlanProgress) => void;

/** The default of PlanOptions.progressEveryMs. */
export const DEFAULT_PROGRESS_EVERY_MS = 500;

/** The relative gap of SolverStats: (objective − bound) / max(1, |objective|), never negative. */
export function relativeGap(objective: number | null, bound: number | null): number | null {
  if (objective === null || bound === null) return null;
  return Math.max(0, (objective - bound) / Math.max(1, Math.abs(objective)));
}

/** A block's state as the planner last set it; `relativeGap` and the time are added on report. */
export type BlockState = Omit<PlanProgress, 'gap' | 'elapsedMs'>;

/**
 * A reporter that passes a state on only when planning has run `everyMs` since `started`
 * (performance.now()) and `everyMs` since its last report: a plan made in less time reports
 * nothing. Without a listener, reporting costs one comparison.
 */
export function throttledReporter(listener: ProgressListener | undefined, started: number, everyMs: number): (state: BlockState) => void {
  if (listener === undefined) return () => {};
  let last = -Infinity;
  return (state) => {
    const now = performance.now();
    if (now - started < everyMs || now - last < everyMs) return;
    last = now;
    listener({ ...state, gap: relativeGap(state.incumbent, state.bound), elapsedMs: now - started });
  };
}
