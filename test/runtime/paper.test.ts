// The paper's programs run fused under their optimal plans and under `none`, on every
// registered back end, against the reference interpreter, bit for bit.

import { describe, expect, test } from 'vitest';
import { interpret } from '../../src/interp/index.js';
import { validatePlan } from '../../src/check/validate.js';
import { array } from '../ir/builders.js';
import { nonePlan, paperCases } from '../codegen/paper.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { expectSameValues } from './equal.js';
import { backends, runOn } from './backends.js';

const inputs: Record<string, readonly InterfaceValue[]> = {
  singleLoop: [array('f64', [5], [1, -2.5, 3, 0.125, 1e300])],
  simple1: [array('i32', [4], [2, 0, 2, 1]), array('f64', [3], [0.5, 1.5, -2])],
  simple2: [array('i32', [3], [2, 1, 0]), array('i32', [4], [0, 2, 2, 1]), array('f64', [3], [7, 8, 9])],
  simple3: [array('i32', [4], [2, 0, 2, 1]), array('f64', [3], [0.5, 1.5, -2])],
  simple4: [array('i32', [2], [2, 0]), array('f64', [3, 4], [1, 2, 3, 4, 0.1, 0.2, 0.3, 0.4, 10, 20, 30, 40])],
  simple5: [array('i32', [3], [2, 2, 0]), array('f64', [3], [1, 2, 3])],
  scatterExample: [array('f64', [4], [1, 2.5, 3, -1])],
};

describe.each(backends)('$name back end', (config) => {
  describe.each(paperCases.map((c) => c()))('$name', (c) => {
    test('its plan is valid', () => {
      expect(validatePlan(c.program, c.plan)).toEqual([]);
    });
    test.each([
      ['the optimal plan', c.plan],
      ['no fusion', nonePlan(c.program)],
    ])('fused under %s equals the interpreter', async (_, plan) => {
      const args = inputs[c.name]!;
      const expected = interpret(c.program, args);
      const { results } = await runOn(config, c.program, plan, args);
      expectSameValues(results, expected);
    });
  });
});
