// The memory planner: a program's memory plan from its core IR, its checked fusion plan and the
// entry sizes it was specialised to (src/memory/types.ts says what the plan holds; NOTES.md why
// each decision is safe).
//
// 1. Liveness (liveness.ts): steps, each array's own range, alias classes.
// 2. Loops: a `while` body result that the body computes afresh gets a pair of slots (ping-pong);
//    one the body updates in place in a loop-owned parameter uses the initial value's memory;
//    one that a pair cannot hold (a permutation of the carried values, the same array carried
//    twice, a value from an `if` or inner loop) leaves the arrays that flow into it `fresh`.
// 3. Results: a result the root block (or exclusive `if` branches) computes is written straight
//    into the result buffer; any other is copied there at the return. Results never alias the pool.
// 4. Colouring (colour.ts) of the remaining arrays over their alias classes' ranges.

import { CompilerBug } from '../diagnostics/index.js';
import type { EntrySizes } from '../graph/sizes.js';
import { elementBytes, MAX_ARRAY_ELEMENTS } from '../ir/scalarOps.js';
import type { Program, VarName, WhileNode } from '../ir/types.js';
import type { Plan } from '../plan/types.js';
import { colour, type ColourRange } from './colour.js';
import { liveness, type Liveness, type Place } from './liveness.js';
import { memorySizes } from './sizes.js';
import type { BufferRef, LiveRange, MemoryPlan, ResultDelivery, Slot } from './types.js';

export type { BufferRef, LiveRange, MemoryPlan, ResultDelivery, Slot } from './types.js';
export { memorySizes } from './sizes.js';

function bug(message: string): CompilerBug {
  return new CompilerBug('memory', message);
}

/** The memory plan of `program` under `plan` for the entry sizes it was specialised to (none: every size dynamic). */
export function planMemory(program: Program, plan: Plan, entry: EntrySizes = {}): MemoryPlan {
  const live = liveness(program, plan);
  const sizes = memorySizes(program, entry);
  const loops = loopDecisions(live);
  const { results, direct } = resultDeliveries(program, live);

  const buffers: Record<VarName, BufferRef> = Object.create(null) as Record<VarName, BufferRef>;
  const pooled: { readonly name: VarName; readonly pair: boolean }[] = [];
  for (const name of live.manifest) {
    const o = live.origin.get(name);
    switch (o?.kind) {
      case 'in-place':
        buffers[name] = o.owned ? { kind: 'alias', of: o.dest } : { kind: 'fresh', why: `its destination ${o.dest} is not this block's own array: it is copied first` };
        break;
      case 'elided':
        buffers[name] = { kind: 'alias', of: o.source };
        break;
      case 'combinator': {
        const component = direct.get(name);
        const why = loops.fresh.get(name);
        if (component !== undefined) buffers[name] = { kind: 'result', component };
        else if (why !== undefined) buffers[name] = { kind: 'fresh', why };
        else pooled.push({ name, pair: loops.pairs.has(name) });
        break;
      }
      case 'entry':
      case 'if-out':
      case 'while-out':
      case 'while-param':
      case undefined:
        throw bug(`manifest array ${JSON.stringify(name)} is not a combinator output (${o?.kind ?? 'undefined'})`);
      default:
        throw bug(`unknown origin ${String(o satisfies never)}`);
    }
  }

  const bytesOf = (name: VarName): number | null => {
    const shape = sizes.get(name);
    const o = live.origin.get(name);
    if (shape === undefined || o?.kind !== 'combinator') return null;
    const elements = shape.reduce((a, d) => a * d, 1);
    // A size the run would refuse (negative, fractional, too large: E404/E406 where it is
    // computed) is left to run time, so the fault is raised there, not by the pool up front.
    if (!shape.every((d) => Number.isSafeInteger(d) && d >= 0) || elements > MAX_ARRAY_ELEMENTS) return null;
    return elements * elementBytes(o.elem);
  };
  const colourRanges: ColourRange[] = [];
  const ranges: LiveRange[] = [];
  for (const { name, pair } of pooled) {
    const { start, end } = live.classRange(name);
    const bytes = bytesOf(name);
    ranges.push({ array: name, start, end, bytes });
    colourRanges.push({ array: name, start, end, bytes });
    if (pair) colourRanges.push({ array: name, start, end, bytes });
  }
  const colouring = colour(colourRanges);
  let at = 0;
  for (const { name, pair } of pooled) {
    const first = colouring.slotOf[at++]!;
    buffers[name] = pair ? { kind: 'pair', slots: [first, colouring.slotOf[at++]!] } : { kind: 'slot', slot: first };
  }
  const slots: Slot[] = colouring.slots.map((s) => ({ bytes: s.bytes, arrays: s.arrays }));
  return {
    buffers,
    slots,
    results,
    ranges,
    peakBytes: slots.reduce((sum, s) => sum + (s.bytes ?? 0), 0),
    dynamicSlots: slots.filter((s) => s.bytes === null).length,
  };
}

