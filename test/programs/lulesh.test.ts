// LULESH 2.0 as a .fuse program (bench/programs/lulesh.fuse), verified against the LLNL reference:
// the plain TypeScript oracle reproduces the reference's published outputs, and the program, fused
// with the ILP's plan (and interpreted on the smallest mesh), reproduces the iteration count and the
// "Final Origin Energy" to the printed digits, and the oracle's final state to rounding.
//
// -s 10 interpreted takes minutes; it runs only with LULESH_SLOW=1:
//   LULESH_SLOW=1 npx vitest run test/programs/lulesh.test.ts   (see bench/programs/README-lulesh.md)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compile, planProgram, type FuseProgram, type Input, type PlanningOptions } from '../../src/index.js';
import type { BlockPlan, Plan, Strategy } from '../../src/plan/types.js';
import { allStmts, combinatorLambdas, forEachStmt, lambdaUses } from '../../src/ir/walk.js';
import { combinatorKinds, type CombinatorKind } from '../../src/ir/types.js';
import { LULESH_RESULTS, luleshInputs, luleshMesh, luleshReference } from '../../bench/programs/lulesh-reference.js';

/** The planner's own form of a program's plan (node ids, the block tree), which the checks below walk. */
async function planOf(program: FuseProgram, inputs: Readonly<Record<string, Input>>, options: PlanningOptions): Promise<Plan> {
  return (await planProgram(program.lower(inputs), options)).plan;
}

const slow = process.env['LULESH_SLOW'] === '1';
const source = readFileSync(join(import.meta.dirname, '..', '..', 'bench', 'programs', 'lulesh.fuse'), 'utf8');
const lulesh: FuseProgram = compile(source, { fileName: 'bench/programs/lulesh.fuse' });

async function simulate(nx: number, options: { strategy?: Strategy; interpret?: boolean }): Promise<{ cycles: number; e: Float64Array }> {
  const out = await lulesh.run(luleshInputs(nx), options);
  const e = out['e'];
  const cycles = out['cycle'];
  if (typeof e !== 'object' || !('data' in e) || !(e.data instanceof Float64Array) || typeof cycles !== 'number') {
    throw new Error(`unexpected outputs ${Object.keys(out).join(', ')}`);
  }
  return { cycles, e: e.data };
}

/** What the reference prints: `std::scientific << std::setprecision(6)`. */
const printed = (value: number): string => value.toExponential(6);

describe('the plain TypeScript oracle', () => {
  it('reproduces -s 5 of the reference: 72 cycles, Final Origin Energy 7.853665e+03', () => {
    const state = luleshReference(5);
    expect(state.cycle).toBe(LULESH_RESULTS[5]!.iterations);
    expect(printed(state.e[0]!)).toBe(printed(LULESH_RESULTS[5]!.originEnergy));
  });

  it('reproduces -s 10 of the reference: 231 cycles, Final Origin Energy 2.720531e+04', () => {
    const state = luleshReference(10);
    expect(state.cycle).toBe(LULESH_RESULTS[10]!.iterations);
    expect(printed(state.e[0]!)).toBe(printed(LULESH_RESULTS[10]!.originEnergy));
  }, 60_000);

  it('stops early when given a cycle limit (the reference\'s -i)', () => {
    expect(luleshReference(3, 4).cycle).toBe(4);
  });
});

describe('the mesh set-up', () => {
  it('puts every node on the corners it belongs to, and weighs the nodes with an eighth of each element', () => {
    const m = luleshMesh(3);
    expect(m.numElem).toBe(27);
    expect(m.numNode).toBe(64);
    for (let e = 0; e < m.numElem; e++) {
      for (let k = 0; k < 8; k++) expect(m.cornerElem[m.nodelist[e * 8 + k]! * 8 + k]).toBe(e);
    }
    expect(Array.from(m.cornerElem).filter((e) => e >= 0)).toHaveLength(8 * m.numElem);
    const totalMass = m.nodalMass.reduce((a, b) => a + b, 0);
    expect(totalMass).toBeCloseTo(1.125 ** 3, 12);
    expect(m.volo[0]).toBeCloseTo((1.125 / 3) ** 3, 14);
  });

  it('marks the lower faces of the cube as symmetry planes and the upper ones as free surfaces', () => {
    const m = luleshMesh(2);
    // Element 0 is at the origin: symmetric below along ξ, η, ζ; element 7 is at the far corner.
    expect(Array.from(m.faceKind.subarray(0, 6))).toEqual([1, 0, 1, 0, 1, 0]);
    expect(Array.from(m.neighbours.subarray(0, 6))).toEqual([0, 1, 0, 2, 0, 4]);
    expect(Array.from(m.faceKind.subarray(42, 48))).toEqual([0, 2, 0, 2, 0, 2]);
    // Node 0 is held along every axis; node 26 (the far corner) along none.
    expect(Array.from(m.symm.subarray(0, 3))).toEqual([1, 1, 1]);
    expect(Array.from(m.symm.subarray(78, 81))).toEqual([0, 0, 0]);
  });
});

