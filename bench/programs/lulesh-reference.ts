// LULESH 2.0 (LLNL's Livermore Unstructured Lagrangian Explicit Shock Hydrodynamics proxy app,
// the Sedov blast problem on an nx × nx × nx cube): the pieces that are not the kernel, and an
// independent plain TypeScript step.
//
// - `luleshMesh(nx)` is the set-up of lulesh-init.cc: node coordinates, element-to-node lists,
//   the node-to-element corner lists the .fuse program gathers nodal forces with (the set-up's
//   equivalent of LULESH's nodeElemCornerList), neighbour elements, symmetry and free-surface
//   masks, initial volumes and masses, the initial energy and time step. Set-up is not the
//   timed kernel, so it is made here and handed to bench/programs/lulesh.fuse as inputs.
// - `luleshReference(nx)` runs the whole simulation the way lulesh.cc does (element loops that
//   accumulate into nodes), written from the 2.0 semantics. It is the oracle for intermediate
//   states and for sizes that have no published result.
// - `LULESH_RESULTS` are the outputs of the reference binary (`lulesh2.0 -s N`).
//
// Node n = (plane, row, col) has index (plane·(nx+1) + row)·(nx+1) + col and coordinates
// 1.125·(col, row, plane)/nx; element (plane, row, col) has index (plane·nx + row)·nx + col and
// its corners, in LULESH's order, at offsets (Δplane, Δrow, Δcol) = CORNER_OFFSETS[k].

/** The published results of the LLNL reference for `-s nx`: cycles run and the final e(0). */
export const LULESH_RESULTS: Readonly<Record<number, { readonly iterations: number; readonly originEnergy: number }>> = {
  5: { iterations: 72, originEnergy: 7.853665e3 },
  10: { iterations: 231, originEnergy: 2.720531e4 },
};

/** (Δplane, Δrow, Δcol) of an element's corner k, in LULESH's node order. */
export const CORNER_OFFSETS: readonly (readonly [number, number, number])[] = [
  [0, 0, 0], [0, 0, 1], [0, 1, 1], [0, 1, 0],
  [1, 0, 0], [1, 0, 1], [1, 1, 1], [1, 1, 0],
];

/** The problem's constants (lulesh-init.cc's Domain constructor). */
export const LULESH_CONSTANTS = {
  eCut: 1e-7, pCut: 1e-7, qCut: 1e-7, vCut: 1e-10, uCut: 1e-7,
  hgcoef: 3.0, qstop: 1e12, monoqMaxSlope: 1.0, monoqLimiterMult: 2.0,
  qlcMonoq: 0.5, qqcMonoq: 2.0 / 3.0, qqc: 2.0,
  eosvmax: 1e9, eosvmin: 1e-9, pmin: 0.0, emin: -1e15, dvovmax: 0.1, refdens: 1.0,
  stoptime: 1e-2, dtmax: 1e-2, deltatimemultlb: 1.1, deltatimemultub: 1.2,
} as const;

export interface LuleshMesh {
  readonly nx: number;
  readonly numElem: number;
  readonly numNode: number;
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly z: Float64Array;
  /** numElem × 8, row-major: the nodes of each element in LULESH's corner order. */
  readonly nodelist: Int32Array;
  /** numNode × 8, row-major: the element whose corner k the node is, or −1 where there is none. */
  readonly cornerElem: Int32Array;
  /** numElem × 6, row-major: neighbours (ξ−, ξ+, η−, η+, ζ−, ζ+); an element on the mesh's edge names itself. */
  readonly neighbours: Int32Array;
  /**
   * numElem × 6, row-major, for the same six directions: 0 interior (use the neighbour),
   * 1 symmetry plane (use the element's own value), 2 free surface (use 0).
   */
  readonly faceKind: Int32Array;
  /** numNode × 3: 1 where the node's x (y, z) acceleration is held at 0 (a symmetry plane), else 0. */
  readonly symm: Int32Array;
  readonly volo: Float64Array;
  readonly elemMass: Float64Array;
  readonly nodalMass: Float64Array;
  readonly einit: number;
  readonly dtInit: number;
}

export const FACE_INTERIOR = 0;
export const FACE_SYMMETRY = 1;
export const FACE_FREE = 2;

const TWELFTH = 1.0 / 12.0;

