// Repeated pure values of a loop body computed once (codegen/share.ts): what is shared and what
// never is, and that a stencil in combinator style (gathers through index maps that share their
// components) computes each wrapped coordinate once and still equals the interpreter.

import { describe, expect, test } from 'vitest';
import { Compiler } from '../../src/driver/index.js';
import { assign, bin, call, cond, constDecl, exprStmt, id, index, letDecl, mathCall, member, num, set, type JsExpr, type JsStmt } from '../../src/codegen/jsast.js';
import { printProgramText } from '../../src/codegen/printer.js';
import { emitJs } from '../../src/runtime/index.js';
import { shareValues } from '../../src/codegen/share.js';
import { array } from '../ir/builders.js';
import { expectSameValues } from '../runtime/equal.js';
import { backends } from '../runtime/backends.js';

const wrapped = (i: string) => cond(bin('>', id(i), num(0)), bin('-', id(i), num(1)), num(127));
const text = (stmts: readonly JsStmt[]) => printProgramText(stmts).trim();
const loop = (body: readonly JsStmt[]): JsStmt => ({ kind: 'for', index: 'i', from: num(0), to: id('n'), down: false, body });

describe('shareValues', () => {
  test('a repeated pure const is dropped and its uses read the first', () => {
    const out = shareValues([
      loop([
        constDecl('a', wrapped('i')),
        constDecl('b', wrapped('i')),
        constDecl('c', bin('+', id('b'), mathCall('sqrt', [id('a')]))),
        constDecl('d', bin('+', id('a'), mathCall('sqrt', [id('b')]))),
        assign(index(id('out'), id('i')), bin('*', id('c'), id('d'))),
      ]),
    ]);
    expect(text(out)).toBe(
      text([
        loop([
          constDecl('a', wrapped('i')),
          constDecl('c', bin('+', id('a'), mathCall('sqrt', [id('a')]))),
          assign(index(id('out'), id('i')), bin('*', id('c'), id('c'))),
        ]),
      ]),
    );
  });

  test.each([
    ['loads (the array may be written in between)', index(id('xs'), id('i'))],
    ['calls of the runtime (they raise errors in order)', call(member(id('rt'), 'pow_i32'), [num(0), id('i'), num(2)])],
    ['temporaries', bin('+', set('t', id('i')), id('t'))],
    ['reads of a variable that is assigned', bin('+', id('acc'), num(1))],
  ])('never shares %s', (_, e) => {
    const stmts = [letDecl('t', null), letDecl('acc', num(0)), loop([constDecl('a', e), assign(id('acc'), id('a')), constDecl('b', e), assign(index(id('out'), id('i')), id('b'))])];
    expect(text(shareValues(stmts))).toBe(text(stmts));
  });

  test('a value declared in one branch is not seen in the other, nor after the branch; one before is seen inside', () => {
    const branchy: JsStmt[] = [
      constDecl('a', bin('*', id('n'), num(3))),
      { kind: 'if', test: id('p'), then: [constDecl('b', bin('*', id('n'), num(3))), constDecl('c', bin('+', id('n'), num(1)))], else: [constDecl('d', bin('+', id('n'), num(1)))] },
      constDecl('e', bin('+', id('n'), num(1))),
      exprStmt(call(id('use'), [id('b'), id('c'), id('d'), id('e')])),
    ];
    const shared = text(shareValues(branchy));
    expect(shared).not.toMatch(/const b =/);
    expect(shared).toMatch(/const c = n \+ 1/);
    expect(shared).toMatch(/const d = n \+ 1/);
    expect(shared).toMatch(/const e = n \+ 1/);
    expect(shared).toMatch(/use\(a, c, d, e\)/);
  });
});

