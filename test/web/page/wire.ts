// What crosses between the Node side of a browser test and its page: cases going in, outcomes
// coming back, as plain JSON-safe data. Playwright would carry typed arrays and odd numbers in
// its own way; this format says exactly what arrives: every array keeps its element type and
// shape, and every number keeps its value, NaN, ±Infinity and -0 included (spelled as strings,
// since JSON has none of them). Pure functions, no DOM and no Node: both sides import them.

import type { AdapterSummary } from '../../../web/src/gpu.js';

/** Element types of arrays as the API's typed arrays carry them (README, "The TypeScript API"). */
export type ElemName = 'f64' | 'f32' | 'i32' | 'u32' | 'i8' | 'bool';

export const elemNames: readonly ElemName[] = ['f64', 'f32', 'i32', 'u32', 'i8', 'bool'];

// A Uint8Array travels as bool (a u8 array's data is one too: the page's programs have no u8).
export type TypedArray = Float64Array | Float32Array | Int32Array | Uint32Array | Uint8Array | Int8Array;

/** A number as JSON can carry it: the values JSON has no literal for are strings. */
export type WireNumber = number | 'NaN' | 'Infinity' | '-Infinity' | '-0';

export interface WireArray {
  readonly kind: 'array';
  readonly elem: ElemName;
  readonly shape: readonly number[];
  /** Row-major elements; a bool array holds 0 and 1. */
  readonly data: readonly WireNumber[];
}

/** An input or a result: a number, a boolean, an array, or a tuple (a list of them). */
export type WireValue =
  | { readonly kind: 'number'; readonly value: WireNumber }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | WireArray
  | { readonly kind: 'tuple'; readonly items: readonly WireValue[] };

/** An array as the API takes and gives it. */
export interface PlainArray {
  readonly data: TypedArray;
  readonly shape: readonly number[];
}

/** A value as the API takes and gives it (a tuple is a list). */
export type PlainValue = number | boolean | PlainArray | readonly PlainValue[];

/** Named values in order; a list of pairs rather than an object, so a name like `__proto__` is plain data. */
export type WireRecord = readonly (readonly [string, WireValue])[];

/** How a case is compiled, beyond the back end (which the batch names). */
export interface CaseOptions {
  readonly strategy?: 'ilp' | 'greedy-down' | 'greedy-up' | 'none';
  readonly fastMath?: boolean;
  readonly entry?: string;
}

export interface WireCase {
  /** Shown in failures. */
  readonly name: string;
  readonly source: string;
  /** The file name its diagnostics show (default `case.fuse`). */
  readonly fileName?: string;
  readonly inputs: WireRecord;
  readonly options?: CaseOptions;
  /**
   * Inputs given as another input's very object (`{ ys: 'xs' }`: ys is xs), for aliasing
   * tests: decoded separately, two inputs never share memory.
   */
  readonly aliases?: Readonly<Record<string, string>>;
}

/** An error a run raised: a UserError's first diagnostic (code, message, and its located first line), or another error's name and message. */
export interface WireError {
  readonly name: string;
  readonly code?: string;
  readonly message: string;
  /** `file:line:col: error[CODE]: message`, or `error[CODE]: message` for a diagnostic with no place. */
  readonly located?: string;
}

export type WireOutcome =
  | {
      readonly ok: true;
      readonly results: WireRecord;
      /** Set when the fused code stopped at a fault nobody observes and the interpreter's results were returned. */
      readonly fallback?: WireError;
    }
  | { readonly ok: false; readonly error: WireError };

/** What the harness page puts on its window as `arrayfuseHarness` (test/web/page/harness.ts). */
export interface Harness {
  /** The page's WebGPU adapter, described (web/src/gpu.ts); null without one. */
  readonly adapter: Promise<AdapterSummary | null>;
  /**
   * Compiles each case for `backend` (a registered back end's name: the page checks it, as
   * `compile` does) and runs it; one after another, a case's failure being its outcome, never
   * the batch's.
   */
  runCases(backend: string, cases: readonly WireCase[]): Promise<WireCaseResult[]>;
}

/** What the webgpu back end's executable says about the case's last run (src/runtime/webgpu/backend.ts). */
export interface DeviceReport {
  /** `vendor architecture` of the adapter the kernels ran on. */
  readonly adapter: string;
  /** Kernels the translator or the device refused, which run their JavaScript on the host: `name: reason`. */
  readonly hostKernels: readonly string[];
  /** Calls that ran on the host, by function name (refused kernels, aliased buffers). */
  readonly hostCalls: readonly (readonly [string, number])[];
  /** Runs redone on the js back end after a device fault. */
  readonly cpuReruns: number;
  /** Command submissions since the program was compiled (one per read back). */
  readonly submissions: number;
}

