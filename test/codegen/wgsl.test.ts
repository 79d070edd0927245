// The WGSL translator (src/codegen/wgsl): refusals and printed-code properties on hand-built
// kernel sources, then differential runs on Node's WebGPU (SwiftShader): every work and serial
// kernel of many programs' parallel variants, replayed on the device from the arguments the CPU
// run had, must leave the arrays the JavaScript function left (floats within a small relative
// tolerance, everything else exactly), and fault where the JavaScript faults; single operations
// and the rt helpers on adversarial values; lazy branches. Every kernel must compile without a
// message and hold only WGSL's and the translator's identifiers. Without an adapter the device
// tests are skipped with a notice (under CI they fail). The counts of replays, refusals and
// bailing operations are printed at the end.

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { STATUS_BAIL, translateWgsl, type WgslRole } from '../../src/codegen/wgsl/translate.js';
import type { KernelSource } from '../../src/codegen/wasm/translate.js';
import { assign, bin, call, cond, constDecl, exprStmt, id, index, letDecl, mathCall, member, num, un, type JsExpr, type JsStmt } from '../../src/codegen/jsast.js';
import { printProgramText } from '../../src/codegen/printer.js';
import type { TypedArray } from '../../src/ir/scalarOps.js';
import { Compiler } from '../../src/driver/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import type { InputSignature } from '../../src/lower/index.js';
import type { ScalarType } from '../../src/ir/types.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { allocate, binary } from '../../src/ir/scalarOps.js';
import { randomArray, seededRng, type Rng } from '../util/index.js';
import { acquireDevice, dispatch, expectCleanCompile, foreignIdentifiers, gpuUnavailable, replay, runRecorded, type RecordedRun, type Replay } from './wgslHarness.js';

const serial: WgslRole = { kind: 'serial' };
/** One solver for the file (HiGHS loaded once). */
const solver = createSolverLoader();

/** `for (i = lo; i < hi; i++) out[i] = f(a[i])` as a work function. */
function workMap(inElem: ScalarType, outElem: ScalarType, f: (x: JsExpr) => JsExpr, extra: Partial<KernelSource> = {}): KernelSource {
  const body: JsStmt[] = [
    {
      kind: 'for',
      index: 'i1',
      from: id('lo'),
      to: id('hi'),
      down: false,
      body: [constDecl('x2', index(id('a0'), id('i1'))), assign(index(id('a3'), id('i1')), f(id('x2')))],
    },
  ];
  return {
    name: 'c0',
    params: ['lo', 'hi', 'chunk', 'a0', 'a3'],
    body,
    arrays: { a0: inElem, a3: outElem },
    extents: [],
    scalars: {},
    ...extra,
  };
}

const work: WgslRole = { kind: 'work', partials: null };

describe('translator: refusals and printed code', () => {
  test('a map translates; its code has only the translator\'s identifiers', () => {
    const t = translateWgsl(workMap('f32', 'f32', (x) => mathCall('fround', [bin('*', x, num(2))])), work);
    expect(t.ok).toBe(true);
    if (!t.ok) return;
    expect(t.kernel.buffers.map((b) => [b.param, b.elem, b.written, b.atomic])).toEqual([
      ['a0', 'f32', false, false],
      ['a3', 'f32', true, false],
    ]);
    expect(t.kernel.scalars).toEqual([]);
    expect(t.kernel.code).toContain('@group(0) @binding(0) var<storage, read_write> status: array<atomic<u32>>;');
    expect(t.kernel.code).toContain('@group(0) @binding(1) var<storage, read> params: array<u32>;');
    expect(t.kernel.code).toContain('@group(0) @binding(3) var<storage, read_write> b_a3: array<f32>;');
    // Every identifier is WGSL's or one the translator makes (checked for every kernel below too).
    expect(foreignIdentifiers(t.kernel.code)).toEqual([]);
    expect(foreignIdentifiers('fn main() { let alert = 1; }')).toEqual(['alert']);
  });

  test('refusals say why', () => {
    const reason = (src: KernelSource, role: WgslRole = work): string => {
      const t = translateWgsl(src, role);
      return t.ok ? 'ok' : t.reason;
    };
    expect(reason(workMap('f64', 'f64', (x) => x))).toMatch(/f64/);
    expect(reason(workMap('f32', 'f32', (x) => call(member(id('rt'), 'scratch'), [num(0), x])))).toMatch(/rt\.scratch/);
    expect(reason(workMap('f32', 'f32', (x) => call(member(id('Math'), 'random'), [x])))).toMatch(/Math\.random/);
    expect(reason(workMap('f32', 'f32', (x) => call(member(id('window'), 'alert'), [x])))).toMatch(/window\.alert/);
    // An identifier the translator would not print.
    const evil = workMap('f32', 'f32', (x) => x);
    expect(reason({ ...evil, params: [...evil.params, 'x\n;alert'], scalars: { 'x\n;alert': 'f32' } })).toMatch(/not one the translator prints/);
    expect(reason({ ...evil, params: [...evil.params, 's9'], scalars: { s9: 'f64' } })).toMatch(/f64 scalar/);
    // More than 8 storage buffers.
    const many = Array.from({ length: 9 }, (_, k) => `a${10 + k}`);
    const sum = many.reduce<JsExpr>((acc, a) => bin('+', acc, index(id(a), id('i1'))), num(0));
    const wide: KernelSource = {
      name: 'c0', params: ['lo', 'hi', 'chunk', ...many], arrays: Object.fromEntries(many.map((a) => [a, 'f32'])), extents: [], scalars: {},
      body: [{ kind: 'for', index: 'i1', from: id('lo'), to: id('hi'), down: false, body: [assign(index(id('a10'), id('i1')), mathCall('fround', [sum]))] }],
    };
    expect(reason(wide)).toMatch(/storage buffers/);
    // A local that holds a boolean and a number.
    const mixed: KernelSource = {
      name: 'c0', params: ['a0'], arrays: { a0: 'i32' }, extents: [], scalars: {},
      body: [letDecl('v1', num(0)), assign(id('v1'), bin('<', index(id('a0'), num(0)), num(1))), assign(index(id('a0'), num(0)), id('v1'))],
    };
    expect(reason(mixed, serial)).toMatch(/boolean and a number/);
    // A nested function, a return with a value.
    expect(reason({ ...mixed, body: [{ kind: 'function', name: 'f', params: [], body: [] }] }, serial)).toMatch(/nested function/);
    expect(reason({ ...mixed, body: [{ kind: 'return', value: num(1) }] }, serial)).toMatch(/return with a value/);
  });

  test('an unsafe name in the body is refused, not printed', () => {
    const src: KernelSource = { name: 'c0', params: ['a0'], arrays: { a0: 'i32' }, extents: [], scalars: {}, body: [constDecl('__proto__', num(1)), assign(index(id('a0'), num(0)), id('__proto__'))] };
    const t = translateWgsl(src, serial);
    expect(t.ok).toBe(false);
  });

  test('a fault helper stores 1 and returns; an index is checked against its length', () => {
    const src = workMap('i32', 'i32', (x) => x, {});
    const body: JsStmt[] = [
      {
        kind: 'for', index: 'i1', from: id('lo'), to: id('hi'), down: false,
        body: [
          constDecl('x2', index(id('a0'), id('i1'))),
          { kind: 'if', test: bin('>=', bin('>>>', id('x2'), num(0)), num(10)), then: [exprStmt(call(member(id('rt'), 'oob'), [num(0), un('void', num(0))]))], else: [] },
          assign(index(id('a3'), id('x2')), num(1)),
        ],
      },
    ];
    const t = translateWgsl({ ...src, body }, work);
    expect(t.ok).toBe(true);
    if (!t.ok) return;
    expect(t.kernel.code).toContain('atomicStore(&status[0], 1u);');
    expect(t.kernel.code).toMatch(/>= n_a3\) \{ atomicStore\(&status\[0\], 2u\); return; \}/);
  });
});

