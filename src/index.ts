// The public TypeScript API of arrayfuse, curated: compile a `.fuse` program and run it on
// typed arrays, or hand the planner a program or a dependence graph and take a plan back.
//
//   import { fuse } from 'arrayfuse';
//   const saxpy = fuse`
//     def main(a: f64, xs: f64[n], ys: f64[n]):
//       return zipWith(lam(x, y): a * x + y, xs, ys)
//   `;
//   const { result } = await saxpy.run({ a: 2, xs: new Float64Array([1, 2]), ys: new Float64Array([3, 4]) });

import { type UserError, userError } from './diagnostics/index.js';
import { scalarTypes, type Program, type ScalarType } from './ir/types.js';
import { integerRange, isFloat, MAX_ARRAY_ELEMENTS, type TypedArray } from './ir/scalarOps.js';
import { componentsOf, sizeOf as sizeOfShape, type ArrayValue, type InterfaceValue, type ScalarValue } from './ir/values.js';
import { Compiler, entrySizes, planGraphJson, planProgram, valueSignature, type Execution, type PlanningOptions } from './driver/index.js';
import type { EntryParamType, InputSignature } from './lower/index.js';
import { elemLeaves } from './lower/types.js';
import { planMemory } from './memory/index.js';
import { renderPlan, renderPlanJson, type PlanFormat, type PlanJson } from './report/render.js';
import type { PlanOptions } from './plan/index.js';
import { randomValue } from './runtime/io/random.js';
import { listToArray } from './runtime/io/jsonValues.js';
import type { BackendName, MachineRates, Roofline, RunStats } from './runtime/index.js';
import type { OutArrays } from './runtime/outputs.js';

export { UserError, CompilerBug, renderDiagnostic, SourceFile, diagnosticCodes } from './diagnostics/index.js';
export type { Diagnostic, DiagnosticCode, Span } from './diagnostics/index.js';
export type { Program, Block, Stmt, Expr, Lambda, ScalarType, NodeId, VarName } from './ir/types.js';
export type { ArrayValue, ScalarValue, RuntimeValue, InterfaceValue } from './ir/values.js';
export type { Plan, BlockPlan, Cluster, Order, Strategy, SolverStats, SolveStatus } from './plan/types.js';
export type { CostSpec, CostTerm, CostWeights } from './plan/cost.js';
export type { PlanOptions } from './plan/index.js';
export type { PlanningOptions } from './driver/index.js';
/** Progress of a long ILP planning call (`onProgress` in the planning options; docs/PLANNING.md, "Solving"). */
export type { PlanProgress, PlanStage, ProgressListener } from './plan/progress.js';
export type { InputSignature } from './lower/index.js';
export { parseCost } from './plan/cost.js';
/** Planner internals for compiler engineers: a plan with the graphs it was made from, for the renderers and the checker. */
export { planProgram, planGraphJson } from './driver/index.js';
export type { PlannedProgram, PlannedGraph } from './driver/index.js';
export type { PlannedGraphs } from './plan/index.js';
export { programGraphs } from './graph/program.js';
export type { BlockGraphs } from './graph/program.js';
export { graphToJson } from './graph/toJson.js';
export { renderPlan, renderPlanJson, renderPlanText, renderPlanDot, renderPlanSvg, emitLp, emitMps } from './report/render.js';
export type { PlanFormat, PlanJson, ClusterJson, MemoryJson } from './report/render.js';
export type { PlanDotOptions } from './report/dot.js';
export { planMemory } from './memory/index.js';
/** `.npy` files as bytes (format versions 1–3): read any NumPy array of a supported type, write one NumPy reads back exactly. */
export { readNpy, writeNpy, type ReadNpyOptions, type WriteNpyOptions } from './runtime/io/npy.js';
/** Where HiGHS' WebAssembly is loaded from (a browser page: README, "Use it in a browser"); its load error. */
export { configureSolver, SolverLoadError } from './plan/ilp/solver.js';
export type { SolverSource, SolverWasm } from './plan/ilp/solver.js';
export type { GraphJson } from './graph/jsonFormat.js';
export { validatePlan } from './check/validate.js';
export { evaluatePlan } from './check/evaluate.js';
export { printProgram } from './ir/printer.js';
export { programToJson, programFromJson } from './ir/json.js';
export { interpret } from './interp/index.js';
export { compileProgram, emitJs, backends, ExecutableDisposedError } from './runtime/index.js';
/** A multicore run whose worker thread died: the run fails with it (never a hang), and the pool restarts on next use. */
export { WorkerDiedError } from './runtime/multicore/types.js';
export type { BackendName, CompiledProgram, Executable, ExecutionBackend, RunResult, RunStats, Allocation } from './runtime/index.js';
export type { ArrayTraffic, ClusterCounts, ClusterStats, ClusterRoofline, MachineRates, MeasureOptions, Roofline, RooflineRow, RooflineVerdict } from './runtime/index.js';
/** This machine's bandwidth (a STREAM-like triad) and JavaScript multiply-add rate, for `RunOptions.roofline` (docs/EXECUTION.md, "Roofline per cluster"). */
export { measureMachine } from './runtime/index.js';
export type { MemoryPlan, BufferRef, Slot, LiveRange, ResultDelivery } from './memory/index.js';
export type { OutArray, OutArrays } from './runtime/outputs.js';

