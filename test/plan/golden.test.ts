// Golden plans of the real example files (examples/*.fuse): each header states the optimal plan
// for a cost; the ILP must find exactly that plan (cluster membership and sequence, which arrays
// are manifest and which are fused away, traversal orders, how each input is read), and the two
// greedy baselines must lose where the paper's §5 says they do.
//
// The programs are parsed and lowered without a signature, as `arrayfuse plan` does.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SourceFile } from '../../src/diagnostics/index.js';
import type { NodeId, Program } from '../../src/ir/types.js';
import { lowerModule } from '../../src/lower/index.js';
import { parseCost } from '../../src/plan/cost.js';
import { evaluatePlan } from '../../src/check/evaluate.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { plan, type PlanOptions } from '../../src/plan/index.js';
import { programGraphs, type BlockGraphs } from '../../src/graph/program.js';
import type { Order, Plan } from '../../src/plan/types.js';
import { formatViolation, validatePlan } from '../../src/check/validate.js';
import { parseModule } from '../../src/syntax/index.js';

const solver = createSolverLoader();

function lowerExample(name: string): Program {
  const file = new SourceFile(`${name}.fuse`, readFileSync(new URL(`../../examples/${name}.fuse`, import.meta.url), 'utf8'));
  return lowerModule(parseModule(file), file);
}

/** A planned example, read back by array names. */
interface Planned {
  readonly plan: Plan;
  /** Root clusters in execution order, each as its nodes' names. */
  readonly clusters: readonly (readonly string[])[];
  readonly manifest: readonly string[];
  /** `0`, `1`, or `gather:<name of the gather>`. */
  order(name: string): string;
  /** How the root block reads an input array from memory: one order per stream, sorted. */
  inputReads(name: string): readonly string[];
}

async function planExample(name: string, options: PlanOptions = {}): Promise<Planned> {
  const program = lowerExample(name);
  const graphs: BlockGraphs = programGraphs(program, options.weights, options.shapes);
  const p = await plan(program, { solver, ...options });
  // Every golden plan is a valid plan whose reported cost is the independently evaluated one.
  expect(validatePlan(program, p).map(formatViolation)).toEqual([]);
  expect(evaluatePlan(program, p, parseCost(p.cost), { shapes: options.shapes, weights: options.weights }).total).toBeCloseTo(p.stats.objective, 9);

  const { graph } = graphs;
  const nameOf = (id: NodeId): string => graph.nodes.find((n) => n.id === id)!.name;
  const idOf = (n: string): NodeId => {
    const node = graph.nodes.find((x) => x.name === n);
    if (node === undefined) throw new Error(`${name}: no node ${n}; nodes are ${graph.nodes.map((x) => x.name).join(', ')}`);
    return node.id;
  };
  const orderText = (o: Order | undefined): string => (o === undefined ? '-' : typeof o === 'number' ? String(o) : `gather:${nameOf(o.gather)}`);
  return {
    plan: p,
    clusters: p.root.clusters.map((c) => c.nodes.map(nameOf)),
    manifest: p.root.clusters.flatMap((c) => c.manifest).sort(),
    order: (n) => orderText(p.root.orders[idOf(n)]),
    inputReads(array) {
      const group = graph.groups.find((g) => g.name === array && g.producer === null);
      if (group === undefined) throw new Error(`${name}: no input ${array}`);
      const clusterOf = (id: NodeId): number => p.root.clusters.findIndex((c) => c.nodes.includes(id));
      const streams = new Set<string>();
      for (const r of graph.reads.filter((x) => x.group === group.index)) {
        const o =
          r.order === 'output' ? orderText(p.root.orders[r.consumer])
          : r.order === 'zero' ? '0'
          : r.order === 'one' ? '1'
          : r.order === 'label' ? `gather:${nameOf(r.consumer)}`
          : `by index in ${nameOf(r.consumer)}`;
        streams.add(r.order === 'unordered' ? o : `cluster ${clusterOf(r.consumer)} ${o}`);
      }
      return [...streams].sort();
    },
  };
}

