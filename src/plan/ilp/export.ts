// A program's fusion ILP as one LP or MPS file: every block (the root and the bodies of each
// `if` and `while`, nested or not), each the model the planner solves for it (buildModel with
// the same cost and the default formulation), its names prefixed `b<k>_`.
//
// Which objective: the planner solves each block's ILP on its own and reports the sum of the
// blocks' objectives (Plan.stats.objective, `objective` in `plan --format json`). The blocks
// share no variable, so the optimum of this one model is the sum of the blocks' optima: when
// every block is solved to optimality (status `optimal`), exactly the reported objective.
//
// Blocks are numbered in pre-order (b0 the root; a control-flow node's blocks in the order
// `[then, else]` / `[cond, body]`, each followed by the blocks inside it), without recursion:
// blocks may nest deeply.

import type { BlockGraphs } from '../../graph/program.js';
import type { GraphNode } from '../../graph/types.js';
import type { CostSpec } from '../cost.js';
import { columnLegend, labelLegend, nodeText, rowLegend } from './legend.js';
import { blocksToLpText, blocksToMpsText, type FileHeader, type ModelBlock } from './lpfile.js';
import { buildModel } from './model.js';

/** What a control-flow node's blocks are, in BlockGraphs.children order. */
function blockRoles(node: GraphNode): readonly string[] {
  return node.kind === 'if' ? ['then', 'else'] : ['cond', 'body'];
}

/** Every block of the program with its name prefix, title and model, in pre-order. */
export function programModelBlocks(graphs: BlockGraphs, cost: CostSpec): ModelBlock[] {
  const out: ModelBlock[] = [];
  const pending: { readonly bg: BlockGraphs; readonly title: string }[] = [{ bg: graphs, title: 'the root block' }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { bg } = item;
    const k = out.length;
    const model = buildModel(bg.graph, cost);
    out.push({
      prefix: `b${k}_`,
      title: `Block b${k}: ${item.title} (${bg.graph.nodes.length} nodes, ${bg.graph.edges.length} edges)`,
      model,
      legend: columnLegend(bg.graph, model),
      notes: labelLegend(bg.graph),
    });
    // Children pushed last-first, so that they come off the stack in order.
    const children = bg.graph.nodes.flatMap((node) =>
      (bg.children[node.id] ?? []).map((child, i) => ({ bg: child, title: `the ${blockRoles(node)[i] ?? `#${i}`} block of ${nodeText(node)} in block b${k}` })),
    );
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]!);
  }
  return out;
}

function programHeader(blockCount: number, cost: CostSpec): FileHeader {
  return {
    name: 'arrayfuse',
    comments: [
      `arrayfuse: the fusion ILP (paper Figure 5) of every block of the program, cost \`${cost.text}\``,
      `${blockCount === 1 ? 'One block' : `${blockCount} blocks`}, each its own ILP; they share no variable, so this model's optimum is`,
      "the sum of the blocks' optima: the objective `arrayfuse plan` reports when every block is optimal.",
      'Names: b<k>_<name> is column or row <name> of block b<k>; numbers in names are node ids.',
      'Rows:',
      ...rowLegend.map((line) => `  ${line}`),
      'Columns, by block:',
    ],
  };
}

/** The program's every block as one CPLEX LP model (`plan --emit-lp`). */
export function programLpText(graphs: BlockGraphs, cost: CostSpec): string {
  const blocks = programModelBlocks(graphs, cost);
  return blocksToLpText(blocks, programHeader(blocks.length, cost));
}

/** The program's every block as one free MPS model (`plan --emit-mps`). */
export function programMpsText(graphs: BlockGraphs, cost: CostSpec): string {
  const blocks = programModelBlocks(graphs, cost);
  return blocksToMpsText(blocks, programHeader(blocks.length, cost));
}
