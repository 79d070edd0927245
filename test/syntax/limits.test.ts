// Depth limits instead of stack overflows (issue 9, C6 and D5): long operator chains, deep
// blocks, floods of errors and very long lines each give a bounded, located diagnostic.

import { expect, it } from 'vitest';
import { SourceFile, UserError, diagnosticPosition, maxEchoedLine, renderDiagnostic } from '../../src/diagnostics/index.js';
import { parseModule } from '../../src/syntax/index.js';

function syntaxErrors(text: string): UserError {
  try {
    parseModule(new SourceFile('t.fuse', text));
  } catch (e) {
    if (e instanceof UserError) return e;
    throw e;
  }
  throw new Error('expected syntax errors');
}

const nestedIfs = (n: number, step = 1): string =>
  ['def main(xs):', ...Array.from({ length: n }, (_, i) => `${' '.repeat((i + 1) * step)}if xs[0] > 0.0:`), `${' '.repeat((n + 1) * step)}xs = xs`, `${' '.repeat(step)}return xs`].join('\n');

const cases: [string, string, string, string, number][] = [
  // [what, source, code, line:col, number of diagnostics]
  ['10^5 terms of +', `def main(xs):\n  return ${Array(100000).fill('1').join(' + ')}\n`, 'E124', '2:10', 1],
  ['xs ! 0 10^4 times', `def main(xs):\n  return xs${' ! 0'.repeat(10000)}\n`, 'E124', '2:10', 1],
  ['1,001 calls f(x)(x)…', `def main(xs):\n  return f${'(x)'.repeat(1001)}\n`, 'E124', '2:10', 1],
  ['a chain of 1,000 in a lambda', `def main(xs):\n  return map(lam x: x${' + 1.0'.repeat(1000)}, xs)\n`, 'E124', '2:10', 1],
  ['1,000 nested ifs: one error', nestedIfs(1000, 2), 'E124', '200:405', 1],
  ['20,000 nested ifs', nestedIfs(20000), 'E124', '200:206', 1],
];

it.each(cases)('%s', (_, text, code, at, count) => {
  const e = syntaxErrors(text);
  expect(e.diagnostics.length).toBe(count);
  expect({ code: e.diagnostics[0]!.code, at: diagnosticPosition(e.diagnostics[0]!) }).toEqual({ code, at });
  expect(e.diagnostics[0]!.message).toContain('levels deep');
});

it('accepts an expression 1,000 levels deep (999 operators)', () => {
  expect(() => parseModule(new SourceFile('t.fuse', `def main(xs):\n  return ${'1 + '.repeat(999)}1\n`))).not.toThrow();
  expect(syntaxErrors(`def main(xs):\n  return ${'1 + '.repeat(1000)}1\n`).diagnostics[0]!.code).toBe('E124');
});

it('reports at most 50 errors and says how many more', () => {
  const e = syntaxErrors(`def main(xs):\n${'  y = $\n'.repeat(3000)}  return xs\n`);
  expect(e.diagnostics.length).toBe(50);
  expect(e.diagnostics[49]!.notes).toEqual(['2950 more errors not shown']);
});

it('echoes a window of a very long line around the caret, not the line', () => {
  const text = `def main(xs):\n  y = ${'1.0 + '.repeat(140000)}$\n  return y\n`;
  const e = syntaxErrors(text);
  const rendered = renderDiagnostic(e.diagnostics[0]!);
  expect(rendered.length).toBeLessThan(3 * maxEchoedLine + 200);
  const [, source, caret] = rendered.split('\n');
  expect(source!.endsWith('1.0 + $')).toBe(true);
  expect(caret!.indexOf('^')).toBe(source!.indexOf('$'));
});