describe('ILP plans stated by the example headers (cost reads+writes unless named)', () => {
  it('backpermute: ONE cluster; ys and the generated indices fused into the gather', async () => {
    const e = await planExample('backpermute');
    expect(e.clusters).toEqual([['ys', 'inds', 'zs']]);
    expect(e.manifest).toEqual(['zs']);
    expect(e.order('ys')).toBe('gather:zs');
    expect(e.inputReads('xs')).toEqual(['cluster 0 gather:zs']);
  });

  it('gather: TWO clusters, [js] then the rest; js manifest (read by indexing)', async () => {
    const e = await planExample('gather');
    expect(e.clusters).toEqual([['js'], ['inds', 'ys']]);
    expect(e.manifest).toEqual(['js', 'ys']);
  });

  it('greedyBottomUpBad: is, large, ys, zs in ONE cluster, `large` never manifest, `result` second', async () => {
    const e = await planExample('greedyBottomUpBad');
    expect(e.clusters).toEqual([['is', 'large', 'ys', 'zs'], ['result']]);
    expect(e.manifest).not.toContain('large');
    expect(e.manifest).not.toContain('is');
    expect(e.manifest).toEqual(['result', 'ys', 'zs']);
  });

  it('greedyTopDownBad: [bs] then [cs, ds, es, result]; cs fused vertically into es, never manifest', async () => {
    const e = await planExample('greedyTopDownBad');
    expect(e.clusters).toEqual([['bs'], ['cs', 'ds', 'es', 'result']]);
    expect(e.manifest).toEqual(['bs', 'result']);
    expect(e.plan.stats.objective).toBe(5);
  });

  it('reverse: ONE cluster; inds fused away, xs read in the gather\'s order', async () => {
    const e = await planExample('reverse');
    expect(e.clusters).toEqual([['inds', 'result']]);
    expect(e.manifest).toEqual(['result']);
    expect(e.inputReads('xs')).toEqual(['cluster 0 gather:result']);
  });

  it.each(['reads+writes', 'intermediate-arrays'])('scatterExample (%s): TWO clusters [bs] then [as, result]; `as` never manifest', async (cost) => {
    const e = await planExample('scatterExample', { cost });
    expect(e.clusters).toEqual([['bs'], ['as.0', 'result']]);
    expect(e.manifest).toEqual(['bs', 'result']);
    expect(e.manifest.some((m) => m.startsWith('as'))).toBe(false);
  });

  it.each(['reads+writes', 'reads+writes+recompute'])('histogram (%s): TWO clusters [fill] then [bins, ws, result]; bins and weights never manifest, xs read once', async (cost) => {
    const e = await planExample('histogram', { cost });
    expect(e.clusters).toEqual([['generate'], ['bins', 'ws', 'map', 'result']]);
    expect(e.manifest).toEqual(['generate', 'result']);
    expect(e.inputReads('xs')).toEqual(['cluster 1 0']);
  });

  it('segmented: the scans take their inputs fused; only what is read by index or is a result is manifest', async () => {
    const e = await planExample('segmented');
    expect(e.clusters).toHaveLength(4);
    expect(e.manifest).not.toContain('ys');
    expect(e.inputReads('xs')).toEqual(['cluster 2 0']);
  });

  it('simple1: ONE cluster [is:0, xs:ℓ | bs:0]; `as` fused away in the gather\'s order', async () => {
    const e = await planExample('simple1');
    expect(e.clusters).toEqual([['as', 'bs']]);
    expect(e.manifest).toEqual(['bs']);
    expect(e.order('bs')).toBe('0');
    expect(e.order('as')).toBe('gather:bs');
    expect(e.inputReads('is')).toEqual(['cluster 0 0']);
    expect(e.inputReads('xs')).toEqual(['cluster 0 gather:bs']);
  });

  it('simple2: ONE cluster [is2:0, is1:ℓ(bs), xs:ℓ(as) | bs:0]; `as` fused away', async () => {
    const e = await planExample('simple2');
    expect(e.clusters).toEqual([['as', 'bs']]);
    expect(e.manifest).toEqual(['bs']);
    expect(e.order('as')).toBe('gather:bs');
    expect(e.inputReads('is2')).toEqual(['cluster 0 0']);
    expect(e.inputReads('is1')).toEqual(['cluster 0 gather:bs']);
    expect(e.inputReads('xs')).toEqual(['cluster 0 gather:as']);
  });

  it('simple3: TWO clusters, [map] before [gather]; `as` (a result) and `bs` manifest', async () => {
    const e = await planExample('simple3');
    expect(e.clusters).toEqual([['as'], ['bs']]);
    expect(e.manifest).toEqual(['as', 'bs']);
    expect(e.order('as')).toMatch(/^[01]$/);
  });

  it('simple4: ONE cluster [is:0, xs:ℓ | bs:0]; the fold fused away, computed for the selected rows', async () => {
    const e = await planExample('simple4');
    expect(e.clusters).toEqual([['as', 'bs']]);
    expect(e.manifest).toEqual(['bs']);
    expect(e.order('as')).toBe('gather:bs');
    expect(e.inputReads('xs')).toEqual(['cluster 0 gather:bs']);
  });

  it('simple5: ONE cluster; xs read twice, in 0 and in ℓ, and costed as two streams', async () => {
    const e = await planExample('simple5');
    expect(e.clusters).toEqual([['as', 'bs', 'cs']]);
    expect(e.manifest).toEqual(['cs']);
    expect(e.inputReads('xs')).toEqual(['cluster 0 0', 'cluster 0 gather:bs']);
    expect(e.inputReads('is')).toEqual(['cluster 0 0']);
    // Reads: xs twice (not a shared read), is once; writes: cs.
    expect(e.plan.stats.objective).toBe(4);
    expect((await planExample('simple5', { cost: 'reads' })).plan.stats.objective).toBe(3);
  });

  it('singleLoop: ONE cluster, only `result` manifest; `as` read in 0 (cs) and in ℓ (bs)', async () => {
    const e = await planExample('singleLoop');
    expect(e.clusters).toHaveLength(1);
    expect([...e.clusters[0]!].sort()).toEqual(['bs', 'cs', 'ds', 'inds', 'result']);
    expect(e.manifest).toEqual(['result']);
    expect(e.inputReads('as')).toEqual(['cluster 0 0', 'cluster 0 gather:bs']);
    expect(e.plan.stats.objective).toBe(3);
  });
});