describe('lulesh.fuse, -s 5', () => {
  const oracle = luleshReference(5);
  it.each([
    ['fused with the ILP plan', { strategy: 'ilp' as const }],
    ['interpreted', { interpret: true }],
  ])('%s: 72 cycles, Final Origin Energy 7.853665e+03, every energy equal to the oracle to rounding', async (_, options) => {
    const { cycles, e } = await simulate(5, options);
    expect(cycles).toBe(LULESH_RESULTS[5]!.iterations);
    expect(printed(e[0]!)).toBe(printed(LULESH_RESULTS[5]!.originEnergy));
    e.forEach((value, k) => expect(Math.abs(value - oracle.e[k]!)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(oracle.e[k]!))));
  });
});

describe('lulesh.fuse, -s 5, under the other strategies', () => {
  const oracle = luleshReference(5);
  it.each(['greedy-down', 'greedy-up', 'none'] as const)('%s gives the oracle\'s energies', async (strategy) => {
    const { cycles, e } = await simulate(5, { strategy });
    expect(cycles).toBe(72);
    e.forEach((value, k) => expect(Math.abs(value - oracle.e[k]!)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(oracle.e[k]!))));
  });
});

describe('lulesh.fuse, -s 10', () => {
  it('fused with the ILP plan: 231 cycles, Final Origin Energy 2.720531e+04', async () => {
    const { cycles, e } = await simulate(10, { strategy: 'ilp' });
    expect(cycles).toBe(LULESH_RESULTS[10]!.iterations);
    expect(printed(e[0]!)).toBe(printed(LULESH_RESULTS[10]!.originEnergy));
  }, 120_000);

  it.runIf(slow)('interpreted: the same', async () => {
    const { cycles, e } = await simulate(10, { interpret: true });
    expect(cycles).toBe(LULESH_RESULTS[10]!.iterations);
    expect(printed(e[0]!)).toBe(printed(LULESH_RESULTS[10]!.originEnergy));
  }, 1_200_000);
});

function countCombinators(nx: number): Record<CombinatorKind, number> {
  const counts = Object.fromEntries(combinatorKinds.map((k) => [k, 0])) as Record<CombinatorKind, number>;
  for (const s of allStmts(lulesh.lower(luleshInputs(nx)))) if (s.kind !== 'scalar' && s.kind !== 'if' && s.kind !== 'while') counts[s.kind]++;
  return counts;
}

function clusterSizes(block: BlockPlan): number[][] {
  return [block.clusters.map((c) => c.nodes.length), ...Object.values(block.children).flatMap((blocks) => blocks.flatMap(clusterSizes))];
}

describe('the program the planner sees', () => {
  it('lowers to 70 core combinators: set-up columns and initial state, then per cycle 30 gathers (corners, corner forces, neighbours), 30 element-wise maps and the 2 constraint folds', () => {
    expect(countCombinators(5)).toEqual({ generate: 8, map: 30, gather: 30, scatter: 0, fold: 2, scanl: 0, scanr: 0, force: 0 });
  });

  it('indexes arrays only in the set-up before the loop: in a cycle, corners, corner forces and neighbours come through gathers', () => {
    const indexing: { readonly depth: number; readonly arrays: readonly string[] }[] = [];
    forEachStmt(lulesh.lower(luleshInputs(3)).body, (s, depth) => {
      if (s.kind === 'scalar' || s.kind === 'if' || s.kind === 'while') return;
      const arrays = combinatorLambdas(s).flatMap((l) => [...lambdaUses(l).indexed]);
      if (arrays.length > 0) indexing.push({ depth, arrays });
    });
    expect(indexing.filter((i) => i.depth > 0)).toEqual([]);
    expect(new Set(indexing.flatMap((i) => i.arrays))).toEqual(new Set(['nodelist', 'cornerElem', 'symm', 'neighbours', 'faceKind']));
  });

  it('the ILP plan is optimal, cheaper than either greedy plan, and fuses each phase of a cycle into one loop', async () => {
    const signature = luleshInputs(10);
    // HiGHS proves this optimum in about 3 s; the generous limit keeps a loaded machine from
    // turning the status into 'time-limit'.
    const [ilp, down, up] = await Promise.all([
      planOf(lulesh, signature, { strategy: 'ilp', timeLimitSeconds: 120 }),
      planOf(lulesh, signature, { strategy: 'greedy-down' }),
      planOf(lulesh, signature, { strategy: 'greedy-up' }),
    ]);
    expect(ilp.stats.status).toBe('optimal');
    expect(ilp.stats.objective).toBeLessThan(Math.min(down.stats.objective, up.stats.objective));
    // Top level: the 8 set-up generates and the loop; the loop's condition has no combinators; its
    // body: forces (8 corner gathers, 8 maps); nodes (8 force gathers, 4 maps); kinematics (8 corner
    // gathers, 7 maps, the hydro constraint's fold); limiter, viscosity and EOS (6 neighbour
    // gathers, 11 maps, the Courant constraint's fold).
    expect(clusterSizes(ilp.root)).toEqual([[1, 1, 1, 1, 1, 1, 1, 1, 1], [], [16, 12, 16, 18]]);
  }, 180_000);
});
