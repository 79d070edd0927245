// The parallel variant of the generated module (GenerateOptions.parallel) equals the reference
// interpreter when its work functions' chunks run in any order and any split (the shuffling
// runtime of parallelHarness.ts): integers, bools and every free loop bit for bit; floats that
// a fold or scan regroups, exactly here too — the inputs are small integral values or sums that
// round the same in any grouping at these sizes (see parallelRandom.test.ts for the tolerance).

import { describe, expect, test } from 'vitest';
import { interpret } from '../../src/interp/index.js';
import { compileProgram } from '../../src/runtime/index.js';
import { UserError } from '../../src/diagnostics/index.js';
import { generateProgram, workerHelpers } from '../../src/codegen/index.js';
import { planMemory } from '../../src/memory/index.js';
import type { Strategy } from '../../src/plan/types.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { expectSameValues } from '../runtime/equal.js';
import { compileParallel, groupResults, runParallel, ShuffleRuntime } from './parallelHarness.js';
import { checkInputs } from '../../src/interp/index.js';
import { Pool } from '../../src/runtime/helpers.js';
import { seededRng } from '../util/index.js';
import { array, exampleCases, faultCases, prepare, sourceCases } from './parallelPrograms.js';

function describeInputs(values: readonly InterfaceValue[]): string {
  return values.map((v) => (Array.isArray(v) ? 'tuple' : JSON.stringify('shape' in v ? v.shape : (v as { value: number }).value))).join(' ');
}

const strategies: readonly Strategy[] = ['ilp', 'none', 'greedy-up'];
const chunkLengths = [1, 2, 3, 7, 16384];

describe('parallel variant on hand-written programs', () => {
  test.each([...sourceCases, ...exampleCases])('$name', async ({ source, inputs, unique }) => {
    for (const strategy of strategies) {
      for (const named of inputs) {
        const { program, plan, values } = await prepare(source, named, strategy, unique);
        const expected = interpret(program, values);
        for (const chunkLength of chunkLengths) {
          for (const seed of [1, 2]) {
            const label = `${strategy} chunk ${chunkLength} seed ${seed} inputs ${describeInputs(values)}`;
            const run = runParallel(program, plan, values, { chunkLength, seed });
            expectSameValues(run.results, expected, `${label}\n${run.generated.text}`);
          }
        }
      }
    }
  });
});

describe('parallel variant faults', () => {
  test.each(faultCases)('$name: the diagnostic the sequential run raises', async ({ source, inputs }) => {
    for (const strategy of strategies) {
      for (const named of inputs) {
        const { program, plan, values } = await prepare(source, named, strategy);
        // The sequential module's diagnostic (the interpreter raises a fault only where a value
        // is used; generated code computes every element, and the driver then falls back).
        let expected: unknown = null;
        try {
          compileProgram(program, plan).run(values);
        } catch (e) {
          expected = e;
        }
        expect(expected).toBeInstanceOf(UserError);
        for (const chunkLength of chunkLengths) {
          let got: unknown = null;
          try {
            runParallel(program, plan, values, { chunkLength, seed: chunkLength });
          } catch (e) {
            got = e;
          }
          expect(got, `${strategy} chunk ${chunkLength}`).toBeInstanceOf(UserError);
          expect((got as UserError).message, `${strategy} chunk ${chunkLength}`).toBe((expected as UserError).message);
        }
      }
    }
  });
});

