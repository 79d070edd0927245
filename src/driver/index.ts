// The driver: runs the pipeline stages in one visible order and caches what they produce.
//
//   .fuse text ──parse──▶ AST ──lower──▶ core IR ──verify──▶ graph ──plan──▶ check ──memory──▶ check ──▶ codegen ──▶ run
//   graph JSON ─────────────────────────────────read──────▶ graph ──plan──▶ check
//
// A Compiler holds one source file. Lowering is specialised per input signature (element
// types, ranks, shapes, scalar values), as a JIT would, so programs, graphs, plans and
// executables are cached per signature (and per planning options). The caches live in the
// Compiler object, never at module level.
//
// Every plan handed out is checked here, whichever entry it came from: the planner (src/plan)
// does not import the checker (src/check), so the driver is where the two meet. A plan comes
// back with the graphs it was made from, so reports and the CLI never rebuild them. The memory
// plan (src/memory) is made per executable and checked here too (`assertValidMemoryPlan`).

import { SourceFile, UserError, userError } from '../diagnostics/index.js';
import type { Def, Module } from '../syntax/ast.js';
import { parseModule } from '../syntax/index.js';
import { planMemory } from '../memory/index.js';
import { entryDef, inferEntryTypes, lowerModule, type EntryParamType, type InputSignature } from '../lower/index.js';
import type { ElemType } from '../lower/index.js';
import { elemLeaves } from '../lower/types.js';
import { verifyProgram } from '../ir/verify.js';
import type { Program, ScalarType } from '../ir/types.js';
import { componentsOf, shapeProblem, type InterfaceValue } from '../ir/values.js';
import { checkInputs, interpret } from '../interp/index.js';
import { checkProgressEvery, checkStrategy, checkTimeLimit, planFrom, type PlannedGraphs, type PlanOptions } from '../plan/index.js';
import type { SolverLoader } from '../plan/ilp/solver.js';
import { assertValidGraphPlan, assertValidMemoryPlan, assertValidPlan } from '../check/index.js';
import type { Plan, Strategy } from '../plan/types.js';
import type { ProgressListener } from '../plan/progress.js';
import type { EntrySizes } from '../graph/sizes.js';
import { programGraphs, type BlockGraphs } from '../graph/program.js';
import { readGraphJson, type ReadGraph } from '../graph/fromJson.js';
import {
  availableThreads, backendNamed, multicoreAvailable, checkTuning, InvalidOptionError, measureMachine, rooflineOf, type BackendName, type Executable, type MachineRates, type Roofline,
  type RunOptions, type RunResult, type RunStats,
} from '../runtime/index.js';
import { inputsChecked } from '../runtime/backend.js';
import { checkDonated, deliverResults, elemOfData, outTargets, type OutArrays, type OutTargets } from '../runtime/outputs.js';
import { chooseBackend, processEnv, type BackendChoice } from './threads.js';
import { backendCostText } from './backendCost.js';
import type { Pass } from '../util/pass.js';

const parsePass: Pass<SourceFile, Module> = { name: 'parse', run: parseModule };

const verifyPass: Pass<Program, Program> = {
  name: 'verify',
  run: (program) => {
    verifyProgram(program, 'lower');
    return program;
  },
};

/** The graph stage from the core IR: every block's dependence graph, sizes and weights resolved. */
const graphPass: Pass<{ readonly program: Program; readonly options: PlanOptions }, BlockGraphs> = {
  name: 'graph',
  run: ({ program, options }) => programGraphs(program, options.weights, options.shapes),
};

/** A program's checked plan, with the graphs it was made from. */
export interface PlannedProgram extends PlannedGraphs {
  readonly program: Program;
}

/** A JSON graph's plan, with the checked JSON and the graphs read from it. */
export interface PlannedGraph extends PlannedGraphs, ReadGraph {}

/**
 * Plans a core-IR program — graph, plan, check — and returns the plan with its graphs. Throws
 * CompilerBug if the plan breaks a fusion rule (src/check/validate.ts).
 */
export async function planProgram(program: Program, options: PlanOptions = {}): Promise<PlannedProgram> {
  const planned = await planFrom(() => ({ program, graphs: graphPass.run({ program, options }) }), options);
  assertValidPlan(program, planned.plan);
  return planned;
}

/** The public `plan`: a core-IR program's checked plan (default: the ILP, cost `reads+writes+recompute`). */
export async function plan(program: Program, options: PlanOptions = {}): Promise<Plan> {
  return (await planProgram(program, options)).plan;
}

