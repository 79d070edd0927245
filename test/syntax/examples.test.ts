// Every shared conformance example parses, into the structure its source shows, with spans
// that point at the text each node came from.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SourceFile, type Span } from '../../src/diagnostics/index.js';
import { parseModule, type Expr, type Module, type Pattern, type Stmt } from '../../src/syntax/index.js';
import { defToSexpr, moduleToSexpr } from './sexpr.js';

const examplesDir = join(import.meta.dirname, '../../examples');
const exampleNames = readdirSync(examplesDir).filter((f) => f.endsWith('.fuse')).sort();

function parseExample(name: string): { file: SourceFile; module: Module } {
  const file = new SourceFile(name, readFileSync(join(examplesDir, name), 'utf8'));
  return { file, module: parseModule(file) };
}

/** Checks that every node's span lies inside its parent's and that leaves span their own text. */
function checkSpans(file: SourceFile, module: Module): void {
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

describe('shared examples', () => {
  it('are all here', () => {
    expect(exampleNames.length).toBeGreaterThanOrEqual(12);
  });

  it.each(exampleNames)('%s parses, with well-formed spans', (name) => {
    const { file, module } = parseExample(name);
    expect(module.defs.length).toBe(1);
    checkSpans(file, module);
  });

  it('singleLoop has the structure of the paper listing', () => {
    expect(moduleToSexpr(parseExample('singleLoop.fuse').module)).toBe(
      '(def singleLoop (as) (' +
        '(= bs (call reverse as)) ' +
        '(= cs (call map (lambda (x) (* x 2.0f)) as)) ' +
        '(= ds (call map (lambda (c) (+ c 1.0f)) cs)) ' +
        '(= result (call zipWith3 (lambda (b c d) (+ (+ b c) d)) bs cs ds)) ' +
        '(return result)))',
    );
  });

  it('greedyBottomUpBad: juxtaposition, tuple shapes, bare operators and `!`', () => {
    expect(defToSexpr(parseExample('greedyBottomUpBad.fuse').module.defs[0]!)).toBe(
      '(def greedyBottomUpBad (xs m) (' +
        '(= n (call shape xs)) ' +
        '(= is (call generate (tuple n m) (lambda (i j) i))) ' +
        '(= large (call gather is xs)) ' +
        '(= ys (call fold (op +) large)) ' +
        '(= zs (call fold (op *) large)) ' +
        '(= result (call map (lambda (y) (+ y (! zs 0))) ys)) ' +
        '(return result)))',
    );
  });

  it('scatterExample: tuples in lambda bodies, casts, `as` as a name', () => {
    expect(defToSexpr(parseExample('scatterExample.fuse').module.defs[0]!)).toBe(
      '(def scatterExample (xs) (' +
        '(= as (call map (lambda (x) (tuple (% (call i32 (* x 2.0f)) (call size xs)) x)) xs)) ' +
        '(= bs (call map (lambda (x) (+ x 1.0f)) xs)) ' +
        '(= result (call scatter (op +) bs as)) ' +
        '(return result)))',
    );
  });

  it('simple3 returns a parenthesised tuple', () => {
    const body = parseExample('simple3.fuse').module.defs[0]!.body;
    expect(body[body.length - 1]).toMatchObject({ kind: 'return', value: { kind: 'tuple' } });
  });
});