// ---- differential runs on the device -----------------------------------------------------------

let device: GPUDevice | null = null;
const outcomes = new Map<string, number>();
/** Single operations whose kernel bailed (status 2) on some element, printed at the end. */
const bailed: string[] = [];
const refusals: string[] = [];

/** Every case's CPU runs, recorded before the device exists (see beforeAll). */
const prepared = new Map<string, RecordedRun[]>();
/** The cases of the file, registered by `deviceTests` as the describes are collected. */
const cases: { readonly c: Case; readonly seeds: readonly number[]; readonly chunkLength: number; readonly freeStep: number; readonly sizes: readonly number[] }[] = [];

beforeAll(async () => {
  // Every program is planned and run on the CPU first; the tests then only replay on the device.
  for (const k of cases) {
    if (prepared.has(k.c.name)) throw new Error(`two cases named ${k.c.name}`);
    try {
      prepared.set(k.c.name, await record(k.c, k.seeds, k.sizes, k.chunkLength, k.freeStep));
    } catch (err) {
      throw new Error(`${k.c.name}: ${String(err)}`);
    }
  }
}, 120_000);

/** The device, made by the first test that needs one (and kept: wgslHarness.ts keeps its GPU object reachable). */
async function theDevice(): Promise<GPUDevice | null> {
  if (device !== null) return device;
  device = await acquireDevice();
  if (device === null) {
    if (process.env.CI) throw new Error(`WebGPU is required under CI: ${gpuUnavailable}`);
    console.warn(`[wgsl.test] SKIPPING the device tests: ${gpuUnavailable}`);
  }
  return device;
}

afterAll(() => {
  console.log(`[wgsl.test] kernel calls replayed: ${JSON.stringify(Object.fromEntries(outcomes))}`);
  if (refusals.length > 0) console.log(`[wgsl.test] refusals:\n  ${refusals.join('\n  ')}`);
  if (bailed.length > 0) console.log(`[wgsl.test] operations that bailed (a value past 32 bits):\n  ${bailed.join('\n  ')}`);
  device?.destroy();
});

type Gen = (rng: Rng) => InterfaceValue;
const arr = (elem: ScalarType, ...shape: number[]): Gen => (rng) => randomArray(rng, elem, shape);
/** An i32 array of indices in [0, n) (sometimes one out of range, when `bad`). */
const indices = (n: number, len: number): Gen => (rng) => {
  const data = allocate('i32', len);
  for (let k = 0; k < len; k++) data[k] = rng.int(0, Math.max(0, n - 1));
  return { kind: 'array', elem: 'i32', shape: [len], data };
};
/**
 * f32 values with the awkward ones: ±0, ±inf, NaN, huge, the smallest normal. Not subnormals:
 * WGSL lets a device flush them to zero, and SwiftShader does (1e-45 > 0 is false there).
 */
const awkward = (len: number): Gen => (rng) => {
  const specials = [0, -0, Infinity, -Infinity, NaN, 3.4e38, -3.4e38, 1.2e-38, 0.5, -0.5, 1.5, -2.5, 2147483648, -2147483904, 4294967296];
  const data = allocate('f32', len);
  for (let k = 0; k < len; k++) data[k] = rng.int(0, 2) === 0 ? specials[rng.int(0, specials.length - 1)]! : rng.int(-80, 80) / 8;
  return { kind: 'array', elem: 'f32', shape: [len], data };
};
/** i32 / u32 values at the limits. */
const limits = (elem: 'i32' | 'u32', len: number): Gen => (rng) => {
  const specials = elem === 'i32' ? [0, 1, -1, 2147483647, -2147483648, 2, -2, 7, -7, 65536, -65536] : [0, 1, 2, 4294967295, 2147483648, 2147483647, 7, 65536];
  const data = allocate(elem, len);
  for (let k = 0; k < len; k++) data[k] = rng.int(0, 1) === 0 ? specials[rng.int(0, specials.length - 1)]! : rng.int(-20, 20) >>> (elem === 'u32' ? 0 : 0) | 0;
  if (elem === 'u32') for (let k = 0; k < len; k++) data[k] = data[k]! >>> 0;
  return { kind: 'array', elem, shape: [len], data };
};
/** Integers at the limits, none zero (divisors). */
const nonZero = (elem: 'i32' | 'u32', len: number): Gen => (rng) => {
  const v = limits(elem, len)(rng) as { data: Int32Array | Uint32Array };
  for (let k = 0; k < v.data.length; k++) if (v.data[k] === 0) v.data[k] = 3;
  return v as unknown as InterfaceValue;
};
/** Pairs (a, b) of f32 whose quotient is within an ulp or two of an integer: where an f32 quotient's floor goes wrong. */
const nearMultiples = (len: number): [Gen, Gen] => {
  let bs: Float32Array | null = null;
  const b: Gen = (rng) => {
    bs = new Float32Array(len);
    for (let k = 0; k < len; k++) bs[k] = Math.fround((rng.int(1, 1 << 20) / 4099) * (rng.int(0, 1) === 0 ? 1 : -1));
    return { kind: 'array', elem: 'f32', shape: [len], data: bs };
  };
  const a: Gen = (rng) => {
    const data = new Float32Array(len);
    const u = new Uint32Array(data.buffer);
    for (let k = 0; k < len; k++) {
      data[k] = Math.fround(bs![k]! * rng.int(-40, 40));
      u[k] = (u[k]! + rng.int(-2, 2)) >>> 0;
    }
    return { kind: 'array', elem: 'f32', shape: [len], data };
  };
  return [b, a];
};
const scalar = (elem: ScalarType, value: number): Gen => () => ({ kind: 'scalar', elem, value });

