// The `.fuse` parser: tokens → surface AST (./ast.ts), by recursive descent with one function
// per precedence level (see "Expressions" below for the ladder).
//
// Error handling: every error is recorded as a Diagnostic and the parser carries on, so a file
// with several mistakes reports them all. A failed statement throws the `Abandon` signal
// (./cursor.ts), caught by the statement loop, which skips to the end of the logical line (and over
// the indented block the line opened, after parsing it for its own errors). A statement whose
// line holds an `invalid` token (an error the lexer already reported) is abandoned without a
// second message.

import { CompilerBug, joinSpans, type Diagnostic, type SourceFile, type Span } from '../diagnostics/index.js';
import type { BinaryOperator, Def, DefParam, ElemAnn, Expr, IfStmt, Module, Pattern, Stmt, TypeAnn } from './ast.js';
import { SyntaxCode } from './codes.js';
import { Abandon, MAX_NESTING, TokenCursor } from './cursor.js';
import type { Token } from './lexer.js';

export interface ParseResult<T> {
  readonly value: T;
  readonly diagnostics: readonly Diagnostic[];
}

export function parseModuleTokens(file: SourceFile, tokens: readonly Token[]): ParseResult<Module> {
  const parser = new Parser(file, tokens);
  const value = parser.module();
  return { value, diagnostics: parser.diagnostics };
}

/** Parses the tokens as one expression (a tuple if there are top-level commas). */
export function parseExpressionTokens(file: SourceFile, tokens: readonly Token[]): ParseResult<Expr | null> {
  const parser = new Parser(file, tokens);
  const value = parser.standaloneExpression();
  return { value, diagnostics: parser.diagnostics };
}

const elementTypeNames = ['f64', 'f32', 'i32', 'u32', 'u8', 'i8', 'bool'] as const;
type ElementTypeName = (typeof elementTypeNames)[number];

const comparisonOps: ReadonlySet<string> = new Set(['==', '!=', '<', '<=', '>', '>=']);

/** Tokens that may stand alone as a function (`fold(+, xs)`, `(*)`). */
const operatorRefs: ReadonlySet<string> = new Set<BinaryOperator>([
  '+', '-', '*', '/', '//', '%', '**', '==', '!=', '<', '<=', '>', '>=', '&', '|', '^', '<<', '>>', 'and', 'or',
]);

/** Names applied by juxtaposition, as the paper writes `shape xs` and `size xs`. */
const juxtaposedFunctions: ReadonlySet<string> = new Set(['shape', 'size']);

const augmentedOps: ReadonlySet<string> = new Set(['+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>=']);

class Parser extends TokenCursor {
  // ---------------------------------------------------------------- module and definitions

  module(): Module {
    const defs: Def[] = [];
    while (this.peek().kind !== 'eof') {
      const t = this.peek();
      if (t.kind === 'newline' || t.kind === 'dedent') {
        this.advance();
        continue;
      }
      if (t.kind === 'indent') {
        // An indented first line, or a stray indented block between defs: report it, then read
        // what is inside as if it were not indented.
        this.report(SyntaxCode.unexpectedIndent, 'unexpected indent', t.span);
        this.advance();
        continue;
      }
      const def = this.recovering(() => this.topLevelItem());
      if (def !== null) defs.push(def);
    }
    return { defs, span: { start: 0, end: this.file.text.length } };
  }

  private topLevelItem(): Def {
    if (this.isKeyword('def')) return this.def();
    const t = this.peek();
    return this.fail(SyntaxCode.statementOutsideDef, 'expected a definition: a file holds only `def`s, and statements belong inside one', t.span);
  }

