// The multicore back end (src/runtime/multicore/backend.ts) against the js back end, on every
// bundled example and on hand-written programs covering each way a cluster runs (maps,
// gathers, row folds, whole folds, scans, filter, scatter with + and overwriting, while/if,
// tuples), at threads 1, 2 and 3 with every call that has two chunks forked (threshold 0):
// - default chunk length (small inputs: every carried loop is one chunk): bit for bit the js results;
// - chunk length 3 (carried loops split): integers exact, floats within a stated tolerance of
//   js, and the same bits at every thread count (results depend on the chunk length only);
// faults inside forked chunks give js's diagnostic and leave the executable usable; the
// caller's arrays (inputs, `out`) on ordinary or shared buffers; results of one run are not
// the next run's buffers; dispose; a dead worker fails the run and the next one reloads.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { Compiler, signatureOf } from '../../../src/driver/index.js';
import { UserError } from '../../../src/diagnostics/index.js';
import type { TypedArray } from '../../../src/ir/scalarOps.js';
import type { ScalarType } from '../../../src/ir/types.js';
import type { InterfaceValue, RuntimeValue } from '../../../src/ir/values.js';
import { elemLeaves } from '../../../src/lower/types.js';
import { createSolverLoader } from '../../../src/plan/ilp/solver.js';
import { compileMulticore, type MulticoreExecutable, type PoolSource } from '../../../src/runtime/multicore/backend.js';
import { ExecutableDisposedError, type Executable, type RunResult } from '../../../src/runtime/index.js';
import { WorkerDiedError } from '../../../src/runtime/multicore/types.js';
import { generateProgram } from '../../../src/codegen/index.js';
import { acquirePool } from '../../../src/runtime/multicore/pool.js';
import { expectSameValues } from '../equal.js';
import { type FakePool, fakePool } from './backendFakePool.js';

const solver = createSolverLoader();
const repo = join(import.meta.dirname, '..', '..', '..');

/** One fake pool per thread count, made again after it "died". */
const pools = new Map<number, FakePool>();
const fakePools: PoolSource = (threads) => {
  let p = pools.get(threads);
  if (p === undefined || p.dead) pools.set(threads, (p = fakePool(threads)));
  return p;
};

/** A deterministic generator of test values. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

/** An array of `shape` whose elements `f(i, random)` makes, of element type `elem`. */
function arrayOf(elem: ScalarType, shape: readonly number[], f: (i: number, r: () => number) => number, seed = 1): RuntimeValue {
  const n = shape.reduce((a, b) => a * b, 1);
  const r = rng(seed);
  const data: TypedArray =
    elem === 'f64' ? new Float64Array(n) : elem === 'f32' ? new Float32Array(n) : elem === 'i32' ? new Int32Array(n) : elem === 'u32' ? new Uint32Array(n) : new Uint8Array(n);
  for (let i = 0; i < n; i++) data[i] = f(i, r);
  return { kind: 'array', elem, shape, data };
}

/** Floats of mixed signs and magnitudes: sums of them regroup visibly. */
const wide = (_: number, r: () => number): number => (r() - 0.4) * 10 ** Math.floor(r() * 6 - 2);

interface Case {
  readonly name: string;
  readonly source: string;
  readonly inputs: Readonly<Record<string, InterfaceValue>>;
  /** Float results equal js bit for bit even with short chunks (no regrouped float fold or scan). */
  readonly exact?: boolean;
}

const n = 50;
const iota = (k: number): number[] => Array.from({ length: k }, (_, i) => i);
const idx = (k: number) => (i: number, r: () => number) => Math.floor(r() * k);

