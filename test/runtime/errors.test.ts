// Run-time errors raised by fused code, on every registered back end, are the interpreter's:
// same code, same message, the user's source location (the IR node's span, or the IndexExpr's /
// operator's own).

import { describe, expect, test } from 'vitest';
import { diagnosticPosition, SourceFile, UserError } from '../../src/diagnostics/index.js';
import { interpret } from '../../src/interp/index.js';
import type { Program } from '../../src/ir/types.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import type { Plan } from '../../src/plan/types.js';
import {
  arr, array, arrayParam, bin, block, dim, f64, i32, idx, lam, nodes, opLam, program, scalar, scalarParam,
  scalarStmt, scalarValue, sp, v,
} from '../ir/builders.js';
import { planOf } from '../codegen/paper.js';
import { backends, compileOn, runOn } from './backends.js';

// Made-up source text; only the positions of the spans below matter.
const text = ['def f(is, xs):', '  as = map(lam x: x * x, xs)', '  bs = gather(is, as)', '  cs = zipWith(g, as, is)', '  return bs'].join('\n');
const file = new SourceFile('f.fuse', text);
const at = (line: number, col: number, len = 2): ReturnType<typeof sp> => {
  const start = text.split('\n').slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + col - 1;
  return sp(start, start + len);
};