/**
 * A core-IR program's checked fusion plan, in the JSON plan format v1 (docs/PLAN-FORMAT.md), with
 * its memory plan (for the entry sizes in `options.shapes`, if any). `planProgram` returns the plan
 * with its graphs instead, for the renderers and the checker.
 */
export async function plan(program: Program, options: PlanOptions = {}): Promise<PlanJson> {
  const planned = await planProgram(program, options);
  return renderPlanJson(planned.graphs, planned.plan, planMemory(program, planned.plan, options.shapes));
}

/**
 * Graph in, plan out: a dependence graph in the JSON graph format (docs/PLAN-FORMAT.md, text or
 * parsed) planned, checked and returned in the JSON plan format v1 (node ids are the graph's).
 */
export async function planGraph(json: string | unknown, options: PlanOptions = {}): Promise<PlanJson> {
  const planned = await planGraphJson(json, options);
  return renderPlanJson(planned.graphs, planned.plan);
}

/**
 * A parameter's type, annotated or inferred: a scalar, or an array of `rank` dimensions whose
 * elements have one scalar type per tuple component (`elems`; one for a plain array). `shape`
 * is known when the annotation fixes every extent, else null.
 */
export type ParameterType =
  | { readonly kind: 'scalar'; readonly elem: ScalarType }
  | { readonly kind: 'array'; readonly elems: readonly ScalarType[]; readonly rank: number; readonly shape: readonly number[] | null };

function publicParameterType(t: EntryParamType): ParameterType {
  return t.kind === 'scalar' ? { kind: 'scalar', elem: t.elem } : { kind: 'array', elems: elemLeaves(t.elem), rank: t.rank, shape: t.shape };
}

export interface RandomInputOptions {
  /** Extent of every dimension a parameter's type leaves open, or one extent per dimension (at most 2^31 − 1 each). */
  readonly size: number | readonly number[];
  /** An integer: the same seed gives the same values (seeds are taken modulo 2^32). */
  readonly seed: number;
}

const MAX_EXTENT = 2 ** 31 - 1;

/**
 * Random values for a parameter of type `type` (a playground's or a test's inputs): floats
 * uniform in [0, 1), booleans fair coin flips, integers uniform in 0..m−1 where m is the
 * smallest extent (so an i32 array used as gather indices stays in range), integer scalars in
 * 1..m (m the smallest size given). A tuple array gets one array per component. A TypeError
 * for a type, size or seed that is not one.
 */
