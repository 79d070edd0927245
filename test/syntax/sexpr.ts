// Test helper: a compact S-expression rendering of the surface AST, so that parser tests read
// as one line of source against one line of structure: `y + zs!0` ↦ `(+ y (! zs 0))`.

import { SourceFile, UserError, diagnosticPosition } from '../../src/diagnostics/index.js';
import type { Def, ElemAnn, Expr, Module, Pattern, Stmt, TypeAnn } from '../../src/syntax/index.js';
import { parseExpression, parseModule } from '../../src/syntax/index.js';

export function exprToSexpr(e: Expr): string {
  switch (e.kind) {
    case 'number':
      return e.isFloat ? `${e.text}f` : e.text;
    case 'bool':
      return e.value ? '#t' : '#f';
    case 'name':
      return e.name;
    case 'binary':
      return `(${e.op} ${exprToSexpr(e.lhs)} ${exprToSexpr(e.rhs)})`;
    case 'unary':
      return `(${e.op === 'not' ? 'not' : `u${e.op}`} ${exprToSexpr(e.arg)})`;
    case 'ifexp':
      return `(if ${exprToSexpr(e.cond)} ${exprToSexpr(e.then)} ${exprToSexpr(e.else)})`;
    case 'call':
      return `(call ${[e.callee, ...e.args].map(exprToSexpr).join(' ')})`;
    case 'index':
      return `(index ${[e.target, ...e.indices].map(exprToSexpr).join(' ')})`;
    case 'bang':
      return `(! ${exprToSexpr(e.target)} ${exprToSexpr(e.index)})`;
    case 'tuple':
      return `(tuple${e.elems.map((x) => ` ${exprToSexpr(x)}`).join('')})`;
    case 'lambda':
      return `(lambda (${e.params.map(patternToSexpr).join(' ')}) ${exprToSexpr(e.body)})`;
    case 'opref':
      return `(op ${e.op})`;
    default:
      return e satisfies never;
  }
}

export function patternToSexpr(p: Pattern): string {
  switch (p.kind) {
    case 'name':
      return p.name;
    case 'tuple':
      return `(${p.elems.map(patternToSexpr).join(' ')})`;
    default:
      return p satisfies never;
  }
}

function elemToSexpr(e: ElemAnn): string {
  switch (e.kind) {
    case 'scalar':
      return e.name;
    case 'tuple':
      return `(${e.elems.map(elemToSexpr).join(' ')})`;
    default:
      return e satisfies never;
  }
}

export function typeToSexpr(t: TypeAnn): string {
  switch (t.kind) {
    case 'scalar':
      return elemToSexpr(t.elem);
    case 'array':
      return `${elemToSexpr(t.elem)}[${t.dims.join(' ')}]`;
    default:
      return t satisfies never;
  }
}

function blockToSexpr(stmts: readonly Stmt[]): string {
  return `(${stmts.map(stmtToSexpr).join(' ')})`;
}

export function stmtToSexpr(s: Stmt): string {
  switch (s.kind) {
    case 'assign':
      return `(= ${patternToSexpr(s.target)} ${exprToSexpr(s.value)})`;
    case 'return':
      return `(return ${exprToSexpr(s.value)})`;
    case 'if':
      return `(if ${exprToSexpr(s.cond)} ${blockToSexpr(s.then)}${s.orelse === null ? '' : ` ${blockToSexpr(s.orelse)}`})`;
    case 'while':
      return `(while ${exprToSexpr(s.cond)} ${blockToSexpr(s.body)})`;
    case 'for':
      return `(for ${s.var} (range${s.range.map((r) => ` ${exprToSexpr(r)}`).join('')}) ${blockToSexpr(s.body)})`;
    case 'pass':
      return '(pass)';
    default:
      return s satisfies never;
  }
}

export function defToSexpr(d: Def): string {
  const params = d.params.map((p) => (p.type === null ? p.name : `${p.name}:${typeToSexpr(p.type)}`)).join(' ');
  const ret = d.returnType === null ? '' : ` -> ${typeToSexpr(d.returnType)}`;
  return `(def ${d.name} (${params})${ret} ${blockToSexpr(d.body)})`;
}

export function moduleToSexpr(m: Module): string {
  return m.defs.map(defToSexpr).join('\n');
}

export function parseExprSexpr(text: string): string {
  return exprToSexpr(parseExpression(new SourceFile('test.fuse', text)));
}

export function parseModuleSexpr(text: string): string {
  return moduleToSexpr(parseModule(new SourceFile('test.fuse', text)));
}

/** The body statements of a single def wrapped around `body`, as S-expressions. */
export function parseBodySexpr(body: string): string {
  const indented = body
    .split('\n')
    .map((line) => (line.length === 0 ? line : `  ${line}`))
    .join('\n');
  const m = parseModule(new SourceFile('test.fuse', `def f():\n${indented}\n`));
  return m.defs[0]!.body.map(stmtToSexpr).join(' ');
}

/** The diagnostics of a failing parse as `code line:col message` strings. */
export function parseErrors(text: string): string[] {
  try {
    parseModule(new SourceFile('test.fuse', text));
  } catch (e) {
    if (e instanceof UserError) return e.diagnostics.map((d) => `${d.code} ${diagnosticPosition(d)} ${d.message}`);
    throw e;
  }
  return [];
}
