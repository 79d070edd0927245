// printFuse spells out every type the IR fixed, in the surface syntax of LANGUAGE.md.

import { describe, expect, it } from 'vitest';
import { SourceFile } from '../../src/diagnostics/index.js';
import { interpret } from '../../src/interp/index.js';
import type { Expr } from '../../src/ir/types.js';
import { lowerModule } from '../../src/lower/index.js';
import { parseModule } from '../../src/syntax/index.js';
import {
  arr, array, arrayParam, bin, block, c, cast, dim, idx, lam, let_, nodes, program, scalarStmt, scalarValue, arrayValue, sel, v,
} from '../ir/builders.js';
import { printFuse, printFuseExpr } from './printFuse.js';

describe('printFuseExpr', () => {
  const ranks = new Map([['xs', 1], ['m', 2], ['z', 0]]);
  it.each<[string, Expr, string]>([
    ['f64 constant with a point', c('f64', 3), '3.0'],
    ['negative f64 in parentheses', c('f64', -0.5), '(-0.5)'],
    ['large f64 without e+', c('f64', 1e30), '1e30'],
    ['f32 constant as a cast', c('f32', 0.5), 'f32(0.5)'],
    ['i32 minimum', c('i32', -2147483648), '(-2147483647 - 1)'],
    ['u32 above 2^31 through its i32 bits', c('u32', 4294967295), 'u32((-1))'],
    ['bool constant', c('bool', 1), 'true'],
    ['cast to bool is a comparison', cast('bool', v('x', 'i32')), '(x != 0)'],
    ['cast from bool is a conditional', cast('f64', v('b', 'bool')), '(1.0 if b else 0.0)'],
    ['numeric cast', cast('u32', v('x', 'f64')), 'u32(x)'],
    ['min is a call', bin('min', v('x', 'i32'), c('i32', 2)), 'min(x, 2)'],
    ['floor modulo', bin('%', v('x', 'i32'), dim('xs', 0)), '(x % shape(xs))'],
    ['dim of a rank-2 array', dim('m', 1), 'shape(m)[1]'],
    ['index', idx('m', [c('i32', 0), v('j', 'i32')], 'f64'), 'm[0, j]'],
    ['rank-0 read is the name', idx('z', [], 'f64'), 'z'],
    ['select', sel(v('b', 'bool'), c('i32', 1), c('i32', 2)), '(1 if b else 2)'],
  ])('%s', (_what, e, text) => {
    expect(printFuseExpr(e, ranks)).toBe(text);
  });
});

describe('printFuse', () => {
  it('zips tuple operands, unzips tuple results, indexes tuple params and re-binds loop variables', () => {
    const n = nodes();
    const p = program('demo', [arrayParam('xs', 'i32', 1)], [
      n.map([arr('a', 'i32', 1), arr('b', 'f64', 1)], ['xs'], lam([['x', 'i32']], [bin('+', v('t', 'i32'), c('i32', 1)), cast('f64', v('x', 'i32'))], [let_('t', bin('*', v('x', 'i32'), c('i32', 2)))])),
      n.fold([arr('sa', 'i32', 0), arr('sb', 'f64', 0)], lam([['p', 'i32'], ['q', 'f64'], ['x', 'i32'], ['y', 'f64']], [bin('+', v('p', 'i32'), v('x', 'i32')), bin('max', v('q', 'f64'), v('y', 'f64'))]), [c('i32', 0), c('f64', -1e30)], ['a', 'b']),
      scalarStmt('k', c('i32', 0)),
      n.while_([scalarValue('kk', 'i32'), arrayValue('w', 'i32', 1)], ['k', 'a'],
        block([scalarValue('kc', 'i32'), arrayValue('wc', 'i32', 1)], [scalarStmt('go', bin('<', v('kc', 'i32'), c('i32', 2)))], ['go']),
        block([scalarValue('kb', 'i32'), arrayValue('wb', 'i32', 1)], [
          scalarStmt('k1', bin('+', v('kb', 'i32'), c('i32', 1))),
          n.map([arr('w1', 'i32', 1)], ['wb'], lam([['y', 'i32']], bin('-', v('y', 'i32'), v('kb', 'i32')))),
        ], ['k1', 'w1'])),
    ], [{ name: 'r', components: [arrayValue('sa', 'i32', 0), arrayValue('sb', 'f64', 0)] }, 'w']);
    expect(printFuse(p)).toBe(
      [
        'def demo(xs: i32[n0]):',
        '  a, b = unzip(map(lam(x): ((((x * 2)) + 1), f64(x)), xs))',
        '  sa, sb = unzip(fold(lam(p_t, x_t): ((p_t[0] + x_t[0]), max(p_t[1], x_t[1])), (0, (-1e30)), zip(a, b)))',
        '  k = 0',
        '  kk = k',
        '  w = a',
        '  while ((kk < 2)):',
        '    k1 = (kk + 1)',
        '    w1 = map(lam(y): (y - kk), w)',
        '    kk = k1',
        '    w = w1',
        '  return zip(sa, sb), w',
        '',
      ].join('\n'),
    );
    // And the text means the same program.
    const file = new SourceFile('demo.fuse', printFuse(p));
    const inputs = [array('i32', [3], [1, -2, 5])];
    expect(interpret(lowerModule(parseModule(file), file), inputs)).toEqual(interpret(p, inputs));
  });
});