export function randomInput(type: ParameterType, options: RandomInputOptions): Input {
  const bad = (what: string): never => {
    throw new TypeError(`randomInput: ${what}`);
  };
  const { size, seed } = options ?? bad('expected options { size, seed }');
  if (!Number.isSafeInteger(seed)) bad(`seed ${String(seed)} is not an integer`);
  const given = typeof size === 'number' ? [size] : Array.isArray(size) ? (size as readonly unknown[]) : bad(`size ${String(size)} is neither a number nor a list of numbers`);
  if (given.length === 0 || !given.every((d) => typeof d === 'number' && Number.isInteger(d) && d >= 0 && d <= MAX_EXTENT)) {
    bad(`size ${JSON.stringify(size)} is not an extent from 0 to ${MAX_EXTENT} or a non-empty list of them`);
  }
  const elems = type?.kind === 'scalar' ? [type.elem] : type?.kind === 'array' ? type.elems : bad(`type ${JSON.stringify(type)} is not a ParameterType`);
  if (elems.length === 0 || !elems.every((e) => (scalarTypes as readonly string[]).includes(e))) bad(`element types ${JSON.stringify(elems)}: expected ${scalarTypes.join(', ')}`);
  const extents = given as readonly number[];
  const shapeOf = (rank: number): readonly number[] => {
    if (typeof size === 'number') return Array.from({ length: rank }, () => size);
    return extents.length === rank ? extents : bad(`size ${JSON.stringify(size)} gives ${extents.length} extent(s) for an array of rank ${rank}`);
  };
  const shape = type.kind === 'array' ? (type.shape ?? shapeOf(type.rank)) : [];
  const smallest = Math.min(...(type.kind === 'array' ? shape : extents), MAX_EXTENT);
  if (type.kind === 'array' && sizeOfShape(shape) > MAX_ARRAY_ELEMENTS) bad(`an array of shape [${shape.join(', ')}] has more than the ${MAX_ARRAY_ELEMENTS} elements an array can have`);
  // Integers: 0..m−1 in arrays (valid indices; 0 alone when m is 0), 1..m for scalars.
  const range = (elem: ScalarType, low: 0 | 1): { low: number; high: number } =>
    isFloat(elem) || elem === 'bool' ? { low: 0, high: 1 } : { low, high: Math.min(integerRange(elem)[1], Math.max(low, smallest - 1 + low)) };
  if (type.kind === 'scalar') {
    const { value } = randomValue({ elem: type.elem, shape: null, ...range(type.elem, 1) }, seed) as ScalarValue;
    return type.elem === 'bool' ? value === 1 : value;
  }
  const parts = type.elems.map((elem, k) => {
    const { data } = randomValue({ elem, shape, ...range(elem, 0) }, seed + k) as ArrayValue;
    return { data, shape };
  });
  return parts.length === 1 ? parts[0]! : parts;
}

/** An array argument: a typed array, with its shape when it is not one-dimensional. */
export interface ArrayInput {
  readonly data: TypedArray | Uint8ClampedArray;
  readonly shape?: readonly number[];
}

/**
 * One argument: a number or boolean for a scalar parameter, a typed array (1-D), `{ data, shape }`
 * or a plain list of numbers or booleans (nested for more dimensions; converted to the
 * parameter's element type, checked: E511, E514) for an array, or a list of those, one per
 * component, for an array of tuples.
 * Element types follow the typed array: Float64Array f64, Float32Array f32, Int32Array i32,
 * Uint32Array u32, Int8Array i8, Uint8Array bool — or u8 where the parameter is declared u8, which
 * also takes a Uint8ClampedArray (a canvas's ImageData), read through a Uint8Array view of its
 * memory, not copied.
 */
export type Input = number | boolean | TypedArray | Uint8ClampedArray | ArrayInput | NestedList | readonly (TypedArray | Uint8ClampedArray | ArrayInput | NestedList)[];

/** Numbers or booleans, nested for more dimensions: `[1, 2, 3]`, `[[1, 2], [3, 4]]`. */
export type NestedList = readonly (number | boolean | NestedList)[];

/** An array result: its elements and shape. */
export interface ArrayOutput {
  readonly data: TypedArray;
  readonly shape: readonly number[];
}

/** Whether a result is an array (`{ data, shape }`), not a number or a tuple. */
export function isArrayOutput(output: Output | undefined): output is ArrayOutput {
  return typeof output === 'object' && !Array.isArray(output);
}

/**
 * One result: a number for a scalar and for an array of rank 0 (a whole-array `fold`; with an
 * `out` for it, that array), `{ data, shape }` for an array, a list for a tuple.
 */
