// The loop shapes issue 13's loop passes rewrite (the interior/boundary split of stencils,
// loads carried across iterations, register-blocked contractions), as fixed adversarial
// programs: a stencil whose interior is empty, clamps and wraps at run-time bounds and sizes,
// gathers that fault only at the first or the last row (or column), a fault where the interior
// would be, i32 wrap in the index arithmetic, NaN/±inf/−0 data, contractions with a zero-length
// reduction and of 1 × 1, a stencil in a `while` whose grid changes size every iteration, and
// grids with fewer rows than threads. Each runs fused (the ILP plan, lowered with run-time and
// with static extents) on every configuration of backends.ts and must equal the reference
// interpreter bit for bit, or fail with its diagnostic (test/fuzz/loopCheck.ts); several are
// also checked against plain TypeScript loops written here, so a bug the interpreter shares
// with the code generator shows too.

import { describe, expect, test } from 'vitest';
import { Compiler } from '../../src/driver/index.js';
import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { checkLoopCase } from '../fuzz/loopCheck.js';
import { backends, configOf } from './backends.js';
import { registeredBackends, type ExecutionBackend } from '../../src/runtime/index.js';

const solver = createSolverLoader();

type Data = readonly number[];

const f64 = (shape: readonly number[], data: Data): InterfaceValue => ({ kind: 'array', elem: 'f64', shape: [...shape], data: Float64Array.from(data) });
const f32 = (shape: readonly number[], data: Data): InterfaceValue => ({ kind: 'array', elem: 'f32', shape: [...shape], data: Float32Array.from(data) });
const i32 = (shape: readonly number[], data: Data): InterfaceValue => ({ kind: 'array', elem: 'i32', shape: [...shape], data: Int32Array.from(data) });
const int = (value: number): InterfaceValue => ({ kind: 'scalar', elem: 'i32', value });
const real = (value: number): InterfaceValue => ({ kind: 'scalar', elem: 'f64', value });

/**
 * `count` values from a small deterministic sequence, with the specials at fixed places. Not
 * multiples of a power of two (0.1 is not exact), so a sum regrouped rounds differently.
 */
function pattern(count: number, specials: Data = []): number[] {
  return Array.from({ length: count }, (_, k) => (k < specials.length && k % 3 === 1 ? specials[k]! : ((k * 7 + 3) % 11) * 0.1 - 0.55 + (k % 4) * 1e-3));
}

/** The multicore back end with more threads than some grids have rows, chunks of 1 and 2. */
const multicore = (registeredBackends as readonly ExecutionBackend[]).find((b) => b.name === 'multicore')!;
const splitting = [configOf(multicore, { threads: 3, parallelThreshold: 0, chunkLength: 1 }), configOf(multicore, { threads: 2, parallelThreshold: 0, chunkLength: 2 })];

type Inputs = Readonly<Record<string, InterfaceValue>>;

/** The fused code agrees with the interpreter on every input set, every configuration, both lowerings. */
async function agrees(source: string, inputs: readonly Inputs[], extra: boolean = false): Promise<void> {
  const findings = await checkLoopCase({ family: 'fixed', source, inputs }, { solver, configs: extra ? [...backends, ...splitting] : backends });
  expect(findings.map((f) => `=== ${f.where}\n${f.detail}`).join('\n\n')).toBe('');
  // The static lowering is checked on the first set only: the others each get their own.
  for (const set of inputs.slice(1)) {
    const more = await checkLoopCase({ family: 'fixed', source, inputs: [set] }, { solver, configs: backends, runtimeExtents: false });
    expect(more.map((f) => `=== ${f.where}\n${f.detail}`).join('\n\n')).toBe('');
  }
}

/** The interpreter's results (the fused code's too, once `agrees` passed). */
async function interpreted(source: string, inputs: Inputs): Promise<readonly RuntimeValue[]> {
  const compiler = new Compiler(source, { solver });
  return (await compiler.execute(inputs, { interpret: true })).results as RuntimeValue[];
}

