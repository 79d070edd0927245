// The memory planner's self-check for its tests: the invariants every memory plan must keep,
// from the plan and the memory plan alone (the independent validator is src/check/memory.ts).
import { inPlaceDestinations } from '../../src/ir/rules.js';
import { forEachStmt } from '../../src/ir/walk.js';
import { isCombinator, type Block, type Program } from '../../src/ir/types.js';
import type { MemoryPlan } from '../../src/memory/index.js';
import type { BlockPlan, Plan } from '../../src/plan/types.js';

/** Every broken invariant, in words (empty: none). */
export function memoryProblems(program: Program, plan: Plan, memory: MemoryPlan): string[] {
  const problems: string[] = [];
  const manifest = new Set<string>();
  const visit = (b: Block, bp: BlockPlan): void => {
    for (const c of bp.clusters) for (const m of c.manifest) manifest.add(m);
    for (const s of b.stmts) {
      if (isCombinator(s) && inPlaceDestinations(s).length > 0) for (const o of s.outs) manifest.add(o.name);
      if (s.kind === 'if' || s.kind === 'while') {
        const [x, y] = bp.children[s.id]!;
        visit(s.kind === 'if' ? s.then : s.cond, x!);
        visit(s.kind === 'if' ? s.else : s.body, y!);
      }
    }
  };
  visit(program.body, plan.root);
  const named = new Set(Object.keys(memory.buffers));
  for (const m of manifest) if (!named.has(m)) problems.push(`manifest ${m} has no buffer`);
  for (const n of named) if (!manifest.has(n)) problems.push(`${n} has a buffer but is not manifest`);
  for (const p of program.body.params) if (named.has(p.name)) problems.push(`input ${p.name} has a buffer`);
  const range = new Map(memory.ranges.map((r) => [r.array, r]));
  const users = new Map<number, string[]>();
  for (const [name, ref] of Object.entries(memory.buffers)) {
    const slots = ref.kind === 'slot' ? [ref.slot] : ref.kind === 'pair' ? [...ref.slots] : [];
    if (ref.kind === 'pair' && ref.slots[0] === ref.slots[1]) problems.push(`pair of ${name} uses slot ${ref.slots[0]} twice`);
    if (slots.length > 0 && !range.has(name)) problems.push(`${name} is pooled without a range`);
    for (const s of slots) {
      users.set(s, [...(users.get(s) ?? []), name]);
      const slot = memory.slots[s];
      if (slot === undefined) problems.push(`${name} names slot ${s}, which does not exist`);
      else {
        const bytes = range.get(name)?.bytes ?? null;
        if ((slot.bytes === null) !== (bytes === null)) problems.push(`${name} (${bytes} bytes) in slot ${s} of ${slot.bytes} bytes`);
        else if (bytes !== null && slot.bytes! < bytes) problems.push(`${name} (${bytes} bytes) does not fit slot ${s} (${slot.bytes})`);
        if (!slot.arrays.includes(name)) problems.push(`slot ${s} does not list ${name}`);
      }
    }
  }
  for (const [s, names] of users) {
    for (let i = 0; i < names.length; i++) {
      for (let j = i + 1; j < names.length; j++) {
        const a = range.get(names[i]!)!;
        const b = range.get(names[j]!)!;
        if (a.start <= b.end && b.start <= a.end) problems.push(`${a.array} [${a.start}, ${a.end}] and ${b.array} [${b.start}, ${b.end}] share slot ${s} while both live`);
      }
    }
  }
  const flat = program.results.flatMap((r) => r.components);
  if (memory.results.length !== flat.length) problems.push('one delivery per result component expected');
  flat.forEach((c, k) => {
    const d = memory.results[k];
    if ((c.kind === 'scalar') !== (d === 'scalar')) problems.push(`result ${k} (${c.kind}) delivered ${d}`);
    const name = program.body.results[k]!;
    const ref = memory.buffers[name];
    if (d === 'direct' && ref !== undefined && ref.kind !== 'result' && ref.kind !== 'alias') problems.push(`direct result ${name} is ${ref.kind}`);
  });
  for (const [name, ref] of Object.entries(memory.buffers)) {
    if (ref.kind === 'result' && memory.results[ref.component] !== 'direct') problems.push(`${name} writes result ${ref.component}, which is not direct`);
  }
  const static_ = memory.slots.reduce((s, x) => s + (x.bytes ?? 0), 0);
  if (memory.peakBytes !== static_) problems.push(`peakBytes ${memory.peakBytes} ≠ Σ static slots ${static_}`);
  if (memory.dynamicSlots !== memory.slots.filter((s) => s.bytes === null).length) problems.push('dynamicSlots miscounted');
  // Loop-carried results are never pooled without a pair: a body result in a plain slot would be
  // overwritten by the next iteration while its previous value (the parameter) is read.
  forEachStmt(program.body, (s) => {
    if (s.kind !== 'while') return;
    for (const r of s.body.results) {
      let ref = memory.buffers[r];
      for (let n = 0; ref?.kind === 'alias' && n < 100; n++) ref = memory.buffers[ref.of];
      if (ref?.kind === 'slot') problems.push(`while #${s.id}: body result ${r} in a plain slot`);
    }
  });
  return problems;
}
