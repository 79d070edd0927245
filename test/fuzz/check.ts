// The differential check of one fuzz program: the reference interpreter and the fused code
// under every strategy must agree (values, or the same diagnostic: code, message, location),
// nothing may fail with an internal error, and the interpreter must agree with the fuzzer's
// own evaluator (evaluate.ts). Memory (docs/DESIGN.md invariant 6): each mode then runs a
// second input set of the same signature on the same compiled executable, which must agree
// with the interpreter on that set too (nothing a run leaves in the executable's buffers, nor a
// fault in the middle of the first run, may change the second), must not change the arrays the
// first run returned (results are the caller's, never the executable's buffers), and no run may
// change a byte of its inputs (nothing is donated here).

import { UserError } from '../../src/diagnostics/index.js';
import { Compiler, signatureOf } from '../../src/driver/index.js';
import type { TypedArray } from '../../src/ir/scalarOps.js';
import type { OutArrays } from '../../src/runtime/outputs.js';
import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import type { SolverLoader } from '../../src/plan/ilp/solver.js';
import type { Prog } from './ast.js';
import { evaluate, type Expected, type FuzzInputs, type Verdict } from './evaluate.js';
import { printProg } from './print.js';
import type { Rng } from './rng.js';

export const MODES = ['interpret', 'ilp', 'greedy-down', 'greedy-up', 'none'] as const;
export type BaseMode = (typeof MODES)[number];
/** A base mode, or a strategy's fused code on several threads (`ilp@2`: the ILP plan on 2 threads). */
export type Mode =
  | BaseMode
  | `${Exclude<BaseMode, 'interpret'>}@${number}`
  | `${Exclude<BaseMode, 'interpret'>}@${number}+fast`
  | `${Exclude<BaseMode, 'interpret'>}@${number}+wasm`;

/**
 * A run of fused code on the multicore back end: the plan of `strategy`, `threads` threads, the
 * fork threshold at 0 (the fuzz arrays are tiny) and chunks of `chunkLength` iterations in loops
 * that carry a value, so folds and scans cross chunk boundaries. Compared with the interpreter
 * like every mode (the chunked float sums regroup: FLOAT_TOLERANCE).
 */
export interface ThreadedMode {
  readonly strategy: Exclude<BaseMode, 'interpret'>;
  readonly threads: number;
  readonly chunkLength: number;
  /**
   * Compiled with `fastMath` (docs/LANGUAGE.md, "Floating-point reassociation"): float `+` and `*`
   * folds regrouped, within FLOAT_TOLERANCE on these small inputs; faults unchanged. One thread is
   * the js back end.
   */
  readonly fastMath?: boolean;
  /**
   * One thread (the js back end) with every cluster the WebAssembly translator accepts run as a
   * kernel (`wasm: 'on'`; the default `auto` never tries the fuzzer's tiny arrays).
   */
  readonly wasm?: boolean;
}

/** The threaded modes for thread counts 2 … `maxThreads` (none for 1): the ILP plan, chunks of `threads` iterations. */
export function threadedModes(maxThreads: number): readonly ThreadedMode[] {
  return Array.from({ length: Math.max(0, maxThreads - 1) }, (_, k) => ({ strategy: 'ilp' as const, threads: k + 2, chunkLength: k + 2 }));
}

export function modeName(t: ThreadedMode): Mode {
  if (t.wasm === true) return `${t.strategy}@${t.threads}+wasm`;
  return t.fastMath === true ? `${t.strategy}@${t.threads}+fast` : `${t.strategy}@${t.threads}`;
}

/** The WebAssembly modes: the ILP plan's clusters and the unfused ones (many small kernels) as kernels, on one thread. */
export function wasmModes(): readonly ThreadedMode[] {
  return [
    { strategy: 'ilp', threads: 1, chunkLength: 1, wasm: true },
    { strategy: 'none', threads: 1, chunkLength: 1, wasm: true },
  ];
}