/** The interpreter's diagnostic (code and message), or null when it succeeds. */
async function diagnostic(source: string, inputs: Inputs): Promise<string | null> {
  try {
    await interpreted(source, inputs);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Element by element with Object.is (−0 is not 0; NaN equals NaN). */
function expectBits(actual: RuntimeValue, expected: readonly number[], shape: readonly number[]): void {
  expect(actual.kind).toBe('array');
  if (actual.kind !== 'array') return;
  expect([...actual.shape]).toEqual([...shape]);
  const got = Array.from(actual.data, (x) => (Object.is(x, -0) ? '-0' : String(x)));
  expect(got).toEqual(expected.map((x) => (Object.is(x, -0) ? '-0' : String(x))));
}

const floorMod = (a: number, n: number): number => ((a % n) + n) % n;

describe('stencils: interior and boundary', () => {
  const periodic = `
def main(u: f64[n], w: f64):
  n = size(u)
  at = generate(n, lam i: i)
  left = gather(map(lam i: i - 1 if i > 0 else n - 1, at), u)
  right = gather(map(lam i: i + 1 if i < n - 1 else 0, at), u)
  far = gather(map(lam i: (i + 2) % n, at), u)
  back = gather(map(lam i: (i - 2) % n, at), u)
  return map(lam a, b, c, d, e: w * (a + b) + c * 0.25 - (d + e) / 3.0, left, right, far, back, u)
`;
  /** The same, as plain loops. */
  const periodicRef = (u: Data, w: number): number[] =>
    u.map((x, i) => {
      const n = u.length;
      const a = u[i > 0 ? i - 1 : n - 1]!;
      const b = u[i < n - 1 ? i + 1 : 0]!;
      return w * (a + b) + u[(i + 2) % n]! * 0.25 - (u[floorMod(i - 2, n)]! + x) / 3.0;
    });

  test('a 1-D periodic stencil of reach 2 on grids of 0 to 5 points (the interior of 0 to 3 is empty), with NaN, ±inf and −0 data', async () => {
    const sets = [0, 1, 2, 3, 4, 5].map((n) => ({ u: f64([n], pattern(n, [0, -0, 0, Infinity, 0, Number.NaN].slice(0, n))), w: real(n === 3 ? -0 : 0.5) }));
    await agrees(periodic, sets, true);
    for (const set of sets) {
      const u = Array.from((set.u as RuntimeValue & { data: Float64Array }).data);
      const [r] = await interpreted(periodic, set);
      expectBits(r!, periodicRef(u, (set.w as { value: number }).value), [u.length]);
    }
  });

  test('all −0 data: every sum of neighbours stays −0', async () => {
    const source = `
def main(u: f64[n, m]):
  n, m = shape(u)
  return generate((n, m), lam i, j: u[(i + 1) % n, j] + u[i, (j + m - 1) % m] + u[min(max(i - 1, 0), n - 1), min(j + 1, m - 1)])
`;
    const sets = [[3, 3], [1, 1], [2, 5]].map(([n, m]) => ({ u: f64([n!, m!], Array.from({ length: n! * m! }, () => -0)) }));
    await agrees(source, sets);
    const [r] = await interpreted(source, sets[0]!);
    expectBits(r!, Array.from({ length: 9 }, () => -0), [3, 3]);
  });

  // Rodinia hotspot: each cell moves towards its clamped neighbours and the ambient temperature.
  const hotspot = `
def main(t: f64[r, c], p: f64[r, c], step: f64):
  rows, cols = shape(t)
  return generate((rows, cols), lam i, j:
    t[i, j] + step * (p[i, j]
      + (t[min(i + 1, rows - 1), j] + t[max(i - 1, 0), j] - 2.0 * t[i, j]) * 0.5
      + (t[i, min(j + 1, cols - 1)] + t[i, max(j - 1, 0)] - 2.0 * t[i, j]) * 0.25
      + (80.0 - t[i, j]) * 0.125))
`;
  const hotspotRef = (t: Data, p: Data, rows: number, cols: number, step: number): number[] => {
    const at = (i: number, j: number): number => t[i * cols + j]!;
    const out: number[] = [];
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const x = at(i, j);
        out.push(
          x +
            step *
              (p[i * cols + j]! +
                (at(Math.min(i + 1, rows - 1), j) + at(Math.max(i - 1, 0), j) - 2.0 * x) * 0.5 +
                (at(i, Math.min(j + 1, cols - 1)) + at(i, Math.max(j - 1, 0)) - 2.0 * x) * 0.25 +
                (80.0 - x) * 0.125),
        );
      }
    }
    return out;
  };

  test('Rodinia hotspot (clamped neighbours) on 1 × 1, 1 × 7, 2 × 2, 3 × 5 and 7 × 4 grids equals plain loops', async () => {
    const shapes = [[1, 1], [1, 7], [2, 2], [3, 5], [7, 4], [0, 3]];
    const sets = shapes.map(([rows, cols]) => ({ t: f64([rows!, cols!], pattern(rows! * cols!)), p: f64([rows!, cols!], pattern(rows! * cols!).reverse()), step: real(0.1) }));
    await agrees(hotspot, sets, true);
    for (const [k, [rows, cols]] of shapes.entries()) {
      const set = sets[k]!;
      const [r] = await interpreted(hotspot, set);
      expectBits(r!, hotspotRef(pattern(rows! * cols!), pattern(rows! * cols!).reverse(), rows!, cols!, 0.1), [rows!, cols!]);
    }
  });

  test('Rodinia hotspot on a 61 × 67 grid (an interior to speak of, rows split between threads) equals plain loops', async () => {
    const t = pattern(61 * 67, [0, Number.NaN, 0, 0, -0]);
    const p = pattern(61 * 67).map((x) => x * 3);
    const set = { t: f64([61, 67], t), p: f64([61, 67], p), step: real(0.3) };
    await agrees(hotspot, [set], true);
    const [r] = await interpreted(hotspot, set);
    expectBits(r!, hotspotRef(t, p, 61, 67, 0.3), [61, 67]);
  });

  test('a clamp whose bounds are run-time scalars: inside, at, and past the grid (past it, the high edge faults)', async () => {
    const source = `
def main(u: f64[n, m], lo: i32, hi: i32):
  n, m = shape(u)
  g = gather(generate((n, m), lam i, j: (i, min(max(j - 1, lo), hi))), u)
  h = gather(generate((n, m), lam i, j: (min(max(i + 1, lo), hi), j)), u)
  return zipWith(lam a, b: a - 0.5 * b, g, h)
`;
    const u = f64([3, 4], pattern(12));
    await agrees(source, [{ u, lo: int(0), hi: int(2) }, { u, lo: int(1), hi: int(1) }, { u, lo: int(0), hi: int(3) }, { u, lo: int(2), hi: int(0) }], true);
    // hi = 3 reaches past the last row (n = 3) in h only: the first fault is at row 2.
    expect(await diagnostic(source, { u, lo: int(0), hi: int(3) })).toMatch(/E402|out of range/);
  });

  test('a wrap at a run-time size (`% m`, m a scalar): m below the grid, equal to it, and 0 (integer % by zero faults)', async () => {
    const source = `
def main(u: i32[n], m: i32):
  n = size(u)
  return generate(n, lam i: u[(i + 1) % m] * 3 + u[(i + m - 1) % m])
`;
    const u = i32([6], [5, -7, 2147483647, 0, -2147483648, 9]);
    const sets = [3, 6, 1].map((m) => ({ u, m: int(m) }));
    await agrees(source, [...sets, { u, m: int(0) }], true);
    for (const set of sets) {
      const m = (set.m as { value: number }).value;
      const data = [5, -7, 2147483647, 0, -2147483648, 9];
      const [r] = await interpreted(source, set);
      expectBits(r!, data.map((_, i) => (Math.imul(data[floorMod(i + 1, m)]!, 3) + data[floorMod(i + m - 1, m)]!) | 0), [6]);
    }
    expect(await diagnostic(source, { u, m: int(0) })).toMatch(/E401|zero/);
  });

  test('i32 wrap in the index arithmetic: an offset near 2^31 makes `i + s` negative, which the clamp catches', async () => {
    const source = `
def main(u: f64[n], s: i32):
  n = size(u)
  return generate(n, lam i: u[min(max(i + s, 0), n - 1)] - u[max(min(i - s, n - 1), 0)])
`;
    const u = f64([5], [1, 2, 4, 8, 16]);
    const offsets = [2147483647, 2147483646, -2147483648, -2147483647, 1073741824, 3];
    await agrees(source, offsets.map((s) => ({ u, s: int(s) })), true);
    for (const s of offsets) {
      const [r] = await interpreted(source, { u, s: int(s) });
      const d = [1, 2, 4, 8, 16];
      expectBits(r!, d.map((_, i) => d[Math.min(Math.max((i + s) | 0, 0), 4)]! - d[Math.max(Math.min((i - s) | 0, 4), 0)]!), [5]);
    }
  });
});