/**
 * Plans a dependence graph given in the JSON graph format (docs/PLAN-FORMAT.md): read, plan,
 * check (the checker's own graph of the JSON, src/check/jsonGraph.ts; CompilerBug if the plan
 * breaks a fusion rule). Reading counts against the time limit, as building a program's graphs does. Sizes in
 * `options.shapes` and weights in `options.weights` override the graph's own.
 */
export async function planGraphJson(json: string | unknown, options: PlanOptions = {}, sourceName = 'graph.json'): Promise<PlannedGraph> {
  const planned = await planFrom(() => readGraphJson(json, options, sourceName), options);
  assertValidGraphPlan(planned.json, planned.plan);
  return planned;
}

/** The public `planGraph`: a JSON graph's plan (see planGraphJson). */
export async function planGraph(json: string | unknown, options: PlanOptions = {}): Promise<Plan> {
  return (await planGraphJson(json, options)).plan;
}

/** Planning options a caller can set; the solver loader is shared by the Compiler. */
export interface PlanningOptions {
  readonly strategy?: Strategy;
  /**
   * The cost function (docs/PLANNING.md "Cost functions"). Default: the back end's
   * (`Compiler.costFor`): `reads+writes+recompute` for js and multicore; for webgpu that plus a
   * kernel launch's price per cluster, for the entry sizes (docs/PLANNING.md "Costs per back end").
   */
  readonly cost?: string;
  readonly timeLimitSeconds?: number;
  /**
   * Progress of a long ILP planning call (PlanOptions.onProgress). Plans are cached per
   * signature and options, this listener aside: a call that finds its plan cached reports nothing.
   */
  readonly onProgress?: ProgressListener;
  /** Milliseconds before the first progress report and between reports (PlanOptions.progressEveryMs); default 500. */
  readonly progressEveryMs?: number;
}

export interface CompilerOptions {
  /** Shown in diagnostics; default `<input>`. */
  readonly fileName?: string;
  /** The entry `def`: else `main`, else the last one. */
  readonly entry?: string;
  /** Share one HiGHS instance between compilers (it loads once per loader). */
  readonly solver?: SolverLoader;
  /**
   * Tests: verify the IR after each of lowering's passes, not only after lowering, and have the
   * interpreter check the prelude's distinct-index promises (`unique` scatters).
   */
  readonly verifyEachPass?: boolean;
  /**
   * The execution back end fused runs compile for (runtime/backends.ts); default: chosen by the
   * thread count, `js` for one thread, `multicore` for more (threads.ts `chooseBackend`).
   */
  readonly backend?: BackendName;
  /**
   * Threads the fused loops run on, the calling thread included: an integer from 1 (the `js` back
   * end) to MAX_THREADS (256); default ARRAYFUSE_THREADS, else the machine's available parallelism.
   * A TypeError (InvalidOptionError) for anything else, and for more than one with `backend: 'js'`.
   */
  readonly threads?: number;
  /** Tests and tuning: the multicore fork threshold and carried-loop chunk length (runtime/backend.ts); other back ends ignore them. */
  readonly parallelThreshold?: number;
  readonly chunkLength?: number;
  /** The `js` back end's WebAssembly kernels: `auto`, `on` or `off` (runtime/backend.ts CompileOptions.wasm); others ignore it. */
  readonly wasm?: 'auto' | 'on' | 'off';
  /**
   * Floating-point `+` and `*` folds may be regrouped (docs/LANGUAGE.md, "Floating-point
   * reassociation"); default false: fused results are bit for bit the interpreter's. Fixed per
   * Compiler, like the back end: its caches hold executables of one setting only.
   */
  readonly fastMath?: boolean;
  /**
   * Fill every pooled buffer with garbage before the generated code gets it (tests), so code
   * that reads an element before writing it diverges from the interpreter.
   */
  readonly poisonBuffers?: boolean;
}

/** Inputs by entry parameter name (own properties only: `__proto__` is a valid name). */
export type NamedInputs = Readonly<Record<string, InterfaceValue>>;

