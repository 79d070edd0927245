// The WebGPU back end's differential suite, in headless Chromium (test/web/gpuPage.ts): every
// bundled example, hand-written programs for every combinator on f32, i32, u32 and bool
// (test/web/gpuPrograms.ts), values at the types' limits, control flow, run-time faults and
// random programs run fused on the back end under test (`backendUnderTest`) and compared with
// the reference interpreter run in the same page, and the hand-written ones also with values
// computed here by plain loops.
//
// Tolerance (test/web/tolerance.ts): integers and booleans exactly; f32 within
// |got − want| ≤ 1e-5 · (1 + |want|) elementwise for maps, and ≤ 1e-5 · n · max|x| for folds,
// scans and float scatter-adds over n elements (the device regroups them); NaN where NaN,
// infinities equal. Runs that fail must fail with the interpreter's located diagnostic.
//
// On webgpu the back end's own account of each case is checked too (test/web/page/harness.ts):
// every kernel on the device, no run redone on the CPU without a fault. What it cannot do yet
// is listed, exactly, in `knownHostKernels` (kernels that run on the host) and
// `knownDivergences` (wrong IEEE special values on SwiftShader): anything else fails, and so
// does a listed gap that has closed, so the lists stay the back end's to-do list.
//
// Without /usr/bin/chromium the file is skipped with a notice, and without a WebGPU adapter
// its WebGPU tests are (test/web/gpuPage.ts, skipWithoutAdapter); under CI (`CI` set) either
// is a failure. Each test sends its cases to the page in one batch: SwiftShader compiles
// shaders slowly, and one page call per case would cost more than the runs.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { compile, type Input, UserError } from '../../src/index.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { printFuse, randomProgram, type GeneratedCase, type GeneratorOptions } from '../util/index.js';
import { repoRoot } from '../util/sources.js';
import { backendUnderTest, chromiumFound, chromiumPath, openGpuPage, skipWithoutAdapter, underCI, type CaseResult, type GpuPage, type Outcome } from './gpuPage.js';
import {
  aliasCheck, array, bitsCheck, boolChecks, Data, deepCheck, divisionCheck, elementwiseCheck, exampleSizes, f32LimitsChecks, faultChecks, filterCheck, foldChecks, gatherCheck,
  i32LimitsChecks, manyFoldsCheck, matrixCheck, maxAbs, numTypes, scanCheck, scatterCheck, shapes2d, signedZeroChecks, sizes, u32LimitsChecks, unobservedFaultCheck, whileF32Check,
  whileI32Check, type Check,
} from './gpuPrograms.js';
import type { PlainArray, PlainValue } from './page/wire.js';
import { elementwise, exact, outcomeDifferences, reduction, type Tolerance } from './tolerance.js';

const file = 'test/web/webgpuDifferential.test.ts';

if (!chromiumFound && !underCI) {
  console.warn(`\n*** ${file} SKIPPED: no ${chromiumPath} (apt-get install chromium to run the browser tests) ***\n`);
}

// ---------------------------------------------------------------------------------------------
// What a case must satisfy
// ---------------------------------------------------------------------------------------------

/**
 * Kernels the webgpu back end runs on the host today (its translator or the device refuses
 * them; the cluster's JavaScript then runs on the host, correct but slow), by the cases they
 * occur in and the reason the back end gives. Any other refusal is a failure, and so is an
 * entry here that no longer happens (the last test): each one is a gap in the back end to
 * close, after which its entry goes.
 */
const knownHostKernels: readonly { readonly cases: RegExp; readonly reason: RegExp }[] = [
  // Folds whose accumulator starts as an integer literal and takes f32 or u32 values (a seed, an identity).
  { cases: /^(fold f32 |2-D fold per row.* u32 |random )/, reason: /^an (i32 and an f32|f32 and an i32) value meet in one variable/ },
  { cases: /^random /, reason: /^rt\.scratch/ },
];

/** Which entries of `knownHostKernels` this run of the file met. */
const knownMet = new Set<number>();

