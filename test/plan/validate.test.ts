// The validator: one table row per fusion rule it enforces (docs/PLANNING.md, paper §3), each a
// hand-built program with a plan that breaks exactly that rule, and the paper's stated plans
// for the shared examples, which it must accept.

import { describe, expect, it } from 'vitest';
import { CompilerBug } from '../../src/diagnostics/index.js';
import type { Program } from '../../src/ir/types.js';
import type { BlockPlan, Plan } from '../../src/plan/types.js';
import { assertValidPlan, formatViolation, validateBlockPlan, validatePlan, type ViolationRule } from '../../src/check/validate.js';
import {
  blockPlan,
  diagonal,
  doubling,
  gatherByIndexing,
  dimOnlyInBranch,
  forceBesideGather,
  scalarBetween,
  scanOnly,
  scatterExample,
  scatterWithReader,
  scatterReadingItsDestination,
  scatterIntoInput,
  scatterIntoTupleComponent,
  simple1,
  simple3,
  simple5,
  statedPlans,
  twoMapsOfOneSource,
  twoUnrelatedMaps,
} from './fixtures-validate.js';

const asPlan = (root: BlockPlan): Plan => ({
  strategy: 'ilp',
  cost: 'reads+writes',
  stats: { status: 'optimal', objective: 0, bound: 0, gap: 0, nodes: 0, timeMs: 0, notes: [] },
  root,
});

describe('validatePlan accepts the paper plans', () => {
  it.each(statedPlans.map((s) => [s.name, s] as const))('%s', (_, s) => {
    expect(validatePlan(s.program(), asPlan(s.plan)).map(formatViolation)).toEqual([]);
  });

  it('accepts diagonal fusion: a result fused into its consumer and written too', () => {
    expect(validateBlockPlan(diagonal(), blockPlan([[[0, 1], ['as', 'bs']]], { 0: 0, 1: 0 }))).toEqual([]);
  });

  it('accepts a reader of one tuple component after a scatter into the other (per-array order)', () => {
    expect(validateBlockPlan(scatterIntoTupleComponent(), blockPlan([[[0], ['p', 'q']], [[1], ['ids']], [[2], ['result']], [[3], ['cs']]], { 0: 0, 1: 0, 2: 0, 3: 0 }))).toEqual([]);
  });

  it('accepts horizontal fusion of two maps reading xs in the same order', () => {
    expect(validateBlockPlan(twoMapsOfOneSource(), blockPlan([[[0, 1], ['ys', 'zs']]], { 0: 1, 1: 1 }))).toEqual([]);
  });
});

