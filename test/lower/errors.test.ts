// Lowering's user errors, one line each: source, code, message fragment, line:col.

import { expect, test } from 'vitest';
import type { InputSignature } from '../../src/lower/index.js';
import { lowerError } from './helpers.js';

const f64 = (...shape: number[]): InputSignature => ({ kind: 'array', elem: 'f64', shape });

const d = (body: string, params = 'xs'): string => `def main(${params}):\n${body}`;

const cases: [string, string, string, string, Record<string, InputSignature>?][] = [
  // [source, code, message fragment, line:col, signature]
  [d('  return foo(xs)\n'), 'E201', "unknown name 'foo'", '2:10'],
  [d('  return ys\n'), 'E201', "unknown name 'ys'", '2:10'],
  [d('  return map(lam x: x, xs, xs, 3)\n'), 'E302', "argument 4 of 'map' must be an array", '2:32'],
  [d('  return reverse(xs, xs)\n'), 'E202', "'reverse' takes 1 argument, 2 given", '2:10'],
  [d('  return gather(xs)\n'), 'E202', "'gather' takes 2 arguments, 1 given", '2:10'],
  [d('  k = 3\n  return k(xs)\n'), 'E203', 'is not a function and cannot be called', '3:10'],
  [d('  for i in range(size(xs)):\n    xs = map(lam x: x, xs)\n  return xs\n'), 'E204', 'depends on the size of xs, which is only known at run time', '2:18'],
  [d('  return f(xs)\ndef f(ys):\n  return f(ys)\n'), 'E205', "the recursion of 'f' does not terminate", '4:10'],
  [d('  return g(xs)\ndef g(ys):\n  if size(ys) < 2:\n    return ys\n  return g(ys)\n'), 'E206', 'depends on the size of xs, which is only known at run time', '4:6'],
  [d('  return map(lam a, b: a + b, xs)\n'), 'E207', 'takes 2 parameters but is given 1', '2:10'],
  [d('  return lam x: x\n'), 'E208', 'returns a function', '2:10'],
  [d('  if xs[0] > 0.0:\n    ys = xs\n  return ys\n'), 'E209', "'ys' is bound in only one branch", '4:10'],
  [d('  ys = map(lam x: x, xs)\n'), 'E210', "'main' ends without a 'return'", '1:1'],
  [d('  if xs[0] > 0.0:\n    return xs\n  return xs\n'), 'E211', "'return' inside a run-time 'if'", '2:3'],
  [d('  return map(lam x: sum(xs), xs)\n'), 'E212', "'fold' is an array combinator and cannot be used inside an element function", '2:21'],
  // A constant division by zero is a run-time fault (test/e2e/faults.test.ts), unless its value
  // is needed at compile time.
  [d('  for i in range(1 // 0):\n    xs = map(lam x: x + 1.0, xs)\n  return xs\n'), 'E213', "the range of a 'for' loop must be known at compile time, but it divides by zero", '2:18'],
  [d('  k = 1 // 0\n  for i in range(k):\n    xs = map(lam x: x + 1.0, xs)\n  return xs\n'), 'E213', 'but it divides by zero', '2:7'],
  [d('  return fold(lam a, b: a + b, xs)\n'), 'E215', 'needs a seed', '2:10'],
  [d('  a, b = unzip(zip(xs, take(2, xs)))\n  return b\n', 'xs: f64[n]'), 'E311', "'zip' needs arrays of one shape, found [3] and [2]", '2:16', { xs: f64(3) }],
  [d('  a, b = xs\n  return a\n', 'xs: f64[n]'), 'E216', 'cannot unzip', '2:3'],
  [d('  return map(lam p: p[2], zip(xs, xs))\n'), 'E217', 'tuple index 2 is out of range', '2:21'],
  [d('  return xs\n', 'xs: f64[n]'), 'E307', "declared f64[_] but the input is f64[_, _]", '1:10', { xs: f64(2, 3) }],
  [d('  return xs\n'), 'E307', "'ys', which is not a parameter of 'main'", '1:5', { ys: f64(2) }],
  [d('  return gather(is, xs)\n', 'is, xs'), 'E305', "'is' must be (i32, i32)", '2:10', { is: { kind: 'array', elem: 'i32', shape: [4] }, xs: f64(2, 3) }],
  [d('  return map(lam x: x + 1.0, xs)\n', 'xs: bool[n]'), 'E310', "cannot combine bool and f64", '2:21'],
  [d('  return map(lam x: x and true, xs)\n', 'xs: f64[n]'), 'E301', "type mismatch in 'and': expected bool, found f64", '2:21'],
  [d('  return zipWith(+, xs, ys)\n', 'xs: f64[n], ys: f64[n, m]'), 'E304', "rank mismatch in 'map'", '2:10'],
  [d('  return gather(is, xs)\n', 'xs: f64[n, m], is: i32[k]'), 'E305', "the indices of 'gather' 'is' must be (i32, i32) (one i32 per dimension of the rank-2 source 'xs'), found i32", '2:10'],
  [d('  return gather(is, xs)\n', 'xs: f64[n], is: f64[k]'), 'E305', 'must be i32', '2:10'],
  [d('  return generate(3, lam i: xs[i, 0])\n', 'xs: f64[n]'), 'E306', 'an array of rank 1 is indexed with 2 indices', '2:29'],
  [d('  return map(lam x: x + xs, xs)\n', 'xs: f64[n]'), 'E303', "the right operand of '+' must be a scalar, found an array of f64 of rank 1", '2:25'],
  [d('  return size(3)\n'), 'E302', "the argument of 'size' must be an array", '2:15'],
  [d('  if xs[0] > 0.0:\n    ys = xs\n  else:\n    ys = 1.0\n  return ys\n', 'xs: f64[n]'), 'E308', "'ys' is an array of f64 of rank 1 in one branch", '2:3'],
  [d('  return reverse(xs)\n', 'xs: f64[n, m]'), 'E303', "the left operand of '-' must be a scalar, found a tuple of 2 values", '2:10'],
  [d('  return zipWith(+, xs, ys)\n', 'xs, ys'), 'E311', "'map' needs inputs of one shape, found [3] and [4]", '2:10', { xs: f64(3), ys: f64(4) }],
  ['def main(xs):\n  return xs\ndef main(ys):\n  return ys\n', 'E218', "'main' is defined more than once", '3:5'],
];

test.each(cases)('%#: %s → %s', (src, code, fragment, at, signature) => {
  const e = lowerError(src, signature === undefined ? {} : { signature });
  expect({ code: e.code, at: e.at }).toEqual({ code, at });
  expect(e.message).toContain(fragment);
});

test('an unknown entry is an error at the module', () => {
  expect(lowerError('def f(xs):\n  return xs\n', { entry: 'g' })).toMatchObject({ code: 'E214', message: "there is no def named 'g' to use as the entry" });
});
