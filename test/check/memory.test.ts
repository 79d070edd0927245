// The memory-plan validator (src/check/memory.ts) on hand-built programs, plans and memory
// plans: each rule accepts a plan that keeps it and rejects one that breaks it, with a message
// that names the arrays. Plans here are built by hand (one node per cluster, statement order)
// so a test can put a reader after an update, which no planner would.

import { describe, expect, it } from 'vitest';
import { formatMemoryViolation, validateMemoryPlan, type MemoryRule } from '../../src/check/memory.js';
import { validatePlan } from '../../src/check/validate.js';
import type { Block, Program, Stmt } from '../../src/ir/types.js';
import type { BufferRef, MemoryPlan, ResultDelivery } from '../../src/memory/types.js';
import type { BlockPlan, Plan } from '../../src/plan/types.js';
import {
  arr,
  arrayParam,
  arrayValue,
  bin,
  block,
  f64,
  i32,
  idx,
  lam,
  nodes,
  opLam,
  program as buildProgram,
  scalarParam,
  scalarStmt,
  scalarValue,
  v,
} from '../ir/builders.js';

// ---- plans ----------------------------------------------------------------------------------

/** Every node in a cluster of its own, in statement order, every combinator output manifest. */
function eachAlone(b: Block, elided: readonly number[] = []): BlockPlan {
  const clusters: { nodes: number[]; manifest: string[] }[] = [];
  const orders: Record<number, 0> = {};
  const children: Record<number, BlockPlan[]> = {};
  for (const s of b.stmts) {
    if (s.kind === 'scalar') continue;
    if (s.kind === 'if') {
      clusters.push({ nodes: [s.id], manifest: [] });
      children[s.id] = [eachAlone(s.then, elided), eachAlone(s.else, elided)];
    } else if (s.kind === 'while') {
      clusters.push({ nodes: [s.id], manifest: [] });
      children[s.id] = [eachAlone(s.cond, elided), eachAlone(s.body, elided)];
    } else {
      clusters.push({ nodes: [s.id], manifest: s.outs.map((o) => o.name) });
      orders[s.id] = 0;
    }
  }
  const mine = elided.filter((id) => b.stmts.some((s: Stmt) => s.kind !== 'scalar' && s.id === id));
  return { clusters, orders, children, ...(mine.length > 0 ? { elided: mine } : {}) };
}

function planOf(p: Program, root: BlockPlan = eachAlone(p.body)): Plan {
  return {
    strategy: 'none',
    cost: 'reads+writes',
    stats: { status: 'heuristic', objective: 0, bound: null, gap: null, nodes: null, timeMs: 0, notes: [] },
    root,
  };
}

// ---- memory plans ---------------------------------------------------------------------------

const slot = (s: number): BufferRef => ({ kind: 'slot', slot: s });
const pair = (a: number, b: number): BufferRef => ({ kind: 'pair', slots: [a, b] });
const result = (component: number): BufferRef => ({ kind: 'result', component });
const alias = (of: string): BufferRef => ({ kind: 'alias', of });
const fresh: BufferRef = { kind: 'fresh', why: 'test' };

/** A memory plan whose slots list their arrays and whose totals add up, unless `over` says otherwise. */
function memory(buffers: Record<string, BufferRef>, slotBytes: readonly (number | null)[], results: readonly ResultDelivery[], over: Partial<MemoryPlan> = {}): MemoryPlan {
  const slots = slotBytes.map((bytes, s) => ({
    bytes,
    arrays: Object.keys(buffers).filter((n) => {
      const r = buffers[n]!;
      return (r.kind === 'slot' && r.slot === s) || (r.kind === 'pair' && r.slots.includes(s));
    }),
  }));
  return {
    buffers,
    slots,
    results,
    ranges: [],
    peakBytes: slotBytes.reduce<number>((a, b) => a + (b ?? 0), 0),
    dynamicSlots: slotBytes.filter((b) => b === null).length,
    ...over,
  };
}

function violations(p: Program, m: MemoryPlan, plan: Plan = planOf(p), entry = { xs: [10] }): string[] {
  return validateMemoryPlan(p, plan, m, entry).map(formatMemoryViolation);
}

