// Hand-built programs covering every combinator, ranks 1–3, tuples and every element type,
// each run fused under hand-written valid plans and under `none`, on every registered back
// end, against the interpreter, bit for bit (floats included: folds and scans keep the
// interpreter's order).

import { describe, expect, test } from 'vitest';
import { interpret } from '../../src/interp/index.js';
import type { Program } from '../../src/ir/types.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import type { BlockPlan, Plan } from '../../src/plan/types.js';
import { validatePlan } from '../../src/check/validate.js';
import { emitJs } from '../../src/runtime/index.js';
import {
  arr, array, arrayParam, arrayValue, bin, block, call, cast, dim, f32, f64, i32, idx, lam, let_, nodes, opLam, program,
  scalar, scalarParam, scalarStmt, scalarValue, sel, u32, un, v,
} from '../ir/builders.js';
import { nonePlan, planOf } from '../codegen/paper.js';
import { expectSameValues } from './equal.js';
import { backends, runOn } from './backends.js';

interface Case {
  readonly name: string;
  readonly program: Program;
  readonly plans: readonly (readonly [string, Plan])[];
  readonly inputs: readonly InterfaceValue[];
}

const range = (n: number, f: (i: number) => number): number[] => Array.from({ length: n }, (_, i) => f(i));

/** Tuples, f32 and wrapping i32 through a map fused into a rank-3 → rank-2 fold. */
function tupleFold(): Case {
  const n = nodes();
  const m = n.map(
    [arr('a', 'f32', 3), arr('b', 'i32', 3)],
    ['xs', 'ys'],
    lam([['x', 'f32'], ['y', 'i32']], [bin('*', v('x', 'f32'), f32(1.5)), bin('*', v('y', 'i32'), i32(1000003))]),
  );
  const fo = n.fold(
    [arr('s', 'f32', 2), arr('p', 'i32', 2)],
    lam([['s0', 'f32'], ['p0', 'i32'], ['x', 'f32'], ['y', 'i32']], [bin('+', v('s0', 'f32'), v('x', 'f32')), bin('*', v('p0', 'i32'), v('y', 'i32'))]),
    [f32(0.1), i32(1)],
    ['a', 'b'],
  );
  const p = program('tupleFold', [arrayParam('xs', 'f32', 3), arrayParam('ys', 'i32', 3)], [m, fo], ['s', 'p']);
  return {
    name: 'tuples through a fused rank-3 fold',
    program: p,
    plans: [['fused', planOf([{ nodes: [0, 1], manifest: ['s', 'p'] }], { 0: 0, 1: 0 })]],
    inputs: [array('f32', [2, 3, 4], range(24, (i) => Math.fround(i * 0.37 - 3))), array('i32', [2, 3, 4], range(24, (i) => i * 7919 - 50000))],
  };
}

/** Inclusive and exclusive scans both ways, u32 and f64, rank 2, fused with their producers and consumers. */
function scans(): Case {
  const n = nodes();
  const m = n.map([arr('m', 'f64', 2)], ['xs'], lam([['x', 'f64']], bin('*', v('x', 'f64'), f64(0.1))));
  const sl = n.scanl([arr('sl', 'f64', 2)], opLam('+', 'f64'), null, ['m']);
  const sle = n.scanl([arr('sle', 'u32', 2)], opLam('*', 'u32'), [u32(3)], ['us']);
  const sr = n.scanr([arr('sr', 'f64', 2)], opLam('-', 'f64'), null, ['xs']);
  const sre = n.scanr([arr('sre', 'f64', 2)], opLam('-', 'f64'), [f64(0.5)], ['xs']);
  const after = n.map([arr('z', 'f64', 2)], ['sr', 'sre'], lam([['a', 'f64'], ['b', 'f64']], bin('/', v('a', 'f64'), v('b', 'f64'))));
  const p = program('scans', [arrayParam('xs', 'f64', 2), arrayParam('us', 'u32', 2)], [m, sl, sle, sr, sre, after], ['sl', 'sle', 'sr', 'z']);
  return {
    name: 'scans',
    program: p,
    plans: [
      [
        'fused',
        planOf(
          [
            { nodes: [0, 1], manifest: ['sl'] },
            { nodes: [2], manifest: ['sle'] },
            { nodes: [3, 4, 5], manifest: ['sr', 'z'] },
          ],
          { 0: 0, 1: 0, 2: 0, 3: 1, 4: 1, 5: 1 },
        ),
      ],
    ],
    inputs: [array('f64', [3, 4], range(12, (i) => (i % 5) * 1.25 - 2)), array('u32', [3, 4], range(12, (i) => (i * 2654435761) >>> 0))],
  };
}