/** The fastMath modes: the ILP plan on the js back end, and on 2 threads with chunks of 2. */
export function fastMathModes(): readonly ThreadedMode[] {
  return [
    { strategy: 'ilp', threads: 1, chunkLength: 1, fastMath: true },
    { strategy: 'ilp', threads: 2, chunkLength: 2, fastMath: true },
  ];
}

/** Floats may differ by this much relative to their magnitude (a fold's grouping may change). */
export const FLOAT_TOLERANCE = 1e-9;

export type Outcome =
  | { readonly k: 'values'; readonly values: readonly InterfaceValue[] }
  | { readonly k: 'user'; readonly code: string; readonly text: string }
  | { readonly k: 'internal'; readonly text: string };

export type FindingClass = 'internal' | 'mismatch' | 'evaluator';

export interface Finding {
  readonly cls: FindingClass;
  /** What failed, with names and numbers taken out, so that one bug gives one key. */
  readonly key: string;
  readonly detail: string;
}

/** One input set, for the compiler and for the evaluator. */
export interface InputSet {
  readonly values: Readonly<Record<string, InterfaceValue>>;
  readonly plain: FuzzInputs;
  readonly text: string;
}

function f64Array(data: readonly number[]): InterfaceValue {
  return { kind: 'array', elem: 'f64', shape: [data.length], data: Float64Array.from(data) };
}

/** The sizes and scalars of an input set: together they make its signature (what is compiled). */
export interface InputShape {
  readonly n: number;
  readonly m: number;
  readonly c: number;
  readonly j: number;
}

export function randomShape(rng: Rng): InputShape {
  return { n: rng.pick([0, 1, 1, 2, 3, 4, 5, 7]), m: rng.pick([0, 1, 2, 3, 5]), c: rng.pick([0.5, 1.5, -1.0, 3.0, 0.0]), j: rng.pick([-1, 0, 1, 2, 3, 6]) };
}

/**
 * Random data of a given shape: small sizes (0 and 1 included), floats mostly exact halves,
 * index inputs mostly in range, sometimes −1, n or 0 (out of range, or a divisor of zero).
 */
export function randomInputs(rng: Rng, shape: InputShape = randomShape(rng)): InputSet {
  const { n, m, c, j } = shape;
  const floats = (): number[] =>
    Array.from({ length: n }, () => (rng.chance(0.05) ? rng.pick([1e9, -3e9, 0.1]) : rng.int(-8, 12) * 0.5));
  const xs = floats();
  const ys = floats();
  const is = Array.from({ length: m }, () => (rng.chance(0.85) ? rng.int(0, Math.max(0, n - 1)) : rng.pick([-1, n, 0])));
  // Bytes at the edges of the type (0 a divisor, 255 and 128 overflow) and in between.
  const bs = Array.from({ length: n }, () => (rng.chance(0.5) ? rng.pick([0, 1, 2, 7, 128, 255]) : rng.int(0, 255)));
  const values: Record<string, InterfaceValue> = {
    xs: f64Array(xs),
    ys: f64Array(ys),
    is: { kind: 'array', elem: 'i32', shape: [m], data: Int32Array.from(is) },
    bs: { kind: 'array', elem: 'u8', shape: [n], data: Uint8Array.from(bs) },
    c: { kind: 'scalar', elem: 'f64', value: c },
    j: { kind: 'scalar', elem: 'i32', value: j },
  };
  const plain: FuzzInputs = new Map<string, { elem: 'f64' | 'i32' | 'u8'; data: number[] } | { elem: 'f64' | 'i32'; value: number }>([
    ['xs', { elem: 'f64', data: xs }],
    ['ys', { elem: 'f64', data: ys }],
    ['is', { elem: 'i32', data: is }],
    ['bs', { elem: 'u8', data: bs }],
    ['c', { elem: 'f64', value: c }],
    ['j', { elem: 'i32', value: j }],
  ]);
  const text = `xs=${JSON.stringify(xs)} ys=${JSON.stringify(ys)} is=${JSON.stringify(is)} bs=${JSON.stringify(bs)} c=${c} j=${j}`;
  return { values, plain, text };
}

