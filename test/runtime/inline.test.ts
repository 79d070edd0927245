// The inline fast paths of generated code (codegen/scalar.ts) against the interpreter: floor
// division and modulo of every numeric type, by constants of both signs and by run-time values
// (zero included), bit for bit (Object.is: -0 and NaN too); computed multi-dimensional indices;
// and which fault comes first when an expression has two.

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { diagnosticPosition, SourceFile, UserError } from '../../src/diagnostics/index.js';
import { Compiler, type Execution, signatureOf } from '../../src/driver/index.js';
import { interpret } from '../../src/interp/index.js';
import type { BinaryOp, Expr, Program, ScalarType } from '../../src/ir/types.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import type { Plan } from '../../src/plan/types.js';
import { compileProgram, emitJs } from '../../src/runtime/index.js';
import { arr, array, arrayParam, bin, c, cast, idx, lam, nodes, program, sel, sp, v } from '../ir/builders.js';
import { planOf } from '../codegen/paper.js';
import { expectSameValues } from './equal.js';

const file = new SourceFile('f.fuse', 'def f(xs, ys):\n  return map(lam x: x, xs)\n');

type Numeric = Exclude<ScalarType, 'bool'>;

/** One fused map over xs and ys computing `f64(body)`, so a -0 of an integer op stays visible. */
function mapProgram(t: Numeric, body: (x: Expr, y: Expr) => Expr): { program: Program; plan: Plan } {
  const n = nodes();
  const m = n.map([arr('out', 'f64', 1)], ['xs', 'ys'], lam([['x', t], ['y', t]], cast('f64', body(v('x', t), v('y', t)))), sp(17, 20));
  return {
    program: program('f', [arrayParam('xs', t, 1), arrayParam('ys', t, 1)], [m], ['out']),
    plan: planOf([{ nodes: [0], manifest: ['out'] }], { 0: 0 }),
  };
}

function outcome(run: () => readonly InterfaceValue[]): readonly InterfaceValue[] | UserError {
  try {
    return run();
  } catch (err) {
    if (err instanceof UserError) return err;
    throw err;
  }
}

/** Runs fused and interpreted; both must give the same values or the same diagnostics. */
function expectLikeInterpreter(p: Program, plan: Plan, inputs: readonly InterfaceValue[], label: string): void {
  const fused = outcome(() => compileProgram(p, plan, { file }).run(inputs).results);
  const reference = outcome(() => interpret(p, inputs, { file }));
  if (reference instanceof UserError || fused instanceof UserError) {
    expect(fused instanceof UserError ? fused.diagnostics : fused, label).toEqual(reference instanceof UserError ? reference.diagnostics : reference);
    return;
  }
  expectSameValues(fused, reference, label);
}

const i32s = [0, 1, -1, 2, -2, 3, -3, 6, -6, 7, -7, 100, -100, 2147483647, -2147483648, 12345, -12345];
const u32s = [0, 1, 2, 3, 6, 7, 100, 2147483648, 4294967295, 12345];
const floats = [0, -0, 1, -1, 2.5, -2.5, 3, -3, 7, -7, 0.1, -1e300, 1e-300, Infinity, -Infinity, NaN];

const u8s = [0, 1, 2, 3, 6, 7, 64, 100, 127, 128, 129, 200, 254, 255];
const i8s = [0, 1, -1, 2, -2, 3, -3, 6, -6, 7, -7, 64, -64, 100, -100, 127, -128, -127];

const valuesOf: Record<Numeric, readonly number[]> = { i32: i32s, u32: u32s, u8: u8s, i8: i8s, f64: floats, f32: floats.map(Math.fround) };
const constantsOf: Record<Numeric, readonly number[]> = {
  i32: [1, -1, 2, 3, -3, 7, -7, 64, 2147483647, -2147483648],
  u32: [1, 2, 3, 7, 64, 4294967295],
  u8: [1, 2, 3, 7, 64, 128, 255],
  i8: [1, -1, 2, 3, -3, 7, -7, 64, 127, -128],
  f64: [1, -1, 2.5, -2.5, 0, -0, 7, Infinity, NaN],
  f32: [1, -1, 2.5, -2.5, 0, 7, Infinity],
};

/** Every pair of the type's values, as the two input arrays. */
function pairs(t: Numeric, values: readonly number[]): readonly InterfaceValue[] {
  const xs = values.flatMap((a) => values.map(() => a));
  const ys = values.flatMap(() => values);
  return [array(t, [xs.length], xs), array(t, [ys.length], ys)];
}

