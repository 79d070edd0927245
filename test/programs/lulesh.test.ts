// LULESH 2.0 as a .fuse program (bench/programs/lulesh.fuse), verified against the LLNL reference:
// the plain TypeScript oracle reproduces the reference's published outputs, and the program, fused
// with the ILP's plan (and interpreted on the smallest mesh), reproduces the iteration count and the
// "Final Origin Energy" to the printed digits, and the oracle's final state to rounding.
//
// -s 10 fused takes about a minute on two cores; it runs only with LULESH_SLOW=1:
//   LULESH_SLOW=1 npx vitest run test/programs/lulesh.test.ts   (see bench/programs/README-lulesh.md)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compile, type FuseProgram } from '../../src/index.js';
import type { Strategy } from '../../src/plan/types.js';
import { LULESH_RESULTS, luleshMesh, luleshReference } from '../../bench/programs/lulesh-reference.js';

const slow = process.env['LULESH_SLOW'] === '1';
const source = readFileSync(join(import.meta.dirname, '..', '..', 'bench', 'programs', 'lulesh.fuse'), 'utf8');
const lulesh: FuseProgram = compile(source, { fileName: 'bench/programs/lulesh.fuse' });

/** The program's inputs for `-s nx`: the mesh set-up of lulesh-reference.ts. */
export function luleshInputs(nx: number) {
  const m = luleshMesh(nx);
  return {
    x: { data: m.x, shape: [m.numNode] },
    y: { data: m.y, shape: [m.numNode] },
    z: { data: m.z, shape: [m.numNode] },
    nodelist: { data: m.nodelist, shape: [m.numElem, 8] },
    cornerElem: { data: m.cornerElem, shape: [m.numNode, 8] },
    neighbours: { data: m.neighbours, shape: [m.numElem, 6] },
    faceKind: { data: m.faceKind, shape: [m.numElem, 6] },
    symm: { data: m.symm, shape: [m.numNode, 3] },
    volo: { data: m.volo, shape: [m.numElem] },
    elemMass: { data: m.elemMass, shape: [m.numElem] },
    nodalMass: { data: m.nodalMass, shape: [m.numNode] },
    nx,
  };
}

async function simulate(nx: number, options: { strategy?: Strategy; interpret?: boolean }): Promise<{ cycles: number; e: Float64Array }> {
  const out = await lulesh.run(luleshInputs(nx), options);
  const e = out['e'];
  const cycles = out['cycle'];
  if (typeof e !== 'object' || typeof cycles !== 'number') throw new Error(`unexpected outputs ${Object.keys(out).join(', ')}`);
  return { cycles, e: e.data as Float64Array };
}

/** What the reference prints: `std::scientific << std::setprecision(6)`. */
const printed = (value: number): string => value.toExponential(6);

describe('the plain TypeScript oracle', () => {
  it('reproduces -s 5 of the reference: 72 cycles, Final Origin Energy 7.853665e+03', () => {
    const state = luleshReference(5);
    expect(state.cycle).toBe(LULESH_RESULTS[5]!.iterations);
    expect(printed(state.e[0]!)).toBe(printed(LULESH_RESULTS[5]!.originEnergy));
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
