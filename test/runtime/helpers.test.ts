// The typed boundary between generated code and the runtime (codegen/runtimeHelpers.ts):
// generated modules call on `rt` only what `Runtime` has, each arithmetic helper of the typed
// table is emitted for its element type and runs, and a helper name or arity the interface
// does not declare does not compile (the `@ts-expect-error` lines: `npm run typecheck` fails if
// any of them compiles).

import { describe, expect, test } from 'vitest';
import { generateProgram } from '../../src/codegen/index.js';
import { callHelper, helperValue } from '../../src/codegen/runtimeHelpers.js';
import { num } from '../../src/codegen/jsast.js';
import { interpret } from '../../src/interp/index.js';
import type { BinaryOp, ScalarType } from '../../src/ir/types.js';
import { makeRuntime, runRecord } from '../../src/runtime/helpers.js';
import { planMemory } from '../../src/memory/index.js';
import { compileProgram } from '../../src/runtime/index.js';
import { arr, array, arrayParam, bin, cast, lam, nodes, program, v } from '../ir/builders.js';
import { paperCases, planOf } from '../codegen/paper.js';
import { expectSameValues } from './equal.js';

/** `out = map(λx y. f64(x op y), xs, ys)` over element type `t`, fused alone. */
function arithmetic(op: BinaryOp, t: ScalarType) {
  const n = nodes();
  const m = n.map([arr('out', 'f64', 1)], ['xs', 'ys'], lam([['x', t], ['y', t]], cast('f64', bin(op, v('x', t), v('y', t)))));
  return {
    program: program('f', [arrayParam('xs', t, 1), arrayParam('ys', t, 1)], [m], ['out']),
    plan: planOf([{ nodes: [0], manifest: ['out'] }], { 0: 0 }),
  };
}

const helperCases = [
  ['//', 'bool', 'floordiv_bool'],
  ['%', 'bool', 'mod_bool'],
  ['**', 'i32', 'pow_i32'],
  ['**', 'u32', 'pow_u32'],
  ['**', 'bool', 'pow_bool'],
] as const;

/** Every `rt.name` a generated module mentions. */
function helpersUsed(text: string): string[] {
  return [...new Set([...text.matchAll(/\brt\.([A-Za-z_$][\w$]*)/g)].map((m) => m[1]!))];
}

const emptyTables = { sites: [], slots: [], allocations: [], clusterCount: 0 };
const runtime = makeRuntime(emptyTables, undefined, Infinity, runRecord(emptyTables));

describe('generated code calls only what the runtime has', () => {
  const programs = [
    ...paperCases.map((c) => c()),
    ...helperCases.map(([op, t]) => ({ name: `${op} ${t}`, ...arithmetic(op, t) })),
  ];
  test.each(programs)('$name, plain and with counters', ({ program: p, plan }) => {
    for (const counters of [false, true]) {
      for (const name of helpersUsed(generateProgram(p, plan, { counters, memory: planMemory(p, plan) }).text)) {
        expect(name in runtime, `rt.${name}`).toBe(true);
      }
    }
  });
});

describe.each(helperCases)('%s on %s calls rt.%s', (op, t, helper) => {
  test('and equals the interpreter', () => {
    const { program: p, plan } = arithmetic(op, t);
    expect(helpersUsed(generateProgram(p, plan, { counters: false, memory: planMemory(p, plan) }).text)).toContain(helper);
    const values = t === 'bool' ? [1, 1, 0, 1] : [3, -2, 0, 7];
    const exponents = t === 'bool' ? [1, 1, 1, 1] : [2, 3, 5, 1];
    const inputs = [array(t, [4], t === 'u32' ? values.map((x) => x >>> 0) : values), array(t, [4], exponents)];
    expectSameValues(compileProgram(p, plan).run(inputs).results, interpret(p, inputs));
  });
});

test('a helper the interface does not declare, or a wrong arity, does not compile', () => {
  // Built, never run: the assertions are the type checker's.
  const wrong = () => [
    // @ts-expect-error: no such helper
    callHelper('pow_f64', [num(0), num(1), num(2)]),
    // @ts-expect-error: oob takes five arguments
    callHelper('oob', [num(0), num(1)]),
    // @ts-expect-error: a value, not a function
    callHelper('maxWhileIterations', []),
    // @ts-expect-error: a function, not a value
    helperValue('alloc'),
  ];
  expect(typeof wrong).toBe('function');
});