export interface ExecutionOptions extends PlanningOptions {
  /** Run the reference interpreter instead of the fused code. */
  readonly interpret?: boolean;
  /** Count elements read and written per array (fused runs only). */
  readonly counters?: boolean;
  /** Time every cluster (the run's stats, fused runs only); off, the clusters' `timeMs` are 0. */
  readonly timing?: boolean;
  /**
   * Caller-owned arrays to write results into, by result name (src/runtime/outputs.ts): one
   * typed array (or `{ data, shape }`) per array result, a list for a tuple result. The
   * result returned is the array given. Checked before the run (E420, E421, E423) and when
   * the size is known (E422).
   */
  readonly out?: OutArrays;
  /**
   * Array parameters whose buffers the caller gives up for the run (E424, E425): an update
   * may write them in place, and their contents afterwards are unspecified. Without it a run
   * never writes its inputs.
   */
  readonly donate?: readonly string[];
  /**
   * A roofline per cluster (fused runs only; docs/EXECUTION.md, "Roofline per cluster"): the
   * program runs once counting (the counters variant) and `timedRuns` times timed (the plain
   * module), and `Execution.roofline` compares each cluster's counts and fastest time with the
   * machine's rates: `machine` if given, else measured now (`measureMachine`, about half a
   * second). The results are the last timed run's. Not with `donate` (a run may write a donated input).
   */
  readonly roofline?: boolean | RooflineOptions;
}

export interface RooflineOptions {
  /** This machine's rates (the CLI caches them); default: measured for this call. */
  readonly machine?: MachineRates;
  /** Timed runs whose fastest time per cluster counts (default 2: the first also warms the code up). */
  readonly timedRuns?: number;
}

export interface Execution {
  readonly program: Program;
  /** Results in the order of `program.results`. */
  readonly results: readonly InterfaceValue[];
  /** The plan that ran (absent for interpreted runs). */
  readonly plan?: Plan;
  /** The dependence graphs the plan was made from (absent for interpreted runs). */
  readonly graphs?: BlockGraphs;
  /** What the fused run recorded (absent for interpreted runs and fallbacks). */
  readonly run?: RunResult;
  /**
   * The fused run's error when it failed and the reference interpreter then succeeded: the
   * fault was in elements nobody observes (see docs/LANGUAGE.md, "Run-time faults"), and
   * `results` are the interpreter's.
   */
  readonly fallback?: UserError;
  /** The roofline per cluster, when `ExecutionOptions.roofline` asked for it (absent for interpreted runs and fallbacks). */
  readonly roofline?: Roofline;
}

export class Compiler {
  readonly file: SourceFile;
  readonly module: Module;
  readonly entry: Def;
  private readonly programs = new Map<string, Program>();
  private readonly plans = new Map<string, Promise<PlannedProgram>>();
  private readonly executables = new Map<string, Promise<Executable>>();
  /** What `execute` needs per signature and options, resolved once (keyed by `preparedKey`). */
  private readonly prepared = new Map<string, Prepared>();
  /** The last signature a fused run used: a call with the same one is matched without building a key. */
  private last: Prepared | null = null;
  /**
   * The back end and thread count every executable of this Compiler is compiled for, resolved
   * once (options, environment, machine) when it is made: a later change to ARRAYFUSE_THREADS
   * cannot give one Compiler executables of two configurations, so the caches need no key for it.
   */
  readonly backend: BackendChoice;
  /** `parameterTypes()`, computed once: its types, or the UserError inference gave. */
  private entryTypes: { readonly types: Readonly<Record<string, EntryParamType>> } | { readonly error: UserError } | null = null;

  constructor(
    source: string,
    private readonly options: CompilerOptions = {},
  ) {
    this.file = new SourceFile(options.fileName ?? '<input>', source);
    this.module = parsePass.run(this.file);
    this.entry = entryDef(this.module, this.file, options.entry);
    // Bad options and an unknown back end are the caller's mistakes: say so now, not at the first
    // fused run. A name first: `threads` says nothing useful about a back end that does not exist.
    if (options.backend !== undefined) backendNamed(options.backend);
    this.backend = chooseBackend({ backend: options.backend, threads: options.threads, env: processEnv(), parallelism: availableThreads });
    // Said when compiling, not at the first run: a browser page has no Node worker threads.
    if (this.backend.name === 'multicore' && !multicoreAvailable()) {
      throw new InvalidOptionError(`threads: ${this.backend.threads}: the multicore back end needs Node ≥ 20.16 (worker threads, SharedArrayBuffer, Atomics.wait), which this host lacks; use threads: 1`);
    }
    checkTuning(options.parallelThreshold, options.chunkLength);
    // A truthy string would otherwise silently mean `true` in one place and `false` in another.
    if (options.fastMath !== undefined && typeof options.fastMath !== 'boolean') {
      throw new InvalidOptionError(`fastMath: ${String(options.fastMath)}: expected true or false`);
    }
    if (options.wasm !== undefined && !['auto', 'on', 'off'].includes(options.wasm)) {
      throw new InvalidOptionError(`wasm: ${JSON.stringify(options.wasm)}: expected 'auto', 'on' or 'off'`);
    }
  }

