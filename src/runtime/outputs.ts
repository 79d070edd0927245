// Caller-owned result arrays (`out`) and donated inputs (`donate`): the checks made before a
// run (E420, E421, E423, E424, E425) and the delivery of results after it (E422).
//
// Every path delivers through `deliverResults` — a fused run, `interpret: true`, the
// interpreter's fallback after a fused fault — so each honours `out` the same way: a result
// with an `out` array is returned *as* that array (written by the back end directly, or copied
// into it here when the back end or the interpreter computed it elsewhere), and a result
// without one is an array the caller owns alone: never one of the caller's inputs (unless
// donated) and never shared with another result. Copies are made only where memory is shared,
// so a fused run whose results are fresh pays one identity check per result, nothing more.

import { userError, type SourceFile, type Span } from '../diagnostics/index.js';
import type { Interface, Program, ScalarType } from '../ir/types.js';
import type { TypedArray } from '../ir/scalarOps.js';
import { componentsOf, sizeOf, type InterfaceValue, type RuntimeValue } from '../ir/values.js';

/** An `out` array for one array result (or one component of a tuple result): data, and its shape if given. */
export type OutArray = TypedArray | { readonly data: TypedArray; readonly shape?: readonly number[] };

/** `out` as the caller gives it: by result name, one array, or one per component of a tuple result. */
export type OutArrays = Readonly<Record<string, OutArray | readonly OutArray[]>>;

/** One checked `out` array, for one flat result component. */
export interface OutTarget {
  readonly data: TypedArray;
  /** The shape the caller gave with it; null when it gave the typed array alone (its length is checked). */
  readonly shape: readonly number[] | null;
  /** How diagnostics name it: `out 'r'`, `out 'r' (component 1)`. */
  readonly what: string;
}

/** Flat `out` targets, one per flat result component (undefined: a fresh array). */
export type OutTargets = readonly (OutTarget | undefined)[];

/** The typed array class, by name, that holds each element type (what an `out` or an input must be). */
export const typedArrayName: Readonly<Record<ScalarType, string>> = {
  f64: 'Float64Array',
  f32: 'Float32Array',
  i32: 'Int32Array',
  u32: 'Uint32Array',
  u8: 'Uint8Array',
  i8: 'Int8Array',
  bool: 'Uint8Array',
};

/**
 * The element type a typed array stores, or null for anything else (a plain array, a
 * Uint8ClampedArray…). A Uint8Array stores bool and u8 alike: it is a u8 array where `expected`
 * is u8, else a bool one.
 */
export function elemOfData(data: unknown, expected?: ScalarType): ScalarType | null {
  if (data instanceof Float64Array) return 'f64';
  if (data instanceof Float32Array) return 'f32';
  if (data instanceof Int32Array) return 'i32';
  if (data instanceof Uint32Array) return 'u32';
  if (data instanceof Int8Array) return 'i8';
  if (data instanceof Uint8Array) return expected === 'u8' ? 'u8' : 'bool';
  return null;
}

/**
 * Whether two typed arrays share memory: views of the same buffer (ArrayBuffer or
 * SharedArrayBuffer) whose byte ranges overlap. Empty views share nothing.
 */
export function sharesMemory(a: TypedArray, b: TypedArray): boolean {
  if (a.buffer !== b.buffer || a.byteLength === 0 || b.byteLength === 0) return false;
  return a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength;
}

function isOutArrayList(x: OutArray | readonly OutArray[]): x is readonly OutArray[] {
  return Array.isArray(x);
}

function arrayResults(program: Program): string {
  const names = program.results.filter((r) => r.components.every((c) => c.kind === 'array')).map((r) => `'${r.name}'`);
  return names.length === 0 ? `'${program.name}' returns no arrays` : `the array results: ${names.join(', ')}`;
}

/** The flat index of each result's first component. */
function firstComponents(program: Program): number[] {
  const starts: number[] = [];
  let next = 0;
  for (const r of program.results) {
    starts.push(next);
    next += r.components.length;
  }
  return starts;
}

