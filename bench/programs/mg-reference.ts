// NAS Parallel Benchmarks MG (NPB 3.4): the pieces that are not the kernel. The right-hand side
// `zran3` (the benchmark's initialisation: a sequential linear congruential generator, so it is
// made here and handed to bench/programs/mg.fuse as an input), the official verification values,
// and a plain TypeScript V-cycle written from the benchmark's definition, which is an independent
// oracle for sizes that have no official value.
//
// Grids are n × n × n, periodic, stored row-major with the last index fastest (NPB's i1), and
// hold only the interior points: the reference code's ghost layers are periodic copies, so every
// stencil here reads its neighbours with indices taken modulo n instead.

/** An NPB problem class: the grid size, the number of V-cycles, and the official final norm. */
export interface MgClass {
  readonly name: string;
  readonly n: number;
  readonly nit: number;
  /** The official L2 norm of the final residual (NPB 3.4 `mg.f`, `verify_value`). */
  readonly verifyValue: number;
}

/** The classes whose smoother is S(a), c = (−3/8, 1/32, −1/64, 0): the ones mg.fuse implements. */
export const MG_CLASSES: { readonly S: MgClass; readonly W: MgClass; readonly A: MgClass } = {
  S: { name: 'S', n: 32, nit: 4, verifyValue: 0.5307707005734e-4 },
  W: { name: 'W', n: 128, nit: 4, verifyValue: 0.6467329375339e-5 },
  A: { name: 'A', n: 256, nit: 4, verifyValue: 0.2433365309069e-5 },
};

/** NPB's acceptance threshold on the relative error of the final norm. */
export const MG_EPSILON = 1e-8;

export function relativeError(value: number, reference: number): number {
  return Math.abs(value - reference) / Math.abs(reference);
}

const TWO_23 = 2 ** 23;
const TWO_46 = 2 ** 46;

/** The NPB generator's multiplier 5^13 and seed. */
const LCG_MULTIPLIER = 5 ** 13;
const LCG_SEED = 314159265;

/**
 * `a · x mod 2^46`, exactly, in doubles: both factors are split at 2^23 so that every partial
 * product and sum stays below 2^53 (the product itself, up to 2^77, would be rounded).
 */
function mulMod46(a: number, x: number): number {
  const aHigh = Math.floor(a / TWO_23);
  const aLow = a - aHigh * TWO_23;
  const xHigh = Math.floor(x / TWO_23);
  const xLow = x - xHigh * TWO_23;
  const cross = (aHigh * xLow + aLow * xHigh) % TWO_23;
  return (cross * TWO_23 + aLow * xLow) % TWO_46;
}

/** Positions of the `count` largest (or smallest) values; on ties the earlier position wins, as in NPB. */
function extremePositions(values: Float64Array, count: number, largest: boolean): number[] {
  const better = (x: number, y: number): boolean => (largest ? x > y : x < y);
  // A small sorted list (best last), like NPB's `ten` arrays: one pass, no full sort.
  const best: { value: number; at: number }[] = [];
  values.forEach((value, at) => {
    if (best.length === count && !better(value, best[0]!.value)) return;
    if (best.length === count) best.shift();
    let k = 0;
    while (k < best.length && better(value, best[k]!.value)) k++;
    best.splice(k, 0, { value, at });
  });
  return best.map((b) => b.at);
}

/**
 * NPB's `zran3` right-hand side on an n × n × n grid: the generator's values x₁, x₂, … (x_{k+1} =
 * 5^13 · x_k mod 2^46, x₀ = 314159265, scaled by 2^−46) fill the grid in row-major order; the
 * result is +1 at the ten largest of them, −1 at the ten smallest, 0 elsewhere.
 */
export function zran3(n: number): Float64Array {
  const size = n * n * n;
  const random = new Float64Array(size);
  let x = LCG_SEED;
  for (let k = 0; k < size; k++) {
    x = mulMod46(LCG_MULTIPLIER, x);
    random[k] = x / TWO_46;
  }
  const v = new Float64Array(size);
  for (const at of extremePositions(random, 10, false)) v[at] = -1;
  for (const at of extremePositions(random, 10, true)) v[at] = 1;
  return v;
}

/** Four weights of a symmetric 27-point stencil: centre, 6 faces, 12 edges, 8 corners. */
type Weights = readonly [number, number, number, number];

