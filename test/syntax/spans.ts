// Test helper: checks that every node of a parsed module has a span inside its parent's and
// that leaves (names, numbers, operators, keywords) span exactly their own text.

import { expect } from 'vitest';
import type { SourceFile, Span } from '../../src/diagnostics/index.js';
import type { Expr, Module, Pattern, Stmt } from '../../src/syntax/index.js';

/** Checks that every node's span lies inside its parent's and that leaves span their own text. */
export function checkSpans(file: SourceFile, module: Module): void {
  const text = file.text;
  const inside = (child: Span, parent: Span): void => {
    expect(child.start).toBeGreaterThanOrEqual(parent.start);
    expect(child.end).toBeLessThanOrEqual(parent.end);
    expect(child.start).toBeLessThanOrEqual(child.end);
  };
  const slice = (s: Span): string => text.slice(s.start, s.end);
  const pattern = (p: Pattern, parent: Span): void => {
    inside(p.span, parent);
    if (p.kind === 'name') expect(slice(p.span)).toBe(p.name);
    else p.elems.forEach((e) => pattern(e, p.span));
  };
  const expr = (e: Expr, parent: Span): void => {
    inside(e.span, parent);
    switch (e.kind) {
      case 'number':
        expect(slice(e.span)).toBe(e.text);
        break;
      case 'name':
        expect(slice(e.span)).toBe(e.name);
        break;
      case 'bool':
        expect(slice(e.span).toLowerCase()).toBe(String(e.value));
        break;
      case 'opref':
        expect(slice(e.span)).toBe(e.op);
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
        expect(slice(s.span).startsWith('return')).toBe(true);
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
        expect(slice(s.varSpan)).toBe(s.var);
        s.range.forEach((x) => expr(x, s.span));
        s.body.forEach((x) => stmt(x, s.span));
        break;
      case 'pass':
        expect(slice(s.span)).toBe('pass');
        break;
      default:
        s satisfies never;
    }
  };
  expect(module.span).toEqual({ start: 0, end: text.length });
  for (const def of module.defs) {
    inside(def.span, module.span);
    expect(slice(def.span).startsWith('def')).toBe(true);
    expect(slice(def.nameSpan)).toBe(def.name);
    for (const p of def.params) {
      inside(p.span, def.span);
      expect(slice(p.span).startsWith(p.name)).toBe(true);
    }
    def.body.forEach((s) => stmt(s, def.span));
  }
}