  /** The entry parameters' names, in order. */
  get parameterNames(): readonly string[] {
    return this.entry.params.map((p) => p.name);
  }

  /** Entry parameter types from annotations, or inferred from their uses. */
  parameterTypes(): Readonly<Record<string, EntryParamType>> {
    // Memoised, errors included: the public `run` asks for a number input's type on every call.
    if (this.entryTypes === null) {
      try {
        this.entryTypes = { types: inferEntryTypes(this.module, this.file, { entry: this.entry.name }) };
      } catch (e) {
        if (!(e instanceof UserError)) throw e;
        this.entryTypes = { error: e };
      }
    }
    if ('error' in this.entryTypes) throw this.entryTypes.error;
    return this.entryTypes.types;
  }

  /**
   * The element type a scalar input for `name` should have (a number alone does not say
   * whether it is i32 or f64): the parameter's annotated or inferred type. Undefined when it is
   * not a scalar parameter, or when its type cannot be inferred without the inputs: the value
   * then types itself, and lowering for the actual inputs reports any real type error.
   */
  scalarInputType(name: string): ScalarType | undefined {
    const type = this.parameterType(name);
    return type?.kind === 'scalar' ? type.elem : undefined;
  }

  /**
   * One parameter's annotated or inferred type; undefined when there is no such parameter or
   * its type cannot be known without the inputs (lowering for the inputs then decides).
   */
  parameterType(name: string): EntryParamType | undefined {
    let types: Readonly<Record<string, EntryParamType>>;
    try {
      types = this.parameterTypes();
    } catch (e) {
      if (e instanceof UserError) return undefined;
      throw e;
    }
    return Object.hasOwn(types, name) ? types[name] : undefined;
  }

  /** The core IR, specialised to a signature (or to annotations and inference without one). */
  lower(signature?: Readonly<Record<string, InputSignature>>): Program {
    const key = JSON.stringify(signature ?? null);
    let program = this.programs.get(key);
    if (program === undefined) {
      program = verifyPass.run(lowerModule(this.module, this.file, { entry: this.entry.name, signature, verifyEachPass: this.options.verifyEachPass }));
      this.programs.set(key, program);
    }
    return program;
  }

  /**
   * The cost text a plan for `signature` minimises: the caller's `cost`, else the back end's own
   * for the entry sizes (ExecutionBackend.cost, backendCost.ts; the webgpu back end weighs kernel
   * launches), else undefined: the planner's default, `reads+writes+recompute` (the js and
   * multicore back ends). Plans and executables are cached under this text, so a back end's
   * default and an explicit cost never share an entry unless they are the same text.
   */
  costFor(signature: Readonly<Record<string, InputSignature>> | undefined, options: PlanningOptions = {}): string | undefined {
    if (options.cost !== undefined) return options.cost;
    return backendCostText(backendNamed(this.backend.name).cost, signature === undefined ? undefined : entrySizes(signature));
  }

  /** A checked plan of the program lowered for `signature`. */
  async plan(signature: Readonly<Record<string, InputSignature>> | undefined, options: PlanningOptions = {}): Promise<Plan> {
    return (await this.planned(signature, options)).plan;
  }

  /** The program lowered for `signature`, its dependence graphs and their checked plan. */
  planned(signature: Readonly<Record<string, InputSignature>> | undefined, options: PlanningOptions = {}): Promise<PlannedProgram> {
    // Checked before the cache key is made of them (and on every call, a cached plan's too).
    checkStrategy(options.strategy ?? 'ilp');
    checkTimeLimit(options.timeLimitSeconds);
    checkProgressEvery(options.progressEveryMs);
    const program = this.lower(signature);
    const cost = this.costFor(signature, options);
    const key = JSON.stringify([signature ?? null, options.strategy ?? 'ilp', cost ?? '', options.timeLimitSeconds ?? null]);
    let planned = this.plans.get(key);
    if (planned === undefined) {
      const planOptions: PlanOptions = {
        strategy: options.strategy,
        cost,
        timeLimitSeconds: options.timeLimitSeconds,
        onProgress: options.onProgress,
        progressEveryMs: options.progressEveryMs,
        shapes: signature === undefined ? undefined : entrySizes(signature),
        // The shared loader is looked up when planning, so a later `configureSolver` applies.
        solver: this.options.solver,
      };
      planned = planProgram(program, planOptions);
      // A failed plan is not cached: the next call tries again and reports the error again.
      planned.catch(() => this.plans.delete(key));
      this.plans.set(key, planned);
    }
    return planned;
  }