const cases: Case[] = [
  { name: 'map', source: 'def main(xs):\n  return map(lam x: x * 1.5 + 0.25, xs)\n', inputs: { xs: arrayOf('f64', [n], wide) }, exact: true },
  {
    name: 'map of tuples, i32 wrap',
    source: 'def main(xs, ys):\n  return map(lam x, y: (x * 2147483647 + y, f64(x) / 3.0), zip(xs, ys))\n',
    inputs: { xs: arrayOf('i32', [n], (i) => i - 20), ys: arrayOf('i32', [n], (i) => (i % 2 === 0 ? 2147483647 : -2147483648)) },
    exact: true,
  },
  {
    name: 'gather',
    source: 'def main(is, xs):\n  return gather(is, map(lam x: x * x, xs))\n',
    inputs: { is: arrayOf('i32', [n], idx(17), 3), xs: arrayOf('f64', [17], wide) },
    exact: true,
  },
  { name: 'reverse', source: 'def main(xs):\n  return reverse(map(lam x: x - 1.0, xs))\n', inputs: { xs: arrayOf('f64', [n], wide) }, exact: true },
  { name: 'row folds', source: 'def main(a):\n  return fold(+, map(lam x: x * 3.0, a))\n', inputs: { a: arrayOf('f64', [13, 11], wide) }, exact: true },
  { name: 'whole fold f64', source: 'def main(xs):\n  return fold(+, map(lam x: x * 0.5, xs))\n', inputs: { xs: arrayOf('f64', [n], wide) } },
  { name: 'whole fold i32', source: 'def main(xs):\n  return fold(+, xs)\n', inputs: { xs: arrayOf('i32', [n], (i) => 2147483647 - i) } },
  { name: 'max and min', source: 'def main(xs):\n  return (maximum(xs), minimum(xs))\n', inputs: { xs: arrayOf('f64', [n], (i, r) => (i === 7 ? -0 : wide(i, r))) }, exact: true },
  { name: 'scanl f64', source: 'def main(xs):\n  return scanl(+, xs)\n', inputs: { xs: arrayOf('f64', [n], wide) } },
  { name: 'scanl i32 exclusive', source: 'def main(xs):\n  return scanl(+, 7, xs)\n', inputs: { xs: arrayOf('i32', [n], (i) => i * 99991) } },
  { name: 'scanr f64', source: 'def main(xs):\n  return scanr(+, 0.0, xs)\n', inputs: { xs: arrayOf('f64', [n], wide) } },
  { name: 'rows of a scan', source: 'def main(a):\n  return scanl(*, a)\n', inputs: { a: arrayOf('f64', [9, 7], (i, r) => 0.5 + r()) } },
  {
    name: 'scan and fold fused',
    source: 'def main(xs):\n  ys = scanl(+, xs)\n  return (ys, fold(+, ys), fold(max, map(lam x: x * 2.0, xs)))\n',
    inputs: { xs: arrayOf('f64', [n], wide) },
  },
  { name: 'filter', source: 'def main(xs):\n  return filter(lam x: x > 0.0, xs)\n', inputs: { xs: arrayOf('f64', [n], wide) }, exact: true },
  {
    name: 'scatter + f64',
    source: 'def main(is, xs):\n  return scatter(+, generate(5, lam i: 0.0), zip(is, xs))\n',
    inputs: { is: arrayOf('i32', [n], idx(5), 5), xs: arrayOf('f64', [n], wide) },
    exact: true,
  },
  {
    name: 'scatter + i32',
    source: 'def main(is, xs):\n  return scatter(+, generate(5, lam i: 1), zip(is, xs))\n',
    inputs: { is: arrayOf('i32', [n], idx(5), 6), xs: arrayOf('i32', [n], (i) => 2147483000 + i) },
    exact: true,
  },
  {
    name: 'scatter overwrite',
    source: 'def main(is, xs):\n  return scatter(lam old, new: new, generate(9, lam i: -1.0), zip(is, xs))\n',
    inputs: { is: arrayOf('i32', [n], idx(9), 7), xs: arrayOf('f64', [n], (i) => i) },
    exact: true,
  },
  {
    name: 'while and if',
    source: [
      'def main(xs):',
      '  i = 0',
      '  while i < 3:',
      '    xs = map(lam x: x * 0.5 + 1.0, reverse(xs))',
      '    i = i + 1',
      '  if sum(xs) > 0.0:',
      '    ys = map(lam x: x + 1.0, xs)',
      '  else:',
      '    ys = map(lam x: x - 1.0, xs)',
      '  return ys',
      '',
    ].join('\n'),
    inputs: { xs: arrayOf('f64', [n], wide) },
  },
  {
    name: 'empty and one element',
    source: 'def main(xs, ys):\n  return (map(lam x: x + 1.0, xs), fold(+, ys), scanl(+, ys))\n',
    inputs: { xs: arrayOf('f64', [0], wide), ys: arrayOf('f64', [1], wide) },
    exact: true,
  },
];

