// The one module that touches HiGHS (WebAssembly). It loads the solver once per loader object
// (callers that want their own instance make their own loader; everything else shares the
// default loader, whose wasm location `configureSolver` sets), passes an IlpModel to HiGHS as sparse
// CSR arrays with the typed `createModel` API, solves with an optional time limit, and reads
// back the status, the incumbent, the objective, the best bound, the gap and the node count.
// During a solve, HiGHS' MIP callbacks report progress and stop it at a deadline: HiGHS checks
// its own `time_limit` only between phases, the interrupt callback at every MIP checkpoint.
//
// HiGHS' types stay inside this module: a loaded solver is a handle whose methods close over
// the HiGHS instance, and options for HiGHS are plain name → value records, so nothing the
// public API reaches (PlanOptions.solver, PlanOptions.ilpTuning) names the `highs` package.

import * as highsModule from 'highs';
import type { Highs, HighsCallbackMap, CallbackData } from 'highs';
import type { IlpModel } from './model.js';

/**
 * HiGHS options by HiGHS' own names (`mip_detect_symmetry: false`, `presolve: 'off'`); an
 * unknown name or a value of the wrong type makes the solve throw.
 */
export type HighsOptionValues = Readonly<Record<string, string | number | boolean>>;

/** A loaded solver. `loadMs` is reported separately from planning time. */
export interface SolverHandle {
  readonly loadMs: number;
  /** Solves a model (minimisation). Never throws for infeasibility: the caller decides. */
  solve(ilp: IlpModel, options?: SolveOptions): SolveResult;
  /**
   * Solves a model written as CPLEX LP or MPS text, read by HiGHS' own reader (tests check
   * lpfile.ts against it): whether HiGHS proved it optimal, and the objective it reached.
   */
  solveText(format: 'lp' | 'mps', text: string, options?: HighsOptionValues): { readonly optimal: boolean; readonly objective: number };
}

/** Loads HiGHS on first use and hands the same instance to every later caller. */
export interface SolverLoader {
  load(): Promise<SolverHandle>;
}

/**
 * Where HiGHS' WebAssembly binary comes from: a URL or path of `highs.wasm` (a string, or a `URL`:
 * anything with an `href`), or its bytes.
 */
export type SolverWasm = string | { readonly href: string } | ArrayBuffer | ArrayBufferView;

/** The location a SolverWasm names, or null for bytes. */
function locationOf(wasm: SolverWasm): string | null {
  if (typeof wasm === 'string') return wasm;
  return wasm instanceof ArrayBuffer || ArrayBuffer.isView(wasm) ? null : wasm.href;
}

/** A TypeError unless `source` is a SolverSource: JavaScript callers may pass anything. */
function checkSource(source: unknown): asserts source is SolverSource {
  if (typeof source !== 'object' || source === null) throw new TypeError(`configureSolver: expected { wasm: URL, path or bytes }, got ${source === null ? 'null' : typeof source}`);
  const wasm: unknown = (source as { wasm?: unknown }).wasm;
  const ok =
    wasm === undefined ||
    typeof wasm === 'string' ||
    wasm instanceof ArrayBuffer ||
    ArrayBuffer.isView(wasm) ||
    (typeof wasm === 'object' && wasm !== null && typeof (wasm as { href?: unknown }).href === 'string');
  if (!ok) throw new TypeError(`configureSolver: wasm must be a URL, a path or the binary's bytes (an ArrayBuffer or a typed array), got ${wasm === null ? 'null' : typeof wasm}`);
}

export interface SolverSource {
  /**
   * `highs.wasm`: a URL (string or URL; in Node also a file path) or the binary's bytes.
   * Default: next to HiGHS' loader script, which is right under Node and for bundlers that copy
   * the asset, and wrong for a bundle served without it (README, "Use it in a browser").
   */
  readonly wasm?: SolverWasm;
}

/** HiGHS could not be loaded (its WebAssembly binary missing, unreadable or invalid). */
export class SolverLoadError extends Error {
  override readonly name = 'SolverLoadError';
}

/**
 * The loader options used. The bytes go through Emscripten's `instantiateWasm` hook: the build
 * reads no `wasmBinary` option, and a failure inside the hook must be reported by the caller
 * (Emscripten would wait for ever), hence `failed`.
 */
type HighsInit = {
  locateFile?(file: string): string;
  instantiateWasm?(imports: object, receive: (instance: object) => void): object;
};

