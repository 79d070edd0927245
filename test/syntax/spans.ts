// Test helper: checks that every node of a parsed module has a span inside its parent's and
// that leaves (names, numbers, operators, keywords) span exactly their own text.

import type { SourceFile, Span } from '../../src/diagnostics/index.js';
import type { Expr, Module, Pattern, Stmt } from '../../src/syntax/index.js';

/**
 * Every span problem in the module, as readable strings (none for a well-formed tree): a span
 * not inside its parent's, or a leaf whose span does not cover exactly its own text.
 */
export function spanProblems(file: SourceFile, module: Module): string[] {
  const text = file.text;
  const problems: string[] = [];
  const inside = (child: Span, parent: Span): void => {
    if (child.start < parent.start || child.end > parent.end || child.start > child.end) {
      problems.push(`span ${child.start}-${child.end} ${JSON.stringify(slice(child))} is not inside ${parent.start}-${parent.end}`);
    }
  };
  const slice = (s: Span): string => text.slice(s.start, s.end);
  const covers = (span: Span, expected: string, ok: (actual: string) => boolean = (a) => a === expected): void => {
    if (!ok(slice(span))) problems.push(`span ${span.start}-${span.end} covers ${JSON.stringify(slice(span))}, not ${JSON.stringify(expected)}`);
  };
  const pattern = (p: Pattern, parent: Span): void => {
    inside(p.span, parent);
    if (p.kind === 'name') covers(p.span, p.name);
    else p.elems.forEach((e) => pattern(e, p.span));
  };
  const expr = (e: Expr, parent: Span): void => {
    inside(e.span, parent);
    switch (e.kind) {
      case 'number':
        covers(e.span, e.text);
        break;
      case 'name':
        covers(e.span, e.name);
        break;
      case 'bool':
        covers(e.span, String(e.value), (a) => a.toLowerCase() === String(e.value));
        break;
      case 'opref':
        covers(e.span, e.op);
        break;
      case 'binary':
        expr(e.lhs, e.span);
        expr(e.rhs, e.span);
        break;
      case 'unary':
        expr(e.arg, e.span);
        break;
      case 'ifexp':
        [e.cond, e.then, e.else].forEach((x) => expr(x, e.span));
        break;
      case 'call':
        [e.callee, ...e.args].forEach((x) => expr(x, e.span));
        break;
      case 'index':
        [e.target, ...e.indices].forEach((x) => expr(x, e.span));
        break;
      case 'bang':
        expr(e.target, e.span);
        expr(e.index, e.span);
        break;
      case 'tuple':
        e.elems.forEach((x) => expr(x, e.span));
        break;
      case 'lambda':
        e.params.forEach((p) => pattern(p, e.span));
        expr(e.body, e.span);
        break;
      default:
        e satisfies never;
    }
  };
  const stmt = (s: Stmt, parent: Span): void => {
    inside(s.span, parent);
    switch (s.kind) {
      case 'assign':
        pattern(s.target, s.span);
        expr(s.value, s.span);
        break;
      case 'return':
        covers(s.span, 'return', (a) => a.startsWith('return'));
        expr(s.value, s.span);
        break;
      case 'if':
        expr(s.cond, s.span);
        [...s.then, ...(s.orelse ?? [])].forEach((x) => stmt(x, s.span));
        break;
      case 'while':
        expr(s.cond, s.span);
        s.body.forEach((x) => stmt(x, s.span));
        break;
      case 'for':
        covers(s.varSpan, s.var);
        s.range.forEach((x) => expr(x, s.span));
        s.body.forEach((x) => stmt(x, s.span));
        break;
      case 'pass':
        covers(s.span, 'pass');
        break;
      default:
        s satisfies never;
    }
  };
  if (module.span.start !== 0 || module.span.end !== text.length) problems.push('the module does not span the whole text');
  for (const def of module.defs) {
    inside(def.span, module.span);
    covers(def.span, 'def', (a) => a.startsWith('def'));
    covers(def.nameSpan, def.name);
    for (const p of def.params) {
      inside(p.span, def.span);
      covers(p.span, p.name, (a) => a.startsWith(p.name));
    }
    def.body.forEach((s) => stmt(s, def.span));
  }
  return problems;
}
