// The lexer's layout rules and token shapes, rendered compactly: `⏎` newline, `→` indent,
// `←` dedent, `✗` invalid; numbers as `n:text` (`f:text` for floats); keywords as `kw:text`.

import { describe, expect, it } from 'vitest';
import { SourceFile } from '../../src/diagnostics/index.js';
import { lex, type Token } from '../../src/syntax/index.js';

function render(token: Token): string {
  switch (token.kind) {
    case 'name':
    case 'punct':
      return token.text;
    case 'keyword':
      return `kw:${token.text}`;
    case 'number':
      return `${token.isFloat ? 'f' : 'n'}:${token.text}`;
    case 'newline':
      return '⏎';
    case 'indent':
      return '→';
    case 'dedent':
      return '←';
    case 'invalid':
      return '✗';
    case 'eof':
      return 'eof';
    default:
      return token satisfies never;
  }
}

function tokens(text: string): string {
  return lex(new SourceFile('t', text)).tokens.map(render).join(' ');
}

const cases: ReadonlyArray<readonly [string, string]> = [
  ['', 'eof'],
  ['x', 'x ⏎ eof'],
  ['\uFEFFdef', 'kw:def ⏎ eof'],
  ['# only a comment\n\n   \n', 'eof'],
  ['a\nb\n', 'a ⏎ b ⏎ eof'],
  ['a\n  b\n  c\nd', 'a ⏎ → b ⏎ c ⏎ ← d ⏎ eof'],
  ['a\n  b\n    c', 'a ⏎ → b ⏎ → c ⏎ ← ← eof'],
  ['a\n  b\n\n  # comment at another depth\n      # and another\n  c', 'a ⏎ → b ⏎ c ⏎ ← eof'],
  ['f(a,\n      b)\nc', 'f ( a , b ) ⏎ c ⏎ eof'],
  ['x = [1,\n2]', 'x = [ n:1 , n:2 ] ⏎ eof'],
  ['a + \\\n  b', 'a + b ⏎ eof'],
  ['a\r\n  b\r\n', 'a ⏎ → b ⏎ ← eof'],
  ['1 23 1.0 .5 2. 1e3 1E-3 2.5e+10', 'n:1 n:23 f:1.0 f:.5 f:2. f:1e3 f:1E-3 f:2.5e+10 ⏎ eof'],
  ['xs!0 js!=k', 'xs ! n:0 js != k ⏎ eof'],
  ['** // == != <= >= -> + - * / % < > = ! ( ) [ ] , :', '** // == != <= >= -> + - * / % < > = ! ( ) [ ] , : ⏎ eof'],
  ['lam λx lambda as is in', 'kw:lam kw:λ x kw:lambda as is kw:in ⏎ eof'],
  ['True False true false None', 'kw:True kw:False kw:true kw:false None ⏎ eof'],
  ['αβ = x_1', 'αβ = x_1 ⏎ eof'],
  ['a $ b', 'a ✗ b ⏎ eof'],
  ['f(a', 'f ( a ✗ ⏎ eof'],
  ['a)', 'a ✗ ⏎ eof'],
  ['f(a\nreturn b', 'f ( a ✗ ⏎ kw:return b ⏎ eof'],
  ['f(a\ny = 2', 'f ( a ✗ ⏎ y = n:2 ⏎ eof'],
  ['f(a\n == b)', 'f ( a == b ) ⏎ eof'],
];

describe('lexer', () => {
  it.each(cases)('%j  ⟶  %s', (source, expected) => {
    expect(tokens(source)).toBe(expected);
  });

  it('gives every token the span of its text', () => {
    const text = 'def f(xs):\n  return xs!0 + 1.5';
    const { tokens: list } = lex(new SourceFile('t', text));
    const texts = list.filter((t) => t.span.end > t.span.start).map((t) => text.slice(t.span.start, t.span.end));
    expect(texts).toEqual(['def', 'f', '(', 'xs', ')', ':', 'return', 'xs', '!', '0', '+', '1.5']);
  });

  it('counts a code point outside the BMP as one unknown character', () => {
    const { diagnostics } = lex(new SourceFile('t', 'x = 😀'));
    expect(diagnostics.map((d) => [d.message, d.span])).toEqual([["unknown character '😀'", { start: 4, end: 6 }]]);
  });
});
