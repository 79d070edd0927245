// Expressions: precedence and associativity, literals, every spelling of lambda, bare
// operators as functions, juxtaposition, indexing. Source on the left, structure on the right.

import { describe, expect, it } from 'vitest';
import { parseExprSexpr } from './sexpr.js';

const cases: ReadonlyArray<readonly [string, string]> = [
  // literals and names
  ['42', '42'],
  ['1.0', '1.0f'],
  ['.5', '.5f'],
  ['2.', '2.f'],
  ['1e-3', '1e-3f'],
  ['3E+7', '3E+7f'],
  ['True', '#t'],
  ['false', '#f'],
  ['as', 'as'],
  ['is', 'is'],
  ['x_1', 'x_1'],
  // arithmetic precedence and associativity
  ['a + b * c', '(+ a (* b c))'],
  ['a * b + c', '(+ (* a b) c)'],
  ['a - b - c', '(- (- a b) c)'],
  ['a / b // c % d', '(% (// (/ a b) c) d)'],
  ['(a + b) * c', '(* (+ a b) c)'],
  ['-x', '(u- x)'],
  ['+x', '(u+ x)'],
  ['- - x', '(u- (u- x))'],
  ['-x * y', '(* (u- x) y)'],
  ['a ** b ** c', '(** a (** b c))'],
  ['-x ** 2', '(u- (** x 2))'],
  ['2 ** -1', '(** 2 (u- 1))'],
  ['a * b ** c', '(* a (** b c))'],
  // bit operations: Python's ladder, | < ^ < & < shifts < + -, all above comparisons
  ['a | b ^ c & d', '(| a (^ b (& c d)))'],
  ['a & b ^ c | d', '(| (^ (& a b) c) d)'],
  ['a << b + c', '(<< a (+ b c))'],
  ['a + b >> c', '(>> (+ a b) c)'],
  ['a << b >> c', '(>> (<< a b) c)'],
  ['a & b << c', '(& a (<< b c))'],
  ['a & 1 == 0', '(== (& a 1) 0)'],
  ['a | b and c', '(and (| a b) c)'],
  ['not a & b', '(not (& a b))'],
  ['a & b & c', '(& (& a b) c)'],
  ['~x', '(u~ x)'],
  ['~~x', '(u~ (u~ x))'],
  ['-~x', '(u- (u~ x))'],
  ['~x * y', '(* (u~ x) y)'],
  ['~x ** 2', '(u~ (** x 2))'],
  ['2 ** ~x', '(** 2 (u~ x))'],
  ['a<<b', '(<< a b)'],
  ['a>>-b', '(>> a (u- b))'],
  ['x if a ^ b else y', '(if (^ a b) x y)'],
  // the paper's indexing operator binds tighter than arithmetic
  ['y + zs!0', '(+ y (! zs 0))'],
  ['js!k', '(! js k)'],
  ['f64(i) + bs!0', '(+ (call f64 i) (! bs 0))'],
  ['xs ! i ! j', '(! (! xs i) j)'],
  ['xs!i ** 2', '(** (! xs i) 2)'],
  ['-xs!i', '(u- (! xs i))'],
  ['xs ! -1', '(! xs (u- 1))'],
  ['xs ! (i + 1)', '(! xs (+ i 1))'],
  ['xs!f(i)', '(! xs (call f i))'],
  // comparisons and logic
  ['a < b', '(< a b)'],
  ['a + 1 <= b * 2', '(<= (+ a 1) (* b 2))'],
  ['a == b and c != d', '(and (== a b) (!= c d))'],
  ['a or b and c', '(or a (and b c))'],
  ['a and b or c', '(or (and a b) c)'],
  ['not a == b', '(not (== a b))'],
  ['not not a', '(not (not a))'],
  ['a > b or not c >= d', '(or (> a b) (not (>= c d)))'],
  // conditional expressions
  ['a if c else b', '(if c a b)'],
  ['a if c else b if d else e', '(if c a (if d b e))'],
  ['x + 1 if x > 0 or y else -x', '(if (or (> x 0) y) (+ x 1) (u- x))'],
  // calls, subscripts, tuples
  ['f(a, b)', '(call f a b)'],
  ['f()', '(call f)'],
  ['f(a,)', '(call f a)'],
  ['f(a)(b)', '(call (call f a) b)'],
  ['xs[i]', '(index xs i)'],
  ['xs[i, j]', '(index xs i j)'],
  ['p[0]', '(index p 0)'],
  ['f(x)[1]', '(index (call f x) 1)'],
  ['(a, b)', '(tuple a b)'],
  ['(a,)', '(tuple a)'],
  ['()', '(tuple)'],
  ['a, b', '(tuple a b)'],
  ['((a, b), c)', '(tuple (tuple a b) c)'],
  ['(i32(x * 2.0) % size(xs), x)', '(tuple (% (call i32 (* x 2.0f)) (call size xs)) x)'],
  ['generate((n, m), f)', '(call generate (tuple n m) f)'],
  // lambdas: every spelling is the same node
  ['lambda x: x', '(lambda (x) x)'],
  ['lambda x, y: x + y', '(lambda (x y) (+ x y))'],
  ['lam x: x * 2.0', '(lambda (x) (* x 2.0f))'],
  ['lam(x, y): x + y', '(lambda (x y) (+ x y))'],
  ['lam (b, c, d): b + c + d', '(lambda (b c d) (+ (+ b c) d))'],
  ['λx: x', '(lambda (x) x)'],
  ['λ x y: x', '(lambda (x y) x)'],
  ['lam i -> i', '(lambda (i) i)'],
  ['lam((a, b), c): a', '(lambda ((a b) c) a)'],
  ['lam (a, b), c: a', '(lambda ((a b) c) a)'],
  ['lam ((a, b)): a', '(lambda ((a b)) a)'],
  ['lam (a): a', '(lambda (a) a)'],
  ['lam ((a,)): a', '(lambda ((a)) a)'],
  ['lam (((a)), b): a', '(lambda (a b) a)'],
  ['lam (): 1', '(lambda () 1)'],
  ['lam x: lam y: x + y', '(lambda (x) (lambda (y) (+ x y)))'],
  ['lam x: a if x else b', '(lambda (x) (if x a b))'],
  ['map(lam x: x + 1, xs)', '(call map (lambda (x) (+ x 1)) xs)'],
  ['f(lam x, y: x, z)', '(call f (lambda (x y) x) z)'],
  ['(lam x: x)(1)', '(call (lambda (x) x) 1)'],
  ['generate(n, lam i: f64(i) + bs!0)', '(call generate n (lambda (i) (+ (call f64 i) (! bs 0))))'],
  // bare operators where a function is expected
  ['fold(+, xs)', '(call fold (op +) xs)'],
  ['fold(|, xs)', '(call fold (op |) xs)'],
  ['scatter(^, d, s)', '(call scatter (op ^) d s)'],
  ['(<<)', '(op <<)'],
  ['zipWith(*, a, b)', '(call zipWith (op *) a b)'],
  ['scatter(+, d, s)', '(call scatter (op +) d s)'],
  ['fold(-, xs)', '(call fold (op -) xs)'],
  ['fold(**, xs)', '(call fold (op **) xs)'],
  ['reduce(and, xs)', '(call reduce (op and) xs)'],
  ['f(xs, <=)', '(call f xs (op <=))'],
  ['(+)', '(op +)'],
  ['(*)', '(op *)'],
  ['(//)', '(op //)'],
  ['fold(min, xs)', '(call fold min xs)'],
  ['f(-x, y)', '(call f (u- x) y)'],
  // juxtaposition for shape and size only
  ['shape xs', '(call shape xs)'],
  ['size xs', '(call size xs)'],
  ['shape(xs)', '(call shape xs)'],
  ['shape xs ! 0', '(! (call shape xs) 0)'],
  ['size xs + 1', '(+ (call size xs) 1)'],
  ['n // size xs', '(// n (call size xs))'],
  ['shape', 'shape'],
  ['size + 1', '(+ size 1)'],
];

describe('expressions', () => {
  it.each(cases)('%s  ⟶  %s', (source, expected) => {
    expect(parseExprSexpr(source)).toBe(expected);
  });

  it('joins lines inside brackets', () => {
    expect(parseExprSexpr('f(a,\n    b,\n  c)')).toBe('(call f a b c)');
    expect(parseExprSexpr('xs[i,\nj]')).toBe('(index xs i j)');
    expect(parseExprSexpr('(a +\n b)')).toBe('(+ a b)');
  });
});
