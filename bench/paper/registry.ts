// The programs of the paper's evaluation (§5), each with what the harness needs to run it: where
// its .fuse source is, its inputs at a "quick" (CI smoke) and a "full" size, and an independent
// check of its output. Verification is written here in plain TypeScript (or taken from the
// program's own reference module, as for MG), never by running our own interpreter, so a wrong
// plan or wrong generated code fails the run.
//
// A built-in program whose .fuse file does not exist yet (LULESH, while it is being ported) is
// listed as skipped. Programs that are not built in are picked up from bench/programs/: a
// `NAME.fuse` next to a module `NAME.paper.ts` that exports `paperProgram: BenchProgram`. A .fuse
// without an adapter is listed as skipped, with the reason, rather than silently ignored.

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import { MG_CLASSES, MG_EPSILON, mgReference, relativeError, zran3 } from '../programs/mg-reference.js';
import { luleshProgram } from './lulesh.js';

export type SizeName = 'quick' | 'full';

/** Inputs by entry parameter name, as the driver's Compiler takes them. */
export type BenchInputs = Readonly<Record<string, InterfaceValue>>;

/** One problem size of a program. */
export interface BenchSize {
  /** Shown in tables, e.g. `n=1024, d=64`. */
  readonly label: string;
  /** Timed repetitions. */
  readonly repetitions: number;
  /**
   * One untimed, verified warm-up run per strategy before the timed ones (default true). Sizes
   * whose runs take seconds skip it: V8's warm-up is then a negligible part of a run, and the
   * time budget of a full evaluation is better spent on repetitions.
   */
  readonly warmUp?: boolean;
  /** Builds the inputs (called once per size; every strategy runs on the same inputs). */
  inputs(): BenchInputs;
  /**
   * Checks one run's results (in the order of the program's results): null when right, else
   * what is wrong. Built once per size, so an expensive reference is computed once.
   */
  verifier(inputs: BenchInputs): (results: readonly InterfaceValue[]) => string | null;
}

export interface BenchProgram {
  /** The name in tables and charts (the paper's, where it has one). */
  readonly name: string;
  /** The .fuse file, relative to the repository root. */
  readonly file: string;
  /** Measure the array bytes each strategy allocates (the paper discusses greedyBottomUpBad's). */
  readonly reportMemory?: boolean;
  /** Include this program in the solve-time table (the paper's Table 2 lists the large ones). */
  readonly solveTimeTable?: boolean;
  /** Sizes per mode; a mode may list several (MG: class S and class W). */
  readonly sizes: Readonly<Record<SizeName, readonly BenchSize[]>>;
}

// ---------------------------------------------------------------------------------------------
// Input construction and checks

/** A small seeded generator (xorshift32), so every run of the harness sees the same inputs. */
function seeded(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

export function f64Array(shape: readonly number[], data: Float64Array): RuntimeValue {
  return { kind: 'array', elem: 'f64', shape: [...shape], data };
}

export function i32Scalar(value: number): RuntimeValue {
  return { kind: 'scalar', elem: 'i32', value };
}

function arrayData(value: InterfaceValue | undefined, what: string): Float64Array {
  if (value === undefined || Array.isArray(value)) throw new Error(`${what}: expected one array`);
  const v = value as RuntimeValue;
  if (v.kind !== 'array' || !(v.data instanceof Float64Array)) throw new Error(`${what}: expected an f64 array`);
  return v.data;
}

/** A scalar result, or the one element of a rank-0 array (what a fold of a vector returns). */
function scalarOf(value: InterfaceValue | undefined): number | null {
  if (value === undefined || Array.isArray(value)) return null;
  const v = value as RuntimeValue;
  if (v.kind === 'scalar') return v.value;
  return v.shape.length === 0 && v.data.length === 1 ? v.data[0]! : null;
}

/** Compares arrays elementwise with a relative tolerance (scaled by the reference's magnitude). */
export function compareArrays(actual: ArrayLike<number>, expected: ArrayLike<number>, tolerance: number): string | null {
  if (actual.length !== expected.length) return `length ${actual.length}, expected ${expected.length}`;
  let scale = 0;
  for (let i = 0; i < expected.length; i++) scale = Math.max(scale, Math.abs(expected[i]!));
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i]!;
    const e = expected[i]!;
    if (!(Math.abs(a - e) <= tolerance * Math.max(scale, 1e-300))) return `element ${i} is ${a}, expected ${e}`;
  }
  return null;
}

function compareScalar(actual: number | null, expected: number, tolerance: number): string | null {
  if (actual === null) return 'the result is not a scalar';
  const error = relativeError(actual, expected);
  return error <= tolerance ? null : `${actual}, expected ${expected} (relative error ${error.toExponential(2)})`;
}

