// Literal typing (LANGUAGE.md §2, "Literal typing"): float literals, `inf` and `pi`, floats
// computed only from them, and arrays of such floats are weak, and take the float type of what
// they meet: an operand, the other branch of a conditional or a run-time `if`, what a `while`
// iteration assigns, a scatter's other operand, a typed seed. A constant that does not fit f32
// is E312; an explicit cast keeps its meaning.

import { describe, expect, test } from 'vitest';
import type { Program } from '../../src/ir/types.js';
import { kinds, lowerError, lowerText } from './helpers.js';
import { plain, runAllModes } from './modes.js';

/** The entry's result types as `check` prints them: `f32[1]`, `(f32, i32)[1]`, `f64`. */
function resultTypes(p: Program): string[] {
  return p.results.map((r) => {
    const elems = r.components.map((c) => c.elem);
    const elem = elems.length === 1 ? elems[0]! : `(${elems.join(', ')})`;
    const c = r.components[0]!;
    return c.kind === 'array' ? `${elem}[${c.rank}]` : elem;
  });
}

const types = (src: string): string[] => resultTypes(lowerText(src));
const onF32 = (body: string): string => `def main(xs: f32[n]):\n  return map(lam x: ${body}, xs)\n`;

describe('element expressions take the typed operand’s float type', () => {
  const cases: [string, string][] = [
    ['x * 2.0 if x > 0.0 else -inf', 'f32[1]'],
    ['-inf if x > 0.0 else x * 2.0', 'f32[1]'],
    ['max(x, inf)', 'f32[1]'],
    ['min(-inf, x)', 'f32[1]'],
    ['abs(x) + pi', 'f32[1]'],
    ['x * sqrt(2.0)', 'f32[1]'],
    ['x + 1 / 3', 'f32[1]'],
    ['x + 0.1 * 3.0', 'f32[1]'],
    ['x * (0.5 if x > 1.0 else 2.0)', 'f32[1]'],
    ['x + floor(0.5 * 3)', 'f32[1]'],
    // Alone, a weak float is f64.
    ['-inf', 'f64[1]'],
    ['pi * 2.0', 'f64[1]'],
    // An explicit cast is typed: f64(…) promotes as any f64 does.
    ['x + f64(0.5)', 'f64[1]'],
    ['f64(x) + 0.5', 'f64[1]'],
    ['f32(0.5) + x', 'f32[1]'],
    // A weak float with a typed integer promotes to f64, not to the integer.
    ['x + f64(i32(x) + 0.5)', 'f64[1]'],
  ];
  test.each(cases)('%s → %s', (body, want) => {
    expect(types(onF32(body))).toEqual([want]);
  });

  test('nested lambdas and inlined defs', () => {
    const src = 'def half(y):\n  return y * 0.5 + 1.0\ndef main(xs: f32[n]):\n  return map(lam x: half(x) * (lam k: k * 2.0)(pi), xs)\n';
    expect(types(src)).toEqual(['f32[1]']);
  });

  test('0.5 * i for an index i is a weak float', () => {
    const src = 'def main(xs: f32[n]):\n  ws = generate(size(xs), lam i: 0.5 * i)\n  return ws, zipWith(lam w, x: w + x, ws, xs)\n';
    expect(types(src)).toEqual(['f64[1]', 'f32[1]']);
  });
});