/** LULESH's hexahedron volume: three triple products of edge and diagonal differences, / 12. */
export function elemVolume(x: ArrayLike<number>, y: ArrayLike<number>, z: ArrayLike<number>): number {
  const d = (a: ArrayLike<number>, i: number, j: number): number => a[i]! - a[j]!;
  const triple = (
    x1: number, y1: number, z1: number, x2: number, y2: number, z2: number, x3: number, y3: number, z3: number,
  ): number => x1 * (y2 * z3 - z2 * y3) + x2 * (z1 * y3 - y1 * z3) + x3 * (y1 * z2 - z1 * y2);
  const v =
    triple(d(x, 3, 1) + d(x, 7, 2), d(x, 6, 3), d(x, 2, 0), d(y, 3, 1) + d(y, 7, 2), d(y, 6, 3), d(y, 2, 0), d(z, 3, 1) + d(z, 7, 2), d(z, 6, 3), d(z, 2, 0)) +
    triple(d(x, 4, 3) + d(x, 5, 7), d(x, 6, 4), d(x, 7, 0), d(y, 4, 3) + d(y, 5, 7), d(y, 6, 4), d(y, 7, 0), d(z, 4, 3) + d(z, 5, 7), d(z, 6, 4), d(z, 7, 0)) +
    triple(d(x, 1, 4) + d(x, 2, 5), d(x, 6, 1), d(x, 5, 0), d(y, 1, 4) + d(y, 2, 5), d(y, 6, 1), d(y, 5, 0), d(z, 1, 4) + d(z, 2, 5), d(z, 6, 1), d(z, 5, 0));
  return v * TWELFTH;
}

/** The mesh, masks, masses and initial state of `lulesh2.0 -s nx` on one rank. */
export function luleshMesh(nx: number): LuleshMesh {
  const edgeNodes = nx + 1;
  const numElem = nx * nx * nx;
  const numNode = edgeNodes * edgeNodes * edgeNodes;
  const nodeIndex = (plane: number, row: number, col: number): number => (plane * edgeNodes + row) * edgeNodes + col;
  const elemIndex = (plane: number, row: number, col: number): number => (plane * nx + row) * nx + col;

  const x = new Float64Array(numNode);
  const y = new Float64Array(numNode);
  const z = new Float64Array(numNode);
  const symm = new Int32Array(numNode * 3);
  const cornerElem = new Int32Array(numNode * 8).fill(-1);
  for (let plane = 0; plane < edgeNodes; plane++) {
    for (let row = 0; row < edgeNodes; row++) {
      for (let col = 0; col < edgeNodes; col++) {
        const n = nodeIndex(plane, row, col);
        x[n] = (1.125 * col) / nx;
        y[n] = (1.125 * row) / nx;
        z[n] = (1.125 * plane) / nx;
        symm[n * 3] = col === 0 ? 1 : 0;
        symm[n * 3 + 1] = row === 0 ? 1 : 0;
        symm[n * 3 + 2] = plane === 0 ? 1 : 0;
      }
    }
  }

  const nodelist = new Int32Array(numElem * 8);
  const neighbours = new Int32Array(numElem * 6);
  const faceKind = new Int32Array(numElem * 6);
  for (let plane = 0; plane < nx; plane++) {
    for (let row = 0; row < nx; row++) {
      for (let col = 0; col < nx; col++) {
        const e = elemIndex(plane, row, col);
        CORNER_OFFSETS.forEach(([dp, dr, dc], k) => {
          const n = nodeIndex(plane + dp, row + dr, col + dc);
          nodelist[e * 8 + k] = n;
          cornerElem[n * 8 + k] = e;
        });
        // The lower face of the cube along each axis is a symmetry plane, the upper a free surface.
        const along = (at: number, minus: number, plus: number, slot: number): void => {
          neighbours[e * 6 + slot] = at === 0 ? e : minus;
          faceKind[e * 6 + slot] = at === 0 ? FACE_SYMMETRY : FACE_INTERIOR;
          neighbours[e * 6 + slot + 1] = at === nx - 1 ? e : plus;
          faceKind[e * 6 + slot + 1] = at === nx - 1 ? FACE_FREE : FACE_INTERIOR;
        };
        along(col, e - 1, e + 1, 0);
        along(row, e - nx, e + nx, 2);
        along(plane, e - nx * nx, e + nx * nx, 4);
      }
    }
  }

  const volo = new Float64Array(numElem);
  const nodalMass = new Float64Array(numNode);
  for (let e = 0; e < numElem; e++) {
    const nodes = nodelist.subarray(e * 8, e * 8 + 8);
    const volume = elemVolume(
      Array.from(nodes, (n) => x[n]!), Array.from(nodes, (n) => y[n]!), Array.from(nodes, (n) => z[n]!),
    );
    volo[e] = volume;
    for (const n of nodes) nodalMass[n] = nodalMass[n]! + volume / 8.0;
  }
  const scale = nx / 45.0;
  const einit = 3.948746e7 * scale * scale * scale;
  const dtInit = (0.5 * Math.cbrt(volo[0]!)) / Math.sqrt(2.0 * einit);
  return {
    nx, numElem, numNode, x, y, z, nodelist, cornerElem, neighbours, faceKind, symm,
    volo, elemMass: Float64Array.from(volo), nodalMass, einit, dtInit,
  };
}

