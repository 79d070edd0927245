// The f32 tolerance by which the WebGPU back end's results are compared with a reference
// (docs/EXECUTION.md "WebGPU"): integers and bools exactly; f32 elements within 2^-12 × (1 + the
// largest magnitude in the result), which is loose enough for a fold or scan over 10^5 elements
// regrouped into chunks and for transcendental functions a few ulps off, and far tighter than
// any wrong element (a wrong index or a lost update is off by the data's own size); NaN where
// NaN, infinities and their signs equal. Without vitest, so that bench/webgpu checks its outputs
// by the same rule as the tests (compare.ts).

import type { Output } from '../../src/index.js';

export const F32_TOLERANCE = 2 ** -12;

/** The index and values of the first element that differs beyond the tolerance, or null. */
export function firstDifference(got: Output, want: Output, path = 'result'): string | null {
  if (typeof want === 'number') return typeof got === 'number' && close(got, want, Math.abs(want), !Number.isInteger(want) || !Number.isInteger(got)) ? null : `${path}: got ${String(got)}, want ${want}`;
  if (Array.isArray(want)) {
    if (!Array.isArray(got) || got.length !== want.length) return `${path}: got ${JSON.stringify(got)}, want a tuple of ${want.length}`;
    for (let k = 0; k < want.length; k++) {
      const d = firstDifference(got[k]!, want[k]!, `${path}.${k}`);
      if (d !== null) return d;
    }
    return null;
  }
  if (typeof got === 'number' || Array.isArray(got)) return `${path}: got ${JSON.stringify(got)}, want an array`;
  const w = want as Exclude<Output, number | readonly Output[]>;
  const g = got as typeof w;
  if (JSON.stringify(g.shape) !== JSON.stringify(w.shape)) return `${path}: shape ${JSON.stringify(g.shape)}, want ${JSON.stringify(w.shape)}`;
  if (g.data.constructor !== w.data.constructor) return `${path}: a ${g.data.constructor.name}, want a ${w.data.constructor.name}`;
  const float = w.data instanceof Float32Array || w.data instanceof Float64Array;
  let scale = 0;
  for (const x of w.data) if (Number.isFinite(x)) scale = Math.max(scale, Math.abs(x));
  for (let i = 0; i < w.data.length; i++) {
    if (!close(g.data[i]!, w.data[i]!, scale, float)) return `${path}[${i}]: got ${g.data[i]}, want ${w.data[i]}`;
  }
  return null;
}

function close(got: number, want: number, scale: number, float: boolean): boolean {
  if (!float) return got === want;
  if (Number.isNaN(want)) return Number.isNaN(got);
  if (!Number.isFinite(want)) return got === want;
  return Math.abs(got - want) <= F32_TOLERANCE * (1 + scale);
}
