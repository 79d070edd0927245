// `plan --emit-lp / --emit-mps` (src/plan/ilp/export.ts, lpfile.ts): the exported model holds
// every block of the program, and its optimum is the objective the planner reports — checked
// for every example and case study in three independent readers and solvers: HiGHS (always,
// in process), COIN-OR CBC and GLPK (when `cbc` / `glpsol` are on PATH: apt-get install
// coinor-cbc glpk-utils; else skipped, and a test says so). This checks the text (objective
// constant, bounds, integrality markers, ranged rows, block prefixes) as much as the model.
// Then adversarial cases: odd array names only reach comments and cannot break a line, an empty
// program, nested if/while blocks, a chain of hundreds of nested blocks, a negative and
// fractional objective constant, repeated names.
//
// At most two solver processes run at a time, beside the planning of the next cases.

import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { Compiler } from '../../src/driver/index.js';
import type { BlockGraphs } from '../../src/graph/program.js';
import type { DependenceGraph } from '../../src/graph/types.js';
import type { InputSignature } from '../../src/lower/index.js';
import { parseCost } from '../../src/plan/cost.js';
import { programModelBlocks } from '../../src/plan/ilp/export.js';
import { blocksToLpText, blocksToMpsText, toLpText, toMpsText } from '../../src/plan/ilp/lpfile.js';
import { buildModel, type IlpModel } from '../../src/plan/ilp/model.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { emitLp, emitMps } from '../../src/report/render.js';