  private def(): Def {
    const start = this.advance().span;
    const { name, span: nameSpan } = this.expectName("a name for the definition after 'def'");
    this.expectPunct('(', `expected '(' after the definition's name '${name}'`);
    const params: DefParam[] = [];
    while (!this.isPunct(')')) {
      params.push(this.defParam());
      if (!this.isPunct(',')) break;
      this.advance();
    }
    this.expectPunct(')', params.length === 0 ? "expected a parameter name or ')'" : "expected ',' or ')' in the parameter list");
    this.reportDuplicateParams(params.map((p) => ({ name: p.name, span: p.span })));
    let returnType: TypeAnn | null = null;
    if (this.isPunct('->')) {
      this.advance();
      returnType = this.typeAnn();
    }
    const colon = this.expectPunct(':', returnType === null ? "expected ':' after the parameter list" : "expected ':' after the return type");
    const body = this.suite('def');
    const last = body[body.length - 1];
    return { name, nameSpan, params, returnType, body, span: joinSpans(start, last?.span ?? colon.span) };
  }

  /** A name given to two parameters (`def main(x, x)`, `lam a, (b, a): …`): which one is meant? */
  private reportDuplicateParams(names: readonly { readonly name: string; readonly span: Span }[]): void {
    const seen = new Set<string>();
    for (const { name, span } of names) {
      if (seen.has(name)) this.report(SyntaxCode.duplicateParameter, `the parameter '${name}' is named twice`, span);
      seen.add(name);
    }
  }

  private defParam(): DefParam {
    const { name, span } = this.expectName('a parameter name');
    if (!this.isPunct(':')) return { name, type: null, span };
    this.advance();
    const type = this.typeAnn();
    return { name, type, span: joinSpans(span, type.span) };
  }

  private typeAnn(): TypeAnn {
    const elem = this.elemAnn();
    if (!this.isPunct('[')) return { kind: 'scalar', elem, span: elem.span };
    this.advance();
    const dims: string[] = [];
    for (;;) {
      const t = this.peek();
      if (t.kind === 'name' || (t.kind === 'number' && !t.isFloat)) dims.push(t.text);
      else this.fail(SyntaxCode.expectedToken, 'expected a dimension (a name or an integer) in the array type');
      this.advance();
      if (!this.isPunct(',')) break;
      this.advance();
      if (this.isPunct(']')) break;
    }
    const end = this.expectPunct(']', "expected ',' or ']' after the array type's dimensions").span;
    return { kind: 'array', elem, dims, span: joinSpans(elem.span, end) };
  }

  private elemAnn(): ElemAnn {
    return this.nested(() => {
      const t = this.peek();
      if (t.kind === 'punct' && t.text === '(') {
        this.advance();
        const elems: ElemAnn[] = [this.elemAnn()];
        while (this.isPunct(',')) {
          this.advance();
          if (this.isPunct(')')) break;
          elems.push(this.elemAnn());
        }
        const end = this.expectPunct(')', "expected ',' or ')' in the tuple type").span;
        return { kind: 'tuple', elems, span: joinSpans(t.span, end) };
      }
      if (t.kind === 'name' && (elementTypeNames as readonly string[]).includes(t.text)) {
        this.advance();
        return { kind: 'scalar', name: t.text as ElementTypeName, span: t.span };
      }
      if (t.kind === 'name') {
        return this.fail(SyntaxCode.unknownElementType, `unknown element type '${t.text}'; expected f64, f32, i32, u32, u8, i8, bool or a tuple of them`);
      }
      return this.fail(SyntaxCode.expectedToken, 'expected a type: f64, f32, i32, u32, u8, i8, bool or a tuple of them');
    });
  }

  // ---------------------------------------------------------------- statements

  /**
   * Runs `parse`; if it abandons, skips the rest of the logical line, and if that line opened
   * an indented block, parses the block for its own errors and drops it.
   */
  private recovering<T>(parse: () => T): T | null {
    const depth = this.depth;
    const reported = this.diagnostics.length;
    try {
      return parse();
    } catch (e) {
      if (!(e instanceof Abandon)) throw e;
      this.depth = depth;
      this.skipLine();
      // A block under a line that was too deep is deeper still: skip it, one error is enough.
      const tooDeep = this.diagnostics.slice(reported).some((d) => d.code === SyntaxCode.nestingTooDeep);
      if (this.peek().kind === 'indent') {
        if (tooDeep) this.skipBlock();
        else this.block();
      }
      return null;
    }
  }

