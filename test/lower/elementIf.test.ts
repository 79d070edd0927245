// `if`/`elif`/`else` statements on run-time values inside element functions (lowered to
// selects, src/lower/elementIf.ts): every strategy and the interpreter against values computed
// in plain JavaScript, and the fused code (JavaScript, WebAssembly, several threads) checked not
// to fault where the source does not run the faulting branch (no hand-over to the interpreter).

import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { compile, type CompileOptions, type Input } from '../../src/index.js';
import { plain, runAllModes } from './modes.js';
import { kinds, lowerError, lowerText, statements } from './helpers.js';
import { errorOf, rejectionOf } from '../util/userErrors.js';
import type { Expr, Lambda } from '../../src/ir/types.js';

const fused: readonly CompileOptions[] = [{ threads: 1, wasm: 'off' }, { threads: 1, wasm: 'on' }, { threads: 2 }];

/** `result` in every mode equals `expected`, and no fused run had to hand over to the interpreter. */
async function expectEverywhere(src: string, inputs: Readonly<Record<string, Input>>, expected: unknown): Promise<void> {
  const all = await runAllModes(src, inputs);
  for (const [mode, r] of Object.entries(all)) expect({ mode, result: plain(r['result']!) }).toEqual({ mode, result: expected });
  for (const options of fused) {
    const program = compile(src, options);
    const run = await program.execute(inputs);
    await program.dispose();
    expect({ options, fallback: run.fallback?.message }).toEqual({ options, fallback: undefined });
    expect({ options, result: plain(run.results['result']!) }).toEqual({ options, result: expected });
  }
}

const f64s = (...xs: number[]): Float64Array => Float64Array.from(xs);
const i32s = (...xs: number[]): Int32Array => Int32Array.from(xs);

/** The lambda of the program's only combinator. */
function onlyLambda(src: string): Lambda {
  const nodes = statements(lowerText(src)).filter((s) => s.kind === 'map' || s.kind === 'generate');
  expect(nodes).toHaveLength(1);
  const n = nodes[0]!;
  if (n.kind !== 'map' && n.kind !== 'generate') throw new Error('unreachable');
  return n.fn;
}

function countSelects(l: Lambda): number {
  const go = (e: Expr): number => {
    switch (e.kind) {
      case 'select':
        return 1 + go(e.cond) + go(e.then) + go(e.else);
      case 'binary':
        return go(e.lhs) + go(e.rhs);
      case 'unary':
      case 'call':
      case 'cast':
        return go(e.arg);
      case 'index':
        return e.indices.reduce((a, i) => a + go(i), 0);
      default:
        return 0;
    }
  };
  return [...l.lets.map((x) => x.expr), ...l.results].reduce((a, e) => a + go(e), 0);
}

const clampish = `def clampish(x):
  y = x * 2.0
  if x > 1.0:
    y = x
  elif x < 0.0:
    y = 0.0
  return y + 1.0
`;

function clampishJs(x: number): number {
  let y = x * 2;
  if (x > 1) y = x;
  else if (x < 0) y = 0;
  return y + 1;
}

