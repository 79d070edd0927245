// Memory that one array borrows from another, on IR built by hand (lowering produces neither
// yet): a scatter into a donated input updates the caller's buffer and returns it (`donated`),
// one into an input that is not donated is a fresh copy; a copy the plan elides is its source's
// memory, and so is the scatter that then updates it.
import { describe, expect, it } from 'vitest';
import { planMemory } from '../../src/memory/index.js';
import { plan } from '../../src/plan/index.js';
import type { Interface, Program } from '../../src/ir/types.js';
import { arr, arrayParam, lam, nodes, opLam, program, v } from '../ir/builders.js';
import { memoryProblems } from './check.js';

const sizes = { xs: [8], is: [4], vs: [4] };

function scatterInto(donated: boolean): Program {
  const n = nodes();
  const xs: Interface = donated ? { ...arrayParam('xs', 'f64', 1), donated: true } : arrayParam('xs', 'f64', 1);
  return program('main', [xs, arrayParam('is', 'i32', 1), arrayParam('vs', 'f64', 1)], [
    n.scatter([arr('r', 'f64', 1)], opLam('+', 'f64'), ['xs'], ['is'], ['vs']),
  ], ['r']);
}

describe('scatter into an input', () => {
  it('donated: the output is the input\'s memory, returned as the donated buffer', async () => {
    const p = scatterInto(true);
    const pl = await plan(p, { strategy: 'none' });
    const m = planMemory(p, pl, sizes);
    expect(memoryProblems(p, pl, m)).toEqual([]);
    expect(m.buffers).toEqual({ r: { kind: 'alias', of: 'xs' } });
    expect(m.results).toEqual(['donated']);
    expect(m.slots).toEqual([]);
  });

  it('not donated: a fresh copy (as codegen copies it), copied out as a result', async () => {
    const p = scatterInto(false);
    const pl = await plan(p, { strategy: 'none' });
    const m = planMemory(p, pl, sizes);
    expect(memoryProblems(p, pl, m)).toEqual([]);
    expect(m.buffers['r']?.kind).toBe('fresh');
    expect(m.results).toEqual(['copy']);
  });
});

describe('an elided copy', () => {
  it('is its source\'s memory, and the scatter updating it too; the source owns the result buffer', async () => {
    const n = nodes();
    const src = n.map([arr('h', 'f64', 1)], ['xs'], lam([['x', 'f64']], v('x', 'f64')));
    const copy = n.map([arr('copy', 'f64', 1)], ['h'], lam([['y', 'f64']], v('y', 'f64')));
    const scatter = n.scatter([arr('r', 'f64', 1)], opLam('+', 'f64'), ['copy'], ['is'], ['vs']);
    const p = program('main', [arrayParam('xs', 'f64', 1), arrayParam('is', 'i32', 1), arrayParam('vs', 'f64', 1)], [src, copy, scatter], ['r']);
    const pl = await plan(p, { strategy: 'none' });
    const elided = { ...pl, root: { ...pl.root, elided: [copy.id] } };
    const m = planMemory(p, elided, sizes);
    expect(m.buffers['copy']).toEqual({ kind: 'alias', of: 'h' });
    expect(m.buffers['r']).toEqual({ kind: 'alias', of: 'copy' });
    expect(m.buffers['h']).toEqual({ kind: 'result', component: 0 });
    expect(m.results).toEqual(['direct']);
    // Without the elision the copy owns the memory the scatter updates, and h is a slot.
    const kept = planMemory(p, pl, sizes);
    expect(kept.buffers['copy']).toEqual({ kind: 'result', component: 0 });
    expect(kept.buffers['h']).toEqual({ kind: 'slot', slot: 0 });
    expect(kept.peakBytes).toBe(64);
  });
});

describe('names', () => {
  it('names of Object.prototype\'s properties are arrays like any other, with entry sizes or without', async () => {
    const n = nodes();
    const p = program('main', [arrayParam('constructor', 'f64', 1)], [
      n.map([arr('toString', 'f64', 1)], ['constructor'], lam([['x', 'f64']], v('x', 'f64'))),
      n.map([arr('__proto__', 'f64', 1)], ['toString'], lam([['y', 'f64']], v('y', 'f64'))),
      n.map([arr('hasOwnProperty', 'f64', 1)], ['__proto__'], lam([['z', 'f64']], v('z', 'f64'))),
    ], ['hasOwnProperty']);
    const pl = await plan(p, { strategy: 'none' });
    const unsized = planMemory(p, pl);
    expect(memoryProblems(p, pl, unsized)).toEqual([]);
    expect(unsized.dynamicSlots).toBe(2);
    const sized = planMemory(p, pl, Object.assign(Object.create(null) as Record<string, number[]>, { constructor: [4] }));
    expect(memoryProblems(p, pl, sized)).toEqual([]);
    expect(sized.peakBytes).toBe(64);
    expect(Object.keys(sized.buffers).sort()).toEqual(['__proto__', 'hasOwnProperty', 'toString']);
  });

  it('a loop whose cond and body name a carried value alike (hand-built IR) is one value', async () => {
    const { block, arrayValue, scalarValue, scalarStmt, bin, i32 } = await import('../ir/builders.js');
    const n = nodes();
    const step = n.map([arr('acc2', 'f64', 1)], ['acc'], lam([['x', 'f64']], bin('*', v('x', 'f64'), { kind: 'const', type: 'f64', value: 0.5 })));
    const w = n.while_(
      [scalarValue('c3', 'i32'), arrayValue('out', 'f64', 1)],
      ['k', 'xs'],
      block([scalarValue('c', 'i32'), arrayValue('acc', 'f64', 1)], [scalarStmt('go', bin('>', v('c', 'i32'), i32(0)))], ['go']),
      block([scalarValue('c', 'i32'), arrayValue('acc', 'f64', 1)], [scalarStmt('c2', bin('-', v('c', 'i32'), i32(1))), step], ['c2', 'acc2']),
    );
    const p = program('main', [arrayParam('xs', 'f64', 1), { name: 'k', components: [scalarValue('k', 'i32')] }], [w], ['out']);
    const pl = await plan(p, { strategy: 'none' });
    const m = planMemory(p, pl, { xs: [3], k: 2 });
    expect(memoryProblems(p, pl, m)).toEqual([]);
    expect(m.buffers['acc2']?.kind).toBe('pair');
    expect(m.results).toEqual(['copy']);
  });
});