// ---- loops ---------------------------------------------------------------------------------

interface LoopDecisions {
  /** Body results (their memory's owners) that get a pair of slots. */
  readonly pairs: ReadonlySet<VarName>;
  /** Arrays allocated afresh each time, with the reason. */
  readonly fresh: ReadonlyMap<VarName, string>;
}

/**
 * The arrays a name of `loop`'s body may hold the memory of, at the end of an iteration: through
 * in-place updates, elided copies, `if` outputs and inner loops, down to combinator outputs,
 * `loop`'s own parameters and arrays from outside (its terminals).
 */
function memoryOf(live: Liveness, loop: { readonly node: WhileNode; readonly inside: ReadonlySet<VarName> }, name: VarName): Set<VarName> {
  const terminals = new Set<VarName>();
  const seen = new Set<VarName>();
  const go = (n: VarName): void => {
    if (seen.has(n)) return;
    seen.add(n);
    const o = live.origin.get(n);
    switch (o?.kind) {
      case 'in-place':
        if (o.owned) go(o.dest);
        else terminals.add(n);
        return;
      case 'elided':
        go(o.source);
        return;
      case 'if-out':
        go(o.node.then.results[o.k]!);
        go(o.node.else.results[o.k]!);
        return;
      case 'while-out':
        go(o.node.init[o.k]!);
        go(o.node.body.results[o.k]!);
        return;
      case 'while-param':
        // A parameter of an inner loop holds its initial value or a body result of that loop.
        if (o.node !== loop.node && loop.inside.has(n)) {
          go(o.node.init[o.k]!);
          go(o.node.body.results[o.k]!);
        } else terminals.add(n);
        return;
      case 'entry':
      case 'combinator':
      case undefined:
        terminals.add(n);
        return;
      default:
        throw bug(`unknown origin ${String(o satisfies never)}`);
    }
  };
  go(name);
  return terminals;
}

/** The array whose memory `name` is, through in-place updates and elided copies only. */
function ownerOf(live: Liveness, name: VarName): VarName {
  let n = name;
  for (;;) {
    const o = live.origin.get(n);
    if (o?.kind === 'in-place' && o.owned) n = o.dest;
    else if (o?.kind === 'elided') n = o.source;
    else return n;
  }
}

/**
 * Which carried values get a pair of slots. Iteration t writes the body result into
 * slots[t % 2] while it reads the parameter from slots[(t − 1) % 2] (or the initial value): safe
 * when the value written in iteration t is dead by the end of iteration t + 1, i.e. when the body
 * result's memory is a fresh array of the body carried in this one position, and the parameter
 * flows into no other carried position (else it would live two iterations). Every array of the
 * body whose memory may be carried in a position that fails this is allocated afresh.
 */
