// Runs a program through the public API (src/index.ts `compile`) under the reference
// interpreter and every planning strategy, for tests that compare all of them with values
// computed independently in the test.

import { compile, type Input, type Output } from '../../src/index.js';
import type { Strategy } from '../../src/plan/types.js';

export const strategies: readonly Strategy[] = ['ilp', 'greedy-down', 'greedy-up', 'none'];

/** The results of every mode, keyed `interpret` or the strategy name. */
export async function runAllModes(source: string, inputs: Readonly<Record<string, Input>>): Promise<Record<string, Record<string, Output>>> {
  const program = compile(source);
  const out: Record<string, Record<string, Output>> = { interpret: await program.run(inputs, { interpret: true }) };
  for (const strategy of strategies) out[strategy] = await program.run(inputs, { strategy });
  return out;
}

/** A result as plain numbers (arrays as lists), for toEqual against expected values. */
export function plain(o: Output): unknown {
  if (typeof o === 'number') return o;
  if (Array.isArray(o)) return o.map(plain);
  return Array.from((o as { data: ArrayLike<number> }).data);
}