/**
 * Results the webgpu back end gets wrong today, on SwiftShader, each the exact problem line
 * (for the first and the second run alike) and why. WGSL lets a shader compiler assume that no
 * value is NaN or infinite and that the sign of zero does not matter, and SwiftShader flushes
 * subnormals to zero; the back end does not yet protect the language's IEEE meaning from that
 * (docs/LANGUAGE.md: f32 results are JavaScript's, Math.fround of each operation). Any other
 * difference fails, and so does an entry that no longer happens (the last test): each is a gap
 * to close, after which its entry goes.
 */
const knownDivergences: readonly { readonly problem: string; readonly why: string }[] = [
  {
    problem: 'f32 limits: ±inf, NaN, -0, 1e38 overflow, subnormals, conversions (1 of 4): fused vs interpreter.over_zero (f32[22], elementwise): [8] got NaN, want Infinity',
    why: 'the subnormal 2^-149 is flushed to 0 on the device, so x / 0.0 is 0/0',
  },
  {
    problem: 'f32 limits: ±inf, NaN, -0, 1e38 overflow, subnormals, conversions (1 of 4): fused vs interpreter.zero_over (f32[22], elementwise): [2] got 0, want NaN; [3] got 0, want NaN; [4] got 0, want NaN',
    why: '0.0 / x is folded to 0: wrong for x NaN or ±0',
  },
  {
    problem: 'f32 limits: ±inf, NaN, -0, 1e38 overflow, subnormals, conversions (2 of 4): fused vs interpreter.ceiled (f32[22], elementwise): [8] got 0, want 1',
    why: 'the subnormal 2^-149 is flushed to 0 on the device, so its ceiling is 0',
  },
  {
    problem: 'f32 limits: ±inf, NaN, -0, 1e38 overflow, subnormals, conversions (3 of 4): fused vs interpreter.is_nan (bool[22], exact): [2] got 0, want 1',
    why: 'x != x is folded to false: NaN is assumed away',
  },
  {
    problem: 'f32 signed zeros and infinities, bit for bit (1 of 2): fused vs interpreter.plus_zero (f32[8], exact): [0] got -0, want 0',
    why: 'x + 0.0 is folded to x: -0 + 0 is +0',
  },
  {
    problem:
      'f32 signed zeros and infinities, bit for bit (1 of 2): fused vs interpreter.times_zero (f32[8], exact): [0] got 0, want -0; [3] got 0, want -0; [4] got 0, want NaN; [5] got 0, want NaN, … (5 elements differ of 8)',
    why: 'x * 0.0 is folded to 0: wrong for negative x (-0), ±inf (NaN), NaN',
  },
  {
    problem: 'f32 signed zeros and infinities, bit for bit (2 of 2): fused vs interpreter.zero_minus (f32[8], exact): [1] got -0, want 0',
    why: '0.0 - x is folded to -x: 0 - 0 is +0',
  },
  {
    problem: 'f32 signed zeros and infinities, bit for bit (2 of 2): fused vs interpreter.max_minus_zero (f32[8], exact): [0] got 0, want -0; [3] got 0, want -0; [5] got 0, want -0; [7] got 0, want -0',
    why: 'the constant -0.0 arrives as +0',
  },
];

/** Which entries of `knownDivergences` this run of the file met. */
const divergencesMet = new Set<number>();

/** The problems not listed in `knownDivergences` (a second run's line counts as the first run's). */
function unlisted(problems: readonly string[]): string[] {
  return problems.filter((p) => {
    const k = knownDivergences.findIndex((d) => d.problem === p.replace(': fused (second run) vs interpreter', ': fused vs interpreter'));
    if (k >= 0) divergencesMet.add(k);
    return k < 0;
  });
}

/** The device's account: kernels on the host only where listed, host calls only of those, CPU reruns only after a fault. */
function deviceProblems(check: Check, r: CaseResult): string[] {
  const { device } = r;
  if (device === undefined) return [];
  const name = check.case.name;
  const problems: string[] = [];
  const onHost = new Set<string>();
  for (const kernel of device.hostKernels) {
    const colon = kernel.indexOf(': ');
    const [fn, reason] = [kernel.slice(0, colon), kernel.slice(colon + 2)];
    onHost.add(fn);
    const known = knownHostKernels.findIndex((k) => k.cases.test(name) && k.reason.test(reason));
    if (known < 0) problems.push(`${name}: kernel ${fn} runs on the host: ${reason}`);
    else knownMet.add(known);
  }
  for (const [fn, calls] of device.hostCalls) if (!onHost.has(fn)) problems.push(`${name}: ${fn} ran on the host ${calls} time(s) though its kernel compiled`);
  const faults = check.expectedCode !== undefined || check.fallbackAllowed === true;
  if (device.cpuReruns > 0 && !faults) problems.push(`${name}: ${device.cpuReruns} run(s) redone on the CPU after a device fault, in a program without faults`);
  return problems;
}

