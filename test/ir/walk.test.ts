// What statements and blocks read and define, by role.

import { describe, expect, it } from 'vitest';
import { allStmts, blockFreeVars, lambdaUses, scalarIndexedArrays, stmtDefs, stmtFreeVars, stmtReads } from '../../src/ir/walk.js';
import {
  arr,
  arrayParam,
  arrayValue,
  bin,
  block,
  dim,
  f64,
  i32,
  idx,
  lam,
  let_,
  nodes,
  opLam,
  program,
  scalarStmt,
  scalarValue,
  v,
} from './builders.js';

const sorted = (s: ReadonlySet<string>) => [...s].sort();

describe('uses of element code', () => {
  it('separates scalars, indexed arrays and dims, without the lambda own params and lets', () => {
    const l = lam([['x', 'f64']], bin('+', v('t', 'f64'), v('w', 'f64')), [
      let_('t', bin('*', v('x', 'f64'), idx('table', [bin('%', v('k', 'i32'), dim('shapeOnly', 0))], 'f64'))),
    ]);
    const uses = lambdaUses(l);
    expect(sorted(uses.scalars)).toEqual(['k', 'w']);
    expect(sorted(uses.indexed)).toEqual(['table']);
    expect(sorted(uses.dims)).toEqual(['shapeOnly']);
  });
});

describe('statement reads', () => {
  const n = nodes();
  it.each([
    [n.gather([arr('ys', 'f64', 1)], ['is'], ['xs']), [['is', 'gather-indices'], ['xs', 'gather-source']]],
    [n.scatter([arr('o', 'f64', 1)], opLam('+', 'f64'), ['d'], ['is'], ['vs']), [['d', 'scatter-dest'], ['is', 'scatter-index'], ['vs', 'scatter-values']]],
    [n.map([arr('o2', 'f64', 1)], ['a', 'b'], opLam('+', 'f64')), [['a', 'map-input'], ['b', 'map-input']]],
    [n.fold([arr('s', 'f64', 0)], opLam('+', 'f64'), [v('z', 'f64')], ['xs']), [['xs', 'fold-input']]],
    [n.scanr([arr('s2', 'f64', 1)], opLam('+', 'f64'), null, ['xs']), [['xs', 'scanr-input']]],
    [n.force([arr('f', 'f64', 1)], ['xs']), [['xs', 'force-input']]],
  ])('%#', (stmt, inputs) => {
    expect(stmtReads(stmt).inputs.map((r) => [r.name, r.role])).toEqual(inputs);
  });

  it('counts a fold seed and a generate shape as element code uses', () => {
    const fold = n.fold([arr('s3', 'f64', 0)], opLam('+', 'f64'), [idx('zs', [i32(0)], 'f64')], ['xs']);
    expect(sorted(stmtReads(fold).indexed)).toEqual(['zs']);
    const gen = n.generate([arr('g', 'f64', 1)], [dim('xs', 0)], lam([['i', 'i32']], v('c', 'f64')));
    expect(sorted(stmtReads(gen).dims)).toEqual(['xs']);
    expect(sorted(stmtReads(gen).scalars)).toEqual(['c']);
  });

  it('reports what control flow captures from outside, and a while init as its inputs', () => {
    const body = block([arrayValue('bx', 'f64', 1)], [
      n.map([arr('bx2', 'f64', 1)], ['bx', 'outsideArr'], lam([['x', 'f64'], ['y', 'f64']], bin('+', v('x', 'f64'), v('s', 'f64')))),
    ], ['bx2']);
    const cond = block([arrayValue('cx', 'f64', 1)], [scalarStmt('go', bin('<', idx('cx', [i32(0)], 'f64'), v('limit', 'f64')))], ['go']);
    const w = n.while_([arrayValue('out', 'f64', 1)], ['xs'], cond, body);
    const reads = stmtReads(w);
    expect(reads.inputs).toEqual([{ name: 'xs', role: 'while-init' }]);
    expect(sorted(reads.captured)).toEqual(['limit', 'outsideArr', 's']);
    expect(sorted(stmtFreeVars(w))).toEqual(['limit', 'outsideArr', 's', 'xs']);
    expect(stmtDefs(w)).toEqual([arrayValue('out', 'f64', 1)]);
  });
});

describe('blocks', () => {
  it('finds a block free variables, results included', () => {
    const n = nodes();
    const b = block([arrayValue('p', 'f64', 1)], [
      scalarStmt('k', bin('+', v('outer', 'i32'), i32(1))),
      n.map([arr('q', 'f64', 1)], ['p', 'other'], opLam('+', 'f64')),
    ], ['q', 'k', 'passthrough']);
    expect(sorted(blockFreeVars(b))).toEqual(['other', 'outer', 'passthrough']);
  });

  it('follows scalar statements to the arrays they index, transitively', () => {
    const b = block([], [
      scalarStmt('a', idx('zs', [i32(0)], 'f64')),
      scalarStmt('b', bin('+', v('a', 'f64'), f64(1))),
      scalarStmt('c', bin('+', v('b', 'f64'), idx('ws', [i32(1)], 'f64'))),
    ], []);
    const m = scalarIndexedArrays(b);
    expect(sorted(m.get('b')!)).toEqual(['zs']);
    expect(sorted(m.get('c')!)).toEqual(['ws', 'zs']);
  });

  it('lists every statement of a program, nested ones included', () => {
    const n = nodes();
    const inner = n.map([arr('t', 'f64', 1)], ['xs'], opLam('+', 'f64'));
    const p = program('p', [arrayParam('xs', 'f64', 1)], [
      n.if_([arrayValue('r', 'f64', 1)], v('b', 'bool'), block([], [inner], ['t']), block([], [], ['xs'])),
    ], ['r']);
    expect(allStmts(p).map((s) => s.kind)).toEqual(['if', 'map']);
    expect(scalarValue('x', 'f64').kind).toBe('scalar');
  });
});
