// The memory planner: a program's memory plan from its core IR, its checked fusion plan and the
// entry sizes it was specialised to (src/memory/types.ts says what the plan holds).

import type { Block, Program, VarName } from '../ir/types.js';
import type { EntrySizes } from '../graph/sizes.js';
import type { BlockPlan, Plan } from '../plan/types.js';
import type { BufferRef, MemoryPlan, ResultDelivery } from './types.js';

export type { BufferRef, LiveRange, MemoryPlan, ResultDelivery, Slot } from './types.js';

/** The memory plan of `program` under `plan` for the entry sizes it was specialised to. */
export function planMemory(program: Program, plan: Plan, entry: EntrySizes = {}): MemoryPlan {
  void entry;
  const buffers: Record<VarName, BufferRef> = Object.create(null) as Record<VarName, BufferRef>;
  const visit = (block: Block, blockPlan: BlockPlan): void => {
    for (const cluster of blockPlan.clusters) for (const name of cluster.manifest) buffers[name] = { kind: 'fresh', why: 'not planned yet' };
    for (const s of block.stmts) {
      if (s.kind !== 'if' && s.kind !== 'while') continue;
      const [first, second] = blockPlan.children[s.id]!;
      visit(s.kind === 'if' ? s.then : s.cond, first!);
      visit(s.kind === 'if' ? s.else : s.body, second!);
    }
  };
  visit(program.body, plan.root);
  const results = program.results.flatMap((r) => r.components.map((c): ResultDelivery => (c.kind === 'scalar' ? 'scalar' : 'copy')));
  return { buffers, slots: [], results, ranges: [], peakBytes: 0, dynamicSlots: 0 };
}
