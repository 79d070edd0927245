// NAS MG as a .fuse program (bench/programs/mg.fuse), verified against the official NPB values:
// the right-hand side generator, the plain TypeScript oracle, the program interpreted and fused
// under every strategy, and the shape of its optimal plan.
//
// Class S interpreted (11–16 s) and class W fused (30–75 s) are slow; they run only with
// MG_SLOW=1:  MG_SLOW=1 npx vitest run test/programs/mg.test.ts  (see bench/programs/README-mg.md).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compile, type FuseProgram } from '../../src/index.js';
import type { BlockPlan, Strategy } from '../../src/plan/types.js';
import { allStmts } from '../../src/ir/walk.js';
import { combinatorKinds, type CombinatorKind } from '../../src/ir/types.js';
import { MG_CLASSES, MG_EPSILON, mgReference, relativeError, zran3, type MgClass } from '../../bench/programs/mg-reference.js';

const slow = process.env['MG_SLOW'] === '1';
const source = readFileSync(join(import.meta.dirname, '..', '..', 'bench', 'programs', 'mg.fuse'), 'utf8');
const mg: FuseProgram = compile(source, { fileName: 'bench/programs/mg.fuse' });

const inputs = (n: number, nit: number) => ({ v: { data: zran3(n), shape: [n, n, n] }, nit });

async function norm(n: number, nit: number, options: { strategy?: Strategy; interpret?: boolean }): Promise<number> {
  const { rnm2 } = await mg.run(inputs(n, nit), options);
  expect(typeof rnm2).toBe('number');
  return rnm2 as number;
}

/** The LCG values x_k · 2^−46, k = 1…count, computed with BigInt: exact by construction. */
function lcgBigInt(count: number): number[] {
  const modulus = 2n ** 46n;
  let x = 314159265n;
  return Array.from({ length: count }, () => {
    x = (5n ** 13n * x) % modulus;
    return Number(x) / 2 ** 46;
  });
}

describe('zran3, the NPB right-hand side', () => {
  it.each([4, 8, 16])('puts +1 at the ten largest and −1 at the ten smallest generator values (n = %i)', (n) => {
    const random = lcgBigInt(n ** 3);
    const byValue = random.map((value, at) => ({ value, at })).sort((a, b) => a.value - b.value);
    const expected = new Float64Array(n ** 3);
    for (const { at } of byValue.slice(0, 10)) expected[at] = -1;
    for (const { at } of byValue.slice(-10)) expected[at] = 1;
    expect(zran3(n)).toEqual(expected);
  });

  it('has exactly ten +1s, ten −1s and zeros elsewhere on the class S grid', () => {
    const v = Array.from(zran3(32));
    expect(v.filter((x) => x === 1)).toHaveLength(10);
    expect(v.filter((x) => x === -1)).toHaveLength(10);
    expect(v.filter((x) => x === 0)).toHaveLength(32 ** 3 - 20);
  });
});

describe('the plain TypeScript oracle', () => {
  it('reproduces the official class S norm', () => {
    const { n, nit, verifyValue } = MG_CLASSES.S;
    expect(relativeError(mgReference(zran3(n), n, nit), verifyValue)).toBeLessThanOrEqual(MG_EPSILON);
  });
});

describe('mg.fuse agrees with the oracle on 16³ (self-consistency, every backend)', () => {
  const expected = mgReference(zran3(16), 16, 4);
  it.each([
    ['interpreted', { interpret: true }],
    ['fused, ilp', { strategy: 'ilp' as const }],
    ['fused, greedy-down', { strategy: 'greedy-down' as const }],
    ['fused, greedy-up', { strategy: 'greedy-up' as const }],
    ['fused, none', { strategy: 'none' as const }],
  ])('%s', async (_, options) => {
    expect(relativeError(await norm(16, 4, options), expected)).toBeLessThan(1e-12);
  });

  it('also on 4³, the smallest grid: one level above the coarsest', async () => {
    expect(relativeError(await norm(4, 2, { strategy: 'ilp' }), mgReference(zran3(4), 4, 2))).toBeLessThan(1e-12);
  });
});

function verifies(cls: MgClass, options: { strategy?: Strategy; interpret?: boolean }): () => Promise<void> {
  return async () => {
    const rnm2 = await norm(cls.n, cls.nit, options);
    expect(relativeError(rnm2, cls.verifyValue), `class ${cls.name}: L2 norm ${rnm2}, official ${cls.verifyValue}`).toBeLessThanOrEqual(MG_EPSILON);
  };
}

describe('NPB verification', () => {
  it('class S (32³, 4 iterations), fused by the ILP plan', verifies(MG_CLASSES.S, { strategy: 'ilp' }));
  it.runIf(slow)('class S, by the reference interpreter', verifies(MG_CLASSES.S, { interpret: true }), 120_000);
  it.runIf(slow)('class W (128³, 4 iterations), fused by the ILP plan', verifies(MG_CLASSES.W, { strategy: 'ilp' }), 1_800_000);
});

function countCombinators(n: number): Record<CombinatorKind, number> {
  const counts = Object.fromEntries(combinatorKinds.map((k) => [k, 0])) as Record<CombinatorKind, number>;
  for (const s of allStmts(mg.lower(inputs(n, 4)))) if (s.kind !== 'scalar' && s.kind !== 'if' && s.kind !== 'while') counts[s.kind]++;
  return counts;
}

function clusterCounts(block: BlockPlan): number[] {
  return [block.clusters.length, ...Object.values(block.children).flatMap((blocks) => blocks.flatMap(clusterCounts))];
}

function allClusters(block: BlockPlan): (readonly number[])[] {
  return [...block.clusters.map((c) => c.nodes), ...Object.values(block.children).flatMap((blocks) => blocks.flatMap(allClusters))];
}

describe('the program the planner sees', () => {
  it('class S lowers to 35 combinators: 20 stencil generates, 12 zipWiths, 3 folds (the norm)', () => {
    expect(countCombinators(32)).toEqual({ generate: 20, map: 12, gather: 0, scatter: 0, fold: 3, scanl: 0, scanr: 0, force: 0 });
  });

  it('gains 6 combinators per level (restrict, prolong, two stencils and their zipWiths): class W has 47', () => {
    expect(countCombinators(128)).toMatchObject({ generate: 28, map: 16, fold: 3 });
  });

  it('class S: the ILP plan is optimal, 18 loops per V-cycle, every zipWith fused into its producer', async () => {
    const plan = await mg.plan(inputs(32, 4), { strategy: 'ilp' });
    expect(plan.stats.status).toBe('optimal');
    // Top level: u = 0, r = v − A u, the loop, the norm; the loop's cond block has no
    // combinators; its body: 4 restrictions, the coarsest smoothing, 3 × (interp, resid,
    // psinv), the finest level's interp + add, resid, psinv, and the closing resid.
    expect(clusterCounts(plan.root)).toEqual([4, 0, 18]);
    // Each zipWith shares its loop with the generate (a stencil or interp) or the folds (the norm).
    const kinds = new Map(allStmts(mg.lower(inputs(32, 4))).flatMap((s) => (s.kind === 'scalar' ? [] : [[s.id, s.kind] as const])));
    const clusters = allClusters(plan.root);
    const mapClusters = clusters.filter((nodes) => nodes.some((id) => kinds.get(id) === 'map'));
    expect(mapClusters).toHaveLength(12);
    for (const nodes of mapClusters) expect(nodes.some((id) => kinds.get(id) === 'generate' || kinds.get(id) === 'fold')).toBe(true);
  });
});
