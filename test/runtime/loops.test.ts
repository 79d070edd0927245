// What keeps the generated loops fast on grid programs such as NAS MG and LULESH, each checked
// against the interpreter bit for bit (or diagnostic for diagnostic):
// - a cluster over a rank ≥ 2 grid whose body uses the per-dimension indices runs as a loop nest
//   (no division or remainder of the flat index per element), in the flat loop's order, also
//   backwards for a scanr;
// - float `**` is inline `Math.pow`, integer `%` and `//` by a power of two a mask and a shift;
// - every run's helper object `rt` has the same hidden class, so V8 keeps the clusters'
//   optimised code from one run to the next.

import { describe, expect, test } from 'vitest';
import { UserError } from '../../src/diagnostics/index.js';
import { Compiler } from '../../src/driver/index.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { emitJs } from '../../src/runtime/index.js';
import { makeRuntime, Runtime, runRecord } from '../../src/runtime/helpers.js';
import { array } from '../ir/builders.js';
import { expectSameValues } from './equal.js';

type Inputs = Readonly<Record<string, InterfaceValue>>;

async function fusedAndInterpreted(source: string, inputs: Inputs): Promise<{ fused: readonly InterfaceValue[] | UserError; reference: readonly InterfaceValue[] | UserError; js: string }> {
  const compiler = new Compiler(source, { fileName: 'loops.fuse' });
  const attempt = async (interpret: boolean): Promise<readonly InterfaceValue[] | UserError> => {
    try {
      return (await compiler.execute(inputs, { interpret })).results;
    } catch (err) {
      if (err instanceof UserError) return err;
      throw err;
    }
  };
  const fused = await attempt(false);
  const reference = await attempt(true);
  const execution = await compiler.execute(inputs).catch(() => null);
  const js = execution?.plan === undefined ? '' : emitJs(execution.program, execution.plan);
  return { fused, reference, js };
}

async function expectLikeInterpreter(source: string, inputs: Inputs): Promise<string> {
  const { fused, reference, js } = await fusedAndInterpreted(source, inputs);
  if (fused instanceof UserError || reference instanceof UserError) {
    expect(fused instanceof UserError ? fused.diagnostics : fused).toEqual(reference instanceof UserError ? reference.diagnostics : reference);
  } else {
    expectSameValues(fused, reference);
  }
  return js;
}

function grid(n0: number, n1: number, n2: number): InterfaceValue {
  return array('f64', [n0, n1, n2], Array.from({ length: n0 * n1 * n2 }, (_, k) => Math.sin(k) * 10));
}

// A 7-point periodic stencil fused with a map, as MG's resid: the generate uses its indices.
const stencil = `
def f(u: f64[a, b, c], w: f64[a, b, c]):
  n0, n1, n2 = shape(u)
  s = generate((n0, n1, n2), lam i, j, k: 2.0 * u[i, j, k] - u[(i + n0 - 1) % n0, j, k] - u[(i + 1) % n0, j, k] - u[i, (j + 1) % n1, k] - u[i, j, (k + n2 - 1) % n2])
  return zipWith(lam x, y: x - y, w, s)
`;

