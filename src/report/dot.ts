// Graphviz DOT of a dependence graph, optionally with a plan's clusters as subgraphs.
// Fusible edges are solid; infusible edges are dashed double lines labelled with their reasons;
// source arrays are plain-text nodes.

import type { NodeId } from '../ir/types.js';
import type { DependenceGraph } from '../graph/types.js';

/** The clusters of one block's plan, as far as drawing needs them. */
export interface DotClusters {
  readonly clusters: readonly { readonly nodes: readonly NodeId[]; readonly manifest: readonly string[] }[];
}

function quote(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export function toDot(graph: DependenceGraph, plan?: DotClusters, title = 'block'): string {
  const lines = [`digraph ${quote(title)} {`, '  rankdir=TB;', '  node [shape=box, fontname="monospace"];'];
  const manifest = new Set(plan?.clusters.flatMap((c) => c.manifest) ?? []);
  const nodeLine = (id: NodeId, indent: string): string => {
    const n = graph.nodes.find((x) => x.id === id)!;
    const style = n.outs.some((o) => manifest.has(o)) ? ', style=bold' : '';
    return `${indent}n${n.id} [label=${quote(`${n.name}\n${n.kind} #${n.id}`)}${style}];`;
  };
  if (plan === undefined) for (const n of graph.nodes) lines.push(nodeLine(n.id, '  '));
  else {
    plan.clusters.forEach((c, i) => {
      lines.push(`  subgraph cluster_${i} {`, `    label=${quote(`cluster ${i + 1}`)};`);
      for (const id of c.nodes) lines.push(nodeLine(id, '    '));
      lines.push('  }');
    });
  }
  const sourceGroups = new Set(graph.reads.map((r) => r.group).filter((g) => graph.groups[g]!.producer === null && graph.groups[g]!.definedBy === null));
  for (const g of sourceGroups) lines.push(`  s${g} [label=${quote(graph.groups[g]!.name)}, shape=plaintext];`);
  for (const r of graph.reads) {
    if (sourceGroups.has(r.group)) lines.push(`  s${r.group} -> n${r.consumer} [style=dashed, label=${quote(r.role)}];`);
  }
  for (const e of graph.edges) {
    lines.push(
      e.fusible
        ? `  n${e.from} -> n${e.to};`
        : `  n${e.from} -> n${e.to} [style=dashed, color="black:invis:black", label=${quote(e.reasons.join(', '))}];`,
    );
  }
  lines.push('}', '');
  return lines.join('\n');
}
