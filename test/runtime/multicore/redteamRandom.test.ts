// The red team's random end-to-end check: programs of the shared generator (test/util) compiled
// for the multicore back end over the real thread pool (threads 2 and 3, fork threshold 0, chunk
// lengths 1, 3 and the default) against the js back end on the same plan: the same results
// (floats a regrouped fold or scan carries within 1e-9 relative) or the same diagnostic.
// REDTEAM_SEEDS=a-b widens the range (default 1-60); REDTEAM_BIG=1 makes the arrays thousands of
// elements long (races between threads show only on long loops).

import { describe, expect, test } from 'vitest';
import { UserError } from '../../../src/diagnostics/index.js';
import type { InterfaceValue } from '../../../src/ir/values.js';
import { plan } from '../../../src/plan/index.js';
import type { Strategy } from '../../../src/plan/types.js';
import { compileProgram } from '../../../src/runtime/index.js';
import { compileMulticore } from '../../../src/runtime/multicore/backend.js';
import { acquirePool } from '../../../src/runtime/multicore/pool.js';
import { randomProgram } from '../../util/index.js';
import { expectSameValues } from '../equal.js';
import { copyInputs, expectClose, solver } from './redteamHarness.js';

const range = (process.env['REDTEAM_SEEDS'] ?? '1-60').split('-').map(Number);
const seeds = Array.from({ length: range[1]! - range[0]! + 1 }, (_, k) => k + range[0]!);
const strategies: readonly Strategy[] = ['ilp', 'none'];
const big = process.env['REDTEAM_BIG'] === '1';

describe('multicore on random programs (real pool)', () => {
  test.each(seeds)('seed %i', async (seed) => {
    const c = randomProgram(seed, {
      combinators: { min: 3, max: 12 },
      readAfterScatter: seed % 2 === 0,
      dropScatters: seed % 3 === 0,
      ...(big ? { extents: { min: 1, max: 5000 }, maxElements: 60_000, maxRank: 2 } : {}),
    });
    for (const strategy of strategies) {
      const p = await plan(c.program, { strategy, solver });
      let fault: unknown = null;
      let expected: InterfaceValue[] | null = null;
      try {
        expected = compileProgram(c.program, p).run(copyInputs(c.inputs)).results;
      } catch (e) {
        fault = e;
      }
      for (const chunkLength of big ? [undefined, 97] : [undefined, 1, 3]) {
        let first: readonly InterfaceValue[] | null = null;
        for (const threads of [2, 3]) {
          const label = `${strategy} chunk ${chunkLength} threads ${threads}\n${c.description}`;
          const exe = await compileMulticore(c.program, p, { threads, parallelThreshold: 0, chunkLength }, (t) => acquirePool(t));
          try {
            let got;
            try {
              got = (await exe.run(copyInputs(c.inputs, threads === 3))).results;
            } catch (e) {
              if (fault === null) throw e;
              expect(e, label).toBeInstanceOf(UserError);
              expect((e as Error).message, label).toBe((fault as Error).message);
              continue;
            }
            expect(fault, `${label}: js faults, multicore does not`).toBe(null);
            if (chunkLength === undefined) expectSameValues(got, expected!, label);
            else expectClose(got, expected!, label);
            if (first === null) first = got;
            else expectSameValues(got, first, `${label}: threads 2 against 3`);
          } finally {
            exe.dispose();
          }
        }
      }
    }
  });
});