function outTarget(x: OutArray, what: string, elem: ScalarType, where: { file?: SourceFile; span?: Span }): OutTarget {
  // `x` comes from JavaScript callers too: null, undefined or another view (a DataView, a
  // Uint8ClampedArray) must be E421 naming what was given, not a TypeError reading `.data`.
  const holder = typeof x === 'object' && x !== null && !ArrayBuffer.isView(x);
  const data: unknown = holder ? (x as { readonly data?: unknown }).data : x;
  const given = elemOfData(data, elem);
  if (given === null) {
    throw userError('E421', `${what}: expected a ${typedArrayName[elem]} (the result is ${elem}), got ${describe(holder && data !== undefined ? data : x)}`, where);
  }
  if (given !== elem) {
    throw userError('E421', `${what}: the result is ${elem}, so out must be a ${typedArrayName[elem]}, got a ${typedArrayName[given]}`, where);
  }
  const typed = data as TypedArray;
  const shape = typed === x ? null : ((x as { readonly shape?: readonly number[] }).shape ?? null);
  if (shape !== null && (!Array.isArray(shape) || !shape.every((d) => Number.isInteger(d) && d >= 0) || sizeOf(shape) !== typed.length)) {
    throw userError('E422', `${what}: shape [${String(shape)}] does not match its ${typed.length} elements`, where);
  }
  return { data: typed, shape: shape === null ? null : [...shape], what };
}

function describe(x: unknown): string {
  if (x === null || x === undefined) return String(x);
  if (typeof x === 'object') return `a ${(x as object).constructor?.name ?? 'object'}`;
  return `a ${typeof x}`;
}

/**
 * Checks `out` against the program's results and the inputs, before anything runs: each name
 * is an array result (E420), each array has the result's element type (E421) and, if given
 * with a shape, a shape that fits its data (E422), and no `out` array shares memory with an
 * input or with another `out` array (E423; E425 when that input is donated). Sizes are checked when the results are delivered
 * (`deliverResults`), or by the back end when it computes them. Returns the targets by flat
 * result component.
 */
export function outTargets(
  program: Program,
  out: OutArrays,
  inputs: readonly InterfaceValue[],
  donated: readonly string[] | undefined,
  file: SourceFile | undefined,
  entrySpan?: Span,
): OutTargets {
  const targets: (OutTarget | undefined)[] = [];
  const starts = firstComponents(program);
  for (const r of program.results) for (let i = 0; i < r.components.length; i++) targets.push(undefined);
  for (const name of Object.keys(out)) {
    const k = program.results.findIndex((r) => r.name === name);
    if (k < 0) {
      throw userError('E420', `out names '${name}', which is not a result of '${program.name}' (${arrayResults(program)})`, { file, span: entrySpan });
    }
    const result = program.results[k]!;
    const where = { file, span: result.span ?? entrySpan };
    if (!result.components.every((c) => c.kind === 'array')) {
      throw userError('E420', `out names '${name}', a scalar result: only array results can be written into an out array (${arrayResults(program)})`, where);
    }
    const given = out[name]!;
    if (result.components.length === 1 && isOutArrayList(given)) {
      throw userError('E421', `out '${name}': expected a ${typedArrayName[result.components[0]!.elem]} (the result is ${result.components[0]!.elem}), got an Array`, where);
    }
    const parts: readonly OutArray[] = result.components.length === 1 ? [given as OutArray] : isOutArrayList(given) ? given : [];
    if (parts.length !== result.components.length) {
      const wanted = result.components.length === 1 ? 'one typed array (or { data, shape })' : `a list of ${result.components.length} typed arrays, one per tuple component`;
      throw userError('E420', `out '${name}': the result ${shapeOfResult(result)}, so out must be ${wanted}`, where);
    }
    parts.forEach((p, i) => {
      const what = parts.length === 1 ? `out '${name}'` : `out '${name}' (component ${i})`;
      targets[starts[k]! + i] = outTarget(p, what, result.components[i]!.elem, where);
    });
  }
  const given = targets.filter((t): t is OutTarget => t !== undefined);
  given.forEach((t, j) => {
    for (const other of given.slice(0, j)) {
      if (sharesMemory(t.data, other.data)) throw userError('E423', `${t.what} shares memory with ${other.what}`, { file, span: entrySpan });
    }
    program.params.forEach((p, i) => {
      const shared = componentsOf(inputs[i]!).find((v) => v.kind === 'array' && sharesMemory(t.data, v.data));
      if (shared === undefined) return;
      if (donated?.includes(p.name) === true) {
        throw userError('E425', `the donated input '${p.name}' shares memory with ${t.what}`, { file, span: p.span ?? entrySpan });
      }
      throw userError('E423', `${t.what} shares memory with the input '${p.name}': a run never writes its inputs`, { file, span: p.span ?? entrySpan });
    });
  });
  return targets;
}

function shapeOfResult(result: Interface): string {
  return result.components.length === 1 ? 'is one array' : `is a tuple of ${result.components.length} arrays`;
}

