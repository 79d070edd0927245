// Syntax errors: one line per case (source, code, message fragment, line:col of the offending
// token), then recovery (several errors in one file are all reported) and rendering.

import { describe, expect, it } from 'vitest';
import { SourceFile, UserError, renderDiagnostic } from '../../src/diagnostics/index.js';
import { parseExpression, parseModule } from '../../src/syntax/index.js';
import { parseErrors } from './sexpr.js';

const F = 'def f(x):\n'; // most cases sit in a body; their errors are on line 2 or later

const errorCases: ReadonlyArray<readonly [source: string, code: string, fragment: string, at: string]> = [
  ['def f(x)\n  return x', 'E111', "expected ':' after the parameter list", '1:9'],
  ['def f(x) -> f64[n]\n  return x', 'E111', "expected ':' after the return type", '1:19'],
  [F + '\treturn x', 'E101', 'unexpected tab in indentation', '2:1'],
  [F + '  \t return x', 'E101', 'unexpected tab in indentation', '2:3'],
  [F + '  y = x $ 1\n  return y', 'E100', "unknown character '$'", '2:9'],
  [F + '  y = .\n', 'E100', "unknown character '.'", '2:7'],
  [F + '  y = g(x\n  return y', 'E103', "unclosed '(' opened here", '2:8'],
  [F + '  y = [x\n', 'E103', "unclosed '[' opened here", '2:7'],
  [F + '  y = g(x]\n  return y', 'E104', "']' does not match the '(' opened at 2:8", '2:10'],
  [F + '  y = x)\n', 'E104', "unmatched ')'", '2:8'],
  [F + '    if x:\n        y = 1\n      z = 2\n    return y', 'E102', 'unindent does not match any outer indentation level', '4:7'],
  [F + '  y = 1\n    z = 2\n  return y', 'E112', 'unexpected indent', '3:5'],
  ['  def f(x): pass', 'E112', 'unexpected indent', '1:3'],
  [F + '  if x:\n  return y', 'E113', "expected an indented block after 'if'", '3:3'],
  ['def f(x):\nreturn x', 'E113', "expected an indented block after 'def'", '2:1'],
  [F + '  y = 1e\n', 'E105', "malformed number '1e'", '2:7'],
  [F + '  y = 12abc\n', 'E105', "malformed number '12abc'", '2:7'],
  [F + '  y = 1.2.3\n', 'E105', "malformed number '1.2.3'", '2:7'],
  [F + '  y = \n  return y', 'E110', "expected a value after '='", '2:7'],
  [F + '  return\n', 'E110', "expected a value after 'return'", '2:9'],
  [F + '  y = 1 + * 2\n', 'E110', "expected an expression, found '*'", '2:11'],
  [F + '  y = xs[]\n', 'E110', 'expected an index inside the brackets', '2:10'],
  [F + '  y = if\n', 'E110', "found the keyword 'if'", '2:7'],
  [F + '  y = f(x\n      + 1\n', 'E103', "unclosed '(' opened here", '2:8'],
  [F + '  y = map(lam x x + 1, xs)', 'E111', "expected ':' after the lambda's parameters", '2:19'],
  [F + '  y = lam: 1', 'E111', 'a lambda takes at least one parameter', '2:10'],
  [F + '  y = a if b\n', 'E111', "expected 'else' in the conditional expression", '2:13'],
  [F + '  x = y = 1', 'E111', "chained assignment 'a = b = e' is not supported", '2:9'],
  [F + '  while x\n    y = 1', 'E111', "expected ':' after the 'while' condition", '2:10'],
  [F + '  if x y = 1', 'E111', "expected ':' after the 'if' condition", '2:8'],
  [F + '  if x: pass\n  elif y pass', 'E111', "expected ':' after the 'elif' condition", '3:10'],
  [F + '  y = (a, b\n', 'E103', "unclosed '(' opened here", '2:7'],
  [F + '  y = (a b)\n', 'E111', "expected ',' or ')' to close the '(' at 2:7", '2:10'],
  [F + '  y = f(a b)\n', 'E111', "expected ',' or ')' after the argument", '2:11'],
  [F + '  y = 1 2\n', 'E111', 'expected the end of the statement', '2:9'],
  [F + '  f(x) 2\n', 'E111', "expected '=' or the end of the statement", '2:8'],
  ['def (x): pass', 'E111', "expected a name for the definition after 'def'", '1:5'],
  ['def f x: pass', 'E111', "expected '(' after the definition's name 'f'", '1:7'],
  ['def f(x y): pass', 'E111', "expected ',' or ')' in the parameter list", '1:9'],
  ['def f(x: f64[]): pass', 'E111', 'expected a dimension (a name or an integer)', '1:14'],
  ['def f(x: f64[n): pass', 'E104', "')' does not match the '[' opened at 1:13", '1:15'],
  ['def f(x: 3): pass', 'E111', 'expected a type: f64, f32, i32, u32, u8, i8, bool', '1:10'],
  [F + '  f(x) = 1', 'E114', "cannot assign to a function call; the left of '=' must be a name", '2:3'],
  [F + '  xs[0] = 1', 'E114', 'cannot assign to an indexed element', '2:3'],
  [F + '  a, 1 = e', 'E114', 'cannot assign to a number', '2:6'],
  [F + '  y = lam 1: 1', 'E114', 'expected a parameter name', '2:11'],
  [F + '  map(g, x)\n', 'E115', "this expression's value is not used", '2:3'],
  ['x = 1\ndef f(x): pass', 'E116', 'a file holds only `def`s', '1:1'],
  ['def f(x: f65[n]): pass', 'E117', "unknown element type 'f65'", '1:10'],
  ['def f(x: (i32, float)): pass', 'E117', "unknown element type 'float'", '1:16'],
  [F + '  y = a < b < c\n', 'E118', "write 'a < b and b < c'", '2:13'],
  [F + '  for i in xs:\n    pass', 'E119', "expected 'range(…)' after 'in'", '2:12'],
  [F + '  for i in range(1, 2, 3, 4):\n    pass', 'E119', "'range' takes 1 to 3 arguments, got 4", '2:17'],
  [F + '  for i in range():\n    pass', 'E119', "'range' takes 1 to 3 arguments, got 0", '2:17'],
  [F + '  for i range(3): pass', 'E111', "expected 'in' after the loop variable", '2:9'],
  [F + '  def g(): pass', 'E120', "a 'def' cannot appear inside another 'def'", '2:3'],
  [F + '  else:\n    pass', 'E121', "'else' without a matching 'if'", '2:3'],
  [F + '  elif x: pass', 'E121', "'elif' without a matching 'if'", '2:3'],
  ['def lambda(x): pass', 'E122', "'lambda' is a keyword and cannot be used as a name", '1:5'],
  [F + '  for in in range(3): pass', 'E122', "'in' is a keyword", '2:7'],
  [F + '  y = lam if: 1', 'E122', "'if' is a keyword and cannot be used as a parameter name", '2:11'],
  [F + '  x += 1', 'E123', "'+=' is not supported", '2:5'],
  [F + '  x &= 1', 'E123', "'&=' is not supported; names are bound once per value: write 'x = x & …'", '2:5'],
  [F + '  x <<= 1', 'E123', "write 'x = x << …'", '2:5'],
  [F + '  x >>= 1', 'E123', "write 'x = x >> …'", '2:5'],
  [F + `  y = ${'('.repeat(250)}x${')'.repeat(250)}`, 'E124', 'nested more than 200 levels deep', '2:206'],
];

