// Contractions (matrix products in combinator form) and stencils, the code the loop passes
// rewrite (src/codegen/loops: interior, rotate, block): every back end configuration must give
// the interpreter's results bit for bit — the blocked loops keep each output's sum in k order.
// Sizes are odd and tiny (1×1, 3×5·5×7, extents 0, and not multiples of the block of four),
// values include NaN, ±inf and -0, and the element types f64, f32 and i32 (where `+` and `*`
// wrap).

import { describe, expect, it } from 'vitest';
import { compile, type Input, type Output } from '../../src/index.js';
import { backends } from './backends.js';

type Elem = 'f64' | 'f32' | 'i32';

const matmul = (t: Elem): string => `def main(a: ${t}[m, k], b: ${t}[k, n]):
  m2, k2 = shape(a)
  k3, n2 = shape(b)
  xs = gather(generate((m2, n2, k2), lam i, j, p: (i, p)), a)
  ys = gather(generate((m2, n2, k2), lam i, j, p: (p, j)), b)
  return fold(+, zipWith(*, xs, ys))
`;

// Batched like FlashAttention's scores: [t, r, d] times [c, d]ᵀ, then a scale and a row maximum.
const batched = `def main(q: f64[t, r, d], kb: f64[c, d]):
  t2, r2, d2 = shape(q)
  c2, d3 = shape(kb)
  qs = gather(generate((t2, r2, c2, d2), lam i, x, y, z: (i, x, z)), q)
  ks = gather(generate((t2, r2, c2, d2), lam i, x, y, z: (y, z)), kb)
  s = map(lam v: v * 0.125, fold(+, zipWith(*, qs, ks)))
  return s, maximum(s)
`;

// A three-point stencil along the rows with a clamped neighbour on each side.
const stencil = `def main(v: f64[n, m]):
  n2, m2 = shape(v)
  left = gather(generate((n2, m2), lam i, j: (i, max(j - 1, 0))), v)
  right = gather(generate((n2, m2), lam i, j: (i, min(j + 1, m2 - 1))), v)
  return map(lam a, b, c: a * 0.25 + b * 0.5 + c * 0.25, left, v, right)
`;

const specials = [NaN, Infinity, -Infinity, -0, 0.1, 1e300, -3.5];

function values(n: number, seed: number, elem: Elem, special: boolean): number[] {
  return Array.from({ length: n }, (_, i) => {
    if (elem === 'i32') return ((i + seed) * 0x2545f491) | 0;
    if (special && (i + seed) % 5 === 0) return specials[(i + seed) % specials.length]!;
    return Math.sin(i * 1.7 + seed) * 10;
  });
}

function input(elem: Elem, shape: number[], seed: number, special: boolean): Input {
  const n = shape.reduce((a, b) => a * b, 1);
  const v = values(n, seed, elem, special);
  const data = elem === 'f64' ? Float64Array.from(v) : elem === 'f32' ? Float32Array.from(v) : Int32Array.from(v);
  return { data, shape };
}

/**
 * The bytes and shape of each result (so -0 and f32 rounding count), every NaN written as the
 * canonical one: a NaN's sign and payload are not part of its value (docs/EXECUTION.md: commuted
 * operands and WebAssembly's arithmetic may leave a different one).
 */
function bytesOf(results: Record<string, Output | undefined>): unknown {
  return Object.entries(results).map(([k, o]) => {
    const out = o as { data: ArrayBufferView; shape: readonly number[] } | number;
    if (typeof out === 'number') return [k, out];
    const data = out.data instanceof Float64Array || out.data instanceof Float32Array ? out.data.map((x) => (Number.isNaN(x) ? NaN : x)) : out.data;
    return [k, out.shape, [...new Uint8Array(data.buffer, data.byteOffset, data.byteLength)]];
  });
}

const productSizes: readonly [number, number, number][] = [[1, 1, 1], [3, 5, 7], [0, 5, 7], [3, 0, 7], [3, 5, 0], [2, 9, 6], [5, 64, 9], [4, 3, 8]];

describe.each(backends)('$name back end', (config) => {
  describe.each(['f64', 'f32', 'i32'] as const)('matrix product, %s', (elem) => {
    const program = compile(matmul(elem), { ...config.api });
    it.each(productSizes)('%i×%i · %i×…', async (m, k, n) => {
      for (const special of [false, true]) {
        const inputs = { a: input(elem, [m, k], 1, special), b: input(elem, [k, n], 4, special) };
        const fused = await program.run(inputs);
        const reference = await program.run(inputs, { interpret: true });
        expect(bytesOf(fused as never)).toEqual(bytesOf(reference as never));
      }
    });
  });

  describe('batched scores with a scale and a row maximum', () => {
    const program = compile(batched, { ...config.api });
    it.each([[1, 1, 1, 1], [2, 3, 5, 4], [3, 2, 9, 7], [1, 4, 0, 3], [2, 2, 6, 0]])('t=%i r=%i c=%i d=%i', async (t, r, c, d) => {
      for (const special of [false, true]) {
        const inputs = { q: input('f64', [t, r, d], 2, special), kb: input('f64', [c, d], 3, special) };
        const fused = await program.run(inputs);
        const reference = await program.run(inputs, { interpret: true });
        expect(bytesOf(fused as never)).toEqual(bytesOf(reference as never));
      }
    });
  });

  describe('a clamped three-point stencil', () => {
    const program = compile(stencil, { ...config.api });
    it.each([[1, 1], [2, 3], [3, 2], [4, 9], [0, 5], [5, 0]])('%i×%i', async (n, m) => {
      for (const special of [false, true]) {
        const inputs = { v: input('f64', [n, m], 5, special) };
        const fused = await program.run(inputs);
        const reference = await program.run(inputs, { interpret: true });
        expect(bytesOf(fused as never)).toEqual(bytesOf(reference as never));
      }
    });
  });
});