  /**
   * The fused executable of a program and plan (compiled once per signature and options). Not
   * `async`: callers await the cached promise itself, so a run that asked for it before a
   * `dispose()` resumes before `dispose()` does (continuations on one promise run in the order
   * they were registered) and runs before the executable is disposed; an `async` wrapper would
   * add ticks and let `dispose()` win that race (ExecutableDisposedError from a run started first).
   */
  executable(signature: Readonly<Record<string, InputSignature>>, options: PlanningOptions = {}): Promise<Executable> {
    const key = JSON.stringify([signature, options.strategy ?? 'ilp', this.costFor(signature, options) ?? '', options.timeLimitSeconds ?? null]);
    let compiled = this.executables.get(key);
    if (compiled === undefined) {
      // The promise is cached, so concurrent runs share one executable (none is left undisposed).
      const program = this.lower(signature);
      const backend = backendNamed(this.backend.name);
      const { threads } = this.backend;
      const { poisonBuffers, parallelThreshold, chunkLength, fastMath, wasm } = this.options;
      compiled = this.plan(signature, options).then(async (plan) => {
        const entry = entrySizes(signature);
        const memory = planMemory(program, plan, entry);
        assertValidMemoryPlan(program, plan, memory, entry); // src/memory does not import the checker either
        // Awaited: the multicore back end's compile resolves once its workers hold the code.
        try {
          return await backend.compile(program, plan, { file: this.file, memory, poisonBuffers, threads, parallelThreshold, chunkLength, fastMath, wasm });
        } catch (e) {
          // The code generator follows a cluster's fused chains recursively: a chain of thousands
          // of combinators in one loop can exhaust the stack. The program is valid; say what to do.
          if (e instanceof RangeError && /call stack/i.test(e.message)) {
            throw userError('E223', 'the plan fuses a chain of combinators too deep for the code generator (its stack overflowed)', { file: this.file, span: this.entry.nameSpan }, [
              'plan with strategy none, or run with the reference interpreter (interpret: true, --interpret)',
            ]);
          }
          throw e;
        }
      });
      // A failed compile is not cached, as a failed plan is not (nor does it evict a newer one).
      const failed = compiled;
      failed.catch(() => {
        if (this.executables.get(key) === failed) this.executables.delete(key);
      });
      this.executables.set(key, compiled);
    }
    return compiled;
  }

  /**
   * Disposes every executable compiled so far (what its back end holds: code, buffers, workers).
   * The Compiler stays usable: a later run compiles again.
   */
  async dispose(): Promise<void> {
    const compiled = [...this.executables.values()];
    this.executables.clear();
    this.prepared.clear();
    this.last = null;
    await Promise.allSettled(compiled.map(async (c) => (await c).dispose()));
  }