describe('syntax errors', () => {
  it.each(errorCases)('%j  ⟶  %s %s at %s', (source, code, fragment, at) => {
    const errors = parseErrors(source);
    expect(errors.length, `expected an error, parsed fine: ${source}`).toBeGreaterThan(0);
    const [first] = errors;
    expect(first).toContain(`${code} ${at} `);
    expect(first).toContain(fragment);
  });

  it('reports exactly one error for each broken statement, and none for the good ones around them', () => {
    const source = [
      'def f(x):', //                        1
      '  y = x $ 1', //                      2  unknown character
      '  z = (y +', //                       3  unclosed (
      '  w = 1 2', //                        4  stray token
      '  if w', //                           5  missing ':'
      '    v = +', //                        6  (in the skipped block, still checked)
      '  return y', //                       7
      'def g(a):', //                        8
      '  b = a <', //                        9
      '  return b', //                       10
      'def h(a) pass', //                    11
    ].join('\n');
    expect(parseErrors(source).map((e) => e.split(' ').slice(0, 2).join(' '))).toEqual([
      'E100 2:9',
      'E103 3:7',
      'E111 4:9',
      'E111 5:7',
      'E110 6:10',
      'E110 9:10',
      'E111 11:10',
    ]);
  });

  it('keeps a wrongly dedented line in its block, so the block and the next def still parse', () => {
    const source = ['def f(x):', '    y = 1', '  z = 2', '  w = 3', '    return y', 'def g(): pass', 'def h(: pass'].join('\n');
    expect(parseErrors(source).map((e) => e.split(' ').slice(0, 2).join(' '))).toEqual(['E102 3:3', 'E103 7:6']);
  });

  it('renders as file:line:col: error[code]: message, with a caret under the token', () => {
    const file = new SourceFile('prog.fuse', 'def f(x):\n  y = x $ 1\n');
    const error = catchUserError(() => parseModule(file));
    expect(error.diagnostics.map(renderDiagnostic)).toEqual([
      ["prog.fuse:2:9: error[E100]: unknown character '$'", '2 |   y = x $ 1', '            ^'].join('\n'),
    ]);
  });

  it('notes further unclosed brackets on the outermost one', () => {
    const error = catchUserError(() => parseModule(new SourceFile('a.fuse', 'def f(x):\n  y = f(g(h(x')));
    expect(error.diagnostics).toHaveLength(1);
    expect(error.diagnostics[0]!.notes).toEqual(['2 more brackets opened after it are not closed either']);
  });

  it('parseExpression reports errors the same way', () => {
    const error = catchUserError(() => parseExpression(new SourceFile('e', 'a +')));
    expect(error.code).toBe('E110');
    expect(() => parseExpression(new SourceFile('e', 'a b'))).toThrow(/expected the end of the expression/);
  });

  it('reads a long elif chain without running out of stack', () => {
    const body = '  if a: pass\n' + '  elif b: pass\n'.repeat(5000) + '  else: pass\n';
    expect(parseErrors(`def f(x):\n${body}`)).toEqual([]);
  });

  it('survives pathological nesting of every recursive construct', () => {
    const deep = 2000;
    const sources = [
      `x = ${'('.repeat(deep)}`,
      `x = ${'-'.repeat(deep)}1`,
      `x = ${'not '.repeat(deep)}a`,
      `x = ${'lam y: '.repeat(deep)}1`,
      `x = ${'a if b else '.repeat(deep)}c`,
      `x = ${'a ** '.repeat(deep)}c`,
      `x = xs${' ! -'.repeat(deep)}1`,
      `x = ${'f('.repeat(deep)}`,
      `x = ${'xs['.repeat(deep)}`,
      `x = lam ${'('.repeat(deep)}y`,
      `${'('.repeat(deep)}x = 1`,
      Array.from({ length: 400 }, (_, i) => `${' '.repeat(i)}if a:`).join('\n'),
    ];
    for (const body of sources) {
      const indented = body.split('\n').map((l) => `  ${l}`).join('\n');
      for (const text of [`def f(x):\n${indented}\n`, `def f(x: ${'('.repeat(deep)}f64): pass`]) {
        const errors = parseErrors(text);
        expect(errors.length).toBeGreaterThan(0);
      }
    }
  });
});

function catchUserError(run: () => unknown): UserError {
  try {
    run();
  } catch (e) {
    if (e instanceof UserError) return e;
    throw e;
  }
  throw new Error('expected a UserError');
}