describe('validatePlan rejects', () => {
  const cases: readonly (readonly [string, () => Program, BlockPlan, ViolationRule, string])[] = [
    ['a node in no cluster', simple1, blockPlan([[[1], ['bs']]], { 0: 0, 1: 0 }), 'partition', 'map as (#0) is in no cluster'],
    ['a node in two clusters', simple3, blockPlan([[[0], ['as']], [[0, 1], ['bs']]], { 0: 0, 1: 0 }), 'partition', 'is also in cluster 0'],
    ['an unknown node', simple1, blockPlan([[[0, 1, 9], ['bs']]], { 0: { gather: 1 }, 1: 0 }), 'partition', 'node #9 is not a node of this block'],
    ['an empty cluster', simple1, blockPlan([[[], []], [[0, 1], ['bs']]], { 0: { gather: 1 }, 1: 0 }), 'partition', 'the cluster is empty'],
    ['control flow with company', doubling,
      blockPlan([[[0], ['start']], [[2, 3], ['final']]], { 0: 0, 3: 0 }, { 2: [blockPlan([], {}), blockPlan([[[1], ['b_next']]], { 1: 0 })] }),
      'control-flow-alone', 'while #2 must be alone'],
    ['fusion over an indexing edge', gatherByIndexing, blockPlan([[[0, 1, 2], ['ys']]], { 0: 0, 1: 0, 2: 0 }), 'infusible-edge', 'js is read by indexing'],
    ['fusion over indexing through scalar statements', scalarBetween, blockPlan([[[0, 1], ['ys', 'zs']]], { 0: 0, 1: 0 }), 'infusible-edge', 'ys is read by indexing'],
    ['fusion over a scatter destination', scatterExample, blockPlan([[[0, 1, 2], ['result']]], { 0: 0, 1: 0, 2: 0 }), 'infusible-edge', 'bs is a scatter destination'],
    ['a consumer before its producer', simple3, blockPlan([[[1], ['bs']], [[0], ['as']]], { 0: 0, 1: 0 }), 'dependence', 'comes later, in cluster 1'],
    ['a cluster listing a consumer first', simple1, blockPlan([[[1, 0], ['bs']]], { 0: { gather: 1 }, 1: 0 }), 'dependence', 'is listed before map as'],
    ['a reader of the scatter destination after the scatter', scatterWithReader,
      blockPlan([[[1], ['bs']], [[0, 3], ['result']], [[2], ['cs']]], { 0: 0, 1: 0, 2: 0, 3: 0 }),
      'scatter-uniqueness', 'map cs (#2) reads bs, which scatter result (#3) updates in place'],
    ['a scatter reading its own destination as its values', scatterReadingItsDestination,
      blockPlan([[[0], ['ids']], [[1], ['bs']], [[2], ['result']]], { 0: 0, 1: 0, 2: 0 }),
      'scatter-uniqueness', 'scatter result (#2) reads bs (scatter-src) while it updates it in place'],
    ['a scatter updating an entry input in place', scatterIntoInput,
      blockPlan([[[0], ['ids']], [[1], ['result']]], { 0: 0, 1: 0 }),
      'scatter-uniqueness', 'no combinator of this block produces xs'],
    ['a scanl in order 1', scanOnly, blockPlan([[[0], ['ys']]], { 0: 1 }), 'order', 'is a scanl and must have order 0'],
    ['a force in a gather order (0 or 1 only, PLANNING.md rule 4)', forceBesideGather,
      blockPlan([[[0], ['fs']], [[1], ['ys']]], { 0: { gather: 1 }, 1: 0 }), 'order', 'force fs (#0) is a force and must have order 0 or 1, not gather #1'],
    ['a node without an order', simple1, blockPlan([[[0, 1], ['bs']]], { 1: 0 }), 'order', 'map as (#0) has no order'],
    ['an order for a control-flow node', doubling,
      blockPlan([[[0], ['start']], [[2], []], [[3], ['final']]], { 0: 0, 2: 0, 3: 0 }, { 2: [blockPlan([], {}), blockPlan([[[1], ['b_next']]], { 1: 0 })] }),
      'order', 'is control flow and has no order'],
    ['a fused edge whose orders differ', simple1, blockPlan([[[0, 1], ['bs']]], { 0: 0, 1: 0 }), 'order', 'reads as (gather-source) in order gather #1'],
    ['a label that is no gather', simple1, blockPlan([[[0, 1], ['bs']]], { 0: { gather: 0 }, 1: 0 }), 'gather-label', 'not a gather of this block'],
    ['a result not manifest', simple3, blockPlan([[[0], []], [[1], ['bs']]], { 0: 0, 1: 0 }), 'manifest', 'its output is a result of the block'],
    ['an array read by a later cluster not manifest', gatherByIndexing, blockPlan([[[0], []], [[1, 2], ['ys']]], { 0: 0, 1: 0, 2: 0 }), 'manifest', 'in another cluster reads it'],
    ['a manifest array in a gather order', simple1, blockPlan([[[0, 1], ['as', 'bs']]], { 0: { gather: 1 }, 1: 0 }), 'manifest', 'must be produced in order 0 or 1'],
    ['half a tuple manifest', scatterExample, blockPlan([[[1], ['bs']], [[0], ['as_0']], [[2], ['result']]], { 0: 0, 1: 0, 2: 0 }), 'manifest', 'only some outputs of map as_0, as_1 (#0)'],
    ['a manifest array of another cluster', simple3, blockPlan([[[0], []], [[1], ['as', 'bs']]], { 0: 0, 1: 0 }), 'manifest', 'as is listed as manifest in cluster 1'],
    ['unrelated nodes in one cluster', twoUnrelatedMaps, blockPlan([[[0, 1], ['ys', 'zs']]], { 0: 0, 1: 0 }), 'connected', 'falls apart into 2 parts'],
    ['one array read in two orders as the only link', twoMapsOfOneSource, blockPlan([[[0, 1], ['ys', 'zs']]], { 0: 0, 1: 1 }), 'connected', 'falls apart'],
    ['a control-flow node without child plans', doubling, blockPlan([[[0], ['start']], [[2], []], [[3], ['final']]], { 0: 0, 3: 0 }), 'children', 'needs 2 child plans'],
    ['an invalid child plan', doubling,
      blockPlan([[[0], ['start']], [[2], []], [[3], ['final']]], { 0: 0, 3: 0 }, { 2: [blockPlan([], {}), blockPlan([[[1], []]], { 1: 0 })] }),
      'manifest', 'map b_next (#1) must be manifest'],
  ];

  it.each(cases)('%s', (_, makeProgram, plan, rule, fragment) => {
    const violations = validateBlockPlan(makeProgram(), plan);
    const matching = violations.filter((v) => v.rule === rule);
    expect(matching.map(formatViolation).join('\n')).toContain(fragment);
  });

  it('says where: the block path of a nested violation', () => {
    const plan = blockPlan([[[0], ['start']], [[2], []], [[3], ['final']]], { 0: 0, 3: 0 }, {
      2: [blockPlan([], {}), blockPlan([[[1], []]], { 1: 0 })],
    });
    const [v] = validateBlockPlan(doubling(), plan);
    expect(v!.block).toBe('root/while #2 body');
    expect(v!.cluster).toBe(0);
    expect(v!.nodes).toEqual([1]);
  });

  it('an if that only asks for the size of ys may come before ys', () => {
    const plan = blockPlan([[[2], []], [[0], ['ys']]], { 0: 0 }, { 2: [blockPlan([[[1], ['zs']]], { 1: 0 }), blockPlan([], {})] });
    expect(validateBlockPlan(dimOnlyInBranch(), plan).map(formatViolation)).toEqual([]);
  });

  it('simple5 is one cluster even though xs is read in two orders (connected through cs)', () => {
    expect(validateBlockPlan(simple5(), blockPlan([[[0, 1, 2], ['cs']]], { 0: 0, 1: 0, 2: 0 }))).toEqual([]);
  });

  it('assertValidPlan throws a CompilerBug listing the violations', () => {
    const bad = asPlan(blockPlan([[[0, 1], ['bs']]], { 0: 0, 1: 0 }));
    expect(() => assertValidPlan(simple1(), bad)).toThrow(CompilerBug);
    expect(() => assertValidPlan(simple1(), bad)).toThrow(/\[order\] root, cluster 0/);
    expect(() => assertValidPlan(simple1(), asPlan(statedPlans[0]!.plan))).not.toThrow();
  });
});