interface Case {
  readonly name: string;
  readonly source: string;
  /** Each parameter's input, in order, for size n. */
  readonly inputs: (n: number) => readonly (readonly [string, Gen])[];
  /** Float tolerance (relative): exact by default; transcendental functions need some. */
  readonly tol?: number;
  /** Whether refusals are allowed (counted, printed) instead of failing the test. */
  readonly mayRefuse?: boolean;
  /** The inputs make the JavaScript fault: some call must fault on the device too. */
  readonly faults?: boolean;
}

function signatureOf(values: readonly (readonly [string, InterfaceValue])[]): Record<string, InputSignature> {
  const sig: Record<string, InputSignature> = {};
  for (const [name, v] of values) {
    const r = v as { kind: string; elem: ScalarType; shape?: number[]; value?: number };
    sig[name] = r.kind === 'array' ? { kind: 'array', elem: r.elem, shape: r.shape! } : { kind: 'scalar', elem: r.elem, value: r.value } as InputSignature;
  }
  return sig;
}

/** Lowers, plans and runs `c` on the CPU for every seed and size, recording each kernel call. */
async function record(c: Case, seeds: readonly number[], sizes: readonly number[], chunkLength: number, freeStep: number): Promise<RecordedRun[]> {
  const runs: RecordedRun[] = [];
  for (const n of sizes) {
    for (const seed of seeds) {
      const rng = seededRng(seed * 1000 + n);
      const values = c.inputs(n).map(([name, g]) => [name, g(rng)] as const);
      const compiler = new Compiler(c.source, { fileName: `${c.name}.fuse`, solver });
      const sig = signatureOf(values);
      const program = compiler.lower(sig);
      const plan = await compiler.plan(sig);
      runs.push(runRecorded(program, plan, values.map(([, v]) => v), { chunkLength, freeStep }));
    }
  }
  return runs;
}

/** Registers the device test of `c` (its CPU runs are recorded in beforeAll). */
function deviceTest(c: Case, options: { seeds?: readonly number[]; sizes?: readonly number[]; chunkLength?: number; freeStep?: number } = {}): void {
  cases.push({ c, seeds: options.seeds ?? [1, 2], sizes: options.sizes ?? [1, 37], chunkLength: options.chunkLength ?? 8, freeStep: options.freeStep ?? 5 });
  test(c.name, async () => {
    const device = await theDevice();
    if (device === null) return;
    const runs = prepared.get(c.name)!;
    let calls = 0;
    let faults = 0;
    for (const run of runs) {
      for (const call of run.calls) {
        calls++;
        const r: Replay = await replay(device, call, c.tol ?? 0);
        if (r.outcome === 'fault-agrees') faults++;
        outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + 1);
        const kind = `${call.role.kind} ${call.schedule}`;
        outcomes.set(kind, (outcomes.get(kind) ?? 0) + 1);
        if (r.outcome === 'refused') {
          refusals.push(`${c.name}: ${r.label}: ${r.detail}`);
          if (!c.mayRefuse) throw new Error(`${c.name}: ${r.label} refused: ${r.detail}`);
        }
        if (r.outcome === 'bail') throw new Error(`${c.name}: ${r.label} bailed on valid inputs`);
      }
    }
    expect(calls, `${c.name}: no kernel calls`).toBeGreaterThan(0);
    if (c.faults === true) {
      expect(runs.every((r) => r.error !== null), `${c.name}: every CPU run faults`).toBe(true);
      expect(faults, `${c.name}: a kernel faults on the device`).toBeGreaterThan(0);
    }
  });
}

const exampleInputs: Record<string, (n: number) => (readonly [string, Gen])[]> = {
  backpermute: (n) => [['xs', arr('f32', n)]],
  gather: (n) => [['is', indices(n, n)], ['xs', arr('f32', n)]],
  greedyBottomUpBad: (n) => [['xs', arr('f32', n)], ['m', scalar('i32', 3)]],
  reverse: (n) => [['xs', arr('f32', n)]],
  scatterExample: (n) => [['xs', arr('f32', n)]],
  simple1: (n) => [['is', indices(n, n)], ['xs', arr('f32', n)]],
  simple2: (n) => [['is1', indices(n, n)], ['is2', indices(n, n)], ['xs', arr('f32', n)]],
  simple3: (n) => [['is', indices(n, n)], ['xs', arr('f32', n)]],
  simple4: (n) => [['is', indices(n, n)], ['xs', arr('f32', n, 5)]],
  simple5: (n) => [['is', indices(n, n)], ['xs', arr('f32', n)]],
  singleLoop: (n) => [['as', arr('f32', n)]],
};

describe('examples/*.fuse with f32 inputs: every kernel equals its JavaScript', () => {
  for (const [name, inputs] of Object.entries(exampleInputs)) {
    const source = readFileSync(new URL(`../../examples/${name}.fuse`, import.meta.url), 'utf8');
    deviceTest({ name, source, inputs });
  }
});

// ---- combinators and element operations --------------------------------------------------------

const f32n = (n: number): (readonly [string, Gen])[] => [['xs', arr('f32', n)]];
const program = (name: string, source: string, inputs: (n: number) => readonly (readonly [string, Gen])[], extra: Partial<Case> = {}): Case => ({ name, source, inputs, ...extra });