function components(v: InterfaceValue): readonly RuntimeValue[] {
  return Array.isArray(v) ? (v as readonly RuntimeValue[]) : [v as RuntimeValue];
}

function closeNumbers(a: number, b: number, float: boolean): boolean {
  if (Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b))) return true;
  if (!float) return false;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
  return Math.abs(a - b) <= FLOAT_TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b));
}

function sameRuntime(x: RuntimeValue, y: RuntimeValue): boolean {
  if (x.kind !== y.kind || x.elem !== y.elem) return false;
  const float = x.elem === 'f64' || x.elem === 'f32';
  if (x.kind === 'scalar' && y.kind === 'scalar') return closeNumbers(x.value, y.value, float);
  if (x.kind !== 'array' || y.kind !== 'array') return false;
  if (x.shape.join() !== y.shape.join() || x.data.length !== y.data.length) return false;
  for (let k = 0; k < x.data.length; k++) if (!closeNumbers(x.data[k]!, y.data[k]!, float)) return false;
  return true;
}

function sameOutcome(a: Outcome, b: Outcome): boolean {
  if (a.k !== b.k) return false;
  if (a.k === 'values' && b.k === 'values') {
    return (
      a.values.length === b.values.length &&
      a.values.every((v, i) => {
        const xs = components(v);
        const ys = components(b.values[i]!);
        return xs.length === ys.length && xs.every((x, k) => sameRuntime(x, ys[k]!));
      })
    );
  }
  return (a as { text: string }).text === (b as { text: string }).text;
}

function matchesExpected(values: readonly InterfaceValue[], expected: readonly Expected[]): boolean {
  if (values.length !== expected.length) return false;
  return values.every((v, i) => {
    const parts = components(v);
    const e = expected[i]!;
    if (parts.length !== 1) return false;
    const x = parts[0]!;
    const elem = e.elem === 'bool' ? 'bool' : e.elem;
    if (x.elem !== elem) return false;
    // A scalar result may come back as a rank-0 array (a fold's result).
    if (e.shape === null) {
      if (x.kind === 'scalar') return closeNumbers(x.value, e.data[0]!, elem === 'f64');
      return x.shape.length === 0 && closeNumbers(x.data[0]!, e.data[0]!, elem === 'f64');
    }
    if (x.kind !== 'array' || x.shape.join() !== e.shape.join()) return false;
    return e.data.every((d, k) => closeNumbers(x.data[k]!, d, elem === 'f64'));
  });
}

function showValues(values: readonly InterfaceValue[]): string {
  return values
    .map((v) =>
      components(v)
        .map((x) => (x.kind === 'scalar' ? `${x.value}` : `${x.elem}[${Array.from(x.data).join(', ')}]`))
        .join(' & '),
    )
    .join('; ');
}

export function showOutcome(o: Outcome): string {
  return o.k === 'values' ? showValues(o.values) : o.text;
}

function showVerdict(v: Verdict): string {
  switch (v.k) {
    case 'values':
      return `${v.values.map((e) => `${e.elem}${e.shape === null ? '' : `[${e.shape.join(',')}]`} ${e.data.join(', ')}`).join('; ')}${v.mayFault ? ' (or E401-E404)' : ''}${v.mayReject ? ' (or a compile-time error)' : ''}`;
    case 'fault':
      return 'a run-time error (E401-E404)';
    case 'reject':
      return 'a compile-time error (an integer literal out of range)';
    case 'unknown':
      return `unknown (${v.why})`;
  }
}

/** Names, numbers and positions out of a message: one mechanism, one key. */
export function normalise(text: string): string {
  return text
    .replace(/"[^"]*"/g, '"_"')
    .replace(/'[^']*'/g, "'_'")
    .replace(/\b[a-z]+\d+(_\d+)*\b/g, '_')
    .replace(/\d+/g, 'N')
    .slice(0, 140);
}