function expectBroken(p: Program, m: MemoryPlan, rule: MemoryRule, names: readonly string[], plan: Plan = planOf(p)): string {
  const found = validateMemoryPlan(p, plan, m, { xs: [10] });
  const hit = found.find((x) => x.rule === rule && names.every((n) => x.arrays.includes(n)));
  expect(hit, `expected a [${rule}] violation naming ${names.join(', ')}; got:\n${found.map(formatMemoryViolation).join('\n')}`).toBeDefined();
  return hit!.message;
}

const fx = (x: string): ReturnType<typeof v> => v(x, 'f64');
const plus1 = lam([['x', 'f64']], bin('+', fx('x'), f64(1)));

// ---- programs -------------------------------------------------------------------------------

/** xs → a → b → c → d (d returned): lives a [0,1], b [1,2], c [2,3], d to the end. */
function chain(): Program {
  const n = nodes();
  return buildProgram('chain', [arrayParam('xs', 'f64', 1)], [
    n.map([arr('a', 'f64', 1)], ['xs'], plus1),
    n.map([arr('b', 'f64', 1)], ['a'], plus1),
    n.map([arr('c', 'f64', 1)], ['b'], plus1),
    n.map([arr('d', 'f64', 1)], ['c'], plus1),
  ], ['d']);
}