export interface WireCaseResult {
  readonly name: string;
  /** The back end the compiled program says it ran on (`FuseProgram.backend`); absent when compiling failed. */
  readonly backend?: string;
  /** The fused run on the back end under test. */
  readonly fused: WireOutcome;
  /**
   * A second fused run of the same compiled program on the same inputs (device buffers reused);
   * `same` when it is exactly the first (the usual case: not sent twice).
   */
  readonly fusedAgain: WireOutcome | 'same';
  /** The reference interpreter (`interpret: true`). */
  readonly reference: WireOutcome;
  /** Whether the inputs were unchanged after the fused runs (a run never writes its inputs). */
  readonly inputsIntact: boolean;
  /** The webgpu back end's view of the case, after both fused runs (absent on other back ends, or when compiling failed). */
  readonly device?: DeviceReport;
  /** Milliseconds the case took in the page, compile and every run included. */
  readonly ms: number;
}

export function encodeNumber(x: number): WireNumber {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (Object.is(x, -0)) return '-0';
  return x;
}

export function decodeNumber(x: WireNumber): number {
  switch (x) {
    case 'NaN':
      return NaN;
    case 'Infinity':
      return Infinity;
    case '-Infinity':
      return -Infinity;
    case '-0':
      return -0;
    default:
      if (typeof x !== 'number') throw new TypeError(`wire: ${JSON.stringify(x)} is not a number`);
      return x;
  }
}

export function elemOfArray(data: TypedArray): ElemName {
  if (data instanceof Float64Array) return 'f64';
  if (data instanceof Float32Array) return 'f32';
  if (data instanceof Int32Array) return 'i32';
  if (data instanceof Uint32Array) return 'u32';
  if (data instanceof Uint8Array) return 'bool';
  if (data instanceof Int8Array) return 'i8';
  throw new TypeError('wire: not one of the API typed arrays');
}

/** A new typed array of `elem` holding `values` (converted as the typed array converts). */
export function typedArray(elem: ElemName, values: ArrayLike<number>): TypedArray {
  switch (elem) {
    case 'f64':
      return Float64Array.from(values);
    case 'f32':
      return Float32Array.from(values);
    case 'i32':
      return Int32Array.from(values);
    case 'u32':
      return Uint32Array.from(values);
    case 'i8':
      return Int8Array.from(values);
    case 'bool':
      return Uint8Array.from(values);
    default: {
      const other: never = elem;
      throw new TypeError(`wire: unknown element type ${JSON.stringify(other)}`);
    }
  }
}

export function encodeArray(data: TypedArray, shape: readonly number[]): WireArray {
  const values: WireNumber[] = new Array<WireNumber>(data.length);
  for (let k = 0; k < data.length; k++) values[k] = encodeNumber(data[k]!);
  return { kind: 'array', elem: elemOfArray(data), shape: [...shape], data: values };
}

function isPlainArray(x: unknown): x is PlainArray {
  return typeof x === 'object' && x !== null && !Array.isArray(x) && 'data' in x && 'shape' in x;
}

export function encodeValue(x: PlainValue): WireValue {
  if (typeof x === 'number') return { kind: 'number', value: encodeNumber(x) };
  if (typeof x === 'boolean') return { kind: 'boolean', value: x };
  if (Array.isArray(x)) return { kind: 'tuple', items: (x as readonly PlainValue[]).map(encodeValue) };
  if (isPlainArray(x)) return encodeArray(x.data, x.shape);
  throw new TypeError('wire: a value is a number, a boolean, { data, shape } or a list of values');
}

export function decodeValue(x: WireValue): PlainValue {
  switch (x.kind) {
    case 'number':
      return decodeNumber(x.value);
    case 'boolean':
      return x.value;
    case 'array': {
      const size = x.shape.reduce((a, b) => a * b, 1);
      if (x.data.length !== size) throw new TypeError(`wire: shape [${x.shape.join(', ')}] with ${x.data.length} elements`);
      return { data: typedArray(x.elem, x.data.map(decodeNumber)), shape: [...x.shape] };
    }
    case 'tuple':
      return x.items.map(decodeValue);
    default: {
      const other: never = x;
      throw new TypeError(`wire: not a value: ${JSON.stringify(other)}`);
    }
  }
}

export function encodeRecord(values: Readonly<Record<string, PlainValue>>): WireRecord {
  return Object.keys(values).map((name) => [name, encodeValue(values[name]!)] as const);
}

/** Named values as an object whose own properties are the names (`__proto__` too: Object.fromEntries defines, never assigns). */
export function decodeRecord(record: WireRecord): Record<string, PlainValue> {
  return Object.fromEntries(record.map(([name, value]) => [name, decodeValue(value)]));
}

/** Whether two wire values are the same, element types and shapes included (NaN equals NaN: both are 'NaN'). */
export function sameWire(a: WireValue, b: WireValue): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