// ---------------------------------------------------------------------------------------------
// The greedy traps (paper §5, examples/)

function topDownSize(n: number, repetitions: number): BenchSize {
  return {
    label: `n=${n.toExponential(0).replace('e+', 'e')}`,
    repetitions,
    inputs: () => {
      const next = seeded(7);
      const as = new Float64Array(n);
      for (let i = 0; i < n; i++) as[i] = next();
      return { as: f64Array([n], as) };
    },
    verifier: (inputs) => {
      // result = Σ_i (2 a_i + 1) + (i + 2 a_0)
      const as = arrayData(inputs['as'], 'as');
      let sum = 0;
      for (let i = 0; i < as.length; i++) sum += 2 * as[i]! + 1 + (i + 2 * as[0]!);
      return (results) => compareScalar(scalarOf(results[0]), sum, 1e-9);
    },
  };
}

function bottomUpSize(n: number, m: number, repetitions: number): BenchSize {
  return {
    label: `n=${n}, m=${m.toExponential(0).replace('e+', 'e')}`,
    repetitions,
    inputs: () => {
      // Small integers with xs[0] = 1: the m-fold product zs!0 is exactly 1 and every row sum
      // m·xs[i] is exact, so the check can be exact whatever order the folds add in.
      const xs = new Float64Array(n);
      for (let i = 0; i < n; i++) xs[i] = (i % 7) + 1;
      return { xs: f64Array([n], xs), m: i32Scalar(m) };
    },
    verifier: (inputs) => {
      const xs = arrayData(inputs['xs'], 'xs');
      const expected = xs.map((x) => m * x + 1);
      return (results) => compareArrays(arrayData(results[0], 'result'), expected, 0);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Attention (bench/programs/README.md)

/** softmax(Q Kᵀ / sqrt(d)) V with the row maximum subtracted, as plain loops. */
export function referenceAttention(q: Float64Array, k: Float64Array, v: Float64Array, n: number, d: number): Float64Array {
  const out = new Float64Array(n * d);
  const scores = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let max = -Infinity;
    for (let j = 0; j < n; j++) {
      let dot = 0;
      for (let c = 0; c < d; c++) dot += q[i * d + c]! * k[j * d + c]!;
      scores[j] = dot / Math.sqrt(d);
      max = Math.max(max, scores[j]!);
    }
    let total = 0;
    for (let j = 0; j < n; j++) {
      scores[j] = Math.exp(scores[j]! - max);
      total += scores[j]!;
    }
    for (let c = 0; c < d; c++) {
      let acc = 0;
      for (let j = 0; j < n; j++) acc += scores[j]! * v[j * d + c]!;
      out[i * d + c] = acc / total;
    }
  }
  return out;
}

export function attentionSize(n: number, d: number, blocks: number | null, repetitions: number, warmUp = true): BenchSize {
  return {
    label: blocks === null ? `n=${n}, d=${d}` : `n=${n}, d=${d}, br=bc=${blocks}`,
    repetitions,
    warmUp,
    inputs: () => {
      const next = seeded(n * 31 + d);
      const matrix = () => f64Array([n, d], Float64Array.from({ length: n * d }, () => 2 * next() - 1));
      const qkv = { Q: matrix(), K: matrix(), V: matrix() };
      return blocks === null ? qkv : { ...qkv, br: i32Scalar(blocks), bc: i32Scalar(blocks) };
    },
    verifier: (inputs) => {
      const expected = referenceAttention(arrayData(inputs['Q'], 'Q'), arrayData(inputs['K'], 'K'), arrayData(inputs['V'], 'V'), n, d);
      return (results) => compareArrays(arrayData(results[0], 'result'), expected, 1e-10);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// NAS MG (bench/programs/README-mg.md)

/** An official class, checked against NPB's verification value with NPB's threshold. */
function mgClassSize(cls: { readonly name: string; readonly n: number; readonly nit: number; readonly verifyValue: number }, repetitions: number, warmUp = true): BenchSize {
  return {
    label: `class ${cls.name} (${cls.n}³, nit=${cls.nit})`,
    repetitions,
    warmUp,
    inputs: () => ({ v: f64Array([cls.n, cls.n, cls.n], zran3(cls.n)), nit: i32Scalar(cls.nit) }),
    verifier: () => (results) => compareScalar(scalarOf(results[0]), cls.verifyValue, MG_EPSILON),
  };
}

/** A grid with no official value, checked against the plain TypeScript V-cycle. */
function mgOracleSize(n: number, nit: number, repetitions: number): BenchSize {
  return {
    label: `${n}³, nit=${nit}`,
    repetitions,
    inputs: () => ({ v: f64Array([n, n, n], zran3(n)), nit: i32Scalar(nit) }),
    verifier: () => {
      const expected = mgReference(zran3(n), n, nit);
      return (results) => compareScalar(scalarOf(results[0]), expected, 1e-12);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The registry

export const builtinPrograms: readonly BenchProgram[] = [
  {
    name: 'greedyTopDownBad',
    file: 'examples/greedyTopDownBad.fuse',
    sizes: { quick: [topDownSize(10_000, 1)], full: [topDownSize(10_000_000, 15)] },
  },
  {
    name: 'greedyBottomUpBad',
    file: 'examples/greedyBottomUpBad.fuse',
    reportMemory: true,
    sizes: { quick: [bottomUpSize(20, 1000, 1)], full: [bottomUpSize(1000, 100_000, 11)] },
  },
  {
    name: 'FlashAttention',
    file: 'bench/programs/flashAttention.fuse',
    solveTimeTable: true,
    sizes: { quick: [attentionSize(40, 8, 16, 1)], full: [attentionSize(1024, 64, 64, 5, false)] },
  },
  {
    name: 'naiveAttention',
    file: 'bench/programs/naiveAttention.fuse',
    solveTimeTable: true,
    sizes: { quick: [attentionSize(24, 8, null, 1)], full: [attentionSize(256, 64, null, 7)] },
  },
  {
    name: 'Multigrid',
    file: 'bench/programs/mg.fuse',
    solveTimeTable: true,
    sizes: { quick: [mgOracleSize(8, 2, 1)], full: [mgClassSize(MG_CLASSES.S, 15), mgClassSize(MG_CLASSES.W, 5, false)] },
  },
  {
    // The same kernel with every stencil one indexing generate: almost nothing left to fuse,
    // so it shows what the combinator style of mg.fuse gives the planner.
    name: 'Multigrid (generates)',
    file: 'bench/programs/mg-generates.fuse',
    solveTimeTable: true,
    sizes: { quick: [mgOracleSize(8, 2, 1)], full: [mgClassSize(MG_CLASSES.S, 15), mgClassSize(MG_CLASSES.W, 5, false)] },
  },
  luleshProgram,
];

/** A .fuse program in bench/programs/ the harness found but cannot run, and why. */
export interface SkippedProgram {
  readonly file: string;
  readonly reason: string;
}

export interface Registry {
  readonly programs: readonly BenchProgram[];
  readonly skipped: readonly SkippedProgram[];
}

function isBenchProgram(x: unknown): x is BenchProgram {
  if (typeof x !== 'object' || x === null) return false;
  const p = x as Partial<BenchProgram>;
  return typeof p.name === 'string' && typeof p.file === 'string' && typeof p.sizes === 'object' && p.sizes !== null;
}

/**
 * The built-in programs plus every bench/programs/NAME.fuse with an adapter module
 * NAME.paper.ts (or its compiled NAME.paper.js) exporting `paperProgram`.
 * Built-in programs whose .fuse file is missing are skipped. `programsDir` is where adapters
 * are loaded from (the compiled copy when running from out/); the .fuse files are looked for
 * under `repoRoot`.
 */
export async function loadRegistry(repoRoot: string, programsDir: string): Promise<Registry> {
  const known = new Set(builtinPrograms.map((p) => p.file));
  const programs: BenchProgram[] = builtinPrograms.filter((p) => existsSync(join(repoRoot, p.file)));
  const skipped: SkippedProgram[] = builtinPrograms
    .filter((p) => !programs.includes(p))
    .map((p) => ({ file: p.file, reason: 'the file does not exist (yet)' }));
  const sourceDir = join(repoRoot, 'bench', 'programs');
  const fuseFiles = existsSync(sourceDir) ? readdirSync(sourceDir).filter((f) => f.endsWith('.fuse')).sort() : [];
  for (const fuse of fuseFiles) {
    const file = `bench/programs/${fuse}`;
    if (known.has(file)) continue;
    const base = fuse.slice(0, -'.fuse'.length);
    const adapter = [`${base}.paper.js`, `${base}.paper.ts`].map((f) => join(programsDir, f)).find((f) => existsSync(f));
    if (adapter === undefined) {
      skipped.push({ file, reason: `no adapter bench/programs/${base}.paper.ts exporting paperProgram (inputs and verification)` });
      continue;
    }
    const loaded = (await import(pathToFileURL(adapter).href)) as { paperProgram?: unknown };
    if (!isBenchProgram(loaded.paperProgram)) {
      skipped.push({ file, reason: `${adapter} does not export a paperProgram with name, file and sizes` });
      continue;
    }
    programs.push(loaded.paperProgram);
  }
  return { programs, skipped };
}