/** Every element type and operation in a rank-3 generate: casts, select, floor division, powers. */
function elementOps(): Case {
  const n = nodes();
  const i = v('i', 'i32');
  const j = v('j', 'i32');
  const k = v('k', 'i32');
  const g = n.generate(
    [arr('gi', 'i32', 3), arr('gu', 'u32', 3), arr('gf', 'f32', 3), arr('gd', 'f64', 3), arr('gb', 'bool', 3)],
    [i32(2), i32(3), dim('xs', 0)],
    lam(
      [['i', 'i32'], ['j', 'i32'], ['k', 'i32']],
      [
        bin('+', bin('//', bin('-', i, i32(7)), bin('+', j, i32(1))), bin('%', bin('*', k, i32(-3)), i32(4))),
        bin('**', cast('u32', bin('+', k, i32(2))), u32(13)),
        cast('f32', bin('/', cast('f64', j), f64(3))),
        sel(bin('<', i, j), call('sqrt', v('t', 'f64')), bin('max', v('t', 'f64'), idx('xs', [k], 'f64'))),
        bin('or', un('not', bin('==', i, k)), bin('and', cast('bool', j), bin('>=', k, j))),
      ],
      [let_('t', bin('**', cast('f64', bin('-', k, j)), f64(2.5)))],
    ),
  );
  const p = program('elementOps', [arrayParam('xs', 'f64', 1)], [g], ['gi', 'gu', 'gf', 'gd', 'gb']);
  return { name: 'element operations of every type', program: p, plans: [], inputs: [array('f64', [4], [0.5, -1, 2, Number.NaN])] };
}

/** A 2-D gather (two index arrays) of a fused generate, feeding a map; and a 2-D scatter. */
function gatherScatter2d(): Case {
  const n = nodes();
  const src = n.generate([arr('src', 'f64', 2)], [i32(3), i32(4)], lam([['i', 'i32'], ['j', 'i32']], cast('f64', bin('+', bin('*', v('i', 'i32'), i32(10)), v('j', 'i32')))));
  const ga = n.gather([arr('ga', 'f64', 1)], ['r', 'c'], ['src']);
  const m = n.map([arr('m', 'f64', 1)], ['ga', 'w'], lam([['g', 'f64'], ['x', 'f64']], bin('+', v('g', 'f64'), v('x', 'f64'))));
  const dst = n.generate([arr('dst', 'f64', 2)], [i32(2), i32(2)], lam([['i', 'i32'], ['j', 'i32']], f64(0)));
  const ir = n.map([arr('ir', 'i32', 1)], ['r'], lam([['x', 'i32']], bin('%', v('x', 'i32'), i32(2))));
  const sc = n.scatter([arr('sc', 'f64', 2)], opLam('+', 'f64', 'old', 'new'), ['dst'], ['ir', 'ir'], ['m']);
  const p = program('gs', [arrayParam('r', 'i32', 1), arrayParam('c', 'i32', 1), arrayParam('w', 'f64', 1)], [src, ga, m, dst, ir, sc], ['ga', 'sc']);
  return {
    name: '2-D gather and scatter',
    program: p,
    plans: [
      [
        'fused',
        planOf(
          [
            { nodes: [3], manifest: ['dst'] },
            { nodes: [0, 1, 2, 4, 5], manifest: ['ga', 'sc'] },
          ],
          { 0: { gather: 1 }, 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 },
        ),
      ],
    ],
    inputs: [array('i32', [5], [2, 0, 1, 2, 1]), array('i32', [5], [3, 0, 2, 1, 3]), array('f64', [5], [0.5, 1, 1.5, 2, 2.5])],
  };
}