export type Output = number | ArrayOutput | readonly Output[];

export interface CompileOptions extends PlanningOptions {
  /** Shown in diagnostics. */
  readonly fileName?: string;
  /** The def to run: else `main`, else the last one. */
  readonly entry?: string;
  /**
   * The execution back end of fused runs (`backends`); default: `js` for one thread, `multicore`
   * for more. `js` and `webgpu` run on one thread: with them, `threads` above 1 is a TypeError.
   * `webgpu` runs WGSL kernels on a WebGPU device (a browser's `navigator.gpu`; in Node the
   * optional npm package `webgpu`): f32, i32, u32 and bool programs (an f64 value is E680), no
   * device is E682 (docs/EXECUTION.md, "WebGPU").
   */
  readonly backend?: BackendName;
  /**
   * Threads that run the fused loops, the calling thread included: an integer from 1 to 256.
   * Default: the environment variable ARRAYFUSE_THREADS if set, else the machine's available
   * parallelism under Node (`os.availableParallelism()`), 1 elsewhere (a browser: README, "Threads").
   * 1 is the `js` back end on the calling thread alone; more is the `multicore` back end
   * (README, "Threads"). More threads than cores is allowed, and slow. A TypeError otherwise.
   */
  readonly threads?: number;
  /**
   * Multicore tuning (docs/EXECUTION.md, "Threads"): a cluster call whose estimated work is below
   * this runs on the calling thread alone (default measured; 0 forks every call of two chunks).
   */
  readonly parallelThreshold?: number;
  /**
   * Multicore and webgpu: iterations per chunk of a whole-array fold or scan (default 16384 on
   * multicore, 1024 on webgpu). Float results depend on it, never on the thread count.
   */
  readonly chunkLength?: number;
  /**
   * Allow regrouping floating-point `+` and `*` folds (docs/LANGUAGE.md, "Floating-point
   * reassociation"): faster sums and dot products, within the error bound stated there. Default
   * false: every fused result is bit for bit the reference interpreter's.
   */
  readonly fastMath?: boolean;
  /**
   * The `js` back end: run clusters as WebAssembly kernels where measured faster (`auto`), wherever
   * possible (`on`) or never (`off`); results are the same bit for bit (docs/EXECUTION.md, "WebAssembly").
   */
  readonly wasm?: 'auto' | 'on' | 'off';
}

export interface RunOptions extends PlanningOptions {
  /** Use the reference interpreter instead of the fused code. */
  readonly interpret?: boolean;
  /**
   * Arrays to write results into, by result name: a typed array (or `{ data, shape }`) of the
   * result's element type and size for an array result, a list of them for a tuple result.
   * The result returned is the array given. Errors: E420 (no such array result), E421 (element
   * type), E422 (size), E423 (shares memory with an input or another `out`).
   */
  readonly out?: OutArrays;
  /**
   * Array parameters whose buffers the caller gives up for this run: an update may then write
   * one in place instead of copying it, and its contents after the run are unspecified (a
   * result may even be it). Without `donate`, a run never writes its inputs. Errors: E424 (no
   * such array parameter), E425 (a donated input shares memory with another input or an `out`).
   */
  readonly donate?: readonly string[];
  /**
   * `execute` only: a roofline per cluster (docs/EXECUTION.md, "Roofline per cluster") in
   * `FuseExecution.roofline`. The program runs once counting and `timedRuns` (default 2) times
   * timed, and each cluster's counts and fastest time are compared with `machine` (measure it
   * once with `measureMachine()` and pass it on; default: measured by this call, about half a
   * second). Not with `donate`. `run` ignores it.
   */
  readonly roofline?: boolean | { readonly machine?: MachineRates; readonly timedRuns?: number };
}

