// BlockGraphs → the JSON graph format (jsonFormat.ts): the graphs of a Program, weights and
// sizes included, so that program → JSON → planGraph gives the plan that program → plan gives.

import type { ArrayGroup, DependenceGraph } from './types.js';
import type { BlockGraphs } from './program.js';
import { graphJsonFormat, graphJsonVersion, type ArrayFacts, type BlockJson, type EdgeJson, type GraphJson, type InputJson, type NodeJson } from './jsonFormat.js';

function arrayFacts(group: ArrayGroup): ArrayFacts {
  const { size, weight } = group;
  return {
    elems: group.elems,
    ...(size === null ? {} : { size }),
    ...(weight === 1 ? {} : { weight }),
  };
}

/** A source group's components: its names, and any other a read touches (the JSON must name them all). */
function componentsOf(graph: DependenceGraph, g: ArrayGroup): string[] {
  return [...new Set([...g.names, ...graph.reads.filter((r) => r.group === g.index).flatMap((r) => r.arrays)])];
}

function blockToJson(bg: BlockGraphs): BlockJson {
  const { graph } = bg;
  const nameOf = new Map(graph.nodes.map((n) => [n.id, n.name]));
  const inputs: InputJson[] = graph.groups
    .filter((g) => g.producer === null && g.definedBy === null)
    .map((g) => {
      const components = componentsOf(graph, g);
      const { elems, ...facts } = arrayFacts(g);
      return {
        name: g.name,
        ...(components.length === 1 && components[0] === g.name ? {} : { components }),
        // Element types only when known for every component (else they default to f64).
        ...(elems !== undefined && elems.length === components.length ? { elems } : {}),
        ...facts,
      };
    });
  const nodes: NodeJson[] = graph.nodes.map((n) => {
    const group = n.group === null ? null : graph.groups[n.group]!;
    const control = n.kind === 'if' || n.kind === 'while';
    const facts = group === null ? { elems: n.elems } : arrayFacts(group);
    const children = bg.children[n.id];
    return {
      name: n.name,
      kind: n.kind,
      id: n.id,
      ...(control || n.outs.length !== 1 || n.outs[0] !== n.name ? { outs: n.outs } : {}),
      ...facts,
      ...(children === undefined ? {} : { blocks: children.map(blockToJson) }),
    };
  });
  const edges: EdgeJson[] = graph.reads.map((r) => {
    const group = graph.groups[r.group]!;
    const producer = group.producer ?? group.definedBy;
    const edge = producer === null ? undefined : graph.edges.find((e) => e.from === producer && e.to === r.consumer);
    const all = producer === null ? componentsOf(graph, group) : graph.nodes.find((n) => n.id === producer)!.outs;
    const weight = edge !== undefined && edge.fusible ? edge.weight : 1;
    return {
      from: producer === null ? group.name : nameOf.get(producer)!,
      to: nameOf.get(r.consumer)!,
      role: r.role,
      ...(r.arrays.length === all.length && r.arrays.every((a, i) => all[i] === a) ? {} : { arrays: r.arrays }),
      ...(edge === undefined ? {} : { fusible: edge.fusible }),
      ...(edge === undefined || edge.fusible ? {} : { reason: edge.reasons.length === 1 ? edge.reasons[0]! : edge.reasons }),
      ...(weight === 1 ? {} : { weight }),
    };
  });
  // Orderings without a read (a scalar of a control-flow node, a size known only after a node).
  for (const e of graph.edges) {
    if (e.reads.length > 0) continue;
    edges.push({ from: nameOf.get(e.from)!, to: nameOf.get(e.to)!, role: 'order', fusible: false, reason: e.reasons.length === 1 ? e.reasons[0]! : e.reasons });
  }
  const results = graph.resultGroups.map((g) => graph.groups[g]!.name);
  const elidable = (graph.elidableCopies ?? []).map((c) => nameOf.get(c.copy)!);
  return { inputs, nodes, edges, results, ...(elidable.length === 0 ? {} : { elidable }) };
}

/** The graphs of a program (or of a JSON graph) in the JSON graph format, version 1. */
export function graphToJson(graphs: BlockGraphs, name?: string): GraphJson {
  return { format: graphJsonFormat, version: graphJsonVersion, ...(name === undefined ? {} : { name }), ...blockToJson(graphs) };
}