  /** After a `:`: an indented block, or simple statements on the same line. */
  private suite(owner: string): Stmt[] {
    if (this.peek().kind !== 'newline') {
      const stmt = this.simpleStatement();
      this.endOfStatement();
      return [stmt];
    }
    this.advance();
    if (this.peek().kind !== 'indent') {
      this.report(SyntaxCode.expectedIndentedBlock, `expected an indented block after '${owner}'`, this.peek().span);
      return [];
    }
    return this.block();
  }

  /** `indent statement* dedent`. */
  private block(): Stmt[] {
    if (this.depth >= MAX_NESTING) {
      // One error for the whole too-deep block, which is skipped without recursing into it
      // (1,000 nested `if`s gave 800 errors, and 10^4 of them would overflow the stack).
      this.report(SyntaxCode.nestingTooDeep, `blocks nested more than ${MAX_NESTING} levels deep (blocks and brackets count together)`, this.peek().span);
      this.skipBlock();
      return [];
    }
    this.advance();
    const stmts: Stmt[] = [];
    this.depth += 1;
    try {
      while (this.peek().kind !== 'dedent' && this.peek().kind !== 'eof') {
        const t = this.peek();
        if (t.kind === 'indent') {
          this.report(SyntaxCode.unexpectedIndent, 'unexpected indent', t.span);
          stmts.push(...this.block());
          continue;
        }
        if (t.kind === 'newline') {
          this.advance();
          continue;
        }
        const stmt = this.recovering(() => this.statement());
        if (stmt !== null) stmts.push(stmt);
      }
    } finally {
      this.depth -= 1;
    }
    if (this.peek().kind === 'dedent') this.advance();
    return stmts;
  }

  /** Skips an indented block, its nested blocks included, up to and including its dedent. */
  private skipBlock(): void {
    let open = 0;
    do {
      const k = this.advance().kind;
      if (k === 'indent') open++;
      else if (k === 'dedent') open--;
      else if (k === 'eof') return;
    } while (open > 0);
  }

  private statement(): Stmt {
    const t = this.peek();
    if (t.kind === 'keyword') {
      switch (t.text) {
        case 'if':
          return this.ifStatement();
        case 'while':
          return this.whileStatement();
        case 'for':
          return this.forStatement();
        case 'def':
          return this.fail(SyntaxCode.nestedDef, "a 'def' cannot appear inside another 'def'; define it at the top level");
        case 'elif':
        case 'else':
          return this.fail(SyntaxCode.danglingElse, `'${t.text}' without a matching 'if' before it`);
        default:
          break;
      }
    }
    const stmt = this.simpleStatement();
    this.endOfStatement();
    return stmt;
  }

  private endOfStatement(): void {
    const t = this.peek();
    if (t.kind === 'newline') {
      this.advance();
      return;
    }
    if (t.kind === 'eof' || t.kind === 'dedent') return;
    if (t.kind === 'punct' && t.text === '=') {
      this.fail(SyntaxCode.expectedToken, "chained assignment 'a = b = e' is not supported; bind one name at a time");
    }
    this.fail(SyntaxCode.expectedToken, 'expected the end of the statement');
  }