/**
 * Codes of a fault: at run time, or found at compile time from the static sizes and scalars of
 * the signature (E213 an integer division by zero, E311 shapes that differ).
 */
const FAULT_CODES = new Set(['E401', 'E402', 'E403', 'E404', 'E213', 'E311']);

async function runMode(compiler: Compiler, inputs: InputSet, mode: BaseMode, out?: OutArrays): Promise<Outcome> {
  try {
    const execution = await compiler.execute(inputs.values, mode === 'interpret' ? { interpret: true, out } : { strategy: mode, timeLimitSeconds: 5, out });
    return { k: 'values', values: execution.results };
  } catch (err) {
    return classifyError(err);
  }
}

/** The plan a strategy picks, as text; null when planning fails (the run reports why). */
async function planText(compiler: Compiler, inputs: InputSet, mode: Exclude<BaseMode, 'interpret'>): Promise<string | null> {
  try {
    const signature = signatureOf(compiler.entry, inputs.values, compiler.file);
    return JSON.stringify((await compiler.plan(signature, { strategy: mode, timeLimitSeconds: 5 })).root);
  } catch {
    return null;
  }
}

/** A copy of the bytes of every input array, by parameter name and component. */
type InputBytes = ReadonlyMap<string, readonly (Uint8Array | null)[]>;

function inputBytes(values: Readonly<Record<string, InterfaceValue>>): InputBytes {
  const out = new Map<string, (Uint8Array | null)[]>();
  for (const [name, v] of Object.entries(values)) {
    out.set(name, components(v).map((x) => (x.kind === 'array' ? new Uint8Array(x.data.buffer, x.data.byteOffset, x.data.byteLength).slice() : null)));
  }
  return out;
}

/**
 * The inputs whose bytes differ from `before`, put back as they were (so that the modes after
 * are checked on the inputs the interpreter saw).
 */
function writtenInputs(values: Readonly<Record<string, InterfaceValue>>, before: InputBytes): string[] {
  const written: string[] = [];
  for (const [name, v] of Object.entries(values)) {
    components(v).forEach((x, k) => {
      const saved = before.get(name)?.[k];
      if (x.kind !== 'array' || saved === undefined || saved === null) return;
      const now = new Uint8Array(x.data.buffer, x.data.byteOffset, x.data.byteLength);
      if (now.length === saved.length && now.every((b, i) => b === saved[i])) return;
      written.push(name);
      now.set(saved);
    });
  }
  return written;
}

/** What one mode gave: on the input set, on the second set afterwards (same executable), and the inputs it wrote. */
interface ModeRun {
  readonly mode: Mode;
  readonly outcome: Outcome;
  /** The second input set's outcome, run after the first on the same compiler; null without one. */
  readonly again: Outcome | null;
  readonly wrote: readonly string[];
  /** Whether the second run changed the arrays the first returned (results sharing the executable's buffers). */
  readonly changedResults: boolean;
  /** The outcome of the first set run with `out` arrays, when it differs from `outcome`; else null. */
  readonly intoOut: Outcome | null;
}

/**
 * `out` arrays for every array result of a run that gave values (filled with garbage, so an
 * element the run does not write shows); null when it gave none or results share a name.
 */
function outArrays(compiler: Compiler, inputs: InputSet, outcome: Outcome): OutArrays | null {
  if (outcome.k !== 'values') return null;
  const names = compiler.lower(signatureOf(compiler.entry, inputs.values, compiler.file)).results.map((r) => r.name);
  if (new Set(names).size !== names.length) return null;
  const out: Record<string, TypedArray | TypedArray[]> = {};
  outcome.values.forEach((value, k) => {
    const blank = (v: RuntimeValue): TypedArray | null => (v.kind === 'array' ? (v.data.slice() as TypedArray).fill(v.elem === 'bool' ? 7 : 0x5eed) : null);
    if (Array.isArray(value)) {
      const parts = value.map(blank);
      if (parts.every((p) => p !== null)) out[names[k]!] = parts as TypedArray[];
    } else {
      const part = blank(value as RuntimeValue);
      if (part !== null) out[names[k]!] = part;
    }
  });
  return Object.keys(out).length === 0 ? null : out;
}

