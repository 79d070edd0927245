// The syntax stage's public face: `.fuse` text → surface AST, or a UserError listing every
// syntax error in the file (lexer and parser diagnostics together, in source order).

import { CompilerBug, UserError, capDiagnostics, type Diagnostic, type SourceFile } from '../diagnostics/index.js';
import type { Expr, Module } from './ast.js';
import { SyntaxCode } from './codes.js';
import { checkExpressionDepth, tooDeep, MAX_EXPRESSION_DEPTH } from './depth.js';
import { lex } from './lexer.js';
import { parseExpressionTokens, parseModuleTokens } from './parser.js';

export type * from './ast.js';
export { SyntaxCode } from './codes.js';
export { lex, type Token, type LexResult } from './lexer.js';

/** Parses a whole file. Throws a UserError carrying all the diagnostics found, and nothing else. */
export function parseModule(file: SourceFile): Module {
  const lexed = lex(file);
  const parsed = parseModuleTokens(file, lexed.tokens);
  throwIfAny([...lexed.diagnostics, ...parsed.diagnostics]);
  throwIfAny(checkExpressionDepth(file, parsed.value));
  return parsed.value;
}

/** Parses the whole text as one expression (`a, b` is a tuple). Throws like parseModule. */
export function parseExpression(file: SourceFile): Expr {
  const lexed = lex(file);
  const parsed = parseExpressionTokens(file, lexed.tokens);
  throwIfAny([...lexed.diagnostics, ...parsed.diagnostics]);
  if (parsed.value === null) throw new CompilerBug('parser', 'an expression was abandoned without a diagnostic');
  if (tooDeep(parsed.value) !== null) {
    throwIfAny([{ code: SyntaxCode.nestingTooDeep, message: `expression nested more than ${MAX_EXPRESSION_DEPTH} levels deep`, file, span: parsed.value.span }]);
  }
  return parsed.value;
}

function throwIfAny(diagnostics: readonly Diagnostic[]): void {
  if (diagnostics.length === 0) return;
  const ordered = [...diagnostics].sort((a, b) => (a.span?.start ?? 0) - (b.span?.start ?? 0));
  throw new UserError(capDiagnostics(ordered));
}