describe('stencils: faults at an edge raise the interpreter\'s first error', () => {
  const shapes = [[3, 4], [1, 1], [2, 1], [1, 3], [4, 2]];
  const grid = (n: number, m: number): Inputs => ({ u: f64([n, m], pattern(n * m)) });

  test.each([
    ['the last row only', '(i + 1, j)'],
    ['the first row only', '(i - 1, j)'],
    ['the last column of every row (the first row first)', '(i, j + 1)'],
    ['the first column, stride 2 restriction', '(2 * i + 1, j - 1)'],
  ])('a gather that faults at %s', async (_, index) => {
    const source = `
def main(u: f64[n, m]):
  n, m = shape(u)
  c = gather(generate((n, m), lam i, j: (i, j)), u)
  e = gather(generate((n, m), lam i, j: ((i + 1) % n, min(j + 1, m - 1))), u)
  f = gather(generate((n, m), lam i, j: ${index}), u)
  return map(lam a, b, x: a * 0.5 + b * 0.25 + x, c, e, f)
`;
    await agrees(source, shapes.map(([n, m]) => grid(n!, m!)), true);
    expect(await diagnostic(source, grid(3, 4))).toMatch(/E402/);
  });

  test('an indexing stencil whose reads fault at the low edge of one axis and the high edge of another', async () => {
    const source = `
def main(u: f64[n, m, l]):
  n, m, l = shape(u)
  return generate((n, m, l), lam i, j, k: u[(i + 1) % n, j, k] + u[i, j - 1 if j > 1 else j, k + 1] + 2.0 * u[i, j, k])
`;
    await agrees(source, [[2, 3, 4], [1, 1, 1], [3, 2, 1], [2, 2, 2]].map(([n, m, l]) => ({ u: f64([n!, m!, l!], pattern(n! * m! * l!)) })), true);
  });

  test('a fault where the interior would be: integer `//` by a zero in the middle of the grid', async () => {
    const source = `
def main(u: i32[n, m]):
  n, m = shape(u)
  return generate((n, m), lam i, j: u[(i + n - 1) % n, j] // u[i, j] + u[i, min(max(j + 1, 0), m - 1)])
`;
    const data = Array.from({ length: 25 }, (_, k) => (k === 12 ? 0 : k - 7 === 0 ? -1 : k - 7));
    await agrees(source, [{ u: i32([5, 5], data) }, { u: i32([5, 5], data.map((x) => (x === 0 ? 3 : x))) }], true);
    expect(await diagnostic(source, { u: i32([5, 5], data) })).toMatch(/E401/);
  });
});