describe('if/elif/else in an element function', () => {
  const xs = f64s(-1, -0, 0, 0.25, 0.5, 1, 1.5, 2, -3.5, NaN, Infinity, -Infinity);
  const expected = Array.from(xs, clampishJs);

  test('map(f, xs): the issue example', async () => {
    await expectEverywhere(`${clampish}def main(xs: f64[n]):\n  return map(clampish, xs)\n`, { xs }, expected);
  });

  test('called from a lambda, unannotated input', async () => {
    await expectEverywhere(`${clampish}def main(xs):\n  return map(lam x: clampish(x), xs)\n`, { xs }, expected);
  });

  test('f32: the select keeps the type', async () => {
    const x32 = Float32Array.from(xs);
    const f = Math.fround;
    const want = Array.from(x32, (x) => {
      let y = f(x * 2);
      if (x > 1) y = x;
      else if (x < 0) y = 0;
      return f(y + 1);
    });
    await expectEverywhere(`${clampish}def main(xs: f32[n]):\n  return map(clampish, xs)\n`, { xs: x32 }, want);
  });

  test('empty input', async () => {
    await expectEverywhere(`${clampish}def main(xs: f64[n]):\n  return map(clampish, xs)\n`, { xs: f64s() }, []);
  });

  test('the same as the conditional expression', () => {
    const statement = onlyLambda(`${clampish}def main(xs: f64[n]):\n  return map(clampish, xs)\n`);
    expect(countSelects(statement)).toBe(2);
  });

  test('a name bound in one branch only is poisoned, and fine while unused', async () => {
    const src = 'def f(x):\n  if x > 0.0:\n    t = x * 3.0\n    y = t\n  else:\n    y = -x\n  return y\ndef main(xs: f64[n]):\n  return map(f, xs)\n';
    await expectEverywhere(src, { xs: f64s(-2, 0, 2) }, [2, -0, 6]);
    const bad = 'def f(x):\n  if x > 0.0:\n    t = x * 3.0\n  return t\ndef main(xs: f64[n]):\n  return map(f, xs)\n';
    expect(lowerError(bad)).toMatchObject({ code: 'E209', at: '4:10' });
    expect(lowerError(bad).message).toContain("'t' is bound in only one branch");
  });

  test('tuples are selected component-wise', async () => {
    const src = [
      'def order(a, b):',
      '  if a <= b:',
      '    p = (a, b)',
      '  else:',
      '    p = (b, a)',
      '  lo, hi = p',
      '  return hi - lo',
      'def main(xs: f64[n], ys: f64[n]):',
      '  return zipWith(order, xs, ys)',
      '',
    ].join('\n');
    await expectEverywhere(src, { xs: f64s(1, 5, -2, 3), ys: f64s(4, 2, -2, -7) }, [3, 3, 0, 10]);
  });

  test('a tuple result with returns in the branches', async () => {
    const src = [
      'def split(x):',
      '  if x < 0.0:',
      '    return (0.0 - x, 1)',
      '  return (x, 0)',
      'def main(xs: f64[n]):',
      '  a, s = unzip(map(split, xs))',
      '  result = zipWith(lam m, k: m * 10.0 + f64(k), a, s)',
      '  return result',
      '',
    ].join('\n');
    await expectEverywhere(src, { xs: f64s(-1.5, 2, 0, -3) }, [16, 20, 0, 31]);
  });

  test('integer types: a strong i32 and a literal', async () => {
    const src = 'def sgn(k):\n  s = 0\n  if k > 0:\n    s = 1\n  elif k < 0:\n    s = -1\n  return s * 100 + k\ndef main(is: i32[n]):\n  return map(sgn, is)\n';
    const is = i32s(-5, 0, 7, -2147483648, 2147483647);
    const want = Array.from(is, (k) => ((Math.sign(k) * 100 + k) | 0));
    await expectEverywhere(src, { is }, want);
  });

  test('branch types join as in the conditional expression, in either order', async () => {
    const src = (a: string, b: string): string => `def f(k, x):\n  if k > 0:\n    y = ${a}\n  else:\n    y = ${b}\n  return y\ndef main(is: i32[n], xs: f64[n]):\n  return zipWith(f, is, xs)\n`;
    const inputs = { is: i32s(3, -1), xs: f64s(0.5, 2.5) };
    await expectEverywhere(src('k', 'x'), inputs, [3, 2.5]);
    await expectEverywhere(src('x', 'k'), inputs, [0.5, -1]);
  });

  test('a condition known at compile time is resolved at compile time', () => {
    const src = 'def f(x, k):\n  if k > 1:\n    y = x * 2.0\n  elif x > 0.0:\n    y = x\n  else:\n    y = 0.0\n  return y\ndef main(xs: f64[n]):\n  return map(lam x: f(x, 3), xs)\n';
    expect(countSelects(onlyLambda(src))).toBe(0);
    // A static `elif` after a run-time `if`: the static one is resolved, the run-time one selects.
    const mixed = 'def f(x, k):\n  if x > 0.0:\n    y = x\n  elif k > 1:\n    y = 2.0\n  else:\n    y = 3.0\n  return y\ndef main(xs: f64[n]):\n  return map(lam x: f(x, 3), xs)\n';
    expect(countSelects(onlyLambda(mixed))).toBe(1);
  });

  test('static for loops around and inside the ifs', async () => {
    const src = [
      'def steps(x):',
      '  acc = 0.0',
      '  for k in range(4):',
      '    if x > f64(k):',
      '      acc = acc + 1.0',
      '    elif x == f64(k):',
      '      for j in range(k):',
      '        acc = acc + 0.25',
      '    else:',
      '      acc = acc - 0.5',
      '  return acc',
      'def main(xs: f64[n]):',
      '  return map(steps, xs)',
      '',
    ].join('\n');
    const js = (x: number): number => {
      let acc = 0;
      for (let k = 0; k < 4; k++) {
        if (x > k) acc += 1;
        else if (x === k) for (let j = 0; j < k; j++) acc += 0.25;
        else acc -= 0.5;
      }
      return acc;
    };
    const xs = f64s(-1, 0, 0.5, 1, 2, 2.5, 3, 9);
    await expectEverywhere(src, { xs }, Array.from(xs, js));
  });

  test('nested ifs', async () => {
    const src = [
      'def q(x, y):',
      '  if x > 0.0:',
      '    if y > 0.0:',
      '      r = 1',
      '    else:',
      '      r = 4',
      '  else:',
      '    if y > 0.0:',
      '      r = 2',
      '    else:',
      '      r = 3',
      '  return r',
      'def main(xs: f64[n], ys: f64[n]):',
      '  return zipWith(q, xs, ys)',
      '',
    ].join('\n');
    await expectEverywhere(src, { xs: f64s(1, -1, -1, 1), ys: f64s(1, 1, -1, -1) }, [1, 2, 3, 4]);
  });
});