/** The operator A of the discrete Poisson problem. */
export const MG_OPERATOR: Weights = [-8 / 3, 0, 1 / 6, 1 / 12];
/** The smoother S(a) of classes S, W and A. */
export const MG_SMOOTHER: Weights = [-3 / 8, 1 / 32, -1 / 64, 0];
const RESTRICTION: Weights = [1 / 2, 1 / 4, 1 / 8, 1 / 16];

/** The weighted 27-point sum of periodic grid `u` (side n) around point (i, j, k). */
function stencilAt(w: Weights, u: Float64Array, n: number, i: number, j: number, k: number): number {
  const at = (a: number, b: number, c: number): number => u[(((a + n) % n) * n + ((b + n) % n)) * n + ((c + n) % n)]!;
  let faces = 0;
  let edges = 0;
  let corners = 0;
  for (let a = -1; a <= 1; a++) {
    for (let b = -1; b <= 1; b++) {
      for (let c = -1; c <= 1; c++) {
        const distance = Math.abs(a) + Math.abs(b) + Math.abs(c);
        const x = at(i + a, j + b, k + c);
        if (distance === 1) faces += x;
        else if (distance === 2) edges += x;
        else if (distance === 3) corners += x;
      }
    }
  }
  return w[0] * at(i, j, k) + w[1] * faces + w[2] * edges + w[3] * corners;
}

function tabulate(n: number, f: (i: number, j: number, k: number) => number): Float64Array {
  const out = new Float64Array(n * n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) for (let k = 0; k < n; k++) out[(i * n + j) * n + k] = f(i, j, k);
  return out;
}

/** r = v − A u. */
function resid(u: Float64Array, v: Float64Array, n: number): Float64Array {
  return tabulate(n, (i, j, k) => v[(i * n + j) * n + k]! - stencilAt(MG_OPERATOR, u, n, i, j, k));
}

/** u + S r. */
function psinv(u: Float64Array, r: Float64Array, n: number): Float64Array {
  return tabulate(n, (i, j, k) => u[(i * n + j) * n + k]! + stencilAt(MG_SMOOTHER, r, n, i, j, k));
}

/** Restriction to the grid of side n/2: coarse point J sits on fine point 2J + 1. */
function rprj3(r: Float64Array, n: number): Float64Array {
  return tabulate(n / 2, (i, j, k) => stencilAt(RESTRICTION, r, n, 2 * i + 1, 2 * j + 1, 2 * k + 1));
}

/**
 * Trilinear prolongation from the grid of side n/2 to side n: along each axis fine point 2J + 1
 * is coarse J, and fine point 2J is the mean of coarse J − 1 and J (periodically).
 */
function interp(z: Float64Array, n: number): Float64Array {
  const m = n / 2;
  const below = (f: number): number => ((f + n - 1) % n) >> 1;
  const above = (f: number): number => (f >> 1) % m;
  return tabulate(n, (i, j, k) => {
    let sum = 0;
    for (const a of [below(i), above(i)]) for (const b of [below(j), above(j)]) for (const c of [below(k), above(k)]) sum += z[(a * m + b) * m + c]!;
    return sum / 8;
  });
}

/** The correction a V-cycle computes for residual r on the grid of side n (NPB mg3P below the top). */
function vcycle(r: Float64Array, n: number): Float64Array {
  if (n === 2) return psinv(new Float64Array(8), r, n);
  const u = interp(vcycle(rprj3(r, n), n / 2), n);
  return psinv(u, resid(u, r, n), n);
}

/**
 * The whole benchmark (the timed part of NPB MG) on right-hand side v of side n: u = 0,
 * r = v − A u, then nit times { u = mg3P(u, v, r); r = v − A u }; returns the L2 norm
 * sqrt(Σ r² / n³) of the final residual.
 */
export function mgReference(v: Float64Array, n: number, nit: number): number {
  let u: Float64Array = new Float64Array(n * n * n);
  let r = resid(u, v, n);
  for (let it = 0; it < nit; it++) {
    // mg3P at the top level adds the prolonged correction to u, then smooths against v itself.
    const correction = interp(vcycle(rprj3(r, n), n / 2), n);
    const prolonged = u.map((x, p) => x + correction[p]!);
    u = psinv(prolonged, resid(prolonged, v, n), n);
    r = resid(u, v, n);
  }
  return Math.sqrt(r.reduce((s, x) => s + x * x, 0) / (n * n * n));
}
