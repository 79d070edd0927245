// Prints the JavaScript AST of jsast.ts as source text.
//
// The printer is the last line of defence for the rule that no user text reaches generated
// code: every identifier and property name must match a plain pattern and not be a word with a
// meaning of its own in JavaScript, numbers are printed from their value (NaN, ±Infinity and
// -0 as arithmetic that produces them, so no global can be shadowed), and comments may not
// contain anything that could end them. A violation is a CompilerBug, never silently escaped.

import { CompilerBug } from '../diagnostics/index.js';
import type { JsBinaryOp, JsExpr, JsStmt } from './jsast.js';

const identifierPattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Words a generated identifier may never be (they would change the code's meaning). */
const forbiddenNames = new Set([
  'arguments', 'await', 'break', 'case', 'catch', 'class', 'const', 'constructor', 'continue',
  'debugger', 'default', 'delete', 'do', 'else', 'enum', 'eval', 'export', 'extends', 'false',
  'finally', 'for', 'function', 'if', 'implements', 'import', 'in', 'instanceof', 'interface',
  'let', 'new', 'null', 'package', 'private', 'protected', 'public', 'return', 'static', 'super',
  'switch', 'this', 'throw', 'true', 'try', 'typeof', 'undefined', 'var', 'void', 'while', 'with',
  'yield', 'NaN', 'Infinity', '__proto__', 'prototype',
]);

function checkName(name: string): string {
  if (!identifierPattern.test(name) || forbiddenNames.has(name)) {
    throw new CompilerBug('codegen', `unsafe identifier ${JSON.stringify(name)} in generated code`);
  }
  return name;
}

/** A number as JavaScript source that evaluates to exactly that number. */
export function printNumber(value: number): string {
  if (Number.isNaN(value)) return '(0 / 0)';
  if (value === Infinity) return '(1 / 0)';
  if (value === -Infinity) return '(-1 / 0)';
  if (Object.is(value, -0)) return '(-0)';
  const text = String(Math.abs(value));
  if (!/^[0-9]+(\.[0-9]+)?(e[+-][0-9]+)?$/.test(text)) {
    throw new CompilerBug('codegen', `cannot print the number ${text}`);
  }
  return value < 0 ? `(-${text})` : text;
}

const binaryPrecedence: Record<JsBinaryOp, number> = {
  '||': 4,
  '&&': 5,
  '|': 6,
  '^': 7,
  '&': 8,
  '===': 9,
  '!==': 9,
  '<': 10,
  '<=': 10,
  '>': 10,
  '>=': 10,
  '<<': 11,
  '>>': 11,
  '>>>': 11,
  '+': 12,
  '-': 12,
  '*': 13,
  '/': 13,
  '%': 13,
};

const condPrecedence = 2;
const unaryPrecedence = 14;
const postfixPrecedence = 17;

function precedence(e: JsExpr): number {
  switch (e.kind) {
    case 'num':
    case 'id':
    case 'array':
    case 'set':
    case 'seq':
      // Printed in their own parentheses.
      return 20;
    case 'binary':
      return binaryPrecedence[e.op];
    case 'unary':
      return unaryPrecedence;
    case 'cond':
      return condPrecedence;
    case 'call':
    case 'member':
    case 'index':
      return postfixPrecedence;
    default:
      return e satisfies never;
  }
}

function wrapIf(text: string, parens: boolean): string {
  return parens ? `(${text})` : text;
}

export function printExpr(e: JsExpr): string {
  switch (e.kind) {
    case 'num':
      return printNumber(e.value);
    case 'id':
      return checkName(e.name);
    case 'binary': {
      const p = binaryPrecedence[e.op];
      // Left-associative: a right operand of equal precedence needs parentheses.
      const lhs = wrapIf(printExpr(e.lhs), precedence(e.lhs) < p);
      const rhs = wrapIf(printExpr(e.rhs), precedence(e.rhs) <= p);
      return `${lhs} ${e.op} ${rhs}`;
    }
    case 'unary': {
      const arg = printExpr(e.arg);
      // `- -x` and `-(-1)` must not print as `--x`.
      const parens = precedence(e.arg) < unaryPrecedence || arg.startsWith('-');
      return `${e.op === 'void' || e.op === 'await' ? `${e.op} ` : e.op}${wrapIf(arg, parens)}`;
    }
    case 'cond':
      return `${wrapIf(printExpr(e.test), precedence(e.test) <= condPrecedence)} ? ${printExpr(e.then)} : ${printExpr(e.else)}`;
    case 'call':
      return `${wrapIf(printExpr(e.callee), precedence(e.callee) < postfixPrecedence)}(${e.args.map(printExpr).join(', ')})`;
    case 'member':
      return `${wrapIf(printExpr(e.object), precedence(e.object) < postfixPrecedence || e.object.kind === 'num')}.${checkName(e.prop)}`;
    case 'index':
      return `${wrapIf(printExpr(e.object), precedence(e.object) < postfixPrecedence)}[${printExpr(e.index)}]`;
    case 'array':
      return `[${e.elems.map(printExpr).join(', ')}]`;
    case 'set':
      return `(${checkName(e.name)} = ${printExpr(e.value)})`;
    case 'seq':
      return `(${printExpr(e.first)}, ${printExpr(e.then)})`;
    default:
      return e satisfies never;
  }
}

function printComment(text: string): string {
  if (/[\r\n\u2028\u2029]/.test(text)) throw new CompilerBug('codegen', 'a generated comment spans lines');
  return `// ${text}`;
}

function printStmts(stmts: readonly JsStmt[], indent: string, out: string[]): void {
  for (const s of stmts) printStmt(s, indent, out);
}

function printStmt(s: JsStmt, indent: string, out: string[]): void {
  const inner = indent + '  ';
  switch (s.kind) {
    case 'decl': {
      const head = `${s.mutable ? 'let' : 'const'} ${checkName(s.name)}`;
      out.push(`${indent}${s.init === null ? head : `${head} = ${printExpr(s.init)}`};`);
      return;
    }
    case 'assign':
      out.push(`${indent}${printExpr(s.target)} ${s.op} ${printExpr(s.value)};`);
      return;
    case 'expr':
      out.push(`${indent}${printExpr(s.expr)};`);
      return;
    case 'for': {
      const v = checkName(s.index);
      out.push(
        s.down
          ? `${indent}for (let ${v} = ${printExpr(s.to)} - 1; ${v} >= ${printExpr(s.from)}; ${v}--) {`
          : `${indent}for (let ${v} = ${printExpr(s.from)}; ${v} < ${printExpr(s.to)}; ${v}++) {`,
      );
      printStmts(s.body, inner, out);
      out.push(`${indent}}`);
      return;
    }
    case 'while':
      out.push(`${indent}while (${printExpr(s.test)}) {`);
      printStmts(s.body, inner, out);
      out.push(`${indent}}`);
      return;
    case 'if':
      out.push(`${indent}if (${printExpr(s.test)}) {`);
      printStmts(s.then, inner, out);
      if (s.else.length > 0) {
        out.push(`${indent}} else {`);
        printStmts(s.else, inner, out);
      }
      out.push(`${indent}}`);
      return;
    case 'block':
      out.push(`${indent}{`);
      printStmts(s.body, inner, out);
      out.push(`${indent}}`);
      return;
    case 'break':
      out.push(`${indent}break;`);
      return;
    case 'return':
      out.push(s.value === null ? `${indent}return;` : `${indent}return ${printExpr(s.value)};`);
      return;
    case 'comment':
      out.push(indent + printComment(s.text));
      return;
    case 'function':
      out.push(`${indent}${s.async === true ? 'async ' : ''}function ${checkName(s.name)}(${s.params.map(checkName).join(', ')}) {`);
      printStmts(s.body, inner, out);
      out.push(`${indent}}`);
      return;
    default:
      s satisfies never;
  }
}

/** Prints statements at top level, one per line, with two-space indentation. */
export function printProgramText(stmts: readonly JsStmt[]): string {
  const out: string[] = [];
  printStmts(stmts, '', out);
  return out.join('\n') + '\n';
}