describe('as the operator of fold, scanl and scatter', () => {
  test('an element function with ifs combines', async () => {
    const src = [
      'def pickMax(a, b):',
      '  if a >= b:',
      '    return a',
      '  return b',
      'def clampAdd(acc, x):',
      '  s = acc + x',
      '  if s > 100:',
      '    s = 100',
      '  elif s < -100:',
      '    s = -100',
      '  else:',
      '    pass',
      '  return s',
      'def main(is: i32[n], js: i32[m]):',
      '  m1 = fold(pickMax, -2147483648, is)',
      '  c = scanl(clampAdd, 0, is)',
      '  d = scatter(pickMax, fill(4, 0), zip(map(lam j: j % 4, js), js))',
      '  return (m1, c, d)',
      '',
    ].join('\n');
    const is = Array.from({ length: 3000 }, (_, k) => ((k * 7919) % 401) - 200);
    const js = Array.from({ length: 1000 }, (_, k) => (k * 31) % 97);
    const clamp = (v: number): number => Math.max(-100, Math.min(100, v));
    const c: number[] = [];
    is.reduce((acc, x) => (c.push(acc), clamp(acc + x)), 0);
    const d = [0, 0, 0, 0];
    for (const j of js) d[j % 4] = Math.max(d[j % 4]!, j);
    const want = { m1: Math.max(...is), c, d };
    const inputs = { is: Int32Array.from(is), js: Int32Array.from(js) };
    const all = await runAllModes(src, inputs);
    for (const [mode, r] of Object.entries(all)) {
      expect({ mode, m1: plain(r['m1']!), c: plain(r['c']!), d: plain(r['d']!) }).toEqual({ mode, ...want });
    }
  });
});

