// Invariant 3 of DESIGN.md: on random programs (the shared generator) and their inputs, fused
// execution under every strategy's plan, on every registered back end, equals the reference
// interpreter — bit for bit, floats included: folds and scans run left to right (right to left
// for scanr) exactly as the interpreter does, so no reassociation happens and no tolerance is
// needed. Plans are made once per program and strategy and shared by the back ends.

import { describe, expect, test } from 'vitest';
import { interpret } from '../../src/interp/index.js';
import { plan } from '../../src/plan/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { validatePlan } from '../../src/check/validate.js';
import type { Program } from '../../src/ir/types.js';
import type { Plan, Strategy } from '../../src/plan/types.js';
import { randomProgram } from '../util/index.js';
import { expectSameValues } from './equal.js';
import { backends, runOn } from './backends.js';

const solver = createSolverLoader();
const strategies: readonly { readonly strategy: Strategy; readonly cost?: string }[] = [
  { strategy: 'none' },
  { strategy: 'greedy-down' },
  { strategy: 'greedy-up' },
  { strategy: 'ilp', cost: 'reads+writes' },
  { strategy: 'ilp', cost: 'intermediate-arrays' },
  { strategy: 'ilp', cost: 'fused-edges' },
  { strategy: 'ilp', cost: 'reads' },
  { strategy: 'ilp', cost: 'clusters' },
  { strategy: 'ilp', cost: 'everything' },
];

const seeds = Array.from({ length: 60 }, (_, k) => k + 1);

/** Dropping scatters (scatterDrop, hist: guarded updates in fused code) are rare in small programs: the first 15 seeds from 1001 whose program has one. */
const dropOptions = { combinators: { min: 2, max: 9 }, dropScatters: true } as const;
const dropSeeds: number[] = [];
for (let seed = 1001; dropSeeds.length < 15; seed++) {
  if (JSON.stringify(randomProgram(seed, dropOptions).program).includes('"drop":true')) dropSeeds.push(seed);
}

/** Plans by seed and strategy, made once for all back ends. */
const plans = new Map<string, Promise<Plan>>();
function planFor(program: string, ir: Program, s: (typeof strategies)[number]): Promise<Plan> {
  const key = `${program} ${s.strategy} ${s.cost ?? ''}`;
  let planned = plans.get(key);
  if (planned === undefined) {
    planned = plan(ir, { ...s, solver });
    plans.set(key, planned);
  }
  return planned;
}

/** Every strategy's plan of `c` on one back end equals the interpreter; `key` names its plans in the cache. */
async function expectAllStrategies(config: (typeof backends)[number], key: string, c: ReturnType<typeof randomProgram>): Promise<void> {
  const expected = interpret(c.program, c.inputs);
  for (const s of strategies) {
    const label = `${config.name} ${s.strategy} ${s.cost ?? ''}\n${c.description}`;
    const p = await planFor(key, c.program, s);
    expect(validatePlan(c.program, p), label).toEqual([]);
    let results;
    try {
      results = (await runOn(config, c.program, p, c.inputs)).results;
    } catch (err) {
      throw new Error(`${label}\n${JSON.stringify(p.root)}\n${(err as Error).stack}`);
    }
    expectSameValues(results, expected, label);
  }
}

describe.each(backends)('$name back end: fused execution equals the interpreter on random programs', (config) => {
  test.each(seeds)('seed %i, every strategy', async (seed) => {
    await expectAllStrategies(config, String(seed), randomProgram(seed, { combinators: { min: 2, max: 9 } }));
  });

  test.each(dropSeeds)('seed %i with dropping scatters, every strategy', async (seed) => {
    await expectAllStrategies(config, `drop ${seed}`, randomProgram(seed, dropOptions));
  });
});