/**
 * The WebGPU back end rejects f64 with E680 (docs/ERRORS.md), located at the first f64 the
 * source shows (`at`, when the check knows where), naming f64 and the back end and suggesting
 * f32 or a CPU back end.
 */
function f64RejectionProblems(name: string, o: Outcome, at: string | undefined): string[] {
  if (o.ok) return [`${name}: an f64 program ran on webgpu instead of being rejected`];
  const { error } = o;
  const problems: string[] = [];
  if (error.name !== 'UserError' || error.code !== 'E680') problems.push(`${name}: rejected with ${error.name} ${error.code ?? ''}, not E680: ${error.message}`);
  if (!/\bf64\b/.test(error.message) || !/webgpu/.test(error.message)) problems.push(`${name}: the rejection does not name f64 and webgpu: ${error.message}`);
  if (!/\bf32\b/.test(error.message) || !/\b(js|multicore)\b/.test(error.message)) problems.push(`${name}: the rejection does not suggest f32 or a CPU back end: ${error.message}`);
  const located = error.located ?? '';
  if (!/^[^:\s]+\.fuse:\d+:\d+: error\[E680\]/.test(located)) problems.push(`${name}: the rejection is not located: ${located || error.message}`);
  else if (at !== undefined && !located.startsWith(`${at}: `)) problems.push(`${name}: the rejection points at ${located.slice(0, located.indexOf(': '))}, not ${at}`);
  return problems;
}

/**
 * Everything wrong with one case's runs: the back end it ran on, its inputs left alone, the
 * interpreter against the values computed here (or the expected error code), and both fused
 * runs against the interpreter.
 */
function problemsOf(check: Check, r: CaseResult): string[] {
  const name = check.case.name;
  const { tolerance: tol } = check;
  const floats = check.floatScalars ?? false;
  if (check.usesF64 === true && (backendUnderTest as string) === 'webgpu') {
    return [...f64RejectionProblems(`${name} (first run)`, r.fused, check.f64At), ...f64RejectionProblems(`${name} (second run)`, r.fusedAgain, check.f64At)];
  }
  const problems: string[] = [];
  if (r.backend !== undefined && r.backend !== backendUnderTest) problems.push(`${name}: ran on the ${r.backend} back end, not ${backendUnderTest}`);
  if (!r.inputsIntact) problems.push(`${name}: the fused run wrote its inputs`);
  if (check.expected !== undefined) problems.push(...outcomeDifferences(r.reference, { ok: true, results: { ...check.expected } }, tol, floats, `${name}: interpreter vs computed here`));
  if (check.expectedCode !== undefined && (r.reference.ok || r.reference.error.code !== check.expectedCode)) {
    problems.push(`${name}: the interpreter should fail with ${check.expectedCode}: ${r.reference.ok ? 'it gave results' : r.reference.error.located ?? r.reference.error.message}`);
  }
  problems.push(...deviceProblems(check, r));
  problems.push(...outcomeDifferences(r.fused, r.reference, tol, floats, `${name}: fused vs interpreter`, check.fallbackAllowed));
  problems.push(...outcomeDifferences(r.fusedAgain, r.reference, tol, floats, `${name}: fused (second run) vs interpreter`, check.fallbackAllowed));
  return problems;
}

// ---------------------------------------------------------------------------------------------
// The bundled examples
// ---------------------------------------------------------------------------------------------

type DataElem = 'f32' | 'i32';

interface ExampleSetup {
  /** Inputs for `n` elements of data of type `elem`; index arrays are i32 in range. */
  inputs(n: number, elem: DataElem, data: Data): Record<string, PlainValue>;
  /** The tolerance for f32 results, from the inputs. */
  tolerance(inputs: Readonly<Record<string, PlainValue>>): Tolerance;
  readonly floatScalars?: boolean;
}