describe('return inside the branches', () => {
  test('a chain of returns becomes nested selects', async () => {
    const src = 'def band(x):\n  if x < 0.0:\n    return -1\n  elif x < 1.0:\n    return 0\n  elif x < 2.0:\n    return 1\n  else:\n    return 2\ndef main(xs: f64[n]):\n  return map(band, xs)\n';
    await expectEverywhere(src, { xs: f64s(-5, 0, 0.5, 1, 1.99, 2, 100) }, [-1, 0, 0, 1, 1, 2, 2]);
  });

  test('returns in some branches only: the statements after the if are the else', async () => {
    const src = [
      'def f(x):',
      '  if x < 0.0:',
      '    return 0.0',
      '  elif x > 10.0:',
      '    y = 10.0',
      '  else:',
      '    y = x * 2.0',
      '  if y > 15.0:',
      '    return 15.0',
      '  z = y + 1.0',
      '  return z',
      'def main(xs: f64[n]):',
      '  return map(f, xs)',
      '',
    ].join('\n');
    const js = (x: number): number => {
      let y: number;
      if (x < 0) return 0;
      else if (x > 10) y = 10;
      else y = x * 2;
      if (y > 15) return 15;
      return y + 1;
    };
    const xs = f64s(-1, 0, 3, 7.5, 8, 10, 11, 1e9);
    await expectEverywhere(src, { xs }, Array.from(xs, js));
  });

  test('a return in a nested if, with a name bound after it in the branch', async () => {
    const src = [
      'def f(x):',
      '  if x > 0.0:',
      '    if x > 100.0:',
      '      return -1.0',
      '    y = x + 1.0',
      '  else:',
      '    y = 0.0 - x',
      '  return y * 2.0',
      'def main(xs: f64[n]):',
      '  return map(f, xs)',
      '',
    ].join('\n');
    const js = (x: number): number => (x > 0 ? (x > 100 ? -1 : (x + 1) * 2) : (0 - x) * 2);
    const xs = f64s(-3, 0, 5, 100, 101);
    await expectEverywhere(src, { xs }, Array.from(xs, js));
  });

  test('a return in an unrolled for: the first index that matches', async () => {
    const src = [
      'def firstAbove(ts, x):',
      '  for k in range(size(ts)):',
      '    if x < ts[k]:',
      '      return k',
      '  return size(ts)',
      'def main(xs: f64[n], ts: f64[4]):',
      '  return map(lam x: firstAbove(ts, x), xs)',
      '',
    ].join('\n');
    const ts = f64s(0, 1, 5, 10);
    const xs = f64s(-1, 0, 0.5, 4, 9.99, 10, 50);
    const js = (x: number): number => {
      const k = Array.from(ts).findIndex((t) => x < t);
      return k < 0 ? ts.length : k;
    };
    await expectEverywhere(src, { xs, ts }, Array.from(xs, js));
  });

  test('an element function that may end without a return is E210 at the def', () => {
    const src = 'def f(x):\n  if x > 0.0:\n    return x\ndef main(xs: f64[n]):\n  return map(f, xs)\n';
    const e = lowerError(src);
    expect(e).toMatchObject({ code: 'E210', at: '1:1' });
    expect(e.message).toContain("'f' can end without a 'return'");
  });

  test('return at array level inside a run-time if is still E211', () => {
    const e = lowerError('def main(xs):\n  if xs[0] > 0.0:\n    return xs\n  return xs\n');
    expect(e).toMatchObject({ code: 'E211', at: '2:3' });
  });
});

describe('faults in the branch not taken do not fault', () => {
  test('integer division by zero', async () => {
    const src = 'def safeDiv(a, b):\n  if b == 0:\n    q = 0\n  else:\n    q = a // b\n  return q\ndef main(as: i32[n], bs: i32[n]):\n  return zipWith(safeDiv, as, bs)\n';
    const as = i32s(7, -7, 5, 9, 0);
    const bs = i32s(2, 0, 0, -4, 3);
    await expectEverywhere(src, { as, bs }, [3, 0, 0, -3, 0]);
  });

  test('division by zero with returns, and the same as the conditional expression', async () => {
    const statement = 'def r(a, b):\n  if b != 0:\n    return a % b\n  return -1\ndef main(as: i32[n], bs: i32[n]):\n  return zipWith(r, as, bs)\n';
    const expression = 'def main(as: i32[n], bs: i32[n]):\n  return zipWith(lam a, b: a % b if b != 0 else -1, as, bs)\n';
    const inputs = { as: i32s(7, -7, 5), bs: i32s(3, 0, -2) };
    await expectEverywhere(statement, inputs, [1, -1, -1]);
    await expectEverywhere(expression, inputs, [1, -1, -1]);
  });

  test('an out-of-range read guarded by an if, through a def that binds it', async () => {
    const src = [
      'def twiceLeft(xs, i):',
      '  t = xs[i - 1]',
      '  return t * 2.0',
      'def left(xs, i):',
      '  if i > 0:',
      '    v = twiceLeft(xs, i)',
      '  else:',
      '    v = 0.0',
      '  return v',
      'def main(xs: f64[n]):',
      '  return generate(size(xs), lam i: left(xs, i))',
      '',
    ].join('\n');
    await expectEverywhere(src, { xs: f64s(1, 2, 3) }, [0, 2, 4]);
  });

  test('a later elif whose condition reads out of range where an earlier one holds', async () => {
    const src = [
      'def f(xs, i):',
      '  if i == 0:',
      '    y = 0.0',
      '  elif xs[i - 1] > 1.0:',
      '    y = 1.0',
      '  else:',
      '    y = 2.0',
      '  return y',
      'def main(xs: f64[n]):',
      '  return generate(size(xs), lam i: f(xs, i))',
      '',
    ].join('\n');
    await expectEverywhere(src, { xs: f64s(5, 0, 3) }, [0, 1, 2]);
  });

  test('the else of a chain is not run where an earlier branch returns', async () => {
    // At i = 0 the last return would read xs[-5]; at i = 1 the returned xs[i + 9] is out of range.
    const src = [
      'def f(xs, i):',
      '  if i == 0:',
      '    return 0.0',
      '  elif i == 1:',
      '    return 1.0',
      '  elif i > 100:',
      '    return xs[i + 9]',
      '  return xs[i - 5] if i >= 5 else xs[i]',
      'def main(xs: f64[n]):',
      '  return generate(size(xs), lam i: f(xs, i))',
      '',
    ].join('\n');
    const xs = f64s(10, 11, 12, 13, 14, 15, 16);
    await expectEverywhere(src, { xs }, [0, 1, 12, 13, 14, 10, 11]);
  });

  test('a fault in a condition poisons what the branches bind, and only that', async () => {
    const src = (ret: string): string => `def f(xs, i):\n  y = 1.0\n  z = 2.0\n  if xs[i - 1] > 0.0:\n    y = 1.0\n  return ${ret}\ndef main(xs: f64[n]):\n  return generate(size(xs), lam i: f(xs, i))\n`;
    const inputs = { xs: f64s(1, 2, 3) };
    const all = await runAllModes(src('z'), inputs);
    for (const [mode, r] of Object.entries(all)) expect({ mode, result: plain(r['result']!) }).toEqual({ mode, result: [2, 2, 2] });
    const program = compile(src('y'));
    for (const options of [{ interpret: true }, { strategy: 'ilp' as const }, { strategy: 'none' as const }]) {
      const e = await rejectionOf(program.run(inputs, options));
      expect(e.diagnostics[0]!.message).toContain('index -1 is out of range');
    }
  });

  test('a fault in the branch taken still faults, located, in every mode', async () => {
    const src = 'def f(xs, i):\n  if i >= 0:\n    v = xs[i + 1]\n  else:\n    v = 0.0\n  return v\ndef main(xs: f64[n]):\n  return generate(size(xs), lam i: f(xs, i))\n';
    const program = compile(src);
    const inputs = { xs: f64s(1, 2, 3) };
    for (const options of [{ interpret: true }, { strategy: 'ilp' as const }, { strategy: 'none' as const }]) {
      const e = await rejectionOf(program.run(inputs, options));
      expect(e.diagnostics[0]!.code).toBe('E402');
      expect(e.diagnostics[0]!.message).toContain('index 3 is out of range');
    }
  });

  test('a division by zero in the branch taken faults too', async () => {
    const src = 'def f(a, b):\n  if a > 0:\n    q = a // b\n  else:\n    q = 0\n  return q\ndef main(as: i32[n], bs: i32[n]):\n  return zipWith(f, as, bs)\n';
    const e = await rejectionOf(compile(src).run({ as: i32s(1, 2), bs: i32s(1, 0) }));
    expect(e.diagnostics[0]!.code).toBe('E401');
  });
});