/**
 * The inputs of bench/programs/lulesh.fuse for `-s nx`, named as its parameters, in the shape the
 * TypeScript API takes (`{ data, shape }` arrays and plain numbers).
 */
export function luleshInputs(nx: number): Record<string, { readonly data: Float64Array | Int32Array; readonly shape: readonly number[] } | number> {
  const m = luleshMesh(nx);
  const nodes = (data: Float64Array | Int32Array, width?: number) => ({ data, shape: width === undefined ? [m.numNode] : [m.numNode, width] });
  const elems = (data: Float64Array | Int32Array, width?: number) => ({ data, shape: width === undefined ? [m.numElem] : [m.numElem, width] });
  return {
    x: nodes(m.x), y: nodes(m.y), z: nodes(m.z),
    nodelist: elems(m.nodelist, 8), cornerElem: nodes(m.cornerElem, 8),
    neighbours: elems(m.neighbours, 6), faceKind: elems(m.faceKind, 6), symm: nodes(m.symm, 3),
    volo: elems(m.volo), elemMass: elems(m.elemMass), nodalMass: nodes(m.nodalMass),
    nx,
  };
}

export interface LuleshState {
  readonly cycle: number;
  readonly time: number;
  readonly deltatime: number;
  readonly e: Float64Array;
  readonly p: Float64Array;
  readonly q: Float64Array;
  readonly v: Float64Array;
  readonly ss: Float64Array;
  readonly x: Float64Array;
  readonly xd: Float64Array;
}

type Vec8 = Float64Array;

/** CalcElemShapeFunctionDerivatives: the derivatives b[axis][corner] and the Jacobian determinant. */
function shapeFunctionDerivatives(x: Vec8, y: Vec8, z: Vec8): { b: [Vec8, Vec8, Vec8]; volume: number } {
  const f = (a: Vec8): [number, number, number] => {
    const d60 = a[6]! - a[0]!, d53 = a[5]! - a[3]!, d71 = a[7]! - a[1]!, d42 = a[4]! - a[2]!;
    return [0.125 * (d60 + d53 - d71 - d42), 0.125 * (d60 - d53 + d71 - d42), 0.125 * (d60 + d53 + d71 + d42)];
  };
  const [fjxxi, fjxet, fjxze] = f(x);
  const [fjyxi, fjyet, fjyze] = f(y);
  const [fjzxi, fjzet, fjzze] = f(z);
  const cjxxi = fjyet * fjzze - fjzet * fjyze;
  const cjxet = -(fjyxi * fjzze) + fjzxi * fjyze;
  const cjxze = fjyxi * fjzet - fjzxi * fjyet;
  const cjyxi = -(fjxet * fjzze) + fjzet * fjxze;
  const cjyet = fjxxi * fjzze - fjzxi * fjxze;
  const cjyze = -(fjxxi * fjzet) + fjzxi * fjxet;
  const cjzxi = fjxet * fjyze - fjyet * fjxze;
  const cjzet = -(fjxxi * fjyze) + fjyxi * fjxze;
  const cjzze = fjxxi * fjyet - fjyxi * fjxet;
  const row = (xi: number, et: number, ze: number): Vec8 => {
    const r = new Float64Array(8);
    r[0] = -xi - et - ze;
    r[1] = xi - et - ze;
    r[2] = xi + et - ze;
    r[3] = -xi + et - ze;
    r[4] = -r[2]!;
    r[5] = -r[3]!;
    r[6] = -r[0]!;
    r[7] = -r[1]!;
    return r;
  };
  return {
    b: [row(cjxxi, cjxet, cjxze), row(cjyxi, cjyet, cjyze), row(cjzxi, cjzet, cjzze)],
    volume: 8.0 * (fjxet * cjxet + fjyet * cjyet + fjzet * cjzet),
  };
}

