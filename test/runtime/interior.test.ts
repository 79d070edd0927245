// The interior/boundary split (src/codegen/loops/interior.ts) against the interpreter, on every
// back-end configuration: stencils whose neighbours wrap (periodic), clamp (Rodinia hotspot's
// `min(max(i − 1, 0), n − 1)`), gather at stride 2 (MG's restriction) or at half the index
// (prolongation), with run-time scalar offsets (an i32 that wraps), faults that happen only at an
// edge or only in the middle, special float values, and sizes from 0 (no interior) up. Values
// must be equal bit for bit and errors must be the same diagnostics as the interpreter's.

import { describe, expect, test } from 'vitest';
import { UserError } from '../../src/diagnostics/index.js';
import { Compiler } from '../../src/driver/index.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { emitJs } from '../../src/runtime/index.js';
import { array, scalar } from '../ir/builders.js';
import { backends, type BackendConfig } from './backends.js';
import { expectSameValues } from './equal.js';

type Inputs = Readonly<Record<string, InterfaceValue>>;

const specials = [Number.NaN, -0, Infinity, -Infinity, 0.5, -1e300];

function values(n: number, seed: number): number[] {
  return Array.from({ length: n }, (_, k) => (k % 7 === 3 ? specials[(k + seed) % specials.length]! : Math.sin(k * 1.3 + seed) * 10));
}

const vec = (n: number, seed = 0): InterfaceValue => array('f64', [n], values(n, seed));
const grid = (n0: number, n1: number, seed = 0): InterfaceValue => array('f64', [n0, n1], values(n0 * n1, seed));
const i32 = (v: number): InterfaceValue => scalar('i32', v);

async function outcome(source: string, inputs: Inputs, config: BackendConfig, interpret: boolean): Promise<readonly InterfaceValue[] | UserError> {
  const compiler = new Compiler(source, { fileName: 'interior.fuse', ...config.api });
  try {
    return (await compiler.execute(inputs, { interpret })).results;
  } catch (err) {
    if (err instanceof UserError) return err;
    throw err;
  } finally {
    await compiler.dispose();
  }
}

/** `faults`: whether the program may raise an error on these inputs (else the test says it does not). */
async function expectLikeInterpreter(source: string, inputs: Inputs, config: BackendConfig, faults = false): Promise<void> {
  const fused = await outcome(source, inputs, config, false);
  const reference = await outcome(source, inputs, config, true);
  if (!faults) expect(reference).not.toBeInstanceOf(UserError);
  if (fused instanceof UserError || reference instanceof UserError) {
    expect(fused instanceof UserError ? fused.diagnostics : fused).toEqual(reference instanceof UserError ? reference.diagnostics : reference);
  } else {
    expectSameValues(fused, reference);
  }
}

/** The js the js back end runs for `source` on `inputs`. */
async function generated(source: string, inputs: Inputs): Promise<string> {
  const compiler = new Compiler(source, { fileName: 'interior.fuse' });
  const execution = await compiler.execute(inputs);
  await compiler.dispose();
  return emitJs(execution.program, execution.plan!);
}

const periodic1 = `
def main(a):
  n = size(a)
  l = gather(generate(n, lam i: i - 1 if i > 0 else n - 1), a)
  r = gather(generate(n, lam i: i + 1 if i < n - 1 else 0), a)
  return zipWith(lam x, y: x + 2.0 * y, l, r)
`;

const periodic2 = `
def main(u: f64[p, q]):
  n0, n1 = shape(u)
  return generate((n0, n1), lam i, j: u[i - 1 if i > 0 else n0 - 1, j] + u[i + 1 if i < n0 - 1 else 0, j] - u[i, j - 1 if j > 0 else n1 - 1] * u[i, j + 1 if j < n1 - 1 else 0] + 0.5 * u[i, j])
`;

const hotspot = `
def main(u: f64[p, q]):
  n0, n1 = shape(u)
  return generate((n0, n1), lam i, j: u[min(max(i - 1, 0), n0 - 1), j] + u[min(max(i + 1, 0), n0 - 1), j] + u[i, min(max(j - 1, 0), n1 - 1)] + u[i, min(max(j + 1, 0), n1 - 1)] - 4.0 * u[i, j])
`;

const restriction = `
def main(a):
  n = size(a)
  return generate(n // 2, lam i: a[2 * i + 1 - 1] + 2.0 * a[2 * i + 1] + a[2 * i + 2 if 2 * i + 1 < n - 1 else 0])
`;

const prolongation = `
def main(a, c):
  n = size(a)
  m = size(c)
  return generate(n, lam f: a[f] + c[(f - 1) // 2 if f > 0 else m - 1] * c[f // 2])
`;

// Faults only at an edge: the last point reads past the end, the first before the start.
const edgeFault = `
def main(u: f64[p, q]):
  n0, n1 = shape(u)
  return generate((n0, n1), lam i, j: u[i, j + 1 if j < n1 - 2 else j + 2] + u[i - 1 if i > 0 else -1, j])
`;

