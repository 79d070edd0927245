// u8 and i8 end to end (docs/LANGUAGE.md §2–§3): every operation on pairs of values at the types'
// edges, shift counts at the edges of the modulus, casts both ways, folds, scans and scatters
// that wrap, and a 3×3 box blur of a byte image widened to i32 and narrowed back, in the
// interpreter, fused (ILP) and unfused (`none`), on every back end configuration (JavaScript,
// JavaScript with every kernel it can translate in WebAssembly, multicore on 2 and 3 threads,
// and multicore with chunks of 1 and 3, whose folds start from the identities and whose scatter
// goes through Atomics on the Uint8Array). Expected values are computed here, on BigInts.

import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { compile, type Output } from '../../src/index.js';
import { registeredBackends, type ExecutionBackend } from '../../src/runtime/index.js';
import { backends, configOf } from './backends.js';
import { SourceFile, UserError, diagnosticPosition } from '../../src/diagnostics/index.js';
import { checkWebgpuTypes } from '../../src/runtime/webgpu/support.js';
import { lowerText } from '../lower/helpers.js';

const U8_EDGES = [0, 1, 2, 7, 127, 128, 129, 200, 254, 255];
const I8_EDGES = [0, 1, -1, 2, -2, 7, -7, 63, 64, 127, -128, -127, 100, -100];

/** The value of a type whose bit pattern is the exact integer x modulo 2^8. */
const u8 = (x: bigint | number): number => Number(BigInt.asUintN(8, BigInt(x)));
const i8 = (x: bigint | number): number => Number(BigInt.asIntN(8, BigInt(x)));

const floorDiv = (a: number, b: number): number => Math.floor(a / b);
const floorMod = (a: number, b: number): number => a - b * Math.floor(a / b);
const count = (b: number): bigint => BigInt(((b % 32) + 32) % 32);

/** Every (a, b) pair of edge values, as two columns. */
function pairs(values: readonly number[]): [number[], number[]] {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const a of values) for (const b of values) {
    xs.push(a);
    ys.push(b);
  }
  return [xs, ys];
}

const source = `def main(a: u8[n], b: u8[n], c: i8[m], d: i8[m], f: f64[k], img: u8[h, w]):
  su = zipWith(lam x, y: (x + y, x - y, x * y, x // max(y, 1), x % max(y, 1), x & y, x | y, x ^ y, x << y, x >> y, ~x, -x, min(x, y), x < y), a, b)
  si = zipWith(lam x, y: (x + y, x - y, x * y, x // (y | 1), x % (y | 1), x & y, x | y, x ^ y, x << y, x >> y, ~x, -x, abs(x), x ** 3), c, d)
  casts = (map(lam x: u8(x), f), map(lam x: i8(x), f), map(lam x: i8(x), a), map(lam x: u8(x), c), map(lam x: f64(x) / 2.0, c))
  folds = (fold(+, a), fold(*, map(lam x: x | 1, b)), fold(max, c), fold(min, c), fold(^, d), fold(+, c))
  scans = (scanl(+, a), scanl(-, c))
  bins = scatter(+, generate(4, lam i: u8(0)), zip(map(lam x: i32(x & 3), a), b))
  return su, si, casts, folds, scans, bins, blur(img)
`;

/** The 3×3 box blur of docs/LANGUAGE.md §2: each pixel widened to i32, summed, divided, narrowed back. */
const blurSource = `def blur(img):
  # a 3x3 box blur of a byte image (u8[h, w]): each sum widened to i32, the mean narrowed back to u8
  h, w = shape(img)
  return generate((h, w), lam i, j: u8(box(img, i, j, h, w) // 9))

def box(img, i, j, h, w):
  s = 0
  for di in range(3):
    for dj in range(3):
      s = s + i32(img[min(max(i + di - 1, 0), h - 1), min(max(j + dj - 1, 0), w - 1)])
  return s
`;

const [au, bu] = pairs(U8_EDGES);
const [ci, di] = pairs(I8_EDGES);
const fs = [0, -0, 0.5, -0.5, 1.9, -1.9, 127.5, 128, 255, 256, 300, -129, -1e10, 4294967297, NaN, Infinity, -Infinity];
const [h, w] = [5, 7];
const img = Array.from({ length: h * w }, (_, k) => (k * 97 + 13) % 256);

const inputs = {
  a: Uint8Array.from(au),
  b: Uint8Array.from(bu),
  c: Int8Array.from(ci),
  d: Int8Array.from(di),
  f: Float64Array.from(fs),
  img: { data: Uint8Array.from(img), shape: [h, w] },
};

const cast = (to: (x: number) => number, x: number): number => (Number.isFinite(x) ? to(Math.trunc(x)) : 0);

