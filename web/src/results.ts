// Results for the page: a short description of each (type, shape, first elements), and the
// check that the fused run's results are the interpreter's: bit for bit on the CPU back ends,
// within the f32 tolerance on WebGPU (its device rounds and regroups differently). Pure functions.

import type { Output } from '../../src/index.js';

type TypedArray = Float64Array | Float32Array | Int32Array | Uint32Array | Uint8Array | Int8Array;

/** The element type of a result's typed array, by the arrays `run` returns (README, "The TypeScript API"). */
export function elemName(data: TypedArray): string {
  if (data instanceof Float64Array) return 'f64';
  if (data instanceof Float32Array) return 'f32';
  if (data instanceof Int32Array) return 'i32';
  if (data instanceof Uint32Array) return 'u32';
  if (data instanceof Int8Array) return 'i8';
  // bool and u8 results are both Uint8Arrays; shown as bool, as before u8 existed.
  return 'bool';
}

function numberText(x: number): string {
  return Object.is(x, -0) ? '-0' : String(x);
}

/** `f64[100, 3] = [1.5, 2, …]`: the type and shape, then the first `limit` elements. */
export function describeOutput(output: Output, limit = 8): string {
  if (typeof output === 'number') return numberText(output);
  if (Array.isArray(output)) return `(${(output as readonly Output[]).map((o) => describeOutput(o, limit)).join(', ')})`;
  const { data, shape } = output as Exclude<Output, number | readonly Output[]>;
  const shown = Array.from(data.subarray(0, limit), (x) => (data instanceof Uint8Array ? (x === 0 ? 'False' : 'True') : numberText(x)));
  const more = data.length > limit ? `, … (${data.length} elements)` : '';
  return `${elemName(data)}[${shape.join(', ')}] = [${shown.join(', ')}${more}]`;
}

/** Equal bit for bit, except that every NaN equals every NaN (payloads are not portable): -0 and +0 differ. */
function sameNumber(a: number, b: number): boolean {
  return Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));
}

/**
 * The WebGPU agreement: |got − want| ≤ 1e-5 · (1 + |want|) for floats (test/web/tolerance.ts
 * states the same for the differential tests), NaN where NaN, infinities equal; the sign of
 * zero is not compared.
 */
export const relativeTolerance = 1e-5;

function closeNumber(got: number, want: number): boolean {
  if (Number.isNaN(got) || Number.isNaN(want)) return Number.isNaN(got) && Number.isNaN(want);
  if (!Number.isFinite(got) || !Number.isFinite(want)) return got === want;
  return Math.abs(got - want) <= relativeTolerance * (1 + Math.abs(want));
}

/** Whether two results are the same: kind, element type, shape and every element (`sameNumber`). */
export function sameOutput(a: Output, b: Output): boolean {
  return outputsMatch(a, b, sameNumber);
}

/**
 * Whether `got` is `want` within the WebGPU tolerance: the same kind, element type and shape,
 * integers and booleans equal, floats `closeNumber`. A bare number (a scalar or a whole-array
 * fold, whose type the API does not say) is compared as a float.
 */
export function closeOutput(got: Output, want: Output): boolean {
  return outputsMatch(got, want, closeNumber);
}

/** Kind, element type, shape, and every element: floats (and bare numbers) by `floats`, integers and booleans equal. */
function outputsMatch(a: Output, b: Output, floats: (x: number, y: number) => boolean): boolean {
  if (typeof a === 'number' || typeof b === 'number') return typeof a === 'number' && typeof b === 'number' && floats(a, b);
  if (Array.isArray(a) || Array.isArray(b)) {
    const x = a as readonly Output[];
    const y = b as readonly Output[];
    return Array.isArray(a) && Array.isArray(b) && x.length === y.length && x.every((o, k) => outputsMatch(o, y[k]!, floats));
  }
  const x = a as Exclude<Output, number | readonly Output[]>;
  const y = b as Exclude<Output, number | readonly Output[]>;
  if (elemName(x.data) !== elemName(y.data) || x.shape.length !== y.shape.length || x.data.length !== y.data.length) return false;
  if (!x.shape.every((d, k) => d === y.shape[k])) return false;
  const compare = x.data instanceof Float32Array || x.data instanceof Float64Array ? floats : sameNumber;
  for (let k = 0; k < x.data.length; k++) if (!compare(x.data[k]!, y.data[k]!)) return false;
  return true;
}

/** Whether two runs' results agree: the same names, each `sameOutput`. */
export function sameResults(a: Readonly<Record<string, Output>>, b: Readonly<Record<string, Output>>): boolean {
  return resultsMatch(a, b, sameOutput);
}

/** Whether a WebGPU run's results agree with the interpreter's: the same names, each `closeOutput`. */
export function closeResults(got: Readonly<Record<string, Output>>, want: Readonly<Record<string, Output>>): boolean {
  return resultsMatch(got, want, closeOutput);
}

function resultsMatch(a: Readonly<Record<string, Output>>, b: Readonly<Record<string, Output>>, match: (x: Output, y: Output) => boolean): boolean {
  const names = Object.keys(a);
  return names.length === Object.keys(b).length && names.every((n) => Object.prototype.hasOwnProperty.call(b, n) && match(a[n]!, b[n]!));
}

/**
 * What the page says about the agreement: `yes` when bit for bit; on WebGPU, where floats are
 * compared within the tolerance, `yes, within the f32 tolerance` when only that holds; else `no`.
 */
export function agreement(got: Readonly<Record<string, Output>>, want: Readonly<Record<string, Output>>, withinTolerance: boolean): 'yes' | 'yes, within the f32 tolerance' | 'no' {
  if (sameResults(got, want)) return 'yes';
  return withinTolerance && closeResults(got, want) ? 'yes, within the f32 tolerance' : 'no';
}
