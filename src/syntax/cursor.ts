// A cursor over the token stream with the parser's error discipline: every error becomes a
// Diagnostic, then the `Abandon` signal unwinds to the statement loop, which skips the line.
// The grammar itself is in ./parser.ts.

import { CompilerBug, type Diagnostic, type SourceFile, type Span } from '../diagnostics/index.js';
import { SyntaxCode } from './codes.js';
import type { Keyword, Punct, Token } from './lexer.js';

/** Thrown after a diagnostic is recorded, to abandon the statement being parsed. */
export class Abandon {}

/** Bounds recursion so that pathological input is an error, not a stack overflow. */
export const MAX_NESTING = 200;

export class TokenCursor {
  readonly diagnostics: Diagnostic[] = [];
  protected pos = 0;
  protected depth = 0;

  constructor(
    protected readonly file: SourceFile,
    protected readonly tokens: readonly Token[],
  ) {
    if (tokens.length === 0 || tokens[tokens.length - 1]!.kind !== 'eof') {
      throw new CompilerBug('parser', 'token stream does not end with eof');
    }
  }

  protected peek(offset = 0): Token {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)]!;
  }

  protected advance(): Token {
    const token = this.peek();
    if (token.kind !== 'eof') this.pos += 1;
    return token;
  }

  protected isPunct(text: Punct, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'punct' && t.text === text;
  }

  protected isKeyword(text: Keyword, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'keyword' && t.text === text;
  }

  protected isLambdaKeyword(): boolean {
    return this.isKeyword('lambda') || this.isKeyword('lam') || this.isKeyword('λ');
  }

  /** Records an error at the current token and abandons the statement. */
  protected fail(code: SyntaxCode, message: string, span: Span = this.peek().span): never {
    if (!this.lineHasLexerError()) this.report(code, message, span);
    throw new Abandon();
  }

  /**
   * Whether the rest of this logical line holds an error the lexer reported (an unknown
   * character, an unclosed bracket): that error is the cause, so the parser stays silent,
   * keeping to one message per broken statement.
   */
  protected lineHasLexerError(): boolean {
    for (let i = this.pos; i < this.tokens.length; i++) {
      const kind = this.tokens[i]!.kind;
      if (kind === 'invalid') return true;
      if (kind === 'newline' || kind === 'eof') return false;
    }
    return false;
  }

  protected report(code: SyntaxCode, message: string, span: Span): void {
    this.diagnostics.push({ code, message, file: this.file, span });
  }

  protected expectPunct(text: Punct, message: string): Token {
    if (!this.isPunct(text)) this.fail(SyntaxCode.expectedToken, message);
    return this.advance();
  }

  protected expectKeyword(text: Keyword, message: string): Token {
    if (!this.isKeyword(text)) this.fail(SyntaxCode.expectedToken, message);
    return this.advance();
  }

  protected expectName(what: string): { name: string; span: Span } {
    const t = this.peek();
    if (t.kind === 'name') {
      this.advance();
      return { name: t.text, span: t.span };
    }
    if (t.kind === 'keyword') this.fail(SyntaxCode.keywordAsName, `'${t.text}' is a keyword and cannot be used as ${what}`);
    return this.fail(SyntaxCode.expectedToken, `expected ${what}`);
  }

  protected nested<T>(parse: () => T): T {
    if (this.depth >= MAX_NESTING) this.fail(SyntaxCode.nestingTooDeep, `nested more than ${MAX_NESTING} levels deep (blocks, brackets and operators count together)`);
    this.depth += 1;
    try {
      return parse();
    } finally {
      this.depth -= 1;
    }
  }

  protected skipLine(): void {
    for (;;) {
      const t = this.peek();
      if (t.kind === 'eof') return;
      // Layout tokens only ever follow a newline, so a line never contains them.
      if (t.kind === 'indent' || t.kind === 'dedent') return;
      this.advance();
      if (t.kind === 'newline') return;
    }
  }

  protected atStatementEnd(): boolean {
    const k = this.peek().kind;
    return k === 'newline' || k === 'eof' || k === 'dedent';
  }

  protected position(span: Span): string {
    const { line, col } = this.file.lineCol(span.start);
    return `${line}:${col}`;
  }
}