/** What `execute` returns: the results, and how they were computed. */
export interface FuseExecution {
  /** Results by name, as `run` returns them. */
  readonly results: Record<string, Output>;
  /**
   * Set when the fused code stopped at a run-time fault in an element no result depends on, so
   * the results are the reference interpreter's (docs/LANGUAGE.md, "Run-time faults"): the
   * fused run's error. Undefined for a fused run that succeeded and for interpreted runs.
   */
  readonly fallback?: UserError;
  /**
   * What the fused run did (its allocations, the memory plan's `peakBytes`, the pool's
   * `poolBytes`; cluster times are taken only with `roofline`, whose last timed run this is);
   * undefined for interpreted runs and fallbacks.
   */
  readonly stats?: RunStats;
  /** The roofline per cluster, when `RunOptions.roofline` asked for it (fused runs that did not fall back only). */
  readonly roofline?: Roofline;
}

export interface FuseProgram {
  /** The entry def's parameter names, in order. */
  readonly parameters: readonly string[];
  /**
   * The entry def's parameter types by name, annotated or inferred from their uses (`randomInput`
   * makes values of them). Throws the UserError inference gives when a type depends on the inputs.
   */
  readonly parameterTypes: Readonly<Record<string, ParameterType>>;
  /** The back end its fused runs use (`js`, `multicore`, …), resolved when it was compiled. */
  readonly backend: BackendName;
  /** Threads its fused runs use, the calling thread included (1 for `js`). */
  readonly threads: number;
  /** Runs the program; results by name (a returned variable keeps its name; an unnamed result is `result` when it is the only one, else `result<k>` by position). */
  run(inputs: Readonly<Record<string, Input>>, options?: RunOptions): Promise<Record<string, Output>>;
  /** Runs the program as `run` does, and says whether the interpreter had to decide the outcome. */
  execute(inputs: Readonly<Record<string, Input>>, options?: RunOptions): Promise<FuseExecution>;
  /** The core IR for given inputs (or for annotations and inferred types without inputs). */
  lower(inputs?: Readonly<Record<string, Input>>): import('./ir/types.js').Program;
  /**
   * The fusion plan for given inputs (their shapes weigh the `bytes` cost and size the memory
   * plan), in the JSON plan format v1 (docs/PLAN-FORMAT.md).
   */
  plan(inputs?: Readonly<Record<string, Input>>, options?: PlanningOptions): Promise<PlanJson>;
  /**
   * The plan for given inputs as text for people, JSON (plan v1), Graphviz DOT or SVG; the
   * dependence graph as JSON (`graph-json`, for `planGraph`); or the ILP as CPLEX LP or MPS text
   * (docs/PLAN-FORMAT.md; the CLI's `plan --format` and `--emit-lp`/`--emit-mps`).
   */
  render(format: PlanFormat, inputs?: Readonly<Record<string, Input>>, options?: PlanningOptions): Promise<string>;
  /** Releases the compiled code of every run so far (the back end's code, buffers, workers); a later run compiles again. */
  dispose(): Promise<void>;
}

/**
 * The element type of an input's data: a Uint8Array is a u8 array where the parameter is
 * declared u8 (or i8, to be refused as u8), else bool; a Uint8ClampedArray is u8 (the caller checks the
 * declaration through the interpreter's input check).
 */
function elemOf(data: TypedArray | Uint8ClampedArray, declared: ScalarType | undefined): ScalarType {
  if (data instanceof Float64Array) return 'f64';
  if (data instanceof Float32Array) return 'f32';
  if (data instanceof Int32Array) return 'i32';
  if (data instanceof Uint32Array) return 'u32';
  if (data instanceof Int8Array) return 'i8';
  if (data instanceof Uint8ClampedArray) return 'u8';
  // For an i8 parameter too, so that the mismatch (E307) names the bytes as u8, not bool.
  return declared === 'u8' || declared === 'i8' ? 'u8' : 'bool';
}

function isTypedArray(x: unknown): x is TypedArray | Uint8ClampedArray {
  return (
    x instanceof Float64Array || x instanceof Float32Array || x instanceof Int32Array || x instanceof Uint32Array || x instanceof Uint8Array || x instanceof Int8Array || x instanceof Uint8ClampedArray
  );
}

/** Whether an input's element type depends on its parameter's declaration (a one-byte array). */
function isByteArray(x: unknown): boolean {
  return x instanceof Uint8Array || x instanceof Uint8ClampedArray;
}

