// Exact scalar rewrites and the `cbrt` builtin, against plain JavaScript arithmetic and the
// interpreter, on every back end configuration, at the values where exactness is decided:
// ±0, ±∞, NaN, the extremes of each type.
//
// - Lowering drops an operation whose constant operand makes it give the other operand or its
//   negation bit for bit (`x * 1`, `x * -1`, `x / ±1`, `x - 0`, `x + -0`; src/lower/scalar.ts
//   exactIdentity) and folds a negated operand into `+`/`-`; it keeps the ones that are not
//   exact (`x + 0` turns −0 into +0, `x * 0`, `0 - x`, `x - -0`).
// - `cbrt` is `Math.cbrt` (f32: rounded to f32), in the interpreter as in generated code.

import { describe, expect, test } from 'vitest';
import { Compiler } from '../../src/driver/index.js';
import type { ScalarType } from '../../src/ir/types.js';
import type { ArrayValue, RuntimeValue } from '../../src/ir/values.js';
import { emitJs } from '../../src/runtime/index.js';
import { array } from '../ir/builders.js';
import { backends } from '../runtime/backends.js';

const f64Values = [Number.NaN, -0, 0, Infinity, -Infinity, 1.5, -2.25, 5e-324, -1.7976931348623157e308, 1e-300];
const f32Values = f64Values.map(Math.fround);
const i32Values = [0, 1, -1, 2147483647, -2147483648, 12345, -7];
const valuesOf = { f64: f64Values, f32: f32Values, i32: i32Values } as const;
type Elem = keyof typeof valuesOf;

/** The program `map(lam x: body, xs)` (or zipWith over `xs`, `ys` when the body reads y). */
function program(elem: Elem, body: string): string {
  return body.includes('y')
    ? `def main(xs: ${elem}[n], ys: ${elem}[n]):\n  return zipWith(lam x, y: ${body}, xs, ys)\n`
    : `def main(xs: ${elem}[n]):\n  return map(lam x: ${body}, xs)\n`;
}

/** Every pair of the type's values, as two columns. */
function pairs(elem: Elem): { readonly xs: number[]; readonly ys: number[] } {
  const vs = valuesOf[elem];
  return { xs: vs.flatMap((x) => vs.map(() => x)), ys: vs.flatMap(() => vs) };
}

/** Runs `body` on every back end and in the interpreter; each result must be `expected`'s, by Object.is. */
async function expectElementwise(elem: Elem, body: string, expected: (x: number, y: number) => number, resultElem: ScalarType = elem): Promise<string> {
  const { xs, ys } = pairs(elem);
  const inputs: Record<string, ArrayValue> = { xs: array(elem, [xs.length], xs) };
  if (body.includes('y')) inputs['ys'] = array(elem, [ys.length], ys);
  const want = xs.map((x, k) => expected(x, ys[k]!));
  let js = '';
  for (const config of backends) {
    const compiler = new Compiler(program(elem, body), { fileName: 'exact.fuse', ...config.api });
    try {
    for (const interpret of [false, true]) {
      const run = await compiler.execute(inputs, { interpret });
      const result = run.results[0]!;
      if (Array.isArray(result)) throw new Error('expected one array');
      const out = result as RuntimeValue;
      if (out.kind !== 'array') throw new Error('expected one array');
      expect(out.elem).toBe(resultElem);
      const got = Array.from(out.data);
      const bad = got.findIndex((v, k) => !Object.is(v, want[k]));
      expect(bad, `${config.name}${interpret ? ' (interpreted)' : ''}: ${body} at x = ${xs[bad]}, y = ${ys[bad]}: ${got[bad]} vs ${want[bad]}`).toBe(-1);
      if (!interpret && config.name === 'js') js = emitJs(run.program, run.plan!);
    }
    } finally {
      await compiler.dispose();
    }
  }
  return js;
}

/**
 * What the map's loop stores, as generated, with its loads named `x` and `y` in order of reading:
 * `x` when the operation was dropped, `-x` when it became a negation.
 */
function stored(js: string): string {
  const loop = js.slice(js.indexOf('for ('), js.indexOf('\n}\n'));
  const definitions = new Map([...loop.matchAll(/const (\w+) = (.*);/g)].map((m) => [m[1]!, m[2]!]));
  const store = /\ba\d+\[i\d+\] = (.*);/.exec(loop);
  if (store === null) throw new Error(`no store in ${loop}`);
  let text = definitions.get(store[1]!) ?? store[1]!;
  if (/^a\d+\[i\d+\]$/.test(text)) return 'x'; // a copy: the map's body is its argument
  const loads = [...definitions].filter(([, v]) => /^a\d+\[i\d+\]$/.test(v)).map(([k]) => k);
  loads.forEach((name, k) => (text = text.replace(new RegExp(`\\b${name}\\b`, 'g'), 'xy'[k]!)));
  return text;
}

const fround = Math.fround;
const neg = (x: number) => -x;