describe('stencils in control flow', () => {
  test('a stencil in a `while` whose grid shrinks by one row and column every iteration (to below its reach, then to 0)', async () => {
    const source = `
def step(u):
  n, m = shape(u)
  at = generate((n, m), lam i, j: (i, j))
  north = gather(map(lam p: (p[0] - 1 if p[0] > 0 else n - 1, p[1]), at), u)
  east = gather(map(lam p: (p[0], min(p[1] + 1, m - 1)), at), u)
  far = gather(map(lam p: ((p[0] + 2) % n, max(p[1] - 2, 0)), at), u)
  return map(lam a, b, c, d: 0.5 * a + 0.25 * (b + c) - d / 3.0, u, north, east, far)

def main(u: f64[n, m], iters: i32):
  q = 0
  while q < iters:
    n, m = shape(u)
    u = gather(generate((max(n - 1, 0), max(m - 1, 0)), lam i, j: (i, j)), step(u))
    q = q + 1
  return u
`;
    await agrees(source, [0, 1, 3, 5, 7].map((iters) => ({ u: f64([5, 6], pattern(30, [0, Number.NaN, 0, 0, -Infinity])), iters: int(iters) })), true);
  });

  test('restriction then prolongation in a `while` (the grid halves, then doubles, each iteration)', async () => {
    const source = `
def restrict(u):
  n = size(u)
  return generate(n // 2, lam i: 0.5 * u[2 * i + 1] + 0.25 * (u[2 * i] + u[(2 * i + 2) % n]))

def prolong(z, n):
  c = size(z)
  return generate(n, lam f: z[(f - 1) // 2 if f > 0 else c - 1] * 0.5 + z[f // 2 if f // 2 < c else c - 1] * 0.5)

def main(u: f64[n], iters: i32):
  q = 0
  while q < iters:
    u = map(lam a, b: a - b, u, prolong(restrict(u), size(u)))
    q = q + 1
  return u
`;
    await agrees(source, [2, 3, 4, 8, 9].map((n) => ({ u: f64([n], pattern(n)), iters: int(2) })), true);
  });

  test('a stencil in each branch of a run-time `if`', async () => {
    const source = `
def main(u: f32[n], flip: i32):
  n = size(u)
  if flip > 0:
    r = generate(n, lam i: u[(i + 1) % n] - u[i])
  else:
    r = generate(n, lam i: u[min(i + 1, n - 1)] * 0.5 + u[max(i - 1, 0)] * 0.5)
  return r
`;
    const u = f32([5], [1.1, -0, 3.3, Number.NaN, 1e30]);
    await agrees(source, [{ u, flip: int(1) }, { u, flip: int(0) }, { u: f32([1], [2.5]), flip: int(0) }], true);
    const [r] = await interpreted(source, { u, flip: int(0) });
    const d = Array.from(Float32Array.from([1.1, -0, 3.3, Number.NaN, 1e30]));
    const f = Math.fround;
    expectBits(r!, d.map((_, i) => f(f(d[Math.min(i + 1, 4)]! * 0.5) + f(d[Math.max(i - 1, 0)]! * 0.5))), [5]);
  });

  test('a stencil returning a tuple (sum and difference of the same neighbours)', async () => {
    const source = `
def main(u: f64[n, m]):
  n, m = shape(u)
  s, d = unzip(generate((n, m), lam i, j: (u[(i + 1) % n, j] + u[i, (j + 1) % m], u[(i + 1) % n, j] - u[i, (j + 1) % m])))
  return s, d
`;
    await agrees(source, [[3, 3], [1, 2], [4, 5]].map(([n, m]) => ({ u: f64([n!, m!], pattern(n! * m!, [0, -0, 0, Infinity])) })), true);
  });

  test('a 27-point periodic stencil (NPB MG resid\'s shape) on 1³, 2³, 3³ and 4 × 3 × 5 grids', async () => {
    const source = `
def wrap(f, d, n):
  if d == 0:
    return f
  elif d == 1:
    return f + 1 if f < n - 1 else 0
  else:
    return f - 1 if f > 0 else n - 1

def main(u: f64[a, b, c], v: f64[a, b, c]):
  n0, n1, n2 = shape(u)
  return generate((n0, n1, n2), lam i, j, k:
    v[i, j, k] - (-8.0 / 3.0 * u[i, j, k]
      + 1.0 / 6.0 * (u[wrap(i, -1, n0), wrap(j, -1, n1), k] + u[wrap(i, 1, n0), wrap(j, 1, n1), k] + u[wrap(i, -1, n0), j, wrap(k, 1, n2)] + u[i, wrap(j, 1, n1), wrap(k, -1, n2)])
      + 1.0 / 12.0 * (u[wrap(i, -1, n0), wrap(j, -1, n1), wrap(k, -1, n2)] + u[wrap(i, 1, n0), wrap(j, 1, n1), wrap(k, 1, n2)] + u[wrap(i, 1, n0), wrap(j, -1, n1), wrap(k, 1, n2)])))
`;
    await agrees(source, [[1, 1, 1], [2, 2, 2], [3, 3, 3], [4, 3, 5]].map(([a, b, c]) => ({ u: f64([a!, b!, c!], pattern(a! * b! * c!)), v: f64([a!, b!, c!], pattern(a! * b! * c!).reverse()) })), true);
  });
});