describe('a stencil with its edge cases as if/elif/else', () => {
  const stencil = [
    '# a 1-D 3-point average; the ends average the two points they have',
    'def smooth(xs, i):',
    '  n = size(xs)',
    '  if n == 1:',
    '    return xs[0]',
    '  if i == 0:',
    '    s = xs[0] + xs[1]',
    '    k = 2.0',
    '  elif i == n - 1:',
    '    s = xs[i - 1] + xs[i]',
    '    k = 2.0',
    '  else:',
    '    s = xs[i - 1] + xs[i] + xs[i + 1]',
    '    k = 3.0',
    '  return s / k',
    'def main(xs: f64[n]):',
    '  return generate(size(xs), lam i: smooth(xs, i))',
    '',
  ].join('\n');
  const js = (xs: readonly number[]): number[] => xs.map((_, i) => {
    const n = xs.length;
    if (n === 1) return xs[0]!;
    if (i === 0) return (xs[0]! + xs[1]!) / 2;
    if (i === n - 1) return (xs[i - 1]! + xs[i]!) / 2;
    return (xs[i - 1]! + xs[i]! + xs[i + 1]!) / 3;
  });
  test.each([[[]], [[4]], [[1, 3]], [[1, 2, 4]], [[1, 2, 4, 8, 16, 32, 64, 3.5, -1]]])('%j', async (xs) => {
    await expectEverywhere(stencil, { xs: Float64Array.from(xs) }, js(xs));
  });

  test('is the example of docs/LANGUAGE.md §3', () => {
    const doc = readFileSync(new URL('../../docs/LANGUAGE.md', import.meta.url), 'utf8');
    expect(doc).toContain(stencil);
  });
});