const combinatorCases: readonly Case[] = [
  program('map', 'def main(xs):\n  return map(lam x: x * 2.0 + 1.0, xs)\n', f32n),
  program('zipWith', 'def main(xs, ys):\n  return zipWith(lam(a, b): a * b - a / (b + 100.0), xs, ys)\n', (n) => [['xs', arr('f32', n)], ['ys', arr('f32', n)]]),
  program('generate', 'def main(xs):\n  n = size(xs)\n  return generate(n, lam i: f32(i) * 0.5 + xs[n - 1 - i])\n', f32n),
  program('generate2d', 'def main(xs):\n  n = size(xs)\n  return generate((n, 3), lam(i, j): f32(i * 3 + j) + xs[i])\n', f32n),
  program('gatherF32', 'def main(is, xs):\n  return gather(is, xs)\n', (n) => [['is', indices(n, n)], ['xs', arr('f32', n)]]),
  program('scatterAddI32', 'def main(is, vs, d):\n  return scatter(+, d, zip(is, vs))\n', (n) => [['is', indices(7, n)], ['vs', limits('i32', n)], ['d', limits('i32', 7)]]),
  program('scatterAddU32', 'def main(is, vs, d):\n  return scatter(+, d, zip(is, vs))\n', (n) => [['is', indices(7, n)], ['vs', limits('u32', n)], ['d', limits('u32', 7)]]),
  program('scatterMinI32', 'def main(is, vs, d):\n  return scatter(min, d, zip(is, vs))\n', (n) => [['is', indices(7, n)], ['vs', limits('i32', n)], ['d', limits('i32', 7)]]),
  program('scatterMaxI32', 'def main(is, vs, d):\n  return scatter(max, d, zip(is, vs))\n', (n) => [['is', indices(7, n)], ['vs', limits('i32', n)], ['d', limits('i32', 7)]]),
  program('scatterMinU32', 'def main(is, vs, d):\n  return scatter(min, d, zip(is, vs))\n', (n) => [['is', indices(7, n)], ['vs', limits('u32', n)], ['d', limits('u32', 7)]]),
  program('scatterMaxU32', 'def main(is, vs, d):\n  return scatter(max, d, zip(is, vs))\n', (n) => [['is', indices(7, n)], ['vs', limits('u32', n)], ['d', limits('u32', 7)]]),
  program('scatterAndI32', 'def main(is, vs, d):\n  return scatter(&, d, zip(is, vs))\n', (n) => [['is', indices(7, n)], ['vs', limits('i32', n)], ['d', limits('i32', 7)]]),
  program('scatterOrU32', 'def main(is, vs, d):\n  return scatter(|, d, zip(is, vs))\n', (n) => [['is', indices(7, n)], ['vs', limits('u32', n)], ['d', limits('u32', 7)]]),
  program('scatterXorI32', 'def main(is, vs, d):\n  return scatter(^, d, zip(is, vs))\n', (n) => [['is', indices(7, n)], ['vs', limits('i32', n)], ['d', limits('i32', 7)]]),
  program('scatterAndBool', 'def main(is, vs, d):\n  return scatter(lam(a, b): a and b, d, zip(is, vs))\n', (n) => [['is', indices(7, n)], ['vs', arr('bool', n)], ['d', arr('bool', 7)]]),
  program('scatterOrBool', 'def main(is, vs, d):\n  return scatter(lam(a, b): a or b, d, zip(is, vs))\n', (n) => [['is', indices(7, n)], ['vs', arr('bool', n)], ['d', arr('bool', 7)]]),
  program('scatterAddF32', 'def main(is, vs, d):\n  return scatter(+, d, zip(is, vs))\n', (n) => [['is', indices(7, n)], ['vs', arr('f32', n)], ['d', arr('f32', 7)]]),
  program('foldSum', 'def main(xs):\n  return sum(xs)\n', f32n),
  program('foldMinMax', 'def main(xs):\n  return (minimum(xs), maximum(xs))\n', (n) => [['xs', awkward(n)]]),
  program('foldI32', 'def main(xs):\n  return (sum(xs), product(xs), fold(&, xs), fold(|, xs), fold(^, xs), minimum(xs))\n', (n) => [['xs', limits('i32', n)]]),
  program('foldU32', 'def main(xs):\n  return (sum(xs), maximum(xs), minimum(xs))\n', (n) => [['xs', limits('u32', n)]]),
  program('foldBool', 'def main(xs):\n  return (fold(lam(a, b): a and b, True, xs), fold(lam(a, b): a or b, False, xs))\n', (n) => [['xs', arr('bool', n)]], { mayRefuse: true }),
  program('foldTuple', 'def main(xs, ys):\n  return fold(lam (s, m), (x, y): (s + x, max(m, y)), (0, f32(-inf)), zip(xs, ys))\n', (n) => [['xs', limits('i32', n)], ['ys', awkward(n)]]),
  program('scanTuple', 'def main(xs, ys):\n  return scanl(lam (s, m), (x, y): (s ^ x, min(m, y)), zip(xs, ys))\n', (n) => [['xs', limits('u32', n)], ['ys', arr('f32', n)]]),
  // A fold over a fused scanr keeps its row in rt.scratch (a Float64Array the size of the row):
  // refused, that cluster runs on the host.
  program('foldOverScanr', 'def main(xs):\n  ys = scanr(+, xs)\n  return (ys, fold(+, ys))\n', (n) => [['xs', arr('f32', n, 4)]], { mayRefuse: true }),
  program('fold2d', 'def main(xs):\n  return fold(+, xs)\n', (n) => [['xs', arr('f32', n, 4)]]),
  program('scanl', 'def main(xs):\n  return scanl(+, xs)\n', f32n),
  program('scanlSeed', 'def main(xs):\n  return scanl(+, 1.5, xs)\n', f32n),
  program('scanr', 'def main(xs):\n  return scanr(+, xs)\n', f32n),
  program('scanI32', 'def main(xs):\n  return (scanl(+, xs), scanr(max, xs))\n', (n) => [['xs', limits('i32', n)]]),
  program('scan2d', 'def main(xs):\n  return scanl(+, xs)\n', (n) => [['xs', arr('f32', n, 3)]]),
  program('filter', 'def main(xs):\n  return filter(lam x: x > 0.5, xs)\n', f32n),
  program('reverseF32', 'def main(xs):\n  return reverse(xs)\n', f32n),
  program('map2d', 'def main(xs, ys):\n  return zipWith(lam(a, b): a * 2.0 - b, xs, transpose(ys))\n', (n) => [['xs', arr('f32', n, 3)], ['ys', arr('f32', 3, n)]]),
  program('rowSums', 'def main(xs):\n  s = fold(+, xs)\n  return map(lam x: x / (1.0 + abs(x)), s)\n', (n) => [['xs', arr('f32', n, 5)]]),
  program('bitsI32', 'def main(xs, ys):\n  return zipWith(lam(a, b): ((a & b) | (a ^ ~b)) + (a << b) + (a >> b) + popcount(a) + clz(b), xs, ys)\n', (n) => [['xs', limits('i32', n)], ['ys', limits('i32', n)]]),
  program('bitsU32', 'def main(xs, ys):\n  return zipWith(lam(a, b): ((a & b) | (a ^ ~b)) + (a << b) + (a >> b) + popcount(a) + clz(b), xs, ys)\n', (n) => [['xs', limits('u32', n)], ['ys', limits('u32', n)]]),
  program('divmodI32', 'def main(xs, ys):\n  return zipWith(lam(a, b): (a // b, a % b, a // 7, a % 7), xs, ys)\n', (n) => [['xs', limits('i32', n)], ['ys', nonZero('i32', n)]]),
  program('divmodI32Const', 'def main(xs):\n  return map(lam a: (a // -3, a % -3, a // 8, a % 8, a // -1, a % -1), xs)\n', (n) => [['xs', limits('i32', n)]]),
  program('divmodU32', 'def main(xs, ys):\n  return zipWith(lam(a, b): (a // b, a % b, a // u32(7), a % u32(7)), xs, ys)\n', (n) => [['xs', limits('u32', n)], ['ys', nonZero('u32', n)]]),
  program('divZero', 'def main(xs, ys):\n  return zipWith(lam(a, b): a // b, xs, ys)\n', (n) => [['xs', limits('i32', n)], ['ys', arr('i32', n)]]),
  program('arithI32', 'def main(xs, ys):\n  return zipWith(lam(a, b): (a + b, a - b, a * b, -a, abs(a)), xs, ys)\n', (n) => [['xs', limits('i32', n)], ['ys', limits('i32', n)]]),
  program('compareI32', 'def main(xs, ys):\n  return zipWith(lam(a, b): (min(a, b), max(a, b), a == b, a < b, a >= b), xs, ys)\n', (n) => [['xs', limits('i32', n)], ['ys', limits('i32', n)]]),
  program('arithU32', 'def main(xs, ys):\n  return zipWith(lam(a, b): (a + b, a - b, a * b, min(a, b), max(a, b)), xs, ys)\n', (n) => [['xs', limits('u32', n)], ['ys', limits('u32', n)]]),
  program('compareU32', 'def main(xs, ys):\n  return zipWith(lam(a, b): (a == b, a < b, a >= b, a != b, a <= b), xs, ys)\n', (n) => [['xs', limits('u32', n)], ['ys', limits('u32', n)]]),
  program('casts', 'def main(xs):\n  return map(lam x: (i32(x), u32(x), f32(i32(x)), x > 0.0, i32(x > 1.0)), xs)\n', (n) => [['xs', awkward(n)]]),
  program('floatSpecial', 'def main(xs, ys):\n  return zipWith(lam(a, b): (min(a, b), max(a, b), a // b, a % b, a / b), xs, ys)\n', (n) => [['xs', awkward(n)], ['ys', awkward(n)]]),
  program('floorDivF32', 'def main(ys, xs):\n  return zipWith(lam(a, b): (a // b, a % b), xs, ys)\n', (n) => {
    const [b, a] = nearMultiples(n);
    return [['ys', b], ['xs', a]];
  }),
  program('floatUnary', 'def main(xs):\n  return map(lam a: (floor(a), ceil(a), abs(a), sqrt(a), -a), xs)\n', (n) => [['xs', awkward(n)]]),
  program('transcendental', 'def main(xs):\n  return map(lam x: (exp(x / 4.0), log(abs(x) + 1.0)), xs)\n', f32n, { tol: 2e-5 }),
  // WGSL promises sin and cos to 2^-11 absolute only (inside [-π, π]), tan what follows from them.
  program('sinCos', 'def main(xs):\n  return map(lam x: (sin(x), cos(x), tan(x / 8.0)), xs)\n', f32n, { tol: 1e-3 }),
  program('transcendental2', 'def main(xs):\n  return map(lam x: (tanh(x), cbrt(x), x ** 2.0, abs(x) ** 0.5, x ** -1.5), xs)\n', f32n, { tol: 2e-5 }),
  program('intPow', 'def main(xs, ys):\n  return zipWith(lam(a, b): (a ** (b % 9), u32(a) ** u32(b % 5)), xs, ys)\n', (n) => [['xs', limits('i32', n)], ['ys', limits('i32', n)]]),
  program('boolOps', 'def main(xs, ys):\n  return zipWith(lam(a, b): (a and b, a or b, not a, a == b, i32(a) + i32(b)), xs, ys)\n', (n) => [['xs', arr('bool', n)], ['ys', arr('bool', n)]]),
  program('select', 'def main(is, xs):\n  n = size(xs)\n  return map(lam i: xs[i] if i >= 0 and i < n else 0.0, is)\n', (n) => [['is', (rng) => { const v = limits('i32', n)(rng) as { data: Int32Array }; return v as unknown as InterfaceValue; }], ['xs', arr('f32', n)]]),
  program('scalarArg', 'def main(xs, s):\n  return map(lam x: x * s, xs)\n', (n) => [['xs', arr('f32', n)], ['s', scalar('f32', 1.5)]]),
  program('iota', 'def main(xs):\n  return map(lam i: i * i - 3, iota(size(xs)))\n', f32n),
];