  /** `pass`, `return e`, or an assignment. */
  private simpleStatement(): Stmt {
    const t = this.peek();
    if (t.kind === 'keyword' && t.text === 'pass') {
      this.advance();
      return { kind: 'pass', span: t.span };
    }
    if (t.kind === 'keyword' && t.text === 'return') {
      this.advance();
      if (this.atStatementEnd()) this.fail(SyntaxCode.expectedExpression, "expected a value after 'return'");
      const value = this.expressionList();
      return { kind: 'return', value, span: joinSpans(t.span, value.span) };
    }
    const target = this.expressionList();
    const next = this.peek();
    if (next.kind === 'punct' && augmentedOps.has(next.text)) {
      this.fail(SyntaxCode.augmentedAssignment, `'${next.text}' is not supported; names are bound once per value: write 'x = x ${next.text.slice(0, -1)} …'`);
    }
    if (next.kind === 'punct' && next.text === '=') {
      const pattern = this.toPattern(target);
      this.advance();
      if (this.atStatementEnd()) this.fail(SyntaxCode.expectedExpression, "expected a value after '='");
      const value = this.expressionList();
      return { kind: 'assign', target: pattern, value, span: joinSpans(pattern.span, value.span) };
    }
    if (this.atStatementEnd()) {
      return this.fail(
        SyntaxCode.expressionStatement,
        "this expression's value is not used: bind it with 'name = …' or return it",
        target.span,
      );
    }
    return this.fail(SyntaxCode.expectedToken, "expected '=' or the end of the statement");
  }

  /** Turns an expression written left of `=` into a binding pattern. */
  private toPattern(e: Expr): Pattern {
    switch (e.kind) {
      case 'name':
        return { kind: 'name', name: e.name, span: e.span };
      case 'tuple':
        return { kind: 'tuple', elems: e.elems.map((x) => this.toPattern(x)), span: e.span };
      case 'number':
      case 'bool':
      case 'binary':
      case 'unary':
      case 'ifexp':
      case 'call':
      case 'index':
      case 'bang':
      case 'lambda':
      case 'opref':
        return this.fail(SyntaxCode.invalidTarget, `cannot assign to ${describeExpr(e)}; the left of '=' must be a name or a tuple of names`, e.span);
      default:
        return e satisfies never;
    }
  }

  /** `if … elif … else …`; the `elif` chain is read in a loop so its length is unbounded. */
  private ifStatement(): IfStmt {
    const clauses: { start: Span; cond: Expr; then: Stmt[] }[] = [];
    let orelse: Stmt[] | null = null;
    do {
      const start = this.advance();
      const keyword = start.kind === 'keyword' ? start.text : 'if';
      const cond = this.expression();
      this.expectPunct(':', `expected ':' after the '${keyword}' condition`);
      clauses.push({ start: start.span, cond, then: this.suite(keyword) });
    } while (this.isKeyword('elif'));
    if (this.isKeyword('else')) {
      this.advance();
      this.expectPunct(':', "expected ':' after 'else'");
      orelse = this.suite('else');
    }
    // An `elif` is an IfStmt alone in the previous clause's `orelse` (see ast.ts).
    let result: IfStmt | null = null;
    for (let i = clauses.length - 1; i >= 0; i--) {
      const { start, cond, then } = clauses[i]!;
      const rest: readonly Stmt[] | null = result === null ? orelse : [result];
      const last: Stmt | undefined = rest?.[rest.length - 1] ?? then[then.length - 1];
      result = { kind: 'if', cond, then, orelse: rest, span: joinSpans(start, last?.span ?? cond.span) };
    }
    if (result === null) throw new CompilerBug('parser', 'an if statement without clauses');
    return result;
  }

  private whileStatement(): Stmt {
    const start = this.advance();
    const cond = this.expression();
    this.expectPunct(':', "expected ':' after the 'while' condition");
    const body = this.suite('while');
    return { kind: 'while', cond, body, span: joinSpans(start.span, body[body.length - 1]?.span ?? cond.span) };
  }

  private forStatement(): Stmt {
    const start = this.advance();
    const { name, span: varSpan } = this.expectName("a loop variable after 'for'");
    this.expectKeyword('in', "expected 'in' after the loop variable");
    const rangeName = this.peek();
    if (rangeName.kind !== 'name' || rangeName.text !== 'range' || !this.isPunct('(', 1)) {
      this.fail(SyntaxCode.badForLoop, "expected 'range(…)' after 'in': a 'for' loop counts over a range and is unrolled at compile time");
    }
    this.advance();
    const open = this.advance();
    const args = this.argumentList();
    const close = this.expectPunct(')', "expected ',' or ')' in the arguments of 'range'");
    if (args.length < 1 || args.length > 3) {
      this.fail(SyntaxCode.badForLoop, `'range' takes 1 to 3 arguments, got ${args.length}`, joinSpans(open.span, close.span));
    }
    this.expectPunct(':', "expected ':' after 'range(…)'");
    const body = this.suite('for');
    return { kind: 'for', var: name, varSpan, range: args, body, span: joinSpans(start.span, body[body.length - 1]?.span ?? close.span) };
  }

