// Memory plans made by hand for the JavaScript back end's tests, so that every kind of BufferRef
// and ResultDelivery runs before (and independently of) the memory planner (src/memory). Each
// fixture is valid by construction for the programs it accepts, without any liveness analysis:
//
// - `ownSlots`: every manifest array its own dynamic slot (nothing shared, so nothing can be
//   overwritten while live), the arrays of a `while` body a loop pair of their own (the next
//   iteration reads the previous one's values while writing the other slot), results copied.
//   A loop whose body holds control flow or returns one of its parameters (carried values
//   swapped: a value then lives two iterations) gets `fresh` arrays instead, as do arrays of a
//   loop nested in another (its final value may be carried into the outer loop's next pass).
// - with `direct`, results produced by a combinator of the entry block (returned once, not an
//   in-place update) are written straight into the result buffer (`result` + `direct`).
// - `sized`: the same, with static byte sizes for the slots of arrays whose sizes are given.
// Both take the planner's `alias` BufferRefs as they are (a scatter updating its block's own
// destination, an elided copy: codegen writes that memory only where the plan says `alias`);
// aliasing is not what these fixtures vary.
// - `allFresh`: every manifest array `fresh` and every array result `copy` (codegen hands a
//   result fresh this run over with `rt.give`): what `planMemory` gave before the planner
//   existed, for tests about fresh arrays (allocation records, the collector) and as the
//   reference a pooled run must equal bitwise.

import type { Block, CombinatorNode, Program, VarName } from '../../src/ir/types.js';
import type { BufferRef, MemoryPlan, ResultDelivery, Slot } from '../../src/memory/types.js';
import type { BlockPlan, Plan } from '../../src/plan/types.js';
import { elementBytes } from '../../src/ir/scalarOps.js';
import { planMemory } from '../../src/memory/index.js';

/** The real planner's `alias` BufferRefs (in-place updates of a block's own array, elided copies). */
function plannedAliases(program: Program, plan: Plan): Map<VarName, BufferRef> {
  return new Map(Object.entries(planMemory(program, plan).buffers).filter(([, ref]) => ref.kind === 'alias'));
}

export interface FixtureOptions {
  /** Results of the entry block's combinators written in place (`result`/`direct`). */
  readonly direct?: boolean;
  /** Element counts of arrays known statically: their slots get static bytes. */
  readonly sizes?: Readonly<Record<VarName, number>>;
  /**
   * Pairs in every loop whose body returns none of its parameters, nested ones and bodies with
   * control flow included: sound only for programs where no loop's result is another loop's
   * output or an `if`'s (the caller's knowledge, not checked here).
   */
  readonly pairsEverywhere?: boolean;
}

interface Found {
  readonly name: VarName;
  readonly node: CombinatorNode;
  /** The innermost `while` body directly around it (null: none, or one where pairs are unsafe). */
  readonly loop: number | null;
  readonly inLoop: boolean;
  readonly top: boolean;
}

/** Every manifest array of the program with where it sits. */
function manifestArrays(program: Program, plan: Plan, options: FixtureOptions = {}): Found[] {
  const found: Found[] = [];
  let loops = 0;
  const everywhere = options.pairsEverywhere === true;
  const visit = (block: Block, blockPlan: BlockPlan, loop: number | null, inLoop: boolean, top: boolean): void => {
    const byId = new Map(block.stmts.flatMap((s) => (s.kind === 'scalar' ? [] : [[s.id, s] as const])));
    for (const cluster of blockPlan.clusters) {
      for (const id of cluster.nodes) {
        const node = byId.get(id)!;
        if (node === undefined || node.kind === 'if' || node.kind === 'while') continue;
        for (const o of node.outs) if (cluster.manifest.includes(o.name)) found.push({ name: o.name, node, loop, inLoop, top });
      }
    }
    for (const s of block.stmts) {
      if (s.kind === 'if') {
        const [a, b] = blockPlan.children[s.id]!;
        visit(s.then, a!, loop, inLoop, false);
        visit(s.else, b!, loop, inLoop, false);
      } else if (s.kind === 'while') {
        const [c, b] = blockPlan.children[s.id]!;
        const pairs =
          (everywhere || (!inLoop && !s.body.stmts.some((t) => t.kind === 'if' || t.kind === 'while'))) &&
          !s.body.results.some((r) => s.body.params.some((p) => p.name === r));
        visit(s.cond, c!, null, true, false);
        visit(s.body, b!, pairs ? loops++ : null, true, false);
      }
    }
  };
  visit(program.body, plan.root, null, false, true);
  return found;
}