/** i32 values that include zeros (divisors), and indices with one out of range at the end. */
const withZeros = (len: number): Gen => (rng) => {
  const v = limits('i32', len)(rng) as { data: Int32Array };
  v.data[len - 1] = 0;
  return v as unknown as InterfaceValue;
};
const badIndices = (n: number, len: number, bad: number): Gen => (rng) => {
  const v = indices(n, len)(rng) as { data: Int32Array };
  v.data[len - 1] = bad;
  return v as unknown as InterfaceValue;
};

const faultCases: readonly Case[] = [
  program('faultDivZero', 'def main(xs, ys):\n  return zipWith(lam(a, b): a // b, xs, ys)\n', (n) => [['xs', limits('i32', n)], ['ys', withZeros(n)]], { faults: true }),
  program('faultModZeroU32', 'def main(xs, ys):\n  return zipWith(lam(a, b): a % b, xs, ys)\n', (n) => [['xs', limits('u32', n)], ['ys', (rng) => { const v = limits('u32', n)(rng) as { data: Uint32Array }; v.data[n - 1] = 0; return v as unknown as InterfaceValue; }]], { faults: true }),
  program('faultGatherHigh', 'def main(is, xs):\n  return gather(is, xs)\n', (n) => [['is', badIndices(n, n, n)], ['xs', arr('f32', n)]], { faults: true }),
  program('faultGatherNegative', 'def main(is, xs):\n  return map(lam x: x + 1.0, gather(is, xs))\n', (n) => [['is', badIndices(n, n, -1)], ['xs', arr('f32', n)]], { faults: true }),
  program('faultScatter', 'def main(is, vs, d):\n  return scatter(+, d, zip(is, vs))\n', (n) => [['is', badIndices(7, n, 7)], ['vs', limits('i32', n)], ['d', limits('i32', 7)]], { faults: true }),
  program('faultIndex', 'def main(xs):\n  n = size(xs)\n  return generate(n, lam i: xs[i + 1])\n', f32n, { faults: true }),
  program('faultPowZero', 'def main(xs, ys):\n  return zipWith(lam(a, b): a ** b, xs, ys)\n', (n) => [['xs', (rng) => { const v = limits('i32', n)(rng) as { data: Int32Array }; v.data[n - 1] = 0; return v as unknown as InterfaceValue; }], ['ys', (rng) => { const v = limits('i32', n)(rng) as { data: Int32Array }; v.data[n - 1] = -2; return v as unknown as InterfaceValue; }]], { faults: true }),
];