describe('loop nests over grids', () => {
  test.each([
    [4, 8, 16],
    [3, 5, 7],
    [1, 1, 1],
    [2, 0, 3],
  ])('a periodic stencil over %i × %i × %i equals the interpreter, in a loop nest without / or %% of the flat index', async (n0, n1, n2) => {
    const js = await expectLikeInterpreter(stencil, { u: grid(n0, n1, n2), w: grid(n0, n1, n2) });
    const cluster = js.slice(js.indexOf('function c'), js.indexOf('function main'));
    // Three nested loops, the innermost split by the interior pass (src/codegen/loops/interior.ts)
    // into its general, interior and general parts: five `for`s.
    expect(cluster.match(/for \(let /g)?.length).toBe(5);
    // The only remainders left are the program's own `% n` (by run-time extents).
    expect(cluster).not.toMatch(/\(i[0-9]+ - k[0-9]+\) \//);
  });

  test('an index out of range in element code raises the interpreter E402 at the first bad point', async () => {
    const source = `
def f(u: f64[a, b, c]):
  n0, n1, n2 = shape(u)
  return generate((n0, n1, n2), lam i, j, k: u[i, j, k + (1 if i == 1 and j == 2 else 0)])
`;
    const { fused, reference } = await fusedAndInterpreted(source, { u: grid(3, 4, 5) });
    expect(reference).toBeInstanceOf(UserError);
    expect(fused instanceof UserError ? fused.diagnostics : fused).toEqual((reference as UserError).diagnostics);
  });

  test('a scanr over the rows of a rank-3 generate runs the nest backwards, equal to the interpreter', async () => {
    const source = `
def f(u: f64[a, b, c]):
  n0, n1, n2 = shape(u)
  g = generate((n0, n1, n2), lam i, j, k: u[i, j, k] * f64(i + 2 * j + 3 * k))
  return scanr(lam x, y: x - 0.5 * y, g)
`;
    await expectLikeInterpreter(source, { u: grid(3, 4, 5) });
  });

  test('a body that does not use the indices keeps one flat loop', async () => {
    const js = await expectLikeInterpreter(`def f(u: f64[a, b, c]):\n  return map(lam x: x * 2.0, u)\n`, { u: grid(2, 3, 4) });
    const cluster = js.slice(js.indexOf('function c'), js.indexOf('function main'));
    expect(cluster.match(/for \(let /g)?.length).toBe(1);
  });
});

describe('inline arithmetic', () => {
  const specials = [0, -0, 1, -1, 0.5, -8, 2, 1e308, -1e-308, Infinity, -Infinity, NaN, 1 / 3];

  test.each(['f64', 'f32'])('%s ** is Math.pow inline, bit for bit the interpreter on special values', async (t) => {
    const xs = specials.flatMap((a) => specials.map(() => a));
    const ys = specials.flatMap(() => specials);
    const cast = t === 'f32' ? Math.fround : (x: number) => x;
    const js = await expectLikeInterpreter(`def f(xs: ${t}[n], ys: ${t}[n]):\n  return zipWith(lam x, y: x ** y, xs, ys)\n`, {
      xs: array(t as 'f64', [xs.length], xs.map(cast)),
      ys: array(t as 'f64', [ys.length], ys.map(cast)),
    });
    expect(js).toMatch(/Math\.pow\(/);
    expect(js).not.toMatch(/rt\.pow_/);
  });

  test('i32 % and // by a power of two are a mask and a shift, equal to the interpreter', async () => {
    const values = [0, 1, -1, 7, -7, 8, -8, 9, -9, 127, -128, 2147483647, -2147483648];
    const js = await expectLikeInterpreter(`def f(xs: i32[n]):\n  return map(lam x: (x % 8, x // 8, x % 1, x // 1), xs)\n`, {
      xs: array('i32', [values.length], values),
    });
    expect(js).toMatch(/& 7/);
    expect(js).toMatch(/>> 3/);
    expect(js).not.toMatch(/% 8/);
  });

  test('u32 % and // by 2^31 are a mask and an unsigned shift, equal to the interpreter', async () => {
    const values = [0, 1, 2147483647, 2147483648, 4294967295];
    const js = await expectLikeInterpreter(`def f(xs: u32[n]):\n  return map(lam x: (x % u32(2147483648), x // u32(2147483648)), xs)\n`, {
      xs: array('u32', [values.length], values),
    });
    expect(js).toMatch(/>>> 31/);
  });
});

describe('the runtime helper object', () => {
  const tables = { sites: [], slots: [], allocations: [], clusterCount: 2 };
  const record = () => runRecord(tables);

  test('every run gets an object of one class with the same fields in the same order, and no own functions', () => {
    const a = makeRuntime(tables, undefined, 10, record());
    const b = makeRuntime(tables, undefined, Infinity, record());
    expect(Object.getPrototypeOf(a)).toBe(Runtime.prototype);
    expect(Object.getPrototypeOf(b)).toBe(Runtime.prototype);
    expect(Object.keys(a)).toEqual(Object.keys(b));
    expect(Object.values(a).some((v) => typeof v === 'function')).toBe(false);
  });

  test('the helpers generated code calls are on its prototype', () => {
    for (const name of ['index', 'divzero', 'oob', 'shapes', 'size', 'loop', 'alloc', 'copy', 'take', 'pair', 'result', 'emit', 'give', 'scratch', 'count', 'enter', 'leave', 'pow_i32', 'mod_bool', 'floordiv_bool']) {
      expect(typeof (Runtime.prototype as unknown as Record<string, unknown>)[name], name).toBe('function');
    }
  });
});
