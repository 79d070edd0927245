// The memory plan put to work on today's generated code, before the back end's pool exists: the
// JS runtime's `alloc` is replaced (in this test file only) by one that hands out exact-length
// views of the plan's slots — a pair's slots alternating with each allocation of its array, as
// iteration t takes slots[t % 2] — filled with garbage first, so an array read after another
// array of its slot overwrote it, or read before it was written, changes the results. Every
// random program must then give bitwise the results (or the fault) of the same code with fresh
// arrays. (Once codegen allocates from the plan itself this test only sees the `fresh` arrays
// and the results; the back end's own pool is tested with the runtime.)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EntrySizes } from '../../src/graph/sizes.js';
import { elementBytes, type TypedArray } from '../../src/ir/scalarOps.js';
import type { Program, ScalarType } from '../../src/ir/types.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { planMemory, type MemoryPlan } from '../../src/memory/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { plan } from '../../src/plan/index.js';
import type { Strategy } from '../../src/plan/types.js';
import { Runtime } from '../../src/runtime/helpers.js';
import { jsBackend } from '../../src/runtime/index.js';
import { generatorSizes, randomProgram } from '../util/index.js';

const solver = createSolverLoader();

interface Pool {
  readonly memory: MemoryPlan;
  readonly buffers: Map<number, ArrayBuffer>;
  readonly taken: Map<string, number>;
  garbage: number;
  /** Pooled allocations made (to know the test is not vacuous). */
  pooled: number;
}

let active: Pool | null = null;
const originalAlloc = Runtime.prototype.alloc;
type Site = { readonly array: string; readonly elem: ScalarType };
const views: Record<ScalarType, new (b: ArrayBuffer, offset: number, length: number) => TypedArray> = {
  f64: Float64Array, f32: Float32Array, i32: Int32Array, u32: Uint32Array, bool: Uint8Array,
};

Runtime.prototype.alloc = function alloc(this: Runtime, k: number, n: number): TypedArray {
  const pool = active;
  const site = (this as unknown as { readonly tables: { readonly allocations: readonly Site[] } }).tables.allocations[k]!;
  const ref = pool?.memory.buffers[site.array];
  if (pool === null || ref === undefined || ref.kind === 'result' || ref.kind === 'fresh') return originalAlloc.call(this, k, n);
  if (ref.kind === 'alias') throw new Error(`${site.array} is an alias of ${ref.of} but was allocated`);
  const t = (pool.taken.get(site.array) ?? 0) + 1;
  pool.taken.set(site.array, t);
  const slot = ref.kind === 'slot' ? ref.slot : ref.slots[t % 2]!;
  const bytes = n * elementBytes(site.elem);
  const planned = pool.memory.slots[slot]!.bytes;
  if (planned !== null && bytes > planned) throw new Error(`${site.array}: ${bytes} bytes in slot ${slot} of ${planned}`);
  let buffer = pool.buffers.get(slot);
  if (buffer === undefined || buffer.byteLength < bytes) {
    buffer = new ArrayBuffer(Math.max(bytes, planned ?? 0, 8));
    pool.buffers.set(slot, buffer);
  }
  new Uint8Array(buffer).fill(pool.garbage = (pool.garbage * 37 + 11) % 251);
  pool.pooled++;
  return new views[site.elem](buffer, 0, n);
};
afterAll(() => {
  Runtime.prototype.alloc = originalAlloc;
});

function entryOf(program: Program, inputs: readonly InterfaceValue[]): EntrySizes {
  const out: Record<string, readonly number[] | number> = {};
  program.params.forEach((param, i) => {
    const value = inputs[i]!;
    const values = Array.isArray(value) ? value : [value];
    param.components.forEach((c, k) => {
      const v = values[k]!;
      out[c.name] = v.kind === 'array' ? v.shape : v.value;
    });
  });
  return out;
}

type Outcome = { readonly ok: true; readonly values: readonly number[][] } | { readonly ok: false; readonly error: string };

function flat(results: readonly InterfaceValue[]): number[][] {
  return results.flatMap((r) => (Array.isArray(r) ? r : [r])).map((v) => (v.kind === 'array' ? Array.from(v.data) : [v.value]));
}