describe('the greedy baselines lose where §5 says', () => {
  // `large` is an n×m array: with n = 10, m = 20 it is 200 elements, twenty times xs.
  const sized: PlanOptions = { cost: 'bytes', shapes: { xs: [10], m: 20 } };
  const weighted: PlanOptions = { cost: 'reads+writes', weights: { arrays: { large: 200 } } };

  it.each([
    ['bytes with n = 10, m = 20', sized],
    ['reads+writes with `large` weighing 200', weighted],
  ] as const)('greedyBottomUpBad, %s: greedy-up fuses ys into result, making `large` manifest and costing more', async (_, options) => {
    const ilp = await planExample('greedyBottomUpBad', options);
    const up = await planExample('greedyBottomUpBad', { ...options, strategy: 'greedy-up' });
    expect(ilp.manifest).not.toContain('large');
    expect(up.manifest).toContain('large');
    expect(up.clusters.find((c) => c.includes('result'))).toContain('ys');
    expect(up.plan.stats.objective).toBeGreaterThan(ilp.plan.stats.objective);
    // Top-down greedy happens to find the optimum here.
    expect((await planExample('greedyBottomUpBad', { ...options, strategy: 'greedy-down' })).plan.stats.objective).toBe(ilp.plan.stats.objective);
  });

  it('greedyTopDownBad: greedy-down fuses cs diagonally with bs, making `cs` manifest and costing more', async () => {
    const ilp = await planExample('greedyTopDownBad');
    const down = await planExample('greedyTopDownBad', { strategy: 'greedy-down' });
    expect(down.clusters[0]).toEqual(['bs', 'cs']);
    expect(down.manifest).toContain('cs');
    expect(ilp.manifest).not.toContain('cs');
    expect(down.plan.stats.objective).toBe(6);
    expect(down.plan.stats.objective).toBeGreaterThan(ilp.plan.stats.objective);
    expect((await planExample('greedyTopDownBad', { strategy: 'greedy-up' })).plan.stats.objective).toBe(ilp.plan.stats.objective);
  });
});