describe('floor division and modulo, inline', () => {
  const types: readonly Numeric[] = ['i32', 'u32', 'u8', 'i8', 'f64', 'f32'];
  const ops: readonly BinaryOp[] = ['//', '%'];
  for (const t of types) {
    for (const op of ops) {
      test(`${t} ${op} by run-time divisors, zero among them for floats`, () => {
        const values = valuesOf[t].filter((y) => t === 'f64' || t === 'f32' || y !== 0);
        const { program: p, plan } = mapProgram(t, (x, y) => bin(op, x, y));
        expectLikeInterpreter(p, plan, pairs(t, values), `${t} ${op}`);
      });
      test.each(constantsOf[t])(`${t} ${op} by the constant %s`, (k) => {
        const { program: p, plan } = mapProgram(t, (x) => bin(op, x, c(t, k)));
        expectLikeInterpreter(p, plan, pairs(t, valuesOf[t]), `${t} ${op} ${k}`);
      });
    }
  }

  test('an integer division by a non-zero constant has no zero test; by a variable, one', () => {
    const byConstant = mapProgram('i32', (x) => bin('%', x, c('i32', 7)));
    expect(emitJs(byConstant.program, byConstant.plan)).not.toMatch(/=== 0 \?|divzero|mod_i32/);
    const byVariable = mapProgram('i32', (x, y) => bin('//', x, y));
    expect(emitJs(byVariable.program, byVariable.plan)).toMatch(/=== 0 \? rt\.divzero\(/);
  });

  test('a division by a run-time zero raises the interpreter E401 at the operator', () => {
    const { program: p, plan } = mapProgram('i32', (x, y) => bin('%', x, y, sp(30, 31)));
    const inputs = [array('i32', [2], [5, -5]), array('i32', [2], [2, 0])];
    const fused = outcome(() => compileProgram(p, plan, { file }).run(inputs).results);
    expect(fused).toBeInstanceOf(UserError);
    expect((fused as UserError).diagnostics[0]!.message).toBe('map: integer division by zero (-5 % 0)');
    expect(diagnosticPosition((fused as UserError).diagnostics[0]!)).toBe('2:16');
    expectLikeInterpreter(p, plan, inputs, 'zero');
  });

  test('random i32 operands and constants agree with the interpreter', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -2147483648, max: 2147483647 }), { minLength: 1, maxLength: 20 }), fc.integer({ min: -50, max: 50 }), fc.constantFrom<BinaryOp>('//', '%'), (xs, k, op) => {
        const { program: p, plan } = mapProgram('i32', (x, y) => bin('+', bin(op, x, c('i32', k)), bin(op, y, c('i32', k === 0 ? 1 : k))));
        expectLikeInterpreter(p, plan, [array('i32', [xs.length], xs), array('i32', [xs.length], xs.map((x) => x ^ 0x5555))], `${op} ${k}`);
      }),
      { numRuns: 60 },
    );
  });
});