describe('a dispatch past 65535 workgroups (a 2-D grid): every invocation runs once', () => {
  // One iteration per invocation: 4,200,000 invocations are 65,625 workgroups of 64.
  deviceTest(program('twoDimensionalGrid', 'def main(xs):\n  return map(lam x: x * 3 + 1, xs)\n', (n) => [['xs', arr('i32', n)]]), { sizes: [4_200_000], seeds: [1], freeStep: 1 });
});

describe('faults: the device faults where the JavaScript does', () => {
  for (const c of faultCases) deviceTest(c, { sizes: [1, 29] });
});

describe('combinator programs: every kernel equals its JavaScript', () => {
  for (const c of combinatorCases) deviceTest(c, { sizes: [0, 1, 29] });
});

// ---- single operations on adversarial values ---------------------------------------------------

/**
 * `for (i = 0; i < n; i++) { const x = xs[i]; const s = ss[i]; oi[i] = f(x, s); of[i] = f(x, s) }`
 * as a serial kernel: each result stored through ToInt32 (an Int32Array) and Math.fround (a
 * Float32Array), so that a value the kernel holds inexactly shows in one or the other.
 */
function opKernel(xElem: ScalarType, sElem: ScalarType, f: (x: JsExpr, s: JsExpr) => JsExpr): KernelSource {
  const loop: JsStmt = {
    kind: 'for', index: 'i1', from: num(0), to: id('n0'), down: false,
    body: [
      constDecl('x2', index(id('a3'), id('i1'))),
      constDecl('s5', index(id('a4'), id('i1'))),
      assign(index(id('a6'), id('i1')), f(id('x2'), id('s5'))),
      assign(index(id('a7'), id('i1')), f(id('x2'), id('s5'))),
    ],
  };
  return { name: 'c0', params: ['n0', 'a3', 'a4', 'a6', 'a7'], body: [loop], arrays: { a3: xElem, a4: sElem, a6: 'i32', a7: 'f32' }, extents: ['n0'], scalars: {} };
}

/** The JavaScript function of a kernel source (printed as the code generator prints it). */
function jsOf(src: KernelSource): (...args: unknown[]) => void {
  const text = printProgramText([{ kind: 'function', name: src.name, params: ['rt', ...src.params], body: src.body }]);
  return new Function(`'use strict';\n${text}\nreturn ${src.name};`)() as (...args: unknown[]) => void;
}

const int32Values = [0, 1, -1, 2, -2, 3, -3, 7, -7, 2 ** 31 - 1, -(2 ** 31), 2 ** 30, -(2 ** 30), 65535, -65536, 46341, -46341];
const u32Values = [0, 1, 2, 3, 7, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32 - 2, 65535, 65536, 46341, 3e9];
const f32Values = [0, -0, Infinity, -Infinity, NaN, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 1, -1, 7, -7, 2 ** 31, -(2 ** 31), 2 ** 32, 3e9, -3e9, 2 ** 40, 1e30, -1e30, 0.1, 1 / 3, 123456.79];

const ops: readonly (readonly [string, (x: JsExpr, s: JsExpr) => JsExpr])[] = [
  ['x | 0', (x) => bin('|', x, num(0))],
  ['x >>> 0', (x) => bin('>>>', x, num(0))],
  ['x >> 3', (x) => bin('>>', x, num(3))],
  ['x >>> 5', (x) => bin('>>>', x, num(5))],
  ['x & 255', (x) => bin('&', x, num(255))],
  ['x ^ s', (x, s) => bin('^', x, s)],
  ['x << s', (x, s) => bin('<<', x, s)],
  ['(x << s) >>> 0', (x, s) => bin('>>>', bin('<<', x, s), num(0))],
  ['x >> s', (x, s) => bin('>>', x, s)],
  ['x >>> s', (x, s) => bin('>>>', x, s)],
  ['~x', (x) => un('~', x)],
  ['Math.clz32(x)', (x) => mathCall('clz32', [x])],
  ['Math.imul(x, s)', (x, s) => mathCall('imul', [x, s])],
  ['Math.fround(x)', (x) => mathCall('fround', [x])],
  ['Math.floor(x)', (x) => mathCall('floor', [x])],
  ['Math.ceil(x)', (x) => mathCall('ceil', [x])],
  ['Math.abs(x)', (x) => mathCall('abs', [x])],
  ['Math.min(x, s)', (x, s) => mathCall('min', [x, s])],
  ['Math.max(x, s)', (x, s) => mathCall('max', [x, s])],
  ['x < s ? 1 : 0', (x, s) => cond(bin('<', x, s), num(1), num(0))],
  ['x <= s ? 1 : 0', (x, s) => cond(bin('<=', x, s), num(1), num(0))],
  ['x >= s ? x : s', (x, s) => cond(bin('>=', x, s), x, s)],
  ['x === s ? 1 : 0', (x, s) => cond(bin('===', x, s), num(1), num(0))],
  ['x ? 1 : 2', (x) => cond(x, num(1), num(2))],
  ['!x ? 1 : 0', (x) => cond(un('!', x), num(1), num(0))],
  ['-x', (x) => un('-', x)],
  ['x + s', (x, s) => bin('+', x, s)],
  ['x - s', (x, s) => bin('-', x, s)],
  ['x * s', (x, s) => bin('*', x, s)],
  ['x + s | 0', (x, s) => bin('|', bin('+', x, s), num(0))],
  ['x - s - s >>> 0', (x, s) => bin('>>>', bin('-', bin('-', x, s), s), num(0))],
  ['x / s | 0', (x, s) => bin('|', bin('/', x, s), num(0))],
  ['Math.floor(x / s) | 0', (x, s) => bin('|', mathCall('floor', [bin('/', x, s)]), num(0))],
  ['x % s', (x, s) => bin('%', x, s)],
  ['x < 0.5 ? 1 : 0', (x) => cond(bin('<', x, num(0.5)), num(1), num(0))],
  ['x <= 0.1 ? 1 : 0', (x) => cond(bin('<=', x, num(0.1)), num(1), num(0))],
  ['x > 3000000000 ? 1 : 0', (x) => cond(bin('>', x, num(3e9)), num(1), num(0))],
  ['x < 0 && s > 0 ? 1 : 0', (x, s) => cond(bin('&&', bin('<', x, num(0)), bin('>', s, num(0))), num(1), num(0))],
  ['x < 0 || s > 0 ? 1 : 0', (x, s) => cond(bin('||', bin('<', x, num(0)), bin('>', s, num(0))), num(1), num(0))],
  ['x < 0 !== s < 0 ? 1 : 0', (x, s) => cond(bin('!==', bin('<', x, num(0)), bin('<', s, num(0))), num(1), num(0))],
  ['x + 4294967295 | 0', (x) => bin('|', bin('+', x, num(4294967295)), num(0))],
  ['(x - 3000000000 >>> 0) + 1', (x) => bin('+', bin('>>>', bin('-', x, num(3e9)), num(0)), num(1))],
  ['(x < 0) < (s < 0) ? 1 : 0', (x, s) => cond(bin('<', bin('<', x, num(0)), bin('<', s, num(0))), num(1), num(0))],
  ['(x < 0) + (s > 0)', (x, s) => bin('+', bin('<', x, num(0)), bin('>', s, num(0)))],
  ['Math.pow(x, s)', (x, s) => mathCall('pow', [x, s])],
  ['Math.sqrt(x)', (x) => mathCall('sqrt', [x])],
];

