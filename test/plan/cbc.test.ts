// Cross-check with a second solver: every example's ILP, exported as CPLEX LP and as free MPS
// (`arrayfuse plan --emit-lp / --emit-mps`), solves with COIN-OR CBC to the objective HiGHS
// reaches through the planner. This checks the exported text (objective constant, bounds,
// integrality markers, ranged rows) as much as the model. Without `cbc` on PATH the cases are
// skipped and a test says so (install it with `apt-get install coinor-cbc`).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SourceFile } from '../../src/diagnostics/index.js';
import { lowerModule } from '../../src/lower/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { plan } from '../../src/plan/index.js';
import { programGraphs } from '../../src/graph/program.js';
import { emitLp, emitMps } from '../../src/report/render.js';
import { parseModule } from '../../src/syntax/index.js';

const cbcFound = spawnSync('cbc', ['-quit'], { encoding: 'utf8' }).error === undefined;
const solver = createSolverLoader();
const examplesDir = new URL('../../examples/', import.meta.url);
const exampleNames = readdirSync(examplesDir).filter((f) => f.endsWith('.fuse')).map((f) => f.slice(0, -5)).sort();
/** Costs that exercise every part of the model: read slots, writes, π_max, edge variables. */
const costs = ['reads+writes', 'everything', '2*fused-edges + clusters'];

/** Solves a model file with CBC; its optimal objective, or the reason it has none. */
function solveWithCbc(path: string): number {
  const run = spawnSync('cbc', [path, 'solve', 'quit'], { encoding: 'utf8', timeout: 60_000 });
  const out = `${run.stdout}\n${run.stderr}`;
  if (!/Result - Optimal solution found/.test(out)) throw new Error(`CBC found no optimum for ${path}:\n${out}`);
  const m = /Objective value:\s+(-?[\d.eE+-]+)/.exec(out);
  if (m === null) throw new Error(`no objective in CBC's output for ${path}:\n${out}`);
  return Number(m[1]);
}

describe.skipIf(!cbcFound)('CBC solves every exported example model to the planner\'s objective', () => {
  const dir = mkdtempSync(join(tmpdir(), 'arrayfuse-cbc-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(exampleNames.flatMap((name) => costs.map((cost) => [name, cost] as const)))('%s, cost %s: LP and MPS', async (name, cost) => {
    const file = new SourceFile(`${name}.fuse`, readFileSync(new URL(`${name}.fuse`, examplesDir), 'utf8'));
    const program = lowerModule(parseModule(file), file);
    const graphs = programGraphs(program);
    // The emitted model is the root block's; the examples have no nested blocks.
    expect(Object.keys(graphs.children)).toEqual([]);
    const highs = await plan(program, { solver, cost });
    expect(highs.stats.status).toBe('optimal');
    const base = join(dir, `${name}-${cost.replace(/[^a-z0-9]+/gi, '_')}`);
    writeFileSync(`${base}.lp`, emitLp(graphs, cost));
    writeFileSync(`${base}.mps`, emitMps(graphs, cost));
    expect(solveWithCbc(`${base}.lp`)).toBeCloseTo(highs.stats.objective, 6);
    expect(solveWithCbc(`${base}.mps`)).toBeCloseTo(highs.stats.objective, 6);
  });

  it('CBC reads the MPS text exactly as emitted (its NAME line says FREE)', () => {
    const file = new SourceFile('simple1.fuse', readFileSync(new URL('simple1.fuse', examplesDir), 'utf8'));
    const path = join(dir, 'as-emitted.mps');
    writeFileSync(path, emitMps(programGraphs(lowerModule(parseModule(file), file)), 'reads+writes'));
    expect(solveWithCbc(path)).toBe(3);
  });
});

describe.runIf(!cbcFound)('CBC cross-check', () => {
  it('is skipped: `cbc` is not on PATH', () => {
    console.warn('test/plan/cbc.test.ts: `cbc` is not on PATH, so the LP/MPS cross-check with CBC is skipped (apt-get install coinor-cbc)');
    expect(cbcFound).toBe(false);
  });
});
