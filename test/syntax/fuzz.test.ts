// Fuzzing the front end: whatever the text, parseModule either returns a Module or throws a
// UserError whose diagnostics all carry a syntax code (E1xx) and a span inside the text; it
// never throws anything else (no TypeError, no stack overflow, no CompilerBug) and never hangs.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SourceFile, UserError, renderDiagnostic } from '../../src/diagnostics/index.js';
import { lex, parseExpression, parseModule } from '../../src/syntax/index.js';
import { spanProblems } from './spans.js';

const examplesDir = join(import.meta.dirname, '../../examples');
const examples = readdirSync(examplesDir)
  .filter((f) => f.endsWith('.fuse'))
  .sort()
  .map((f) => readFileSync(join(examplesDir, f), 'utf8'));

/** The property: `run` succeeds, or fails only with well-formed syntax diagnostics. */
function succeedsOrReportsCleanly(text: string, run: (file: SourceFile) => void): void {
  const file = new SourceFile('fuzz.fuse', text);
  try {
    run(file);
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    expect(e.diagnostics.length).toBeGreaterThan(0);
    for (const d of e.diagnostics) {
      expect(d.code).toMatch(/^E1\d\d$/);
      expect(d.file).toBe(file);
      expect(d.span).toBeDefined();
      expect(d.span!.start).toBeGreaterThanOrEqual(0);
      expect(d.span!.start).toBeLessThanOrEqual(d.span!.end);
      expect(d.span!.end).toBeLessThanOrEqual(text.length);
      expect(renderDiagnostic(d)).toMatch(/^fuzz\.fuse:\d+:\d+: error\[E1\d\d\]: /);
    }
  }
}

/** A module parses with well-formed spans, or fails cleanly. */
function moduleParsesOrReportsCleanly(text: string): void {
  succeedsOrReportsCleanly(text, (file) => expect(spanProblems(file, parseModule(file))).toEqual([]));
}

/** Fragments worth inserting: the language's own tokens and its layout characters. */
const vocabulary = [
  'def', 'return', 'if', 'elif', 'else', 'while', 'for', 'in', 'range', 'pass', 'lambda', 'lam', 'λ',
  'and', 'or', 'not', 'True', 'shape', 'size', 'x', '0', '1.5', '.5', '1e3', '+', '-', '*', '**',
  '/', '//', '%', '==', '<', '<=', '!', '=', '->', ':', ',', '(', ')', '[', ']', '#', '\\',
  '\n', '\n  ', '\n    ', '  ', '\t', '$', 'f64[n]', '(i32, f64)',
];

type Mutation =
  | { readonly kind: 'deleteChar'; readonly at: number }
  | { readonly kind: 'insert'; readonly at: number; readonly text: string }
  | { readonly kind: 'swapChars'; readonly at: number }
  | { readonly kind: 'deleteToken'; readonly at: number }
  | { readonly kind: 'duplicateToken'; readonly at: number }
  | { readonly kind: 'swapTokens'; readonly at: number; readonly other: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('deleteChar' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.oneof(fc.constantFrom(...vocabulary), fc.string({ maxLength: 3 })) }),
  fc.record({ kind: fc.constant('swapChars' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('deleteToken' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('duplicateToken' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('swapTokens' as const), at: fc.nat(), other: fc.nat() }),
);

function mutate(text: string, m: Mutation): string {
  const charAt = text.length === 0 ? 0 : m.at % text.length;
  // Tokens with text (not layout): their spans are where token-level edits apply.
  const spans = lex(new SourceFile('m', text)).tokens.filter((t) => t.span.end > t.span.start).map((t) => t.span);
  const token = spans.length === 0 ? null : spans[m.at % spans.length]!;
  switch (m.kind) {
    case 'deleteChar':
      return text.slice(0, charAt) + text.slice(charAt + 1);
    case 'insert':
      return text.slice(0, charAt) + m.text + text.slice(charAt);
    case 'swapChars':
      return charAt + 1 >= text.length ? text : text.slice(0, charAt) + text[charAt + 1] + text[charAt] + text.slice(charAt + 2);
    case 'deleteToken':
      return token === null ? text : text.slice(0, token.start) + text.slice(token.end);
    case 'duplicateToken':
      return token === null ? text : text.slice(0, token.end) + ' ' + text.slice(token.start, token.end) + text.slice(token.end);
    case 'swapTokens': {
      if (token === null) return text;
      const other = spans[m.other % spans.length]!;
      const [a, b] = token.start <= other.start ? [token, other] : [other, token];
      if (a.end > b.start) return text;
      return text.slice(0, a.start) + text.slice(b.start, b.end) + text.slice(a.end, b.start) + text.slice(a.start, a.end) + text.slice(b.end);
    }
    default:
      return m satisfies never;
  }
}

describe('fuzzing the parser', () => {
  it('random strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: fc.constantFrom(...vocabulary, ' ', 'a', '9', '\r', '"', "'") }), (text) => {
        moduleParsesOrReportsCleanly(text);
        succeedsOrReportsCleanly(text, (file) => void parseExpression(file));
      }),
      { numRuns: 400 },
    );
  });

  it('random unicode strings', () => {
    fc.assert(
      // Code points drawn directly, half of them ASCII (lone surrogates included): fast-check's 'binary' string
      // unit is slow to generate.
      fc.property(fc.array(fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0, max: 0x10ffff })), { maxLength: 100 }).map((cps) => String.fromCodePoint(...cps)), (text) => {
        moduleParsesOrReportsCleanly(text);
      }),
      { numRuns: 300 },
    );
  });

  it('random bytes decoded as UTF-8', () => {
    const decoder = new TextDecoder('utf-8', { fatal: false });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        moduleParsesOrReportsCleanly(decoder.decode(bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('mutations of the shared examples', () => {
    fc.assert(
      fc.property(fc.nat({ max: examples.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 6 }), (which, mutations) => {
        const text = mutations.reduce(mutate, examples[which]!);
        moduleParsesOrReportsCleanly(text);
      }),
      { numRuns: 600 },
    );
  });
});