function blurred(): number[] {
  const at = (i: number, j: number): number => img[Math.min(Math.max(i, 0), h - 1) * w + Math.min(Math.max(j, 0), w - 1)]!;
  const out: number[] = [];
  for (let i = 0; i < h; i++) {
    for (let j = 0; j < w; j++) {
      let s = 0;
      for (let y = -1; y <= 1; y++) for (let x = -1; x <= 1; x++) s += at(i + y, j + x);
      out.push(Math.floor(s / 9));
    }
  }
  return out;
}

function scan(xs: readonly number[], f: (p: number, q: number) => number): number[] {
  const out: number[] = [];
  xs.forEach((x, k) => out.push(k === 0 ? x : f(out[k - 1]!, x)));
  return out;
}

const want = {
  su: [
    au.map((x, k) => u8(x + bu[k]!)),
    au.map((x, k) => u8(x - bu[k]!)),
    au.map((x, k) => u8(x * bu[k]!)),
    au.map((x, k) => floorDiv(x, Math.max(bu[k]!, 1))),
    au.map((x, k) => floorMod(x, Math.max(bu[k]!, 1))),
    au.map((x, k) => x & bu[k]!),
    au.map((x, k) => x | bu[k]!),
    au.map((x, k) => x ^ bu[k]!),
    au.map((x, k) => u8(BigInt(x) << count(bu[k]!))),
    au.map((x, k) => u8(BigInt(x) >> count(bu[k]!))),
    au.map((x) => 255 - x),
    au.map((x) => u8(-x)),
    au.map((x, k) => Math.min(x, bu[k]!)),
    au.map((x, k) => (x < bu[k]! ? 1 : 0)),
  ],
  si: [
    ci.map((x, k) => i8(x + di[k]!)),
    ci.map((x, k) => i8(x - di[k]!)),
    ci.map((x, k) => i8(x * di[k]!)),
    ci.map((x, k) => i8(floorDiv(x, i8(di[k]! | 1)))),
    ci.map((x, k) => i8(floorMod(x, i8(di[k]! | 1)))),
    ci.map((x, k) => i8(x & di[k]!)),
    ci.map((x, k) => i8(x | di[k]!)),
    ci.map((x, k) => i8(x ^ di[k]!)),
    ci.map((x, k) => i8(BigInt(x) << count(di[k]!))),
    ci.map((x, k) => i8(BigInt(x) >> count(di[k]!))),
    ci.map((x) => -x - 1),
    ci.map((x) => i8(-x)),
    ci.map((x) => i8(Math.abs(x))),
    ci.map((x) => i8(BigInt(x) ** 3n)),
  ],
  casts: [fs.map((x) => cast(u8, x)), fs.map((x) => cast(i8, x)), au.map(i8), ci.map(u8), ci.map((x) => x / 2)],
  folds: [
    u8(au.reduce((s, x) => s + x, 0)),
    bu.reduce((s, x) => u8(s * (x | 1)), 1),
    Math.max(...ci),
    Math.min(...ci),
    di.reduce((s, x) => i8(s ^ x), 0),
    i8(ci.reduce((s, x) => s + x, 0)),
  ],
  scans: [scan(au, (p, q) => u8(p + q)), scan(ci, (p, q) => i8(p - q))],
  bins: au.reduce((out, x, k) => {
    out[x & 3] = u8(out[x & 3]! + bu[k]!);
    return out;
  }, [0, 0, 0, 0]),
  blur: blurred(),
};

/** Outputs as plain numbers: arrays as lists, tuples as lists of those. */
function plain(o: Output | readonly Output[]): unknown {
  if (typeof o === 'number') return o;
  if (Array.isArray(o)) return o.map(plain);
  return Array.from((o as { data: ArrayLike<number> }).data);
}

const multicore = (registeredBackends as readonly ExecutionBackend[]).find((b) => b.name === 'multicore')!;
const smallChunks = [configOf(multicore, { threads: 2, parallelThreshold: 0, chunkLength: 3 }), configOf(multicore, { threads: 3, parallelThreshold: 0, chunkLength: 1 })];