/** Diagonal fusion into a fold (the map is also a result), two folds sharing one row loop, force. */
function diagonalFolds(): Case {
  const n = nodes();
  const m = n.map([arr('m', 'f64', 2)], ['xs'], lam([['x', 'f64']], bin('*', v('x', 'f64'), v('x', 'f64'))));
  const sum = n.fold([arr('sum', 'f64', 1)], opLam('+', 'f64'), [f64(0)], ['m']);
  const mx = n.fold([arr('mx', 'f64', 1)], opLam('max', 'f64'), [f64(-Infinity)], ['xs']);
  const both = n.map([arr('both', 'f64', 1)], ['sum', 'mx'], lam([['s', 'f64'], ['x', 'f64']], bin('-', v('s', 'f64'), v('x', 'f64'))));
  const fc = n.force([arr('fc', 'f64', 1)], ['both']);
  const total = n.fold([arr('total', 'f64', 0)], opLam('+', 'f64'), [f64(0)], ['fc']);
  const p = program('diag', [arrayParam('xs', 'f64', 2)], [m, sum, mx, both, fc, total], ['m', 'both', 'total']);
  return {
    name: 'diagonal fusion, folds sharing a row loop, force',
    program: p,
    plans: [
      [
        'fused',
        planOf(
          [
            { nodes: [0, 1, 2, 3], manifest: ['m', 'both'] },
            { nodes: [4], manifest: ['fc'] },
            { nodes: [5], manifest: ['total'] },
          ],
          { 0: 0, 1: 0, 2: 0, 3: 0, 4: 0, 5: 0 },
        ),
      ],
    ],
    inputs: [array('f64', [3, 4], range(12, (i) => Math.sin(i) * 3))],
  };
}