/** The part of the WebAssembly JavaScript API used here (the project's lib has no DOM types). */
interface WasmInstantiate {
  instantiate(bytes: ArrayBuffer | ArrayBufferView, imports: object): Promise<{ readonly instance: object }>;
}
type LoaderFn = (init?: HighsInit) => Promise<Highs>;

/**
 * The package ships CommonJS typings (`export default` on a `type: commonjs` package, which
 * TypeScript's NodeNext reads as `module.exports.default`), while Node's ESM import gets the
 * `.mjs` build whose default export is the loader itself. Accept both shapes.
 */
function resolveLoader(): LoaderFn {
  const candidate: unknown = (highsModule as { default: unknown }).default;
  if (typeof candidate === 'function') return candidate as LoaderFn;
  const nested = (candidate as { default?: unknown } | undefined)?.default;
  if (typeof nested === 'function') return nested as LoaderFn;
  throw new SolverLoadError('highs: no loader function exported');
}

function initOptions(wasm: SolverWasm | undefined, failed: (reason: unknown) => void): HighsInit {
  if (wasm === undefined) return {};
  const location = locationOf(wasm);
  if (location !== null) return { locateFile: (file) => (file.endsWith('.wasm') ? location : file) };
  const bytes = wasm as ArrayBuffer | ArrayBufferView;
  return {
    instantiateWasm: (imports, receive) => {
      const api = (globalThis as unknown as { WebAssembly: WasmInstantiate }).WebAssembly;
      // `receive` throws for a module that is valid WebAssembly but not HiGHS: a failure too.
      api
        .instantiate(bytes, imports)
        .then(({ instance }) => receive(instance))
        .catch(failed);
      return {};
    },
  };
}

function whereFrom(wasm: SolverWasm | undefined): string {
  if (wasm === undefined) return "its default location (next to HiGHS' loader script)";
  return locationOf(wasm) ?? `the ${(wasm as ArrayBuffer | ArrayBufferView).byteLength} bytes given`;
}

/** Loads HiGHS from `source` (default: its default location) on first use; a failed load is retried on the next use. */
export function createSolverLoader(source: SolverSource = {}): SolverLoader {
  let pending: Promise<SolverHandle> | undefined;
  const load = async (): Promise<SolverHandle> => {
    const start = performance.now();
    let highs: Highs;
    try {
      let failed: (reason: unknown) => void = () => {};
      const failure = new Promise<never>((_, reject) => (failed = reject));
      highs = await Promise.race([resolveLoader()(initOptions(source.wasm, failed)), failure]);
    } catch (e) {
      // Emscripten wraps the reason as `Aborted(reason). Build with -sASSERTIONS…`: keep the reason.
      const message = e instanceof Error ? e.message : String(e);
      const cause = /^Aborted\((.*)\)(?:\. Build with .*)?$/s.exec(message)?.[1] ?? message;
      throw new SolverLoadError(
        `HiGHS, the ILP solver, could not be loaded from ${whereFrom(source.wasm)} (${cause}). ` +
          'Tell arrayfuse where highs.wasm is with configureSolver({ wasm: url or bytes }), or plan with a strategy other than ilp.',
        { cause: e },
      );
    }
    return handleOf(highs, performance.now() - start);
  };
  return {
    load() {
      pending ??= load().catch((e: unknown) => {
        pending = undefined;
        throw e;
      });
      return pending;
    },
  };
}

let sharedLoader: SolverLoader | undefined;

/**
 * Sets where HiGHS is loaded from for every later plan that was given no loader of its own
 * (a browser page calls it once, before the first plan, with the URL of the `highs.wasm` it serves).
 * A solver already loaded from elsewhere is dropped: the next plan loads it from `source`.
 */
export function configureSolver(source: SolverSource): void {
  checkSource(source);
  sharedLoader = createSolverLoader(source);
}

/** The loader shared by every compiler and plan given none: HiGHS is loaded once per page or process. */
export function defaultSolverLoader(): SolverLoader {
  sharedLoader ??= createSolverLoader();
  return sharedLoader;
}

function handleOf(highs: Highs, loadMs: number): SolverHandle {
  return {
    loadMs,
    solve: (ilp, options) => solveWith(highs, ilp, options),
    solveText: (format, data, options) =>
      highs.withModel({ format, data }, (model) => {
        model.options.set({ output_flag: false, ...options });
        model.run();
        return { optimal: model.getModelStatus() === highs.constants.modelStatus.optimal, objective: model.getObjectiveValue() };
      }),
  };
}