async function outcome(run: () => Promise<{ results: InterfaceValue[] }>): Promise<Outcome> {
  try {
    return { ok: true, values: flat((await run()).results) };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

let pooledTotal = 0;

async function check(seed: number, size: 'small' | 'medium', strategies: readonly Strategy[]): Promise<void> {
  const c = randomProgram(seed, generatorSizes[size]);
  const entry = entryOf(c.program, c.inputs);
  for (const strategy of strategies) {
    const p = await plan(c.program, { strategy, solver, shapes: entry });
    for (const memory of [planMemory(c.program, p, entry), planMemory(c.program, p)]) {
      const exe = jsBackend.compile(c.program, p, { memory, maxWhileIterations: 1000 });
      const plain = await outcome(async () => exe.run(c.inputs));
      const pool: Pool = { memory, buffers: new Map(), taken: new Map(), garbage: seed % 251, pooled: 0 };
      active = pool;
      const pooled = await outcome(async () => exe.run(c.inputs));
      active = null;
      pooledTotal += pool.pooled;
      const same = JSON.stringify(pooled, (_, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v)) ===
        JSON.stringify(plain, (_, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v));
      expect(same, `${c.description}, ${strategy}, ${memory.dynamicSlots} dynamic slots`).toBe(true);
      exe.dispose();
    }
  }
}

describe('random programs run from their memory plans give the results of fresh arrays', () => {
  it('small programs, every strategy', async () => {
    for (let seed = 1; seed <= 120; seed++) await check(seed, 'small', ['ilp', 'greedy-down', 'greedy-up', 'none']);
    expect(pooledTotal).toBeGreaterThan(100);
  }, 120_000);

  it('medium programs, heuristic strategies', async () => {
    for (let seed = 2000; seed < 2150; seed++) await check(seed, 'medium', ['greedy-down', 'greedy-up', 'none']);
  }, 120_000);
});

/** Loops and branches written to trap a wrong plan: swaps, permutations, carried scatters, nested loops, branches returning outer arrays. */
const adversarial: readonly string[] = [
  `
def main(xs: f64[n], k: i32):
  ys = xs
  i = 0
  while i < k:
    zs = map(lam x: x * 0.5, ys)
    ys = zipWith(lam a, b: a + b, zs, reverse(ys))
    i = i + 1
  return ys, xs`,
  `
def main(xs: f64[n], k: i32):
  x = map(lam v: v + 1.0, xs)
  y = map(lam v: v * 2.0, xs)
  i = 0
  while i < k:
    x, y = y, map(lam v: v * 3.0 + 1.0, reverse(x))
    i = i + 1
  return x, y`,
  `
def main(xs: f64[n], k: i32):
  x = map(lam v: v + 1.0, xs)
  y = map(lam v: v * 2.0, xs)
  i = 0
  while i < k:
    x, y = y, x
    i = i + 1
  return x, y, map(lam a: a * 2.0, x)`,
  `
def main(xs: f64[n], k: i32):
  x = map(lam v: v + 1.0, xs)
  i = 0
  while i < k:
    z = map(lam v: v * 3.0, reverse(x))
    x, y = z, z
    i = i + 1
  return x`,
  `
def main(xs: f64[n], k: i32):
  hs = map(lam x: 0.0, xs)
  i = 0
  while i < k:
    hs = scatter(+, hs, zip(map(lam x: i32(x * 7.0) % size(xs), xs), map(lam x: x + 1.0, reverse(hs))))
    i = i + 1
  return hs`,
  `
def main(xs: f64[n], k: i32):
  ys = xs
  i = 0
  while i < k:
    zs = map(lam x: x + 1.0, reverse(ys))
    j = 0
    while j < k:
      zs = map(lam x: x * 0.5, reverse(zs))
      j = j + 1
    ys = zipWith(lam a, b: a - b, zs, reverse(ys))
    i = i + 1
  return ys`,
  `
def main(xs: f64[n], k: i32):
  ys = map(lam x: x + 1.0, xs)
  i = 0
  while i < k:
    if i % 2 == 0:
      ys = map(lam x: x + 1.0, reverse(ys))
    i = i + 1
  return ys`,
  `
def main(xs: f64[n], k: i32):
  r = map(lam v: v + 1.0, xs)
  if k > 1:
    q = map(lam v: v * 2.0, reverse(r))
  else:
    q = r
  s = map(lam v: v - 1.0, reverse(q))
  return q, s, r`,
  `
def main(xs: f64[n], k: i32):
  a = map(lam x: x + 1.0, xs)
  s = a[2]
  b = map(lam x: x * 2.0, reverse(xs))
  c = map(lam x: x - 1.0, reverse(b))
  ys = c
  i = 0
  while i < k:
    t = ys[1]
    ys = map(lam x: x + t + s, reverse(ys))
    i = i + 1
  return ys`,
  `
def main(xs: f64[n], k: i32):
  ps = zip(xs, map(lam x: x * 2.0, xs))
  i = 0
  while i < k:
    ps = map(lam p: (p[1], p[0] + p[1]), reverse(ps))
    i = i + 1
  return ps`,
];

describe('adversarial loops and branches run from their memory plans', () => {
  it.each(adversarial.map((src, k) => [k, src] as const))('program %i', async (_, src) => {
    const { Compiler, entrySizes } = await import('../../src/driver/index.js');
    const compiler = new Compiler(src);
    for (const k of [0, 1, 2, 3, 5]) {
      const signature = { xs: { kind: 'array' as const, elem: 'f64' as const, shape: [7] }, k: { kind: 'scalar' as const, elem: 'i32' as const } };
      const program = compiler.lower(signature);
      const inputs: InterfaceValue[] = [
        { kind: 'array', elem: 'f64', shape: [7], data: Float64Array.from({ length: 7 }, (_, i) => i * 1.5 - 2) },
        { kind: 'scalar', elem: 'i32', value: k },
      ];
      for (const strategy of ['ilp', 'greedy-down', 'greedy-up', 'none'] as const) {
        const p = await compiler.plan(signature, { strategy });
        const memory = planMemory(program, p, entrySizes(signature));
        const exe = jsBackend.compile(program, p, { memory });
        const plain = await outcome(async () => exe.run(inputs));
        const pool: Pool = { memory, buffers: new Map(), taken: new Map(), garbage: 3, pooled: 0 };
        active = pool;
        const pooled = await outcome(async () => exe.run(inputs));
        active = null;
        expect(pooled, `k = ${k}, ${strategy}`).toEqual(plain);
        expect(plain.ok, `k = ${k}, ${strategy}`).toBe(true);
      }
    }
  });
});

describe('the benchmark programs run from their memory plans', () => {
  async function compare(file: string, named: Readonly<Record<string, { readonly data: Float64Array | Int32Array; readonly shape: readonly number[] } | number>>, strategy: Strategy): Promise<MemoryPlan> {
    const { Compiler } = await import('../../src/driver/index.js');
    const compiler = new Compiler(readFileSync(join(import.meta.dirname, '..', '..', 'bench', 'programs', file), 'utf8'));
    const value = (v: (typeof named)[string]): InterfaceValue =>
      typeof v === 'number'
        ? { kind: 'scalar', elem: 'i32', value: v }
        : { kind: 'array', elem: v.data instanceof Float64Array ? 'f64' : 'i32', shape: v.shape, data: v.data };
    const signature = Object.fromEntries(
      Object.entries(named).map(([k, v]) => [k, typeof v === 'number' ? { kind: 'scalar' as const, elem: 'i32' as const, value: v } : { kind: 'array' as const, elem: v.data instanceof Float64Array ? ('f64' as const) : ('i32' as const), shape: v.shape }]),
    );
    const exe = await compiler.executable(signature, { strategy, timeLimitSeconds: 120 });
    const inputs = exe.program.params.map((p) => value(named[p.name]!));
    const plain = await outcome(async () => exe.run(inputs));
    const pool: Pool = { memory: exe.memory, buffers: new Map(), taken: new Map(), garbage: 5, pooled: 0 };
    active = pool;
    const pooled = await outcome(async () => exe.run(inputs));
    active = null;
    expect(plain.ok).toBe(true);
    expect(pooled).toEqual(plain);
    expect(pool.pooled).toBeGreaterThan(0);
    return exe.memory;
  }

  it.each(['ilp', 'greedy-down'] as const)('LULESH -s 5 (%s): bitwise the results of fresh arrays', async (strategy) => {
    const { luleshInputs } = await import('../../bench/programs/lulesh-reference.js');
    const memory = await compare('lulesh.fuse', luleshInputs(5), strategy);
    expect(Object.values(memory.buffers).some((b) => b.kind === 'pair')).toBe(true);
  }, 300_000);

  it('NAS MG class S (ilp): bitwise the results of fresh arrays', async () => {
    const { zran3 } = await import('../../bench/programs/mg-reference.js');
    const memory = await compare('mg.fuse', { v: { data: zran3(32), shape: [32, 32, 32] }, nit: 4 }, 'ilp');
    expect(memory.dynamicSlots).toBe(0);
  }, 300_000);
});