describe('arrays of weak floats', () => {
  const cases: [string, string, string[]][] = [
    ['generate of a literal, read beside f32', 'acc = generate(size(xs), lam i: 0.0)\n  return zipWith(lam a, x: a + x, acc, xs)', ['f32[1]']],
    ['alone it is f64', 'return generate(size(xs), lam i: 0.0)', ['f64[1]']],
    ['fill', 'return zipWith(+, fill(size(xs), 1.5), xs)', ['f32[1]']],
    ['map of a weak array stays weak', 'ws = map(lam w: w * 2.0 + 1.0, fill(size(xs), 1.5))\n  return zipWith(+, xs, ws)', ['f32[1]']],
    ['gather of a weak array', 'ws = reverse(generate(size(xs), lam i: 0.25 * i))\n  return zipWith(+, ws, xs)', ['f32[1]']],
    ['tuples: the float leaf is weak, the integer one i32', 'acc = generate(size(xs), lam i: (0.0, i))\n  return map(lam p, x: (p[0] + x, p[1]), acc, xs)', ['(f32, i32)[1]']],
    ['zip and unzip keep the weak leaves', 'a, b = unzip(zip(fill(size(xs), 1.0), xs))\n  return zipWith(+, a, b)', ['f32[1]']],
    ['sum on f32', 'return sum(xs) + 0.5, sum(xs)', ['f32', 'f32[0]']],
    ['sum of a weak array is weak', 'return sum(fill(size(xs), 1.0)) + xs[0]', ['f32']],
    ['fold with a typed seed converts the weak input', 'return fold(+, f32(0), fill(size(xs), 1.0))', ['f32[0]']],
    ['scanl of a weak array with a typed seed', 'return scanl(+, f32(0), fill(size(xs), 1.0))', ['f32[1]']],
    ['scatter into a weak destination', 'return scatter(+, fill(size(xs), 0.0), zip(generate(size(xs), lam i: i), xs))', ['f32[1]']],
    ['scatter of weak values into f32', 'return scatter(+, xs, zip(generate(size(xs), lam i: i), fill(size(xs), 1.0)))', ['f32[1]']],
    ['an explicit f64 map is typed', 'ws = map(lam w: f64(w), fill(size(xs), 1.0))\n  return zipWith(+, ws, xs)', ['f64[1]']],
  ];
  test.each(cases)('%s', (_, body, want) => {
    expect(types(`def main(xs: f32[n]):\n  ${body}\n`)).toEqual(want);
  });

  test('an unannotated parameter that meets a weak array is inferred f64, as with a literal', () => {
    expect(types('def main(xs):\n  return zipWith(+, fill(size(xs), 0.0), xs)\n')).toEqual(['f64[1]']);
  });
});

