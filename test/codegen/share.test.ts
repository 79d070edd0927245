// Repeated pure values of a loop body computed once (codegen/share.ts): what is shared and what
// never is, and that a stencil in combinator style (gathers through index maps that share their
// components) computes each wrapped coordinate once and still equals the interpreter.

import { describe, expect, test } from 'vitest';
import { Compiler } from '../../src/driver/index.js';
import { assign, bin, call, cond, constDecl, exprStmt, id, index, letDecl, mathCall, member, num, set, type JsStmt } from '../../src/codegen/jsast.js';
import { printProgramText } from '../../src/codegen/printer.js';
import { emitJs } from '../../src/runtime/index.js';
import { shareValues } from '../../src/codegen/share.js';
import { array } from '../ir/builders.js';
import { expectSameValues } from '../runtime/equal.js';

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
