// Memory-plan invariants on random programs (docs/DESIGN.md "Invariants" 7), with the shared
// generator (test/util) and every strategy:
//  - the memory planner's plan (src/memory) passes the independent validator (src/check/memory.ts);
//  - the validator is not stricter than the rules: a plan that gives every array its own slot
//    (loop-carried results a pair, in-place scatters their destination's memory, results written
//    in place where they can be) passes it;
//  - the validator sees what must never happen: merging the slots of an array and of an array
//    computed from it (the writer would overwrite what it reads) is always reported.
//
// And the execution invariants of memory (DESIGN.md invariant 3) on the same generator: one
// compiled executable per program and strategy, given its memory plan, runs two input sets of one
// signature in turn and then the first again; each run equals the interpreter bit for bit, leaves
// the inputs' bytes as they were, and leaves the arrays an earlier run returned as they were.
//
// Budget: a few seconds on two cores; `--mode long` runs twenty times the cases.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatMemoryViolation, validateMemoryPlan } from '../../src/check/memory.js';
import type { EntrySizes } from '../../src/graph/sizes.js';
import { staticSizes } from '../../src/graph/sizes.js';
import type { Block, CombinatorNode, Program, ScalarType, Stmt, VarName } from '../../src/ir/types.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { planMemory } from '../../src/memory/index.js';
import type { BufferRef, MemoryPlan, ResultDelivery } from '../../src/memory/types.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { plan } from '../../src/plan/index.js';
import type { BlockPlan, Plan, Strategy } from '../../src/plan/types.js';
import { interpret } from '../../src/interp/index.js';
import type { RuntimeValue } from '../../src/ir/values.js';
import { arbitraryCase, randomArray, randomProgram, seededRng } from '../util/index.js';
import { expectSameValues } from '../runtime/equal.js';
import { backends, compileOn } from '../runtime/backends.js';

const solver = createSolverLoader();
const long = (import.meta as { readonly env?: { readonly MODE?: string } }).env?.MODE === 'long';
const runs = (n: number): number => (long ? 20 * n : n);
const timeout = (ms: number): number => (long ? 40 * ms : ms);
const strategies: readonly Strategy[] = ['ilp', 'greedy-down', 'greedy-up', 'none'];

function shapesOf(program: Program, inputs: readonly InterfaceValue[]): EntrySizes {
  const out: Record<string, readonly number[] | number> = {};
  program.params.forEach((param, i) => {
    const value = inputs[i]!;
    const values = Array.isArray(value) ? value : [value];
    param.components.forEach((c, k) => {
      const x = values[k]!;
      out[c.name] = x.kind === 'array' ? x.shape : x.value;
    });
  });
  return out;
}

const elemBytes: Readonly<Record<ScalarType, number>> = { f64: 8, f32: 4, i32: 4, u32: 4, u8: 1, i8: 1, bool: 1 };

/**
 * The simplest memory plan that keeps every rule: each manifest array its own slot, except an
 * in-place scatter's output (its destination's memory), a copy the plan elides (its source's
 * memory), a result of a top-level loop's body
 * computed in it (a pair of its own, when the body returns none of its params), and arrays a
 * loop might carry by other ways (fresh). An array returned once, by the entry block's own
 * combinator, is written into its result.
 */