function loopDecisions(live: Liveness): LoopDecisions {
  const candidates = new Set<VarName>();
  const fresh = new Map<VarName, string>();
  for (const loop of live.loops) {
    const w = loop.node;
    const positions = w.outs.flatMap((o, k) => (o.kind === 'array' ? [k] : []));
    const holds = new Map(positions.map((k) => [k, memoryOf(live, loop, w.body.results[k]!)]));
    for (const k of positions) {
      const result = w.body.results[k]!;
      const param = w.body.params[k]!.name;
      const owner = ownerOf(live, result);
      const o = live.origin.get(owner);
      const others = positions.filter((j) => j !== k);
      let why: string | null = null;
      // A loop-owned parameter (src/ir/updates.ts `loopOwnedParams`): the body's scatters update
      // the memory that entered the loop, so the whole class is one buffer, the init's.
      if (owner === param && result !== param) continue;
      if (o?.kind !== 'combinator' || live.place.get(owner)?.block !== w.body) {
        if (result === param) continue; // carried unchanged: nothing is written
        why = `its body result ${result} is not an array the body computes (a parameter, an outer array, or an if or while output)`;
      } else if (others.some((j) => holds.get(j)!.has(owner))) why = `${owner} is carried in two positions`;
      else if (others.some((j) => holds.get(j)!.has(param))) why = `its parameter ${param} is carried into another position`;
      if (why === null) {
        candidates.add(owner);
        continue;
      }
      for (const h of holds.get(k)!) {
        if (!loop.inside.has(h) || live.origin.get(h)?.kind !== 'combinator') continue;
        if (!fresh.has(h)) fresh.set(h, `carried by while #${w.id} in position ${k}, which a pair of buffers cannot hold: ${why}`);
      }
    }
  }
  return { pairs: new Set([...candidates].filter((c) => !fresh.has(c))), fresh };
}

// ---- results -------------------------------------------------------------------------------

/** Whether two places can never both run in one execution: opposite branches of one `if`. */
function exclusive(a: Place, b: Place): boolean {
  const sides = new Map(a.branches.map((s) => [s.slice(0, s.indexOf(':')), s]));
  return b.branches.some((s) => {
    const other = sides.get(s.slice(0, s.indexOf(':')));
    return other !== undefined && other !== s;
  });
}

/**
 * How each flat result component reaches the caller, and which arrays are written straight into
 * a result buffer (`direct`: array → component). Direct needs the result's memory to be arrays
 * the program computes outside any loop, no two of which can run in one execution (one array, or
 * one per exclusive `if` branch), claimed by no other result.
 */
function resultDeliveries(program: Program, live: Liveness): { results: ResultDelivery[]; direct: Map<VarName, number> } {
  const components = program.results.flatMap((r) => r.components);
  if (components.length !== program.body.results.length) throw bug('the results do not match the entry block results');
  const direct = new Map<VarName, number>();
  const seen = new Set<VarName>();
  const results = components.map((c, k): ResultDelivery => {
    if (c.kind === 'scalar') return 'scalar';
    const name = program.body.results[k]!;
    if (seen.has(name)) return 'copy';
    seen.add(name);
    const terminals = new Set<VarName>();
    let opaque = false;
    let viaIf = false;
    let updates = 0;
    const go = (n: VarName): void => {
      const o = live.origin.get(n);
      switch (o?.kind) {
        case 'in-place':
          if (!o.owned) opaque = true;
          else {
            updates++;
            go(o.dest);
          }
          return;
        case 'elided':
          go(o.source);
          return;
        case 'if-out':
          viaIf = true;
          go(o.node.then.results[o.k]!);
          go(o.node.else.results[o.k]!);
          return;
        case 'combinator':
          terminals.add(n);
          return;
        case 'entry':
          terminals.add(n);
          opaque = true;
          return;
        case 'while-out':
        case 'while-param':
        case undefined:
          // A loop's value (it may hold any of its carried arrays) or an unknown name: not one producer.
          opaque = true;
          return;
        default:
          throw bug(`unknown origin ${String(o satisfies never)}`);
      }
    };
    go(name);
    const only = terminals.size === 1 ? [...terminals][0]! : undefined;
    const onlyOrigin = only === undefined ? undefined : live.origin.get(only);
    if (!viaIf && updates > 0 && onlyOrigin?.kind === 'entry' && onlyOrigin.donated) return 'donated';
    if (opaque) return 'copy';
    const holders = [...terminals];
    if (holders.some((h) => direct.has(h) || live.place.get(h)!.loops.length > 0)) return 'copy';
    const places = holders.map((h) => live.place.get(h)!);
    if (!places.every((p, i) => places.every((q, j) => i === j || exclusive(p, q)))) return 'copy';
    for (const h of holders) direct.set(h, k);
    return 'direct';
  });
  return { results, direct };
}
