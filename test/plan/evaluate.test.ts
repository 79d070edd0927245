// The cost evaluator on hand-computed examples: each expectation below is worked out from
// docs/PLANNING.md's definitions in the comment next to it.

import { describe, expect, it } from 'vitest';
import { parseCost } from '../../src/plan/cost.js';
import { evaluateBlockPlan, evaluatePlan } from '../../src/check/evaluate.js';
import { staticSizes } from '../../src/graph/sizes.js';
import type { Plan } from '../../src/plan/types.js';
import {
  blockPlan,
  diagonal,
  dimOnlyInBranch,
  doubling,
  greedyBottomUpBad,
  greedyTopDownBad,
  outerScalarInBranch,
  scalarBetween,
  simple1,
  simple3,
  simple5,
  statedPlans,
  tupleEntry,
  twoMapsOfOneSource,
} from './fixtures-validate.js';

const stated = (name: string) => statedPlans.find((s) => s.name === name)!;
const rw = parseCost('reads+writes');

describe('reads', () => {
  it('simple5: xs read in two orders in one cluster counts 2 (not a shared read)', () => {
    // xs: (cluster 0, order 0) from as, (cluster 0, gather #1) from bs; is: 1; as, bs: registers.
    const e = evaluateBlockPlan(simple5(), stated('simple5').plan, rw);
    expect(e.terms.reads).toBe(3);
    expect(e.terms['intermediate-arrays']).toBe(1);
    expect(e.total).toBe(4);
  });

  it('a horizontal shared read counts 1', () => {
    const e = evaluateBlockPlan(twoMapsOfOneSource(), blockPlan([[[0, 1], ['ys', 'zs']]], { 0: 0, 1: 0 }), rw);
    expect(e.terms.reads).toBe(1);
    expect(e.terms.writes).toBe(2);
  });

  it('the same reads in two clusters count 2', () => {
    const e = evaluateBlockPlan(twoMapsOfOneSource(), blockPlan([[[0], ['ys']], [[1], ['zs']]], { 0: 0, 1: 0 }), rw);
    expect(e.terms.reads).toBe(2);
  });

  it('diagonal fusion: one write, and its consumer reads it from a register', () => {
    // as manifest (a result) and fused into bs: writes as, bs = 2; reads xs once = 1.
    const e = evaluateBlockPlan(diagonal(), blockPlan([[[0, 1], ['as', 'bs']]], { 0: 0, 1: 0 }), rw);
    expect(e.terms.writes).toBe(2);
    expect(e.terms.reads).toBe(1);
    // Unfused instead: bs reads as from memory.
    const apart = evaluateBlockPlan(diagonal(), blockPlan([[[0], ['as']], [[1], ['bs']]], { 0: 0, 1: 0 }), rw);
    expect(apart.terms.reads).toBe(2);
  });

  it('keys reads by read order, never by the consumer output order', () => {
    // simple1: as fused into the gather, as in order gather #1: xs is read in the label, is in 0.
    const e = evaluateBlockPlan(simple1(), stated('simple1').plan, rw);
    expect(e.terms.reads).toBe(2);
  });

  it('an indexed read is a stream of its own', () => {
    // greedyTopDownBad: as 1; bs read by cs (cluster 1, order 0) and by ds (indexed): 2.
    const e = evaluateBlockPlan(greedyTopDownBad(), stated('greedyTopDownBad').plan, rw);
    expect(e.terms.reads).toBe(3);
  });
});

describe('the other terms', () => {
  it('clusters is the longest chain of the cluster DAG', () => {
    expect(evaluateBlockPlan(simple3(), stated('simple3').plan, rw).terms.clusters).toBe(2);
    // Two clusters with no dependence between them are one level.
    expect(evaluateBlockPlan(twoMapsOfOneSource(), blockPlan([[[0], ['ys']], [[1], ['zs']]], { 0: 0, 1: 0 }), rw).terms.clusters).toBe(1);
  });

  it('fused-edges counts unfused fusible edges only, with edge weights', () => {
    // simple3: as→bs (fusible, unfused) = 1.
    expect(evaluateBlockPlan(simple3(), stated('simple3').plan, parseCost('fused-edges')).total).toBe(1);
    expect(evaluateBlockPlan(simple3(), stated('simple3').plan, parseCost('fused-edges'), { weights: { edges: { 'as->bs': 5 } } }).total).toBe(5);
    // greedyBottomUpBad: zs→result is indexed (infusible), ys→result fusible, unfused: 1.
    expect(evaluateBlockPlan(greedyBottomUpBad(), stated('greedyBottomUpBad').plan, parseCost('fused-edges')).total).toBe(1);
  });

  it('everything sums the four terms; weighted sums use the coefficients', () => {
    // greedyTopDownBad: clusters 2, fused-edges 1 (bs→cs), writes 2 (bs, result), reads 3.
    const plan = stated('greedyTopDownBad').plan;
    expect(evaluateBlockPlan(greedyTopDownBad(), plan, parseCost('everything')).total).toBe(8);
    expect(evaluateBlockPlan(greedyTopDownBad(), plan, parseCost('2*reads + 0.5*writes')).total).toBe(7);
  });

  it('array weights scale an array group', () => {
    // simple5 with w(xs) = 10: reads 10·2 + 1, writes 1.
    const e = evaluateBlockPlan(simple5(), stated('simple5').plan, rw, { weights: { arrays: { xs: 10 } } });
    expect(e.total).toBe(22);
  });

  it('sums over nested blocks', () => {
    // root: xs 1 + start→while 1 + out 1 = 3 reads, start and final written; body: b_acc 1 read, b_next written.
    const e = evaluateBlockPlan(doubling(), stated('doubling').plan, rw);
    expect(e.terms.reads).toBe(4);
    expect(e.terms.writes).toBe(3);
    expect(e.terms.clusters).toBe(3 + 0 + 1);
  });

  it('evaluatePlan reads the plan root', () => {
    const plan: Plan = {
      strategy: 'none',
      cost: 'reads+writes',
      stats: { status: 'heuristic', objective: 0, bound: null, gap: null, nodes: null, timeMs: 0, notes: [] },
      root: stated('simple3').plan,
    };
    expect(evaluatePlan(simple3(), plan, rw).total).toBe(5);
  });
});

