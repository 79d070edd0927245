// Statements, definitions, type annotations and layout (indentation, comments, line joining).

import { describe, expect, it } from 'vitest';
import { parseBodySexpr, parseModuleSexpr } from './sexpr.js';

const statementCases: ReadonlyArray<readonly [string, string]> = [
  ['x = 1', '(= x 1)'],
  ['x, y = e', '(= (x y) e)'],
  ['(x, y) = e', '(= (x y) e)'],
  ['(x) = e', '(= x e)'],
  ['(a, (b, c)) = e', '(= (a (b c)) e)'],
  ['x, = e', '(= (x) e)'],
  ['x = a, b', '(= x (tuple a b))'],
  ['return e', '(return e)'],
  ['return a, b', '(return (tuple a b))'],
  ['return (as, bs)', '(return (tuple as bs))'],
  ['pass', '(pass)'],
  ['if c: x = 1', '(if c ((= x 1)))'],
  ['if c:\n  x = 1\nelse:\n  x = 2', '(if c ((= x 1)) ((= x 2)))'],
  ['if c: x = 1\nelse: x = 2', '(if c ((= x 1)) ((= x 2)))'],
  ['if a:\n  pass\nelif b:\n  pass\nelse:\n  pass', '(if a ((pass)) ((if b ((pass)) ((pass)))))'],
  ['if a:\n  pass\nelif b:\n  pass', '(if a ((pass)) ((if b ((pass)))))'],
  ['while i < n:\n  i = i + 1\n  x = f(x)', '(while (< i n) ((= i (+ i 1)) (= x (call f x))))'],
  ['for i in range(3):\n  x = g(x)', '(for i (range 3) ((= x (call g x))))'],
  ['for i in range(a, b, 2): pass', '(for i (range a b 2) ((pass)))'],
  ['if a:\n  if b:\n    x = 1\n  y = 2\nz = 3', '(if a ((if b ((= x 1))) (= y 2))) (= z 3)'],
  ['x = 1 # a comment\n\n   # an indented comment\ny = 2', '(= x 1) (= y 2)'],
  ['x = f(a,\nb)\ny = 2', '(= x (call f a b)) (= y 2)'],
  ['x = a + \\\n    b', '(= x (+ a b))'],
];

describe('statements', () => {
  it.each(statementCases)('%j  ⟶  %s', (source, expected) => {
    expect(parseBodySexpr(source)).toBe(expected);
  });
});

const moduleCases: ReadonlyArray<readonly [string, string]> = [
  ['def f(): pass', '(def f () ((pass)))'],
  ['def f(x, y):\n  return x', '(def f (x y) ((return x)))'],
  ['def f(x,):\n  return x', '(def f (x) ((return x)))'],
  [
    'def f(p1: f64[n], p2, m: i32) -> f64[n]:\n  return p1',
    '(def f (p1:f64[n] p2 m:i32) -> f64[n] ((return p1)))',
  ],
  ['def f(a: (i32, f64)[k], b: bool, c: u32[2, m], d: f32[n,]) -> f32: pass', '(def f (a:(i32 f64)[k] b:bool c:u32[2 m] d:f32[n]) -> f32 ((pass)))'],
  ['def f(p: ((i32, f64), bool)): pass', '(def f (p:((i32 f64) bool)) ((pass)))'],
  ['def f(): pass\ndef g(): pass', '(def f () ((pass)))\n(def g () ((pass)))'],
  ['\n\n# header\n\ndef f():\n\n    # inside\n    x = 1\n\n    return x\n\n', '(def f () ((= x 1) (return x)))'],
  ['def f():\r\n  x = 1\r\n  return x\r\n', '(def f () ((= x 1) (return x)))'],
  ['def f():\n  return x', '(def f () ((return x)))'],
  ['def f():\n        deep = 1\n        return deep', '(def f () ((= deep 1) (return deep)))'],
];

describe('definitions and layout', () => {
  it.each(moduleCases)('%j  ⟶  %s', (source, expected) => {
    expect(parseModuleSexpr(source)).toBe(expected);
  });
});