export type SolveOutcome =
  | 'optimal'
  /** Stopped by the time limit with an incumbent. */
  | 'time-limit'
  /** Stopped by the time limit before any incumbent. */
  | 'no-solution'
  | 'infeasible'
  /** Any other terminal state (solver error, unbounded: impossible for our bounded models). */
  | 'error';

export interface SolveResult {
  readonly outcome: SolveOutcome;
  /** Column values of the incumbent (rounded to integers for integer columns); null without one. */
  readonly values: Float64Array | null;
  readonly objective: number | null;
  readonly bound: number | null;
  readonly gap: number | null;
  readonly nodes: number;
  readonly timeMs: number;
  /** HiGHS' own status code, for notes. */
  readonly modelStatus: number;
}

/** What HiGHS knows at a MIP checkpoint (each null until HiGHS has one). */
export interface SolverProgress {
  /** The incumbent's objective. */
  readonly incumbent: number | null;
  /** The best proven lower bound. */
  readonly bound: number | null;
  readonly gap: number | null;
  /** Branch-and-bound nodes so far. */
  readonly nodes: number;
}

export interface SolveOptions {
  /** Seconds; absent for no limit. HiGHS checks it between phases only: see `deadline`. */
  readonly timeLimitSeconds?: number;
  /**
   * performance.now() milliseconds after which the solve is interrupted at HiGHS' next MIP
   * checkpoint (its callbacks), with the incumbent kept as for the time limit.
   */
  readonly deadline?: number;
  /** Called at HiGHS' MIP checkpoints and with each improving solution; must not throw for long. */
  readonly onProgress?: (progress: SolverProgress) => void;
  /**
   * Run HiGHS' feasibility-jump heuristic. Default false: on our models it costs tens of
   * milliseconds of set-up per solve and never found a plan the root LP did not (bench/plan).
   */
  readonly feasibilityJump?: boolean;
  /** A starting solution (every column's value), e.g. a greedy plan (start.ts). */
  readonly start?: Float64Array;
  /** Further HiGHS options, set last (benchmarks compare them: bench/plan/ilp-variants.test.ts). */
  readonly highsOptions?: HighsOptionValues;
}

function infoNumber(model: { info: { get(name: string): number | bigint } }, name: string): number | null {
  try {
    const v = model.info.get(name);
    return typeof v === 'bigint' ? Number(v) : v;
  } catch {
    return null;
  }
}

