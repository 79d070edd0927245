// Bit operations `& | ^ << >> ~`, `popcount` and `clz` on i32 and u32 (docs/LANGUAGE.md §3), end to end: every pair of
// values at the types' limits with every shift count at the edges of the modulus (0, 31, 32, 33,
// negative, 2^32 − 1), through element-wise maps, a precedence mix, folds and scans with the
// operators and a scatter that combines with `|`, in the interpreter, fused (ILP) and unfused
// (`none`), on every back end configuration (JavaScript, JavaScript with every kernel it can
// translate in WebAssembly, multicore on 2 and 3 threads). The expected values are computed here,
// independently, on BigInt bit patterns, never with JavaScript's own 32-bit operators.

import { describe, expect, test } from 'vitest';
import { compile, type Output } from '../../src/index.js';
import { registeredBackends, type ExecutionBackend } from '../../src/runtime/index.js';
import { backends, configOf } from './backends.js';

const I32_EDGES = [0, 1, -1, 2, -2, 7, -(2 ** 31), 2 ** 31 - 1, 0x55555555, -0x55555556, 123456789];
const I32_COUNTS = [0, 1, 5, 31, 32, 33, -1, -31, -32, 2 ** 31 - 1, -(2 ** 31)];
const U32_EDGES = [0, 1, 2, 7, 2 ** 31, 2 ** 31 - 1, 2 ** 32 - 1, 2 ** 32 - 2, 0xaaaaaaaa, 123456789];
const U32_COUNTS = [0, 1, 5, 31, 32, 33, 63, 2 ** 32 - 1, 2 ** 31, 2 ** 32 - 32];

type Ty = 'i32' | 'u32';

/** The 32-bit pattern of a value of either type, and the value of a pattern in a type. */
const bits = (x: number): bigint => BigInt.asUintN(32, BigInt(x));
const valueOf = (t: Ty, b: bigint): number => Number(t === 'i32' ? BigInt.asIntN(32, b) : BigInt.asUintN(32, b));

/** The documented meaning, from the bit patterns: counts modulo 32, `>>` arithmetic on i32, logical on u32. */
function expected(t: Ty, op: '&' | '|' | '^' | '<<' | '>>', a: number, b: number): number {
  const x = bits(a);
  const y = bits(b);
  const n = y % 32n;
  switch (op) {
    case '&':
      return valueOf(t, x & y);
    case '|':
      return valueOf(t, x | y);
    case '^':
      return valueOf(t, x ^ y);
    case '<<':
      return valueOf(t, x << n);
    case '>>':
      return valueOf(t, t === 'i32' ? BigInt.asIntN(32, x) >> n : x >> n);
  }
}
const bitNot = (t: Ty, a: number): number => valueOf(t, bits(a) ^ 0xffffffffn);
const add = (t: Ty, a: number, b: number): number => valueOf(t, bits(a) + bits(b));
/** Bits set, and leading zeros of the 32, read off the binary numeral. */
const ones = (a: number): number => [...bits(a).toString(2)].filter((c) => c === '1').length;
const leadingZeros = (a: number): number => (bits(a) === 0n ? 32 : 32 - bits(a).toString(2).length);

/** Every (value, count) pair and every (value, value) pair, as two equally long columns. */
function pairs(values: readonly number[], counts: readonly number[]): [number[], number[]] {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const a of values) for (const b of [...counts, ...values]) {
    xs.push(a);
    ys.push(b);
  }
  return [xs, ys];
}

const source = `def main(a: i32[n], b: i32[n], u: u32[m], v: u32[m]):
  si = zipWith(lam x, y: (x & y, x | y, x ^ y, x << y, x >> y, ~x), a, b)
  su = zipWith(lam x, y: (x & y, x | y, x ^ y, x << y, x >> y, ~x), u, v)
  mix = zipWith(lam x, y: (x + y) >> 1 ^ x << 3 & ~y | 1, a, b)
  mixu = zipWith(lam x, y: x & 255 if x >> 31 == u32(1) else ~x & 65535 | y << 16, u, v)
  folds = (fold(|, a), fold(&, map(lam x: x | 16, b)), fold(^, u), fold(&, map(lam x: x | u32(16), v)))
  scans = (scanl(^, a), scanl(|, u))
  bins = scatter(|, generate(8, lam i: u32(0)), zip(map(lam x: i32(x & u32(7)), u), map(lam y: u32(1) << y, v)))
  counts = (map(lam x: popcount(x), a), map(lam x: clz(x), a), map(lam x: popcount(x), u), map(lam x: clz(x) + popcount(~x), u))
  return si, su, mix, mixu, folds, scans, bins, counts
`;