describe('contractions', () => {
  const matmul = (elem: string): string => `
def main(a: ${elem}[n, k], b: ${elem}[k, m]):
  n, k = shape(a)
  k2, m = shape(b)
  as = gather(generate((n, m, k), lam i, j, l: (i, l)), a)
  bs = gather(generate((n, m, k), lam i, j, l: (l, j)), b)
  return fold(+, zipWith(*, as, bs))
`;
  /** A·B as plain loops, each output summed in k order from 0 (`round` for f32 and i32 arithmetic). */
  const matmulRef = (a: Data, b: Data, n: number, k: number, m: number, add: (x: number, y: number) => number, mul: (x: number, y: number) => number): number[] => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < m; j++) {
        let acc = 0;
        for (let l = 0; l < k; l++) acc = add(acc, mul(a[i * k + l]!, b[l * m + j]!));
        out.push(acc);
      }
    }
    return out;
  };
  const shapes = [[1, 1, 1], [2, 0, 3], [0, 2, 2], [3, 5, 2], [5, 3, 7], [4, 4, 4], [1, 9, 1]];

  test.each([
    ['f64', f64, (x: number, y: number) => x + y, (x: number, y: number) => x * y],
    ['f32', f32, (x: number, y: number) => Math.fround(x + y), (x: number, y: number) => Math.fround(x * y)],
    ['i32', i32, (x: number, y: number) => (x + y) | 0, (x: number, y: number) => Math.imul(x, y)],
  ] as const)('%s A·B on 1 × 1 × 1, zero-length reductions (result 0), odd and square extents equals plain loops', async (elem, make, add, mul) => {
    const source = matmul(elem);
    const data = (count: number, seed: number): number[] =>
      elem === 'i32'
        ? Array.from({ length: count }, (_, x) => (x % 5 === 2 ? 2147483647 - x : ((x * seed) % 13) - 6))
        : Array.from({ length: count }, (_, x) => (x === 3 ? -0 : x === 5 && seed === 3 ? Number.NaN : x === 8 ? Infinity : ((x * seed) % 13) * 0.3 - 1.9 + x * 1e-7));
    const sets = shapes.map(([n, k, m]) => ({ a: make([n!, k!], data(n! * k!, 3)), b: make([k!, m!], data(k! * m!, 5)) }));
    await agrees(source, sets, true);
    for (const [x, [n, k, m]] of shapes.entries()) {
      const a = Array.from((sets[x]!.a as { data: ArrayLike<number> }).data);
      const b = Array.from((sets[x]!.b as { data: ArrayLike<number> }).data);
      const [r] = await interpreted(source, sets[x]!);
      expectBits(r!, matmulRef(a, b, n!, k!, m!, add, mul), [n!, m!]);
    }
  });

  test('f64 A·B of 33 × 29 × 17 (rows and columns not multiples of any block) equals plain loops', async () => {
    const a = pattern(33 * 29).map((x, k) => x + k * 1e-5);
    const b = pattern(29 * 17).map((x, k) => x * 1.7 - k * 1e-4);
    const set = { a: f64([33, 29], a), b: f64([29, 17], b) };
    await agrees(matmul('f64'), [set], true);
    const [r] = await interpreted(matmul('f64'), set);
    expectBits(r!, matmulRef(a, b, 33, 29, 17, (x, y) => x + y, (x, y) => x * y), [33, 17]);
  });

  test('a seeded contraction over zero elements is its seed, −0 included', async () => {
    const source = `
def main(a: f64[n, k], b: f64[m, k], z: f64):
  n, k = shape(a)
  m, k2 = shape(b)
  as = gather(generate((n, m, k), lam i, j, l: (i, l)), a)
  bs = gather(generate((n, m, k), lam i, j, l: (j, l)), b)
  return fold(+, z, zipWith(*, as, bs))
`;
    const sets = [-0, 1.5, Number.NaN].map((z) => ({ a: f64([2, 0], []), b: f64([3, 0], []), z: real(z) }));
    await agrees(source, [...sets, { a: f64([1, 1], [-0]), b: f64([1, 1], [5]), z: real(-0) }], true);
    const [r] = await interpreted(source, sets[0]!);
    expectBits(r!, [-0, -0, -0, -0, -0, -0], [2, 3]);
  });

  // FlashAttention's blockScores and blockProduct, with its mask and softmax between them.
  const attention = `
def rowBlock(x, j, b):
  n, d = shape(x)
  return gather(generate((b, d), lam r, c: (min(j * b + r, n - 1), c)), x)

def main(qb: f64[t, br, d], K: f64[n, d], V: f64[n, d], j: i32, bc: i32):
  t, br, d = shape(qb)
  n, d2 = shape(K)
  kb = rowBlock(K, j, bc)
  vb = rowBlock(V, j, bc)
  qs = gather(generate((t, br, bc, d), lam i, r, c, k: (i, r, k)), qb)
  ks = gather(generate((t, br, bc, d), lam i, r, c, k: (c, k)), kb)
  s = zipWith(lam x, isReal: x * 0.125 if isReal else -inf, fold(+, zipWith(*, qs, ks)), generate((t, br, bc), lam i, r, c: j * bc + c < n))
  mx = maximum(s)
  p = zipWith(lam x, m: exp(x - m), s, gather(generate((t, br, bc), lam i, r, c: (i, r)), mx))
  ps = gather(generate((t, br, d, bc), lam i, r, c, k: (i, r, k)), p)
  vs = gather(generate((t, br, d, bc), lam i, r, c, k: (k, c)), vb)
  return fold(+, zipWith(*, ps, vs)), mx
`;

  test('FlashAttention\'s batched block products with the padding mask: blocks past the end, a block of 1, of 0 keys, and d = 1', async () => {
    const set = (t: number, br: number, d: number, n: number, j: number, bc: number): Inputs => ({
      qb: f64([t, br, d], pattern(t * br * d)),
      K: f64([n, d], pattern(n * d).reverse()),
      V: f64([n, d], pattern(n * d, [0, -0, 0, 7.5])),
      j: int(j),
      bc: int(bc),
    });
    await agrees(attention, [set(2, 3, 4, 5, 0, 2), set(2, 3, 4, 5, 2, 2), set(1, 1, 1, 1, 0, 1), set(3, 2, 1, 4, 1, 3), set(2, 2, 3, 3, 0, 0)], true);
  });

  test('a contraction of a contraction (P·V after Q·Kᵀ) in a `while` over key blocks, the block count changing the reduction length', async () => {
    const source = `
def mm(a, b):
  n, k = shape(a)
  k2, m = shape(b)
  return fold(+, generate((n, m, k), lam i, j, l: a[i, l] * b[l, j]))

def main(q: f64[n, d], kv: f64[n, d], blocks: i32):
  n, d = shape(q)
  o = generate((n, d), lam i, c: 0.0)
  jb = 0
  while jb < blocks:
    rows = min(jb + 1, n)
    kb = gather(generate((rows, d), lam r, c: (min(jb + r, n - 1), c)), kv)
    s = mm(q, transpose(kb))
    o = zipWith(+, o, mm(s, kb))
    jb = jb + 1
  return o
`;
    await agrees(source, [[1, 1, 1], [3, 2, 3], [4, 3, 2], [2, 5, 0], [0, 2, 2]].map(([n, d, blocks]) => ({ q: f64([n!, d!], pattern(n! * d!)), kv: f64([n!, d!], pattern(n! * d!).reverse()), blocks: int(blocks!) })), true);
  });

  test('i32 contraction whose products and sums wrap around 2^31', async () => {
    const source = matmul('i32');
    const big = [2147483647, -2147483648, 65536, 65536, -1, 46341];
    await agrees(source, [{ a: i32([2, 3], big), b: i32([3, 2], [...big].reverse()) }, { a: i32([3, 2], big), b: i32([2, 3], big) }], true);
    const [r] = await interpreted(source, { a: i32([2, 3], big), b: i32([3, 2], [...big].reverse()) });
    const rev = [...big].reverse();
    expectBits(r!, matmulRef(big, rev, 2, 3, 2, (x, y) => (x + y) | 0, Math.imul), [2, 2]);
  });
});