describe('run-time if and while merges', () => {
  const loop = (init: string, step: string, after = 'acc'): string =>
    `def main(xs: f32[n]):\n  acc = ${init}\n  k = 0\n  while k < 3:\n    acc = ${step}\n    k = k + 1\n  return ${after}\n`;
  const cases: [string, string, string[]][] = [
    ['while: a weak array becomes f32', loop('fill(size(xs), 0.0)', 'zipWith(lam a, x: a + x, acc, xs)'), ['f32[1]']],
    ['while: generate of 0.0', loop('generate(size(xs), lam i: 0.0)', 'zipWith(lam a, x: a * 0.5 + x, acc, xs)'), ['f32[1]']],
    ['while: a typed f32 array re-bound to a weak one', loop('xs', 'fill(size(xs), 1.0)'), ['f32[1]']],
    ['while: stays weak when every iteration is', loop('fill(size(xs), 0.0)', 'map(lam a: a + 1.0, acc)', 'acc, zipWith(+, acc, xs)'), ['f64[1]', 'f32[1]']],
    ['while: a typed f64 iteration makes it f64', loop('fill(size(xs), 0.0)', 'map(lam a: f64(a) + 1.0, acc)', 'zipWith(+, acc, xs)'), ['f64[1]']],
    ['while: a weak scalar', 'def main(xs: f32[n]):\n  s = 0.0\n  k = 0\n  while k < size(xs):\n    s = s + xs[k]\n    k = k + 1\n  return s\n', ['f32']],
    ['while: an integer literal scalar', 'def main(xs: f32[n]):\n  s = 0\n  k = 0\n  while k < size(xs):\n    s = s + xs[k]\n    k = k + 1\n  return s\n', ['f32']],
    ['while: a tuple of a weak array and a counter', 'def main(xs: f32[n]):\n  st = (fill(size(xs), 0.0), 0)\n  while st[1] < 3:\n    st = (zipWith(+, st[0], xs), st[1] + 1)\n  return st[0], st[1]\n', ['f32[1]', 'i32']],
    ['while nested in while', 'def main(xs: f32[n]):\n  acc = fill(size(xs), 0.0)\n  j = 0\n  while j < 2:\n    k = 0\n    while k < 2:\n      acc = zipWith(+, acc, xs)\n      k = k + 1\n    j = j + 1\n  return acc\n', ['f32[1]']],
    ['if: the weak branch converts', 'def main(xs: f32[n], c: f32):\n  acc = fill(size(xs), 0.0)\n  if c > 0.0:\n    acc = xs\n  return acc\n', ['f32[1]']],
    ['if: in the else branch', 'def main(xs: f32[n], c: f32):\n  acc = xs\n  if c > 0.0:\n    acc = map(lam x: x + 1.0, xs)\n  else:\n    acc = fill(size(xs), 2.0)\n  return acc\n', ['f32[1]']],
    ['if: both weak stays weak', 'def main(xs: f32[n], c: f32):\n  a = fill(size(xs), 0.0)\n  if c > 0.0:\n    a = fill(size(xs), 1.0)\n  return a, zipWith(+, a, xs)\n', ['f64[1]', 'f32[1]']],
    ['if: a weak scalar', 'def main(xs: f32[n], c: f32):\n  s = 0.5\n  if c > 0.0:\n    s = c\n  return s\n', ['f32']],
    ['if: a weak run-time scalar against f32', 'def main(xs: f32[n], c: f32):\n  s = fill(size(xs), 0.5)[0]\n  if c > 0.0:\n    s = c\n  return s\n', ['f32']],
    ['if: tuples', 'def main(xs: f32[n], c: f32):\n  p = (fill(size(xs), 0.0), 1.0)\n  if c > 0.0:\n    p = (xs, c)\n  return p[0], p[1]\n', ['f32[1]', 'f32']],
  ];
  test.each(cases)('%s', (_, src, want) => {
    expect(types(src)).toEqual(want);
  });

  test('the conversion of an unchanged branch comes before the if, folded into the fill: no f64 array is made', () => {
    const p = lowerText('def main(xs: f32[n], c: f32):\n  acc = fill(size(xs), 0.0)\n  if c > 0.0:\n    acc = xs\n  return acc\n');
    expect(p.body.stmts.map((s) => s.kind)).toEqual(['generate', 'if']);
    const fill = p.body.stmts[0]!;
    expect(fill.kind === 'generate' && fill.outs[0]!.elem).toBe('f32');
    expect(fill.kind === 'generate' && fill.fn.results[0]).toMatchObject({ kind: 'const', type: 'f32', value: 0 });
  });

  test('hist with a 0.0 seed and f32 values fills f32 bins directly', () => {
    const p = lowerText('def main(is: i32[n], vs: f32[n]):\n  return hist(+, 0.1, 4, is, vs)\n');
    const fill = p.body.stmts[0]!;
    expect(fill.kind === 'generate' && fill.fn.results[0]).toMatchObject({ kind: 'const', type: 'f32', value: Math.fround(0.1) });
    expect(p.body.stmts.filter((s) => s.kind === 'map' && s.fn.results[0]!.kind === 'cast')).toHaveLength(0);
  });

  test('a conversion of an array read elsewhere too stays a map', () => {
    // `b` is converted for the f32 scatter and read as f64 by the zipWith: both must see it.
    const p = lowerText('def main(is: i32[n], vs: f32[n]):\n  b = fill(4, 0.5)\n  h = scatterDrop(+, b, zip(is, vs))\n  return h, zipWith(+, b, map(lam i: f64(i), iota(4)))\n');
    expect(p.body.stmts.some((s) => s.kind === 'generate' && s.outs[0]!.elem === 'f64')).toBe(true);
    expect(p.body.stmts.some((s) => s.kind === 'map' && s.fn.results[0]!.kind === 'cast' && s.fn.results[0]!.type === 'f32')).toBe(true);
  });

  test('a weak array meeting an integer array is still E308', () => {
    const e = lowerError('def main(xs: f32[n], is: i32[n], c: f32):\n  acc = fill(size(xs), 0.0)\n  if c > 0.0:\n    acc = is\n  return acc\n');
    expect(e.code).toBe('E308');
  });

  test('a loop that only makes a weak f64 array typed lowers as before (no conversion)', () => {
    const p = lowerText('def main(xs: f64[n]):\n  acc = fill(size(xs), 0.0)\n  k = 0\n  while k < 3:\n    acc = zipWith(+, acc, xs)\n    k = k + 1\n  return acc\n');
    const { generate, map } = kinds(p);
    expect({ generate, map }).toEqual({ generate: 1, map: 1 });
  });
});

describe('constants that do not fit f32', () => {
  const errors: [string, string, string][] = [
    [onF32('x + 1e300'), '2:25', 'the float constant 1e+300 does not fit in f32'],
    [onF32('min(x, 1e39)'), '2:28', 'does not fit in f32'],
    [onF32('x + 1e30 * 1e30'), '2:25', 'the float constant 1.0000000000000001e+60 does not fit in f32'],
    [onF32('x * -1e300'), '2:25', 'does not fit in f32'],
    ['def main(xs: f32[n]):\n  s = 1e300\n  k = 0\n  while k < size(xs):\n    s = s + xs[k]\n    k = k + 1\n  return s\n', '2:7', 'does not fit in f32'],
  ];
  test.each(errors)('%#', (src, at, fragment) => {
    const e = lowerError(src);
    expect({ code: e.code, at: e.at }).toEqual({ code: 'E312', at });
    expect(e.message).toContain(fragment);
  });

  test('inf, the largest f32 and an explicit cast are fine', () => {
    expect(types(onF32('x + inf + 3.4028234663852886e38 + f32(1e300) + 1e-50'))).toEqual(['f32[1]']);
  });
});