describe('indexing with computed indices, inline', () => {
  /** out[i] = ms[i // 2 + di, i % 2 + dj] over a 3×2 matrix ms. */
  function matrixRead(di: number, dj: number): { program: Program; plan: Plan } {
    const n = nodes();
    const i = v('i', 'i32');
    const read = idx(
      'ms',
      [bin('+', bin('//', i, c('i32', 2)), c('i32', di)), bin('+', bin('%', i, c('i32', 2)), c('i32', dj))],
      'f64',
      sp(20, 28),
    );
    const m = n.map([arr('out', 'f64', 1)], ['is'], lam([['i', 'i32']], read), sp(17, 20));
    return {
      program: program('f', [arrayParam('is', 'i32', 1), arrayParam('ms', 'f64', 2)], [m], ['out']),
      plan: planOf([{ nodes: [0], manifest: ['out'] }], { 0: 0 }),
    };
  }
  const ms = array('f64', [3, 2], [1, 2, 3, 4, 5, 6]);
  const is = array('i32', [6], [0, 1, 2, 3, 4, 5]);

  test.each([
    [0, 0, null],
    [1, 0, 'map: index [3, 0] is out of range for ms of shape [3, 2] (dimension 0)'],
    [0, 1, 'map: index [0, 2] is out of range for ms of shape [3, 2] (dimension 1)'],
    [-1, 0, 'map: index [-1, 0] is out of range for ms of shape [3, 2] (dimension 0)'],
  ] as const)('offsets (%i, %i): %s', (di, dj, message) => {
    const { program: p, plan } = matrixRead(di, dj);
    const text = emitJs(p, plan);
    expect(text).not.toMatch(/rt\.ix/);
    // Both indices computed first (in order), then compared in a chain of branches.
    expect(text).toMatch(/\(t\d+ = [^?]*\(t\d+ = [^?]*t\d+ >>> 0 < n\d+ && t\d+ >>> 0 < n\d+\)+ \?/);
    const fused = outcome(() => compileProgram(p, plan, { file }).run([is, ms]).results);
    if (message === null) expect(fused).not.toBeInstanceOf(UserError);
    else expect((fused as UserError).diagnostics[0]!.message).toBe(message);
    expectLikeInterpreter(p, plan, [is, ms], `${di}, ${dj}`);
  });

  test('every index is evaluated before any is checked: a later division by zero wins', () => {
    const n = nodes();
    const i = v('i', 'i32');
    const read = idx('ms', [c('i32', 99), bin('//', c('i32', 1), i, sp(30, 31))], 'f64', sp(20, 28));
    const m = n.map([arr('out', 'f64', 1)], ['is'], lam([['i', 'i32']], read), sp(17, 20));
    const p = program('f', [arrayParam('is', 'i32', 1), arrayParam('ms', 'f64', 2)], [m], ['out']);
    const plan = planOf([{ nodes: [0], manifest: ['out'] }], { 0: 0 });
    const fused = outcome(() => compileProgram(p, plan, { file }).run([is, ms]).results);
    expect((fused as UserError).code).toBe('E401');
    expectLikeInterpreter(p, plan, [is, ms], 'order');
  });

  test('an index in the branch select does not take is never evaluated', () => {
    const n = nodes();
    const i = v('i', 'i32');
    const guarded = sel(bin('<', i, c('i32', 3)), idx('ms', [i, c('i32', 0)], 'f64', sp(20, 28)), c('f64', -1));
    const m = n.map([arr('out', 'f64', 1)], ['is'], lam([['i', 'i32']], guarded), sp(17, 20));
    const p = program('f', [arrayParam('is', 'i32', 1), arrayParam('ms', 'f64', 2)], [m], ['out']);
    const plan = planOf([{ nodes: [0], manifest: ['out'] }], { 0: 0 });
    expectLikeInterpreter(p, plan, [is, ms], 'select');
  });
});

describe('a gather index that is the same along a row is checked once per row', () => {
  const source = ['def f(xs, n, m):', '  is = generate((n, m), lam(i, j): i)', '  large = gather(is, xs)', '  return fold(+, large)', ''].join('\n');
  const inputs = (n: number, m: number, xs: readonly number[]) => ({
    xs: array('f64', [xs.length], xs),
    n: { kind: 'scalar', elem: 'i32', value: n } as const,
    m: { kind: 'scalar', elem: 'i32', value: m } as const,
  });

  async function both(n: number, m: number, xs: readonly number[]) {
    const compiler = new Compiler(source, { fileName: 'rows.fuse' });
    const fused = await compiler.execute(inputs(n, m, xs), { strategy: 'ilp' }).then((e) => e, (e: unknown) => e);
    const reference = await compiler.execute(inputs(n, m, xs), { interpret: true }).then((e) => e, (e: unknown) => e);
    return { compiler, fused, reference };
  }

  test('the check sits before the row loop, guarded by a non-empty row', async () => {
    const { compiler, fused } = await both(2, 3, [1, 2]);
    const plan = (fused as Execution).plan!;
    const text = emitJs(compiler.lower(signatureOf(compiler.entry, inputs(2, 3, [1, 2]), compiler.file)), plan);
    expect(text).toMatch(/if \(n\d+ > 0 && i\d+ >>> 0 >= n\d+\) \{\n\s+rt\.oob\(\d+, \[i\d+\], \[n\d+\], b\d+, /);
  });

  test.each([
    [3, 4, [1, 2], 'gather: index 2 is out of range for an array of shape [2] (position [2, 0] of the index array)'],
    [3, 0, [1, 2], null],
    [2, 5, [1, 2], null],
  ] as const)('n = %i, m = %i: %s', async (n, m, xs, message) => {
    const { fused, reference } = await both(n, m, xs);
    if (message === null) {
      expectSameValues((fused as Execution).results, (reference as Execution).results);
      return;
    }
    expect(fused).toBeInstanceOf(UserError);
    expect((fused as UserError).diagnostics[0]!.message).toBe(message);
    expect((fused as UserError).diagnostics).toEqual((reference as UserError).diagnostics);
  });
});

describe('a gather from a rank-1 array in memory checks its index by the load itself', () => {
  const source = ['def f(is, xs):', '  ys = map(lam x: x * 2.0, xs)', '  return (ys, gather(is, xs))', ''].join('\n');
  const compiler = new Compiler(source, { fileName: 'load.fuse' });
  const run = (is: readonly number[], interpretIt: boolean) =>
    compiler
      .execute({ is: array('i32', [is.length], is), xs: array('f64', [3], [1, 2, 3]) }, interpretIt ? { interpret: true } : { strategy: 'ilp' })
      .then((e) => e, (e: unknown) => e);

  test('the test is `=== void 0` after the load, no comparison of the index', async () => {
    const exe = (await run([0], false)) as Execution;
    const text = emitJs(exe.program, exe.plan!);
    expect(text).toMatch(/const (x\d+) = a\d+\[(x\d+)\];\n\s+if \(\1 === void 0\) \{\n\s+rt\.oob\(\d+, \[\2\]/);
    expect(text).not.toMatch(/>>> 0 >= /);
  });

  test.each([
    [[2, 0, 1], null],
    [[0, 3, 1], 'gather: index 3 is out of range for an array of shape [3] (position 1 of the index array)'],
    [[0, 1, -1], 'gather: index -1 is out of range for an array of shape [3] (position 2 of the index array)'],
    [[-2147483648], 'gather: index -2147483648 is out of range'],
  ] as const)('indices %j: %s', async (is, message) => {
    const fused = await run(is, false);
    const reference = await run(is, true);
    if (message === null) {
      expectSameValues((fused as Execution).results, (reference as Execution).results);
      return;
    }
    expect((fused as UserError).diagnostics[0]!.message).toContain(message);
    expect((fused as UserError).diagnostics).toEqual((reference as UserError).diagnostics);
  });
});