describe('exact identities are dropped at lowering, with the values of the operations they replace', () => {
  test.each<[Elem, string, (x: number, y: number) => number, string]>([
    ['f64', 'x * 1.0', (x) => x * 1, 'x'],
    ['f64', '1.0 * x', (x) => 1 * x, 'x'],
    ['f64', 'x * -1.0', (x) => x * -1, '-x'],
    ['f64', '-1.0 * x', (x) => -1 * x, '-x'],
    ['f64', 'x / 1.0', (x) => x / 1, 'x'],
    ['f64', 'x / -1.0', (x) => x / -1, '-x'],
    ['f64', 'x - 0.0', (x) => x - 0, 'x'],
    ['f64', 'x + -0.0', (x) => x + -0, 'x'],
    ['f64', '-0.0 + x', (x) => -0 + x, 'x'],
    ['f32', 'x * 1', (x) => fround(x * 1), 'x'],
    ['f32', 'x * -1', (x) => fround(x * -1), 'Math.fround(-x)'],
    ['f32', 'x - 0', (x) => fround(x - 0), 'x'],
    ['i32', 'x * 1', (x) => Math.imul(x, 1), 'x'],
    ['i32', 'x * -1', (x) => Math.imul(x, -1), '-x | 0'],
    ['i32', 'x + 0', (x) => (x + 0) | 0, 'x'],
    ['i32', '0 + x', (x) => (0 + x) | 0, 'x'],
    ['i32', 'x - 0', (x) => (x - 0) | 0, 'x'],
  ])('%s %s', async (elem, source, expected, generated) => {
    expect(stored(await expectElementwise(elem, source, expected))).toBe(generated);
  });

  test.each<[Elem, string, (x: number, y: number) => number, RegExp]>([
    ['f64', 'x + 0.0', (x) => x + 0, /^x \+ 0$/],
    ['f64', '0.0 + x', (x) => 0 + x, /^0 \+ x$/],
    ['f64', 'x - -0.0', (x) => x - -0, /^x - \(?-0\)?$/],
    ['f64', '0.0 - x', (x) => 0 - x, /^0 - x$/],
    ['f64', '-0.0 - x', (x) => -0 - x, /^\(?-0\)? - x$/],
    ['f64', 'x * 0.0', (x) => x * 0, /^x \* 0$/],
    ['f64', 'x * -0.0', (x) => x * -0, /^x \* \(?-0\)?$/],
    ['f64', 'x / -0.0', (x) => x / -0, /^x \/ \(?-0\)?$/],
    ['f64', 'x * 2.0', (x) => x * 2, /^x \* 2$/],
  ])('%s %s is not exact as x or -x, and is kept', async (elem, source, expected, generated) => {
    expect(stored(await expectElementwise(elem, source, expected))).toMatch(generated);
  });

  test.each<[Elem, string, (x: number, y: number) => number, string]>([
    ['f64', 'y + -x', (x, y) => y + -x, 'y - x'],
    ['f64', 'y - -x', (x, y) => y - -x, 'y + x'],
    ['f64', 'y + x * -1.0', (x, y) => y + x * -1, 'y - x'],
    ['f64', 'y - x * -1.0', (x, y) => y - x * -1, 'y + x'],
    ['f64', '-x + y', (x, y) => -x + y, 'y - x'],
    ['f64', '-x + y * 2.0', (x, y) => -x + y * 2, '-x + y * 2'],
    ['f64', 'x * -1.0 + y', (x, y) => x * -1 + y, 'y - x'],
    ['i32', '-x + y', (x, y) => (-x + y) | 0, 'y - x | 0'],
    ['f32', 'y + x * -1', (x, y) => fround(y + fround(x * -1)), 'Math.fround(y - x)'],
    ['i32', 'y + -x', (x, y) => (y + (-x | 0)) | 0, 'y - x | 0'],
    ['i32', 'y - -x', (x, y) => (y - (-x | 0)) | 0, 'y + x | 0'],
  ])('%s %s: a negated operand folds into the sum, with the same values', async (elem, source, expected, generated) => {
    expect(stored(await expectElementwise(elem, source, expected))).toBe(generated);
  });
});

describe('cbrt', () => {
  test('f64: Math.cbrt, in generated code and the interpreter (−0, negative numbers, ±∞, NaN, subnormals)', async () => {
    expect(stored(await expectElementwise('f64', 'cbrt(x)', Math.cbrt))).toBe('Math.cbrt(x)');
  });

  test('f32: the f64 cube root rounded to f32', async () => {
    await expectElementwise('f32', 'cbrt(x)', (x) => fround(Math.cbrt(x)));
  });

  test('an integer argument is converted to f64, as for sqrt', async () => {
    await expectElementwise('i32', 'cbrt(x)', (x) => Math.cbrt(x), 'f64');
  });

  test('a constant argument is folded at compile time, negative ones to the real root', async () => {
    const js = await expectElementwise('f64', 'x + cbrt(-8.0) + cbrt(-0.0) * 0.0', (x) => x + -2 + -0 * 0);
    expect(js).not.toMatch(/cbrt/);
  });

  test('is not `x ** (1.0 / 3.0)`: that is NaN below zero', async () => {
    await expectElementwise('f64', 'x ** (1.0 / 3.0)', (x) => x ** (1 / 3));
    expect(Math.cbrt(-8)).toBe(-2);
    expect((-8) ** (1 / 3)).toBeNaN();
  });

  test('takes one argument', async () => {
    await expect(new Compiler(program('f64', 'cbrt(x, x)')).execute({ xs: array('f64', [1], [1]) })).rejects.toThrow(/cbrt/);
  });
});

describe('a rewrite that would evaluate operands in another order is not made where they can fault', () => {
  test('-xs[k + 5] + ys[k + 9], both out of bounds: the first read faults first, compiled as interpreted', async () => {
    const source = 'def main(xs: f64[n], ys: f64[n]):\n  return generate(size(xs), lam k: -xs[k + 5] + ys[k + 9])\n';
    const inputs = { xs: array('f64', [3], [1, 2, 3]), ys: array('f64', [3], [4, 5, 6]) };
    for (const config of backends) {
      const compiler = new Compiler(source, { fileName: 'order.fuse', ...config.api });
      try {
        const message = async (interpret: boolean) => (await compiler.execute(inputs, { interpret }).then(() => 'no error', (e: unknown) => String(e)));
        const interpreted = await message(true);
        expect(interpreted).toMatch(/\b5\b/);
        expect(await message(false), config.name).toBe(interpreted);
      } finally {
        await compiler.dispose();
      }
    }
  });
});