function ownSlots(program: Program, p: Plan, entry: EntrySizes): MemoryPlan {
  const sizes = staticSizes(program, entry);
  const buffers: Record<VarName, BufferRef> = {};
  const slots: { bytes: number | null; arrays: VarName[] }[] = [];
  const newSlot = (name: VarName, elem: ScalarType): number => {
    const shape = sizes.get(name);
    slots.push({ bytes: shape === undefined ? null : shape.reduce((a, d) => a * d, 1) * elemBytes[elem], arrays: [name] });
    return slots.length - 1;
  };
  const rootResults = program.body.results;
  const visit = (b: Block, bp: BlockPlan, inLoop: boolean, pairable: readonly VarName[] | null): void => {
    const byId = new Map<number, Stmt>();
    for (const s of b.stmts) if (s.kind !== 'scalar') byId.set(s.id, s);
    for (const cluster of bp.clusters) {
      for (const id of cluster.nodes) {
        const s = byId.get(id);
        if (s === undefined) continue;
        if (s.kind === 'if' || s.kind === 'while') {
          const [first, second] = bp.children[id]!;
          if (s.kind === 'if') {
            visit(s.then, first!, inLoop, null);
            visit(s.else, second!, inLoop, null);
          } else {
            const params = new Set([...s.cond.params, ...s.body.params].map((x) => x.name));
            const pairs = !inLoop && !s.body.results.some((r) => params.has(r)) ? s.body.results : null;
            visit(s.cond, first!, true, null);
            visit(s.body, second!, true, pairs);
          }
          continue;
        }
        const n = s as CombinatorNode;
        n.outs.forEach((o, k) => {
          const manifest = cluster.manifest.includes(o.name) || n.kind === 'scatter';
          if (!manifest) return;
          if (n.kind === 'scatter') buffers[o.name] = { kind: 'alias', of: n.dest[k]! };
          else if (n.kind === 'map' && (bp.elided ?? []).includes(n.id)) buffers[o.name] = { kind: 'alias', of: n.inputs[k]! };
          else if (pairable !== null && pairable.includes(o.name)) {
            slots.push({ bytes: null, arrays: [o.name] }, { bytes: null, arrays: [o.name] });
            buffers[o.name] = { kind: 'pair', slots: [slots.length - 2, slots.length - 1] };
          } else if (inLoop && b.results.includes(o.name)) buffers[o.name] = { kind: 'fresh', why: 'a loop may carry it' };
          else if (b === program.body && rootResults.filter((r) => r === o.name).length === 1) {
            buffers[o.name] = { kind: 'result', component: rootResults.indexOf(o.name) };
          } else buffers[o.name] = { kind: 'slot', slot: newSlot(o.name, o.elem) };
        });
      }
    }
  };
  visit(program.body, p.root, false, null);
  const results = program.results.flatMap((r) => r.components).map((c, k): ResultDelivery => {
    if (c.kind === 'scalar') return 'scalar';
    const ref = buffers[rootResults[k]!];
    return ref?.kind === 'result' && ref.component === k ? 'direct' : 'copy';
  });
  return {
    buffers,
    slots,
    results,
    ranges: [],
    peakBytes: slots.reduce((a, s) => a + (s.bytes ?? 0), 0),
    dynamicSlots: slots.filter((s) => s.bytes === null).length,
  };
}

/** Every combinator of the program, nested blocks included. */
function combinators(b: Block, out: CombinatorNode[] = []): CombinatorNode[] {
  for (const s of b.stmts) {
    if (s.kind === 'if') {
      combinators(s.then, out);
      combinators(s.else, out);
    } else if (s.kind === 'while') {
      combinators(s.cond, out);
      combinators(s.body, out);
    } else if (s.kind !== 'scalar') out.push(s);
  }
  return out;
}

/** The arrays a combinator reads as inputs (a scatter's destination apart: it is updated, not read). */
function inputsOf(n: CombinatorNode): readonly VarName[] {
  switch (n.kind) {
    case 'map':
      return n.inputs;
    case 'gather':
      return [...n.indices, ...n.source];
    case 'scatter':
      return [...n.index, ...n.values];
    case 'fold':
    case 'scanl':
    case 'scanr':
    case 'force':
      return n.input;
    case 'generate':
      return [];
    default:
      return n satisfies never;
  }
}

