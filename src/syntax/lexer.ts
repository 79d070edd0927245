// The `.fuse` lexer: source text → tokens, with Python's layout rules turned into explicit
// `newline` / `indent` / `dedent` tokens so that the parser never looks at columns.
//
// Layout (as in Python): a logical line ends at a line break outside brackets; inside `(…)` and
// `[…]`, and after a `\` at the end of a line, line breaks are ignored. Blank and comment-only
// lines produce nothing. The indentation of each logical line is compared with a stack of open
// block columns: deeper pushes (`indent`), shallower pops (`dedent`s).
//
// The lexer never stops at an error: it records a diagnostic and keeps going, so that one run
// reports every problem in the file. Where an error would otherwise make the parser complain a
// second time about the same spot, the lexer emits an `invalid` token there; the parser treats
// `invalid` as "already reported" and recovers silently.

import type { Diagnostic, SourceFile, Span } from '../diagnostics/index.js';
import { SyntaxCode } from './codes.js';

export type Keyword =
  | 'def' | 'return' | 'if' | 'elif' | 'else' | 'while' | 'for' | 'in' | 'pass'
  | 'lambda' | 'lam' | 'λ' | 'and' | 'or' | 'not' | 'True' | 'False' | 'true' | 'false';

/** Operators and punctuation, longest first where one is a prefix of another. */
export type Punct =
  | '<<=' | '>>='
  | '**' | '//' | '==' | '!=' | '<=' | '>=' | '->' | '<<' | '>>'
  | '+=' | '-=' | '*=' | '/=' | '%=' | '&=' | '|=' | '^='
  | '+' | '-' | '*' | '/' | '%' | '<' | '>' | '=' | '!'
  | '&' | '|' | '^' | '~'
  | '(' | ')' | '[' | ']' | ',' | ':';

export type Token =
  | { readonly kind: 'name'; readonly text: string; readonly span: Span }
  | { readonly kind: 'keyword'; readonly text: Keyword; readonly span: Span }
  | { readonly kind: 'number'; readonly text: string; readonly isFloat: boolean; readonly span: Span }
  | { readonly kind: 'punct'; readonly text: Punct; readonly span: Span }
  | { readonly kind: 'newline'; readonly span: Span }
  | { readonly kind: 'indent'; readonly span: Span }
  | { readonly kind: 'dedent'; readonly span: Span }
  /** Marks a spot where the lexer already reported an error. */
  | { readonly kind: 'invalid'; readonly span: Span }
  | { readonly kind: 'eof'; readonly span: Span };

export interface LexResult {
  readonly tokens: readonly Token[];
  readonly diagnostics: readonly Diagnostic[];
}

const keywords: ReadonlySet<string> = new Set<Keyword>([
  'def', 'return', 'if', 'elif', 'else', 'while', 'for', 'in', 'pass',
  'lambda', 'lam', 'and', 'or', 'not', 'True', 'False', 'true', 'false',
]);

const puncts: readonly Punct[] = [
  '<<=', '>>=',
  '**', '//', '==', '!=', '<=', '>=', '->', '<<', '>>', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=',
  '+', '-', '*', '/', '%', '<', '>', '=', '!', '&', '|', '^', '~', '(', ')', '[', ']', ',', ':',
];

/**
 * Keywords that can only begin a statement. Seeing one first on a line inside brackets means
 * a bracket was left open: the lexer closes it there so the rest of the file still parses.
 */
const statementOnlyKeywords: ReadonlySet<string> = new Set(['def', 'return', 'while', 'for', 'pass', 'elif']);

/** `name =` or `a, b =` at the start of a line: an assignment, never valid inside brackets. */
const assignmentStart = /^[A-Za-z_][A-Za-z0-9_]*\s*(,\s*[A-Za-z_][A-Za-z0-9_]*\s*)*=(?!=)/;

const LAMBDA_CHAR = 'λ';

function isIdentStart(ch: string): boolean {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch === '_' || (ch > '\x7f' && ch !== LAMBDA_CHAR && /\p{L}/u.test(ch));
}

function isIdentPart(ch: string): boolean {
  return isIdentStart(ch) || isDigit(ch);
}

function isDigit(ch: string): boolean {
  return ch >= '0' && ch <= '9';
}

/** One indentation level: its column, and a column accepted as equal after a bad dedent. */
interface Level {
  readonly col: number;
  readonly alias: number | null;
}

interface OpenBracket {
  readonly char: '(' | '[';
  readonly span: Span;
}

