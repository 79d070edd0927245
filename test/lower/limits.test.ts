// Compile-time limits in lowering (issue 9, C6 and H1): deep element expressions built by
// inlining (E221), deep run-time control flow (E222), long static elif chains (no recursion),
// and deep JSON inputs and IR (E511, E296): a located error, never a RangeError.

import { expect, test } from 'vitest';
import { UserError } from '../../src/diagnostics/index.js';
import { readJsonValue } from '../../src/runtime/io/jsonValues.js';
import { programFromJson } from '../../src/ir/json.js';
import { lowerError, lowerText } from './helpers.js';
import { plain, runAllModes } from './modes.js';

const chain = (n: number): string => `x${' + 1.0'.repeat(n)}`;
const elifs = (n: number, cond: (i: number) => string): string =>
  `def main(xs: f64[n]):\n  y = 0.0\n  if ${cond(-1)}:\n    y = 1.0\n${Array.from({ length: n }, (_, i) => `  elif ${cond(i)}:\n    y = ${i}.0\n`).join('')}  else:\n    y = 7.5\n  return y\n`;

const errors: [string, string, string, string, string][] = [
  // [what, source, code, message fragment, line:col]
  ['inlining builds 2,700 levels', `def g(x):\n  return ${chain(900)}\ndef main(xs):\n  return map(lam x: g(g(g(x))), xs)\n`, 'E221', 'more than 2000 nested operations', '2:10'],
  ['201 run-time elifs', elifs(300, (i) => `xs[0] > ${1000 - i}.0`), 'E222', "run-time 'if' and 'while' nest more than 200 levels deep", '403:3'],
  ['a while in 200 run-time ifs', `def main(xs):\n  y = 0.0\n  if xs[0] > 0.0:\n    y = 1.0\n${Array.from({ length: 199 }, (_, i) => `  elif xs[0] > ${i}.0:\n    y = 2.0\n`).join('')}  else:\n    while y < 3.0:\n      y = y + 1.0\n  return y\n`, 'E222', 'nest more than 200 levels deep', '404:5'],
];

test.each(errors)('%s', (_, src, code, fragment, at) => {
  const e = lowerError(src);
  expect(e.message).toContain(fragment);
  expect({ code: e.code, at: e.at }).toEqual({ code, at });
});

test('5,000 elifs decided at compile time lower without recursion', () => {
  const p = lowerText(elifs(5000, (i) => `size(xs) == ${i + 2}`), { signature: { xs: { kind: 'array', elem: 'f64', shape: [4000] } } });
  expect(p.body.stmts.find((s) => s.kind === 'if')).toBeUndefined();
});

test('an expression 1,800 operations deep and 199 run-time elifs run in every mode', async () => {
  const src = `def g(x):\n  return ${chain(900)}\ndef main(xs: f64[n]):\n  y = map(lam x: g(g(x)), xs)[1]\n  if xs[0] > 1000.0:\n    y = 1.0\n${Array.from({ length: 198 }, (_, i) => `  elif xs[0] > ${999 - i}.0:\n    y = ${i}.0\n`).join('')}  return y\n`;
  const all = await runAllModes(src, { xs: Float64Array.from([1, 2, 3]) });
  for (const [mode, r] of Object.entries(all)) expect({ mode, y: plain(r['y']!) }).toEqual({ mode, y: 1802 });
});

function userErrorOf(run: () => unknown): UserError {
  try {
    run();
  } catch (e) {
    if (e instanceof UserError) return e;
    throw e;
  }
  throw new Error('expected a UserError');
}

test.each([
  ['5,000 nested lists', `${'['.repeat(5000)}1${']'.repeat(5000)}`, 'E511', '[0][0][0][0]…[0]: lists nested more than 64 levels deep'],
  ['10^6 nested lists', `${'['.repeat(1000000)}${']'.repeat(1000000)}`, 'E511', 'lists nested more than 64 levels deep'],
  ['65 levels in data', `{"dtype": "f64", "data": ${'['.repeat(65)}1${']'.repeat(65)}}`, 'E511', 'data[0][0][0]…[0]: lists nested'],
] as const)('JSON input: %s', (_, text, code, fragment) => {
  const e = userErrorOf(() => readJsonValue(text, 'in.json'));
  expect(e.code).toBe(code);
  expect(e.message).toContain(fragment);
});

test('JSON input: 64 levels of single-element lists read in linear time', () => {
  const v = readJsonValue(`${'['.repeat(64)}2.5${']'.repeat(64)}`, 'in.json');
  expect(v.kind === 'array' ? v.shape.length : 0).toBe(64);
});

test('IR JSON nested 3,000 deep is E296', () => {
  let e = '{"kind":"var","name":"x","type":"f64"}';
  for (let i = 0; i < 3000; i++) e = `{"kind":"unary","op":"neg","arg":${e},"type":"f64"}`;
  const text = `{"name":"main","params":[],"body":{"params":[],"stmts":[{"kind":"scalar","name":"y","expr":${e}}],"results":["y"]},"results":[]}`;
  const err = userErrorOf(() => programFromJson(text, 'p.json'));
  expect(err.code).toBe('E296');
  expect(err.message).toContain('nested more than 2500 levels deep');
});