const dataOf = (elem: DataElem, data: Data, n: number, shape: readonly number[] = [n]): PlainArray => array(elem, elem === 'f32' ? data.f32(n) : data.i32(n), shape);
const magnitude = (v: PlainValue | undefined): number => maxAbs((v as PlainArray).data);

/** Each example's inputs: its parameters by role (data, indices into data, a static size). */
const exampleSetups: Readonly<Record<string, ExampleSetup>> = {
  backpermute: { inputs: (n, e, d) => ({ xs: dataOf(e, d, n) }), tolerance: () => elementwise },
  gather: { inputs: (n, e, d) => ({ is: array('i32', d.i32(n)), xs: dataOf(e, d, n) }), tolerance: () => elementwise },
  greedyBottomUpBad: {
    // m copies of each element: its fold(+) sums m of them, its fold(*) multiplies m.
    inputs: (n, e, d) => ({ xs: dataOf(e, d, n), m: 3 }),
    tolerance: (i) => reduction(3, Math.max(1, magnitude(i.xs) ** 3)),
  },
  greedyTopDownBad: {
    inputs: (n, e, d) => ({ as: dataOf(e, d, n) }),
    // The fold adds 2a + 1 + i + 2 a[0] over i < n.
    tolerance: (i) => reduction((i.as as PlainArray).data.length, 3 * magnitude(i.as) + 1 + (i.as as PlainArray).data.length),
    floatScalars: true,
  },
  // Bins from the data (floor(2x) in [0, 16), the rest dropped), weights x²: sums of up to n squares.
  histogram: { inputs: (n, e, d) => ({ xs: dataOf(e, d, n) }), tolerance: (i) => reduction((i.xs as PlainArray).data.length, magnitude(i.xs) ** 2 + 1) },
  reverse: { inputs: (n, e, d) => ({ xs: dataOf(e, d, n) }), tolerance: () => elementwise },
  // Segment lengths 0..5, about as many segments as elements in all: the last ones cut or empty.
  segmented: {
    inputs: (n, e, d) => ({ xs: dataOf(e, d, n), lens: array('i32', d.indices(Math.ceil(n / 2), 6)) }),
    tolerance: (i) => reduction((i.xs as PlainArray).data.length, 2 * magnitude(i.xs) + 1),
  },
  scatterExample: { inputs: (n, e, d) => ({ xs: dataOf(e, d, n) }), tolerance: (i) => reduction((i.xs as PlainArray).data.length + 1, magnitude(i.xs) + 1) },
  simple1: { inputs: (n, e, d) => ({ is: array('i32', d.indices(n, n)), xs: dataOf(e, d, n) }), tolerance: () => elementwise },
  simple2: { inputs: (n, e, d) => ({ is1: array('i32', d.indices(n, n)), is2: array('i32', d.indices(n, n)), xs: dataOf(e, d, n) }), tolerance: () => elementwise },
  simple3: { inputs: (n, e, d) => ({ is: array('i32', d.indices(n, n)), xs: dataOf(e, d, n) }), tolerance: () => elementwise },
  simple4: { inputs: (n, e, d) => ({ is: array('i32', d.indices(n, n)), xs: dataOf(e, d, n * 4, [n, 4]) }), tolerance: (i) => reduction(4, magnitude(i.xs)) },
  simple5: { inputs: (n, e, d) => ({ is: array('i32', d.indices(n, n)), xs: dataOf(e, d, n) }), tolerance: () => elementwise },
  singleLoop: { inputs: (n, e, d) => ({ as: dataOf(e, d, n) }), tolerance: () => elementwise },
};

const exampleNames = readdirSync(join(repoRoot, 'examples')).filter((f) => f.endsWith('.fuse')).map((f) => f.slice(0, -'.fuse'.length)).sort();

/**
 * Whether the program, lowered for these inputs, uses f64 anywhere (a literal's or a cast's
 * type included), or does not type-check at all for them (`rejected`): decided by the compiler
 * here in Node, so "where the program allows" needs no list kept by hand. The bytes u8 and i8,
 * which WGSL lacks too (E680 as for f64; the random expressions compare and cast them), count
 * as f64 here.
 */