  // ---------------------------------------------------------------- expressions
  //
  // Precedence, loosest first (Python's, plus the paper's `!`):
  //   lambda < `a if c else b` < or < and < not < comparisons < + - < * / // %
  //   < unary - + < ** (right associative; `-x ** 2` is `-(x ** 2)`) < `xs ! i`
  //   < calls, subscripts and `shape xs` < atoms.

  standaloneExpression(): Expr | null {
    try {
      while (this.peek().kind === 'newline' || this.peek().kind === 'indent') this.advance();
      const e = this.expressionList();
      while (this.peek().kind === 'newline' || this.peek().kind === 'dedent') this.advance();
      if (this.peek().kind !== 'eof') this.fail(SyntaxCode.expectedToken, 'expected the end of the expression');
      return e;
    } catch (e) {
      if (e instanceof Abandon) return null;
      throw e;
    }
  }

  /** `e` or `e1, e2, …` (a tuple without parentheses), as after `return` and `=`. */
  private expressionList(): Expr {
    const first = this.expression();
    if (!this.isPunct(',')) return first;
    const elems = [first];
    let end = first.span;
    while (this.isPunct(',')) {
      end = this.advance().span;
      if (this.atStatementEnd() || this.isPunct('=')) break;
      const e = this.expression();
      elems.push(e);
      end = e.span;
    }
    return { kind: 'tuple', elems, span: joinSpans(first.span, end) };
  }

  /** A lambda or a conditional expression: what may stand between commas. */
  private expression(): Expr {
    return this.nested(() => (this.isLambdaKeyword() ? this.lambda() : this.conditional()));
  }

  private lambda(): Expr {
    const start = this.advance();
    const params = this.lambdaParams();
    if (!this.isPunct(':') && !this.isPunct('->')) this.fail(SyntaxCode.expectedToken, "expected ':' after the lambda's parameters");
    this.reportDuplicateParams(params.flatMap(patternNames));
    this.advance();
    const body = this.expression();
    return { kind: 'lambda', params, body, span: joinSpans(start.span, body.span) };
  }

  /**
   * `x, y`, `x y` (the paper's `λx y: e`), `(x, y)` (two parameters, as `lam(x, y)` is
   * written in the paper), `(a, b), c` (a tuple pattern, then a name).
   */
  private lambdaParams(): Pattern[] {
    if (this.isPunct('(')) {
      const group = this.patternGroup();
      if (this.isPunct(':') || this.isPunct('->')) return group.elems;
      if (!this.isPunct(',') && this.peek().kind !== 'name' && !this.isPunct('(')) {
        this.fail(SyntaxCode.expectedToken, "expected ':' after the lambda's parameters");
      }
      if (this.isPunct(',')) this.advance();
      return [group.pattern, ...this.patternList()];
    }
    if (this.isPunct(':')) this.fail(SyntaxCode.expectedToken, 'expected a parameter name: a lambda takes at least one parameter');
    return this.patternList();
  }

  /** Patterns separated by commas or juxtaposed, up to `:` / `->`. */
  private patternList(): Pattern[] {
    const patterns: Pattern[] = [this.pattern()];
    for (;;) {
      if (this.isPunct(',')) {
        this.advance();
        patterns.push(this.pattern());
      } else if (this.peek().kind === 'name' || this.isPunct('(')) {
        patterns.push(this.pattern());
      } else return patterns;
    }
  }