/** A threaded mode and the Compiler (multicore back end) its runs use. */
interface ThreadedRun {
  readonly mode: ThreadedMode;
  readonly compiler: Compiler;
}

/** A deep copy of an outcome's values. */
function copyOutcome(o: Outcome): Outcome {
  if (o.k !== 'values') return o;
  const copy = (x: RuntimeValue): RuntimeValue => (x.kind === 'array' ? { ...x, shape: [...x.shape], data: x.data.slice() } : { ...x });
  return { k: 'values', values: o.values.map((v) => (Array.isArray(v) ? (v as readonly RuntimeValue[]).map(copy) : copy(v as RuntimeValue))) };
}

/**
 * Every mode's outcome, on `inputs` and then, when given, on `second` (an input set of the same
 * signature, so the same plan and executable). A strategy whose plan equals an earlier
 * strategy's runs the same code, so its outcome is copied rather than compiled and run again
 * (tiny programs often get one plan).
 */
async function runModes(compiler: Compiler, inputs: InputSet, second: InputSet | undefined, threaded: readonly ThreadedRun[]): Promise<ModeRun[]> {
  const runs: ModeRun[] = [];
  const byPlan = new Map<string, ModeRun>();
  const before = inputBytes(inputs.values);
  const beforeSecond = second === undefined ? undefined : inputBytes(second.values);
  const all = [...MODES.map((mode) => ({ mode, compiler, base: mode })), ...threaded.map((t) => ({ mode: modeName(t.mode), compiler: t.compiler, base: t.mode.strategy }))];
  for (const { mode, compiler, base } of all) {
    // A threaded mode runs other code than the same plan's js run: never copied from it.
    const plan = base === 'interpret' ? null : `${mode.includes('@') ? mode : 'js'} ${await planText(compiler, inputs, base)}`;
    const known = plan === null ? undefined : byPlan.get(plan);
    if (known !== undefined) {
      runs.push({ ...known, mode, wrote: [], changedResults: false, intoOut: null });
      continue;
    }
    const returned = await runMode(compiler, inputs, base);
    // Compared as returned: the second run must not write the arrays the first one gave the caller.
    const outcome = copyOutcome(returned);
    const wrote = writtenInputs(inputs.values, before);
    const again = second === undefined ? null : await runMode(compiler, second, base);
    if (second !== undefined) wrote.push(...writtenInputs(second.values, beforeSecond!).map((n) => `${n} (second set)`));
    const changedResults = !sameOutcome(outcome, returned);
    // The first set once more, every array result written into a caller's `out` array.
    const out = outArrays(compiler, inputs, outcome);
    const intoOut = out === null ? null : await runMode(compiler, inputs, base, out);
    const run: ModeRun = { mode, outcome, again, wrote, changedResults, intoOut: intoOut === null || sameOutcome(intoOut, outcome) ? null : intoOut };
    if (plan !== null) byPlan.set(plan, run);
    runs.push(run);
  }
  return runs;
}

function classifyError(err: unknown): Outcome {
  if (err instanceof UserError) {
    const text = err.diagnostics.map((d) => `${d.code} ${d.message}${d.span === undefined ? '' : ` @${d.span.start}-${d.span.end}`}`).join(' | ');
    return { k: 'user', code: err.diagnostics[0]?.code ?? '', text };
  }
  const e = err instanceof Error ? err : new Error(String(err));
  // A validator's error lists what is wrong on the lines after "…is not valid:", each starting
  // with its rule (`[capacity] …`): the first rule is kept, one group per rule.
  const [first, next] = e.message.split('\n');
  const rule = next?.trim().match(/^\[[^\]]*\]/)?.[0];
  return { k: 'internal', text: `${e.name}: ${first}${first!.endsWith(':') && rule !== undefined ? ` ${rule}` : ''}` };
}