function f64Use(source: string, inputs: Readonly<Record<string, PlainValue>>): 'f64' | 'none' | 'rejected' {
  try {
    const program = compile(source).lower(inputs as Record<string, Input>);
    return /"(f64|u8|i8)"/.test(JSON.stringify(program)) ? 'f64' : 'none';
  } catch (e) {
    if (e instanceof UserError) return 'rejected';
    throw e;
  }
}

/**
 * The examples' sizes: every one for f32 data; for i32 data, which runs the same kernels with
 * integer types, the empty, a small and the chunk-crossing size (each size is a compilation).
 */
const exampleSizesOf: Readonly<Record<DataElem, readonly number[]>> = { f32: exampleSizes, i32: [0, 7, 70000] };

function exampleChecks(elem: DataElem): Check[] {
  return exampleNames.flatMap((name, k) => {
    const setup = exampleSetups[name];
    if (setup === undefined) return [];
    const source = readFileSync(join(repoRoot, 'examples', `${name}.fuse`), 'utf8');
    // Types decide f64 use, not sizes: one lowering per example and element type.
    const use = f64Use(source, setup.inputs(7, elem, new Data(k)));
    // f32 inputs: every example (one that uses f64 anyway must be rejected on webgpu); i32: where it type-checks without f64.
    if (elem === 'i32' && use !== 'none') return [];
    return exampleSizesOf[elem].map((n): Check => {
      const inputs = setup.inputs(n, elem, new Data(1000 * k + n));
      return {
        case: { name: `examples/${name}.fuse ${elem} n=${n}`, source, inputs, fileName: `examples/${name}.fuse` },
        tolerance: elem === 'f32' ? setup.tolerance(inputs) : exact,
        floatScalars: setup.floatScalars ?? false,
        usesF64: use === 'f64',
      };
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Random programs (test/util/genProgram.ts), on f32, i32, u32 and bool
// ---------------------------------------------------------------------------------------------

/** A generated input as the API takes it. */
function apiValue(v: InterfaceValue): PlainValue {
  if (Array.isArray(v)) return (v as readonly InterfaceValue[]).map(apiValue);
  const value = v as Exclude<InterfaceValue, readonly unknown[]>;
  if (value.kind === 'scalar') return value.elem === 'bool' ? value.value !== 0 : value.value;
  return { data: value.data, shape: value.shape };
}

/** The float results among those the API gives as bare numbers (rank 0), by result name and tuple component. */
function floatScalarResults(c: GeneratedCase): ReadonlySet<string> {
  const names = new Set<string>();
  for (const r of c.program.results) {
    r.components.forEach((comp, k) => {
      const float = comp.elem === 'f32' || comp.elem === 'f64';
      if (float && (comp.kind === 'scalar' || comp.rank === 0)) names.add(r.components.length === 1 ? r.name : `${r.name}[${k}]`);
    });
  }
  return names;
}

/** The most elements any input array of the case has. */
function largestInput(c: GeneratedCase): number {
  const sizeOf = (v: InterfaceValue): number =>
    Array.isArray(v) ? Math.max(0, ...(v as readonly InterfaceValue[]).map(sizeOf)) : (v as { kind: string; data?: { length: number } }).data?.length ?? 1;
  return Math.max(1, ...c.inputs.map(sizeOf));
}

/** Magnitudes of generated float expressions stay within this (test/util/exprGen.ts clamps them to ±1000). */
const generatedFloatBound = 1000;

const randomSeed = 20261128;
const smallPrograms = 35;
const largePrograms = 15;
const elemTypes = ['f32', 'i32', 'u32', 'bool'] as const;
/** Large ones: up to 400 per dimension (several 256-element workgroups), 30000 elements. */
const largeOptions: GeneratorOptions = { elemTypes, combinators: { min: 3, max: 12 }, extents: { min: 1, max: 400 }, maxElements: 30000, maxRank: 2 };
const smallOptions: GeneratorOptions = { elemTypes, combinators: { min: 2, max: 12 } };

function generatedCheck(c: GeneratedCase, name: string): Check {
  const inputs = Object.fromEntries(c.program.params.map((p, k) => [p.name, apiValue(c.inputs[k]!)]));
  return {
    case: { name, source: printFuse(c.program), inputs, fileName: 'generated.fuse' },
    tolerance: reduction(largestInput(c), generatedFloatBound),
    floatScalars: floatScalarResults(c),
  };
}

/**
 * `count` random programs from consecutive seeds, each free of f64 (the generator's `if`
 * conditions may compare f64 scalars even when no array is f64: those seeds are passed over).
 */
function randomChecks(first: number, count: number, options: GeneratorOptions, label: string): Check[] {
  const checks: Check[] = [];
  for (let seed = first; checks.length < count; seed++) {
    const check = generatedCheck(randomProgram(seed, options), `random ${label} seed ${seed}`);
    if (f64Use(check.case.source, check.case.inputs) === 'none') checks.push(check);
  }
  return checks;
}

/** The first generated program (default element types) with an f64 input array. */
function randomF64Check(): Check {
  for (let seed = randomSeed; ; seed++) {
    const c = randomProgram(seed, { combinators: { min: 2, max: 8 } });
    if (c.program.params.some((p) => p.components.some((comp) => comp.kind === 'array' && comp.elem === 'f64'))) {
      return { ...generatedCheck(c, `random with f64 arrays seed ${seed}`), usesF64: true };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The suite
// ---------------------------------------------------------------------------------------------

/**
 * Sizes for element-wise families (maps, gathers, scatters, filters): empty, and several
 * 16384-element chunks and a partial 256-element workgroup (70000 = 273·256 + 112). One element
 * and 1000 (one fold chunk of 1024) are left to the folds and scans, where they are chunk edges:
 * each size is a compilation, and SwiftShader compiles shaders slowly.
 */
const elementSizes: readonly number[] = [0, 70000];

describe.skipIf(!chromiumFound && !underCI)(`the ${backendUnderTest} back end against the interpreter in headless Chromium`, () => {
  let page: GpuPage | undefined;
  let skipAll = false;
  /** Batches run so far: the last test judges the known lists only after all of them. */
  let batchesRun = 0;
  /** The tests below that run a batch (`expectAgreement`). */
  const batches = 11;

  beforeAll(async () => {
    expect(chromiumFound, `${chromiumPath} is missing: CI must install the apt package chromium (.ci/run)`).toBe(true);
    page = await openGpuPage();
    skipAll = skipWithoutAdapter(page, file);
  }, 90_000);

  afterAll(async () => {
    await page?.close();
  });

  /**
   * Runs the checks' cases in one batch and fails with every problem found, listed one a line
   * (the first 40): a plain message, since a diff of hundreds of strings is slow to compute
   * and no easier to read.
   */
  async function expectAgreement(ctx: TestContext, checks: readonly Check[]): Promise<void> {
    if (skipAll) ctx.skip();
    const results = await page!.runCases(checks.map((c) => c.case));
    expect(results.map((r) => r.name)).toEqual(checks.map((c) => c.case.name));
    const found = unlisted(checks.flatMap((c, k) => problemsOf(c, results[k]!)));
    batchesRun++;
    const slowest = results.reduce((a, r) => (r.ms > a.ms ? r : a), results[0]!);
    console.info(`${file}: ${checks.length} cases, ${Math.round(results.reduce((s, r) => s + r.ms, 0))} ms in the page (slowest: ${slowest.name}, ${Math.round(slowest.ms)} ms)`);
    if (found.length > 0) {
      const more = found.length > 40 ? `\n… and ${found.length - 40} more` : '';
      throw new Error(`${found.length} problem(s) in ${checks.length} cases:\n${found.slice(0, 40).join('\n')}${more}`);
    }
  }

  it('reports the page’s WebGPU adapter', (ctx) => {
    if (skipAll) ctx.skip();
    const adapter = page!.adapter;
    console.info(`${file}: back end under test ${backendUnderTest}; WebGPU adapter: ${adapter === null ? 'none' : JSON.stringify(adapter)}`);
    if (adapter !== null) {
      expect(typeof adapter.vendor).toBe('string');
      // The limits the back end plans its bindings and dispatches by (docs: at least WebGPU's defaults).
      expect(adapter.maxStorageBuffersPerShaderStage).toBeGreaterThanOrEqual(8);
      expect(adapter.maxComputeWorkgroupsPerDimension).toBeGreaterThanOrEqual(65535);
    }
  });

  it('runs every example with f32 inputs of 0, 1, 7, 1000 and 70000 elements (f32 ≤ 1e-5·(1+|want|), folds ≤ 1e-5·n·max|x|)', async (ctx) => {
    const checks = exampleChecks('f32');
    expect(new Set(checks.map((c) => c.case.fileName))).toEqual(new Set(exampleNames.map((n) => `examples/${n}.fuse`)));
    await expectAgreement(ctx, checks);
  }, 120_000);

  it('runs every example that takes i32 data without f64 on i32 inputs of 0, 7 and 70000 elements, exactly', async (ctx) => {
    const checks = exampleChecks('i32');
    // gather, greedyBottomUpBad, reverse, simple2 and simple4 compute in i32 throughout; the others turn i32 data into f64.
    expect(checks.length).toBeGreaterThanOrEqual(5 * exampleSizesOf.i32.length);
    await expectAgreement(ctx, checks);
  }, 120_000);

  it('covers every bundled example', () => {
    expect(Object.keys(exampleSetups).sort()).toEqual(exampleNames);
  });

  it('map, zipWith, generate, reverse, gather, backpermute and indexing on f32, i32, u32 and bool: integers exactly, f32 ≤ 1e-5·(1+|want|)', async (ctx) => {
    const checks = [
      ...numTypes.flatMap((t, k) => elementSizes.map((n) => elementwiseCheck(t, n, 10 * k + n))),
      ...[...numTypes, 'bool' as const].flatMap((t, k) => elementSizes.map((n) => gatherCheck(t, n, 20 * k + n + 1))),
    ];
    await expectAgreement(ctx, checks);
  }, 120_000);

  it('scatter with + min max (and & | ^ on integers), permute: integers exactly, f32 + ≤ 1e-5·n·max|x| (any order)', async (ctx) => {
    const checks = numTypes.flatMap((t, k) => elementSizes.flatMap((n) => scatterCheck(t, n, 30 * k + n)));
    await expectAgreement(ctx, checks);
  }, 120_000);

  it('fold (+ * min max, seeds, a lambda; & | ^ on integers) and scanl/scanr inclusive and seeded: integers exactly, f32 ≤ 1e-5·n·max|x|', async (ctx) => {
    const checks = [
      ...numTypes.flatMap((t, k) => sizes.flatMap((n) => foldChecks(t, n, 40 * k + n))),
      ...numTypes.flatMap((t, k) => sizes.map((n) => scanCheck(t, n, 50 * k + n))),
      manyFoldsCheck(70000, 45),
    ];
    await expectAgreement(ctx, checks);
  }, 120_000);

  it('filter after a map, and 2-D arrays (a fold per row, transpose by gather, a fold per column): integers exactly, f32 within tolerance', async (ctx) => {
    const checks = [
      ...numTypes.flatMap((t, k) => elementSizes.map((n) => filterCheck(t, n, 60 * k + n))),
      ...numTypes.flatMap((t, k) => shapes2d.map(([r, c]) => matrixCheck(t, r, c, 70 * k + r + c))),
    ];
    await expectAgreement(ctx, checks);
  }, 120_000);

  it('bool combinators; bit operations, integer // and % with negative operands, and values at the type limits, exactly (f32: NaN, ±inf, -0 bit for bit)', async (ctx) => {
    const checks = [
      ...[0, 1, 70000].flatMap((n) => boolChecks(n, 80 + n)),
      ...(['i32', 'u32'] as const).flatMap((t) => [0, 70000].flatMap((n) => [...bitsCheck(t, n, 90 + n), divisionCheck(t, n, 95 + n)])),
      ...f32LimitsChecks(),
      ...signedZeroChecks(),
      ...i32LimitsChecks(),
      ...u32LimitsChecks(),
    ];
    await expectAgreement(ctx, checks);
  }, 120_000);

  it('control flow and structure: a while on a data-dependent condition with nested ifs, deep expressions, aliased inputs', async (ctx) => {
    const checks = [
      ...[0, 1, 1000].flatMap((n) => [whileF32Check(n, 100 + n), whileI32Check(n, 110 + n)]),
      ...[1, 70000].map((n) => deepCheck(n, 120 + n)),
      ...[1, 70000].map((n) => aliasCheck(n, 130 + n)),
    ];
    await expectAgreement(ctx, checks);
  }, 120_000);

  it('run-time faults (gather index out of range, division by zero, …) fail with the interpreter’s located diagnostic; an unobserved one does not', async (ctx) => {
    await expectAgreement(ctx, [...faultChecks(), unobservedFaultCheck()]);
  }, 120_000);

  it(`agrees with the interpreter on ${smallPrograms + largePrograms} random programs over f32, i32, u32 and bool (seed ${randomSeed}; f32 ≤ 1e-5·n·${generatedFloatBound})`, async (ctx) => {
    const checks = [...randomChecks(randomSeed, smallPrograms, smallOptions, 'small'), ...randomChecks(randomSeed + 100_000, largePrograms, largeOptions, 'large')];
    await expectAgreement(ctx, checks);
  }, 120_000);

  it(`f64 programs ${(backendUnderTest as string) === 'webgpu' ? 'are rejected with a located diagnostic naming f64 and webgpu' : 'run (the f64 rejection is checked once the webgpu back end is under test)'}`, async (ctx) => {
    const xs = new Data(7).f32(10);
    const f64Case = (name: string, source: string, inputs: Readonly<Record<string, PlainValue>>, expected: Readonly<Record<string, PlainValue>>, at: string): Check => ({
      case: { name, source, inputs, fileName: `${at.slice(0, at.indexOf(':'))}` },
      tolerance: exact,
      expected,
      usesF64: true,
      f64At: at,
    });
    const f32s = xs.map(Math.fround);
    const checks: Check[] = [
      f64Case('an f64 array', 'def main(xs: f64[n]):\n  return map(lam x: x * 2.0, xs)\n', { xs: array('f64', xs) }, { result: array('f64', xs.map((x) => x * 2)) }, 'f64map.fuse:1:10'),
      // f64 only on the host: a run-time scalar read from the data, then narrowed for the device.
      f64Case('an f64 scalar on the host', 'def main(xs: f32[n]):\n  s = f64(xs[0]) * 0.5\n  return map(lam x: x * f32(s), xs)\n', { xs: array('f32', f32s) },
        { result: array('f32', f32s.map((x) => Math.fround(x * Math.fround(f32s[0]! * 0.5)))) }, 'f64scalar.fuse:2:3'),
      f64Case('an f64 parameter', 'def main(xs: f32[n], k: f64):\n  return map(lam x: x * f32(k), xs)\n', { xs: array('f32', f32s), k: 2.5 },
        { result: array('f32', f32s.map((x) => Math.fround(x * 2.5))) }, 'f64param.fuse:1:22'),
      randomF64Check(),
    ];
    const example = exampleChecks('f32').filter((c) => c.usesF64 === true);
    // greedyTopDownBad converts an index with f64(i): f64 with f32 inputs.
    expect(example.map((c) => c.case.fileName)).toContain('examples/greedyTopDownBad.fuse');
    await expectAgreement(ctx, [...checks, ...example.slice(0, 1)]);
  }, 120_000);

  it('lists only host kernels and divergences that still occur (knownHostKernels, knownDivergences)', (ctx) => {
    if (skipAll || (backendUnderTest as string) !== 'webgpu' || batchesRun < batches) ctx.skip();
    const stale = knownHostKernels.filter((_, k) => !knownMet.has(k)).map((k) => `${String(k.cases)} ${String(k.reason)}`);
    expect(stale, 'these kernels run on the device now: remove their entries from knownHostKernels').toEqual([]);
    const fixed = knownDivergences.filter((_, k) => !divergencesMet.has(k)).map((d) => d.why);
    expect(fixed, 'these results are right now: remove their entries from knownDivergences').toEqual([]);
  });

  it('raised no errors in the page', (ctx) => {
    if (skipAll) ctx.skip();
    expect(page!.pageErrors).toEqual([]);
  });
});
