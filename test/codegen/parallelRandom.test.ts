// The parallel variant on the shared random program generator (test/util), every chunk order and
// split the shuffling runtime makes (parallelHarness.ts), against the reference interpreter:
// - with the default chunk length (one chunk per loop at these sizes) bit for bit;
// - with chunk lengths 1, 2, 3 and 7: integers, bools and every value of a program whose float
//   folds and scans are not regrouped bit for bit; a program with a regrouped float fold or
//   scan (a `reduce` or `scan` cluster carrying an f64/f32 value) within a relative tolerance of
//   1e-9 per element (|a − b| ≤ 1e-9 · max(1, |b|)), its integers still exact unless computed
//   from those floats — such a program is compared only where its floats are.
// A run the sequential module faults on must fault in the parallel one with the same message.

import { afterAll, describe, expect, test } from 'vitest';
import type { Block, CombinatorNode } from '../../src/ir/types.js';
import { interpret } from '../../src/interp/index.js';
import { compileProgram } from '../../src/runtime/index.js';
import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import type { Strategy } from '../../src/plan/types.js';
import { plan } from '../../src/plan/index.js';
import { randomProgram } from '../util/index.js';
import { expectSameValues } from '../runtime/equal.js';
import { runParallel } from './parallelHarness.js';
import { solver } from './parallelPrograms.js';

const strategies: readonly Strategy[] = ['ilp', 'none', 'greedy-down'];
const seeds = Array.from({ length: 40 }, (_, k) => k + 1);

function flat(values: readonly InterfaceValue[]): RuntimeValue[] {
  return values.flatMap((v) => (Array.isArray(v) ? (v as RuntimeValue[]) : [v as RuntimeValue]));
}

/** Float elements within the tolerance of the header; other elements exact. */
function expectClose(actual: readonly InterfaceValue[], expected: readonly InterfaceValue[], label: string): void {
  const as = flat(actual);
  const es = flat(expected);
  expect(as.length, label).toBe(es.length);
  as.forEach((a, k) => {
    const e = es[k]!;
    const xs = a.kind === 'scalar' ? [a.value] : Array.from(a.data);
    const ys = e.kind === 'scalar' ? [e.value] : Array.from(e.data);
    expect(xs.length, label).toBe(ys.length);
    xs.forEach((x, j) => {
      const y = ys[j]!;
      const close = Object.is(x, y) || (Number.isNaN(x) && Number.isNaN(y)) || Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y));
      expect(close, `${label} component ${k} element ${j}: ${x} vs ${y}`).toBe(true);
    });
  });
}

/** Every combinator of a block and of the blocks nested in it. */
function combinators(b: Block): CombinatorNode[] {
  return b.stmts.flatMap((s): CombinatorNode[] => {
    if (s.kind === 'scalar') return [];
    if (s.kind === 'if') return [...combinators(s.then), ...combinators(s.else)];
    if (s.kind === 'while') return [...combinators(s.cond), ...combinators(s.body)];
    return [s];
  });
}

/** How often each schedule was met, over the whole file (printed at the end: the suite must reach every kind). */
const kinds = new Map<string, number>();

afterAll(() => {
  for (const k of ['independent', 'reduce', 'scan', 'atomic', 'owner', 'serial']) expect(kinds.get(k) ?? 0, `schedule ${k}`).toBeGreaterThan(0);
});

describe('parallel variant on random programs', () => {
  test.each(seeds)('seed %i', async (seed) => {
    const c = randomProgram(seed, { combinators: { min: 2, max: 9 } });
    const floatCarriers = new Set(combinators(c.program.body).filter((n) => (n.kind === 'fold' || n.kind === 'scanl' || n.kind === 'scanr') && n.outs.some((o) => o.elem === 'f64' || o.elem === 'f32')).map((n) => n.id));
    for (const strategy of strategies) {
      const p = await plan(c.program, { strategy, solver });
      let fault: unknown = null;
      try {
        compileProgram(c.program, p).run(c.inputs);
      } catch (e) {
        fault = e;
      }
      const expected = fault === null ? interpret(c.program, c.inputs) : null;
      for (const chunkLength of [16384, 1, 2, 3, 7]) {
        const label = `${strategy} chunk ${chunkLength}\n${c.description}`;
        let run;
        try {
          run = runParallel(c.program, p, c.inputs, { chunkLength, seed: seed * 31 + chunkLength });
        } catch (e) {
          if (fault === null) throw e;
          expect((e as Error).message, label).toBe((fault as Error).message);
          continue;
        }
        expect(fault, `${label}: the sequential module faults, the parallel one does not`).toBe(null);
        const regroupsFloats = run.generated.schedules.some(
          (s, k) => (s.kind === 'reduce' || s.kind === 'scan') && run.generated.clusters[k]!.nodes.some((id) => floatCarriers.has(id)),
        );
        for (const s of run.generated.schedules) kinds.set(s.kind, (kinds.get(s.kind) ?? 0) + 1);
        if (chunkLength === 16384 || !regroupsFloats) expectSameValues(run.results, expected!, `${label}\n${run.generated.text}`);
        else expectClose(run.results, expected!, label);
      }
    }
  });
});
