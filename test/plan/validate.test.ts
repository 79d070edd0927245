import { describe, expect, it } from 'vitest';
import { validateBlockPlan, formatViolation } from '../../src/plan/validate.js';
import { statedPlans } from './fixtures-validate.js';

describe('validator accepts the paper stated plans', () => {
  it.each(statedPlans.map((s) => [s.name, s] as const))('%s', (_, s) => {
    expect(validateBlockPlan(s.program(), s.plan).map(formatViolation)).toEqual([]);
  });
});