/** Inputs for a bundled example from its parameter types (as `arrayfuse demo` makes them): i32 in range for gathers. */
function exampleInputs(compiler: Compiler): Record<string, InterfaceValue> {
  const types = compiler.parameterTypes();
  const size = 23;
  const inputs: Record<string, InterfaceValue> = {};
  compiler.parameterNames.forEach((p, k) => {
    const t = types[p]!;
    if (t.kind === 'scalar') inputs[p] = { kind: 'scalar', elem: t.elem, value: 3 };
    else {
      const shape = Array.from({ length: t.rank }, () => size);
      const parts = elemLeaves(t.elem).map((e, j) => arrayOf(e, shape, e === 'f64' || e === 'f32' ? wide : idx(size), 10 * k + j + 1));
      inputs[p] = parts.length === 1 ? parts[0]! : parts;
    }
  });
  return inputs;
}

const examples: Case[] = readdirSync(join(repo, 'examples'))
  .filter((f) => f.endsWith('.fuse'))
  .sort()
  .map((f) => {
    const source = readFileSync(join(repo, 'examples', f), 'utf8');
    return { name: `examples/${f}`, source, inputs: exampleInputs(new Compiler(source, { solver })) };
  });

interface Prepared {
  readonly compiler: Compiler;
  readonly js: Executable;
  readonly ordered: readonly InterfaceValue[];
}

/** The js executable of a case (the driver's plan and memory plan for its inputs) and its inputs in parameter order. */
async function prepare(c: Case): Promise<Prepared> {
  const compiler = new Compiler(c.source, { solver });
  const signature = signatureOf(compiler.entry, c.inputs, compiler.file);
  const js = await compiler.executable(signature);
  return { compiler, js, ordered: js.program.params.map((p) => c.inputs[p.name]!) };
}

/** The pools the differential tests run on: the process-wide one (the fake one where a test inspects or kills it). */
const differentialPools: PoolSource = acquirePool;

async function multicore(p: Prepared, threads: number, chunkLength?: number, threshold = 0, pools = differentialPools): Promise<MulticoreExecutable> {
  return compileMulticore(p.js.program, p.js.plan, { file: p.compiler.file, memory: p.js.memory, threads, parallelThreshold: threshold, chunkLength }, pools);
}

function flat(vs: readonly InterfaceValue[]): RuntimeValue[] {
  return vs.flatMap((v) => (Array.isArray(v) ? (v as RuntimeValue[]) : [v as RuntimeValue]));
}

/**
 * The stated float tolerance of a regrouped fold or scan (docs/EXECUTION.md "Threads"): each
 * element within n·ε·Σ|x| of js, where the scale is the largest magnitude in the js results
 * and inputs times the element count (ε of the element type). Integers and bools exact.
 */
function expectClose(actual: readonly InterfaceValue[], expected: readonly InterfaceValue[], inputs: readonly InterfaceValue[], label: string): void {
  const as = flat(actual);
  const es = flat(expected);
  expect(as.length, label).toBe(es.length);
  let scale = 0;
  let count = 1;
  for (const v of [...flat(inputs), ...es]) {
    if (v.kind === 'scalar') scale = Math.max(scale, Math.abs(v.value));
    else {
      count = Math.max(count, v.data.length);
      for (const x of v.data) if (Number.isFinite(x)) scale = Math.max(scale, Math.abs(x));
    }
  }
  as.forEach((a, k) => {
    const e = es[k]!;
    expect(a.kind, label).toBe(e.kind);
    expect(a.elem, label).toBe(e.elem);
    const av = a.kind === 'scalar' ? [a.value] : Array.from(a.data);
    const ev = e.kind === 'scalar' ? [e.value] : Array.from(e.data);
    if (a.kind === 'array' && e.kind === 'array') expect([...a.shape], label).toEqual([...e.shape]);
    expect(av.length, label).toBe(ev.length);
    const eps = a.elem === 'f64' ? 2 ** -52 : a.elem === 'f32' ? 2 ** -23 : 0;
    const tolerance = count * count * eps * scale;
    av.forEach((x, i) => {
      const y = ev[i]!;
      if (eps === 0 || !Number.isFinite(y)) expect(Object.is(x, y), `${label} component ${k} element ${i}: ${x} vs ${y}`).toBe(true);
      else expect(Math.abs(x - y), `${label} component ${k} element ${i}: ${x} vs ${y}`).toBeLessThanOrEqual(tolerance);
    });
  });
}