describe('commutative operations (codegen/commute.ts)', () => {
  const x = id('x');
  const y = id('y');
  const z = id('z');
  const max = (a: JsExpr, b: JsExpr) => mathCall('max', [a, b]);
  const uses = (...names: string[]) => exprStmt(call(id('use'), names.map(id)));

  test.each([
    ['+', bin('+', x, y), bin('+', y, x)],
    ['*', bin('*', x, y), bin('*', y, x)],
    ['&', bin('&', x, y), bin('&', y, x)],
    ['|', bin('|', x, y), bin('|', y, x)],
    ['^', bin('^', x, y), bin('^', y, x)],
    ['Math.min', mathCall('min', [x, y]), mathCall('min', [y, x])],
    ['Math.max', max(x, y), max(y, x)],
    ['Math.imul', mathCall('imul', [x, y]), mathCall('imul', [y, x])],
    ['a sum of products', bin('+', bin('*', x, y), bin('*', z, x)), bin('+', bin('*', x, z), bin('*', y, x))],
  ])('%s in the other order is the same value: shared', (_, first, second) => {
    const out = text(shareValues([loop([constDecl('a', first), constDecl('b', second), uses('a', 'b')])]));
    expect(out).not.toMatch(/const b/);
    expect(out).toMatch(/use\(a, a\)/);
  });

  test('a repeated operation inside larger expressions takes the order it was first written in', () => {
    const out = shareValues([
      loop([
        constDecl('a', bin('*', bin('+', x, y), z)),
        constDecl('b', bin('-', z, bin('+', y, x))),
        assign(index(id('out'), id('i')), bin('/', mathCall('max', [bin('+', y, x), z]), mathCall('max', [z, bin('+', x, y)]))),
      ]),
    ]);
    expect(text(out)).toBe(
      text([
        loop([
          constDecl('a', bin('*', bin('+', x, y), z)),
          constDecl('b', bin('-', z, bin('+', x, y))),
          assign(index(id('out'), id('i')), bin('/', mathCall('max', [bin('+', x, y), z]), mathCall('max', [bin('+', x, y), z]))),
        ]),
      ]),
    );
  });

  test.each([
    ['-', bin('-', x, y), bin('-', y, x)],
    ['/', bin('/', x, y), bin('/', y, x)],
    ['%', bin('%', x, y), bin('%', y, x)],
    ['<', bin('<', x, y), bin('<', y, x)],
    ['<=', bin('<=', x, y), bin('<=', y, x)],
    ['>>', bin('>>', x, y), bin('>>', y, x)],
    ['&&', bin('&&', x, y), bin('&&', y, x)],
    ['Math.pow', mathCall('pow', [x, y]), mathCall('pow', [y, x])],
    ['Math.atan2', mathCall('atan2', [x, y]), mathCall('atan2', [y, x])],
    ['Math.max of three', mathCall('max', [x, y, z]), mathCall('max', [y, x, z])],
    ['-0 and 0', bin('*', x, num(0)), bin('*', x, num(-0))],
    ['a sum regrouped', bin('+', bin('+', x, y), z), bin('+', x, bin('+', y, z))],
  ])('%s: not the same value, never shared nor reordered', (_, first, second) => {
    const stmts = [loop([constDecl('a', first), constDecl('b', second), uses('a', 'b')])];
    expect(text(shareValues(stmts))).toBe(text(stmts));
  });

  test.each([
    ['a call of the runtime (its fault would move)', bin('+', call(member(id('rt'), 'index'), [id('i')]), x)],
    ['a temporary', bin('+', set('t', x), id('t'))],
    ['a number literal (it keeps its place)', bin('*', num(0.5), x)],
  ])('an operand that is %s keeps its place', (_, first) => {
    if (first.kind !== 'binary') throw new Error('a binary operation');
    const mirrored = bin(first.op, first.rhs, first.lhs);
    const stmts = [letDecl('t', null), loop([exprStmt(call(id('use'), [first])), exprStmt(call(id('use'), [mirrored]))])];
    expect(text(shareValues(stmts))).toBe(text(stmts));
  });

  test('IEEE 754 and ECMAScript: the operations taken as commutative are, bit for bit up to NaN payloads, on the values that decide it', () => {
    const special = [Number.NaN, -0, 0, Infinity, -Infinity, 1, -1, 0.1, 5e-324, 1.7976931348623157e308, -2147483648, 4294967295];
    const ops: Array<(a: number, b: number) => number> = [(a, b) => a + b, (a, b) => a * b, Math.min, Math.max, Math.imul, (a, b) => a & b, (a, b) => a | b, (a, b) => a ^ b];
    for (const op of ops) for (const a of special) for (const b of special) expect(Object.is(op(a, b), op(b, a)), `${op} ${a} ${b}`).toBe(true);
  });
});