/** Tokenises a whole file. Never throws for any input. */
export function lex(file: SourceFile): LexResult {
  const text = file.text;
  const tokens: Token[] = [];
  const diagnostics: Diagnostic[] = [];
  const levels: Level[] = [{ col: 0, alias: null }];
  let brackets: OpenBracket[] = [];
  // A byte-order mark, as some editors write at the start of UTF-8 files, is not content.
  let pos = text.startsWith('\uFEFF') ? 1 : 0;
  let atLineStart = true;
  let lineHasTokens = false;

  const report = (code: SyntaxCode, message: string, span: Span): void => {
    diagnostics.push({ code, message, file, span });
  };
  const push = (token: Token): void => {
    tokens.push(token);
    if (token.kind !== 'newline' && token.kind !== 'indent' && token.kind !== 'dedent') lineHasTokens = true;
  };
  const endLogicalLine = (at: number): void => {
    if (lineHasTokens) tokens.push({ kind: 'newline', span: { start: at, end: at } });
    lineHasTokens = false;
    atLineStart = true;
  };

  /**
   * Reports the open brackets as unclosed and forgets them; marks the spot for the parser.
   * One diagnostic, at the outermost (the fix may well close the inner ones), notes the rest.
   */
  const closeAllBrackets = (at: number): void => {
    const outer = brackets[0];
    if (outer !== undefined) {
      const more = brackets.length - 1;
      const notes = more > 0 ? [`${more} more bracket${more > 1 ? 's' : ''} opened after it ${more > 1 ? 'are' : 'is'} not closed either`] : undefined;
      diagnostics.push({ code: SyntaxCode.unclosedBracket, message: `unclosed '${outer.char}' opened here`, file, span: outer.span, notes });
    }
    brackets = [];
    push({ kind: 'invalid', span: { start: at, end: at } });
  };

  /** Reads indentation at a line start; returns false for a blank or comment-only line. */
  const readIndentation = (): boolean => {
    let col = 0;
    let tabReported = false;
    let p = pos;
    for (;;) {
      const ch = text[p];
      if (ch === ' ') col += 1;
      else if (ch === '\t') {
        if (!tabReported) {
          report(SyntaxCode.tabInIndentation, 'unexpected tab in indentation; indent with spaces', { start: p, end: p + 1 });
          tabReported = true;
        }
        col = col - (col % 8) + 8;
      } else if (ch === '\f' || ch === '\r') {
        // Form feeds and carriage returns do not move the column.
      } else break;
      p += 1;
    }
    pos = p;
    const ch = text[p];
    if (ch === undefined || ch === '\n' || ch === '#') return false;
    if (ch === '\\' && isLineContinuation(text, p)) return false;
    applyIndentation(col, p);
    return true;
  };

  const applyIndentation = (col: number, at: number): void => {
    const here: Span = { start: at, end: at };
    const top = (): Level => levels[levels.length - 1]!;
    // Close the blocks this line is at or left of the enclosing column of.
    while (levels.length > 1 && col <= levels[levels.length - 2]!.col) {
      levels.pop();
      tokens.push({ kind: 'dedent', span: here });
    }
    const current = top();
    if (col === current.col || col === current.alias) return;
    if (col > current.col) {
      levels.push({ col, alias: null });
      tokens.push({ kind: 'indent', span: here });
      return;
    }
    // Left of the current block but right of the enclosing one: keep the line in the current
    // block, and accept this column for it from now on, so that the block's next lines
    // (probably written at the same wrong column) do not cascade into more errors.
    report(SyntaxCode.inconsistentDedent, 'unindent does not match any outer indentation level', here);
    levels[levels.length - 1] = { col: current.col, alias: col };
  };

  while (pos < text.length) {
    if (atLineStart && brackets.length === 0) {
      atLineStart = false;
      if (!readIndentation()) {
        skipRestOfLine();
        continue;
      }
    }
    const ch = text[pos]!;
    const start = pos;

    if (ch === '\n') {
      pos += 1;
      if (brackets.length === 0) endLogicalLine(start);
      else checkForUnclosedBracket(start);
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\r' || ch === '\f') {
      pos += 1;
      continue;
    }
    if (ch === '#') {
      while (pos < text.length && text[pos] !== '\n') pos += 1;
      continue;
    }
    if (ch === '\\' && isLineContinuation(text, pos)) {
      pos = text.indexOf('\n', pos) + 1;
      continue;
    }
    if (ch === LAMBDA_CHAR) {
      pos += 1;
      push({ kind: 'keyword', text: 'λ', span: { start, end: pos } });
      continue;
    }
    if (isIdentStart(ch)) {
      while (pos < text.length && isIdentPart(text[pos]!)) pos += 1;
      const word = text.slice(start, pos);
      const span = { start, end: pos };
      push(keywords.has(word) ? { kind: 'keyword', text: word as Keyword, span } : { kind: 'name', text: word, span });
      continue;
    }
    if (isDigit(ch) || (ch === '.' && isDigit(text[pos + 1] ?? ''))) {
      lexNumber();
      continue;
    }
    const punct = puncts.find((p) => text.startsWith(p, pos));
    if (punct !== undefined) {
      pos += punct.length;
      const span = { start, end: pos };
      if (punct === '(' || punct === '[') {
        brackets.push({ char: punct, span });
        push({ kind: 'punct', text: punct, span });
      } else if (punct === ')' || punct === ']') {
        closeBracket(punct, span);
      } else push({ kind: 'punct', text: punct, span });
      continue;
    }
    // Anything else: one code point the language has no use for.
    const cp = text.codePointAt(pos)!;
    const width = cp > 0xffff ? 2 : 1;
    pos += width;
    report(SyntaxCode.unknownCharacter, `unknown character '${String.fromCodePoint(cp)}'`, { start, end: pos });
    push({ kind: 'invalid', span: { start, end: pos } });
  }

  if (brackets.length > 0) closeAllBrackets(text.length);
  endLogicalLine(text.length);
  const eofSpan = { start: text.length, end: text.length };
  for (let i = levels.length - 1; i > 0; i--) tokens.push({ kind: 'dedent', span: eofSpan });
  tokens.push({ kind: 'eof', span: eofSpan });
  return { tokens, diagnostics };

  function skipRestOfLine(): void {
    while (pos < text.length && text[pos] !== '\n') pos += 1;
    if (pos < text.length) pos += 1;
    atLineStart = true;
  }

  /** Inside brackets at a line break: a line that can only be a new statement closes them. */
  function checkForUnclosedBracket(lineBreak: number): void {
    let p = lineBreak + 1;
    while (text[p] === ' ' || text[p] === '\t' || text[p] === '\r' || text[p] === '\f') p += 1;
    const rest = text.slice(p, Math.min(text.length, p + 200));
    const word = /^[A-Za-z_]+/.exec(rest)?.[0];
    const startsStatement =
      (word !== undefined && statementOnlyKeywords.has(word) && !isIdentPart(rest[word.length] ?? '')) || assignmentStart.test(rest);
    if (!startsStatement) return;
    closeAllBrackets(lineBreak);
    endLogicalLine(lineBreak);
  }

  function closeBracket(closer: ')' | ']', span: Span): void {
    const opener = closer === ')' ? '(' : '[';
    const top = brackets[brackets.length - 1];
    if (top !== undefined && top.char === opener) {
      brackets.pop();
      push({ kind: 'punct', text: closer, span });
      return;
    }
    if (top === undefined) report(SyntaxCode.unmatchedBracket, `unmatched '${closer}'`, span);
    else {
      report(SyntaxCode.unmatchedBracket, `'${closer}' does not match the '${top.char}' opened at ${describe(top.span)}`, span);
      // If it matches an outer bracket, assume the inner ones were left open by mistake;
      // otherwise assume it was meant to close the innermost one.
      const index = brackets.map((b) => b.char).lastIndexOf(opener);
      brackets = brackets.slice(0, index >= 0 ? index : brackets.length - 1);
    }
    push({ kind: 'invalid', span });
  }

  function describe(span: Span): string {
    const { line, col } = file.lineCol(span.start);
    return `${line}:${col}`;
  }

  function lexNumber(): void {
    const start = pos;
    let isFloat = false;
    while (isDigit(text[pos] ?? '')) pos += 1;
    if (text[pos] === '.') {
      isFloat = true;
      pos += 1;
      while (isDigit(text[pos] ?? '')) pos += 1;
    }
    let malformed = false;
    if (text[pos] === 'e' || text[pos] === 'E') {
      isFloat = true;
      pos += 1;
      if (text[pos] === '+' || text[pos] === '-') pos += 1;
      if (!isDigit(text[pos] ?? '')) malformed = true;
      while (isDigit(text[pos] ?? '')) pos += 1;
    }
    // `12abc`, `1.2.3`: swallow the rest of the word so it is reported once.
    while (pos < text.length && (isIdentPart(text[pos]!) || (text[pos] === '.' && isDigit(text[pos + 1] ?? '')))) {
      malformed = true;
      pos += 1;
    }
    const span = { start, end: pos };
    if (malformed) {
      report(SyntaxCode.malformedNumber, `malformed number '${text.slice(start, pos)}'`, span);
      push({ kind: 'invalid', span });
    } else push({ kind: 'number', text: text.slice(start, pos), isFloat, span });
  }
}

/** A `\` followed only by spaces/`\r` and a line break joins the next line to this one. */
function isLineContinuation(text: string, pos: number): boolean {
  let p = pos + 1;
  while (text[p] === '\r' || text[p] === ' ') p += 1;
  return text[p] === '\n';
}