describe('memory plans of random programs, every strategy', () => {
  it(
    'the planner\'s plan and an own-slot plan are valid; sharing a slot between a reader and what it reads never is',
    async () => {
      await fc.assert(
        fc.asyncProperty(arbitraryCase({ combinators: { min: 1, max: 12 }, readAfterScatter: true }), async ({ program, inputs }) => {
          const shapes = shapesOf(program, inputs);
          for (const strategy of strategies) {
            const p = await plan(program, { solver, strategy, shapes });
            const planned = planMemory(program, p, shapes);
            expect(validateMemoryPlan(program, p, planned, shapes).map(formatMemoryViolation), `${strategy}: the planner's memory plan`).toEqual([]);
            const own = ownSlots(program, p, shapes);
            expect(validateMemoryPlan(program, p, own, shapes).map(formatMemoryViolation), `${strategy}: own slots`).toEqual([]);
            for (const n of combinators(program.body)) {
              for (const out of n.outs) {
                const w = own.buffers[out.name];
                if (w?.kind !== 'slot') continue;
                for (const input of inputsOf(n)) {
                  const r = own.buffers[input];
                  if (r?.kind !== 'slot' || input === out.name) continue;
                  const merged: MemoryPlan = {
                    ...own,
                    buffers: { ...own.buffers, [out.name]: r },
                    slots: own.slots.map((s, k) => (k === r.slot ? { bytes: null, arrays: [...s.arrays, out.name] } : k === w.slot ? { bytes: 0, arrays: [] } : s)),
                    peakBytes: own.slots.reduce((a, s, k) => a + (k === r.slot || k === w.slot ? 0 : (s.bytes ?? 0)), 0),
                    dynamicSlots: own.dynamicSlots + (own.slots[r.slot]!.bytes === null ? 0 : 1) - (own.slots[w.slot]!.bytes === null ? 1 : 0),
                  };
                  const found = validateMemoryPlan(program, p, merged, shapes);
                  const hit = found.some((v) => (v.rule === 'overlap' || v.rule === 'pair') && v.arrays.includes(input) && v.arrays.includes(out.name));
                  expect(hit, `${strategy}: ${out.name} written into the slot of ${input}, which it reads:\n${found.map(formatMemoryViolation).join('\n')}`).toBe(true);
                }
              }
            }
          }
        }),
        { numRuns: runs(40), seed: 1911 },
      );
    },
    timeout(60_000),
  );
});

/** The components of an input or result value. */
function parts(v: InterfaceValue): readonly RuntimeValue[] {
  return Array.isArray(v) ? (v as readonly RuntimeValue[]) : [v as RuntimeValue];
}

/** A deep copy (arrays' data copied), to compare values with after later runs. */
function copyValues(values: readonly InterfaceValue[]): InterfaceValue[] {
  const copy = (x: RuntimeValue): RuntimeValue => (x.kind === 'array' ? { ...x, shape: [...x.shape], data: x.data.slice() } : { ...x });
  return values.map((v) => (Array.isArray(v) ? parts(v).map(copy) : copy(v as RuntimeValue)));
}

/** Other data of the same signature: the same shapes and scalar values, new array elements. */
function sameSignature(inputs: readonly InterfaceValue[], seed: number): InterfaceValue[] {
  const rng = seededRng(seed);
  const fresh = (x: RuntimeValue): RuntimeValue => (x.kind === 'array' ? randomArray(rng, x.elem, x.shape) : x);
  return inputs.map((v) => (Array.isArray(v) ? parts(v).map(fresh) : fresh(v as RuntimeValue)));
}

describe.each(backends)('$name back end: one executable, its memory plan, several runs', (config) => {
  const seeds = Array.from({ length: runs(25) }, (_, k) => 500 + k);
  it.each(seeds)(
    'seed %i, every strategy: each run equals the interpreter, writes no input and keeps earlier results',
    async (seed) => {
      const c = randomProgram(seed, { combinators: { min: 2, max: 12 }, readAfterScatter: seed % 2 === 0 });
      const shapes = shapesOf(c.program, c.inputs);
      const first = c.inputs;
      const second = sameSignature(first, seed * 7 + 1);
      const expectedFirst = interpret(c.program, first);
      const expectedSecond = interpret(c.program, second);
      for (const strategy of strategies) {
        const p = await plan(c.program, { solver, strategy, shapes });
        const exe = await compileOn(config, c.program, p, { memory: planMemory(c.program, p, shapes), poisonBuffers: true });
        const label = (what: string): string => `${config.name} ${strategy}, ${what}\n${c.description}`;
        try {
          const before = [copyValues(first), copyValues(second)];
          const a = (await exe.run(first)).results;
          const aCopy = copyValues(a);
          expectSameValues(aCopy, expectedFirst, label('first run'));
          const b = (await exe.run(second)).results;
          expectSameValues(copyValues(b), expectedSecond, label('second run (other data, same signature)'));
          expectSameValues(copyValues(a), aCopy, label('the first run\'s results after the second run'));
          const again = (await exe.run(first)).results;
          expectSameValues(copyValues(again), expectedFirst, label('third run (the first data again)'));
          expectSameValues(copyValues(b), expectedSecond, label('the second run\'s results after the third run'));
          expectSameValues(first, before[0]!, label('the first inputs after every run'));
          expectSameValues(second, before[1]!, label('the second inputs after every run'));
        } finally {
          await exe.dispose();
        }
      }
    },
    timeout(30_000),
  );
});