/** The data as the back ends store it: a Uint8ClampedArray as a Uint8Array on the same memory. */
function stored(data: TypedArray | Uint8ClampedArray): TypedArray {
  return data instanceof Uint8ClampedArray ? new Uint8Array(data.buffer, data.byteOffset, data.length) : data;
}

function toArrayValue(name: string, x: TypedArray | Uint8ClampedArray | ArrayInput, declared?: ScalarType): ArrayValue {
  // The common case, a bare typed array, builds one object and checks nothing more.
  if (isTypedArray(x)) return { kind: 'array', elem: elemOf(x, declared), shape: [x.length], data: stored(x) };
  // JavaScript callers may pass anything (a string, null, a plain array): E414, not a TypeError.
  const data: unknown = typeof x === 'object' && x !== null ? x.data : undefined;
  if (!isTypedArray(data)) {
    const got = x === null ? 'null' : typeof x !== 'object' ? typeof x : data === undefined ? 'an object without data' : `data of class ${Object.prototype.toString.call(data).slice(8, -1)}`;
    throw userError('E414', `input '${name}': expected a number, a boolean, a typed array (Float64Array, Float32Array, Int32Array, Uint32Array, Uint8Array, Int8Array or Uint8ClampedArray), { data, shape } or a list; got ${got}`);
  }
  const given: unknown = x.shape ?? [data.length];
  const shape: readonly unknown[] = Array.isArray(given) ? given : [given];
  const sizes = shape.filter((d): d is number => Number.isInteger(d) && (d as number) >= 0);
  if (!Array.isArray(given) || sizes.length !== shape.length || sizes.reduce((a, b) => a * b, 1) !== data.length) {
    throw userError('E414', `input '${name}': shape [${shape.map(String).join(', ')}] does not match ${data.length} elements`);
  }
  return { kind: 'array', elem: elemOf(data, declared), shape: sizes, data: stored(data) };
}

/** A typed array, or `{ data: typed array, shape? }`: one array argument (else a plain list of numbers). */
function isArrayArgument(x: unknown): x is TypedArray | Uint8ClampedArray | ArrayInput {
  return isTypedArray(x) || (typeof x === 'object' && x !== null && !Array.isArray(x) && 'data' in x);
}

/** A non-empty list of array arguments (an index loop: `every` would skip a list's holes). */
function allArrayArguments(list: readonly unknown[]): boolean {
  if (list.length === 0) return false;
  for (let i = 0; i < list.length; i++) if (!isArrayArgument(list[i])) return false;
  return true;
}

/** A plain (nested) list of numbers or booleans as an array of the parameter's element type, if known. */
function listArgument(what: string, list: readonly unknown[], elem: ScalarType | undefined): ArrayValue {
  return listToArray(list, `input '${what}'`, elem);
}

function toInterfaceValue(name: string, x: Input, type: EntryParamType | undefined): InterfaceValue {
  if (typeof x === 'boolean') return { kind: 'scalar', elem: 'bool', value: x ? 1 : 0 };
  if (typeof x === 'number') {
    const elem = type?.kind === 'scalar' ? type.elem : Number.isInteger(x) && (x | 0) === x ? 'i32' : 'f64';
    // -0 is the integer 0 (an integer type has no sign of zero).
    return { kind: 'scalar', elem, value: Object.is(x, -0) && !isFloat(elem) ? 0 : x };
  }
  const elems = type?.kind === 'array' ? elemLeaves(type.elem) : undefined;
  if (Array.isArray(x)) {
    const list = x as readonly unknown[];
    // An array of tuples: one array per component, each a typed array, `{ data, shape }` or a plain list.
    const components = elems !== undefined && elems.length > 1 ? elems.length : allArrayArguments(list) ? list.length : 0;
    if (components === 0) return listArgument(name, list, elems?.[0]);
    if (list.length !== components) throw userError('E414', `input '${name}': an array of ${components}-tuples is given as a list of ${components} arrays, one per component; got a list of ${list.length}`);
    return list.map((c, k) => (Array.isArray(c) ? listArgument(`${name}.${k}`, c as readonly unknown[], elems?.[k]) : toArrayValue(`${name}.${k}`, c as TypedArray | ArrayInput, elems?.[k])));
  }
  return toArrayValue(name, x as TypedArray | ArrayInput, elems?.[0]);
}