describe('mirrored sums in a program', () => {
  const source = `
def f(xs: f64[n], ys: f64[n]):
  p = zipWith(lam a, b: (a + b) * (b + a) - min(a, b) / min(b, a), xs, ys)
  q = zipWith(lam a, b: a * b + (b * a) * max(b, a) + max(a, b), xs, ys)
  return zipWith(lam u, v: u - v, p, q)
`;
  const special = [Number.NaN, -0, 0, Infinity, -Infinity, 1.5, -3, 5e-324];
  const xs = array('f64', [special.length ** 2], special.flatMap((a) => special.map(() => a)));
  const ys = array('f64', [special.length ** 2], special.flatMap(() => special));

  test.each(backends.map((c) => [c.name, c] as const))('%s: computes each value once in one order and equals the interpreter at ±0, ±∞, NaN', async (_, config) => {
    const compiler = new Compiler(source, { fileName: 'mirrored.fuse', ...config.api });
    try {
      const fused = await compiler.execute({ xs, ys });
      const interpreted = await compiler.execute({ xs, ys }, { interpret: true });
      expectSameValues(fused.results, interpreted.results);
      const js = emitJs(fused.program, fused.plan!);
      for (const mirrored of [/\((\w+) \+ (\w+)\) \* \(\2 \+ \1\)/, /Math\.min\((\w+), (\w+)\) \/ Math\.min\(\2, \1\)/, /(\w+) \* (\w+) \+ \2 \* \1/]) expect(js).not.toMatch(mirrored);
      expect(js).toMatch(/\((\w+) \+ (\w+)\) \* \(\1 \+ \2\)/);
    } finally {
      await compiler.dispose();
    }
  });
});

test('x * 0.0 and x * -0.0 are two values (the keys once printed both zeros as 0 and shared them)', async () => {
  const compiler = new Compiler('def f(xs: f64[n]):\n  p = map(lam x: x * 0.0, xs)\n  q = map(lam x: x * -0.0, xs)\n  return zipWith(lam u, v: (u, v), p, q)\n');
  const xs = array('f64', [3], [1, -1, 2.5]);
  const fused = await compiler.execute({ xs });
  expectSameValues(fused.results, (await compiler.execute({ xs }, { interpret: true })).results);
  expectSameValues(fused.results, [[array('f64', [3], [0, -0, 0]), array('f64', [3], [-0, 0, -0])]]);
});

describe('a stencil in combinator style', () => {
  // Four neighbours along two axes, each a gather through its own index map over one points
  // array: the maps share their components ((i ± 1) mod n, j, (j ± 1) mod m).
  const source = `
def f(u: f64[a, b]):
  n, m = shape(u)
  at = generate((n, m), lam i, j: (i, j))
  west = gather(map(lam p: ((p[0] + n - 1) % n, p[1]), at), u)
  east = gather(map(lam p: ((p[0] + 1) % n, p[1]), at), u)
  north = gather(map(lam p: (p[0], (p[1] + m - 1) % m), at), u)
  northwest = gather(map(lam p: ((p[0] + n - 1) % n, (p[1] + m - 1) % m), at), u)
  return zipWith(lam a, b: a + b, zipWith(lam a, b: a - b, west, east), zipWith(lam a, b: 2.0 * a + b, north, northwest))
`;

  test.each([
    [4, 8],
    [3, 5],
    [1, 1],
  ])('over %i × %i equals the interpreter', async (n, m) => {
    const compiler = new Compiler(source, { fileName: 'stencil.fuse' });
    const u = array('f64', [n, m], Array.from({ length: n * m }, (_, k) => Math.cos(k) * 3));
    const fused = await compiler.execute({ u });
    const interpreted = await compiler.execute({ u }, { interpret: true });
    expectSameValues(fused.results, interpreted.results);
  });

  test('over a 4 × 8 grid (shapes specialised: wrapping is a mask) each wrapped coordinate is computed once', async () => {
    const compiler = new Compiler(source, { fileName: 'stencil.fuse' });
    const u = array('f64', [4, 8], Array.from({ length: 32 }, (_, k) => k));
    const fused = await compiler.execute({ u });
    const js = emitJs(fused.program, fused.plan!);
    // The inner loop runs as three copies of its body (general, interior, general: the interior
    // split of src/codegen/loops/interior.ts), each computing each wrapped coordinate once.
    expect(js.match(/& 3\b/g) ?? []).toHaveLength(3 * 2);
    expect(js.match(/& 7\b/g) ?? []).toHaveLength(3 * 1);
  });
});