async function runOf(exe: Executable, inputs: readonly InterfaceValue[], options = {}): Promise<RunResult> {
  return await exe.run(inputs, options);
}

describe.each([...cases, ...examples])('$name', (c) => {
  test('at threads 1, 2, 3 and the default chunk length: the js results bit for bit', async () => {
    const p = await prepare(c);
    const expected = (await runOf(p.js, p.ordered)).results;
    for (const threads of [1, 2, 3]) {
      const exe = await multicore(p, threads);
      try {
        for (let run = 0; run < 2; run++) expectSameValues((await runOf(exe, p.ordered)).results, expected, `threads ${threads} run ${run}`);
      } finally {
        exe.dispose();
      }
    }
  });

  test('at chunk length 3: integers exact, floats close to js, and the same bits at every thread count', async () => {
    const p = await prepare(c);
    const expected = (await runOf(p.js, p.ordered)).results;
    let first: readonly InterfaceValue[] | null = null;
    for (const threads of [1, 2, 3]) {
      const exe = await multicore(p, threads, 3);
      try {
        const { results, stats } = await runOf(exe, p.ordered);
        if (c.exact === true) expectSameValues(results, expected, `threads ${threads}`);
        else expectClose(results, expected, p.ordered, `threads ${threads}`);
        if (first === null) first = results;
        else expectSameValues(results, first, `threads ${threads} against threads 1`);
        expect(stats.threads).toBe(threads);
        if (threads === 1) expect(stats.clusters.every((k) => k.parallelRuns === 0)).toBe(true);
        expect(stats.clusters.every((k) => k.schedule !== null && k.parallelRuns <= k.runs)).toBe(true);
      } finally {
        exe.dispose();
      }
    }
  });
});

describe('forks happen', () => {
  test('with threshold 0 a map over 50 elements forks; with the default threshold it does not', async () => {
    const p = await prepare(cases[0]!);
    const forked = await multicore(p, 2);
    const { stats } = await runOf(forked, p.ordered);
    expect(stats.clusters.some((k) => k.parallelRuns > 0)).toBe(true);
    forked.dispose();
    const quiet = await compileMulticore(p.js.program, p.js.plan, { memory: p.js.memory, threads: 2 }, differentialPools);
    const again = await runOf(quiet, p.ordered);
    expect(again.stats.clusters.every((k) => k.parallelRuns === 0)).toBe(true);
    quiet.dispose();
  });
});

/** The js diagnostic of a run that faults. */
async function jsError(p: Prepared): Promise<UserError> {
  try {
    await runOf(p.js, p.ordered);
  } catch (e) {
    if (e instanceof UserError) return e;
    throw e;
  }
  throw new Error('js did not fault');
}

