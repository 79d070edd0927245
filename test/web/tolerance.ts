// How the browser differential tests compare results: integers and booleans exactly; floats
// within a stated tolerance, because the WebGPU back end computes f32 on the device (its own
// rounding of division and math functions, and folds and scans regrouped into chunks and
// workgroup trees):
//
//   elementwise (maps, gathers, …):  |got − want| ≤ 1e-5 · (1 + |want|)
//   reductions (folds, scans, float scatter-adds over n elements whose largest magnitude is M):
//                                    |got − want| ≤ max(1e-5 · (1 + |want|), 1e-5 · n · M)
//
// and in both NaN exactly where NaN is wanted, infinities equal (sign included), a finite value
// where a finite one is wanted. The sign of zero is not compared under a tolerance (-0 and 0
// are within any), except under `exact`, which compares every float bit for bit (NaN equal to
// NaN whatever its payload, -0 unlike 0). Errors compare by their located first line (file,
// line, column, code, message): a fused run that faults hands over to the interpreter, whose
// diagnostic is the run's. Pure functions: a list of differences, empty when all agree.

import type { Outcome } from './gpuPage.js';
import type { PlainArray, PlainValue, WireError } from './page/wire.js';
import { elemOfArray } from './page/wire.js';

export type Tolerance =
  | { readonly kind: 'exact' }
  | { readonly kind: 'elementwise' }
  | { readonly kind: 'reduction'; readonly n: number; readonly maxAbs: number };

export const exact: Tolerance = { kind: 'exact' };
export const elementwise: Tolerance = { kind: 'elementwise' };

/** The reduction tolerance for folds and scans over `n` elements of largest magnitude `maxAbs`. */
export function reduction(n: number, maxAbs: number): Tolerance {
  return { kind: 'reduction', n, maxAbs };
}

/** The relative factor of both tolerances. */
export const relative = 1e-5;

/** How far a float may be from `want` under `tol` (finite `want`). */
export function allowance(want: number, tol: Tolerance): number {
  switch (tol.kind) {
    case 'exact':
      return 0;
    case 'elementwise':
      return relative * (1 + Math.abs(want));
    case 'reduction':
      return Math.max(relative * (1 + Math.abs(want)), relative * tol.n * tol.maxAbs);
    default: {
      const other: never = tol;
      throw new TypeError(`unknown tolerance ${JSON.stringify(other)}`);
    }
  }
}

/** Whether the float `got` is `want` within `tol`. */
export function closeFloat(got: number, want: number, tol: Tolerance): boolean {
  if (Number.isNaN(want) || Number.isNaN(got)) return Number.isNaN(want) && Number.isNaN(got);
  if (tol.kind === 'exact') return Object.is(got, want);
  if (!Number.isFinite(want) || !Number.isFinite(got)) return got === want;
  return Math.abs(got - want) <= allowance(want, tol);
}

function show(x: number): string {
  return Object.is(x, -0) ? '-0' : String(x);
}

function isArray(v: PlainValue): v is PlainArray {
  return typeof v === 'object' && !Array.isArray(v);
}

/** At most this many element differences are listed per array (then how many more). */
const listed = 4;

/**
 * Which bare numbers (scalar results, whole-array folds: the API gives them as numbers, without
 * their type) are floats, compared under the tolerance; the others are integers or booleans and
 * compare exactly. `true`: all of them; `false`: none; a set: the results so named (a tuple's
 * component k as `name[k]`).
 */
export type FloatScalars = boolean | ReadonlySet<string>;

function isFloatScalar(floats: FloatScalars, key: string): boolean {
  return typeof floats === 'boolean' ? floats : floats.has(key);
}