  /**
   * Runs the entry on named inputs: fused by default, or with the reference interpreter. Every
   * path delivers its results the same way (`out` arrays written, results never sharing memory
   * with the caller's inputs or with each other: src/runtime/outputs.ts).
   *
   * A call with the signature and options of the previous fused run is matched against it
   * field by field (no key built, no inference, no lowering) and runs trusted: the back end
   * skips the input checks this match has just made.
   */
  async execute(inputs: NamedInputs, options: ExecutionOptions = {}): Promise<Execution> {
    const matched = options.interpret === true ? null : this.matchLast(inputs, options);
    let prepared = matched === null ? null : this.last!;
    const signature = prepared === null ? withDonation(signatureOf(this.entry, inputs, this.file), options.donate) : null;
    const program = prepared !== null ? prepared.program : this.lower(signature!);
    let ordered: readonly InterfaceValue[];
    if (matched !== null) ordered = matched;
    else {
      ordered = program.params.map((p) => inputs[p.name]!);
      checkInputs(program, ordered, this.file);
    }
    const targets = options.out === undefined ? undefined : outTargets(program, options.out, ordered, options.donate, this.file, this.entry.nameSpan);
    const donated = options.donate !== undefined && options.donate.length > 0;
    if (donated) checkDonated(this.entry.params, options.donate!, ordered, targets ?? [], this.file, this.entry.nameSpan);
    const roofline = rooflineRequest(options.roofline);
    if (roofline !== null && donated && options.interpret !== true) throw new InvalidOptionError('roofline runs the program several times; it cannot with donated inputs, which a run may write');
    if (options.interpret === true) {
      return { program, results: deliverResults(program, interpret(program, ordered, { file: this.file, checkUniqueScatters: this.options.verifyEachPass === true }), targets, ordered, undefined, this.file) };
    }
    if (prepared === null) {
      const key = preparedKey(signature!, options);
      prepared = this.prepared.get(key) ?? null;
      if (prepared === null || prepared.exe.disposed) {
        const { graphs } = await this.planned(signature!, options);
        // Nothing is awaited between getting the executable and running it: a dispose() called
        // meanwhile disposes it only after this run (see `executable`).
        const exe = await this.executable(signature!, options);
        prepared = preparedFor(program, signature!, options, graphs, exe);
        this.prepared.set(key, prepared);
      }
    }
    this.last = prepared;
    const { exe, graphs } = prepared;
    let run: RunResult;
    let measured: Roofline | undefined;
    try {
      if (roofline === null) run = await exe.run(ordered, runOptions(options, targets));
      else ({ run, roofline: measured } = await measuredRuns(exe, ordered, roofline, targets));
    } catch (e) {
      // An `out` the back end found the wrong size is the caller's mistake, not a fault; and once
      // a donated input may have been written, the interpreter can no longer see the inputs
      // as given: both fail the run as they are. Only a UserError is a fault: anything else (a
      // worker thread that died, WorkerDiedError; a CompilerBug) fails the run, never masked by the interpreter.
      if (!(e instanceof UserError) || donated || isOutError(e)) throw e;
      // Fused code throws at the first fault it meets, in its own order, and may meet faults in
      // elements nobody observes. The reference interpreter decides: its diagnostic (thrown
      // from here) if the run fails, else its results. Compiled code never writes inputs that
      // were not donated, so the interpreter sees them as the caller gave them.
      const results = deliverResults(program, interpret(program, ordered, { file: this.file, checkUniqueScatters: this.options.verifyEachPass === true }), targets, ordered, undefined, this.file);
      return { program, results, plan: exe.plan, graphs, fallback: e };
    }
    const results = deliverResults(program, run.results, targets, ordered, prepared.donated, this.file);
    return measured === undefined ? { program, results, plan: exe.plan, graphs, run } : { program, results, plan: exe.plan, graphs, run, roofline: measured };
  }

  /**
   * The inputs in parameter order when they have exactly the last fused run's signature
   * (element types, shapes, scalar values, data of the right class and length) and the
   * options plan and donate the same; null otherwise.
   */
  private matchLast(inputs: NamedInputs, options: ExecutionOptions): InterfaceValue[] | null {
    const last = this.last;
    if (last === null || last.exe.disposed || !sameOptions(last, options)) return null;
    if (Object.keys(inputs).length !== last.params.length) return null;
    const ordered: InterfaceValue[] = [];
    for (const p of last.params) {
      if (!Object.hasOwn(inputs, p.name)) return null;
      const v = inputs[p.name]!;
      if (!matchesParam(p, v)) return null;
      ordered.push(v);
    }
    return ordered;
  }
}

/** One entry parameter's signature, as the fast path compares a call's input with it. */
type ParamMatch =
  | { readonly kind: 'scalar'; readonly name: string; readonly elem: ScalarType; readonly value: number | undefined }
  | { readonly kind: 'array'; readonly name: string; readonly elems: readonly ScalarType[]; readonly tuple: boolean; readonly shape: readonly number[]; readonly size: number };

/** What `Compiler.execute` needs for one signature and planning options, resolved once. */
interface Prepared {
  /** In the order of the program's parameters. */
  readonly params: readonly ParamMatch[];
  /** Per parameter: donated. */
  readonly donated: readonly boolean[];
  readonly strategy: Strategy;
  readonly cost: string;
  readonly timeLimitSeconds: number | null;
  readonly program: Program;
  readonly graphs: BlockGraphs;
  readonly exe: Executable;
}