describe('faults inside forked chunks', () => {
  const faults: Case[] = [
    {
      name: 'a gather out of range in the first chunk',
      source: 'def main(is, xs):\n  return gather(is, map(lam x: x * x, xs))\n',
      inputs: { is: arrayOf('i32', [n], (i) => (i === 0 ? 17 : i % 17)), xs: arrayOf('f64', [17], wide) },
    },
    {
      name: 'a gather out of range in a middle chunk and the last',
      source: 'def main(is, xs):\n  return gather(is, map(lam x: x * x, xs))\n',
      inputs: { is: arrayOf('i32', [n], (i) => (i === 26 || i === n - 1 ? -1 - i : i % 17)), xs: arrayOf('f64', [17], wide) },
    },
    {
      name: 'integer division by zero in a fold',
      source: 'def main(xs):\n  return fold(+, map(lam x: 100 // x, xs))\n',
      inputs: { xs: arrayOf('i32', [n], (i) => (i === 31 || i === 44 ? 0 : i + 1)) },
    },
    {
      name: 'a scatter index out of range',
      source: 'def main(is, xs):\n  return scatter(+, generate(5, lam i: 0), zip(is, xs))\n',
      inputs: { is: arrayOf('i32', [n], (i) => (i === 40 ? 5 : i % 5)), xs: arrayOf('i32', [n], (i) => i) },
    },
  ];
  test.each(faults)('$name: the js diagnostic, and a later run is right', async (c) => {
    const p = await prepare(c);
    const expected = await jsError(p);
    // The same inputs without the faults: integers in 1..4 (in range of every index array here, never 0).
    const good = p.ordered.map((v) => {
      const r = v as RuntimeValue;
      if (r.kind !== 'array' || r.elem !== 'i32') return r;
      return { ...r, data: r.data.map((x) => (Math.abs(x) % 4) + 1) };
    });
    const goodExpected = (await runOf(p.js, good)).results;
    for (const [threads, chunk] of [[2, undefined], [3, 3], [2, 1]] as const) {
      const exe = await multicore(p, threads, chunk);
      try {
        let thrown: unknown = null;
        try {
          await runOf(exe, p.ordered);
        } catch (e) {
          thrown = e;
        }
        expect(thrown, `threads ${threads}`).toBeInstanceOf(UserError);
        expect((thrown as UserError).message).toBe(expected.message);
        expect((thrown as UserError).diagnostics).toEqual(expected.diagnostics);
        const after = await runOf(exe, good);
        if (chunk === undefined) expectSameValues(after.results, goodExpected);
        else expectClose(after.results, goodExpected, good, 'after');
      } finally {
        exe.dispose();
      }
    }
  });
});

