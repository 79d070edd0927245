// The graph stage's product: the dependence graphs of every block of a program, nested as the
// blocks nest (paper §4.1 "Control flow": each block of an `if` or `while` is planned on its
// own). Two entries meet here and give the same value: `programGraphs` builds it from the core
// IR (build.ts), and `parseGraphJson` (fromJson.ts) reads it from another compiler's JSON.
// Everything after — planning, checking, reports, the JSON writer — takes a BlockGraphs.

import type { Block, Program, ScalarType, VarName } from '../ir/types.js';
import { buildGraph, type GraphContext } from './build.js';
import { staticSizes, type EntrySizes } from './sizes.js';
import type { DependenceGraph } from './types.js';
import type { CostWeights } from './weights.js';

/** One block's graph (sizes and weights included), with its nested blocks. */
export interface BlockGraphs {
  readonly graph: DependenceGraph;
  /** By control-flow node id: `[then, else]` or `[cond, body]`. */
  readonly children: Readonly<Record<number, readonly BlockGraphs[]>>;
}

/**
 * Dependence graphs of every block of a program, with sizes known from the entry `shapes` and
 * the caller's `weights` resolved onto groups and edges. Throws UserError E601/E602 for
 * scatters no plan can order (build.ts).
 */
export function programGraphs(program: Program, weights: CostWeights = {}, shapes: EntrySizes = {}): BlockGraphs {
  const sizes = staticSizes(program, shapes);
  const groupOf = new Map<VarName, string>();
  const outer = new Map<VarName, ScalarType>();
  for (const p of program.params) {
    const first = p.components[0]?.name;
    for (const comp of p.components) if (comp.kind === 'array' && first !== undefined) groupOf.set(comp.name, first);
  }
  return blockGraphs(program.body, { outerArrays: outer, groupOf, sizes, weights });
}

function blockGraphs(block: Block, context: GraphContext): BlockGraphs {
  const graph = buildGraph(block, context);
  // Arrays visible inside nested blocks: everything in scope here.
  const inScope = new Map<VarName, ScalarType>(context.outerArrays);
  for (const p of block.params) if (p.kind === 'array') inScope.set(p.name, p.elem);
  for (const s of block.stmts) {
    if (s.kind === 'scalar') continue;
    for (const o of s.outs) if (!('kind' in o) || o.kind === 'array') inScope.set(o.name, o.elem);
  }
  const children: Record<number, readonly BlockGraphs[]> = {};
  for (const s of block.stmts) {
    if (s.kind === 'if') children[s.id] = [s.then, s.else].map((b) => blockGraphs(b, { ...context, outerArrays: inScope }));
    if (s.kind === 'while') children[s.id] = [s.cond, s.body].map((b) => blockGraphs(b, { ...context, outerArrays: inScope }));
  }
  return { graph, children };
}