const smallInts = [-20, -13, -7, -2, -1, 0, 1, 2, 3, 7, 13, 20];
const smallNonZero = [-20, -7, -2, -1, 1, 2, 3, 7, 20];
const smallU32 = [0, 1, 2, 3, 7, 13, 20, 40];
const typePairs: readonly (readonly [ScalarType, ScalarType, readonly number[], readonly number[], boolean])[] = [
  ['i32', 'i32', int32Values, int32Values, false],
  ['u32', 'u32', u32Values, u32Values, false],
  ['f32', 'f32', f32Values, f32Values, false],
  ['i32', 'u32', int32Values, u32Values, false],
  // Small values, no zero divisor: no operation may bail (every JavaScript value fits).
  ['i32', 'i32', smallInts, smallNonZero, true],
  ['u32', 'u32', smallU32.map((x) => x + 41), smallU32.filter((x) => x > 0), true],
];

describe('single operations on adversarial values: the device equals JavaScript', () => {
  for (const [xe, se, xv, sv, small] of typePairs) {
    test(`${xe} × ${se}${small ? ', small values' : ''}`, async () => {
      const device = await theDevice();
      if (device === null) return;
      const xs = xv.flatMap((x) => sv.map(() => x));
      const ss = xv.flatMap(() => sv);
      const n = xs.length;
      const stats = { same: 0, bail: 0, refused: 0 };
      for (const [name, f] of ops) {
        // Math.pow and Math.sqrt take f32 operands in generated code (an integer reaches them
        // through Math.fround); of an integer past 2^24 the f32 is not JavaScript's double.
        if ((name.startsWith('Math.pow') || name.startsWith('Math.sqrt')) && (xe !== 'f32' || se !== 'f32')) continue;
        const src = opKernel(xe, se, f);
        const t = translateWgsl(src, serial);
        if (!t.ok) {
          stats.refused++;
          refusals.push(`op ${name} on ${xe} × ${se}: ${t.reason}`);
          continue;
        }
        await expectCleanCompile(device, t.kernel.code);
        const typed = (e: ScalarType, v: readonly number[]): TypedArray => (e === 'i32' ? Int32Array.from(v) : e === 'u32' ? Uint32Array.from(v) : Float32Array.from(v));
        const arrays = { a3: typed(xe, xs), a4: typed(se, ss), a6: new Int32Array(n), a7: new Float32Array(n) };
        const jsOut = { a6: new Int32Array(n), a7: new Float32Array(n) };
        jsOf(src)({}, n, arrays.a3, arrays.a4, jsOut.a6, jsOut.a7);
        const r = await dispatch(device, { kernel: t.kernel, count: 1, extent: 0, step: 0, scalars: { n0: n }, arrays, partials: null });
        if (r.status === STATUS_BAIL) {
          // Allowed only where JavaScript's value leaves the 32-bit types for some element.
          if (small) throw new Error(`${name} on small ${xe} × ${se} values bailed`);
          stats.bail++;
          bailed.push(`${name} (${xe} × ${se})`);
          continue;
        }
        expect(r.status, `${name} on ${xe} × ${se}`).toBe(0);
        for (let k = 0; k < n; k++) {
          const label = `${name} with x = ${xs[k]}, s = ${ss[k]} (${xe} × ${se})`;
          const transcendental = name.startsWith('Math.pow');
          // JavaScript's double result of float arithmetic is held as its f32 rounding (generated
          // code always rounds it at once: Math.fround(a op b)): only that rounding is compared.
          const unrounded = (xe === 'f32' || se === 'f32') && ['x + s', 'x - s', 'x * s', 'x / s | 0', 'x - s - s >>> 0', 'x + s | 0', 'Math.floor(x / s) | 0', 'x + 4294967295 | 0', '(x - 3000000000 >>> 0) + 1'].includes(name);
          if (name === 'Math.sqrt(x)' && !Object.is(r.arrays.a7![k], jsOut.a7[k]) && !(Number.isNaN(r.arrays.a7![k]) && Number.isNaN(jsOut.a7[k]))) throw new Error(`${label}: sqrt ${r.arrays.a7![k]} vs ${jsOut.a7[k]}`);
          if (name === 'Math.sqrt(x)') continue;
          if (unrounded) continue;
          if (!transcendental) expect(r.arrays.a6![k], `${label}: ToInt32`).toBe(jsOut.a6[k]);
          const [got, want] = [r.arrays.a7![k]!, jsOut.a7[k]!];
          const flushed = got === 0 && Math.abs(want) < 2 ** -126; // a subnormal the device may flush
          const ok = Object.is(got, want) || flushed || (Number.isNaN(got) && Number.isNaN(want)) || (transcendental && Math.abs(got - want) <= 1e-5 * Math.abs(want));
          expect(ok, `${label}: fround: ${got} on the device, ${want} in JavaScript`).toBe(true);
        }
        stats.same++;
      }
      outcomes.set(`op ${xe}×${se}${small ? ' small' : ''}`, stats.same);
      if (stats.bail > 0) outcomes.set(`op bail ${xe}×${se}`, stats.bail);
    });
  }
});

