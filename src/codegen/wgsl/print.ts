// Printing WGSL tokens the translator makes itself: identifiers (re-checked against a safe
// pattern before they reach the code) and numbers (re-printed from their values, never from
// source text).

import { I32_MIN, refuse } from './types.js';

/** A generator-made JavaScript name that may be used in a WGSL identifier (after a prefix). */
const safeName = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** The WGSL identifier of JavaScript local or parameter `name`: `v_name`, or a refusal. */
export function localName(name: string): string {
  if (!safeName.test(name)) return refuse(`the name ${JSON.stringify(name).slice(0, 40)} is not one the translator prints`);
  return `v_${name}`;
}

/** The storage buffer and length variable of array parameter `name`. */
export function bufferName(name: string): string {
  return `b_${localName(name).slice(2)}`;
}
export function lengthName(name: string): string {
  return `n_${localName(name).slice(2)}`;
}

/** An i32 literal (−2^31 has no literal of its own: it is written as an expression). */
export function i32Literal(v: number): string {
  if (!Number.isInteger(v) || v < I32_MIN || v > 0x7fffffff) throw new Error(`not an i32: ${v}`);
  if (v === I32_MIN) return '(-2147483647i - 1i)';
  return v < 0 ? `(${v}i)` : `${v}i`;
}

export function u32Literal(v: number): string {
  if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new Error(`not a u32: ${v}`);
  return `${v}u`;
}

/**
 * An f32 literal of fround(v), finite: the shortest decimal that reads back as the same double,
 * which an f32 parser rounds to the same f32 (the double is that f32 exactly). NaN and ±inf are
 * not literals (library.ts); the caller prints them.
 */
export function f32Literal(v: number): string {
  const f = Math.fround(v);
  if (!Number.isFinite(f)) throw new Error(`not a finite f32: ${v}`);
  if (Object.is(f, -0)) return '(-0.0f)';
  const text = String(Math.abs(f));
  if (!/^[0-9]+(\.[0-9]+)?(e[+-][0-9]+)?$/.test(text)) throw new Error(`unexpected number text ${text}`);
  return f < 0 ? `(-${text}f)` : `${text}f`;
}
