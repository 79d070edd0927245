// The node rules (src/ir/rules.ts) are the one place a combinator's fusion semantics live: the
// graph builder (from IR) and the JSON graph reader (from another compiler's graph) take the
// order of every read and the reasons an edge cannot fuse from them, so the two entries agree
// by construction; a role means one thing whichever kind reads in it.

import { describe, expect, it } from 'vitest';
import { SourceFile } from '../../src/diagnostics/index.js';
import { buildGraph } from '../../src/graph/build.js';
import { parseGraphJson } from '../../src/graph/fromJson.js';
import type { GraphJson } from '../../src/graph/jsonFormat.js';
import type { DependenceGraph, InfusibleReason } from '../../src/graph/types.js';
import {
  combinatorRules,
  fusionRule,
  graphReadRoles,
  isControlKind,
  nodeKinds,
  readRuleOf,
  roleRule,
  rolesOf,
  type NodeKind,
} from '../../src/ir/rules.js';
import { combinatorKinds, type ScalarType, type VarName } from '../../src/ir/types.js';
import { lowerModule } from '../../src/lower/index.js';
import { parseModule } from '../../src/syntax/index.js';

/** Every combinator, and a `while`, in one program. */
const everyKind = [
  'def main(xs: f64[n], is: i32[k], m: i32):',
  '  d = map(lam x: x * 2.0, xs)',
  '  g = generate(size(xs), lam i: f64(i) * d[0])',
  '  a = map(lam x, y: x + y, xs, g)',
  '  b = gather(is, a)',
  '  f = force(b)',
  '  l = scanl(+, f)',
  '  r = scanr(+, l)',
  '  s = fold(+, r)',
  '  p = map(lam x: (i32(x) % size(xs), x), r)',
  '  u = scatter(+, d, p)',
  '  ys = xs',
  '  it = 0',
  '  while it < m:',
  '    ys = map(lam y: y + 1.0, ys)',
  '    it = it + 1',
  '  return s, u, map(lam x, y: x + y, ys, u)',
  '',
].join('\n');

function graphOf(source: string): DependenceGraph {
  const file = new SourceFile('rules.fuse', source);
  const program = lowerModule(parseModule(file), file);
  const outerArrays = new Map<VarName, ScalarType>(
    program.params.flatMap((p) => p.components.flatMap((c) => (c.kind === 'array' ? [[c.name, c.elem] as const] : []))),
  );
  return buildGraph(program.body, { outerArrays, file });
}

/** The reasons the rules give an edge: its reads' roles, then its producer's and consumer's kinds. */
function ruleReasons(g: DependenceGraph, from: number, to: number, roles: readonly string[]): InfusibleReason[] {
  const kindOf = (id: number): NodeKind => g.nodes.find((n) => n.id === id)!.kind;
  const reasons = new Set<InfusibleReason>();
  for (const role of roles) {
    const why = readRuleOf(kindOf(to), role as never)?.infusible ?? null;
    if (why !== null) reasons.add(why);
  }
  for (const why of [fusionRule(kindOf(from)).infusibleOutput, fusionRule(kindOf(to)).infusibleInput]) if (why !== null) reasons.add(why);
  return [...reasons];
}

