// One plan format: what the API returns is the JSON plan v1 of docs/PLAN-FORMAT.md. The
// document's own examples, comments removed, go through the API: its plan example is what
// `program.plan` returns for the program and sizes it names (timeMs aside), and its graph
// example plans with `planGraph`. Every example's plan from `plan`, `program.plan` and
// `program.render('json')` is `renderPlanJson` of the planner's plan.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compile, plan, planGraph, planProgram, programGraphs, renderPlanJson, type PlanJson } from '../../src/index.js';
import { repoRoot } from '../util/sources.js';

const doc = readFileSync(join(repoRoot, 'docs/PLAN-FORMAT.md'), 'utf8');

/** The JSON code blocks under a heading of the document, `//` comments removed, parsed. */
function jsonBlocksUnder(heading: string): unknown[] {
  const section = doc.slice(doc.indexOf(heading));
  const next = section.indexOf('\n## ', 3);
  const text = next < 0 ? section : section.slice(0, next);
  return [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!.replace(/\/\/.*$/gm, '')) as unknown);
}

function withoutTime(p: PlanJson): Omit<PlanJson, 'timeMs'> {
  const { timeMs, ...rest } = p;
  expect(timeMs).toBeGreaterThanOrEqual(0);
  return rest;
}

const source = (name: string): string => readFileSync(join(repoRoot, 'examples', name), 'utf8');

describe('docs/PLAN-FORMAT.md through the API', () => {
  it("the plan example is program.plan's plan of greedyTopDownBad for 1000 elements", async () => {
    const [example] = jsonBlocksUnder('## JSON plan, version 1') as PlanJson[];
    const program = compile(source('greedyTopDownBad.fuse'));
    const planned = await program.plan({ as: new Float64Array(1000) });
    expect(withoutTime(planned)).toEqual(withoutTime(example!));
  });

  it('the graph example plans with planGraph, as text and as a value', async () => {
    const [graph] = jsonBlocksUnder('## JSON graph input, version 1');
    const fromValue = await planGraph(graph);
    const fromText = await planGraph(JSON.stringify(graph));
    expect(withoutTime(fromText)).toEqual(withoutTime(fromValue));
    expect(fromValue).toMatchObject({ version: 1, strategy: 'ilp', status: 'optimal' });
    expect(fromValue.memory).toBeUndefined();
    // The gather fuses with the map it reads (its weight-3 edge): one cluster writing bs.
    expect(fromValue.clusters).toEqual([{ nodes: ['as', 'bs'], ids: [0, 7], manifest: ['bs'], orders: { as: 'gather:bs', bs: '0' } }]);
  });
});

describe('every example, every entry point, one format', () => {
  const examples = readdirSync(join(repoRoot, 'examples')).filter((f) => f.endsWith('.fuse'));

  it.each(examples)('%s', async (name) => {
    const program = compile(source(name));
    const ir = program.lower();
    const internal = await planProgram(ir);
    const expected = withoutTime(renderPlanJson(programGraphs(ir), internal.plan, undefined));
    const { memory: fromPlan, ...top } = await plan(ir);
    expect(fromPlan).toBeDefined();
    expect(withoutTime({ ...top })).toEqual(expected);
    const { memory: fromProgram, ...viaProgram } = await program.plan();
    expect(fromProgram).toEqual(fromPlan);
    expect(withoutTime({ ...viaProgram })).toEqual(expected);
    const { memory: rendered, ...viaRender } = JSON.parse(await program.render('json')) as PlanJson;
    expect(rendered).toEqual(fromPlan);
    expect(withoutTime({ ...viaRender })).toEqual(expected);
    // The dependence graph the API prints plans to the same clusters.
    const { clusters } = await planGraph(await program.render('graph-json'));
    expect(clusters).toEqual(expected.clusters);
  });
});
