// Random programs (the shared generator, control flow included) under memory plans made by hand
// (memoryPlans.ts: own slots, loop pairs, results written directly or copied), with poisoned
// buffers: every run of one executable — the first, which makes the pool, and later ones, which
// find it full of the previous run's data — with and without `out`, equals the interpreter, and
// leaves the inputs unchanged.

import { describe, expect, test } from 'vitest';
import { interpret } from '../../src/interp/index.js';
import { plan } from '../../src/plan/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import type { TypedArray } from '../../src/ir/scalarOps.js';
import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import type { Strategy } from '../../src/plan/types.js';
import { compileProgram } from '../../src/runtime/index.js';
import { randomProgram } from '../util/index.js';
import { expectSameValues } from './equal.js';
import { ownSlots } from './memoryPlans.js';

const solver = createSolverLoader();
const strategies: readonly Strategy[] = ['none', 'greedy-up', 'ilp'];
const seeds = Array.from({ length: 40 }, (_, k) => k + 1);

const flat = (vs: readonly InterfaceValue[]): RuntimeValue[] => vs.flatMap((v) => (Array.isArray(v) ? (v as RuntimeValue[]) : [v as RuntimeValue]));
const copyOf = (vs: readonly InterfaceValue[]): number[][] => flat(vs).map((v) => (v.kind === 'array' ? Array.from(v.data) : [v.value]));

describe('random programs on pooled memory', () => {
  test.each(seeds)('seed %i, every strategy, both fixtures, three runs each', async (seed) => {
    const c = randomProgram(seed, { combinators: { min: 2, max: 9 } });
    const expected = interpret(c.program, c.inputs);
    const before = copyOf(c.inputs);
    for (const strategy of strategies) {
      const p = await plan(c.program, { strategy, solver });
      for (const direct of [false, true]) {
        const label = `${strategy} direct=${direct}\n${c.description}`;
        const exe = compileProgram(c.program, p, { memory: ownSlots(c.program, p, { direct }), poisonBuffers: true });
        for (let r = 0; r < 3; r++) {
          const out = r === 2 ? flat(expected).map((v) => (v.kind === 'array' ? new (v.data.constructor as new (n: number) => TypedArray)(v.data.length) : undefined)) : undefined;
          expectSameValues(exe.run(c.inputs, { out }).results, expected, `${label} run ${r}`);
          expect(copyOf(c.inputs), `${label}: inputs unchanged`).toEqual(before);
        }
      }
    }
  });
});