describe('the caller’s arrays', () => {
  const c = cases.find((k) => k.name === 'gather')!;
  test('inputs on SharedArrayBuffers are read in place; inputs on ArrayBuffers are mirrored; both give the js results', async () => {
    const p = await prepare(c);
    const expected = (await runOf(p.js, p.ordered)).results;
    const sharedInputs = p.ordered.map((v) => {
      const r = v as RuntimeValue;
      if (r.kind !== 'array') return r;
      const data = new (r.data.constructor as new (b: SharedArrayBuffer) => TypedArray)(new SharedArrayBuffer(r.data.byteLength));
      data.set(r.data);
      return { ...r, data };
    });
    for (const threads of [2, 3]) {
      const exe = await multicore(p, threads, undefined, 0, fakePools);
      const before = pools.get(threads)!.jobs.length;
      expectSameValues((await runOf(exe, sharedInputs)).results, expected);
      const shared = pools.get(threads)!.jobs.slice(before);
      // The shared inputs themselves went to the workers.
      expect(shared.some((j) => j.args.includes((sharedInputs[0] as { data: TypedArray }).data))).toBe(true);
      expectSameValues((await runOf(exe, p.ordered)).results, expected);
      exe.dispose();
    }
  });

  test('inputs that view a SharedArrayBuffer from an offset, on the pool the differential tests use', async () => {
    const p = await prepare(c);
    const expected = (await runOf(p.js, p.ordered)).results;
    const offsetInputs = p.ordered.map((v) => {
      const r = v as RuntimeValue;
      if (r.kind !== 'array') return r;
      const Ctor = r.data.constructor as new (b: SharedArrayBuffer, offset: number, length: number) => TypedArray;
      const data = new Ctor(new SharedArrayBuffer(r.data.byteLength + 64), 24, r.data.length);
      data.set(r.data);
      return { ...r, data };
    });
    for (const threads of [2, 3]) {
      const exe = await multicore(p, threads);
      for (let run = 0; run < 2; run++) expectSameValues((await runOf(exe, offsetInputs)).results, expected);
      exe.dispose();
    }
  });

  test('an out array on an ArrayBuffer or a SharedArrayBuffer is written; results are fresh each run', async () => {
    const p = await prepare(cases[0]!);
    const expected = (await runOf(p.js, p.ordered)).results;
    const exe = await multicore(p, 2);
    for (const out of [new Float64Array(n), new Float64Array(new SharedArrayBuffer(8 * n))]) {
      out.fill(NaN);
      const { results } = await runOf(exe, p.ordered, { out: [out] });
      expect((results[0] as RuntimeValue & { data: TypedArray }).data).toBe(out);
      expectSameValues(results, expected);
    }
    const first = (await runOf(exe, p.ordered)).results;
    const firstData = (first[0] as { data: TypedArray }).data;
    expect(firstData.buffer).toBeInstanceOf(SharedArrayBuffer);
    const copy = Float64Array.from(firstData);
    const other = p.ordered.map((v) => ({ ...(v as RuntimeValue & { data: Float64Array }), data: new Float64Array(n).fill(3) }));
    await runOf(exe, other);
    expect(Array.from(firstData)).toEqual(Array.from(copy));
    exe.dispose();
  });

  test('a donated input on an ArrayBuffer or a SharedArrayBuffer is updated in place, as js updates it', async () => {
    const source = 'def main(xs, is, vs):\n  return scatter(+, xs, zip(is, map(lam v: v * 2, vs)))\n';
    const make = (shared: boolean): Record<string, RuntimeValue> => {
      const data = shared ? new Int32Array(new SharedArrayBuffer(80)) : new Int32Array(20);
      data.set(iota(20).map((i) => i * 1000));
      return { xs: { kind: 'array', elem: 'i32', shape: [20], data }, is: arrayOf('i32', [n], idx(20), 8), vs: arrayOf('i32', [n], (i) => i - 7) };
    };
    const compiler = new Compiler(source, { solver });
    const plain = signatureOf(compiler.entry, make(false), compiler.file);
    const signature = { ...plain, xs: { ...plain['xs']!, donated: true as const } } as typeof plain;
    const js = await compiler.executable(signature);
    expect(js.program.params[0]!.donated).toBe(true);
    const ordered = (inputs: Record<string, RuntimeValue>) => js.program.params.map((q) => inputs[q.name]!);
    const expected = (await runOf(js, ordered(make(false)))).results;
    for (const shared of [false, true]) {
      for (const threads of [2, 3]) {
        const exe = await compileMulticore(js.program, js.plan, { memory: js.memory, threads, parallelThreshold: 0 }, differentialPools);
        const inputs = make(shared);
        const { results } = await runOf(exe, ordered(inputs));
        expectSameValues(results, expected, `shared ${shared} threads ${threads}`);
        expect((results[0] as { data: Int32Array }).data).toBe(inputs['xs']!.kind === 'array' ? inputs['xs']!.data : null);
        exe.dispose();
      }
    }
  });

  test('poisoned buffers: the results are right and none is one of the pool’s', async () => {
    for (const c2 of cases) {
      const p = await prepare(c2);
      const expected = (await runOf(p.js, p.ordered)).results;
      const exe = await compileMulticore(p.js.program, p.js.plan, { memory: p.js.memory, threads: 2, parallelThreshold: 0, poisonBuffers: true }, differentialPools);
      for (let run = 0; run < 2; run++) expectSameValues((await runOf(exe, p.ordered)).results, expected, c2.name);
      exe.dispose();
    }
  });
});