// A run-time offset: clamped (never faults), and unclamped (faults where i + s leaves [0, n)).
const scalarOffset = `
def main(a, s: i32):
  n = size(a)
  return generate(n, lam i: a[min(max(i + s, 0), n - 1)] - a[min(max(i - s, 0), n - 1)] * a[i])
`;

const scalarFault = `
def main(a, s: i32):
  n = size(a)
  return generate(n, lam i: a[i] + a[i + s])
`;

// A fold's inner loop reads a clamped row (FlashAttention's gather): the split is at the fold.
const foldClamp = `
def main(v: f64[n, c], k: f64[r, c], s: i32):
  n0, c0 = shape(v)
  r0, c1 = shape(k)
  return fold(+, generate((r0, n0, c0), lam i, j, t: k[i, t] * v[min(s + j, n0 - 1), t]))
`;

const sizes = [0, 1, 2, 3, 4, 5, 17];

describe.each(backends)('$name back end', (config) => {
  test.each(sizes)('periodic 1-D stencil (gathers of wrapped index maps), n = %i', async (n) => {
    await expectLikeInterpreter(periodic1, { a: vec(n) }, config);
  });

  test.each([[0, 3], [1, 1], [2, 2], [3, 5], [4, 1], [5, 7], [17, 9]])('periodic 2-D 5-point stencil, %i × %i', async (n0, n1) => {
    await expectLikeInterpreter(periodic2, { u: grid(n0, n1) }, config);
  });

  test.each([[1, 1], [2, 3], [3, 3], [5, 4], [6, 17]])('clamped (hotspot) 2-D stencil, %i × %i', async (n0, n1) => {
    await expectLikeInterpreter(hotspot, { u: grid(n0, n1, 3) }, config);
  });

  test.each(sizes)('stride-2 wrapped restriction, n = %i', async (n) => {
    await expectLikeInterpreter(restriction, { a: vec(n, 1) }, config);
  });

  test.each([[0, 0], [1, 1], [4, 2], [5, 2], [5, 3], [8, 4], [17, 9]])('prolongation (f − 1) // 2, n = %i, m = %i (odd n faults at the last point)', async (n, m) => {
    await expectLikeInterpreter(prolongation, { a: vec(n, 2), c: vec(m, 5) }, config, true);
  });

  test.each([[1, 1], [1, 3], [2, 1], [3, 4], [4, 3], [5, 6]])('a fault only at an edge is the interpreter\'s, %i × %i', async (n0, n1) => {
    await expectLikeInterpreter(edgeFault, { u: grid(n0, n1) }, config, true);
  });

  test.each([
    [5, 0], [5, 1], [5, -2], [17, 3], [17, -16], [17, 40], [3, 2147483647], [4, -2147483648], [0, 1],
  ])('run-time scalar offsets, n = %i, s = %i', async (n, s) => {
    await expectLikeInterpreter(scalarOffset, { a: vec(n, 4), s: i32(s) }, config);
    await expectLikeInterpreter(scalarFault, { a: vec(n, 4), s: i32(s) }, config, true);
  });

  test.each([[1, 1, 1, 0], [3, 2, 2, 1], [7, 3, 2, -1], [20, 4, 5, 3], [5, 0, 3, 0], [6, 3, 4, 2147483647]])(
    'a fold over a row clamped by a run-time offset (FlashAttention), v %i × c, k %i × %i, s = %i', async (n, r, c, s) => {
      // A negative offset reads row −1, and s + j wraps to a negative i32 when s is near 2^31:
      // the interpreter's fault, at its first point.
      await expectLikeInterpreter(foldClamp, { v: grid(n, c, 6), k: grid(r, c, 7), s: i32(s) }, config, s < 0 || s > 2 ** 30);
    });
});

describe('the generated code', () => {
  test('each stencil has an interior loop without bounds checks and a general loop with them', async () => {
    const cases: [string, Inputs][] = [
      [periodic1, { a: vec(8) }],
      [periodic2, { u: grid(4, 4) }],
      [hotspot, { u: grid(4, 4) }],
      [restriction, { a: vec(8) }],
      [prolongation, { a: vec(8), c: vec(4) }],
      [scalarOffset, { a: vec(8), s: i32(1) }],
      [foldClamp, { v: grid(8, 3), k: grid(2, 3), s: i32(2) }],
    ];
    for (const [source, inputs] of cases) {
      const js = await generated(source, inputs);
      const cluster = js.slice(js.indexOf('function c'), js.indexOf('function main'));
      // [from, p) general, [p, q) interior, [q, to) general.
      const interior = /for \(let (\w+) = (p\d+); \1 < (q\d+); \1\+\+\) \{\n([^]*?)\n {2,}\}\n/.exec(cluster);
      expect(interior, source).not.toBeNull();
      expect(interior![4], source).not.toMatch(/rt\.(oob|index)/);
      expect(cluster, source).toMatch(/rt\.(oob|index)/);
    }
  });
});