describe.each([...backends, ...smallChunks])('u8 and i8 on the $name back end (chunk length $options.chunkLength)', (config) => {
  test.each([['interpreter', { interpret: true }], ['fused (ilp)', { strategy: 'ilp' }], ['unfused (none)', { strategy: 'none' }]] as const)(
    '%s equals the values computed from the bit patterns',
    async (_, runOptions) => {
      const program = compile(source + '\n' + blurSource, config.api);
      const out = await program.run(inputs, runOptions);
      const [su, si, casts, folds, scans, bins, blur] = Object.values(out).map((o) => plain(o as Output));
      expect(su).toEqual(want.su);
      expect(si).toEqual(want.si);
      expect(casts).toEqual(want.casts);
      expect(folds).toEqual(want.folds);
      expect(scans).toEqual(want.scans);
      expect(bins).toEqual(want.bins);
      expect(blur).toEqual(want.blur);
      // Results keep their types: u8 as Uint8Array, i8 as Int8Array.
      const first = (o: unknown): unknown => (Array.isArray(o) ? o[0] : o);
      expect((first(out['su']) as { data: unknown }).data).toBeInstanceOf(Uint8Array);
      expect((first(out['si']) as { data: unknown }).data).toBeInstanceOf(Int8Array);
      await program.dispose();
    },
  );
});

test('the box blur is the example of docs/LANGUAGE.md', () => {
  expect(readFileSync(new URL('../../docs/LANGUAGE.md', import.meta.url), 'utf8')).toContain(blurSource);
});

describe('inputs', () => {
  test('a Uint8ClampedArray (a canvas ImageData) is a u8 input, read without a copy', async () => {
    const program = compile('def main(px: u8[n]):\n  return map(lam p: 255 - p, px)\n');
    const clamped = new Uint8ClampedArray([0, 10, 255]);
    const out = (await program.run({ px: clamped })).result as { data: Uint8Array };
    expect(Array.from(out.data)).toEqual([255, 245, 0]);
  });

  test('a Uint8Array is u8 where the parameter is u8, bool where it is bool', async () => {
    const bytes = compile('def main(px: u8[n]):\n  return fold(+, map(lam p: i32(p), px))\n');
    expect((await bytes.run({ px: new Uint8Array([200, 100]) })).result).toBe(300);
    const flags = compile('def main(bs: bool[n]):\n  return fold(+, map(lam b: i32(b), bs))\n');
    expect((await flags.run({ bs: new Uint8Array([1, 0, 1]) })).result).toBe(2);
  });

  test('an Int8Array for a u8 parameter, or a Uint8Array for an i8 one, is E307 naming both', async () => {
    const program = compile('def main(px: u8[n]):\n  return map(lam p: p + 1, px)\n');
    await expect(program.run({ px: new Int8Array([1]) })).rejects.toThrow("parameter 'px' is declared u8[_] but the input is i8[_]");
    const signed = compile('def main(px: i8[n]):\n  return map(lam p: p + 1, px)\n');
    await expect(signed.run({ px: new Uint8Array([1]) })).rejects.toThrow("parameter 'px' is declared i8[_] but the input is u8[_]");
    await expect(signed.run({ px: new Uint8ClampedArray([1]) })).rejects.toMatchObject({ code: 'E307' });
  });

  test('plain lists are converted to the parameter type and must fit it', async () => {
    const program = compile('def main(px: u8[n]):\n  return map(lam p: p + 1, px)\n');
    expect(Array.from(((await program.run({ px: [0, 255] })).result as { data: Uint8Array }).data)).toEqual([1, 0]);
    await expect(program.run({ px: [256] })).rejects.toThrow('256 is not a value of type u8');
    await expect(program.run({ px: [-1] })).rejects.toMatchObject({ code: 'E514' });
  });
});

describe('the webgpu back end refuses bytes before compiling (WGSL has no 8-bit type)', () => {
  const refusal = (text: string): { message: string; at: string } => {
    const file = new SourceFile('bytes.fuse', text);
    try {
      checkWebgpuTypes(lowerText(text, {}, 'bytes.fuse'), file);
    } catch (e) {
      if (e instanceof UserError) return { message: e.diagnostics[0]!.message, at: diagnosticPosition(e.diagnostics[0]!) };
      throw e;
    }
    throw new Error('expected E680');
  };

  test.each([
    ['def main(px: u8[n]):\n  return map(lam p: i32(p), px)\n', "entry parameter 'px' is u8", '1:10'],
    ['def main(xs: i32[n]):\n  return map(lam x: i32(i8(x)), xs)\n', 'a value computed by this map is i8', '2:10'],
    ['def main(xs: f32[n]):\n  ys = map(lam x: u8(x), xs)\n  return fold(+, map(lam y: i32(y), ys))\n', "'ys' is u8", '2:8'],
  ])('%s', (text, fragment, at) => {
    const r = refusal(text);
    expect(r.message).toContain(fragment);
    expect(r.message).toContain('WGSL has no 8-bit integers');
    expect(r.at).toBe(at);
  });

  test('an i32 program passes the check', () => {
    expect(() => checkWebgpuTypes(lowerText('def main(xs: i32[n]):\n  return map(lam x: x + 1, xs)\n'), undefined)).not.toThrow();
  });
});