function preparedFor(
  program: Program,
  signature: Readonly<Record<string, InputSignature>>,
  options: ExecutionOptions,
  graphs: BlockGraphs,
  exe: Executable,
): Prepared {
  const params = program.params.map((p): ParamMatch => {
    const sig = signature[p.name]!;
    if (sig.kind === 'scalar') return { kind: 'scalar', name: p.name, elem: sig.elem, value: sig.value };
    const tuple = typeof sig.elem !== 'string';
    const elems = elemLeaves(sig.elem);
    return { kind: 'array', name: p.name, elems, tuple, shape: sig.shape, size: sig.shape.reduce((a, b) => a * b, 1) };
  });
  const donated = program.params.map((p) => {
    const sig = signature[p.name]!;
    return sig.kind === 'array' && sig.donated === true;
  });
  return {
    params,
    donated,
    strategy: options.strategy ?? 'ilp',
    cost: options.cost ?? '',
    timeLimitSeconds: options.timeLimitSeconds ?? null,
    program,
    graphs,
    exe,
  };
}

function sameOptions(p: Prepared, options: ExecutionOptions): boolean {
  if ((options.strategy ?? 'ilp') !== p.strategy || (options.cost ?? '') !== p.cost || (options.timeLimitSeconds ?? null) !== p.timeLimitSeconds) return false;
  // The same set of donated parameters (a name given twice counts once; an unknown name never matches).
  const donate = options.donate;
  if (donate !== undefined) {
    for (const name of donate) {
      const k = p.params.findIndex((q) => q.name === name);
      if (k < 0 || !p.donated[k]) return false;
    }
  }
  for (let k = 0; k < p.donated.length; k++) if (p.donated[k] && (donate === undefined || !donate.includes(p.params[k]!.name))) return false;
  return true;
}

function matchesParam(p: ParamMatch, v: InterfaceValue): boolean {
  if (p.kind === 'scalar') {
    if (Array.isArray(v)) return false;
    const s = v as Exclude<InterfaceValue, readonly unknown[]>;
    return s.kind === 'scalar' && s.elem === p.elem && s.value === p.value;
  }
  if (!p.tuple) return !Array.isArray(v) && matchesArray(v as Exclude<InterfaceValue, readonly unknown[]>, p.elems[0]!, p.shape, p.size);
  if (!Array.isArray(v)) return false;
  const parts = v as readonly Exclude<InterfaceValue, readonly unknown[]>[];
  if (parts.length !== p.elems.length) return false;
  for (let i = 0; i < parts.length; i++) if (!matchesArray(parts[i]!, p.elems[i]!, p.shape, p.size)) return false;
  return true;
}

function matchesArray(v: Exclude<InterfaceValue, readonly unknown[]>, elem: ScalarType, shape: readonly number[], size: number): boolean {
  // The data's class as well as the claimed `elem`: a match makes the run trusted, which skips the back end's own check.
  if (v.kind !== 'array' || v.elem !== elem || v.shape.length !== shape.length || elemOfData(v.data, elem) !== elem || v.data.length !== size) return false;
  for (let d = 0; d < shape.length; d++) if (v.shape[d] !== shape[d]) return false;
  return true;
}

/**
 * The key of a signature and planning options, built by hand (no JSON): per parameter in
 * order its kind, element types, shape or value, and donation; the cost text last, so that
 * whatever it contains cannot run into another field.
 */
function preparedKey(signature: Readonly<Record<string, InputSignature>>, options: PlanningOptions): string {
  let key = '';
  for (const name of Object.keys(signature)) {
    const s = signature[name]!;
    key += s.kind === 'scalar' ? `s${s.elem}=${String(s.value)};` : `a${String(s.elem)}[${s.shape.join(',')}]${s.donated === true ? '!' : ''};`;
  }
  return `${key}|${options.strategy ?? 'ilp'}|${String(options.timeLimitSeconds ?? null)}|${options.cost ?? ''}`;
}

/** The back end's options for one run: trusted, since the driver has just checked the inputs. */
function runOptions(options: ExecutionOptions, targets: OutTargets | undefined): RunOptions {
  if (targets === undefined && options.counters !== true && options.timing !== true) return trustedRun;
  return { [inputsChecked]: true, counters: options.counters, timing: options.timing, out: targets?.map((t) => t?.data) };
}

const trustedRun: RunOptions = Object.freeze({ [inputsChecked]: true });

/** `ExecutionOptions.roofline` resolved: null when not asked for; a TypeError for a bad `timedRuns`. */
function rooflineRequest(option: ExecutionOptions['roofline']): { readonly machine: MachineRates | undefined; readonly timedRuns: number } | null {
  if (option === undefined || option === false) return null;
  const given = option === true ? {} : option;
  const timedRuns = given.timedRuns ?? 2;
  if (!(Number.isSafeInteger(timedRuns) && timedRuns >= 1)) throw new InvalidOptionError(`roofline.timedRuns: expected a positive integer, got ${String(timedRuns)}`);
  return { machine: given.machine, timedRuns };
}

