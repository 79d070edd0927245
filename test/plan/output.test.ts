// Plan output formats, LP/MPS emission, option errors, the time-limit path, and graph edges.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/diagnostics/index.js';
import { plan } from '../../src/plan/index.js';
import { programGraphs } from '../../src/graph/program.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { emitLp, emitMps, renderPlanDot, renderPlanJson, renderPlanSvg, renderPlanText } from '../../src/report/render.js';
import { validatePlan } from '../../src/check/validate.js';
import { arr, arrayParam, nodes, opLam, program } from '../ir/builders.js';
import { randomProgram } from '../util/index.js';
import { greedyBottomUpBad, greedyTopDownBad, gatherByIndexing, scatterExample, singleLoop } from './fixtures.js';

const solver = createSolverLoader();

describe('dependence graph edges and reasons', () => {
  const edges = (p: ReturnType<typeof singleLoop>) =>
    programGraphs(p).graph.edges.map((e) => {
      const g = programGraphs(p).graph;
      const name = (id: number) => g.nodes.find((n) => n.id === id)!.name;
      return `${name(e.from)}->${name(e.to)} ${e.fusible ? 'fusible' : e.reasons.join('+')}`;
    });
  it('indexing through a scalar statement is an infusible edge (greedyBottomUpBad: zs -> result)', () => {
    expect(edges(greedyBottomUpBad())).toContain('zs->result indexed');
    expect(edges(greedyBottomUpBad())).toContain('large->ys fusible');
  });
  it('indexing in element code, dim adds no edge (gather via backpermute)', () => {
    expect(edges(gatherByIndexing())).toEqual(['js->ks indexed', 'ks->ys fusible']);
  });
  it('scatter destination is infusible, its source fusible', () => {
    expect(edges(scatterExample())).toEqual(['as_0->result fusible', 'bs->result scatter-dest']);
  });
  it('force: into and out of it infusible', () => {
    const n = nodes();
    const p = program('f', [arrayParam('xs', 'f64', 1)], [
      n.map([arr('a', 'f64', 1)], ['xs'], opLam('+', 'f64', 'x', 'x')),
      n.force([arr('b', 'f64', 1)], ['a']),
      n.map([arr('c', 'f64', 1)], ['b'], opLam('+', 'f64', 'x', 'x')),
    ], ['c']);
    expect(edges(p)).toEqual(['a->b force-input', 'b->c force-output']);
  });
  it.each([
    ['E601', 'destination of two scatters'],
  ])('%s: %s', (code, fragment) => {
    const n = nodes();
    const p = program('s', [arrayParam('xs', 'f64', 1), arrayParam('is', 'i32', 1)], [
      n.scatter([arr('r1', 'f64', 1)], opLam('+', 'f64'), ['xs'], ['is'], ['xs']),
      n.scatter([arr('r2', 'f64', 1)], opLam('+', 'f64'), ['xs'], ['is'], ['xs']),
    ], ['r1', 'r2']);
    expect(() => programGraphs(p)).toThrow(fragment);
    try {
      programGraphs(p);
    } catch (e) {
      expect((e as UserError).code).toBe(code);
    }
  });
  it('E602: a read of the destination after the scatter', () => {
    const n = nodes();
    const p = program('s', [arrayParam('xs', 'f64', 1), arrayParam('is', 'i32', 1)], [
      n.scatter([arr('r', 'f64', 1)], opLam('+', 'f64'), ['xs'], ['is'], ['xs']),
      n.map([arr('y', 'f64', 1)], ['xs', 'r'], opLam('+', 'f64')),
    ], ['y']);
    expect(() => programGraphs(p)).toThrow(/read here after the scatter/);
  });
});

describe('option errors', () => {
  it.each([
    [{ timeLimitSeconds: -1 }, 'E600', 'non-negative number of seconds'],
    [{ cost: 'speed' }, 'E651', 'unknown cost name'],
  ])('%j → %s', async (options, code, fragment) => {
    const err = await plan(singleLoop(), { ...options, solver }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as UserError).code).toBe(code);
    expect((err as UserError).message).toContain(fragment);
  });
});