/** The faces of a hexahedron as corner quadruples, in CalcElemNodeNormals' order. */
const NORMAL_FACES: readonly (readonly [number, number, number, number])[] = [
  [0, 1, 2, 3], [0, 4, 5, 1], [1, 5, 6, 2], [2, 6, 7, 3], [3, 7, 4, 0], [4, 7, 6, 5],
];

/** CalcElemNodeNormals: each corner's share of the area vectors of the faces it touches. */
function nodeNormals(x: Vec8, y: Vec8, z: Vec8): [Vec8, Vec8, Vec8] {
  const pf: [Vec8, Vec8, Vec8] = [new Float64Array(8), new Float64Array(8), new Float64Array(8)];
  for (const [a, b, c, d] of NORMAL_FACES) {
    const bis0 = (v: Vec8): number => 0.5 * (v[d]! + v[c]! - v[b]! - v[a]!);
    const bis1 = (v: Vec8): number => 0.5 * (v[c]! + v[b]! - v[d]! - v[a]!);
    const [bx0, by0, bz0, bx1, by1, bz1] = [bis0(x), bis0(y), bis0(z), bis1(x), bis1(y), bis1(z)];
    const area = [0.25 * (by0 * bz1 - bz0 * by1), 0.25 * (bz0 * bx1 - bx0 * bz1), 0.25 * (bx0 * by1 - by0 * bx1)];
    for (const k of [a, b, c, d]) for (let axis = 0; axis < 3; axis++) pf[axis]![k] = pf[axis]![k]! + area[axis]!;
  }
  return pf;
}

/** The argument orders of VoluDer for corners 0…7 (CalcElemVolumeDerivative). */
const VOLUDER_CORNERS: readonly (readonly number[])[] = [
  [1, 2, 3, 4, 5, 7], [2, 3, 0, 5, 6, 4], [3, 0, 1, 6, 7, 5], [0, 1, 2, 7, 4, 6],
  [7, 6, 5, 0, 3, 1], [4, 7, 6, 1, 0, 2], [5, 4, 7, 2, 1, 3], [6, 5, 4, 3, 2, 0],
];

function volumeDerivatives(x: Vec8, y: Vec8, z: Vec8): [Vec8, Vec8, Vec8] {
  const dv: [Vec8, Vec8, Vec8] = [new Float64Array(8), new Float64Array(8), new Float64Array(8)];
  VOLUDER_CORNERS.forEach((c, k) => {
    const [x0, x1, x2, x3, x4, x5] = c.map((i) => x[i]!) as [number, number, number, number, number, number];
    const [y0, y1, y2, y3, y4, y5] = c.map((i) => y[i]!) as [number, number, number, number, number, number];
    const [z0, z1, z2, z3, z4, z5] = c.map((i) => z[i]!) as [number, number, number, number, number, number];
    dv[0][k] = TWELFTH * ((y1 + y2) * (z0 + z1) - (y0 + y1) * (z1 + z2) + (y0 + y4) * (z3 + z4) - (y3 + y4) * (z0 + z4) - (y2 + y5) * (z3 + z5) + (y3 + y5) * (z2 + z5));
    dv[1][k] = TWELFTH * (-(x1 + x2) * (z0 + z1) + (x0 + x1) * (z1 + z2) - (x0 + x4) * (z3 + z4) + (x3 + x4) * (z0 + z4) + (x2 + x5) * (z3 + z5) - (x3 + x5) * (z2 + z5));
    dv[2][k] = TWELFTH * (-(y1 + y2) * (x0 + x1) + (y0 + y1) * (x1 + x2) - (y0 + y4) * (x3 + x4) + (y3 + y4) * (x0 + x4) + (y2 + y5) * (x3 + x5) - (y3 + y5) * (x2 + x5));
  });
  return dv;
}