const solver = createSolverLoader();
const found = (command: string, args: readonly string[]): boolean => spawnSync(command, args, { encoding: 'utf8' }).error === undefined;
const cbcFound = found('cbc', ['-quit']);
const glpkFound = found('glpsol', ['--version']);
const dir = mkdtempSync(join(tmpdir(), 'arrayfuse-lpexport-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// ---------------------------------------------------------------------------------------------
// The programs and costs.

interface Case {
  readonly label: string;
  readonly source: string;
  readonly fileName: string;
  readonly cost: string;
  readonly signature?: Readonly<Record<string, InputSignature>>;
}

const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');
const defaultCost = 'reads+writes+recompute';
/** Costs that exercise every part of the model: read streams, writes, recompute, π_max, edge variables. */
const exampleCosts = [defaultCost, 'reads+writes', 'everything', '2*fused-edges + clusters'];
const f64 = (...shape: number[]): InputSignature => ({ kind: 'array', elem: 'f64', shape });
const i32 = (value: number): InputSignature => ({ kind: 'scalar', elem: 'i32', value });
const mgShape = { v: f64(32, 32, 32), nit: i32(4) };
const attentionShape = { Q: f64(100, 16), K: f64(100, 16), V: f64(100, 16), br: i32(16), bc: i32(32) };

const exampleCases: Case[] = readdirSync(new URL('examples/', root))
  .filter((f) => f.endsWith('.fuse'))
  .sort()
  .flatMap((f) => exampleCosts.map((cost) => ({ label: f, source: read(`examples/${f}`), fileName: `examples/${f}`, cost })));

/** The case studies (bench/programs): the default cost, and more where planning is quick. */
const caseStudies: Case[] = [
  ...[defaultCost, 'everything'].flatMap((cost) =>
    ['flashAttention', 'naiveAttention', 'histogram', 'lulesh'].map((name) => ({ label: `${name}.fuse`, source: read(`bench/programs/${name}.fuse`), fileName: `${name}.fuse`, cost })),
  ),
  // With shapes: gathers' growth factors are known, so `recompute` charges fractional costs.
  { label: 'flashAttention.fuse [100×16, br 16, bc 32]', source: read('bench/programs/flashAttention.fuse'), fileName: 'flashAttention.fuse', cost: defaultCost, signature: attentionShape },
  // MG needs its grid size at compile time (its V-cycle recursion); its body has ~900 combinators.
  { label: 'mg.fuse [32³]', source: read('bench/programs/mg.fuse'), fileName: 'mg.fuse', cost: defaultCost, signature: mgShape },
  ...[defaultCost, 'bytes'].map((cost) => ({ label: 'mg-generates.fuse [32³]', source: read('bench/programs/mg-generates.fuse'), fileName: 'mg-generates.fuse', cost, signature: mgShape })),
];

/** if/while nested `depth` deep, a few combinators in every block. */
function nestedProgram(depth: number): string {
  const lines = ['def nested(xs: f64[n], t: f64):', '  a = map(lam x: x + 1.0, xs)'];
  const open = (level: number): void => {
    const pad = '  '.repeat(level);
    if (level === depth) {
      lines.push(`${pad}a = reverse(map(lam x: x * 2.0, a))`);
      return;
    }
    if (level % 2 === 0) {
      lines.push(`${pad}i${level} = 0`, `${pad}while i${level} < 2:`, `${pad}  b${level} = map(lam x: x - 1.0, a)`, `${pad}  a = map(lam x: x * t, b${level})`);
      open(level + 1);
      lines.push(`${pad}  i${level} = i${level} + 1`);
    } else {
      lines.push(`${pad}if t > ${level}.0:`, `${pad}  a = map(lam x: x + 3.0, reverse(a))`);
      open(level + 1);
      lines.push(`${pad}else:`, `${pad}  a = map(lam x: x - 3.0, a)`);
    }
  };
  open(1);
  lines.push('  return map(lam x: x * 0.5, a)');
  return lines.join('\n') + '\n';
}

const adversarialCases: Case[] = [
  { label: 'a program with no combinator', source: 'def empty(xs: f64[n]):\n  return xs\n', fileName: 'empty.fuse', cost: 'everything' },
  ...[defaultCost, 'everything'].map((cost) => ({ label: 'if/while nested 7 deep', source: nestedProgram(7), fileName: 'nested.fuse', cost })),
];

const cases = [...exampleCases, ...caseStudies, ...adversarialCases];
const caseName = (c: Case): string => `${c.label}, cost ${c.cost}`;

// ---------------------------------------------------------------------------------------------
// Planning and exporting each case once (memoised: the HiGHS, CBC and GLPK tests share it).

interface Exported {
  readonly objective: number;
  readonly graphs: BlockGraphs;
  readonly lp: string;
  readonly mps: string;
  /** CBC's and GLPK's solutions of the LP and MPS files, started as soon as the files exist. */
  readonly cbc: Promise<readonly [Solved, Solved]> | null;
  readonly glpk: Promise<readonly [Solved, Solved]> | null;
}

const exports = new Map<Case, Promise<Exported>>();
let fileCount = 0;

function exported(c: Case): Promise<Exported> {
  let pending = exports.get(c);
  if (pending === undefined) {
    pending = (async () => {
      const compiler = new Compiler(c.source, { fileName: c.fileName, solver });
      // MG's body takes HiGHS a few seconds to prove: a limit well above the default 10 s.
      const { graphs, plan } = await compiler.planned(c.signature, { cost: c.cost, timeLimitSeconds: 300 });
      expect(plan.stats.status, 'the planner proves its optimum').toBe('optimal');
      const base = join(dir, `case${fileCount++}`);
      const lp = emitLp(graphs, c.cost);
      const mps = emitMps(graphs, c.cost);
      writeFileSync(`${base}.lp`, lp);
      writeFileSync(`${base}.mps`, mps);
      // The external solvers run beside the next cases' planning (two processes at most).
      const both = (solve: (path: string) => Promise<Solved>): Promise<readonly [Solved, Solved]> => Promise.all([solve(`${base}.lp`), solve(`${base}.mps`)]);
      return {
        objective: plan.stats.objective,
        graphs,
        lp,
        mps,
        cbc: cbcFound ? both(solveWithCbc) : null,
        glpk: glpkFound ? both(solveWithGlpk) : null,
      };
    })();
    exports.set(c, pending);
  }
  return pending;
}

function countBlocks(graphs: BlockGraphs): number {
  let count = 0;
  const pending = [graphs];
  for (let b = pending.pop(); b !== undefined; b = pending.pop()) {
    count++;
    for (const inner of Object.values(b.children)) pending.push(...inner);
  }
  return count;
}

// ---------------------------------------------------------------------------------------------
// The solvers.

interface Solved {
  readonly optimal: boolean;
  readonly objective: number;
  readonly output: string;
}

/** Solver processes running now, and those waiting for one to end (at most two run at once). */
let running = 0;
const waiting: (() => void)[] = [];

async function run(command: string, args: readonly string[]): Promise<string> {
  if (running >= 2) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await spawnOnce(command, args);
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function spawnOnce(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(command, args, { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      resolve(`${stdout}\n${stderr}${error === null ? '' : `\n(exit: ${error.message})`}`);
    });
  });
}

/** CBC on an LP or MPS file (`cbc FILE solve quit`); it reads the format from the extension. */
async function solveWithCbc(path: string): Promise<Solved> {
  const output = await run('cbc', [path, 'solve', 'quit']);
  // A MIP reports "Result - Optimal solution found" and "Objective value:"; a pure LP (the
  // empty program: only the constant column) "Optimal - objective value".
  const mip = /Result - Optimal solution found/.test(output) ? /Objective value:\s+(\S+)/.exec(output) : null;
  const lp = /^Optimal - objective value (\S+)/m.exec(output);
  const value = mip?.[1] ?? (/Result - /.test(output) ? undefined : lp?.[1]);
  return { optimal: value !== undefined, objective: Number(value), output };
}

/** GLPK on an LP (`glpsol --lp`) or free MPS (`glpsol --freemps`) file, read from its `-o` report. */
async function solveWithGlpk(path: string): Promise<Solved> {
  const report = `${path}.glpk.txt`;
  const output = await run('glpsol', [path.endsWith('.lp') ? '--lp' : '--freemps', path, '-o', report]);
  let text = '';
  try {
    text = readFileSync(report, 'utf8');
  } catch {
    return { optimal: false, objective: NaN, output };
  }
  const optimal = /^Status:\s+(INTEGER OPTIMAL|OPTIMAL)\s*$/m.test(text);
  const objective = /^Objective:\s+\S+ = (\S+)/m.exec(text)?.[1];
  return { optimal: optimal && objective !== undefined, objective: Number(objective), output: `${output}\n${text.slice(0, 2000)}` };
}

async function highsOf(format: 'lp' | 'mps', text: string): Promise<{ optimal: boolean; objective: number }> {
  return (await solver.load()).solveText(format, text, { mip_rel_gap: 0 });
}

/** Relative agreement: GLPK prints 10 significant digits. */
function expectSameObjective(solved: Solved | { optimal: boolean; objective: number }, expected: number, what: string): void {
  const detail = 'output' in solved ? `\n${solved.output.slice(-3000)}` : '';
  expect(solved.optimal, `${what}: no optimum${detail}`).toBe(true);
  expect(Math.abs(solved.objective - expected), `${what}: ${solved.objective} vs the plan's ${expected}${detail}`).toBeLessThanOrEqual(1e-7 * Math.max(1, Math.abs(expected)));
}

// ---------------------------------------------------------------------------------------------

describe('every block in one model, read back by HiGHS to the plan objective', () => {
  it.each(cases.map((c) => [caseName(c), c] as const))('%s', async (_, c) => {
    const { objective, graphs, lp, mps } = await exported(c);
    const blocks = countBlocks(graphs);
    expect(lp.match(/^\\ Block b\d+: /gm)).toHaveLength(blocks);
    expect(mps.match(/^\* Block b\d+: /gm)).toHaveLength(blocks);
    expectSameObjective(await highsOf('lp', lp), objective, 'HiGHS, LP');
    expectSameObjective(await highsOf('mps', mps), objective, 'HiGHS, MPS');
  });
});

describe.skipIf(!cbcFound)('CBC solves every exported LP and MPS to the plan objective', () => {
  it.each(cases.map((c) => [caseName(c), c] as const))('%s', async (_, c) => {
    const { objective, cbc } = await exported(c);
    const [lp, mps] = await cbc!;
    expectSameObjective(lp, objective, 'CBC, LP');
    expectSameObjective(mps, objective, 'CBC, MPS');
  });
});

describe.skipIf(!glpkFound)('GLPK solves every exported LP and MPS to the plan objective', () => {
  it.each(cases.map((c) => [caseName(c), c] as const))('%s', async (_, c) => {
    const { objective, glpk } = await exported(c);
    const [lp, mps] = await glpk!;
    expectSameObjective(lp, objective, 'GLPK, LP');
    expectSameObjective(mps, objective, 'GLPK, MPS');
  });
});

describe.runIf(!cbcFound || !glpkFound)('external solvers', () => {
  it('are skipped where missing', () => {
    const missing = [...(cbcFound ? [] : ['`cbc` (apt-get install coinor-cbc)']), ...(glpkFound ? [] : ['`glpsol` (apt-get install glpk-utils)'])];
    console.warn(`test/plan/lpExport.test.ts: ${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not on PATH, so the LP/MPS cross-check with ${missing.length === 1 ? 'it' : 'them'} is skipped`);
    expect(missing.length).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------------------------

/** Every solver there is, on one text written to a file: their objectives. */
async function everySolver(name: string, lp: string, mps: string, expected: number): Promise<void> {
  expectSameObjective(await highsOf('lp', lp), expected, `${name}: HiGHS, LP`);
  expectSameObjective(await highsOf('mps', mps), expected, `${name}: HiGHS, MPS`);
  const base = join(dir, name);
  writeFileSync(`${base}.lp`, lp);
  writeFileSync(`${base}.mps`, mps);
  if (cbcFound) {
    const [a, b] = await Promise.all([solveWithCbc(`${base}.lp`), solveWithCbc(`${base}.mps`)]);
    expectSameObjective(a, expected, `${name}: CBC, LP`);
    expectSameObjective(b, expected, `${name}: CBC, MPS`);
  }
  if (glpkFound) {
    const [a, b] = await Promise.all([solveWithGlpk(`${base}.lp`), solveWithGlpk(`${base}.mps`)]);
    expectSameObjective(a, expected, `${name}: GLPK, LP`);
    expectSameObjective(b, expected, `${name}: GLPK, MPS`);
  }
}

const flash = caseStudies[0]!;

describe('the text of the export', () => {
  it('names every column of every block in a comment that says what it is', async () => {
    const { graphs, lp, mps } = await exported(flash);
    const blocks = programModelBlocks(graphs, parseCost(flash.cost));
    expect(blocks.map((b) => b.prefix)).toEqual(['b0_', 'b1_', 'b2_']);
    expect(blocks[1]!.title).toMatch(/^Block b1: the cond block of "o_4" \(while, node \d+\) in block b0/);
    expect(blocks[2]!.title).toMatch(/^Block b2: the body block of "o_4" \(while, node \d+\) in block b0/);
    for (const block of blocks) {
      for (const column of block.model.columns) {
        expect(lp).toMatch(new RegExp(`^\\\\   ${block.prefix}${column.name}: \\S`, 'm'));
        expect(mps).toMatch(new RegExp(`^\\*   ${block.prefix}${column.name}: \\S`, 'm'));
      }
    }
    // An edge by its arrays, a node by name and kind, the gathers' labels.
    expect(lp).toMatch(/^\\ {3}b0_x_0_1: 1 = the edge "generate" \(generate, node 0\) → "qb" \(gather, node 1\) is not fused/m);
    expect(lp).toMatch(/^\\ {3}b0_m_71: 1 = "result" \(gather, node 71\) is manifest/m);
    expect(lp).toMatch(/^\\ {3}order label 2 = the gather "qb" \(gather, node 1\)$/m);
  });

  it('writes the constant as a column fixed at 1, never as an RHS of the objective row', async () => {
    const { lp, mps } = await exported(flash);
    expect(lp).toMatch(/^ obj: \d+ objconst /m);
    expect(lp).toMatch(/^ objconst = 1$/m);
    expect(mps).toMatch(/^ objconst obj \d+$/m);
    expect(mps).toMatch(/^ FX BND objconst 1$/m);
    expect(mps).not.toMatch(/^ RHS obj /m);
  });

  it('a negative, fractional constant, fractional costs and a column twice in a row read the same in every solver', async () => {
    // x + x ≥ 3 (x integer, cost 1: x = 2; GLPK rejects a column named twice in a row, so the
    // writer merges the terms), 2 ≤ y ≤ 10 (integer, cost 1/3), constant −3.5: −3.5 + 2 + 2/3.
    const model: IlpModel = {
      columns: [
        { name: 'x', lower: 0, upper: 5, integer: true, cost: 1 },
        { name: 'y', lower: 0, upper: 3, integer: true, cost: 1 / 3 },
      ],
      rows: [
        { name: 'rx', lower: 3, upper: Infinity, cols: [0, 0], coefs: [1, 1] },
        { name: 'ry', lower: 2, upper: 10, cols: [1], coefs: [1] },
      ],
      offset: -3.5,
      layout: { pi: [], order: [], manifest: [], fused: [], piMax: -1, streams: [], recompute: [], elide: [] },
    };
    const lp = toLpText(model);
    expect(lp).toMatch(/^ rx: 2 x >= 3$/m);
    await everySolver('constant', lp, toMpsText(model), -3.5 + 2 + 2 / 3);
  });

  it('repeated names in one file get a suffix, and each block counts', async () => {
    const { graphs } = await exported(flash);
    const model = buildModel(graphs.graph, parseCost('everything'));
    const single = (await highsOf('lp', toLpText(model))).objective;
    const twice = [0, 1].map(() => ({ prefix: '', title: '', model, legend: [], notes: [] }));
    const header = { name: 'twice', comments: [] };
    const lp = blocksToLpText(twice, header);
    expect(lp).toMatch(/\bpi_0__2\b/);
    const names = lp.split('\n').filter((l) => /^ \S+: /.test(l)).map((l) => l.split(':')[0]);
    expect(new Set(names).size).toBe(names.length);
    await everySolver('twice', lp, blocksToMpsText(twice, header), 2 * single);
  });
});

// ---------------------------------------------------------------------------------------------

/** Every array and node name of every block through `rename` (graphs are plain data). */
function renamed(bg: BlockGraphs, rename: (name: string) => string): BlockGraphs {
  const g = bg.graph;
  const arrays = (names: readonly string[]): string[] => names.map(rename);
  const graph: DependenceGraph = {
    ...g,
    nodes: g.nodes.map((n) => ({ ...n, name: rename(n.name), outs: arrays(n.outs), dest: arrays(n.dest) })),
    groups: g.groups.map((gr) => ({ ...gr, name: rename(gr.name), names: arrays(gr.names) })),
    reads: g.reads.map((r) => ({ ...r, arrays: arrays(r.arrays) })),
    edges: g.edges.map((e) => ({ ...e, reads: e.reads.map((r) => ({ ...r, arrays: arrays(r.arrays) })) })),
    ...(g.elidableCopies === undefined ? {} : { elidableCopies: g.elidableCopies.map((c) => ({ ...c, sources: arrays(c.sources) })) }),
  };
  const children: Record<number, readonly BlockGraphs[]> = {};
  for (const [id, inner] of Object.entries(bg.children)) children[Number(id)] = inner.map((b) => renamed(b, rename));
  return { graph, children };
}

const oddNames = ['say "hi"', 'a<b>&c', 'ℓ→∑ 数组', '__proto__', 'line\nbreak', 'cr\rreturn', '\u202Eevil', 'back\\slash', 'tab\there', 'sep\u2028ara', '* star', '\\ comment', 'zero\u200Bwidth', 'nul\u0000', '', 'x'.repeat(100_000), '数'.repeat(5_000)];

describe('odd array names', () => {
  it('reach only comments, break no line, and every reader still gets the same model', async () => {
    const { graphs, lp, mps, objective } = await exported(flash);
    let k = 0;
    const odd = renamed(graphs, () => `${oddNames[k % oddNames.length]}${k++}`);
    const oddLp = emitLp(odd, flash.cost);
    const oddMps = emitMps(odd, flash.cost);
    // No line break, control or format character survives anywhere (the newline ends lines).
    for (const text of [oddLp, oddMps]) expect(text.replace(/\n/g, '')).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
    expect(oddLp).toContain('__proto__');
    expect(oddLp).toContain('ℓ→∑ 数组');
    expect(oddLp).toContain('line\\nbreak');
    expect(oddLp).toContain('\\u{202e}evil');
    // Long names are cut: CBC fails on an MPS line of 900 bytes.
    expect(oddLp).toContain(`"${'x'.repeat(59)}…"`);
    const bytes = new TextEncoder();
    for (const text of [oddLp, oddMps]) expect(Math.max(...text.split('\n').map((l) => bytes.encode(l).length))).toBeLessThanOrEqual(500);
    // Same lines, and the same model lines word for word: names appear in comments only.
    const model = (text: string, comment: string): string[] => text.split('\n').filter((l) => !l.startsWith(comment));
    expect(oddLp.split('\n')).toHaveLength(lp.split('\n').length);
    expect(model(oddLp, '\\')).toEqual(model(lp, '\\'));
    expect(oddMps.split('\n')).toHaveLength(mps.split('\n').length);
    expect(model(oddMps, '*')).toEqual(model(mps, '*'));
    await everySolver('odd-names', oddLp, oddMps, objective);
  });
});

describe('deep nesting', () => {
  let chain: BlockGraphs;
  const depth = 300;
  beforeAll(async () => {
    // flashAttention's root block (one while) nested in its own while body `depth` times, the
    // loop body of the program innermost: 2·depth + 1 blocks.
    const { graphs } = await exported(flash);
    const whileId = Number(Object.keys(graphs.children)[0]);
    const [cond, body] = graphs.children[whileId]!;
    chain = body!;
    for (let i = 0; i < depth; i++) chain = { graph: graphs.graph, children: { [whileId]: [cond!, chain] } };
  });

  it('every block, numbered in pre-order, without recursion; the optimum is the sum of the blocks\'', async () => {
    const cost = parseCost(flash.cost);
    const blocks = programModelBlocks(chain, cost);
    expect(blocks).toHaveLength(2 * depth + 1);
    expect(blocks[2 * depth - 1]!.title).toMatch(new RegExp(`^Block b${2 * depth - 1}: the cond block of .* in block b${2 * depth - 2} `));
    expect(blocks[2 * depth]!.title).toMatch(new RegExp(`^Block b${2 * depth}: the body block of .* in block b${2 * depth - 2} `));
    const handle = await solver.load();
    const rootOptimum = handle.solveText('lp', toLpText(blocks[0]!.model), { mip_rel_gap: 0 }).objective;
    const bodyOptimum = handle.solveText('lp', toLpText(blocks[2 * depth]!.model), { mip_rel_gap: 0 }).objective;
    expectSameObjective(await highsOf('lp', emitLp(chain, cost)), depth * rootOptimum + bodyOptimum, 'HiGHS, LP');
  });
});

describe('the CLI', () => {
  it('`plan --emit-lp/--emit-mps` write the one model of every block, whose optimum is the JSON objective', async () => {
    const lpPath = join(dir, 'cli.lp');
    const mpsPath = join(dir, 'cli.mps');
    let out = '';
    const argv = ['plan', join(import.meta.dirname, '..', '..', 'bench', 'programs', 'flashAttention.fuse'), '--format', 'json', '--emit-lp', lpPath, '--emit-mps', mpsPath];
    const code = await main(argv, { out: (t) => (out += t), err: () => undefined });
    expect(code).toBe(0);
    const { objective } = JSON.parse(out) as { objective: number };
    const { lp, mps, objective: planned } = await exported(flash);
    expect(objective).toBe(planned);
    expect(readFileSync(lpPath, 'utf8')).toBe(lp);
    expect(readFileSync(mpsPath, 'utf8')).toBe(mps);
    await everySolver('cli', lp, mps, objective);
  });
  it('`plan --help` says the export holds every block', async () => {
    let out = '';
    await main(['plan', '--help'], { out: (t) => (out += t), err: (t) => (out += t) });
    expect(out).toMatch(/--emit-lp <file>\s+also write the ILP of every block/);
  });
});