describe('time limit', () => {
  it('a zero time limit still returns a valid plan, saying how it got it', async () => {
    const { program: p } = randomProgram(7, { combinators: 30, controlFlow: false });
    const result = await plan(p, { solver, timeLimitSeconds: 0 });
    expect(['optimal', 'time-limit', 'fallback-greedy']).toContain(result.stats.status);
    if (result.stats.status === 'fallback-greedy') expect(result.stats.notes.join(' ')).toContain('greedy-down');
    expect(validatePlan(p, result)).toEqual([]);
  });
});

describe('renderers', () => {
  it('text: clusters in order with orders and manifest, unfused edges with reasons, stats', async () => {
    const p = greedyTopDownBad();
    const result = await plan(p, { solver });
    const text = renderPlanText(programGraphs(p), result);
    expect(text).toMatch(/cluster 1\n {4}reads {4}as:0\n {4}computes bs:0\n {4}writes {3}bs\n/);
    expect(text).toMatch(/cluster 2\n {4}reads {4}bs:0, bs:by index\n {4}computes cs:0 \(fused away\), ds:0 \(fused away\), es:0 \(fused away\), result:0\n {4}writes {3}result\n/);
    expect(text).toContain('bs -> ds: infusible: the consumer reads it by indexing');
    expect(text).toMatch(/objective 5 \(optimal, bound 5, gap 0/);
  });
  it('JSON: version, strategy, cost, status, objective, clusters with nodes and manifest', async () => {
    const p = singleLoop();
    const json = renderPlanJson(programGraphs(p), await plan(p, { solver }));
    expect(json).toMatchObject({ version: 1, strategy: 'ilp', cost: 'reads+writes+recompute', status: 'optimal' });
    expect(json.clusters).toHaveLength(1);
    expect(json.clusters[0]!.manifest).toEqual(['result']);
    expect(json.clusters[0]!.nodes).toEqual(['inds', 'bs', 'cs', 'ds', 'result']);
  });
  it('DOT and SVG: clusters as subgraphs, infusible edges dashed with their reason', async () => {
    const p = greedyTopDownBad();
    const result = await plan(p, { solver });
    const dot = renderPlanDot(programGraphs(p), result);
    expect(dot).toContain('subgraph "cluster_b/c1"');
    expect(dot).toMatch(/style=dashed, color="black:invis:black", label="by index\\n\(indexed\)"/);
    expect(await renderPlanSvg(programGraphs(p), result)).toContain('<svg');
  });
});

describe('LP and MPS emission', () => {
  const cases = [singleLoop, scatterExample, greedyBottomUpBad, greedyTopDownBad];
  it.each(cases.map((f) => [f.name, f] as const))('%s: HiGHS reads the LP and the MPS back to the same optimum', async (_, build) => {
    const handle = await solver.load();
    const p = build();
    const expected = (await plan(p, { solver, cost: 'everything' })).stats.objective;
    for (const [format, data] of [['lp', emitLp(programGraphs(p), 'everything')], ['mps', emitMps(programGraphs(p), 'everything')]] as const) {
      const { objective } = handle.solveText(format, data);
      expect(objective, format).toBeCloseTo(expected, 6);
    }
  });
  const cbc = (() => {
    try {
      execFileSync('cbc', ['-quit'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();
  if (!cbc) console.warn('NOTICE: cbc is not on PATH; the CBC cross-check of the LP file is skipped');
  it.skipIf(!cbc)('cbc solves the exported LP to the same objective', async () => {
    const p = greedyBottomUpBad();
    const file = join(mkdtempSync(join(tmpdir(), 'arrayfuse-lp-')), 'model.lp');
    writeFileSync(file, emitLp(programGraphs(p), 'reads+writes'));
    const out = execFileSync('cbc', [file, 'solve'], { encoding: 'utf8' });
    const m = /Objective value:\s*([-\d.e+]+)/.exec(out);
    expect(Number(m?.[1])).toBeCloseTo((await plan(p, { solver })).stats.objective, 6);
  });
});
