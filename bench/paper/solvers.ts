// The paper's Table 2 (ILP solve time, `reads and writes`) with the solvers we have: HiGHS, as
// the planner runs it (its times come from the harness's plans), and CBC — the open-source
// solver the paper also tried — on the same models exported as CPLEX LP files, one per block
// (a `while` body is a block with a model of its own). CBC gets one wall-clock budget for all of
// a program's blocks; past it the program is reported unsolved, as the paper reports CBC.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Compiler, entrySizes, signatureOf } from '../../src/driver/index.js';
import { programGraphs, type BlockGraphs } from '../../src/graph/program.js';
import { emitLp } from '../../src/report/render.js';
import type { BenchProgram, BenchSize } from './registry.js';

export interface CbcResult {
  /** `optimal` when CBC proved every block optimal within the budget. */
  readonly status: 'optimal' | 'unsolved' | 'error';
  /** Sum of the blocks' objectives (optimal only): must equal HiGHS's. */
  readonly objective: number | null;
  /** Wall clock over all blocks, ms (the budget when unsolved). */
  readonly wallMs: number;
  readonly blocks: number;
  readonly detail: string;
}

/** Whether a `cbc` executable is on PATH. */
export function cbcAvailable(): boolean {
  return spawnSync('cbc', ['-quit'], { encoding: 'utf8' }).error === undefined;
}

function blocksOf(bg: BlockGraphs): BlockGraphs[] {
  return [bg, ...Object.values(bg.children).flatMap((children) => children.flatMap(blocksOf))];
}

/** Solves every block's reads+writes model of a program at a size with CBC. */
export function solveWithCbc(program: BenchProgram, size: BenchSize, repoRoot: string, budgetSeconds: number): CbcResult {
  const source = readFileSync(join(repoRoot, program.file), 'utf8');
  const compiler = new Compiler(source, { fileName: program.file });
  const inputs = size.inputs();
  const signature = signatureOf(compiler.entry, inputs, compiler.file);
  const graphs = programGraphs(compiler.lower(signature), {}, entrySizes(signature));
  const blocks = blocksOf(graphs).filter((b) => b.graph.nodes.length > 0);
  const dir = mkdtempSync(join(tmpdir(), 'arrayfuse-paper-cbc-'));
  const start = performance.now();
  let objective = 0;
  try {
    for (const [k, block] of blocks.entries()) {
      const left = budgetSeconds - (performance.now() - start) / 1000;
      if (left <= 0) return { status: 'unsolved', objective: null, wallMs: budgetSeconds * 1000, blocks: blocks.length, detail: `budget spent before block ${k + 1}` };
      const file = join(dir, `block${k}.lp`);
      // emitLp writes a block with the blocks inside it; each block is solved on its own here.
      writeFileSync(file, emitLp({ graph: block.graph, children: {} }, 'reads+writes'));
      // CBC's own limit ends the search cleanly; the process timeout is the backstop.
      const run = spawnSync('cbc', [file, 'sec', String(Math.ceil(left)), 'solve', 'quit'], { encoding: 'utf8', timeout: Math.round((left + 30) * 1000), maxBuffer: 64 << 20 });
      const out = `${run.stdout ?? ''}\n${run.stderr ?? ''}`;
      if (run.error !== undefined || /Result - Stopped on time/.test(out)) {
        return { status: 'unsolved', objective: null, wallMs: budgetSeconds * 1000, blocks: blocks.length, detail: `block ${k + 1} of ${blocks.length} not proven optimal within ${budgetSeconds} s` };
      }
      const m = /Objective value:\s+(-?[\d.eE+-]+)/.exec(out);
      if (!/Result - Optimal solution found/.test(out) || m === null) {
        return { status: 'error', objective: null, wallMs: performance.now() - start, blocks: blocks.length, detail: `block ${k + 1}: ${out.split('\n').filter((l) => /Result|rror/.test(l)).join(' ') || 'no result line'}` };
      }
      objective += Number(m[1]);
    }
    return { status: 'optimal', objective, wallMs: performance.now() - start, blocks: blocks.length, detail: '' };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
