// Printer goldens: the paper's notation, deterministic, with node ids for reading plans.

import { describe, expect, it } from 'vitest';
import { printExpr, printLambda, printProgram } from '../../src/ir/printer.js';
import {
  arr,
  arrayParam,
  arrayValue,
  bin,
  block,
  bool,
  c,
  call,
  cast,
  dim,
  f32,
  f64,
  i32,
  idx,
  lam,
  let_,
  nodes,
  opLam,
  program,
  scalarParam,
  scalarStmt,
  scalarValue,
  sel,
  tupleParam,
  u32,
  un,
  v,
} from './builders.js';

const x = v('x', 'f64');
const y = v('y', 'f64');
const k = v('k', 'i32');

describe('printExpr', () => {
  it.each([
    [bin('*', bin('+', x, y), f64(2)), '(x + y) * 2.0'],
    [bin('+', x, bin('*', y, f64(2))), 'x + y * 2.0'],
    [bin('-', x, bin('-', y, f64(1))), 'x - (y - 1.0)'],
    [bin('-', bin('-', x, y), f64(1)), 'x - y - 1.0'],
    [bin('**', bin('**', x, y), f64(2)), '(x ** y) ** 2.0'],
    [bin('**', x, bin('**', y, f64(2))), 'x ** y ** 2.0'],
    [un('neg', bin('**', x, f64(2))), '-x ** 2.0'],
    [bin('**', un('neg', x), f64(2)), '(-x) ** 2.0'],
    [un('neg', c('i32', -1)), '-(-1)'],
    [bin('<', bin('<', k, i32(1)), bool(true)), '(k < 1) < true'],
    [un('not', bin('and', bin('==', k, i32(0)), bool(false))), 'not (k == 0 and false)'],
    [bin('or', bin('and', bool(true), bool(false)), bool(true)), 'true and false or true'],
    [sel(bin('>', x, f64(0)), x, sel(bool(true), y, f64(0.5))), 'x if x > 0.0 else y if true else 0.5'],
    [bin('+', sel(bool(true), x, y), f64(1)), '(x if true else y) + 1.0'],
    [bin('min', x, call('sqrt', y)), 'min(x, sqrt(y))'],
    [cast('i32', bin('/', x, f64(1e300))), 'i32(x / 1e+300)'],
    [idx('m', [k, bin('//', k, i32(2))], 'f64'), 'm[k, k // 2]'],
    [idx('z', [], 'f64'), 'z[]'],
    [dim('m', 1), 'dim(m, 1)'],
    [c('f64', Infinity), 'inf'],
    [c('f64', -Infinity), '-inf'],
    [c('f64', NaN), 'nan'],
    [f32(0.5), 'f32(0.5)'],
    [u32(7), 'u32(7)'],
  ])('%#: %s', (e, text) => {
    expect(printExpr(e)).toBe(text);
  });

  it('prints lambdas with their lets and tuple results', () => {
    const l = lam([['a', 'f64'], ['b', 'i32']], [v('t', 'f64'), v('b', 'i32')], [let_('t', bin('*', v('a', 'f64'), f64(2)))]);
    expect(printLambda(l)).toBe('λ(a: f64, b: i32): let t = a * 2.0; (t, b)');
  });
});