describe('values in every mode, against plain JavaScript', () => {
  const f = Math.fround;
  const xs = [1.5, -2.25, 0.1, 3e7, 1e-3, 7];

  async function expectAll(src: string, inputs: Record<string, Float32Array>, want: unknown[]): Promise<void> {
    const all = await runAllModes(src, inputs);
    for (const [mode, r] of Object.entries(all)) expect({ mode, r: Object.values(r).map(plain) }).toEqual({ mode, r: want });
  }

  test('an f32 accumulation loop over a weak initial array', async () => {
    const src = 'def main(xs: f32[n]):\n  acc = fill(size(xs), 0.0)\n  k = 0\n  while k < 4:\n    acc = zipWith(lam a, x: a * 0.1 + x, acc, xs)\n    k = k + 1\n  return acc\n';
    const want = xs.map((x0) => {
      const x = f(x0);
      let a = 0;
      for (let k = 0; k < 4; k++) a = f(f(a * f(0.1)) + x);
      return a;
    });
    await expectAll(src, { xs: Float32Array.from(xs) }, [want]);
  });

  test('an unannotated parameter run with f32 data', async () => {
    const src = 'def main(xs):\n  acc = fill(size(xs), 0.0)\n  k = 0\n  while k < 2:\n    acc = zipWith(lam a, x: a + x * 0.1, acc, xs)\n    k = k + 1\n  return acc\n';
    const want = xs.map((x0) => {
      let a = 0;
      for (let k = 0; k < 2; k++) a = f(a + f(f(x0) * f(0.1)));
      return a;
    });
    await expectAll(src, { xs: Float32Array.from(xs) }, [want]);
  });

  test('a u32 sum from the literal 0', async () => {
    const src = 'def main(us: u32[n]):\n  s = 0\n  k = 0\n  while k < size(us):\n    s = s + us[k]\n    k = k + 1\n  return s\n';
    const all = await runAllModes(src, { us: Uint32Array.from([4294967295, 2, 3]) });
    for (const [mode, r] of Object.entries(all)) expect({ mode, r: Object.values(r).map(plain) }).toEqual({ mode, r: [4] });
  });

  test.each([
    ['u8', 'u8[n]', Uint8Array.from([0, 200, 255]), 199],
    ['i8', 'i8[n]', Int8Array.from([100, 100, -1]), -57],
  ] as const)('a %s sum from the literal 0 wraps in the byte type', async (_t, type, data, want) => {
    const src = `def main(bs: ${type}):\n  s = 0\n  k = 0\n  while k < size(bs):\n    s = s + bs[k]\n    k = k + 1\n  return s\n`;
    const all = await runAllModes(src, { bs: data });
    for (const [mode, r] of Object.entries(all)) expect({ mode, r: Object.values(r).map(plain) }).toEqual({ mode, r: [want] });
  });

  test('a scalar f32 sum from a literal start', async () => {
    const src = 'def main(xs: f32[n]):\n  s = 0.0\n  k = 0\n  while k < size(xs):\n    s = s + xs[k] * 0.1\n    k = k + 1\n  return s\n';
    let s = 0;
    for (const x of xs) s = f(s + f(f(x) * f(0.1)));
    await expectAll(src, { xs: Float32Array.from(xs) }, [s]);
  });

  test('a weak run-time float is computed in f64 and rounded once', async () => {
    const src = 'def main(xs: f32[n]):\n  return zipWith(lam w, x: w + x, generate(size(xs), lam i: 0.1 * i), xs)\n';
    await expectAll(src, { xs: Float32Array.from(xs) }, [xs.map((x, i) => f(f(0.1 * i) + f(x)))]);
  });

  test('an if merging a weak array with an f32 one, and the conditional with -inf', async () => {
    const src = 'def main(xs: f32[n]):\n  acc = fill(size(xs), 0.5)\n  if xs[0] > 0.0:\n    acc = map(lam x: x * 2.0 if x > 0.0 else -inf, xs)\n  return zipWith(+, acc, xs)\n';
    const want = xs.map((x) => f(f(x > 0 ? f(f(x) * 2) : -Infinity) + f(x)));
    await expectAll(src, { xs: Float32Array.from(xs) }, [want]);
    const neg = xs.map((x) => -x);
    await expectAll(src, { xs: Float32Array.from(neg) }, [neg.map((x) => f(0.5 + f(x)))]);
  });
});