/** The groups of modes with equal outcomes, e.g. `interpret,none=E401 | ilp,greedy-down,greedy-up=values`. */
function partition(outcomes: readonly (readonly [Mode, Outcome])[]): string {
  const groups: { modes: Mode[]; outcome: Outcome }[] = [];
  for (const [mode, o] of outcomes) {
    const g = groups.find((x) => sameOutcome(x.outcome, o));
    if (g === undefined) groups.push({ modes: [mode], outcome: o });
    else g.modes.push(mode);
  }
  return groups.map((g) => `${g.modes.join(',')}=${g.outcome.k === 'values' ? 'values' : g.outcome.k === 'user' ? g.outcome.code : 'internal'}`).join(' | ');
}

function evaluatorFinding(verdict: Verdict, reference: Outcome): string | null {
  const ref = reference.k === 'values' ? 'values' : reference.k === 'user' ? reference.code : 'internal';
  switch (verdict.k) {
    case 'unknown':
      return null;
    case 'reject':
      return reference.k === 'user' && !FAULT_CODES.has(reference.code) ? null : `expected a compile-time error, interpreter gives ${ref}`;
    case 'fault':
      if (reference.k === 'user' && (FAULT_CODES.has(reference.code) || verdict.mayReject)) return null;
      return `expected a run-time error, interpreter gives ${ref}`;
    case 'values':
      if (reference.k === 'values') return matchesExpected(reference.values, verdict.values) ? null : 'values differ from the evaluator';
      if (reference.k === 'user' && verdict.mayFault && FAULT_CODES.has(reference.code)) return null;
      if (reference.k === 'user' && verdict.mayReject && !FAULT_CODES.has(reference.code)) return null;
      return `expected values, interpreter gives ${ref}`;
  }
}

/**
 * Runs one program on one input set in every mode, and then on `second` (an input set of the
 * same signature) on the same compiled code; the findings, worst first (none: all agree).
 */