/** A finite number of a callback's data, else null (HiGHS sends null, ±inf or a bigint count). */
function finiteOf(value: number | bigint | null | undefined): number | null {
  const v = typeof value === 'bigint' ? Number(value) : value;
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function progressOf(data: CallbackData): SolverProgress {
  return {
    incumbent: finiteOf(data.mip_primal_bound),
    bound: finiteOf(data.mip_dual_bound),
    gap: finiteOf(data.mip_gap),
    nodes: finiteOf(data.mip_node_count) ?? 0,
  };
}

/**
 * The callbacks of one run: the interrupt checkpoint reports progress and stops the solve at the
 * deadline; logging and improving-solution events report progress. A handler that throws is
 * not let unwind through WebAssembly: its error is kept in `failure`, the solve interrupted at
 * the next checkpoint, and the caller rethrows it.
 */
function progressCallbacks(highs: Highs, options: SolveOptions, failure: { error?: unknown }): HighsCallbackMap {
  const { deadline, onProgress } = options;
  const report = (data: CallbackData): void => {
    if (onProgress === undefined || 'error' in failure) return;
    try {
      onProgress(progressOf(data));
    } catch (e) {
      failure.error = e;
    }
  };
  const types = highs.constants.callbackType;
  const callbacks: { -readonly [K in keyof HighsCallbackMap]: HighsCallbackMap[K] } = {};
  if (deadline !== undefined || onProgress !== undefined) {
    callbacks[types.mipInterrupt] = (event) => {
      report(event.data);
      if ('error' in failure || (deadline !== undefined && performance.now() >= deadline)) event.interrupt();
      return undefined;
    };
  }
  if (onProgress !== undefined) {
    callbacks[types.mipLogging] = (event) => (report(event.data), undefined);
    callbacks[types.mipImprovingSolution] = (event) => (report(event.data), undefined);
  }
  return callbacks;
}

/** Solves a model (minimisation). Never throws for infeasibility: the caller decides. */
export function solveModel(handle: SolverHandle, ilp: IlpModel, options: SolveOptions = {}): SolveResult {
  return handle.solve(ilp, options);
}

function solveWith(highs: Highs, ilp: IlpModel, options: SolveOptions = {}): SolveResult {
  const start = performance.now();
  const inf = highs.infinity;
  const clamp = (v: number): number => (v === Infinity ? inf : v === -Infinity ? -inf : v);
  const numCols = ilp.columns.length;
  const numRows = ilp.rows.length;
  if (numCols === 0) {
    return { outcome: 'optimal', values: new Float64Array(0), objective: ilp.offset, bound: ilp.offset, gap: 0, nodes: 0, timeMs: 0, modelStatus: 7 };
  }
  const starts = new Int32Array(numRows + 1);
  let nnz = 0;
  for (let r = 0; r < numRows; r++) {
    starts[r] = nnz;
    nnz += ilp.rows[r]!.cols.length;
  }
  starts[numRows] = nnz;
  const indices = new Int32Array(nnz);
  const values = new Float64Array(nnz);
  let k = 0;
  for (const row of ilp.rows) {
    for (let i = 0; i < row.cols.length; i++) {
      indices[k] = row.cols[i]!;
      values[k] = row.coefs[i]!;
      k++;
    }
  }
  const integer = highs.constants.variableType.integer;
  const continuous = highs.constants.variableType.continuous;
  const model = highs.createModel({
    numCols,
    numRows,
    offset: ilp.offset,
    colCost: Float64Array.from(ilp.columns, (c) => c.cost),
    colLower: Float64Array.from(ilp.columns, (c) => clamp(c.lower)),
    colUpper: Float64Array.from(ilp.columns, (c) => clamp(c.upper)),
    rowLower: Float64Array.from(ilp.rows, (r) => clamp(r.lower)),
    rowUpper: Float64Array.from(ilp.rows, (r) => clamp(r.upper)),
    matrix: { format: 'csr', numRows, numCols, starts, indices, values },
    integrality: ilp.columns.map((c) => (c.integer ? integer : continuous)),
  });
  try {
    model.options.set({
      output_flag: false,
      mip_rel_gap: 0,
      mip_abs_gap: 1e-9,
      mip_heuristic_run_feasibility_jump: options.feasibilityJump ?? false,
    });
    if (options.timeLimitSeconds !== undefined) model.options.set('time_limit', options.timeLimitSeconds);
    if (options.highsOptions !== undefined) model.options.set(options.highsOptions);
    if (options.start !== undefined) model.setSolution({ colValue: options.start });
    const failure: { error?: unknown } = {};
    model.run(progressCallbacks(highs, options, failure));
    // A progress handler that threw interrupted the solve; its error is the caller's.
    if ('error' in failure) throw failure.error;
    const status = model.getModelStatus();
    const codes = highs.constants.modelStatus;
    const hasPrimal = infoNumber(model, 'primal_solution_status') === 2;
    const nodes = infoNumber(model, 'mip_node_count') ?? 0;
    const solution = hasPrimal ? model.getSolution().colValue : null;
    const rounded = solution === null ? null : Float64Array.from(solution, (v, i) => (ilp.columns[i]!.integer ? Math.round(v) : v));
    const objective = hasPrimal ? model.getObjectiveValue() : null;
    const bound = infoNumber(model, 'mip_dual_bound');
    const timeMs = performance.now() - start;
    const base = { values: rounded, objective, nodes, timeMs, modelStatus: status };
    if (status === codes.optimal) return { ...base, outcome: 'optimal', bound: objective, gap: 0 };
    if (status === codes.infeasible) return { ...base, outcome: 'infeasible', bound: null, gap: null };
    if (status === codes.timeLimit || status === codes.interrupted) {
      if (rounded === null) return { ...base, outcome: 'no-solution', bound, gap: null };
      const gap = bound === null || objective === null ? null : Math.max(0, (objective - bound) / Math.max(1, Math.abs(objective)));
      return { ...base, outcome: 'time-limit', bound, gap };
    }
    return { ...base, outcome: 'error', bound: null, gap: null };
  } finally {
    model.dispose();
  }
}