  private pattern(): Pattern {
    return this.nested(() => {
      const t = this.peek();
      if (t.kind === 'punct' && t.text === '(') return this.patternGroup().pattern;
      if (t.kind === 'name') {
        this.advance();
        return { kind: 'name', name: t.text, span: t.span };
      }
      if (t.kind === 'keyword') return this.fail(SyntaxCode.keywordAsName, `'${t.text}' is a keyword and cannot be used as a parameter name`);
      return this.fail(SyntaxCode.invalidTarget, 'expected a parameter name or a parenthesised tuple of them');
    });
  }

  /**
   * `( p, q … )`, commas optional between patterns, trailing comma allowed. As one pattern,
   * `(p)` is `p` itself (parentheses group, as in expressions) and `(p,)` is a 1-tuple.
   */
  private patternGroup(): { readonly elems: Pattern[]; readonly pattern: Pattern } {
    const open = this.advance();
    const elems: Pattern[] = [];
    let trailingComma = false;
    while (!this.isPunct(')')) {
      elems.push(this.pattern());
      trailingComma = this.isPunct(',');
      if (trailingComma) this.advance();
      else if (this.peek().kind !== 'name' && !this.isPunct('(')) break;
    }
    const close = this.expectPunct(')', "expected ',' or ')' in the parameters");
    const pattern: Pattern =
      elems.length === 1 && !trailingComma ? elems[0]! : { kind: 'tuple', elems, span: joinSpans(open.span, close.span) };
    return { elems, pattern };
  }

  private conditional(): Expr {
    const then = this.or();
    if (!this.isKeyword('if')) return then;
    this.advance();
    const cond = this.or();
    this.expectKeyword('else', "expected 'else' in the conditional expression 'a if c else b'");
    const otherwise = this.expression();
    return { kind: 'ifexp', cond, then, else: otherwise, span: joinSpans(then.span, otherwise.span) };
  }

  private or(): Expr {
    let lhs = this.and();
    while (this.isKeyword('or')) {
      this.advance();
      const rhs = this.and();
      lhs = { kind: 'binary', op: 'or', lhs, rhs, span: joinSpans(lhs.span, rhs.span) };
    }
    return lhs;
  }

  private and(): Expr {
    let lhs = this.not();
    while (this.isKeyword('and')) {
      this.advance();
      const rhs = this.not();
      lhs = { kind: 'binary', op: 'and', lhs, rhs, span: joinSpans(lhs.span, rhs.span) };
    }
    return lhs;
  }

  private not(): Expr {
    if (!this.isKeyword('not')) return this.comparison();
    const start = this.advance();
    const arg = this.nested(() => this.not());
    return { kind: 'unary', op: 'not', arg, span: joinSpans(start.span, arg.span) };
  }

  private comparison(): Expr {
    const lhs = this.bitOr();
    const op = this.peek();
    if (op.kind !== 'punct' || !comparisonOps.has(op.text)) return lhs;
    this.advance();
    const rhs = this.bitOr();
    const next = this.peek();
    if (next.kind === 'punct' && comparisonOps.has(next.text)) {
      this.fail(
        SyntaxCode.chainedComparison,
        `chained comparisons are not supported; write 'a ${op.text} b and b ${next.text} c'`,
      );
    }
    return { kind: 'binary', op: op.text as BinaryOperator, lhs, rhs, span: joinSpans(lhs.span, rhs.span) };
  }

  // Bit operations, Python's ladder: `|` looser than `^` looser than `&` looser than shifts,
  // all between comparisons and `+`/`-` (so `x & 1 == 0` is `(x & 1) == 0`, and
  // `1 << n - 1` is `1 << (n - 1)`). All left associative.
  private bitOr(): Expr {
    return this.leftAssociative(['|'], () => this.bitXor());
  }

  private bitXor(): Expr {
    return this.leftAssociative(['^'], () => this.bitAnd());
  }

  private bitAnd(): Expr {
    return this.leftAssociative(['&'], () => this.shift());
  }

  private shift(): Expr {
    return this.leftAssociative(['<<', '>>'], () => this.additive());
  }