/** The `ownSlots` fixture (see the header). */
export function ownSlots(program: Program, plan: Plan, options: FixtureOptions = {}): MemoryPlan {
  const buffers: Record<VarName, BufferRef> = Object.create(null) as Record<VarName, BufferRef>;
  const slots: Slot[] = [];
  const flat = program.results.flatMap((r) => r.components);
  const once = (name: VarName): boolean => flat.filter((c) => c.name === name).length === 1;
  const results: ResultDelivery[] = flat.map((c) => (c.kind === 'scalar' ? 'scalar' : 'copy'));
  const slot = (name: VarName, elem: Parameters<typeof elementBytes>[0]): number => {
    const n = options.sizes?.[name];
    slots.push({ bytes: n === undefined ? null : n * elementBytes(elem), arrays: [name] });
    return slots.length - 1;
  };
  const aliases = plannedAliases(program, plan);
  for (const f of manifestArrays(program, plan, options)) {
    const alias = aliases.get(f.name);
    if (alias !== undefined) {
      buffers[f.name] = alias;
      continue;
    }
    const out = f.node.outs.find((o) => o.name === f.name)!;
    const k = flat.findIndex((c) => c.name === f.name);
    const inPlace = f.node.kind === 'scatter';
    if (options.direct === true && f.top && k >= 0 && once(f.name) && !inPlace) {
      buffers[f.name] = { kind: 'result', component: k };
      results[k] = 'direct';
    } else if (f.inLoop && f.loop === null) {
      buffers[f.name] = { kind: 'fresh', why: 'fixture: a loop where pairs are unsafe' };
    } else if (f.loop !== null) {
      buffers[f.name] = { kind: 'pair', slots: [slot(f.name, out.elem), slot(f.name, out.elem)] };
    } else {
      buffers[f.name] = { kind: 'slot', slot: slot(f.name, out.elem) };
    }
  }
  const peakBytes = slots.reduce((s, x) => s + (x.bytes ?? 0), 0);
  return { buffers, slots, results, ranges: [], peakBytes, dynamicSlots: slots.filter((x) => x.bytes === null).length };
}

/** Every manifest array's name, in plan order (for plans written by hand against a known program). */
export function manifestNames(program: Program, plan: Plan): VarName[] {
  return manifestArrays(program, plan).map((f) => f.name);
}

/** The `allFresh` fixture (see the header): no slot, no pair, nothing written in place. */
export function allFresh(program: Program, plan: Plan): MemoryPlan {
  const buffers: Record<VarName, BufferRef> = Object.create(null) as Record<VarName, BufferRef>;
  // Every cluster's manifest names, as the placeholder planner walked them (scatters update
  // their destination whatever their BufferRef says).
  const visit = (block: Block, blockPlan: BlockPlan): void => {
    for (const cluster of blockPlan.clusters) for (const name of cluster.manifest) buffers[name] = { kind: 'fresh', why: 'fixture: every array fresh' };
    for (const s of block.stmts) {
      if (s.kind !== 'if' && s.kind !== 'while') continue;
      const [first, second] = blockPlan.children[s.id]!;
      visit(s.kind === 'if' ? s.then : s.cond, first!);
      visit(s.kind === 'if' ? s.else : s.body, second!);
    }
  };
  visit(program.body, plan.root);
  for (const [name, ref] of plannedAliases(program, plan)) buffers[name] = ref;
  const results = program.results.flatMap((r) => r.components.map((c): ResultDelivery => (c.kind === 'scalar' ? 'scalar' : 'copy')));
  return { buffers, slots: [], results, ranges: [], peakBytes: 0, dynamicSlots: 0 };
}