function fusedGather(): { program: Program; plan: Plan } {
  const n = nodes();
  const as = n.map([arr('as', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('*', v('x', 'f64'), v('x', 'f64'))), at(2, 8));
  const bs = n.gather([arr('bs', 'f64', 1)], ['is'], ['as'], at(3, 8));
  return {
    program: program('f', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f64', 1)], [as, bs], ['bs']),
    plan: planOf([{ nodes: [0, 1], manifest: ['bs'] }], { 0: { gather: 1 }, 1: 0 }),
  };
}

function fusedScatter(): { program: Program; plan: Plan } {
  const n = nodes();
  const d = n.generate([arr('d', 'f64', 2)], [i32(2), i32(2)], lam([['i', 'i32'], ['j', 'i32']], f64(0)), at(2, 3));
  const j = n.map([arr('j', 'i32', 1)], ['is'], lam([['x', 'i32']], bin('+', v('x', 'i32'), i32(1))), at(3, 3));
  const sc = n.scatter([arr('sc', 'f64', 2)], opLam('+', 'f64'), ['d'], ['is', 'j'], ['xs'], at(4, 8));
  return {
    program: program('f', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f64', 1)], [d, j, sc], ['sc']),
    plan: planOf([{ nodes: [0], manifest: ['d'] }, { nodes: [1, 2], manifest: ['sc'] }], { 0: 0, 1: 0, 2: 0 }),
  };
}

function indexing(): { program: Program; plan: Plan } {
  const n = nodes();
  const as = n.map([arr('as', 'f64', 1)], ['is'], lam([['i', 'i32']], idx('xs', [bin('*', v('i', 'i32'), i32(2))], 'f64', at(2, 19, 5))), at(2, 8));
  const bs = n.map([arr('bs', 'f64', 1)], ['as'], lam([['a', 'f64']], bin('+', v('a', 'f64'), f64(1))), at(3, 8));
  return {
    program: program('f', [arrayParam('is', 'i32', 1), arrayParam('xs', 'f64', 1)], [as, bs], ['bs']),
    plan: planOf([{ nodes: [0, 1], manifest: ['bs'] }], { 0: 0, 1: 0 }),
  };
}

function zipMismatch(): { program: Program; plan: Plan } {
  const n = nodes();
  const as = n.map([arr('as', 'f64', 1)], ['xs'], lam([['x', 'f64']], v('x', 'f64')), at(2, 8));
  const cs = n.map([arr('cs', 'f64', 1)], ['as', 'ys'], lam([['a', 'f64'], ['b', 'f64']], bin('+', v('a', 'f64'), v('b', 'f64'))), at(4, 8));
  return {
    program: program('f', [arrayParam('xs', 'f64', 1), arrayParam('ys', 'f64', 1)], [as, cs], ['cs']),
    plan: planOf([{ nodes: [0, 1], manifest: ['cs'] }], { 0: 0, 1: 0 }),
  };
}

function division(): { program: Program; plan: Plan } {
  const n = nodes();
  const as = n.map([arr('as', 'i32', 1)], ['is'], lam([['i', 'i32']], bin('//', i32(7), v('i', 'i32'), at(2, 20, 1))), at(2, 8));
  const bs = n.map([arr('bs', 'i32', 1)], ['as'], lam([['a', 'i32']], bin('%', v('a', 'i32'), i32(3))), at(3, 8));
  return {
    program: program('f', [arrayParam('is', 'i32', 1)], [as, bs], ['bs']),
    plan: planOf([{ nodes: [0, 1], manifest: ['bs'] }], { 0: 0, 1: 0 }),
  };
}

function negativeSize(): { program: Program; plan: Plan } {
  const n = nodes();
  const g = n.generate([arr('g', 'f64', 1)], [{ ...bin('-', dim('xs', 0), i32(10)), span: at(2, 15, 4) }], lam([['i', 'i32']], f64(1)), at(2, 8));
  return { program: program('f', [arrayParam('xs', 'f64', 1)], [g], ['g']), plan: planOf([{ nodes: [0], manifest: ['g'] }], { 0: 0 }) };
}

function endless(): { program: Program; plan: Plan } {
  const n = nodes();
  const loop = n.while_(
    [scalarValue('out', 'i32')],
    ['k'],
    block([scalarValue('c', 'i32')], [scalarStmt('go', bin('>=', v('c', 'i32'), i32(0)))], ['go']),
    block([scalarValue('c', 'i32')], [scalarStmt('c2', bin('+', v('c', 'i32'), i32(1)))], ['c2']),
    at(3, 3),
  );
  const p = program('f', [scalarParam('k', 'i32')], [loop], [{ name: 'out', components: [scalarValue('out', 'i32')] }]);
  const plan = planOf([{ nodes: [0], manifest: [] }], {});
  const empty = { clusters: [], orders: {}, children: {} };
  return { program: p, plan: { ...plan, root: { ...plan.root, children: { 0: [empty, empty] } } } };
}

const cases: readonly (readonly [string, () => { program: Program; plan: Plan }, readonly InterfaceValue[], string, string, string])[] = [
  ['fused gather, index out of range', fusedGather, [array('i32', [3], [0, 7, 1]), array('f64', [3], [1, 2, 3])], 'E402', 'gather: index 7 is out of range for an array of shape [3] (position 1 of the index array)', '3:8'],
  ['fused scatter, index out of range', fusedScatter, [array('i32', [2], [0, 1]), array('f64', [2], [1, 2])], 'E402', 'scatter: index [1, 2] is out of range for a destination of shape [2, 2] (position 1 of the source)', '4:8'],
  ['indexing inside a fused map', indexing, [array('i32', [2], [1, 2]), array('f64', [4], [1, 2, 3, 4])], 'E402', 'map: index 4 is out of range for xs of shape [4] (dimension 0)', '2:19'],
  ['element-wise shapes differ', zipMismatch, [array('f64', [3], [1, 2, 3]), array('f64', [2], [1, 2])], 'E403', 'map: shapes [3] and [2] differ (inputs as and ys)', '4:8'],
  ['integer division by zero', division, [array('i32', [2], [1, 0])], 'E401', 'map: integer division by zero (7 // 0)', '2:20'],
  ['negative generate size', negativeSize, [array('f64', [3], [1, 2, 3])], 'E404', 'generate: size -7 of dimension 0 is not a non-negative integer', '2:15'],
  ['while past the iteration limit', endless, [scalar('i32', 0)], 'E405', 'while: the loop did not finish within 5 iterations', '3:3'],
];

function failure(run: () => unknown): UserError {
  try {
    run();
  } catch (err) {
    if (err instanceof UserError) return err;
    throw err;
  }
  throw new Error('expected a UserError');
}

/** The UserError `run` rejects with (or throws). */
async function rejection(run: () => Promise<unknown>): Promise<UserError> {
  try {
    await run();
  } catch (err) {
    if (err instanceof UserError) return err;
    throw err;
  }
  throw new Error('expected a UserError');
}

describe.each(backends)('$name back end: run-time errors from fused code', (config) => {
  test.each(cases)('%s', async (_, make, inputs, code, message, position) => {
    const { program: p, plan } = make();
    const fused = await rejection(() => runOn(config, p, plan, inputs, { file, maxWhileIterations: 5 }));
    expect(fused.code).toBe(code);
    expect(fused.diagnostics[0]!.message).toContain(message);
    expect(diagnosticPosition(fused.diagnostics[0]!)).toBe(position);
    // The interpreter says exactly the same.
    const reference = failure(() => interpret(p, inputs, { file, maxWhileIterations: 5 }));
    expect(fused.diagnostics).toEqual(reference.diagnostics);
  });

  test('inputs are checked against the entry parameters like the interpreter does', async () => {
    const { program: p, plan } = fusedGather();
    const compiled = await compileOn(config, p, plan, { file });
    expect((await rejection(async () => compiled.run([array('i32', [1], [0])]))).code).toBe('E410');
    expect((await rejection(async () => compiled.run([array('f64', [1], [0]), array('f64', [1], [0])]))).code).toBe('E412');
    expect((await rejection(async () => compiled.run([array('i32', [1, 1], [0]), array('f64', [1], [0])]))).code).toBe('E413');
    compiled.dispose();
  });
});