export async function checkProgram(
  prog: Prog,
  inputs: InputSet,
  solver: SolverLoader,
  evaluator = true,
  second?: InputSet,
  threaded: readonly ThreadedMode[] = [],
): Promise<Finding[]> {
  const source = printProg(prog);
  const header = `--- program\n${source}--- inputs\n${inputs.text}\n${second === undefined ? '' : `--- second inputs (run next, same executable)\n${second.text}\n`}`;
  let compiler: Compiler | Outcome;
  let threadedRuns: ThreadedRun[] = [];
  try {
    // The base modes are the js back end on one thread, whatever the machine's default (test:fuzz runs outside vitest's ARRAYFUSE_THREADS=1).
    compiler = new Compiler(source, { fileName: 'fuzz.fuse', solver, verifyEachPass: true, poisonBuffers: true, backend: 'js', threads: 1 });
    threadedRuns = threaded.map((mode) => ({
      mode,
      compiler: new Compiler(source, {
        fileName: 'fuzz.fuse', solver, verifyEachPass: true, poisonBuffers: true, fastMath: mode.fastMath === true,
        ...(mode.threads === 1
          ? { backend: 'js', threads: 1, wasm: mode.wasm === true ? 'on' : 'off' }
          : { backend: 'multicore', threads: mode.threads, parallelThreshold: 0, chunkLength: mode.chunkLength }),
      }),
    }));
  } catch (err) {
    compiler = classifyError(err);
  }
  const failed = compiler;
  const allModes: readonly Mode[] = [...MODES, ...threaded.map(modeName)];
  let runs: readonly ModeRun[];
  try {
    runs =
      compiler instanceof Compiler
        ? await runModes(compiler, inputs, second, threadedRuns)
        : allModes.map((mode) => ({ mode, outcome: failed as Outcome, again: second === undefined ? null : (failed as Outcome), wrote: [], changedResults: false, intoOut: null }));
  } finally {
    // The threaded modes' executables hold module copies in the pool's workers: released here.
    for (const t of threadedRuns) await t.compiler.dispose();
  }
  const outcomes = runs.map((r) => [r.mode, r.outcome] as const);
  const againOutcomes = runs.flatMap((r) => (r.again === null ? [] : [[r.mode, r.again] as const]));
  const shown =
    outcomes.map(([m, o]) => `${m}: ${showOutcome(o)}`).join('\n') +
    (againOutcomes.length === 0 ? '' : `\n--- second run\n${againOutcomes.map(([m, o]) => `${m}: ${showOutcome(o)}`).join('\n')}`);
  const findings: Finding[] = [];
  const internal = [...outcomes, ...againOutcomes].filter(([, o]) => o.k === 'internal');
  if (internal.length > 0) {
    const text = (internal[0]![1] as { text: string }).text;
    findings.push({ cls: 'internal', key: `${[...new Set(internal.map(([m]) => m))].join(',')}: ${normalise(text)}`, detail: `${header}${shown}\n` });
  }
  const reference = outcomes[0]![1];
  const verdict = evaluate(prog, inputs.plain);
  const open = verdict.k === 'unknown' && verdict.unspecified === true;
  if (internal.length === 0 && !open && !outcomes.every(([, o]) => sameOutcome(o, reference))) {
    findings.push({ cls: 'mismatch', key: partition(outcomes), detail: `${header}${shown}\n` });
  }
  if (second !== undefined && internal.length === 0 && againOutcomes.length > 0) {
    const verdictAgain = evaluate(prog, second.plain);
    const openAgain = verdictAgain.k === 'unknown' && verdictAgain.unspecified === true;
    const referenceAgain = againOutcomes[0]![1];
    if (!openAgain && !againOutcomes.every(([, o]) => sameOutcome(o, referenceAgain))) {
      findings.push({ cls: 'mismatch', key: `second run on the same executable: ${partition(againOutcomes)}`, detail: `${header}${shown}\n` });
    }
  }
  const overwritten = runs.filter((r) => r.changedResults);
  if (overwritten.length > 0) {
    findings.push({ cls: 'mismatch', key: `a later run changed the results of an earlier one: ${overwritten.map((r) => r.mode).join(',')}`, detail: `${header}${shown}\n` });
  }
  const outDiffers = runs.filter((r) => r.intoOut !== null);
  if (outDiffers.length > 0) {
    findings.push({
      cls: 'mismatch',
      key: `a run into out arrays differs: ${outDiffers.map((r) => r.mode).join(',')}`,
      detail: `${header}${shown}\n${outDiffers.map((r) => `${r.mode} with out: ${showOutcome(r.intoOut!)}`).join('\n')}\n`,
    });
  }
  const writers = runs.filter((r) => r.wrote.length > 0);
  if (writers.length > 0) {
    findings.push({
      cls: 'mismatch',
      key: `a run wrote its inputs: ${writers.map((r) => r.mode).join(',')}`,
      detail: `${header}${shown}\n${writers.map((r) => `${r.mode} wrote ${r.wrote.join(', ')}`).join('\n')}\n`,
    });
  }
  if (evaluator && reference.k !== 'internal') {
    const wrong = evaluatorFinding(verdict, reference);
    const wide = verdict.k !== 'unknown' && verdict.k !== 'reject' && verdict.mayReject ? ' (an integer literal beyond i32 in a float context)' : '';
    if (wrong !== null) findings.push({ cls: 'evaluator', key: wrong + wide, detail: `${header}${shown}\nevaluator: ${showVerdict(verdict)}\n` });
  }
  return findings;
}