/**
 * The runs of a roofline: one counting (its results dropped), then `timedRuns` timed ones of the
 * plain module, the last of which is the execution's run (its results, written into `out`).
 */
async function measuredRuns(
  exe: Executable,
  ordered: readonly InterfaceValue[],
  request: { readonly machine: MachineRates | undefined; readonly timedRuns: number },
  targets: OutTargets | undefined,
): Promise<{ readonly run: RunResult; readonly roofline: Roofline }> {
  // Each run's stats are read before the next run starts (a runtime reuses its record).
  const counted = (await exe.run(ordered, { [inputsChecked]: true, counters: true })).stats;
  const timed: RunStats[] = [];
  let run: RunResult | null = null;
  for (let k = 0; k < request.timedRuns; k++) {
    run = await exe.run(ordered, { [inputsChecked]: true, timing: true, out: targets?.map((t) => t?.data) });
    timed.push(run.stats);
  }
  return { run: run!, roofline: rooflineOf(counted, timed, request.machine ?? measureMachine()) };
}

/** `out` and `donate` mistakes (E420–E425): the caller's, never a fault the interpreter should decide. */
function isOutError(e: UserError): boolean {
  return e.diagnostics.some((d) => d.code >= 'E420' && d.code <= 'E425');
}

/** The signature with `donated: true` on the array parameters named in `donate` (E424 is checked later, with the inputs). */
function withDonation(signature: Record<string, InputSignature>, donate: readonly string[] | undefined): Record<string, InputSignature> {
  if (donate === undefined || donate.length === 0) return signature;
  // fromEntries, not assignment: a parameter may be named `__proto__`.
  return Object.fromEntries(
    Object.entries(signature).map(([name, s]) => [name, s.kind === 'array' && donate.includes(name) ? { ...s, donated: true as const } : s]),
  );
}

/** The signature a set of named inputs gives the entry: checks that each parameter has one. */
export function signatureOf(entry: Def, inputs: NamedInputs, file: SourceFile): Record<string, InputSignature> {
  const names = new Set(entry.params.map((p) => p.name));
  const diagnostics = [];
  for (const p of entry.params) {
    if (!Object.hasOwn(inputs, p.name)) {
      diagnostics.push({ code: 'E410' as const, message: `no input was given for parameter '${p.name}'`, file, span: p.span });
    }
  }
  for (const name of Object.keys(inputs)) {
    if (!names.has(name)) {
      const known = [...names].join(', ') || 'none';
      diagnostics.push({
        code: 'E410' as const,
        message: `'${entry.name}' has no parameter named '${name}' (its parameters: ${known})`,
        file,
        span: entry.nameSpan,
      });
    }
  }
  if (diagnostics.length > 0) throw new UserError(diagnostics);
  return Object.fromEntries(entry.params.map((p) => [p.name, valueSignature(inputs[p.name]!, p.name)]));
}

/**
 * The signature one input value gives its parameter. Its shape is checked here, before
 * lowering specialises the program to it (a wrapped extent would reach `shape(xs)`).
 */
export function valueSignature(value: InterfaceValue, name = 'value'): InputSignature {
  const components = componentsOf(value);
  const first = components[0]!;
  if (first.kind === 'scalar' && components.length === 1) return { kind: 'scalar', elem: first.elem, value: first.value };
  const arrays = components.filter((c) => c.kind === 'array');
  if (arrays.length !== components.length) {
    throw userError('E414', 'an input that is a tuple must be a tuple of arrays of one shape');
  }
  for (const a of arrays) {
    const problem = shapeProblem(a.shape);
    if (problem !== null) throw userError('E414', `input '${name}': shape [${a.shape.join(', ')}]: ${problem}`);
  }
  const elem: ElemType = arrays.length === 1 ? arrays[0]!.elem : (arrays.map((a) => a.elem) as ScalarType[]);
  return { kind: 'array', elem, shape: arrays[0]!.shape };
}

/** Entry sizes for byte-weighted costs: array shapes and scalar values, by parameter name. */
export function entrySizes(signature: Readonly<Record<string, InputSignature>>): EntrySizes {
  const sizes = Object.create(null) as Record<string, readonly number[] | number>;
  for (const [name, sig] of Object.entries(signature)) {
    if (sig.kind === 'array') sizes[name] = sig.shape;
    else if (sig.value !== undefined) sizes[name] = sig.value;
  }
  return sizes;
}