/**
 * A result as the API returns it: a scalar, or an array of rank 0 (a whole-array fold), as a
 * number, unless the caller gave an `out` array for it (`given`: that array is returned).
 */
function toOutput(v: InterfaceValue, given: boolean): Output {
  if (Array.isArray(v)) return componentsOf(v).map((c) => toOutput(c, given));
  const value = v as Exclude<InterfaceValue, readonly unknown[]>;
  if (value.kind === 'scalar') return value.value;
  return value.shape.length === 0 && !given ? value.data[0]! : { data: value.data, shape: value.shape };
}

/** Sets an own data property, also for the name `__proto__` (which assignment would take as the prototype). */
function setOwn<T>(record: Record<string, T>, name: string, value: T): void {
  if (name === '__proto__') Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true });
  else record[name] = value;
}

/**
 * Compiles `.fuse` source. Throws UserError (with diagnostics) for a bad program, TypeError for
 * bad options (an unknown back end, a bad thread count, `threads` above 1 with `backend: 'js'`).
 */
export function compile(source: string, options: CompileOptions = {}): FuseProgram {
  if (typeof source !== 'string') throw new TypeError(`compile: the source must be a string, not ${source === null ? 'null' : typeof source}`);
  if (typeof options !== 'object' || options === null) throw new TypeError(`compile: the options must be an object, not ${options === null ? 'null' : typeof options}`);
  const { fileName, entry, backend, threads, parallelThreshold, chunkLength, fastMath, wasm } = options;
  const compiler = new Compiler(source, { fileName, entry, backend, threads, parallelThreshold, chunkLength, fastMath, wasm });
  // Own enumerable properties only, each defined as an own property (`setOwn`), so parameters
  // named `__proto__` or `toString` are inputs like any other. A plain object, not a
  // null-prototype one: V8 keeps those in dictionary mode, slower to read on every call.
  const convert = (inputs: Readonly<Record<string, Input>>): Record<string, InterfaceValue> => {
    if (typeof inputs !== 'object' || inputs === null) throw new TypeError(`run: the inputs must be an object of named inputs, not ${inputs === null ? 'null' : typeof inputs}`);
    const named: Record<string, InterfaceValue> = {};
    for (const name of Object.keys(inputs)) {
      const x = inputs[name]!;
      setOwn(named, name, toInterfaceValue(name, x, isTypedArray(x) && !isByteArray(x) ? undefined : compiler.parameterType(name)));
    }
    return named;
  };
  const signature = (inputs: Readonly<Record<string, Input>> | undefined): Record<string, InputSignature> | undefined =>
    inputs === undefined ? undefined : Object.fromEntries(Object.entries(convert(inputs)).map(([name, v]) => [name, valueSignature(v)]));
  // Called on every run: one options object, no spreads (the fixed cost per call is measured in bench/exec/percall.ts).
  const executionOf = (inputs: Readonly<Record<string, Input>>, runOptions: RunOptions, roofline?: RunOptions['roofline']): Promise<Execution> =>
    compiler.execute(convert(inputs), {
      strategy: runOptions.strategy ?? options.strategy,
      cost: runOptions.cost ?? options.cost,
      timeLimitSeconds: runOptions.timeLimitSeconds ?? options.timeLimitSeconds,
      onProgress: runOptions.onProgress ?? options.onProgress,
      progressEveryMs: runOptions.progressEveryMs ?? options.progressEveryMs,
      interpret: runOptions.interpret,
      out: runOptions.out,
      donate: runOptions.donate,
      roofline,
    });
  const resultsOf = (execution: Execution, out: OutArrays | undefined): Record<string, Output> => {
    const results: Record<string, Output> = {};
    const named = execution.program.results;
    for (let k = 0; k < named.length; k++) {
      const name = named[k]!.name;
      setOwn(results, name, toOutput(execution.results[k]!, out !== undefined && Object.hasOwn(out, name)));
    }
    return results;
  };
  const planningOf = (planOptions: PlanningOptions): PlanningOptions => ({
    strategy: planOptions.strategy ?? options.strategy,
    cost: planOptions.cost ?? options.cost,
    timeLimitSeconds: planOptions.timeLimitSeconds ?? options.timeLimitSeconds,
    onProgress: planOptions.onProgress ?? options.onProgress,
    progressEveryMs: planOptions.progressEveryMs ?? options.progressEveryMs,
  });
  const planned = async (inputs: Readonly<Record<string, Input>> | undefined, planOptions: PlanningOptions) => {
    const given = signature(inputs);
    const p = await compiler.planned(given, planningOf(planOptions));
    const memory = planMemory(p.program, p.plan, given === undefined ? undefined : entrySizes(given));
    return { ...p, memory, name: p.program.name, json: renderPlanJson(p.graphs, p.plan, memory) };
  };
  const program: FuseProgram = {
    parameters: compiler.parameterNames,
    get parameterTypes() {
      return Object.fromEntries(Object.entries(compiler.parameterTypes()).map(([name, t]) => [name, publicParameterType(t)]));
    },
    backend: compiler.backend.name,
    threads: compiler.backend.threads,
    run: async (inputs, runOptions = {}) => resultsOf(await executionOf(inputs, runOptions), runOptions.out),
    execute: async (inputs, runOptions = {}) => {
      const execution = await executionOf(inputs, runOptions, runOptions.roofline);
      const results = resultsOf(execution, runOptions.out);
      if (execution.fallback !== undefined) return { results, fallback: execution.fallback };
      if (execution.run === undefined) return { results };
      return execution.roofline === undefined ? { results, stats: execution.run.stats } : { results, stats: execution.run.stats, roofline: execution.roofline };
    },
    lower: (inputs) => compiler.lower(signature(inputs)),
    plan: async (inputs, planOptions = {}) => (await planned(inputs, planOptions)).json,
    render: async (format, inputs, planOptions = {}) => {
      const p = await planned(inputs, planOptions);
      // The plan's own cost text: the one given, or the back end's default it was planned with (lp, mps).
      return renderPlan(format, { graphs: p.graphs, plan: p.plan, memory: p.memory, name: p.name, cost: p.plan.cost });
    },
    dispose: () => compiler.dispose(),
  };
  collected.register(program, compiler);
  return program;
}