/** The four Flanagan–Belytschko hourglass base vectors γ[mode][corner]. */
const GAMMA: readonly (readonly number[])[] = [
  [1, 1, -1, -1, -1, -1, 1, 1],
  [1, -1, -1, 1, -1, 1, 1, -1],
  [1, -1, 1, -1, 1, -1, 1, -1],
  [-1, 1, -1, 1, 1, -1, 1, -1],
];

function areaFace(x: Vec8, y: Vec8, z: Vec8, a: number, b: number, c: number, d: number): number {
  const f = (v: Vec8): number => v[c]! - v[a]! - (v[d]! - v[b]!);
  const g = (v: Vec8): number => v[c]! - v[a]! + (v[d]! - v[b]!);
  const [fx, fy, fz, gx, gy, gz] = [f(x), f(y), f(z), g(x), g(y), g(z)];
  const fg = fx * gx + fy * gy + fz * gz;
  return (fx * fx + fy * fy + fz * fz) * (gx * gx + gy * gy + gz * gz) - fg * fg;
}

const LENGTH_FACES: readonly (readonly [number, number, number, number])[] = [
  [0, 1, 2, 3], [4, 5, 6, 7], [0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7],
];

function characteristicLength(x: Vec8, y: Vec8, z: Vec8, volume: number): number {
  let largest = 0.0;
  for (const [a, b, c, d] of LENGTH_FACES) largest = Math.max(areaFace(x, y, z, a, b, c, d), largest);
  return (4.0 * volume) / Math.sqrt(largest);
}

/** The sound-speed-like root LULESH takes in its EOS, with its floor for non-positive arguments. */
function floorSqrt(value: number): number {
  return value <= 0.1111111e-36 ? 0.3333333e-18 : Math.sqrt(value);
}

function pressure(e: number, compression: number, vnewc: number): { p: number; bvc: number; pbvc: number } {
  const c = LULESH_CONSTANTS;
  const bvc = (2.0 / 3.0) * (compression + 1.0);
  let p = bvc * e;
  if (Math.abs(p) < c.pCut) p = 0.0;
  if (vnewc >= c.eosvmax) p = 0.0;
  if (p < c.pmin) p = c.pmin;
  return { p, bvc, pbvc: 2.0 / 3.0 };
}

/**
 * Runs `lulesh2.0 -s nx` to its stop time (or `maxCycles` cycles) and returns the final state.
 * Errors the reference aborts on (negative volumes, q above qstop) throw.
 */