describe('reads through scalars and control flow', () => {
  it('dim(ys, 0) inside a branch is not a read: no edge from ys to the if, ys read by nobody', () => {
    // root: xs read by ys (cluster 0, order 0) and by the if (else returns xs): 2; ys written.
    // then: zs written. The if and ys are independent: the longest chain is 1 cluster.
    const plan = blockPlan([[[0], ['ys']], [[2], []]], { 0: 0 }, { 2: [blockPlan([[[1], ['zs']]], { 1: 0 }), blockPlan([], {})] });
    const e = evaluateBlockPlan(dimOnlyInBranch(), plan, rw);
    expect(e.terms.reads).toBe(2);
    expect(e.terms.writes).toBe(2);
    expect(e.terms.clusters).toBe(1 + 1 + 0);
  });

  it('a scalar of an enclosing block is a value: its indexing is read there, by the if', () => {
    // root: the if reads xs (s = xs!0, and the branch maps xs): 1. then: the map reads xs: 1; ys written.
    const plan = blockPlan([[[1], []]], {}, { 1: [blockPlan([[[0], ['ys']]], { 0: 0 }), blockPlan([], {})] });
    const e = evaluateBlockPlan(outerScalarInBranch(), plan, rw);
    expect(e.terms.reads).toBe(2);
    expect(e.total).toBe(3);
  });

  it('indexing through a chain of scalar statements is an indexed read of the node using them', () => {
    // zs uses t = 2 * (ys!0): it indexes ys (its own stream) and reads xs in order.
    const e = evaluateBlockPlan(scalarBetween(), blockPlan([[[0], ['ys']], [[1], ['zs']]], { 0: 0, 1: 0 }), rw);
    expect(e.terms.reads).toBe(3); // xs twice (two clusters), ys once
    expect(e.terms.clusters).toBe(2);
  });
});

describe('bytes', () => {
  it('weighs arrays by elements × bytes per element when sizes are static', () => {
    // simple1 with is: [4] i32, xs: [10] f64: reads is 16 + xs 80; bs (shape of is, f64) written 32.
    const e = evaluateBlockPlan(simple1(), stated('simple1').plan, parseCost('bytes'), { shapes: { is: [4], xs: [10] } });
    expect(e.total).toBe(128);
    expect(e.byteTerms).toEqual({ reads: 96, 'intermediate-arrays': 32, recompute: 0 }); // bs (4) is smaller than as (10)
  });

  it('weighs an entry array of tuples by all its components', () => {
    // ps: 4 elements × (4 + 8) bytes read once = 48; ys: 4 × 8 written = 32.
    const e = evaluateBlockPlan(tupleEntry(), blockPlan([[[0], ['ys']]], { 0: 0 }), parseCost('bytes'), { shapes: { ps: [4] } });
    expect(e.total).toBe(80);
  });

  it('weighs an array of unknown size 1', () => {
    expect(evaluateBlockPlan(simple1(), stated('simple1').plan, parseCost('bytes')).total).toBe(3);
  });

  it('staticSizes evaluates generate shapes from entry shapes and scalars', () => {
    const sizes = staticSizes(greedyBottomUpBad(), { xs: [5], m: 3 });
    expect(sizes.get('is')).toEqual([5, 3]);
    expect(sizes.get('large')).toEqual([5, 3]);
    expect(sizes.get('ys')).toEqual([5]);
    expect(sizes.get('result')).toEqual([5]);
    // Without m the generate's size is unknown.
    expect(staticSizes(greedyBottomUpBad(), { xs: [5] }).get('large')).toBeUndefined();
  });

  it('staticSizes knows an if output when both branches agree, not a while output', () => {
    expect(staticSizes(dimOnlyInBranch(), { xs: [6] }).get('r')).toEqual([6]);
    expect(staticSizes(doubling(), { xs: [6] }).get('start')).toEqual([6]);
    expect(staticSizes(doubling(), { xs: [6] }).get('out')).toBeUndefined();
  });

  it('byte-weighted greedyBottomUpBad: large is never written in the stated plan', () => {
    // xs 5·8 = 40 read once; ys, zs written (40 each), ys read by result (40), zs indexed (40); result 40.
    const e = evaluateBlockPlan(greedyBottomUpBad(), stated('greedyBottomUpBad').plan, parseCost('bytes'), { shapes: { xs: [5], m: 3 } });
    expect(e.total).toBe(40 + 40 + 40 + 40 + 40 + 40);
  });
});