/**
 * Disposes a program's compiled code when the program itself is garbage collected, for back
 * ends whose buffers live outside the JavaScript heap (workers, device memory). The JS back
 * end's pool is heap memory and would go with the program anyway. The compiler never refers to
 * the program, so registering it keeps nothing alive.
 */
const collected = new FinalizationRegistry<Compiler>((compiler) => void compiler.dispose());

/** Removes the indentation common to all non-blank lines (template literals are indented). */
function dedent(text: string): string {
  const lines = text.split('\n');
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^ */.exec(l)![0].length);
  const common = indents.length === 0 ? 0 : Math.min(...indents);
  return lines.map((l) => l.slice(Math.min(common, /^ */.exec(l)![0].length))).join('\n');
}

/**
 * Tagged template: ``fuse`def main(xs): …` ``. Interpolated values must be finite numbers (they
 * are re-printed as literals); anything else is refused, so no text is spliced into programs.
 */
export function fuse(strings: TemplateStringsArray, ...values: readonly number[]): FuseProgram {
  let source = strings[0]!;
  values.forEach((v, k) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new TypeError(`fuse\`…\`: interpolation ${k + 1} is ${typeof v === 'number' ? v : typeof v}; only finite numbers can be interpolated`);
    }
    // A negative number is parenthesised, as the value it is (`${-2} ** 2` is 4, not -(2 ** 2)),
    // and -0 keeps its sign as the float -0.0.
    const text = Object.is(v, -0) ? '-0.0' : Number.isInteger(v) ? String(v) : v.toExponential();
    source += (v < 0 || Object.is(v, -0) ? `(${text})` : text) + strings[k + 1]!;
  });
  return compile(dedent(source), { fileName: '<fuse template>' });
}