describe('parallel module text', () => {
  test.each([...sourceCases, ...exampleCases])('$name: its schedules; work functions call only the helpers workers have', async ({ source, inputs, unique, schedules }) => {
    const { program, plan } = await prepare(source, inputs[inputs.length - 1]!, 'ilp', unique);
    const g = generateProgram(program, plan, { counters: false, memory: planMemory(program, plan), parallel: true });
    expect(g.schedules).toHaveLength(g.clusters.length);
    for (const kind of schedules ?? []) expect(g.schedules.map((s) => s.kind)).toContain(kind);
    // Each work function belongs to a cluster that is not serial, and each such cluster has one.
    g.schedules.forEach((s, c) => expect(g.workFunctions.some((f) => f.cluster === c), `cluster ${c}`).toBe(s.kind !== 'serial'));
    for (const f of g.workFunctions) {
      const start = g.text.indexOf(`function ${f.name}(`);
      expect(start).toBeGreaterThanOrEqual(0);
      const body = g.text.slice(start, g.text.indexOf('\n}\n', start));
      for (const m of body.matchAll(/\brt\.([A-Za-z_0-9]+)/g)) expect(workerHelpers, `${f.name} calls rt.${m[1]}`).toContain(m[1]);
    }
  });
});

describe('parallel module: what stays serial', () => {
  const xs = { xs: array('i32', [9], (k) => k) };

  test('without parallel the module is the sequential one: no fns, no schedules', async () => {
    const { program, plan } = await prepare('def f(xs):\n  return map(lam x: x + 1, xs), fold(+, xs)\n', xs, 'ilp');
    const g = generateProgram(program, plan, { counters: false, memory: planMemory(program, plan) });
    expect(g.text).not.toMatch(/fns|rt\.par\(/);
    expect(g.schedules).toEqual([]);
    expect(g.workFunctions).toEqual([]);
  });

  test('a loop calling a helper workers lack (integer **) is serial, with the helper named', async () => {
    const { program, plan } = await prepare('def f(xs):\n  return map(lam x: x ** 3, xs)\n', xs, 'ilp');
    const g = generateProgram(program, plan, { counters: false, memory: planMemory(program, plan), parallel: true });
    expect(g.schedules).toEqual([{ kind: 'serial', reason: 'its loop calls rt.pow_i32, which workers lack' }]);
    expect(g.workFunctions).toEqual([]);
    expect(g.text).toMatch(/const fns = \[\];/);
  });

  test('the counters variant is serial throughout', async () => {
    const { program, plan } = await prepare('def f(xs):\n  return map(lam x: x + 1, xs), fold(+, xs)\n', xs, 'ilp');
    const g = generateProgram(program, plan, { counters: true, memory: planMemory(program, plan), parallel: true });
    expect(g.schedules.every((s) => s.kind === 'serial')).toBe(true);
    expect(g.text).not.toMatch(/rt\.par\(/);
  });

  test('a fold whose operator is not one chunks may regroup is serial', async () => {
    const { program, plan } = await prepare('def f(xs):\n  return fold(lam a, x: a * 2 + x, 0, xs)\n', xs, 'ilp');
    const g = generateProgram(program, plan, { counters: false, memory: planMemory(program, plan), parallel: true });
    expect(g.schedules[0]).toMatchObject({ kind: 'serial' });
    expect((g.schedules[0] as { reason: string }).reason).toMatch(/regrouped/);
  });
});

describe('parallel module: a run after a fault', () => {
  test('the same module and runtime give the right results after a run that faulted in a chunk', async () => {
    const source = 'def f(is):\n  qs = map(lam i: 100 // i, is)\n  return qs, fold(+, 3, qs), scanl(+, 1, is)\n';
    const bad = { is: array('i32', [40], (k) => (k === 17 ? 0 : k + 1)) };
    const good = { is: array('i32', [40], (k) => k + 1) };
    const { program, plan, values } = await prepare(source, bad, 'ilp');
    const { main, fns, tables } = compileParallel(program, plan);
    const rt = new ShuffleRuntime(tables, seededRng(5), 3);
    rt.fns = fns;
    const pool = new Pool(planMemory(program, plan).slots);
    rt.reset(pool, { out: undefined, timing: false });
    expect(() => main(rt, checkInputs(program, values, undefined))).toThrow(UserError);
    const goodValues = (await prepare(source, good, 'ilp')).values;
    rt.reset(pool, { out: undefined, timing: false });
    const raw = main(rt, checkInputs(program, goodValues, undefined));
    expectSameValues(groupResults(program, raw), interpret(program, goodValues));
  });
});
