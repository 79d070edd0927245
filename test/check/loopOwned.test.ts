// Loop-owned carried arrays (issue 11): the IR verifier (src/ir/verify.ts, by the rule of
// src/ir/updates.ts), the plan checker (src/check/reads.ts, which restates the rule) and the
// memory planner accept a scatter that updates a `while`-carried array in place exactly when
// the loop owns it. Each unsafe program here is a safe lowered one with the copy that made it
// safe taken out (before the loop: the init is read after it; in the body: the parameter is
// read after the scatter), its plan with the copy's node dropped: both must be rejected.
import { describe, expect, it } from 'vitest';
import { compile } from '../../src/index.js';
import { plan } from '../../src/driver/index.js';
import { validatePlan } from '../../src/check/validate.js';
import { findIrProblem } from '../../src/ir/verify.js';
import { planMemory } from '../../src/memory/index.js';
import { validateMemoryPlan } from '../../src/check/memory.js';
import type { MemoryPlan } from '../../src/memory/types.js';
import { stmtFreeVars } from '../../src/ir/walk.js';
import type { Block, MapNode, NodeId, Program, Stmt, VarName, WhileNode } from '../../src/ir/types.js';
import type { BlockPlan, Plan } from '../../src/plan/types.js';

const lines = (...ls: string[]): string => `${ls.join('\n')}\n`;
const xs = Int32Array.from([3, 1, 4, 1, 5]);

function isCopy(s: Stmt): s is MapNode {
  return s.kind === 'map' && s.outs.every((o) => o.name.startsWith('copy')) && s.fn.lets.length === 0;
}

/** `b` without the copy `c`, its readers reading the copied array instead. */
function withoutCopy(b: Block, c: MapNode): Block {
  const rename = (n: VarName): VarName => (n === c.outs[0]!.name ? c.inputs[0]! : n);
  const stmts = b.stmts.filter((s) => s !== c).map((s): Stmt => {
    if (s.kind === 'while') return { ...s, init: s.init.map(rename) };
    if (s.kind === 'scatter') return { ...s, dest: s.dest.map(rename) };
    return s;
  });
  return { ...b, stmts };
}

function dropNode(bp: BlockPlan, id: NodeId): BlockPlan {
  const clusters = bp.clusters
    .map((c) => ({ nodes: c.nodes.filter((n) => n !== id), manifest: c.manifest }))
    .filter((c) => c.nodes.length > 0);
  return { ...bp, clusters, orders: Object.fromEntries(Object.entries(bp.orders).filter(([k]) => Number(k) !== id)) };
}

async function safe(source: string): Promise<{ program: Program; plan: Plan; loop: WhileNode }> {
  const program = compile(source).lower({ xs, b: 4, it: 3 });
  expect(findIrProblem(program)).toBeNull();
  const p = await plan(program, { strategy: 'none' });
  expect(validatePlan(program, p)).toEqual([]);
  const loop = program.body.stmts.find((s): s is WhileNode => s.kind === 'while')!;
  return { program, plan: p, loop };
}

