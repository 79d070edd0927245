// Loop-nest optimisation of one cluster's statements (docs/EXECUTION.md, "Loop optimisation").
//
// The cluster generator (../cluster.ts) builds a loop nest that is right for every point: each
// gather computes its index through the index map it was fused with, wraps and clamps included,
// and checks it. The passes here rewrite that nest into faster code that computes the same values
// in the same order and raises the same first error: they see the index maps after fusion has
// composed them, so a user's own stencil benefits as the benchmarks do. Each pass is a pure
// function over the small JavaScript AST (../jsast.ts) and says in its header what it proves
// before it rewrites anything. They run in the order of `loopPasses`, after `shareValues`.
//
// Exactness: every pass keeps each floating-point operation and its operands as they were,
// except the ones `fastMath` allows (docs/LANGUAGE.md, "Floating-point reassociation").

import type { JsStmt } from '../jsast.js';
import { interiorPass } from './interior.js';
import { blockPass } from './block.js';
import { rotatePass } from './rotate.js';
import { reassociate } from './reassociate.js';

/** What the passes may know of the function they optimise. */
export interface LoopContext {
  /** Floating-point folds may be regrouped (docs/LANGUAGE.md, "Floating-point reassociation"). */
  readonly fastMath: boolean;
  /** The counters variant: its loads and stores are counted, so they stay where they are. */
  readonly counters: boolean;
  /** A fresh local name (the cluster's own name supply: names never collide). */
  fresh(prefix: string): string;
}

export interface LoopPass {
  readonly name: string;
  run(stmts: readonly JsStmt[], context: LoopContext): JsStmt[];
}

/** The passes, in the order they run. */
export const loopPasses: readonly LoopPass[] = [
  // First: the passes below see the interior's checks removed and its indices affine.
  interiorPass,
  rotatePass,
  blockPass,
  // Last: it splits the accumulators of the loops the passes before it leave (fastMath only).
  reassociate,
];

/** One cluster's statements after every pass. */
export function optimiseLoops(stmts: readonly JsStmt[], context: LoopContext): JsStmt[] {
  return loopPasses.reduce<JsStmt[]>((current, pass) => pass.run(current, context), [...stmts]);
}