// ---- the rt helpers generated code calls (integer `**`, bool `//` and `%`) ---------------------

/** The JavaScript side's `rt`: the helpers' arithmetic is scalarOps' (as src/runtime/helpers.ts's), a division by zero throws. */
const helperRt = {
  pow_i32: (_: number, a: number, b: number) => binary('**', 'i32', a, b),
  pow_u32: (_: number, a: number, b: number) => binary('**', 'u32', a, b),
  pow_bool: (_: number, a: number, b: number) => binary('**', 'bool', a, b),
  floordiv_bool: (_: number, a: number, b: number) => binary('//', 'bool', a, b),
  mod_bool: (_: number, a: number, b: number) => binary('%', 'bool', a, b),
};

describe('rt helpers on the device equal scalarOps', () => {
  const cases: readonly (readonly [string, ScalarType, readonly number[], readonly number[]])[] = [
    ['pow_i32', 'i32', int32Values, [0, 1, 2, 3, 5, 7, 30, 31, 32, 33, 100, 2 ** 31 - 1, -1, -2, -3]],
    ['pow_u32', 'u32', u32Values, [0, 1, 2, 3, 5, 7, 31, 32, 33, 100, 2 ** 32 - 1]],
    ['pow_bool', 'i32', [0, 1], [0, 1]],
    ['floordiv_bool', 'i32', [0, 1], [0, 1]],
    ['mod_bool', 'i32', [0, 1], [0, 1]],
  ];
  for (const [helper, elem, xv, sv] of cases) {
    test(helper, async () => {
      const device = await theDevice();
      if (device === null) return;
      const call = (x: JsExpr, s: JsExpr): JsExpr => ({ kind: 'call', callee: member(id('rt'), helper), args: [num(0), x, s] });
      const src = opKernel(elem, elem, call);
      const t = translateWgsl(src, serial);
      expect(t.ok, t.ok ? '' : t.reason).toBe(true);
      if (!t.ok) return;
      await expectCleanCompile(device, t.kernel.code);
      const typed = (v: readonly number[]): TypedArray => (elem === 'u32' ? Uint32Array.from(v) : Int32Array.from(v));
      // One dispatch per pair, so that a faulting pair (0 ** negative) faults alone.
      const js = jsOf(src);
      for (const x of xv) {
        for (const s of sv) {
          const arrays = { a3: typed([x]), a4: typed([s]), a6: new Int32Array(1), a7: new Float32Array(1) };
          const out = { a6: new Int32Array(1), a7: new Float32Array(1) };
          let faulted = false;
          try {
            js(helperRt, 1, arrays.a3, arrays.a4, out.a6, out.a7);
          } catch {
            faulted = true;
          }
          const r = await dispatch(device, { kernel: t.kernel, count: 1, extent: 0, step: 0, scalars: { n0: 1 }, arrays, partials: null });
          const label = `rt.${helper}(${x}, ${s})`;
          if (faulted) {
            expect(r.status, label).toBe(1);
            continue;
          }
          expect(r.status, label).toBe(0);
          expect(r.arrays.a6![0], label).toBe(out.a6[0]);
          expect(Object.is(r.arrays.a7![0], out.a7[0]), `${label}: ${r.arrays.a7![0]} vs ${out.a7[0]}`).toBe(true);
        }
      }
    });
  }
});

// ---- a benchmark program, in f32 --------------------------------------------------------------

describe('bench/programs/naiveAttention.fuse in f32 (the others compute in f64): every kernel equals its JavaScript', () => {
  // Its row products are unrolled and jammed (four rows, three loop copies each): kernels of some
  // 700 lines, whose conditions, as chains of short-circuit &&, SwiftShader took minutes to build.
  const source = readFileSync(new URL('../../bench/programs/naiveAttention.fuse', import.meta.url), 'utf8').replace(/\bf64\b/g, 'f32');
  deviceTest(program('naiveAttention', source, (n) => [['Q', arr('f32', n, 8)], ['K', arr('f32', n, 8)], ['V', arr('f32', n, 8)]], { tol: 1e-5 }), { sizes: [1, 13], seeds: [1] });
});

// ---- laziness: only the branch JavaScript evaluates runs -----------------------------------------

describe('c ? a : b, && and || evaluate on the device only what JavaScript evaluates', () => {
  // Each reads far out of range (a bail) or faults in the branch not taken for these inputs.
  const far = (x: JsExpr): JsExpr => index(id('a3'), bin('+', x, num(100000)));
  const fault: JsExpr = call(member(id('rt'), 'index'), [num(0), un('void', num(0))]);
  const lazy: readonly (readonly [string, (x: JsExpr, s: JsExpr) => JsExpr])[] = [
    ['x >= 0 ? x : a[x + 100000]', (x) => cond(bin('>=', x, num(0)), x, far(x))],
    ['x < 0 ? rt.index() : x * 2', (x) => cond(bin('<', x, num(0)), fault, bin('*', x, num(2)))],
    ['x < 0 && a[x + 100000] > 0 ? 1 : 2', (x) => cond(bin('&&', bin('<', x, num(0)), bin('>', far(x), num(0))), num(1), num(2))],
    ['x >= 0 || rt.index() ? 3 : 4', (x) => cond(bin('||', bin('>=', x, num(0)), fault), num(3), num(4))],
    ['(t = x) === void 0 ? 0 : t + s | 0', (x, s) => cond(bin('===', x, un('void', num(0))), num(0), bin('|', bin('+', x, s), num(0)))],
  ];
  test('lazy branches', async () => {
    const device = await theDevice();
    if (device === null) return;
    const xs = [0, 1, 2, 7, 1000, 65535];
    for (const [name, f] of lazy) {
      const src = opKernel('i32', 'i32', f);
      const t = translateWgsl(src, serial);
      expect(t.ok, `${name}: ${t.ok ? '' : t.reason}`).toBe(true);
      if (!t.ok) continue;
      await expectCleanCompile(device, t.kernel.code);
      const arrays = { a3: Int32Array.from(xs), a4: Int32Array.from(xs), a6: new Int32Array(xs.length), a7: new Float32Array(xs.length) };
      const out = { a6: new Int32Array(xs.length), a7: new Float32Array(xs.length) };
      jsOf(src)({}, xs.length, arrays.a3, arrays.a4, out.a6, out.a7);
      const r = await dispatch(device, { kernel: t.kernel, count: 1, extent: 0, step: 0, scalars: { n0: xs.length }, arrays, partials: null });
      expect(r.status, name).toBe(0);
      expect(r.arrays.a6, name).toEqual(Array.from(out.a6));
    }
  });
});