/** Differences between two values, each prefixed with `path`; `key` names the value for `floats`. */
export function valueDifferences(got: PlainValue, want: PlainValue, tol: Tolerance, floats: FloatScalars, key: string, path: string): string[] {
  if (typeof want === 'number' || typeof want === 'boolean') {
    if (typeof got !== typeof want) return [`${path}: got ${describeKind(got)}, want a ${typeof want}`];
    if (typeof want === 'boolean') return got === want ? [] : [`${path}: got ${String(got)}, want ${String(want)}`];
    const same = isFloatScalar(floats, key) ? closeFloat(got as number, want, tol) : Object.is(got, want);
    return same ? [] : [`${path}: got ${show(got as number)}, want ${show(want)}`];
  }
  if (Array.isArray(want)) {
    const items = want as readonly PlainValue[];
    if (!Array.isArray(got) || (got as readonly PlainValue[]).length !== items.length) return [`${path}: got ${describeKind(got)}, want a tuple of ${items.length}`];
    return items.flatMap((w, k) => valueDifferences((got as readonly PlainValue[])[k]!, w, tol, floats, `${key}[${k}]`, `${path}[${k}]`));
  }
  const w = want as PlainArray;
  if (!isArray(got)) return [`${path}: got ${describeKind(got)}, want an array`];
  const gotElem = elemOfArray(got.data);
  const wantElem = elemOfArray(w.data);
  if (gotElem !== wantElem) return [`${path}: got element type ${gotElem}, want ${wantElem}`];
  if (got.shape.join(',') !== w.shape.join(',')) return [`${path}: got shape [${got.shape.join(', ')}], want [${w.shape.join(', ')}]`];
  const float = wantElem === 'f32' || wantElem === 'f64';
  const wrong: number[] = [];
  for (let k = 0; k < w.data.length; k++) {
    const same = float ? closeFloat(got.data[k]!, w.data[k]!, tol) : got.data[k] === w.data[k];
    if (!same) wrong.push(k);
  }
  if (wrong.length === 0) return [];
  const shown = wrong.slice(0, listed).map((k) => `[${k}] got ${show(got.data[k]!)}, want ${show(w.data[k]!)}`);
  const more = wrong.length > listed ? `, … (${wrong.length} elements differ of ${w.data.length})` : '';
  return [`${path} (${wantElem}[${w.shape.join(', ')}], ${float ? tol.kind : 'exact'}): ${shown.join('; ')}${more}`];
}

function describeKind(v: PlainValue): string {
  if (typeof v === 'number') return `the number ${show(v)}`;
  if (typeof v === 'boolean') return `the boolean ${String(v)}`;
  if (Array.isArray(v)) return `a tuple of ${(v as readonly PlainValue[]).length}`;
  return `an array of ${elemOfArray((v as PlainArray).data)}`;
}

/** Differences between named results (names and their order included). */
export function resultsDifferences(
  got: Readonly<Record<string, PlainValue>>,
  want: Readonly<Record<string, PlainValue>>,
  tol: Tolerance,
  floats: FloatScalars,
  path: string,
): string[] {
  const gotNames = Object.keys(got);
  const wantNames = Object.keys(want);
  if (gotNames.join(',') !== wantNames.join(',')) return [`${path}: got results [${gotNames.join(', ')}], want [${wantNames.join(', ')}]`];
  return wantNames.flatMap((name) => valueDifferences(got[name]!, want[name]!, tol, floats, name, `${path}.${name}`));
}

function showError(e: WireError): string {
  return e.located ?? `${e.name}: ${e.message}`;
}

/**
 * Differences between two outcomes: both results (compared under `tol`), or both errors with
 * the same located diagnostic. A fused run's `fallback` (the interpreter decided) is a
 * difference unless `fallbackAllowed`.
 */
export function outcomeDifferences(got: Outcome, want: Outcome, tol: Tolerance, floats: FloatScalars, path: string, fallbackAllowed = false): string[] {
  if (got.ok && want.ok) {
    const fallback = got.fallback !== undefined && !fallbackAllowed ? [`${path}: the fused code stopped at a fault and the interpreter decided: ${showError(got.fallback)}`] : [];
    return [...fallback, ...resultsDifferences(got.results, want.results, tol, floats, path)];
  }
  if (!got.ok && !want.ok) return showError(got.error) === showError(want.error) ? [] : [`${path}: got error ${showError(got.error)}, want ${showError(want.error)}`];
  if (got.ok) return [`${path}: got results, want error ${showError((want as { error: WireError }).error)}`];
  return [`${path}: got error ${showError(got.error)}, want results`];
}