describe('node rules', () => {
  it('cover every combinator of the IR and both control-flow statements', () => {
    expect(Object.keys(combinatorRules)).toEqual(combinatorKinds);
    expect(nodeKinds).toEqual([...combinatorKinds, 'if', 'while']);
    expect(nodeKinds.filter(isControlKind)).toEqual(['if', 'while']);
  });

  it('give a role one meaning, whichever kind reads in it', () => {
    for (const kind of nodeKinds) for (const role of rolesOf(kind)) expect(readRuleOf(kind, role), `${kind} ${role}`).toEqual(roleRule(role));
    expect(new Set(graphReadRoles).size).toBe(graphReadRoles.length);
    expect([...graphReadRoles].sort()).toEqual([...new Set(nodeKinds.flatMap(rolesOf))].sort());
  });

  it('list the read roles in the graph format\'s order (the E616 note prints it, unchanged since the format began)', () => {
    expect(graphReadRoles.join(', ')).toBe(
      'map-input, gather-indices, fold-input, scatter-index, scatter-values, gather-source, scanl-input, scanr-input, scatter-dest, force-input, while-init, indexed, control',
    );
  });

  it('fix the output order of scans and keep scatter and force out of gather orders', () => {
    expect(nodeKinds.map((k) => [k, fusionRule(k).outputOrder])).toEqual([
      ['generate', 'any'], ['map', 'any'], ['gather', 'any'], ['scatter', 'linear'], ['fold', 'any'],
      ['scanl', 'zero'], ['scanr', 'one'], ['force', 'linear'], ['if', 'none'], ['while', 'none'],
    ]);
    // Only the gather reads in its own label's order, so only it carries one.
    for (const k of nodeKinds) expect(fusionRule(k).labelled).toBe(Object.values(fusionRule(k).reads).some((r) => r?.order === 'label'));
  });

  it('update in place only through an unordered, infusible role of the kind (a scatter its destination)', () => {
    expect(nodeKinds.filter((k) => fusionRule(k).updatesInPlace !== null)).toEqual(['scatter']);
    for (const k of nodeKinds) {
      const role = fusionRule(k).updatesInPlace?.role;
      if (role === undefined) continue;
      expect(rolesOf(k)).toContain(role);
      expect(readRuleOf(k, role)).toEqual({ order: 'unordered', infusible: role });
      // Its output is the updated array, which exists only once every update is done.
      expect(fusionRule(k).infusibleOutput).not.toBeNull();
    }
  });

  it("are where the graph builder's read orders, labels and edge reasons come from", () => {
    const g = graphOf(everyKind);
    expect(new Set(g.nodes.map((n) => n.kind))).toEqual(new Set(nodeKinds.filter((k) => k !== 'if')));
    for (const r of g.reads) {
      const consumer = g.nodes.find((n) => n.id === r.consumer)!;
      expect(r.order, `${consumer.kind} reads in ${r.role}`).toBe(readRuleOf(consumer.kind, r.role)!.order);
    }
    for (const n of g.nodes) expect(n.label !== null).toBe(fusionRule(n.kind).labelled);
    for (const e of g.edges) {
      const expected = ruleReasons(g, e.from, e.to, e.reads.map((r) => r.role));
      // An ordering without a read (a run-time size) adds `shape`; the rules give the rest.
      expect(e.reasons.filter((r) => r !== 'shape')).toEqual(expected);
    }
    // Every kind of infusible reason the rules name for these kinds shows up.
    expect(new Set(g.edges.flatMap((e) => e.reasons))).toEqual(
      new Set<InfusibleReason>(['indexed', 'force-input', 'force-output', 'scatter-dest', 'scatter-output', 'control-flow']),
    );
  });

  it("are where the JSON graph reader's read orders and implied reasons come from, the same as the builder's", () => {
    const readers: { name: string; kind: NodeKind }[] = nodeKinds.filter((k) => !isControlKind(k)).map((kind) => ({ name: kind, kind }));
    // Each combinator reads `xs` in every role its rule names, and indexes the node `src`.
    const edges = readers.flatMap(({ name, kind }) => rolesOf(kind).map((role) => ({ from: role === 'indexed' ? 'src' : 'xs', to: name, role })));
    const nodes = [{ name: 'src', kind: 'generate' as const }, ...readers];
    const json: GraphJson = { format: 'arrayfuse-graph', version: 1, inputs: [{ name: 'xs' }], nodes, edges, results: nodes.map((n) => n.name) };
    const g = parseGraphJson(json).graph;
    expect(g.reads.length).toBe(edges.length);
    for (const r of g.reads) {
      const consumer = g.nodes.find((n) => n.id === r.consumer)!;
      expect(r.order, `${consumer.kind} reads in ${r.role}`).toBe(readRuleOf(consumer.kind, r.role)!.order);
    }
    for (const e of g.edges) expect(e.reasons).toEqual(ruleReasons(g, e.from, e.to, e.reads.map((r) => r.role)));
    // The builder's graph of the same reads has the same orders, role by role.
    const built = graphOf(everyKind);
    const orderOf = (graph: DependenceGraph): Map<string, string> =>
      new Map(graph.reads.map((r) => [`${graph.nodes.find((n) => n.id === r.consumer)!.kind}/${r.role}`, r.order]));
    const fromJson = orderOf(g);
    for (const [key, order] of orderOf(built)) if (fromJson.has(key)) expect(fromJson.get(key), key).toBe(order);
  });
});