describe('long chains and limits', () => {
  test('500 elifs (and 2000) lower without deepening the stack, and run', async () => {
    const chain = (n: number): string => {
      const lines = ['def f(x):', '  if x < 0:', '    y = -1'];
      for (let k = 1; k < n; k++) lines.push(`  elif x == ${k}:`, `    y = ${k * 3}`);
      lines.push('  else:', '    y = x', '  return y', 'def main(is: i32[n]):', '  return map(f, is)', '');
      return lines.join('\n');
    };
    const is = i32s(-4, 0, 1, 2, 250, 499, 500, 1999, 100000);
    const js = (n: number) => (x: number): number => (x < 0 ? -1 : x >= 1 && x < n ? x * 3 : x);
    await expectEverywhere(chain(500), { is }, Array.from(is, js(500)));
    const long = lowerText(chain(2000));
    expect(kinds(long)).toEqual({ map: 1 });
  });

  test('500 returns one after the other', async () => {
    const lines = ['def f(x):'];
    for (let k = 0; k < 500; k++) lines.push(`  if x == ${k}:`, `    return ${k * 2}`);
    lines.push('  return -1', 'def main(is: i32[n]):', '  return map(f, is)', '');
    const is = i32s(0, 1, 250, 499, 500, -3);
    await expectEverywhere(lines.join('\n'), { is }, Array.from(is, (x) => (x >= 0 && x < 500 ? x * 2 : -1)));
  });

  test('recursion under a run-time if does not stop at compile time: E205, with the if in a note', () => {
    const src = 'def fact(n):\n  if n <= 1:\n    return 1\n  return n * fact(n - 1)\ndef main(is: i32[k]):\n  return map(fact, is)\n';
    const e = lowerError(src);
    expect(e.code).toBe('E205');
    expect(e.message).toContain("the recursion of 'fact' does not terminate");
    const notes = errorOf(() => lowerText(src)).diagnostics[0]!.notes ?? [];
    expect(notes.join('\n')).toContain("the 'if' at line 2, column 6 is decided at run time");
  });

  test('an array-level run-time if in main is still one if node', () => {
    const src = 'def main(xs: f64[n]):\n  if xs[0] > 0.0:\n    ys = map(lam x: x + 1.0, xs)\n  else:\n    ys = xs\n  return ys\n';
    expect(kinds(lowerText(src))).toMatchObject({ if: 1, map: 1 });
  });
});

describe('errors', () => {
  const d = (body: string, main = '  return map(f, xs)\n'): string => `def f(x):\n${body}def main(xs: f64[n]):\n${main}`;
  test.each([
    [d('  if x > 0.0:\n    y = x > 1.0\n  else:\n    y = x\n  return 1.0\n'), 'E308', "'y' is bool in one branch of the 'if' and f64 in the other", '2:3'],
    [d('  if x > 0.0:\n    return x > 1.0\n  return x\n'), 'E308', "the value returned is bool in one branch of the 'if' and f64 in the other", '4:3'],
    [d('  if x > 0.0:\n    g = sqrt\n  else:\n    g = exp\n  return g(x)\n'), 'E308', "'g' must be the same function in every branch", '2:3'],
    [d('  if x > 0.0:\n    y = (x, x)\n  else:\n    y = x\n  return 1.0\n'), 'E308', "'y' is a tuple of 2 values in one branch of the 'if' and a scalar of type f64 in the other", '2:3'],
    [d('  if x > 0.0:\n    while x > 1.0:\n      x = x / 2.0\n  return x\n'), 'E212', "a 'while' loop cannot be used inside an element function", '3:5'],
    [d('  if x > 0.0:\n    y = sum(xs)\n  return x\n'), 'E201', "unknown name 'xs'", '3:13'],
    ['def f(xs, ys, i):\n  if i > 0:\n    a = xs\n  else:\n    a = ys\n  return a[0]\ndef main(xs: f64[n], ys: f64[n]):\n  return generate(size(xs), lam i: f(xs, ys, i))\n', 'E308', "'a' is a different array in each branch", '2:3'],
    ['def f(xs, i):\n  if i > 0:\n    y = sum(xs)\n  else:\n    y = 0.0\n  return y\ndef main(xs: f64[n]):\n  return generate(size(xs), lam i: f(xs, i))\n', 'E212', "'fold' is an array combinator and cannot be used inside an element function", '3:9'],
  ])('%#: %s → %s', (src, code, fragment, at) => {
    const e = lowerError(src);
    expect({ code: e.code, at: e.at }).toEqual({ code, at });
    expect(e.message).toContain(fragment);
  });
});