describe('printProgram', () => {
  it('prints singleLoop in the paper notation', () => {
    const n = nodes();
    const t = 'i32';
    const p = program('singleLoop', [arrayParam('as', 'f64', 1)], [
      n.generate([arr('inds', t, 1)], [dim('as', 0)], lam([['i', t]], bin('-', bin('-', dim('as', 0), v('i', t)), i32(1)))),
      n.gather([arr('bs', 'f64', 1)], ['inds'], ['as']),
      n.map([arr('cs', 'f64', 1)], ['as'], lam([['a', 'f64']], bin('*', v('a', 'f64'), f64(2)))),
      n.map([arr('ds', 'f64', 1)], ['cs'], lam([['c', 'f64']], bin('+', v('c', 'f64'), f64(1)))),
      n.map([arr('result', 'f64', 1)], ['bs', 'cs', 'ds'], lam([['b', 'f64'], ['c2', 'f64'], ['d', 'f64']], bin('+', bin('+', v('b', 'f64'), v('c2', 'f64')), v('d', 'f64')))),
    ], ['result']);
    expect(printProgram(p)).toMatchInlineSnapshot(`
      "def singleLoop(as: f64[_]):
        inds = generate((dim(as, 0)), λ(i: i32): dim(as, 0) - i - 1)  # 0
        bs = gather(inds, as)  # 1
        cs = map(λ(a: f64): a * 2.0, as)  # 2
        ds = map(λ(c: f64): c + 1.0, cs)  # 3
        result = map(λ(b: f64, c2: f64, d: f64): b + c2 + d, bs, cs, ds)  # 4
        return result
      "
    `);
  });

  it('prints every other statement form', () => {
    const n = nodes(10);
    const thenMap = n.map([arr('t', 'f64', 1)], ['xs'], lam([['x', 'f64']], x));
    const p = program('forms', [
      arrayParam('xs', 'f64', 2),
      tupleParam('ps', [arrayValue('ps0', 'i32', 1), arrayValue('ps1', 'f64', 1)]),
      scalarParam('b', 'bool'),
    ], [
      scalarStmt('m', dim('xs', 0)),
      n.fold([arr('sums', 'f64', 1)], opLam('+', 'f64'), [f64(0)], ['xs']),
      n.scanl([arr('pre', 'i32', 1)], opLam('+', 'i32'), [i32(0)], ['ps0']),
      n.scanr([arr('suf', 'f64', 1)], opLam('max', 'f64'), null, ['ps1']),
      n.scatter([arr('sc', 'f64', 1)], opLam('+', 'f64', 'old', 'new'), ['sums'], ['pre'], ['suf']),
      n.gather([arr('g0', 'i32', 1), arr('g1', 'f64', 1)], ['pre'], ['ps0', 'ps1']),
      n.force([arr('fz', 'f64', 1)], ['sc']),
      n.if_([arrayValue('r', 'f64', 1)], v('b', 'bool'), block([], [thenMap], ['t']), block([], [], ['fz'])),
      n.while_(
        [arrayValue('w', 'f64', 1), scalarValue('wk', 'i32')],
        ['r', 'm'],
        block([arrayValue('cr', 'f64', 1), scalarValue('ck', 'i32')], [scalarStmt('go', bin('>', v('ck', 'i32'), i32(0)))], ['go']),
        block([arrayValue('br', 'f64', 1), scalarValue('bk', 'i32')], [scalarStmt('bk2', bin('-', v('bk', 'i32'), i32(1)))], ['br', 'bk2']),
      ),
    ], ['w', { name: 'pair', components: [arrayValue('g0', 'i32', 1), arrayValue('g1', 'f64', 1)] }]);
    expect(printProgram(p)).toMatchInlineSnapshot(`
      "def forms(xs: f64[_, _], ps0: i32[_], ps1: f64[_], b: bool):
        # param ps = (ps0, ps1)
        m = dim(xs, 0)
        sums = fold(λ(a: f64, b: f64): a + b, 0.0, xs)  # 11
        pre = scanl(λ(a: i32, b: i32): a + b, 0, ps0)  # 12
        suf = scanr(λ(a: f64, b: f64): max(a, b), ps1)  # 13
        sc = scatter(λ(old: f64, new: f64): old + new, sums, pre, suf)  # 14
        g0, g1 = gather(pre, (ps0, ps1))  # 15
        fz = force(sc)  # 16
        r = if b:  # 17
          t = map(λ(x: f64): x, xs)  # 10
          yield t
        else:
          yield fz
        w, wk = while r, m:  # 18
          cond(cr: f64[_], ck: i32):
            go = ck > 0
            yield go
          body(br: f64[_], bk: i32):
            bk2 = bk - 1
            yield br, bk2
        # result pair = (g0, g1)
        return w, g0, g1
      "
    `);
  });
});