describe('the executable', () => {
  test('dispose unloads the module; a run afterwards is ExecutableDisposedError', async () => {
    const p = await prepare(cases[0]!);
    const exe = await multicore(p, 2, undefined, 0, fakePools);
    const pool = pools.get(2)!;
    const loaded = pool.loaded;
    exe.dispose();
    expect(pool.loaded).toBe(loaded - 1);
    expect(exe.disposed).toBe(true);
    exe.dispose();
    await expect(async () => exe.run(p.ordered)).rejects.toThrow(ExecutableDisposedError);
    expect(() => exe.source).toThrow(ExecutableDisposedError);
  });

  test('an owner-split scatter forks into one destination range per thread: each range walks the whole source', async () => {
    const p = await prepare(cases.find((c) => c.name === 'scatter overwrite')!);
    const exe = await multicore(p, 3, undefined, 0, fakePools);
    const pool = pools.get(3)!;
    const before = pool.jobs.length;
    expectSameValues((await runOf(exe, p.ordered)).results, (await runOf(p.js, p.ordered)).results);
    const { workFunctions } = generateProgram(p.js.program, p.js.plan, { counters: false, memory: exe.memory, parallel: true });
    const owners = pool.jobs.slice(before).filter((j) => workFunctions[j.fn]!.wholeSource);
    expect(owners.length).toBe(1);
    for (const j of owners) expect(Math.ceil(j.extent / j.chunkLength)).toBe(3);
    exe.dispose();
  });

  test('counters runs stay on the calling thread, with the sequential module', async () => {
    const p = await prepare(cases[0]!);
    const exe = await multicore(p, 2);
    const js = (await runOf(p.js, p.ordered, { counters: true })).stats;
    const { stats } = await runOf(exe, p.ordered, { counters: true });
    expect(stats.threads).toBe(1);
    expect(stats.counters).toEqual(js.counters);
    expect(stats.clusters.every((k) => k.parallelRuns === 0)).toBe(true);
    // The schedules are the ordinary runs' (the parallel module's); js has none.
    expect(stats.clusters.map((k) => k.schedule)).toEqual(['independent']);
    expect(js.clusters.map((k) => k.schedule)).toEqual([null]);
    exe.dispose();
  });

  test('a worker that dies fails the run with WorkerDiedError; the next run loads the module on a fresh pool', async () => {
    const p = await prepare(cases[0]!);
    const expected = (await runOf(p.js, p.ordered)).results;
    const exe = await multicore(p, 2, undefined, 0, fakePools);
    const dying = pools.get(2)!;
    dying.killNext = true;
    await expect(async () => exe.run(p.ordered)).rejects.toThrow(WorkerDiedError);
    const next = exe.run(p.ordered);
    expect(next).toBeInstanceOf(Promise);
    expectSameValues((await next).results, expected);
    expect(pools.get(2)).not.toBe(dying);
    expect(pools.get(2)!.loads).toBe(1);
    exe.dispose();
  });

  test('on the real pool: a worker that dies under another module does not fail this executable’s next run: it reloads on a fresh pool', async () => {
    const p = await prepare(cases[0]!);
    const expected = (await runOf(p.js, p.ordered)).results;
    const exe = await multicore(p, 2, undefined, 0, acquirePool);
    expectSameValues((await runOf(exe, p.ordered)).results, expected);
    // Another module's work function ends its worker thread (process.exit in a worker ends the worker).
    const killer = await acquirePool(2).load(
      "function k(rt, lo, hi, chunk) { if (typeof rt.enter !== 'function') globalThis.process.exit(3); }\nconst fns = [k];\nfunction main() { return []; }\n",
    );
    const noop = (): void => {};
    // On a loaded machine the calling thread may claim every chunk before the worker wakes (then
    // nothing dies): fork again until the worker has taken one.
    let thrown: unknown = null;
    for (let attempt = 0; attempt < 100 && thrown === null; attempt++) {
      try {
        killer.run({ fn: 0, extent: 64, chunkLength: 1, threads: 2, args: [] }, noop, { enter: noop });
      } catch (e) {
        thrown = e;
      }
    }
    expect(thrown).toBeInstanceOf(WorkerDiedError);
    expect(killer.alive).toBe(false);
    for (let run = 0; run < 2; run++) expectSameValues((await runOf(exe, p.ordered)).results, expected);
    exe.dispose();
  });

  test('threads, parallelThreshold and chunkLength are checked', async () => {
    const p = await prepare(cases[0]!);
    for (const bad of [0, 1.5, -1, NaN]) {
      await expect(compileMulticore(p.js.program, p.js.plan, { threads: bad }, fakePools)).rejects.toThrow(TypeError);
      await expect(compileMulticore(p.js.program, p.js.plan, { threads: 2, chunkLength: bad }, fakePools)).rejects.toThrow(TypeError);
    }
    await expect(compileMulticore(p.js.program, p.js.plan, { threads: 2, parallelThreshold: -1 }, fakePools)).rejects.toThrow(TypeError);
  });
});