  private leftAssociative(ops: readonly ('|' | '^' | '&' | '<<' | '>>')[], operand: () => Expr): Expr {
    let lhs = operand();
    for (;;) {
      const op = this.peek();
      const found = op.kind === 'punct' ? ops.find((o) => o === op.text) : undefined;
      if (found === undefined) return lhs;
      this.advance();
      const rhs = operand();
      lhs = { kind: 'binary', op: found, lhs, rhs, span: joinSpans(lhs.span, rhs.span) };
    }
  }

  private additive(): Expr {
    let lhs = this.multiplicative();
    for (;;) {
      const op = this.peek();
      if (op.kind !== 'punct' || (op.text !== '+' && op.text !== '-')) return lhs;
      this.advance();
      const rhs = this.multiplicative();
      lhs = { kind: 'binary', op: op.text, lhs, rhs, span: joinSpans(lhs.span, rhs.span) };
    }
  }

  private multiplicative(): Expr {
    let lhs = this.unary();
    for (;;) {
      const op = this.peek();
      if (op.kind !== 'punct' || (op.text !== '*' && op.text !== '/' && op.text !== '//' && op.text !== '%')) return lhs;
      this.advance();
      const rhs = this.unary();
      lhs = { kind: 'binary', op: op.text, lhs, rhs, span: joinSpans(lhs.span, rhs.span) };
    }
  }

  private unary(): Expr {
    const t = this.peek();
    if (t.kind === 'punct' && (t.text === '-' || t.text === '+' || t.text === '~')) {
      this.advance();
      const arg = this.nested(() => this.unary());
      return { kind: 'unary', op: t.text, arg, span: joinSpans(t.span, arg.span) };
    }
    return this.power();
  }

  private power(): Expr {
    const base = this.bang();
    if (!this.isPunct('**')) return base;
    this.advance();
    // Python: the exponent may carry its own sign, and `**` groups to the right.
    const exponent = this.nested(() => this.unary());
    return { kind: 'binary', op: '**', lhs: base, rhs: exponent, span: joinSpans(base.span, exponent.span) };
  }

  /** The paper's indexing operator, left associative: `xs ! i ! j` is `(xs ! i) ! j`. */
  private bang(): Expr {
    let target = this.postfix();
    while (this.isPunct('!')) {
      this.advance();
      const index = this.bangIndex();
      target = { kind: 'bang', target, index, span: joinSpans(target.span, index.span) };
    }
    return target;
  }

  /** The right of `!`: a postfix expression, optionally signed (`xs ! -1`). */
  private bangIndex(): Expr {
    const t = this.peek();
    if (t.kind === 'punct' && (t.text === '-' || t.text === '+')) {
      this.advance();
      const arg = this.nested(() => this.bangIndex());
      return { kind: 'unary', op: t.text, arg, span: joinSpans(t.span, arg.span) };
    }
    return this.postfix();
  }

  private postfix(): Expr {
    let e = this.atom();
    if (e.kind === 'name' && juxtaposedFunctions.has(e.name) && this.startsJuxtaposedArgument()) {
      const arg = this.atom();
      e = { kind: 'call', callee: e, args: [arg], span: joinSpans(e.span, arg.span) };
    }
    for (;;) {
      if (this.isPunct('(')) {
        this.advance();
        const args = this.argumentList();
        const end = this.expectPunct(')', "expected ',' or ')' after the argument").span;
        e = { kind: 'call', callee: e, args, span: joinSpans(e.span, end) };
      } else if (this.isPunct('[')) {
        const open = this.advance();
        if (this.isPunct(']')) this.fail(SyntaxCode.expectedExpression, 'expected an index inside the brackets');
        const indices = [this.expression()];
        while (this.isPunct(',')) {
          this.advance();
          if (this.isPunct(']')) break;
          indices.push(this.expression());
        }
        const end = this.expectPunct(']', `expected ',' or ']' to close the '[' at ${this.position(open.span)}`).span;
        e = { kind: 'index', target: e, indices, span: joinSpans(e.span, end) };
      } else return e;
    }
  }

