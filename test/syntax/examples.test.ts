// Every shared conformance example parses, into the structure its source shows, with spans
// that point at the text each node came from.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SourceFile } from '../../src/diagnostics/index.js';
import { parseModule, type Module } from '../../src/syntax/index.js';
import { defToSexpr, moduleToSexpr } from './sexpr.js';
import { spanProblems } from './spans.js';

const examplesDir = join(import.meta.dirname, '../../examples');
const exampleNames = readdirSync(examplesDir).filter((f) => f.endsWith('.fuse')).sort();

function parseExample(name: string): { file: SourceFile; module: Module } {
  const file = new SourceFile(name, readFileSync(join(examplesDir, name), 'utf8'));
  return { file, module: parseModule(file) };
}

describe('shared examples', () => {
  it('are all here', () => {
    expect(exampleNames.length).toBeGreaterThanOrEqual(12);
  });

  it.each(exampleNames)('%s parses, with well-formed spans', (name) => {
    const { file, module } = parseExample(name);
    expect(module.defs.length).toBe(1);
    expect(spanProblems(file, module)).toEqual([]);
  });

  it('the prelude of derived combinators parses too', () => {
    const file = new SourceFile('prelude.fuse', readFileSync(join(import.meta.dirname, '../../prelude/prelude.fuse'), 'utf8'));
    const module = parseModule(file);
    expect(module.defs.map((d) => d.name)).toContain('backpermute');
    expect(spanProblems(file, module)).toEqual([]);
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

  it("the paper's own listings parse (spaces before parentheses, lam with a tuple body)", () => {
    const source = [
      'def reverse (xs):',
      '  n = size (xs)',
      '  inds = generate (n, lam i : n-i-1)',
      '  result = gather (inds, xs)',
      '  return result',
      'def scatterExample (xs):',
      '  as = map (lam x : (x*2, x), xs)',
      '  bs = map (lam x : x + 1, xs)',
      '  return scatter (+, bs, as)',
    ].join('\n');
    const module = parseModule(new SourceFile('paper.fuse', source));
    expect(moduleToSexpr(module)).toBe(
      '(def reverse (xs) ((= n (call size xs)) (= inds (call generate n (lambda (i) (- (- n i) 1)))) ' +
        '(= result (call gather inds xs)) (return result)))\n' +
        '(def scatterExample (xs) ((= as (call map (lambda (x) (tuple (* x 2) x)) xs)) ' +
        '(= bs (call map (lambda (x) (+ x 1)) xs)) (return (call scatter (op +) bs as))))',
    );
  });

  it('simple3 returns a parenthesised tuple', () => {
    const body = parseExample('simple3.fuse').module.defs[0]!.body;
    expect(body[body.length - 1]).toMatchObject({ kind: 'return', value: { kind: 'tuple' } });
  });
});