export function luleshReference(nx: number, maxCycles = Number.POSITIVE_INFINITY): LuleshState {
  const c = LULESH_CONSTANTS;
  const mesh = luleshMesh(nx);
  const { numElem, numNode, nodelist, neighbours, faceKind, symm, volo, elemMass, nodalMass } = mesh;
  const x = Float64Array.from(mesh.x), y = Float64Array.from(mesh.y), z = Float64Array.from(mesh.z);
  const xd = new Float64Array(numNode), yd = new Float64Array(numNode), zd = new Float64Array(numNode);
  const e = new Float64Array(numElem), p = new Float64Array(numElem), q = new Float64Array(numElem);
  const ss = new Float64Array(numElem), v = new Float64Array(numElem).fill(1.0);
  e[0] = mesh.einit;
  let deltatime = mesh.dtInit, time = 0.0, cycle = 0, dtcourant = 1e20, dthydro = 1e20;

  const gatherNodes = (e8: number, field: Float64Array): Vec8 => {
    const out = new Float64Array(8);
    for (let k = 0; k < 8; k++) out[k] = field[nodelist[e8 * 8 + k]!]!;
    return out;
  };

  while (time < c.stoptime && cycle < maxCycles) {
    // TimeIncrement.
    let targetdt = c.stoptime - time;
    if (cycle !== 0) {
      const olddt = deltatime;
      let gnewdt = 1e20;
      if (dtcourant < gnewdt) gnewdt = dtcourant / 2.0;
      if (dthydro < gnewdt) gnewdt = (dthydro * 2.0) / 3.0;
      let newdt = gnewdt;
      const ratio = newdt / olddt;
      if (ratio >= 1.0) {
        if (ratio < c.deltatimemultlb) newdt = olddt;
        else if (ratio > c.deltatimemultub) newdt = olddt * c.deltatimemultub;
      }
      if (newdt > c.dtmax) newdt = c.dtmax;
      deltatime = newdt;
    }
    if (targetdt > deltatime && targetdt < (4.0 * deltatime) / 3.0) targetdt = (2.0 * deltatime) / 3.0;
    if (targetdt < deltatime) deltatime = targetdt;
    time += deltatime;
    cycle++;
    const dt = deltatime;

    // LagrangeNodal: stress and hourglass forces accumulated into the nodes.
    const fx = new Float64Array(numNode), fy = new Float64Array(numNode), fz = new Float64Array(numNode);
    for (let k = 0; k < numElem; k++) {
      const ex = gatherNodes(k, x), ey = gatherNodes(k, y), ez = gatherNodes(k, z);
      const { volume: determ } = shapeFunctionDerivatives(ex, ey, ez);
      if (determ <= 0) throw new Error(`volume error in element ${k}`);
      const [pfx, pfy, pfz] = nodeNormals(ex, ey, ez);
      const sig = -p[k]! - q[k]!;
      for (let j = 0; j < 8; j++) {
        const n = nodelist[k * 8 + j]!;
        fx[n] = fx[n]! - sig * pfx[j]!;
        fy[n] = fy[n]! - sig * pfy[j]!;
        fz[n] = fz[n]! - sig * pfz[j]!;
      }
    }
    for (let k = 0; k < numElem; k++) {
      const ex = gatherNodes(k, x), ey = gatherNodes(k, y), ez = gatherNodes(k, z);
      const [dvdx, dvdy, dvdz] = volumeDerivatives(ex, ey, ez);
      const determ = volo[k]! * v[k]!;
      const volinv = 1.0 / determ;
      const hourgam = GAMMA.map((gamma) => {
        let hx = 0, hy = 0, hz = 0;
        for (let j = 0; j < 8; j++) { hx += ex[j]! * gamma[j]!; hy += ey[j]! * gamma[j]!; hz += ez[j]! * gamma[j]!; }
        return gamma.map((g, j) => g - volinv * (dvdx[j]! * hx + dvdy[j]! * hy + dvdz[j]! * hz));
      });
      const coefficient = (-c.hgcoef * 0.01 * ss[k]! * elemMass[k]!) / Math.cbrt(determ);
      const vel: [Vec8, Vec8, Vec8] = [gatherNodes(k, xd), gatherNodes(k, yd), gatherNodes(k, zd)];
      const forces = [fx, fy, fz];
      vel.forEach((u, axis) => {
        const h = hourgam.map((mode) => mode.reduce((s, g, j) => s + g * u[j]!, 0));
        for (let j = 0; j < 8; j++) {
          const n = nodelist[k * 8 + j]!;
          const f = coefficient * (hourgam[0]![j]! * h[0]! + hourgam[1]![j]! * h[1]! + hourgam[2]![j]! * h[2]! + hourgam[3]![j]! * h[3]!);
          forces[axis]![n] = forces[axis]![n]! + f;
        }
      });
    }
    for (let n = 0; n < numNode; n++) {
      const step = (f: Float64Array, vel: Float64Array, pos: Float64Array, axis: number): void => {
        const acc = symm[n * 3 + axis] === 1 ? 0.0 : f[n]! / nodalMass[n]!;
        let u = vel[n]! + acc * dt;
        if (Math.abs(u) < c.uCut) u = 0.0;
        vel[n] = u;
        pos[n] = pos[n]! + u * dt;
      };
      step(fx, xd, x, 0);
      step(fy, yd, y, 1);
      step(fz, zd, z, 2);
    }

    // LagrangeElements: kinematics, monotonic q gradients.
    const vnew = new Float64Array(numElem), delv = new Float64Array(numElem), arealg = new Float64Array(numElem);
    const vdov = new Float64Array(numElem);
    const delvDir = [new Float64Array(numElem), new Float64Array(numElem), new Float64Array(numElem)];
    const delxDir = [new Float64Array(numElem), new Float64Array(numElem), new Float64Array(numElem)];
    for (let k = 0; k < numElem; k++) {
      const ex = gatherNodes(k, x), ey = gatherNodes(k, y), ez = gatherNodes(k, z);
      const ux = gatherNodes(k, xd), uy = gatherNodes(k, yd), uz = gatherNodes(k, zd);
      const volume = elemVolume(ex, ey, ez);
      vnew[k] = volume / volo[k]!;
      delv[k] = vnew[k]! - v[k]!;
      arealg[k] = characteristicLength(ex, ey, ez, volume);
      const back = (pos: Vec8, vel: Vec8): Vec8 => pos.map((xi, j) => xi - 0.5 * dt * vel[j]!);
      const { b, volume: detJ } = shapeFunctionDerivatives(back(ex, ux), back(ey, uy), back(ez, uz));
      const grad = (pf: Vec8, u: Vec8): number =>
        (1.0 / detJ) * (pf[0]! * (u[0]! - u[6]!) + pf[1]! * (u[1]! - u[7]!) + pf[2]! * (u[2]! - u[4]!) + pf[3]! * (u[3]! - u[5]!));
      vdov[k] = grad(b[0], ux) + grad(b[1], uy) + grad(b[2], uz);
      if (vnew[k]! <= 0) throw new Error(`volume error in element ${k}`);

      const ptiny = 1e-36;
      const vol = volo[k]! * vnew[k]!;
      const norm = 1.0 / (vol + ptiny);
      const faceDiff = (a: Vec8, plus: readonly number[], minus: readonly number[]): number =>
        0.25 * (plus.reduce((s, j) => s + a[j]!, 0) - minus.reduce((s, j) => s + a[j]!, 0));
      const XI_P = [1, 2, 6, 5], XI_M = [0, 3, 7, 4], ETA_P = [3, 2, 6, 7], ETA_M = [0, 1, 5, 4];
      const ZETA_P = [4, 5, 6, 7], ZETA_M = [0, 1, 2, 3];
      const di = [faceDiff(ex, XI_P, XI_M), faceDiff(ey, XI_P, XI_M), faceDiff(ez, XI_P, XI_M)];
      const dj = [faceDiff(ex, ETA_P, ETA_M), faceDiff(ey, ETA_P, ETA_M), faceDiff(ez, ETA_P, ETA_M)];
      const dk = [faceDiff(ex, ZETA_P, ZETA_M), faceDiff(ey, ZETA_P, ZETA_M), faceDiff(ez, ZETA_P, ZETA_M)];
      const cross = (a: number[], b2: number[]): number[] => [
        a[1]! * b2[2]! - a[2]! * b2[1]!, a[2]! * b2[0]! - a[0]! * b2[2]!, a[0]! * b2[1]! - a[1]! * b2[0]!,
      ];
      const directions: [number[], readonly number[], readonly number[]][] = [
        [cross(dj, dk), XI_P, XI_M], [cross(dk, di), ETA_P, ETA_M], [cross(di, dj), ZETA_P, ZETA_M],
      ];
      directions.forEach(([a, plus, minus], dir) => {
        delxDir[dir]![k] = vol / Math.sqrt(a[0]! * a[0]! + a[1]! * a[1]! + a[2]! * a[2]! + ptiny);
        const dv = [faceDiff(ux, plus, minus), faceDiff(uy, plus, minus), faceDiff(uz, plus, minus)];
        delvDir[dir]![k] = a[0]! * norm * dv[0]! + a[1]! * norm * dv[1]! + a[2]! * norm * dv[2]!;
      });
    }

    // Monotonic q, EOS, volume update.
    for (let k = 0; k < numElem; k++) {
      const phi = [0, 1, 2].map((dir) => {
        const own = delvDir[dir]!;
        const norm = 1.0 / (own[k]! + 1e-36);
        const side = (slot: number): number => {
          const kind = faceKind[k * 6 + slot]!;
          return kind === FACE_FREE ? 0.0 : kind === FACE_SYMMETRY ? own[k]! : own[neighbours[k * 6 + slot]!]!;
        };
        const dm = side(2 * dir) * norm, dp = side(2 * dir + 1) * norm;
        let ph = 0.5 * (dm + dp);
        if (c.monoqLimiterMult * dm < ph) ph = c.monoqLimiterMult * dm;
        if (c.monoqLimiterMult * dp < ph) ph = c.monoqLimiterMult * dp;
        if (ph < 0.0) ph = 0.0;
        if (ph > c.monoqMaxSlope) ph = c.monoqMaxSlope;
        return ph;
      });
      let ql = 0.0, qq = 0.0;
      if (!(vdov[k]! > 0.0)) {
        const dvx = [0, 1, 2].map((dir) => Math.min(delvDir[dir]![k]! * delxDir[dir]![k]!, 0.0));
        const rho = elemMass[k]! / (volo[k]! * vnew[k]!);
        ql = -c.qlcMonoq * rho * (dvx[0]! * (1.0 - phi[0]!) + dvx[1]! * (1.0 - phi[1]!) + dvx[2]! * (1.0 - phi[2]!));
        qq = c.qqcMonoq * rho * (dvx[0]! * dvx[0]! * (1.0 - phi[0]! * phi[0]!) + dvx[1]! * dvx[1]! * (1.0 - phi[1]! * phi[1]!) + dvx[2]! * dvx[2]! * (1.0 - phi[2]! * phi[2]!));
      }

      const vnewc = Math.min(Math.max(vnew[k]!, c.eosvmin), c.eosvmax);
      const delvc = delv[k]!;
      let pOld = p[k]!;
      const eOld = e[k]!, qOld = q[k]!;
      let compression = 1.0 / vnewc - 1.0;
      let compHalfStep = 1.0 / (vnewc - delvc * 0.5) - 1.0;
      if (vnewc <= c.eosvmin) compHalfStep = compression;
      if (vnewc >= c.eosvmax) { pOld = 0.0; compression = 0.0; compHalfStep = 0.0; }

      let eNew = Math.max(eOld - 0.5 * delvc * (pOld + qOld), c.emin);
      const half = pressure(eNew, compHalfStep, vnewc);
      const vhalf = 1.0 / (1.0 + compHalfStep);
      const qNewHalf = delvc > 0.0 ? 0.0 : floorSqrt((half.pbvc * eNew + vhalf * vhalf * half.bvc * half.p) / c.refdens) * ql + qq;
      eNew = eNew + 0.5 * delvc * (3.0 * (pOld + qOld) - 4.0 * (half.p + qNewHalf));
      if (Math.abs(eNew) < c.eCut) eNew = 0.0;
      if (eNew < c.emin) eNew = c.emin;
      let full = pressure(eNew, compression, vnewc);
      const qTilde = delvc > 0.0 ? 0.0 : floorSqrt((full.pbvc * eNew + vnewc * vnewc * full.bvc * full.p) / c.refdens) * ql + qq;
      eNew = eNew - ((7.0 * (pOld + qOld) - 8.0 * (half.p + qNewHalf) + (full.p + qTilde)) * delvc) / 6.0;
      if (Math.abs(eNew) < c.eCut) eNew = 0.0;
      if (eNew < c.emin) eNew = c.emin;
      full = pressure(eNew, compression, vnewc);
      let qNew = qNewHalf;
      if (delvc <= 0.0) {
        qNew = floorSqrt((full.pbvc * eNew + vnewc * vnewc * full.bvc * full.p) / c.refdens) * ql + qq;
        if (Math.abs(qNew) < c.qCut) qNew = 0.0;
      }
      if (qNew > c.qstop) throw new Error(`q stop error in element ${k}`);
      e[k] = eNew;
      p[k] = full.p;
      q[k] = qNew;
      ss[k] = floorSqrt((full.pbvc * eNew + vnewc * vnewc * full.bvc * full.p) / c.refdens);
      v[k] = Math.abs(vnew[k]! - 1.0) < c.vCut ? 1.0 : vnew[k]!;
    }

    // CalcTimeConstraintsForElems.
    dtcourant = 1e20;
    dthydro = 1e20;
    const qqc2 = 64.0 * c.qqc * c.qqc;
    for (let k = 0; k < numElem; k++) {
      if (vdov[k] === 0.0) continue;
      let dtf = ss[k]! * ss[k]!;
      if (vdov[k]! < 0.0) dtf += qqc2 * arealg[k]! * arealg[k]! * vdov[k]! * vdov[k]!;
      dtf = arealg[k]! / Math.sqrt(dtf);
      if (dtf < dtcourant) dtcourant = dtf;
      const dtdvov = c.dvovmax / (Math.abs(vdov[k]!) + 1e-20);
      if (dthydro > dtdvov) dthydro = dtdvov;
    }
  }
  return { cycle, time, deltatime, e, p, q, v, ss, x, xd };
}