  /** `shape xs`, `size 3`: the paper applies these two by juxtaposition to a name or number. */
  private startsJuxtaposedArgument(): boolean {
    const k = this.peek().kind;
    return k === 'name' || k === 'number';
  }

  /** Comma-separated arguments up to (not including) `)`; bare operators allowed. */
  private argumentList(): Expr[] {
    const args: Expr[] = [];
    while (!this.isPunct(')')) {
      args.push(this.element());
      if (!this.isPunct(',')) break;
      this.advance();
    }
    return args;
  }

  /** An expression in a comma-separated list inside brackets, or a bare operator: `fold(+, xs)`. */
  private element(): Expr {
    const t = this.peek();
    const opText = t.kind === 'punct' || t.kind === 'keyword' ? t.text : null;
    if (opText !== null && operatorRefs.has(opText) && (this.isPunct(',', 1) || this.isPunct(')', 1))) {
      this.advance();
      return { kind: 'opref', op: opText as BinaryOperator, span: t.span };
    }
    return this.expression();
  }

  private atom(): Expr {
    const t = this.peek();
    switch (t.kind) {
      case 'number':
        this.advance();
        return { kind: 'number', text: t.text, isFloat: t.isFloat, span: t.span };
      case 'name':
        this.advance();
        return { kind: 'name', name: t.text, span: t.span };
      case 'keyword':
        if (t.text === 'True' || t.text === 'true' || t.text === 'False' || t.text === 'false') {
          this.advance();
          return { kind: 'bool', value: t.text === 'True' || t.text === 'true', span: t.span };
        }
        return this.fail(SyntaxCode.expectedExpression, `expected an expression, found the keyword '${t.text}'`);
      case 'punct':
        if (t.text === '(') return this.parenthesised();
        return this.fail(SyntaxCode.expectedExpression, `expected an expression, found '${t.text}'`);
      case 'newline':
      case 'eof':
        return this.fail(SyntaxCode.expectedExpression, 'expected an expression before the end of the line');
      case 'indent':
      case 'dedent':
      case 'invalid':
        return this.fail(SyntaxCode.expectedExpression, 'expected an expression');
      default:
        return t satisfies never;
    }
  }

  /** `(e)` is `e`; `()`, `(e,)` and `(a, b)` are tuples; `(+)` is an operator. */
  private parenthesised(): Expr {
    const open = this.advance();
    if (this.isPunct(')')) {
      const close = this.advance();
      return { kind: 'tuple', elems: [], span: joinSpans(open.span, close.span) };
    }
    const first = this.element();
    if (this.isPunct(')')) {
      this.advance();
      return first;
    }
    const elems = [first];
    while (this.isPunct(',')) {
      this.advance();
      if (this.isPunct(')')) break;
      elems.push(this.element());
    }
    const close = this.expectPunct(')', `expected ',' or ')' to close the '(' at ${this.position(open.span)}`);
    return { kind: 'tuple', elems, span: joinSpans(open.span, close.span) };
  }

}

function describeExpr(e: Expr): string {
  switch (e.kind) {
    case 'number':
      return 'a number';
    case 'bool':
      return 'a boolean literal';
    case 'name':
      return `'${e.name}'`;
    case 'binary':
      return `the result of '${e.op}'`;
    case 'unary':
      return `the result of '${e.op}'`;
    case 'ifexp':
      return 'a conditional expression';
    case 'call':
      return 'a function call';
    case 'index':
    case 'bang':
      return 'an indexed element (arrays are immutable; build a new one with map, generate or scatter)';
    case 'tuple':
      return 'a tuple';
    case 'lambda':
      return 'a lambda';
    case 'opref':
      return `the operator '${e.op}'`;
    default:
      return e satisfies never;
  }
}

/** The names a pattern binds, in order. */
function patternNames(p: Pattern): { readonly name: string; readonly span: Span }[] {
  return p.kind === 'name' ? [{ name: p.name, span: p.span }] : p.elems.flatMap(patternNames);
}
