// The parallel variant on the benchmark programs (bench/programs: naive and flash attention,
// MG with gathers and with indexing generates) at small sizes, under shuffled chunks, against the
// sequential module: bit for bit where no float fold or scan is regrouped (attention's row
// folds and maps, MG's stencils), else within 1e-9 relative (MG's norms are whole-array sums).

import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import { compileProgram } from '../../src/runtime/index.js';
import type { Strategy } from '../../src/plan/types.js';
import { expectSameValues } from '../runtime/equal.js';
import { runParallel } from './parallelHarness.js';
import { array, prepare, scalar } from './parallelPrograms.js';

const source = (name: string): string => readFileSync(new URL(`../../bench/programs/${name}.fuse`, import.meta.url), 'utf8');
const values = (shape: readonly number[], seed: number) => array('f64', shape, (k) => Math.sin(k * 0.37 + seed) * 0.5);

const cases: readonly { name: string; file: string; inputs: Readonly<Record<string, InterfaceValue>>; strategies: readonly Strategy[] }[] = [
  { name: 'naiveAttention', file: 'naiveAttention', inputs: { Q: values([12, 4], 1), K: values([12, 4], 2), V: values([12, 4], 3) }, strategies: ['ilp', 'none'] },
  {
    name: 'flashAttention',
    file: 'flashAttention',
    inputs: { Q: values([12, 4], 1), K: values([12, 4], 2), V: values([12, 4], 3), br: scalar('i32', 4), bc: scalar('i32', 3) },
    strategies: ['ilp', 'greedy-up'],
  },
  { name: 'mg (stencils as gathers)', file: 'mg', inputs: { v: values([8, 8, 8], 5), nit: scalar('i32', 1) }, strategies: ['greedy-up'] },
  { name: 'mg-generates', file: 'mg-generates', inputs: { v: values([8, 8, 8], 4), nit: scalar('i32', 1) }, strategies: ['greedy-up', 'none'] },
];

function close(actual: readonly InterfaceValue[], expected: readonly InterfaceValue[], label: string): void {
  const flat = (vs: readonly InterfaceValue[]): RuntimeValue[] => vs.flatMap((v) => (Array.isArray(v) ? (v as RuntimeValue[]) : [v as RuntimeValue]));
  const as = flat(actual);
  const es = flat(expected);
  as.forEach((a, k) => {
    const xs = a.kind === 'scalar' ? [a.value] : Array.from(a.data);
    const e = es[k]!;
    const ys = e.kind === 'scalar' ? [e.value] : Array.from(e.data);
    xs.forEach((x, j) => expect(Math.abs(x - ys[j]!) <= 1e-9 * Math.max(1, Math.abs(ys[j]!)), `${label} ${k}[${j}]: ${x} vs ${ys[j]}`).toBe(true));
  });
}

describe('parallel variant on the benchmark programs', () => {
  test.each(cases)('$name', async ({ file, inputs, strategies }) => {
    for (const strategy of strategies) {
      const { program, plan, values: flat } = await prepare(source(file), inputs, strategy);
      const expected = compileProgram(program, plan).run(flat).results;
      for (const chunkLength of [3, 16384]) {
        const run = runParallel(program, plan, flat, { chunkLength, seed: chunkLength });
        expect(run.generated.schedules.some((s) => s.kind !== 'serial'), 'some cluster runs in parallel').toBe(true);
        const regrouped = run.generated.schedules.some((s) => s.kind === 'reduce' || s.kind === 'scan');
        const label = `${strategy} chunk ${chunkLength} ${JSON.stringify(run.generated.schedules.map((s) => s.kind))}`;
        if (regrouped && chunkLength !== 16384) close(run.results, expected, label);
        else expectSameValues(run.results, expected, label);
      }
    }
  }, 120_000);
});