/**
 * Checks a `donate` list: every name is an entry parameter given an array (E424), and no
 * donated input shares memory with another input or an `out` array (E425) — an update writing
 * it in place would change what the other one reads or receives.
 */
export function checkDonated(
  params: readonly { readonly name: string; readonly span?: Span }[],
  donated: readonly string[],
  inputs: readonly InterfaceValue[],
  targets: OutTargets,
  file: SourceFile | undefined,
  entrySpan?: Span,
): void {
  const names = params.map((p) => p.name);
  for (const name of donated) {
    const i = names.indexOf(name);
    if (i < 0) {
      throw userError('E424', `donate names '${name}', which is not a parameter (the parameters: ${names.join(', ') || 'none'})`, { file, span: entrySpan });
    }
    const values = componentsOf(inputs[i]!);
    if (values.some((v) => v.kind === 'scalar')) {
      throw userError('E424', `donate names '${name}', a scalar parameter: only array inputs have a buffer to donate`, { file, span: params[i]!.span ?? entrySpan });
    }
    const where = { file, span: params[i]!.span ?? entrySpan };
    for (const [c, v] of values.entries()) {
      const data = (v as Extract<RuntimeValue, { kind: 'array' }>).data;
      const what = values.length === 1 ? `the donated input '${name}'` : `the donated input '${name}' (component ${c})`;
      for (const [j, other] of inputs.entries()) {
        componentsOf(other).forEach((o, oc) => {
          if (o.kind !== 'array' || (j === i && oc === c)) return;
          if (sharesMemory(data, o.data)) throw userError('E425', `${what} shares memory with the input '${names[j]!}'${componentsOf(other).length === 1 ? '' : ` (component ${oc})`}`, where);
        });
      }
      for (const t of targets) {
        if (t !== undefined && sharesMemory(data, t.data)) throw userError('E425', `${what} shares memory with ${t.what}`, where);
      }
    }
  }
}

/**
 * The results as the caller receives them: each one with an `out` array is that array (the
 * back end's result copied into it unless it is already there; its size checked, E422), and
 * each without is memory the caller owns alone — a result that shares memory with a
 * non-donated input or with an earlier result is copied. `donated[i]` says whether input i was
 * donated: a result may then be the donated buffer itself (the caller gave it away).
 */
export function deliverResults(
  program: Program,
  results: readonly InterfaceValue[],
  targets: OutTargets | undefined,
  inputs: readonly InterfaceValue[],
  donated: readonly boolean[] | undefined,
  file: SourceFile | undefined,
): InterfaceValue[] {
  const delivered: TypedArray[] = [];
  let flat = 0;
  return results.map((value, k) => {
    const parts = componentsOf(value).map((v): RuntimeValue => {
      const target = targets?.[flat++];
      if (v.kind === 'scalar') return v;
      if (target !== undefined) {
        // The back end checked the length of an out it wrote itself; a shape given with it is checked here.
        const fits = target.shape === null ? target.data.length === v.data.length : sameShape(target.shape, v.shape);
        if (!fits) {
          const given = target.shape === null ? `${target.data.length} elements` : `shape [${target.shape.join(', ')}]`;
          throw userError('E422', `${target.what}: the result has shape [${v.shape.join(', ')}] (${v.data.length} elements); the out array has ${given}`, {
            file,
            span: program.results[k]!.span,
          });
        }
        if (v.data !== target.data) target.data.set(v.data);
        delivered.push(target.data);
        return { kind: 'array', elem: v.elem, shape: v.shape, data: target.data };
      }
      const data = sharedWithCaller(v.data, inputs, donated) || delivered.some((d) => sharesMemory(d, v.data)) ? v.data.slice() : v.data;
      delivered.push(data);
      return data === v.data ? v : { kind: 'array', elem: v.elem, shape: v.shape, data };
    });
    return Array.isArray(value) ? parts : parts[0]!;
  });
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** Whether `data` shares memory with an input the caller kept (did not donate). */
function sharedWithCaller(data: TypedArray, inputs: readonly InterfaceValue[], donated: readonly boolean[] | undefined): boolean {
  for (let i = 0; i < inputs.length; i++) {
    if (donated?.[i] === true) continue;
    const input = inputs[i]!;
    if (Array.isArray(input)) {
      if ((input as readonly RuntimeValue[]).some((c) => c.kind === 'array' && sharesMemory(c.data, data))) return true;
    } else if ((input as RuntimeValue).kind === 'array' && sharesMemory((input as Extract<RuntimeValue, { kind: 'array' }>).data, data)) {
      return true;
    }
  }
  return false;
}
