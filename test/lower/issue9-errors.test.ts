// User errors that used to surface as internal errors or misleading messages (issue 9: C7, D6,
// D7, D8), one line each: source, code, message fragment, line:col; and the programs that were
// wrongly rejected, run under the interpreter and every strategy.

import { expect, test } from 'vitest';
import { UserError, diagnosticPosition, SourceFile } from '../../src/diagnostics/index.js';
import { parseModule } from '../../src/syntax/index.js';
import { lowerError } from './helpers.js';
import { plain, runAllModes } from './modes.js';

const errors: [string, string, string, string][] = [
  // C7: the IR verifier used to find these.
  ['def main(xs: bool[n]):\n  return fold(+, xs)\n', 'E310', "operator '+' needs numbers, found bool", '2:10'],
  ['def main(xs: bool[n]):\n  return fold(max, xs)\n', 'E310', "operator 'max' needs numbers, found bool", '2:10'],
  ['def main(xs: bool[n]):\n  return map(lam b: b < True, xs)\n', 'E310', "operator '<' needs numbers, found bool", '2:21'],
  ['def main(xs: bool[n]):\n  return map(lam b: -b, xs)\n', 'E310', "operator '-' needs a number, found bool", '2:21'],
  ['def main(xs: bool[n]):\n  return scanl(*, xs)\n', 'E310', "operator '*' needs numbers, found bool", '2:10'],
  // D6: a prelude function's requirement on its argument, said at the user's call.
  ['def main(xs: f64[a, b, c]):\n  return transpose(xs)\n', 'E304', "'transpose' needs an array of rank 2, found an array of f64 of rank 3", '2:10'],
  ['def main(xs: f64[a]):\n  return transpose(xs)\n', 'E304', "'transpose' needs an array of rank 2, found an array of f64 of rank 1", '2:10'],
  ['def main(xs: f64[a]):\n  ys = map(lam x: x, xs)\n  return transpose(ys)\n', 'E304', "'transpose' needs an array of rank 2", '3:10'],
];

test.each(errors)('%#: → %s', (src, code, fragment, at) => {
  const e = lowerError(src);
  expect(e.message).toContain(fragment);
  expect({ code: e.code, at: e.at }).toEqual({ code, at });
});

const syntaxErrors: [string, string, string, string][] = [
  // C7: `def main(x, x)` reached the IR verifier ("x is bound twice").
  ['def main(x, x):\n  return x\n', 'E125', "the parameter 'x' is named twice", '1:13'],
  ['def f(a, b: f64, a):\n  return a\n', 'E125', "the parameter 'a' is named twice", '1:18'],
  ['def main(xs):\n  return map(lam x, x: x, xs, xs)\n', 'E125', "the parameter 'x' is named twice", '2:21'],
  ['def main(xs):\n  return map(lam (a, b), a: a, zip(xs, xs), xs)\n', 'E125', "the parameter 'a' is named twice", '2:26'],
];

test.each(syntaxErrors)('syntax %#: → %s', (src, code, fragment, at) => {
  let err: unknown;
  try {
    parseModule(new SourceFile('test.fuse', src));
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(UserError);
  const d = (err as UserError).diagnostics[0]!;
  expect(d.message).toContain(fragment);
  expect({ code: d.code, at: diagnosticPosition(d) }).toEqual({ code, at });
});

test('D7: an unannotated loop-carried scalar re-bound to a fold runs in every mode', async () => {
  const src = 'def main(xs):\n  m = 1.0e20\n  while m > 1.0:\n    xs = map(lam x: x * 0.5, xs)\n    m = fold(max, xs)\n  return xs, m\n';
  // Independently: halve until the maximum is at most 1.
  let xs = [1, 2, 3, 4, 5];
  let m = 1e20;
  while (m > 1) {
    xs = xs.map((x) => x * 0.5);
    m = Math.max(...xs);
  }
  const all = await runAllModes(src, { xs: Float64Array.from([1, 2, 3, 4, 5]) });
  for (const [mode, r] of Object.entries(all)) expect({ mode, r: Object.values(r).map(plain) }).toEqual({ mode, r: [xs, m] });
});

test.each([
  ['fold', 'def main(f):\n  return fold(lam(a, b): a or b, False, f)\n', (bs: number[]) => (bs.some((b) => b === 1) ? 1 : 0)],
  ['fold and', 'def main(f):\n  return fold(lam(a, b): a and b, True, f)\n', (bs: number[]) => (bs.every((b) => b === 1) ? 1 : 0)],
  ['scanl', 'def main(f):\n  return scanl(lam(a, b): a or b, False, f)\n', (bs: number[]) => bs.map((_, i) => (bs.slice(0, i).some((b) => b === 1) ? 1 : 0))],
] as const)('D8: %s of a bool input with a lambda and a bool seed, unannotated, in every mode', async (_, src, expected) => {
  for (const bs of [[0, 0, 1], [0, 0, 0], [1, 1, 1]]) {
    const all = await runAllModes(src, { f: Uint8Array.from(bs) });
    for (const [mode, r] of Object.entries(all)) expect({ mode, bs, r: plain(r['result']!) }).toEqual({ mode, bs, r: expected(bs) });
  }
});
