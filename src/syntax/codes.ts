// The syntax stage's diagnostic codes (E100–E199) by name, so that the parser says what it
// reports: tests and docs refer to them by name, messages are written where they are raised.
// The codes and their titles are registered in src/diagnostics/codes.ts; `satisfies` makes a
// name mapped to an unregistered code a type error.

import type { DiagnosticCode } from '../diagnostics/index.js';

export const SyntaxCode = {
  /** A character that starts no token: `$`, `?`, a stray `.`. */
  unknownCharacter: 'E100',
  /** A tab character in a line's indentation. */
  tabInIndentation: 'E101',
  /** A dedent to a column that matches no enclosing block. */
  inconsistentDedent: 'E102',
  /** A `(` or `[` never closed. */
  unclosedBracket: 'E103',
  /** A `)` or `]` that closes nothing, or the wrong kind of bracket. */
  unmatchedBracket: 'E104',
  /** `1e`, `12abc`, `1.2.3`. */
  malformedNumber: 'E105',
  /** An expression was expected here. */
  expectedExpression: 'E110',
  /** A particular token was expected (`:` after the parameter list, `)`, a name, …). */
  expectedToken: 'E111',
  /** A line is indented where no block starts. */
  unexpectedIndent: 'E112',
  /** A `:` ends a line but no indented block follows. */
  expectedIndentedBlock: 'E113',
  /** The left of `=` (or a lambda parameter) is not a name or a tuple of names. */
  invalidTarget: 'E114',
  /** An expression on a line of its own: its value would be lost. */
  expressionStatement: 'E115',
  /** A statement outside any `def`. */
  statementOutsideDef: 'E116',
  /** A type annotation names no element type. */
  unknownElementType: 'E117',
  /** `a < b < c`: chained comparisons are not part of the language. */
  chainedComparison: 'E118',
  /** `for` whose iterable is not `range(…)` with one to three arguments. */
  badForLoop: 'E119',
  /** A `def` inside a `def`. */
  nestedDef: 'E120',
  /** `elif` / `else` with no `if` before it. */
  danglingElse: 'E121',
  /** A keyword used where a name is required (`def lambda(…)`). */
  keywordAsName: 'E122',
  /** `x += 1` and friends. */
  augmentedAssignment: 'E123',
  /** Brackets or operators nested beyond what the parser accepts. */
  nestingTooDeep: 'E124',
  /** Two parameters of one `def` or lambda with the same name. */
  duplicateParameter: 'E125',
} as const satisfies Readonly<Record<string, DiagnosticCode>>;

export type SyntaxCode = (typeof SyntaxCode)[keyof typeof SyntaxCode];
