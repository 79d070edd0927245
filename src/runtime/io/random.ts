// Random inputs from a spec string, for the CLI's `--random` and for benchmarks.
//
//   f64[1000,64]      uniform in [0, 1)
//   i32[10]@0..5      uniform integers in 0..5 inclusive
//   f32[8]@-1..1      uniform in [-1, 1)
//   bool[16]          fair coin flips
//   i32               a scalar; `f64[]` a rank-0 array
// Default ranges: floats [0, 1); i32 -100..100; u32 0..100. Deterministic for a given seed
// (a seeded mulberry32 generator, created per call: no shared state); randomValues gives the
// k-th spec the seed `seed + k` so that inputs differ from one another.

import { userError } from '../../diagnostics/index.js';
import { MAX_ARRAY_ELEMENTS, allocate, isFloat, wrap } from '../../ir/scalarOps.js';
import { type ScalarType, scalarTypes } from '../../ir/types.js';
import { type RuntimeValue, shapeProblem, sizeOf } from '../../ir/values.js';

export interface RandomSpec {
  readonly elem: ScalarType;
  /** null for a scalar. */
  readonly shape: readonly number[] | null;
  readonly low: number;
  readonly high: number;
}

const specPattern = /^\s*([a-z0-9]+)\s*(?:\[([^\]]*)\])?\s*(?:@\s*(\S+?)\s*\.\.\s*(\S+)\s*)?$/;

/** A spec (see the module comment); errors name `flag`, the option it was given with. */
export function parseRandomSpec(text: string, flag = '--random'): RandomSpec {
  const bad = (why: string): never => {
    throw userError('E521', `${flag} ${JSON.stringify(text)}: ${why}`, undefined, ['expected e.g. f64[1000,64], i32[10]@0..5, bool[8] or i32']);
  };
  const m = specPattern.exec(text);
  if (m === null) return bad('not a spec');
  const [, elemText, dims, lowText, highText] = m;
  if (!(scalarTypes as readonly string[]).includes(elemText!)) return bad(`unknown element type ${elemText}`);
  const elem = elemText as ScalarType;
  let shape: number[] | null = null;
  if (dims !== undefined) {
    const parts = dims.trim() === '' ? [] : dims.split(',').map((d) => d.trim());
    if (!parts.every((d) => /^\d+$/.test(d))) return bad(`extents must be non-negative integers, got [${dims}]`);
    shape = parts.map(Number);
    const problem = shapeProblem(shape);
    if (problem !== null) throw userError('E406', `${flag} ${JSON.stringify(text)}: ${problem}`);
  }
  const defaults: Readonly<Record<ScalarType, readonly [number, number]>> = { f64: [0, 1], f32: [0, 1], i32: [-100, 100], u32: [0, 100], u8: [0, 255], i8: [-128, 127], bool: [0, 1] };
  let [low, high] = defaults[elem];
  if (lowText !== undefined) {
    if (elem === 'bool') return bad('bool takes no range');
    low = Number(lowText);
    high = Number(highText);
    if (!Number.isFinite(low) || !Number.isFinite(high) || low > high) return bad(`bad range ${lowText}..${highText}`);
    if (!isFloat(elem) && (!Number.isInteger(low) || !Number.isInteger(high) || wrap(elem, low) !== low || wrap(elem, high) !== high)) {
      return bad(`the range ${lowText}..${highText} is not a range of ${elem} values`);
    }
  }
  return { elem, shape, low, high };
}

/** mulberry32: a small, well-mixed 32-bit generator; returns uniform numbers in [0, 1). */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function draw(spec: RandomSpec, next: () => number): number {
  if (spec.elem === 'bool') return next() < 0.5 ? 1 : 0;
  if (isFloat(spec.elem)) {
    // 53 random bits for f64 (two draws), so that values are not all multiples of 2^-32.
    const u = (Math.floor(next() * 2 ** 21) * 2 ** 32 + Math.floor(next() * 2 ** 32)) / 2 ** 53;
    return wrap(spec.elem, spec.low + u * (spec.high - spec.low));
  }
  return spec.low + Math.floor(next() * (spec.high - spec.low + 1));
}

/** A random value for a spec (see the module comment) with a given seed. */
export function randomValue(spec: RandomSpec | string, seed: number): RuntimeValue {
  const s = typeof spec === 'string' ? parseRandomSpec(spec) : spec;
  const next = generator(seed);
  if (s.shape === null) return { kind: 'scalar', elem: s.elem, value: draw(s, next) };
  // A well-formed spec too large to make is not a malformed one: E406, as for any array.
  const elements = sizeOf(s.shape);
  if (elements > MAX_ARRAY_ELEMENTS) {
    throw userError('E406', `--random: an array of shape [${s.shape.join(', ')}] has ${elements} elements, more than the ${MAX_ARRAY_ELEMENTS} an array can have`);
  }
  const data = allocate(s.elem, elements);
  for (let i = 0; i < data.length; i++) data[i] = draw(s, next);
  return { kind: 'array', elem: s.elem, shape: s.shape, data };
}

/** Random values for several specs; the k-th uses seed `seed + k`. */
export function randomValues(specs: readonly string[], seed: number): RuntimeValue[] {
  return specs.map((spec, k) => randomValue(spec, seed + k));
}
