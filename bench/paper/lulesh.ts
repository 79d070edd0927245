// LULESH in the harness: the mesh from bench/programs/lulesh-reference.ts as the program's
// inputs, and its output (final element energies, cycles run) checked against the plain
// TypeScript simulation of the same module, and at published sizes also against the LLNL
// reference binary's cycle count and final origin energy. The inputs are the set-up
// (coordinates, connectivity, masks, masses); the program splits the index tables into columns
// itself, so the same inputs serve every formulation of the kernel.

import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import { LULESH_RESULTS, luleshMesh, luleshReference } from '../programs/lulesh-reference.js';
import { relativeError } from '../programs/mg-reference.js';
import type { BenchInputs, BenchProgram, BenchSize } from './registry.js';

function array(elem: 'f64' | 'i32', shape: readonly number[], data: Float64Array | Int32Array): RuntimeValue {
  return { kind: 'array', elem, shape: [...shape], data };
}

function luleshInputs(nx: number): BenchInputs {
  const m = luleshMesh(nx);
  return {
    x: array('f64', [m.numNode], m.x),
    y: array('f64', [m.numNode], m.y),
    z: array('f64', [m.numNode], m.z),
    nodelist: array('i32', [m.numElem, 8], m.nodelist),
    cornerElem: array('i32', [m.numNode, 8], m.cornerElem),
    neighbours: array('i32', [m.numElem, 6], m.neighbours),
    faceKind: array('i32', [m.numElem, 6], m.faceKind),
    symm: array('i32', [m.numNode, 3], m.symm),
    volo: array('f64', [m.numElem], m.volo),
    elemMass: array('f64', [m.numElem], m.elemMass),
    nodalMass: array('f64', [m.numNode], m.nodalMass),
    nx: { kind: 'scalar', elem: 'i32', value: nx },
  };
}

function component(results: readonly InterfaceValue[], k: number): RuntimeValue | undefined {
  const value = results[k];
  return value === undefined || Array.isArray(value) ? undefined : (value as RuntimeValue);
}

export function luleshSize(nx: number, repetitions: number, warmUp = true): BenchSize {
  return {
    label: `-s ${nx}`,
    repetitions,
    warmUp,
    inputs: () => luleshInputs(nx),
    verifier: () => {
      const reference = luleshReference(nx);
      const published = LULESH_RESULTS[nx];
      return (results) => {
        const e = component(results, 0);
        const cycle = component(results, 1);
        if (e?.kind !== 'array' || cycle?.kind !== 'scalar') return 'expected results (e: array, cycle: scalar)';
        if (cycle.value !== reference.cycle) return `ran ${cycle.value} cycles, the TypeScript reference ${reference.cycle}`;
        if (published !== undefined && cycle.value !== published.iterations) return `ran ${cycle.value} cycles, LLNL's reference ${published.iterations}`;
        let worst = 0;
        for (let k = 0; k < reference.e.length; k++) {
          worst = Math.max(worst, Math.abs(e.data[k]! - reference.e[k]!) / Math.max(Math.abs(reference.e[k]!), 1e-300 + Math.abs(reference.e[0]!) * 1e-12));
        }
        if (!(worst <= 1e-8)) return `element energies differ from the TypeScript reference by up to ${worst.toExponential(2)} relative`;
        // LLNL prints e(0) with 7 significant digits.
        if (published !== undefined && relativeError(e.data[0]!, published.originEnergy) > 5e-7) {
          return `final origin energy ${e.data[0]}, LLNL's reference ${published.originEnergy}`;
        }
        return null;
      };
    },
  };
}

export const luleshProgram: BenchProgram = {
  name: 'LULESH',
  file: 'bench/programs/lulesh.fuse',
  solveTimeTable: true,
  sizes: { quick: [luleshSize(3, 1)], full: [luleshSize(10, 11, false)] },
};
