// The programs of bench:webgpu in f32 (WGSL has no f64): the shared examples (bench/exec's
// inputs, floats narrowed to f32), FlashAttention and NAS MG (bench/programs, their f64
// annotations and context-free float literals made f32), and singleLoop's cluster repeated in a
// `while` whose counter stays on the host, so that its kernel can be timed apart from the
// upload and read back every run pays (the slope over repetitions).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InterfaceValue } from '../../src/ir/values.js';
import { execPrograms, type Inputs } from '../exec/programs.js';
import { zran3 } from '../programs/mg-reference.js';

export interface WebgpuCase {
  /** What `--programs` selects it by. */
  readonly id: string;
  /** As the tables show it. */
  readonly name: string;
  /** The source, in f32. */
  readonly source: string;
  /** As the tables show the size. */
  readonly size: string;
  /** The inputs (built once per case). */
  inputs(): Inputs;
}

/**
 * A program of the repository in f32: every `f64` (annotations, conversions) becomes `f32`, and
 * a lambda whose body is a bare float literal (`generate(…, lam i: 0.0)`, `lam i: -inf`), which
 * has no context to take f32 from, and a float literal after `else` get an explicit `f32(…)`. Other literals take the type of
 * the f32 values they meet (docs/LANGUAGE.md, literals).
 */
export function f32Edition(source: string): string {
  const literal = String.raw`-?(?:\d+\.\d*|\d*\.\d+|inf)`;
  return source
    .replaceAll('f64', 'f32')
    .replace(new RegExp(String.raw`(lam [^:]*:\s*)(${literal})\)`, 'g'), '$1f32($2))')
    // `x if c else -inf` with x f32 is f64 (the literal branch does not take the other's type).
    .replace(new RegExp(String.raw`(\belse\s+)(${literal})(?![\w.])`, 'g'), '$1f32($2)');
}

/** The inputs with every Float64Array narrowed to f32. */
export function asF32(inputs: Inputs): Inputs {
  const out: Record<string, InterfaceValue> = {};
  const narrow = (v: InterfaceValue): InterfaceValue => {
    if (Array.isArray(v)) return (v as readonly InterfaceValue[]).map(narrow) as InterfaceValue;
    const value = v as Exclude<InterfaceValue, readonly unknown[]>;
    if (value.kind === 'array' && value.data instanceof Float64Array) return { kind: 'array', elem: 'f32', shape: value.shape, data: Float32Array.from(value.data) };
    return value;
  };
  for (const [name, v] of Object.entries(inputs)) out[name] = narrow(v);
  return out;
}

const i32 = (value: number): InterfaceValue => ({ kind: 'scalar', elem: 'i32', value });

function read(repoRoot: string, file: string): string {
  return readFileSync(join(repoRoot, file), 'utf8');
}

/** Every shared example at n elements (bench/exec's inputs), in f32. */
export function exampleCases(repoRoot: string, n: number): WebgpuCase[] {
  return execPrograms.map((p) => ({ id: p.name, name: p.name, source: f32Edition(read(repoRoot, p.file)), size: p.describe(n), inputs: () => asF32(p.inputs(n)) }));
}

/** Deterministic values in [-1, 1). */
function matrix(rows: number, cols: number, seed: number): InterfaceValue {
  const data = new Float32Array(rows * cols);
  let s = seed >>> 0;
  for (let i = 0; i < data.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    data[i] = (s / 2 ** 32) * 2 - 1;
  }
  return { kind: 'array', elem: 'f32', shape: [rows, cols], data };
}

export function flashCase(repoRoot: string, n: number, d: number, block: number): WebgpuCase {
  return {
    id: 'flash',
    name: 'FlashAttention',
    source: f32Edition(read(repoRoot, 'bench/programs/flashAttention.fuse')),
    size: `n=${n}, d=${d}, br=bc=${block}`,
    inputs: () => ({ Q: matrix(n, d, 1), K: matrix(n, d, 2), V: matrix(n, d, 3), br: i32(block), bc: i32(block) }),
  };
}

export function mgCase(repoRoot: string, n: number, nit: number): WebgpuCase {
  return {
    id: 'mg',
    name: 'NAS MG',
    source: f32Edition(read(repoRoot, 'bench/programs/mg.fuse')),
    size: `${n}³, nit=${nit}`,
    inputs: () => ({ v: { kind: 'array', elem: 'f32', shape: [n, n, n], data: Float32Array.from(zran3(n)) }, nit: i32(nit) }),
  };
}

/** singleLoop's body as a `while` of `reps` iterations (scaled by 0.2 so values stay finite). */
export const repeatedSingleLoop = `def main(as: f32[n], reps: i32):
  xs = as
  i = 0
  while i < reps:
    bs = reverse(xs)
    cs = map(lam x: x * 2.0, xs)
    ds = map(lam c: c + 1.0, cs)
    xs = zipWith3(lam(b, c, d): (b + c + d) * 0.2, bs, cs, ds)
    i = i + 1
  return xs
`;

/** Bytes one iteration of repeatedSingleLoop moves at least: `xs` read twice (in order and reversed), the new `xs` written. */
export const singleLoopBytesPerElement = 12;

export function singleLoopInputs(n: number, reps: number): Inputs {
  const data = new Float32Array(n);
  for (let i = 0; i < n; i++) data[i] = Math.sin(i);
  return { as: { kind: 'array', elem: 'f32', shape: [n], data }, reps: i32(reps) };
}