/** Array-level `if` and `while` with plans for their blocks, and scalar statements. */
function controlFlow(): Case {
  const n = nodes();
  const thenMap = n.map([arr('t1', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('+', v('x', 'f64'), f64(1))));
  const thenMap2 = n.map([arr('t2', 'f64', 1)], ['t1'], lam([['x', 'f64']], bin('*', v('x', 'f64'), f64(2))));
  const elseMap = n.map([arr('e1', 'f64', 1)], ['xs'], lam([['x', 'f64']], un('neg', v('x', 'f64'))));
  const iff = n.if_([arrayValue('ys', 'f64', 1)], bin('>', v('k', 'i32'), i32(0)), block([], [thenMap, thenMap2], ['t2']), block([], [elseMap], ['e1']));
  const s = scalarStmt('first', idx('ys', [i32(0)], 'f64'));
  const condStmt = scalarStmt('go', bin('<', v('c', 'i32'), v('k', 'i32')));
  const step = n.map([arr('acc2', 'f64', 1)], ['acc'], lam([['x', 'f64']], bin('+', bin('*', v('x', 'f64'), f64(0.5)), v('first', 'f64'))));
  const inc = scalarStmt('c2', bin('+', v('c', 'i32'), i32(1)));
  const loop = n.while_(
    [scalarValue('cn', 'i32'), arrayValue('zs', 'f64', 1)],
    ['zero', 'ys'],
    block([scalarValue('c', 'i32'), arrayValue('acc', 'f64', 1)], [condStmt], ['go']),
    block([scalarValue('c', 'i32'), arrayValue('acc', 'f64', 1)], [inc, step], ['c2', 'acc2']),
  );
  const p = program('control', [arrayParam('xs', 'f64', 1), scalarParam('k', 'i32')], [iff, s, scalarStmt('zero', i32(0)), loop], ['zs', 'cn']);
  const children: Record<number, readonly BlockPlan[]> = {
    [iff.id]: [
      { clusters: [{ nodes: [thenMap.id, thenMap2.id], manifest: ['t2'] }], orders: { [thenMap.id]: 0, [thenMap2.id]: 0 }, children: {} },
      { clusters: [{ nodes: [elseMap.id], manifest: ['e1'] }], orders: { [elseMap.id]: 0 }, children: {} },
    ],
    [loop.id]: [
      { clusters: [], orders: {}, children: {} },
      { clusters: [{ nodes: [step.id], manifest: ['acc2'] }], orders: { [step.id]: 0 }, children: {} },
    ],
  };
  const top = planOf([{ nodes: [iff.id], manifest: [] }, { nodes: [loop.id], manifest: [] }], {});
  const plan: Plan = { ...top, root: { ...top.root, children } };
  return { name: 'if and while', program: p, plans: [['with child plans', plan]], inputs: [array('f64', [3], [1, 2, 3]), scalar('i32', 3)] };
}

/** A scatter in order 1 with colliding indices and a take-the-new-value op: source order still wins. */
function scatterOrder1(): Case {
  const n = nodes();
  const dst = n.generate([arr('dst', 'f64', 1)], [i32(3)], lam([['i', 'i32']], f64(-1)));
  const vals = n.map([arr('vals', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('*', v('x', 'f64'), f64(10))));
  const ix = n.map([arr('ix', 'i32', 1)], ['xs'], lam([['x', 'f64']], bin('%', cast('i32', v('x', 'f64')), i32(3))));
  const sc = n.scatter([arr('sc', 'f64', 1)], lam([['old', 'f64'], ['new', 'f64']], v('new', 'f64')), ['dst'], ['ix'], ['vals']);
  const p = program('scatter1', [arrayParam('xs', 'f64', 1)], [dst, vals, ix, sc], ['sc']);
  return {
    name: 'scatter in order 1',
    program: p,
    plans: [['fused, order 1', planOf([{ nodes: [0], manifest: ['dst'] }, { nodes: [1, 2, 3], manifest: ['sc'] }], { 0: 0, 1: 1, 2: 1, 3: 1 })]],
    inputs: [array('f64', [6], [0, 3, 1, 4, 2, 6])],
  };
}

const cases = [tupleFold(), scans(), elementOps(), gatherScatter2d(), diagonalFolds(), controlFlow(), scatterOrder1()];

describe.each(backends)('$name back end', (config) => {
  describe.each(cases)('$name', (c) => {
    // `nonePlan` knows no control flow; the control-flow case brings its own plans.
    const plans = c.program.body.stmts.some((st) => st.kind === 'if' || st.kind === 'while')
      ? c.plans
      : [...c.plans, ['none', nonePlan(c.program)] as const];
    test.each(plans)('%s plan equals the interpreter', async (_, plan) => {
      expect(validatePlan(c.program, plan)).toEqual([]);
      const expected = interpret(c.program, c.inputs);
      expectSameValues((await runOn(config, c.program, plan, c.inputs)).results, expected);
    });
  });
});

test('two folds over one row share one inner loop; the diagonal map is stored inside it', () => {
  const c = diagonalFolds();
  const text = emitJs(c.program, c.plans[0]![1]);
  const whole = text.slice(text.indexOf('function c0'), text.indexOf('function c1'));
  // The loop over rows is jammed by four (codegen/jam.ts); the rows left over run the plain nest.
  const cluster0 = whole.slice(whole.lastIndexOf('for (let i'));
  expect(cluster0.match(/for \(/g)).toHaveLength(2);
  expect(cluster0).toMatch(/for \(let j\d+[^]*\] = m\d+;[^]*acc\d+ = r\d+;[^]*acc\d+ = r\d+;/);
});