describe('a straight-line program', () => {
  const p = chain();
  it('the hand-made plan is a valid fusion plan', () => {
    expect(validatePlan(p, planOf(p))).toEqual([]);
  });

  it('accepts arrays whose lives do not overlap sharing a slot, and the result written in place', () => {
    const m = memory({ a: slot(0), b: slot(1), c: slot(0), d: result(0) }, [80, 80], ['direct']);
    expect(violations(p, m)).toEqual([]);
  });

  it('accepts every array fresh with the result copied (the placeholder planner\'s plan)', () => {
    expect(violations(p, memory({ a: fresh, b: fresh, c: fresh, d: fresh }, [], ['copy']))).toEqual([]);
  });

  it('overlap: a producer and its reader in one slot', () => {
    const msg = expectBroken(p, memory({ a: slot(0), b: slot(0), c: slot(1), d: result(0) }, [80, 80], ['direct']), 'overlap', ['a', 'b']);
    expect(msg).toMatch(/share slot 0 but are live at once/);
  });

  it('buffers: a manifest array without a buffer, an input, or a fused-away array with one', () => {
    expect(expectBroken(p, memory({ a: slot(0), c: slot(0), d: result(0) }, [80], ['direct']), 'buffers', ['b'])).toMatch(/gives it no buffer/);
    expect(expectBroken(p, memory({ xs: slot(1), a: slot(0), b: slot(1), c: slot(0), d: result(0) }, [80, 80], ['direct']), 'buffers', ['xs'])).toMatch(/is an input/);
    // The ILP-like plan: everything in one cluster, only d manifest.
    const fused = planOf(p, { clusters: [{ nodes: [0, 1, 2, 3], manifest: ['d'] }], orders: { 0: 0, 1: 0, 2: 0, 3: 0 }, children: {} });
    expect(validatePlan(p, fused)).toEqual([]);
    expect(violations(p, memory({ d: result(0) }, [], ['direct']), fused)).toEqual([]);
    expect(expectBroken(p, memory({ b: slot(0), d: result(0) }, [80], ['direct']), 'buffers', ['b'], fused)).toMatch(/fused away/);
  });

  it('buffers: an array listed manifest twice', () => {
    const twice = planOf(p, { ...eachAlone(p.body), clusters: eachAlone(p.body).clusters.map((c, i) => (i === 1 ? { ...c, manifest: ['b', 'a'] } : c)) });
    expectBroken(p, memory({ a: slot(0), b: slot(1), c: slot(0), d: result(0) }, [80, 80], ['direct']), 'buffers', ['a'], twice);
  });

  it('capacity: a slot smaller than an array in it, and slots that list the wrong arrays', () => {
    expect(expectBroken(p, memory({ a: slot(0), b: slot(1), c: slot(0), d: result(0) }, [80, 72], ['direct']), 'capacity', ['b'])).toMatch(/has 72 bytes but b .* needs 80/);
    const m = memory({ a: slot(0), b: slot(1), c: slot(0), d: result(0) }, [80, 80], ['direct']);
    expectBroken(p, { ...m, slots: [{ bytes: 80, arrays: ['a'] }, { bytes: 80, arrays: ['b', 'd'] }] }, 'capacity', ['c']);
    expectBroken(p, { ...m, slots: [{ bytes: 80, arrays: ['a', 'c'] }, { bytes: 80, arrays: ['b', 'd'] }] }, 'capacity', ['d']);
    expectBroken(p, memory({ a: slot(0), b: slot(2), c: slot(0), d: result(0) }, [80, 80], ['direct']), 'capacity', ['b']);
    // A static size that came out negative (the run faults before the array exists) is no capacity.
    expect(expectBroken(p, memory({ a: slot(0), b: slot(1), c: slot(0), d: result(0) }, [80, -8], ['direct']), 'capacity', ['b'])).toMatch(/has -8 bytes, not a number of bytes/);
    // A size known only at run time is not checked against a static capacity it cannot be compared to.
    expect(validateMemoryPlan(p, planOf(p), memory({ a: slot(0), b: slot(1), c: slot(0), d: result(0) }, [8, 8], ['direct']), {})).toEqual([]);
  });

  it('totals: peakBytes and dynamicSlots add up the slots', () => {
    const m = memory({ a: slot(0), b: slot(1), c: slot(0), d: result(0) }, [80, null], ['direct']);
    expect(violations(p, m)).toEqual([]);
    expect(expectBroken(p, { ...m, peakBytes: 160 }, 'totals', [])).toMatch(/peakBytes is 160, but the slots' static bytes sum to 80/);
    expectBroken(p, { ...m, dynamicSlots: 0 }, 'totals', []);
  });

  it('results: direct only from the result buffer, the right count and kinds', () => {
    expect(expectBroken(p, memory({ a: slot(0), b: slot(1), c: slot(0), d: slot(1) }, [80, 80], ['direct']), 'results', ['d'])).toMatch(/deliver it by 'copy'/);
    // d in a slot, copied out: valid (c and d do not overlap b… d overlaps c, so d takes slot 1 after b).
    expect(violations(p, memory({ a: slot(0), b: slot(1), c: slot(0), d: slot(1) }, [80, 80], ['copy']))).toEqual([]);
    expectBroken(p, memory({ a: slot(0), b: slot(1), c: slot(0), d: result(0) }, [80, 80], ['direct', 'copy']), 'results', []);
    expectBroken(p, memory({ a: slot(0), b: slot(1), c: slot(0), d: result(0) }, [80, 80], ['scalar']), 'results', ['d']);
    expectBroken(p, memory({ a: result(0), b: slot(1), c: slot(0), d: fresh }, [80, 80], ['copy']), 'results', ['a']);
    expectBroken(p, memory({ a: slot(0), b: slot(1), c: slot(0), d: result(1) }, [80, 80], ['copy']), 'results', ['d']);
    expectBroken(p, memory({ a: slot(0), b: slot(1), c: slot(0), d: result(0) }, [80, 80], ['donated']), 'results', ['d']);
  });
});

describe('results that are inputs, returned twice, or scalars', () => {
  it('an input returned must be copied; a scalar is delivered as one', () => {
    const p = buildProgram('id', [arrayParam('xs', 'f64', 1), scalarParam('k', 'i32')], [], ['xs', 'k']);
    expect(violations(p, memory({}, [], ['copy', 'scalar']))).toEqual([]);
    expect(expectBroken(p, memory({}, [], ['direct', 'scalar']), 'results', ['xs'])).toMatch(/does not plan/);
    expectBroken(p, memory({}, [], ['copy', 'copy']), 'results', ['k']);
  });

  it('the same array returned twice cannot be written into both results', () => {
    const n = nodes();
    const p = buildProgram('twice', [arrayParam('xs', 'f64', 1)], [n.map([arr('a', 'f64', 1)], ['xs'], plus1)], ['a', 'a']);
    expect(violations(p, memory({ a: result(0) }, [], ['direct', 'copy']))).toEqual([]);
    expectBroken(p, memory({ a: result(0) }, [], ['direct', 'direct']), 'results', ['a']);
  });
});

// ---- if -------------------------------------------------------------------------------------

/** q = xs+1; o = if c then (t = q+1) else (e = xs+1); r = o + q. */
function branches(): Program {
  const n = nodes();
  return buildProgram('branches', [arrayParam('xs', 'f64', 1), scalarParam('c', 'bool')], [
    n.map([arr('q', 'f64', 1)], ['xs'], plus1),
    n.if_([arrayValue('o', 'f64', 1)], v('c', 'bool'),
      block([], [n.map([arr('t', 'f64', 1)], ['q'], plus1)], ['t']),
      block([], [n.map([arr('e', 'f64', 1)], ['xs'], plus1)], ['e'])),
    n.map([arr('r', 'f64', 1)], ['o', 'q'], lam([['x', 'f64'], ['y', 'f64']], bin('+', fx('x'), fx('y')))),
  ], ['r']);
}

describe('if', () => {
  const p = branches();
  it('the two branches\' results may share a slot; what the if returns lives until its output\'s last use', () => {
    expect(validatePlan(p, planOf(p))).toEqual([]);
    expect(violations(p, memory({ q: slot(0), t: slot(1), e: slot(1), r: result(0) }, [80, 80], ['direct']))).toEqual([]);
    // t is read (as o) by r: it cannot share q's slot, which r reads too.
    expectBroken(p, memory({ q: slot(0), t: slot(0), e: slot(1), r: result(0) }, [80, 80], ['direct']), 'overlap', ['q', 't']);
  });

  it('an outer array read in a branch lives until then, not longer', () => {
    const n = nodes();
    const p2 = buildProgram('outerInBranch', [arrayParam('xs', 'f64', 1), scalarParam('c', 'bool')], [
      n.map([arr('q', 'f64', 1)], ['xs'], plus1),
      n.if_([arrayValue('o', 'f64', 1)], v('c', 'bool'),
        block([], [n.map([arr('t', 'f64', 1)], ['q'], plus1)], ['t']),
        block([], [n.map([arr('e', 'f64', 1)], ['xs'], plus1)], ['e'])),
      n.map([arr('r', 'f64', 1)], ['o'], plus1),
    ], ['r']);
    // q dies in the then branch; e (else) and r (after the if) may take its slot.
    expect(violations(p2, memory({ q: slot(0), t: slot(1), e: slot(0), r: result(0) }, [80, 80], ['direct']))).toEqual([]);
    expectBroken(p2, memory({ q: slot(0), t: slot(0), e: slot(1), r: result(0) }, [80, 80], ['direct']), 'overlap', ['q', 't']);
  });

  it('a direct result through an if needs both branches written into the result', () => {
    const n = nodes();
    const p3 = buildProgram('ifResult', [arrayParam('xs', 'f64', 1), scalarParam('c', 'bool')], [
      n.if_([arrayValue('o', 'f64', 1)], v('c', 'bool'),
        block([], [n.map([arr('t', 'f64', 1)], ['xs'], plus1)], ['t']),
        block([], [n.map([arr('e', 'f64', 1)], ['xs'], plus1)], ['e'])),
    ], ['o']);
    expect(violations(p3, memory({ t: result(0), e: result(0) }, [], ['direct']))).toEqual([]);
    expectBroken(p3, memory({ t: result(0), e: slot(0) }, [80], ['direct']), 'results', ['o', 'e']);
    expect(violations(p3, memory({ t: slot(0), e: slot(0) }, [80], ['copy']))).toEqual([]);
    // A branch returning the input: copy.
    const p4 = buildProgram('ifInput', [arrayParam('xs', 'f64', 1), scalarParam('c', 'bool')], [
      n.if_([arrayValue('o2', 'f64', 1)], v('c', 'bool'),
        block([], [n.map([arr('t2', 'f64', 1)], ['xs'], plus1)], ['t2']),
        block([], [], ['xs'])),
    ], ['o2']);
    expectBroken(p4, memory({ t2: result(0) }, [], ['direct']), 'results', ['o2', 'xs']);
    expect(violations(p4, memory({ t2: slot(0) }, [80], ['copy']))).toEqual([]);
  });
});

// ---- scalars that index arrays --------------------------------------------------------------

describe('a scalar statement that indexes an array', () => {
  it('keeps the array alive until the scalar\'s first user', () => {
    const n = nodes();
    const p = buildProgram('scalarRead', [arrayParam('xs', 'f64', 1)], [
      n.map([arr('a', 'f64', 1)], ['xs'], plus1),
      scalarStmt('s', idx('a', [i32(0)], 'f64')),
      n.map([arr('b', 'f64', 1)], ['xs'], plus1),
      n.map([arr('c', 'f64', 1)], ['b'], lam([['x', 'f64']], bin('+', fx('x'), fx('s')))),
    ], ['c']);
    expect(validatePlan(p, planOf(p))).toEqual([]);
    // s may be evaluated as late as c's cluster, so a lives until then: b cannot take its slot.
    expect(expectBroken(p, memory({ a: slot(0), b: slot(0), c: result(0) }, [80], ['direct']), 'overlap', ['a', 'b'])).toMatch(/share slot 0/);
    expect(violations(p, memory({ a: slot(0), b: slot(1), c: result(0) }, [80, 80], ['direct']))).toEqual([]);
  });
});

// ---- while ----------------------------------------------------------------------------------

/**
 * q = xs + 1 (read inside the body); (ys, i) = while i < 3: z = ys + 1; y2 = z + q; (y2, i + 1);
 * after: r = ys_out + 1 (returned).
 */
function loop(options: { readonly bodyReadsParamLate?: boolean } = {}): Program {
  const n = nodes();
  const cond = block([arrayValue('cy', 'f64', 1), scalarValue('ci', 'i32')], [scalarStmt('go', bin('<', v('ci', 'i32'), i32(3)))], ['go']);
  const body = block([arrayValue('py', 'f64', 1), scalarValue('pi', 'i32')], [
    n.map([arr('z', 'f64', 1)], ['py'], plus1),
    n.map([arr('y2', 'f64', 1)], options.bodyReadsParamLate === true ? ['z', 'py'] : ['z', 'q'], lam([['x', 'f64'], ['y', 'f64']], bin('+', fx('x'), fx('y')))),
    scalarStmt('i2', bin('+', v('pi', 'i32'), i32(1))),
  ], ['y2', 'i2']);
  return buildProgram('loop', [arrayParam('xs', 'f64', 1)], [
    n.map([arr('q', 'f64', 1)], ['xs'], plus1),
    n.map([arr('y0', 'f64', 1)], ['xs'], plus1),
    scalarStmt('i0', i32(0)),
    n.while_([arrayValue('ys', 'f64', 1), scalarValue('iN', 'i32')], ['y0', 'i0'], cond, body),
    n.map([arr('r', 'f64', 1)], ['ys'], plus1),
  ], ['r']);
}

describe('while', () => {
  const p = loop();
  const good = { q: slot(0), y0: slot(1), z: slot(2), y2: pair(3, 4), r: result(0) };

  it('a carried body result in a pair, the body\'s temporaries and what lives across the loop in slots', () => {
    expect(validatePlan(p, planOf(p))).toEqual([]);
    expect(violations(p, memory(good, [80, 80, 80, 80, 80], ['direct']))).toEqual([]);
    // After the loop, r may take q's slot (q is dead) but not a pair slot (ys, the pair's value, is read by r).
    expect(violations(p, memory({ ...good, r: slot(0) }, [80, 80, 80, 80, 80], ['copy']))).toEqual([]);
    expectBroken(p, memory({ ...good, r: slot(3) }, [80, 80, 80, 80, 80], ['copy']), 'pair', ['y2', 'r']);
  });

  it('an outer array read in the body lives through the whole loop', () => {
    const msg = expectBroken(p, memory({ ...good, z: slot(0) }, [80, 80, 80, 80, 80], ['direct']), 'overlap', ['q', 'z']);
    expect(msg).toMatch(/q \(map #2 in root\) and z \(map #0 in root\/while #4 body\) share slot 0/);
  });

  it('the initial value lives through the whole loop (zero iterations return it)', () => {
    expectBroken(p, memory({ ...good, z: slot(1) }, [80, 80, 80, 80, 80], ['direct']), 'overlap', ['y0', 'z']);
    expectBroken(p, memory({ ...good, y0: slot(3) }, [80, 80, 80, 80, 80], ['direct']), 'pair', ['y0', 'y2']);
  });

  it('pair: two different slots, not shared with the body\'s temporaries, only for carried body results', () => {
    expect(expectBroken(p, memory({ ...good, y2: pair(3, 3) }, [80, 80, 80, 80, 80], ['direct']), 'pair', ['y2'])).toMatch(/one slot \(3\) twice/);
    expectBroken(p, memory({ ...good, z: slot(3) }, [80, 80, 80, 80, 80], ['direct']), 'pair', ['y2', 'z']);
    expect(expectBroken(p, memory({ ...good, z: pair(2, 5) }, [80, 80, 80, 80, 80, 80], ['direct']), 'pair', ['z'])).toMatch(/only an array a while body computes and returns/);
    expectBroken(p, memory({ ...good, q: pair(0, 5) }, [80, 80, 80, 80, 80, 80], ['direct']), 'pair', ['q']);
  });

  it('a carried value in one slot: valid only when the body reads the previous value before it computes the next', () => {
    // z reads py first, then y2 is written: the previous value is dead by then.
    expect(violations(p, memory({ ...good, y2: slot(3) }, [80, 80, 80, 80, 80], ['direct']))).toEqual([]);
    const late = loop({ bodyReadsParamLate: true });
    const msg = expectBroken(late, memory({ q: slot(0), y0: slot(1), z: slot(2), y2: slot(3), r: result(0) }, [80, 80, 80, 80], ['direct']), 'pair', ['y2', 'py']);
    expect(msg).toMatch(/give it a pair of slots or a fresh buffer/);
    expect(violations(late, memory({ q: slot(0), y0: slot(1), z: slot(2), y2: pair(3, 4), r: result(0) }, [80, 80, 80, 80, 80], ['direct']))).toEqual([]);
    // The loop's output cannot be written straight into the result buffer either.
    expectBroken(late, memory({ q: slot(0), y0: slot(1), z: slot(2), y2: result(0), r: fresh }, [80, 80, 80], ['copy']), 'results', ['y2']);
  });

  it('pair: a value the body passes on to another carried position survives two iterations', () => {
    const n = nodes();
    const cond = block([arrayValue('ca', 'f64', 1), arrayValue('cb', 'f64', 1), scalarValue('ci', 'i32')], [scalarStmt('go', bin('<', v('ci', 'i32'), i32(3)))], ['go']);
    const body = block([arrayValue('pa', 'f64', 1), arrayValue('pb', 'f64', 1), scalarValue('pi', 'i32')], [
      n.map([arr('na', 'f64', 1)], ['pa', 'pb'], lam([['x', 'f64'], ['y', 'f64']], bin('+', fx('x'), fx('y')))),
      scalarStmt('i2', bin('+', v('pi', 'i32'), i32(1))),
    ], ['na', 'pa', 'i2']);
    const p2 = buildProgram('shift', [arrayParam('xs', 'f64', 1)], [
      n.map([arr('a0', 'f64', 1)], ['xs'], plus1),
      n.map([arr('b0', 'f64', 1)], ['xs'], plus1),
      scalarStmt('i0', i32(0)),
      n.while_([arrayValue('ao', 'f64', 1), arrayValue('bo', 'f64', 1), scalarValue('io', 'i32')], ['a0', 'b0', 'i0'], cond, body),
      n.map([arr('r', 'f64', 1)], ['ao', 'bo'], lam([['x', 'f64'], ['y', 'f64']], bin('+', fx('x'), fx('y')))),
    ], ['r']);
    expect(validatePlan(p2, planOf(p2))).toEqual([]);
    const msg = expectBroken(p2, memory({ a0: slot(0), b0: slot(1), na: pair(2, 3), r: result(0) }, [80, 80, 80, 80], ['direct']), 'pair', ['na', 'pb']);
    expect(msg).toMatch(/read two iterations later/);
    expect(violations(p2, memory({ a0: slot(0), b0: slot(1), na: fresh, r: result(0) }, [80, 80], ['direct']))).toEqual([]);
  });
});

// ---- in-place updates -----------------------------------------------------------------------

const addOp = opLam('+', 'f64', 'old', 'new');

describe('alias: a scatter updating its destination in place', () => {
  /** h = xs + 1; is = generate; s = scatter(+, h, is, xs); [m = h + 1 after the scatter]; r = s + 1. */
  function scatterProgram(options: { readonly readAfter?: boolean; readInOp?: boolean; destInput?: boolean; donated?: boolean } = {}): Program {
    const n = nodes();
    const dest = options.destInput === true ? 'xs' : 'h';
    const op = options.readInOp === true ? lam([['old', 'f64'], ['new', 'f64']], bin('+', fx('old'), idx('h', [i32(0)], 'f64'))) : addOp;
    const stmts: Stmt[] = [
      n.map([arr('h', 'f64', 1)], ['xs'], plus1),
      n.generate([arr('is', 'i32', 1)], [i32(3)], lam([['k', 'i32']], v('k', 'i32'))),
      n.generate([arr('vs', 'f64', 1)], [i32(3)], lam([['k', 'i32']], f64(1))),
      n.scatter([arr('s', 'f64', 1)], op, [dest], ['is'], ['vs']),
      ...(options.readAfter === true ? [n.map([arr('m', 'f64', 1)], ['h'], plus1)] : []),
      n.map([arr('r', 'f64', 1)], options.readAfter === true ? ['s', 'm'] : ['s'], options.readAfter === true ? lam([['x', 'f64'], ['y', 'f64']], bin('+', fx('x'), fx('y'))) : plus1),
    ];
    const p = buildProgram('scat', [arrayParam('xs', 'f64', 1)], stmts, ['r']);
    return options.donated === true ? { ...p, params: p.params.map((q) => ({ ...q, donated: true as const })) } : p;
  }
  const base = { h: slot(0), is: slot(1), vs: slot(2), s: alias('h'), r: result(0) };

  it('is valid when nothing reads the destination after the update', () => {
    const p = scatterProgram();
    expect(validatePlan(p, planOf(p))).toEqual([]);
    expect(violations(p, memory(base, [80, 12, 24], ['direct']))).toEqual([]);
    // The scatter's output is h's memory: r may not take h's slot while s is read… r reads s.
    expectBroken(p, memory({ ...base, r: slot(0) }, [80, 12, 24], ['copy']), 'overlap', ['h', 'r']);
  });

  it('rejects an update whose destination is read afterwards', () => {
    const p = scatterProgram({ readAfter: true });
    const msg = expectBroken(p, memory({ ...base, m: slot(3) }, [80, 12, 24, 80], ['direct']), 'alias', ['s', 'h']);
    expect(msg).toMatch(/read at or after the update/);
    // Copying (a fresh buffer for the scatter's output) is fine as far as memory goes.
    expect(violations(p, memory({ ...base, s: fresh, m: slot(3) }, [80, 12, 24, 80], ['direct']))).toEqual([]);
  });

  it('rejects an update whose op reads its destination', () => {
    const p = scatterProgram({ readInOp: true });
    expect(expectBroken(p, memory(base, [80, 12, 24], ['direct']), 'alias', ['s', 'h'])).toMatch(/while it writes it/);
  });

  it('rejects an alias that is no scatter over its destination, and updates of inputs not donated', () => {
    const p = scatterProgram();
    expectBroken(p, memory({ ...base, s: alias('is') }, [80, 12, 24], ['direct']), 'alias', ['s', 'is']);
    expectBroken(p, memory({ ...base, r: alias('s') }, [80, 12, 24], ['copy']), 'alias', ['r', 's']);
    const onInput = scatterProgram({ destInput: true });
    expect(expectBroken(onInput, memory({ ...base, s: alias('xs') }, [80, 12, 24], ['direct']), 'alias', ['s', 'xs'])).toMatch(/did not donate/);
    const donated = scatterProgram({ destInput: true, donated: true });
    expect(violations(donated, memory({ ...base, s: alias('xs') }, [80, 12, 24], ['direct']))).toEqual([]);
  });

  it('a scalar nothing uses may read the destination after the update (no result sees it); a used one may not', () => {
    const n = nodes();
    const build = (used: boolean): Program => buildProgram('scalarAfter', [arrayParam('xs', 'f64', 1)], [
      n.map([arr('h', 'f64', 1)], ['xs'], plus1),
      n.generate([arr('is', 'i32', 1)], [i32(3)], lam([['k', 'i32']], v('k', 'i32'))),
      n.generate([arr('vs', 'f64', 1)], [i32(3)], lam([['k', 'i32']], f64(1))),
      scalarStmt('peek', idx('h', [i32(0)], 'f64')),
      n.scatter([arr('s', 'f64', 1)], addOp, ['h'], ['is'], ['vs']),
      n.map([arr('r', 'f64', 1)], ['s'], used ? lam([['x', 'f64']], bin('+', fx('x'), fx('peek'))) : plus1),
    ], ['r']);
    expect(violations(build(false), memory(base, [80, 12, 24], ['direct']))).toEqual([]);
    expectBroken(build(true), memory(base, [80, 12, 24], ['direct']), 'alias', ['s', 'h']);
  });

  it('rejects an update inside a loop of an array from outside it (the next iteration reads it again)', () => {
    const n = nodes();
    const cond = block([scalarValue('ci', 'i32')], [scalarStmt('go', bin('<', v('ci', 'i32'), i32(3)))], ['go']);
    const body = block([scalarValue('pi', 'i32')], [
      n.scatter([arr('s', 'f64', 1)], addOp, ['h'], ['is'], ['vs']),
      scalarStmt('i2', bin('+', v('pi', 'i32'), i32(1))),
    ], ['i2']);
    const p = buildProgram('updateInLoop', [arrayParam('xs', 'f64', 1)], [
      n.map([arr('h', 'f64', 1)], ['xs'], plus1),
      n.generate([arr('is', 'i32', 1)], [i32(3)], lam([['k', 'i32']], v('k', 'i32'))),
      n.generate([arr('vs', 'f64', 1)], [i32(3)], lam([['k', 'i32']], f64(1))),
      scalarStmt('i0', i32(0)),
      n.while_([scalarValue('iN', 'i32')], ['i0'], cond, body),
      n.map([arr('r', 'f64', 1)], ['xs'], plus1),
    ], ['r']);
    const msg = expectBroken(p, memory({ h: slot(0), is: slot(1), vs: slot(2), s: alias('h'), r: result(0) }, [80, 12, 24], ['direct']), 'alias', ['s', 'h']);
    expect(msg).toMatch(/belongs to an enclosing block/);
  });

  it('rejects an alias cycle', () => {
    const p = scatterProgram();
    expectBroken(p, memory({ ...base, h: alias('s') }, [80, 12, 24], ['direct']), 'alias', ['h', 's']);
  });
});

describe('alias: an elided copy', () => {
  /** h = xs + 1; [m = h + 1]; c = copy(h) (elided); s = scatter(+, c, …); [m2 = h + 1 after]; r = s + m… */
  function elidedProgram(readAfter: boolean): { p: Program; copyId: number } {
    const n = nodes();
    const stmts: Stmt[] = [
      n.map([arr('h', 'f64', 1)], ['xs'], plus1),
      n.map([arr('m', 'f64', 1)], ['h'], plus1),
      n.map([arr('c', 'f64', 1)], ['h'], lam([['x', 'f64']], fx('x'))),
      n.generate([arr('is', 'i32', 1)], [i32(3)], lam([['k', 'i32']], v('k', 'i32'))),
      n.scatter([arr('s', 'f64', 1)], addOp, ['c'], ['is'], ['is']),
      ...(readAfter ? [n.map([arr('m2', 'f64', 1)], ['h'], plus1)] : []),
      n.map([arr('r', 'f64', 1)], ['s', readAfter ? 'm2' : 'm'], lam([['x', 'f64'], ['y', 'f64']], bin('+', fx('x'), fx('y')))),
    ];
    return { p: buildProgram('elided', [arrayParam('xs', 'f64', 1)], stmts, ['r']), copyId: 2 };
  }

  it('is valid as the memory of its source when every other reader of the source comes first', () => {
    const { p, copyId } = elidedProgram(false);
    const plan = planOf(p, eachAlone(p.body, [copyId]));
    const m = memory({ h: slot(0), m: slot(1), c: alias('h'), is: slot(2), s: alias('c'), r: result(0) }, [80, 80, 12], ['direct']);
    expect(violations(p, m, plan)).toEqual([]);
    // Not elided, the copy is a map that cannot share its source's memory.
    expectBroken(p, m, 'alias', ['c', 'h']);
    // Elided, it must be its source's memory.
    expect(expectBroken(p, memory({ h: slot(0), m: slot(1), c: slot(3), is: slot(2), s: alias('c'), r: result(0) }, [80, 80, 12, 80], ['direct']), 'alias', ['c'], plan)).toMatch(/must be the memory of h/);
  });

  it('rejects an elided copy whose source is read after the update', () => {
    const { p, copyId } = elidedProgram(true);
    const plan = planOf(p, eachAlone(p.body, [copyId]));
    const m = memory({ h: slot(0), m: slot(1), c: alias('h'), is: slot(2), s: alias('c'), m2: slot(1), r: result(0) }, [80, 80, 12], ['direct']);
    expect(expectBroken(p, m, 'alias', ['s', 'h'], plan)).toMatch(/h \(map #0 in root\) is read at or after the update/);
  });
});
