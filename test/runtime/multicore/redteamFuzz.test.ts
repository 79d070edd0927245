// The red team's pass over the fuzzer's programs (test/fuzz: source programs with `if`, `while`,
// scatters, filters, faults), each input set run on the js executable and on the multicore back
// end over the real pool (threads 2 and 3, threshold 0, chunk lengths 1, 2 and the default),
// same plan: the same values (floats that a chunked fold or scan regroups within 1e-6 relative;
// bit for bit at the default chunk length) or the same diagnostic. The same executable runs the
// next input set too. REDTEAM_FUZZ=seed:count widens it (default 7:150).

import { describe, expect, test } from 'vitest';
import { fuzzCase } from '../../fuzz/campaign.js';
import { printProg } from '../../fuzz/print.js';
import { UserError } from '../../../src/diagnostics/index.js';
import { expectSameValues } from '../equal.js';
import { copyInputs, expectClose, multicore, outcome, prepare } from './redteamHarness.js';

const [seed, count] = (process.env['REDTEAM_FUZZ'] ?? '7:150').split(':').map(Number) as [number, number];

describe('multicore on the fuzzer’s programs (real pool)', () => {
  test.each(Array.from({ length: count }, (_, k) => k))('program %i', async (k) => {
    const c = fuzzCase(seed, k);
    const source = printProg(c.prog);
    let p;
    try {
      p = await prepare(source, c.inputs[0]!.values);
    } catch (e) {
      if (e instanceof UserError) return; // rejected at compile time: nothing runs
      throw e;
    }
    const sets = c.inputs.map((s) => p.js.program.params.map((q) => s.values[q.name]!));
    const expected = [];
    for (const ordered of sets) expected.push(await outcome(p.js, copyInputs(ordered)));
    for (const chunkLength of [undefined, 1, 2]) {
      for (const threads of [2, 3]) {
        const exe = await multicore(p, threads, { chunkLength });
        try {
          for (let s = 0; s < sets.length; s++) {
            const label = `program ${k} set ${s} chunk ${chunkLength} threads ${threads}\n${source}${c.inputs[s]!.text}`;
            const got = await outcome(exe, copyInputs(sets[s]!, s % 2 === 1));
            const want = expected[s]!;
            if (want.error !== undefined) {
              expect(got.error, `${label}\njs: ${String(want.error)}`).toBeInstanceOf(UserError);
              expect((got.error as Error).message, label).toBe((want.error as Error).message);
              continue;
            }
            if (got.error !== undefined) throw new Error(`${label}\nmulticore threw ${String(got.error)}`);
            if (chunkLength === undefined) expectSameValues(got.result!.results, want.result!.results, label);
            else expectClose(got.result!.results, want.result!.results, label);
          }
        } finally {
          exe.dispose();
        }
      }
    }
  });
});

describe('found on the way (not the multicore back end)', () => {
  // OPEN (src/memory, the memory planner; any back end, threads 1 included): program 1876 of
  // fuzz seed 83 fails to compile for the ILP plan with "internal compiler error in memory plan
  // validation: [overlap] is_4 (map #30 in root/if #35 then) and copy_2 (map #48 in root/if #35
  // else) share result 1 but are live at once (steps 14–25 and 16–25 of the checker's walk)".
  test.skip('fuzz seed 83, program 1876 compiles (memory plan: two branch results share result 1)', async () => {
    const c = fuzzCase(83, 1876);
    const p = await prepare(printProg(c.prog), c.inputs[0]!.values);
    expect(p.js.program.name).toBe('main');
  });
});