const [ai, bi] = pairs(I32_EDGES, I32_COUNTS);
const [au, bu] = pairs(U32_EDGES, U32_COUNTS);
const inputs = { a: Int32Array.from(ai), b: Int32Array.from(bi), u: Uint32Array.from(au), v: Uint32Array.from(bu) };

function elementwise(t: Ty, xs: readonly number[], ys: readonly number[]): number[][] {
  const ops = ['&', '|', '^', '<<', '>>'] as const;
  return [...ops.map((op) => xs.map((x, k) => expected(t, op, x, ys[k]!))), xs.map((x) => bitNot(t, x))];
}

function scan(t: Ty, op: '|' | '^', xs: readonly number[]): number[] {
  let acc: number | null = null;
  return xs.map((x) => (acc = acc === null ? x : expected(t, op, acc, x)));
}

const want = {
  si: elementwise('i32', ai, bi),
  su: elementwise('u32', au, bu),
  mix: ai.map((x, k) => {
    const y = bi[k]!;
    const shifted = expected('i32', '>>', add('i32', x, y), 1);
    const masked = expected('i32', '&', expected('i32', '<<', x, 3), bitNot('i32', y));
    return expected('i32', '|', expected('i32', '^', shifted, masked), 1);
  }),
  mixu: au.map((x, k) => {
    const y = bu[k]!;
    if (expected('u32', '>>', x, 31) === 1) return expected('u32', '&', x, 0xff);
    return expected('u32', '|', expected('u32', '&', bitNot('u32', x), 65535), expected('u32', '<<', y, 16));
  }),
  folds: [
    ai.reduce((s, x) => expected('i32', '|', s, x), 0),
    bi.reduce((s, x) => expected('i32', '&', s, expected('i32', '|', x, 16)), -1),
    au.reduce((s, x) => expected('u32', '^', s, x), 0),
    bu.reduce((s, x) => expected('u32', '&', s, expected('u32', '|', x, 16)), 2 ** 32 - 1),
  ],
  scans: [scan('i32', '^', ai), scan('u32', '|', au)],
  bins: au.reduce((d, x, k) => {
    const slot = Number(bits(x) & 7n);
    d[slot] = expected('u32', '|', d[slot]!, expected('u32', '<<', 1, bu[k]!));
    return d;
  }, new Array<number>(8).fill(0)),
  counts: [ai.map(ones), ai.map(leadingZeros), au.map(ones), au.map((x) => leadingZeros(x) + ones(bitNot('u32', x)))],
};

/** Outputs as plain numbers: arrays as lists, tuples as lists of those. */
function plain(o: Output | readonly Output[]): unknown {
  if (typeof o === 'number') return o;
  if (Array.isArray(o)) return o.map(plain);
  return Array.from((o as { data: ArrayLike<number> }).data);
}

/** Multicore with chunks of 3 and 1: the folds and scans start chunks from the operators' identities, the scatter goes through Atomics.or. */
const multicore = (registeredBackends as readonly ExecutionBackend[]).find((b) => b.name === 'multicore')!;
const smallChunks = [configOf(multicore, { threads: 2, parallelThreshold: 0, chunkLength: 3 }), configOf(multicore, { threads: 3, parallelThreshold: 0, chunkLength: 1 })];

describe.each([...backends, ...smallChunks])('bit operations on the $name back end (chunk length $options.chunkLength)', (config) => {
  test.each([['interpreter', { interpret: true }], ['fused (ilp)', { strategy: 'ilp' }], ['unfused (none)', { strategy: 'none' }]] as const)(
    '%s equals the values computed from the bit patterns',
    async (_, runOptions) => {
      const program = compile(source, config.api);
      const out = await program.run(inputs, runOptions);
      const [si, su, mix, mixu, folds, scans, bins, counts] = Object.values(out).map((o) => plain(o as Output));
      expect(si).toEqual(want.si);
      expect(su).toEqual(want.su);
      expect(mix).toEqual(want.mix);
      expect(mixu).toEqual(want.mixu);
      expect(folds).toEqual(want.folds);
      expect(scans).toEqual(want.scans);
      expect(bins).toEqual(want.bins);
      expect(counts).toEqual(want.counts);
    },
  );
});