describe('a scatter into a loop-carried array', () => {
  it('owned by the loop: accepted by the verifier and the checker, one buffer in the memory plan', async () => {
    const { program, plan: p, loop } = await safe(lines(
      'def main(xs: i32[n], b: i32, it: i32):',
      '  h = generate(b, lam i: i)',
      '  i = 0',
      '  while i < it:',
      '    h = scatter(+, h, zip(map(lam x: x % b, xs), map(lam x: 1, xs)))',
      '    i = i + 1',
      '  return h',
    ));
    expect(program.body.stmts.some(isCopy)).toBe(false);
    expect(loop.body.stmts.some(isCopy)).toBe(false);
    const m = planMemory(program, p, { xs: [5], b: 4, it: 3 });
    const scatter = loop.body.stmts.find((s) => s.kind === 'scatter')!;
    const out = scatter.kind === 'scatter' ? scatter.outs[0]!.name : '';
    expect(m.buffers[out]).toEqual({ kind: 'alias', of: loop.body.params[0]!.name });
    expect(m.buffers[loop.init[0]!]?.kind).toBe('slot');
    expect(Object.values(m.buffers).some((r) => r.kind === 'pair')).toBe(false);
    expect(validateMemoryPlan(program, p, m, { xs: [5], b: 4, it: 3 })).toEqual([]);
  });

  it('its init read after the loop: without the copy before the loop, both reject it', async () => {
    const { program, plan: p } = await safe(lines(
      'def main(xs: i32[n], b: i32, it: i32):',
      '  h0 = generate(b, lam i: i)',
      '  h = h0',
      '  i = 0',
      '  while i < it:',
      '    h = scatter(+, h, zip(map(lam x: x % b, xs), map(lam x: 1, xs)))',
      '    i = i + 1',
      '  return (h, map(lam x: x * 2, h0))',
    ));
    const copy = program.body.stmts.find(isCopy)!;
    expect(copy).toBeDefined();
    const bad: Program = { ...program, body: withoutCopy(program.body, copy) };
    expect(findIrProblem(bad)).toMatch(/not an array a combinator of this block produces/);
    const badPlan: Plan = { ...p, root: dropNode(p.root, copy.id) };
    expect(validatePlan(bad, badPlan).map((v) => v.rule)).toContain('scatter-uniqueness');
    // The memory planner does not alias the parameter: the scatter's output is fresh (codegen copies it).
    const loop = bad.body.stmts.find((s): s is WhileNode => s.kind === 'while')!;
    const scatter = loop.body.stmts.find((s) => s.kind === 'scatter')!;
    const out = scatter.kind === 'scatter' ? scatter.outs[0]!.name : '';
    const m = planMemory(bad, badPlan);
    expect(m.buffers[out]?.kind).toBe('fresh');
    expect(validateMemoryPlan(bad, badPlan, m)).toEqual([]);
    // A memory plan that lets the scatter write the carried buffer anyway is rejected.
    const aliased: MemoryPlan = { ...m, buffers: { ...m.buffers, [out]: { kind: 'alias', of: loop.body.params[0]!.name } } };
    expect(validateMemoryPlan(bad, badPlan, aliased).map((v) => v.rule)).toContain('alias');
  });

  it('its parameter read after the scatter: without the copy in the body, both reject it', async () => {
    const { program, plan: p, loop } = await safe(lines(
      'def main(xs: i32[n], b: i32, it: i32):',
      '  h = generate(b, lam i: i)',
      '  s = 0',
      '  i = 0',
      '  while i < it:',
      '    nh = scatter(+, h, zip(map(lam x: x % b, xs), map(lam x: 1, xs)))',
      '    s = s + fold(+, 0, map(lam x: x * 3, h))',
      '    h = nh',
      '    i = i + 1',
      '  return (h, s)',
    ));
    const copy = loop.body.stmts.find(isCopy)!;
    expect(copy).toBeDefined();
    const badLoop: WhileNode = { ...loop, body: withoutCopy(loop.body, copy) };
    const bad: Program = { ...program, body: { ...program.body, stmts: program.body.stmts.map((s) => (s === loop ? badLoop : s)) } };
    expect(findIrProblem(bad)).toMatch(/used after it|not an array a combinator/);
    const children = p.root.children[loop.id]!;
    const body = dropNode(children[1]!, copy.id);
    const planWith = (b: BlockPlan): Plan => ({ ...p, root: { ...p.root, children: { ...p.root.children, [loop.id]: [children[0]!, b] } } });
    // The plan may run the readers of the parameter before the scatter: then the update is unobserved.
    const scatter = badLoop.body.stmts.find((s) => s.kind === 'scatter')!;
    const at = body.clusters.findIndex((c) => c.nodes.includes(scatter.kind === 'scatter' ? scatter.id : -1));
    const param = scatter.kind === 'scatter' ? scatter.dest[0]! : '';
    const readers = body.clusters.slice(0, at).filter((c) => c.nodes.some((id) => badLoop.body.stmts.some((s) => s.kind !== 'scalar' && s.id === id && stmtFreeVars(s).has(param))));
    expect(readers.length).toBeGreaterThan(0);
    expect(validatePlan(bad, planWith(body))).toEqual([]);
    // Readers after the scatter observe the update: rejected.
    const later: BlockPlan = { ...body, clusters: [...body.clusters.filter((c) => !readers.includes(c)), ...readers] };
    expect(validatePlan(bad, planWith(later)).map((v) => v.rule)).toContain('scatter-uniqueness');
    // The memory validator: aliasing the parameter is fine while every reader runs first, not once one runs after.
    const out = scatter.kind === 'scatter' ? scatter.outs[0]!.name : '';
    for (const [bp, ok] of [[body, true], [later, false]] as const) {
      const m = planMemory(bad, planWith(bp));
      const aliased: MemoryPlan = { ...m, buffers: { ...m.buffers, [out]: { kind: 'alias', of: param } } };
      const rules = validateMemoryPlan(bad, planWith(bp), aliased).map((v) => v.rule);
      if (ok) expect(rules).not.toContain('alias');
      else expect(rules).toContain('alias');
    }
  });
});
