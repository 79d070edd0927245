// The memory-plan validator: checks a MemoryPlan (src/memory/types.ts) against the program and
// its fusion plan, with liveness computed here from the IR by the checker's own walk. It imports
// no code of src/memory and not src/ir/updates.ts: the planner's liveness and the IR's in-place
// rule are restated here, so a bug in either cannot hide on both sides (docs/DESIGN.md "The
// checker is independent"; test/check/imports.test.ts enforces it).
//
// The checker's model of execution, in steps (its own numbering, not the planner's):
//  - each block's clusters in plan order, one step each; a control-flow cluster takes a step when
//    it starts, then its blocks' steps (`if`: then, else; `while`: cond, body), then a step when it
//    ends; after its clusters, each block has one more step where its results are read;
//  - an array is used where a cluster reads it (as an input, a scatter's destination, by indexing
//    in a lambda, a shape or an initial value), where a control node's condition indexes it or a
//    `while` starts from it, and where its block returns it; a scalar statement that indexes an
//    array is evaluated at some point before its first user, so its arrays count as used at that
//    user's step (the block's result step when it has none): conservative, whatever codegen's
//    placement;
//  - a use inside a `while` nested in the array's own block lasts until that loop ends (the loop
//    reads it again on the next iteration); a use inside an `if` only where it is;
//  - memory may be held under other names (the alias rule, restated): an `if` output holds what
//    its branches return, a `while`'s params and outputs what it starts from and what its body
//    returns, an array whose buffer is `alias` of another the other's memory. An array's buffer
//    is live from its definition to the last use of any name that may hold it, and over a whole
//    loop when a `while` carries it (the previous iteration's value is read in the next).
//
// Rules (each violation says which, in words a person can act on):
//  buffers   every manifest array of every block has exactly one buffer, nothing else has one;
//  overlap   arrays sharing a slot (or a result buffer) are never live at once, unless they come
//            from the two branches of one `if` and no loop carries them;
//  capacity  a slot's bytes hold each of its arrays; a slot lists exactly the arrays placed in it;
//  pair      a pair's two slots differ, only a value a `while` body computes and returns has one,
//            and it never survives two iterations; a carried value in one buffer is not
//            overwritten by the next iteration while the previous one is read;
//  results   result deliveries match the program's results: `direct` ones are written by their
//            producers into that result's buffer, slots and pairs are copied out, `donated` ones
//            are a donated input's memory;
//  totals    peakBytes is the sum of the slots' static bytes, dynamicSlots their number of nulls;
//  alias     an alias is a scatter's output over its destination or an elided copy over its
//            source, and nothing can observe the update: the memory is the block's own (or a
//            donated input's, in the entry block, or a `while` body parameter the loop owns: its
//            result is that memory updated, carried in one position, and its initial value a
//            combinator output nothing but the loop reads), the scatter reads it only as its destination,
//            and no one reads the old value later (a scalar statement nothing uses aside: what it
//            reads reaches no result, as the IR's own rule has it).

import { CompilerBug } from '../diagnostics/index.js';
import { staticSizes, type EntrySizes } from '../graph/sizes.js';
import type { Block, CombinatorNode, ControlNode, Expr, Lambda, MapNode, NodeId, Program, ScalarType, Stmt, VarName } from '../ir/types.js';
import type { BufferRef, MemoryPlan } from '../memory/types.js';
import type { BlockPlan, Plan } from '../plan/types.js';
import { elementBytes } from '../ir/scalarOps.js';
import { exprReads } from './reads.js';

export type MemoryRule = 'buffers' | 'overlap' | 'capacity' | 'pair' | 'results' | 'totals' | 'alias';

export interface MemoryViolation {
  readonly rule: MemoryRule;
  /** The arrays concerned (may be empty for totals). */
  readonly arrays: readonly VarName[];
  readonly message: string;
}

export function formatMemoryViolation(v: MemoryViolation): string {
  return `[${v.rule}] ${v.message}`;
}

/**
 * Every way `memory` breaks the rules for `program` under `plan` (which must be valid: run the
 * plan validator first); empty when it is valid. `entry` are the entry sizes the memory plan was
 * made for (the driver's `entrySizes(signature)`): they give the static sizes its slots are checked
 * against; without them every size counts as unknown and capacities are not checked.
 */
export function validateMemoryPlan(program: Program, plan: Plan, memory: MemoryPlan, entry: EntrySizes = {}): MemoryViolation[] {
  const facts = walkProgram(program, plan.root);
  const out: MemoryViolation[] = [];
  const report = (rule: MemoryRule, arrays: readonly VarName[], message: string): void => void out.push({ rule, arrays, message });
  checkBuffers(facts, memory, report);
  const sizes = staticSizes(program, entry);
  const bytesOf = (name: VarName): number | null => {
    const shape = sizes.get(name);
    const elem = facts.names.get(name)?.elem;
    return shape === undefined || elem === undefined ? null : shape.reduce((a, d) => a * d, 1) * elementBytes(elem);
  };
  const liveness = new Liveness(facts, memory);
  checkSlots(facts, memory, liveness, bytesOf, report);
  checkCarried(facts, memory, liveness, report);
  checkResults(program, facts, memory, liveness, report);
  checkTotals(memory, report);
  checkAliases(facts, memory, liveness, report);
  return out;
}

/** Throws a CompilerBug listing the violations when the memory plan is not valid. */
export function assertValidMemoryPlan(program: Program, plan: Plan, memory: MemoryPlan, entry: EntrySizes = {}, pass = 'memory plan validation'): void {
  const violations = validateMemoryPlan(program, plan, memory, entry);
  if (violations.length > 0) {
    throw new CompilerBug(
      pass,
      `the memory plan of the ${plan.strategy} plan for ${program.name} is not valid:\n` +
        violations.map((v) => `  ${formatMemoryViolation(v)}`).join('\n'),
    );
  }
}


// ---------------------------------------------------------------------------------------------
// The walk: steps, definitions and uses
// ---------------------------------------------------------------------------------------------

/** A control node's steps: `start` when it begins, `end` when it is done. */
interface Interval {
  start: number;
  end: number;
}

/** One level of nesting: inside block `branch` (0: then / cond, 1: else / body) of control node `id`. */
interface Frame {
  readonly id: NodeId;
  readonly kind: ControlNode['kind'];
  readonly branch: 0 | 1;
  readonly steps: Interval;
}

type NameKind = 'input' | 'block-param' | 'combinator' | 'control-output';

interface NameFact {
  readonly kind: NameKind;
  readonly elem: ScalarType;
  /** The control nodes around its definition, outermost first. */
  readonly frames: readonly Frame[];
  /** Where it is defined: its cluster's step, a control node's end, a block's start. */
  readonly def: number;
  /** Its producing node (combinator or control node), when it has one. */
  readonly node: NodeId | null;
  /** `root`, `root/while #3 body`, … */
  readonly path: string;
}

interface Use {
  readonly name: VarName;
  readonly step: number;
  readonly frames: readonly Frame[];
  /** The combinator reading it, when a combinator does. */
  readonly by: NodeId | null;
  /** Whether the read is a scatter's destination (the update itself). */
  readonly dest: boolean;
  /** A read by a scalar statement whose value nothing uses: it keeps memory alive, but no one sees what it reads. */
  readonly unobserved: boolean;
}

interface ManifestSite {
  readonly block: string;
  readonly cluster: number;
}

interface WhileFacts {
  readonly node: ControlNode & { kind: 'while' };
  readonly steps: Interval;
  readonly path: string;
}

interface ProgramWalk {
  readonly names: ReadonlyMap<VarName, NameFact>;
  readonly uses: readonly Use[];
  readonly combinators: ReadonlyMap<NodeId, CombinatorNode>;
  /** Manifest arrays with where the plan lists them (several sites: listed twice). */
  readonly manifest: ReadonlyMap<VarName, readonly ManifestSite[]>;
  /** Elided copies' node ids. */
  readonly elided: ReadonlySet<NodeId>;
  /** Value flow: `from` → the names that may then hold its memory (if/while outputs and params). */
  readonly flowsTo: ReadonlyMap<VarName, readonly VarName[]>;
  /** Reverse of flowsTo. */
  readonly flowsFrom: ReadonlyMap<VarName, readonly VarName[]>;
  /** A `while`'s params (cond and body) and the loop they belong to, with their position. */
  readonly loopParam: ReadonlyMap<VarName, { readonly loop: WhileFacts; readonly position: number }>;
  readonly loops: readonly WhileFacts[];
  /** Names defined anywhere inside each loop's blocks (params included). */
  readonly definedIn: ReadonlyMap<NodeId, ReadonlySet<VarName>>;
  /** The entry inputs the caller donated. */
  readonly donated: ReadonlySet<VarName>;
}

/** Adds the arrays `e` indexes to `indexed` and the names it mentions as values to `vars`. */
function exprNames(e: Expr, indexed: Set<VarName>, vars: Set<VarName>): void {
  exprReads(e, (name) => (vars.add(name), []), indexed);
}

function lambdaNames(l: Lambda, indexed: Set<VarName>, vars: Set<VarName>): void {
  for (const x of l.lets) exprNames(x.expr, indexed, vars);
  for (const r of l.results) exprNames(r, indexed, vars);
}

/** A combinator's array reads by role (destination apart) and the names its expressions mention. */
function combinatorUses(n: CombinatorNode): { inputs: VarName[]; dest: VarName[]; indexed: Set<VarName>; vars: Set<VarName> } {
  const indexed = new Set<VarName>();
  const vars = new Set<VarName>();
  let inputs: VarName[] = [];
  let dest: VarName[] = [];
  switch (n.kind) {
    case 'generate':
      for (const e of n.shape) exprNames(e, indexed, vars);
      lambdaNames(n.fn, indexed, vars);
      break;
    case 'map':
      inputs = [...n.inputs];
      lambdaNames(n.fn, indexed, vars);
      break;
    case 'gather':
      inputs = [...n.indices, ...n.source];
      break;
    case 'scatter':
      inputs = [...n.index, ...n.values];
      dest = [...n.dest];
      lambdaNames(n.op, indexed, vars);
      break;
    case 'fold':
      inputs = [...n.input];
      lambdaNames(n.op, indexed, vars);
      for (const e of n.init) exprNames(e, indexed, vars);
      break;
    case 'scanl':
    case 'scanr':
      inputs = [...n.input];
      lambdaNames(n.op, indexed, vars);
      for (const e of n.init ?? []) exprNames(e, indexed, vars);
      break;
    case 'force':
      inputs = [...n.input];
      break;
    default:
      n satisfies never;
  }
  return { inputs, dest, indexed, vars };
}

/** Every name a statement mentions as a value, anywhere inside it (for scalars' first users). */
function stmtMentions(s: Stmt, acc: Set<VarName>): Set<VarName> {
  const indexed = new Set<VarName>();
  switch (s.kind) {
    case 'scalar':
      exprNames(s.expr, indexed, acc);
      break;
    case 'if':
      exprNames(s.cond, indexed, acc);
      blockMentions(s.then, acc);
      blockMentions(s.else, acc);
      break;
    case 'while':
      for (const i of s.init) acc.add(i);
      blockMentions(s.cond, acc);
      blockMentions(s.body, acc);
      break;
    case 'generate':
    case 'map':
    case 'gather':
    case 'scatter':
    case 'fold':
    case 'scanl':
    case 'scanr':
    case 'force': {
      const u = combinatorUses(s);
      for (const x of u.vars) acc.add(x);
      for (const x of [...u.inputs, ...u.dest]) acc.add(x);
      break;
    }
    default:
      s satisfies never;
  }
  for (const x of indexed) acc.add(x);
  return acc;
}

function blockMentions(b: Block, acc: Set<VarName>): void {
  for (const s of b.stmts) stmtMentions(s, acc);
  for (const r of b.results) acc.add(r);
}

function walkProgram(program: Program, root: BlockPlan): ProgramWalk {
  const names = new Map<VarName, NameFact>();
  const uses: Use[] = [];
  const combinators = new Map<NodeId, CombinatorNode>();
  const manifest = new Map<VarName, ManifestSite[]>();
  const elided = new Set<NodeId>();
  const flowsTo = new Map<VarName, VarName[]>();
  const flowsFrom = new Map<VarName, VarName[]>();
  const loopParam = new Map<VarName, { loop: WhileFacts; position: number }>();
  const loops: WhileFacts[] = [];
  const definedIn = new Map<NodeId, Set<VarName>>();
  const donated = new Set<VarName>();
  let step = 0;
  const flow = (from: VarName, to: VarName): void => {
    flowsTo.set(from, [...(flowsTo.get(from) ?? []), to]);
    flowsFrom.set(to, [...(flowsFrom.get(to) ?? []), from]);
  };
  const define = (name: VarName, fact: NameFact, frames: readonly Frame[]): void => {
    names.set(name, fact);
    for (const f of frames) if (f.kind === 'while') definedIn.get(f.id)?.add(name);
  };

  for (const p of program.params) {
    for (const c of p.components) {
      if (c.kind !== 'array') continue;
      define(c.name, { kind: 'input', elem: c.elem, frames: [], def: 0, node: null, path: 'root' }, []);
      if (p.donated === true) donated.add(c.name);
    }
  }

  const visit = (b: Block, bp: BlockPlan, frames: readonly Frame[], path: string): void => {
    const blockStart = step;
    for (const prm of b.params) {
      if (prm.kind === 'array' && !names.has(prm.name)) {
        define(prm.name, { kind: 'block-param', elem: prm.elem, frames, def: blockStart, node: null, path }, frames);
      }
    }
    for (const id of bp.elided ?? []) elided.add(id);
    const stmtById = new Map<NodeId, Exclude<Stmt, { kind: 'scalar' }>>();
    for (const s of b.stmts) if (s.kind !== 'scalar') stmtById.set(s.id, s);
    /** Step at which each node of this block runs (a control node: its start). */
    const nodeStep = new Map<NodeId, number>();
    const use = (name: VarName, at: number, by: NodeId | null = null, dest = false, unobserved = false): void =>
      void uses.push({ name, step: at, frames, by, dest, unobserved });

    bp.clusters.forEach((cluster, ci) => {
      for (const name of cluster.manifest) manifest.set(name, [...(manifest.get(name) ?? []), { block: path, cluster: ci }]);
      const control = cluster.nodes.map((id) => stmtById.get(id)).find((s): s is ControlNode => s?.kind === 'if' || s?.kind === 'while');
      if (control === undefined) {
        const at = step++;
        for (const id of cluster.nodes) {
          const s = stmtById.get(id);
          if (s === undefined || s.kind === 'if' || s.kind === 'while') continue;
          nodeStep.set(id, at);
          combinators.set(id, s);
          for (const o of s.outs) define(o.name, { kind: 'combinator', elem: o.elem, frames, def: at, node: id, path }, frames);
          const u = combinatorUses(s);
          for (const x of u.inputs) use(x, at, id);
          for (const x of u.dest) use(x, at, id, true);
          for (const x of u.indexed) use(x, at, id);
        }
        return;
      }
      const steps: Interval = { start: step++, end: -1 };
      nodeStep.set(control.id, steps.start);
      const [first, second] = bp.children[control.id] ?? [];
      const inner = (branch: 0 | 1): Frame[] => [...frames, { id: control.id, kind: control.kind, branch, steps }];
      if (control.kind === 'if') {
        const indexed = new Set<VarName>();
        exprNames(control.cond, indexed, new Set());
        for (const x of indexed) use(x, steps.start);
        if (first !== undefined) visit(control.then, first, inner(0), `${path}/if #${control.id} then`);
        if (second !== undefined) visit(control.else, second, inner(1), `${path}/if #${control.id} else`);
        control.outs.forEach((o, k) => {
          if (o.kind !== 'array') return;
          flow(control.then.results[k]!, o.name);
          flow(control.else.results[k]!, o.name);
        });
      } else {
        const loop: WhileFacts = { node: control, steps, path: `${path}/while #${control.id}` };
        loops.push(loop);
        definedIn.set(control.id, new Set());
        for (const x of control.init) use(x, steps.start);
        // Params first: both blocks see the carried values from the start.
        control.outs.forEach((o, k) => {
          if (o.kind !== 'array') return;
          for (const prm of [control.cond.params[k], control.body.params[k]]) {
            if (prm === undefined) continue;
            loopParam.set(prm.name, { loop, position: k });
            flow(control.init[k]!, prm.name);
            flow(control.body.results[k]!, prm.name);
          }
          flow(control.init[k]!, o.name);
          flow(control.body.results[k]!, o.name);
        });
        if (first !== undefined) visit(control.cond, first, inner(0), `${loop.path} cond`);
        if (second !== undefined) visit(control.body, second, inner(1), `${loop.path} body`);
      }
      steps.end = step++;
      for (const o of control.outs) {
        if (o.kind === 'array') define(o.name, { kind: 'control-output', elem: o.elem, frames, def: steps.end, node: control.id, path }, frames);
      }
    });
    const blockEnd = step++;
    for (const r of b.results) use(r, blockEnd);

    // Scalar statements: evaluated no later than their first user (the block's end if none);
    // the arrays they index count as used there. One that nothing uses (directly or through
    // other scalars) reads memory no result can observe.
    const scalars = b.stmts.filter((s): s is Extract<Stmt, { kind: 'scalar' }> => s.kind === 'scalar');
    const latest = new Map<VarName, number>(scalars.map((s) => [s.name, blockEnd]));
    const observed = new Set<VarName>(b.results);
    const lower = (name: VarName, at: number): boolean => {
      const now = latest.get(name);
      if (now === undefined || now <= at) return false;
      latest.set(name, at);
      return true;
    };
    for (const s of b.stmts) {
      if (s.kind === 'scalar') continue;
      const at = nodeStep.get(s.id);
      if (at === undefined) continue;
      for (const x of stmtMentions(s, new Set())) {
        lower(x, at);
        observed.add(x);
      }
    }
    // Through other scalars: a scalar used by a scalar is evaluated no later than that one.
    const mentions = new Map(scalars.map((s) => [s.name, stmtMentions(s, new Set())] as const));
    for (let changed = true; changed; ) {
      changed = false;
      for (const s of scalars) {
        for (const x of mentions.get(s.name)!) {
          if (lower(x, latest.get(s.name)!)) changed = true;
          if (observed.has(s.name) && !observed.has(x)) {
            observed.add(x);
            changed = true;
          }
        }
      }
    }
    for (const s of scalars) {
      const indexed = new Set<VarName>();
      exprNames(s.expr, indexed, new Set());
      for (const x of indexed) use(x, latest.get(s.name)!, null, false, !observed.has(s.name));
    }
  };
  visit(program.body, root, [], 'root');
  return { names, uses, combinators, manifest, elided, flowsTo, flowsFrom, loopParam, loops, definedIn, donated };
}

// ---------------------------------------------------------------------------------------------
// Liveness of buffers
// ---------------------------------------------------------------------------------------------

interface Range {
  readonly start: number;
  readonly end: number;
}

class Liveness {
  private readonly lastUse = new Map<VarName, number>();
  private readonly aliasedBy = new Map<VarName, VarName[]>();
  private readonly ranges = new Map<VarName, Range>();

  constructor(
    private readonly facts: ProgramWalk,
    private readonly memory: MemoryPlan,
  ) {
    for (const u of facts.uses) {
      const at = this.lifted(u);
      this.lastUse.set(u.name, Math.max(this.lastUse.get(u.name) ?? -Infinity, at));
    }
    for (const [name, ref] of Object.entries(memory.buffers)) {
      if (ref.kind === 'alias') this.aliasedBy.set(ref.of, [...(this.aliasedBy.get(ref.of) ?? []), name]);
    }
  }

  /** A use's step seen from its name's own block: a loop in between is read to its end. */
  lifted(u: Use): number {
    const depth = this.facts.names.get(u.name)?.frames.length ?? 0;
    const loop = u.frames.slice(depth).find((f) => f.kind === 'while');
    return loop === undefined ? u.step : Math.max(u.step, loop.steps.end);
  }

  lastUseOf(name: VarName): number | undefined {
    return this.lastUse.get(name);
  }

  /** The names that may hold `name`'s memory: itself, its aliases, and what they flow into. */
  holders(name: VarName, through: 'flow-and-alias' | 'alias' = 'flow-and-alias'): Set<VarName> {
    const seen = new Set([name]);
    const todo = [name];
    while (todo.length > 0) {
      const x = todo.pop()!;
      const next = [...(this.aliasedBy.get(x) ?? []), ...(through === 'alias' ? [] : (this.facts.flowsTo.get(x) ?? []))];
      for (const y of next) {
        if (seen.has(y)) continue;
        seen.add(y);
        todo.push(y);
      }
    }
    return seen;
  }

  /** Where a buffer's contents are needed: from its array's definition to the last use of a holder, whole loops that carry it. */
  rangeOf(name: VarName): Range {
    const known = this.ranges.get(name);
    if (known !== undefined) return known;
    let start = this.facts.names.get(name)?.def ?? 0;
    let end = start;
    for (const h of this.holders(name)) {
      end = Math.max(end, this.lastUse.get(h) ?? -Infinity);
      const carried = this.facts.loopParam.get(h);
      if (carried !== undefined) {
        start = Math.min(start, carried.loop.steps.start);
        end = Math.max(end, carried.loop.steps.end);
      }
    }
    const range = { start, end };
    this.ranges.set(name, range);
    return range;
  }

  /** Whether a loop carries `name`'s memory to a later iteration. */
  carried(name: VarName): boolean {
    return [...this.holders(name)].some((h) => this.facts.loopParam.has(h));
  }

  /**
   * The arrays whose own buffers `name`'s value may be in: back through aliases, `if` outputs
   * and `while` params and outputs, to manifest arrays that are no alias, or inputs. `within`
   * keeps the search to some names (those of one iteration of a loop's body).
   */
  sources(name: VarName, within: (x: VarName) => boolean = () => true): Set<VarName> {
    const out = new Set<VarName>();
    const seen = new Set<VarName>();
    const todo = [name];
    while (todo.length > 0) {
      const x = todo.pop()!;
      if (seen.has(x)) continue;
      seen.add(x);
      if (!within(x)) continue;
      const ref = this.memory.buffers[x];
      if (ref !== undefined && ref.kind === 'alias') {
        todo.push(ref.of);
        continue;
      }
      const from = this.facts.flowsFrom.get(x);
      if (from !== undefined && ref === undefined) todo.push(...from);
      else out.add(x);
    }
    return out;
  }
}

function overlaps(a: Range, b: Range): boolean {
  return a.start <= b.end && b.start <= a.end;
}

type Report = (rule: MemoryRule, arrays: readonly VarName[], message: string) => void;

function where(facts: ProgramWalk, name: VarName): string {
  const f = facts.names.get(name);
  if (f === undefined) return name;
  switch (f.kind) {
    case 'input':
      return `${name} (an input)`;
    case 'block-param':
      return `${name} (a param of ${f.path})`;
    case 'combinator': {
      const n = facts.combinators.get(f.node!);
      return `${name} (${n?.kind ?? 'node'} #${f.node} in ${f.path})`;
    }
    case 'control-output':
      return `${name} (an output of #${f.node} in ${f.path})`;
    default:
      return f.kind satisfies never;
  }
}

function refText(ref: BufferRef): string {
  switch (ref.kind) {
    case 'slot':
      return `slot ${ref.slot}`;
    case 'pair':
      return `the pair of slots ${ref.slots[0]} and ${ref.slots[1]}`;
    case 'result':
      return `the buffer of result component ${ref.component}`;
    case 'alias':
      return `the memory of ${ref.of}`;
    case 'fresh':
      return 'a fresh allocation';
    default:
      return ref satisfies never;
  }
}

// ---------------------------------------------------------------------------------------------
// Rule 1: exactly the manifest arrays have buffers
// ---------------------------------------------------------------------------------------------

/** The arrays that must have a buffer: listed manifest, scatter outputs, elided copies' outputs. */
function mustHaveBuffers(facts: ProgramWalk): Set<VarName> {
  const out = new Set(facts.manifest.keys());
  for (const [id, n] of facts.combinators) {
    if (n.kind === 'scatter' || facts.elided.has(id)) for (const o of n.outs) out.add(o.name);
  }
  return out;
}

function checkBuffers(facts: ProgramWalk, memory: MemoryPlan, report: Report): void {
  const needed = mustHaveBuffers(facts);
  for (const [name, sites] of facts.manifest) {
    if (sites.length > 1) {
      report('buffers', [name], `${name} is listed as manifest ${sites.length} times (${sites.map((s) => `${s.block}, cluster ${s.cluster}`).join('; ')}); array names must be unique in a program`);
    }
  }
  for (const name of needed) {
    if (!Object.hasOwn(memory.buffers, name)) report('buffers', [name], `${where(facts, name)} is written to memory but the memory plan gives it no buffer`);
  }
  for (const name of Object.keys(memory.buffers)) {
    if (needed.has(name)) continue;
    const f = facts.names.get(name);
    const what =
      f === undefined ? 'is no array of the program'
      : f.kind === 'input' ? 'is an input (the caller owns its memory)'
      : f.kind === 'block-param' ? 'is a block parameter (it holds another array\'s memory)'
      : f.kind === 'control-output' ? 'is an output of control flow (it holds a branch\'s or an iteration\'s memory)'
      : 'is fused away (never written to memory)';
    report('buffers', [name], `the memory plan gives ${name} a buffer (${refText(memory.buffers[name]!)}), but ${name} ${what}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Rules 2–4: slots, pairs and their lives
// ---------------------------------------------------------------------------------------------

/** Whether two arrays are defined in different branches of one `if` (never both in one run of it). */
function exclusive(facts: ProgramWalk, a: VarName, b: VarName): boolean {
  const fa = facts.names.get(a)?.frames ?? [];
  const fb = facts.names.get(b)?.frames ?? [];
  for (let i = 0; i < Math.min(fa.length, fb.length); i++) {
    const x = fa[i]!;
    const y = fb[i]!;
    if (x.id !== y.id) return false;
    if (x.branch !== y.branch) return x.kind === 'if';
  }
  return false;
}

function checkSlots(facts: ProgramWalk, memory: MemoryPlan, liveness: Liveness, bytesOf: (name: VarName) => number | null, report: Report): void {
  /** Buffer key (`slot 3`, `result 0`) → the arrays in it. */
  const occupants = new Map<string, VarName[]>();
  const inSlot = new Map<number, Set<VarName>>();
  const occupy = (key: string, name: VarName): void => void occupants.set(key, [...(occupants.get(key) ?? []), name]);
  for (const [name, ref] of Object.entries(memory.buffers)) {
    const slots = ref.kind === 'slot' ? [ref.slot] : ref.kind === 'pair' ? [...ref.slots] : [];
    for (const s of slots) {
      if (!Number.isInteger(s) || s < 0 || s >= memory.slots.length) {
        report('capacity', [name], `${where(facts, name)} is placed in slot ${s}, but the plan has slots 0 to ${memory.slots.length - 1}`);
        continue;
      }
      occupy(`slot ${s}`, name);
      inSlot.set(s, (inSlot.get(s) ?? new Set()).add(name));
    }
    if (ref.kind === 'pair' && ref.slots[0] === ref.slots[1]) {
      report('pair', [name], `${where(facts, name)} has a pair of slots that is one slot (${ref.slots[0]}) twice: an iteration would overwrite the value the previous one left`);
    }
    if (ref.kind === 'result') occupy(`result ${ref.component}`, name);
  }

  // Rule 2: no two arrays in one buffer while both are live.
  for (const [key, members] of occupants) {
    for (let i = 0; i < members.length; i++) {
      for (let j = i + 1; j < members.length; j++) {
        const a = members[i]!;
        const b = members[j]!;
        if (a === b) continue;
        const ra = liveness.rangeOf(a);
        const rb = liveness.rangeOf(b);
        if (!overlaps(ra, rb)) continue;
        if (exclusive(facts, a, b) && !liveness.carried(a) && !liveness.carried(b)) continue;
        const pair = memory.buffers[a]?.kind === 'pair' || memory.buffers[b]?.kind === 'pair';
        report(pair ? 'pair' : 'overlap', [a, b],
          `${where(facts, a)} and ${where(facts, b)} share ${key} but are live at once (steps ${ra.start}–${ra.end} and ${rb.start}–${rb.end} of the checker's walk): one would overwrite the other${pair ? ' (a pair\'s slots are in use for the whole loop and while its output is read)' : ''}`);
      }
    }
  }

  // Rule 3: capacities, and each slot lists exactly its arrays.
  memory.slots.forEach((slot, s) => {
    const members = inSlot.get(s) ?? new Set<VarName>();
    const listed = new Set(slot.arrays);
    const unlisted = [...members].filter((m) => !listed.has(m));
    const stray = [...listed].filter((m) => !members.has(m));
    if (unlisted.length > 0) report('capacity', unlisted, `slot ${s} holds ${unlisted.join(', ')} (their buffers say so) but does not list ${unlisted.length === 1 ? 'it' : 'them'}`);
    if (stray.length > 0) report('capacity', stray, `slot ${s} lists ${stray.join(', ')}, whose buffer${stray.length === 1 ? ' is' : 's are'} not this slot`);
    if (slot.bytes === null) return;
    if (!Number.isFinite(slot.bytes) || slot.bytes < 0) {
      report('capacity', [...members],
        `slot ${s} (${[...members].join(', ') || 'no arrays'}) has ${slot.bytes} bytes, not a number of bytes a buffer can have (a size computed as negative means the run faults before the array exists: give the slot 0 bytes or size it at run time)`);
      return;
    }
    for (const m of members) {
      const need = bytesOf(m);
      if (need !== null && need > slot.bytes) {
        report('capacity', [m], `slot ${s} has ${slot.bytes} bytes but ${where(facts, m)} needs ${need}`);
      }
    }
  });

  // Rule 4: only a value a loop body computes and returns has a pair.
  for (const [name, ref] of Object.entries(memory.buffers)) {
    if (ref.kind !== 'pair') continue;
    const f = facts.names.get(name);
    const innermost = f?.frames[f.frames.length - 1];
    const w = innermost?.kind === 'while' && innermost.branch === 1 ? facts.loops.find((l) => l.node.id === innermost.id) : undefined;
    const returned = w !== undefined && [...liveness.holders(name, 'alias')].some((h) => w.node.body.results.includes(h));
    if (f?.kind !== 'combinator' || !returned) {
      report('pair', [name], `${where(facts, name)} has a pair of slots, but only an array a while body computes and returns (carried to the next iteration) may have one`);
    }
  }
}

/**
 * Loop-carried values in one buffer: iteration t+1 must not overwrite what iteration t left while
 * it is still read (a single slot or result buffer: read after the new value's definition; a
 * pair: read two iterations later, when the body returns a carried value in another position).
 */
function checkCarried(facts: ProgramWalk, memory: MemoryPlan, liveness: Liveness, report: Report): void {
  for (const loop of facts.loops) {
    const inside = facts.definedIn.get(loop.node.id)!;
    const body = loop.node.body;
    const params = (position: number): VarName[] =>
      [loop.node.cond.params[position], body.params[position]].filter((p) => p !== undefined && p.kind === 'array').map((p) => p!.name);
    const positions = new Map<VarName, number[]>();
    body.results.forEach((r, k) => {
      if (loop.node.outs[k]?.kind !== 'array') return;
      // This iteration's values only: the loop's own params hold the previous iteration's.
      for (const s of liveness.sources(r, (x) => inside.has(x) && facts.loopParam.get(x)?.loop !== loop)) {
        positions.set(s, [...(positions.get(s) ?? []), k]);
      }
    });
    for (const [s, ks] of positions) {
      const ref = memory.buffers[s];
      if (ref === undefined) continue;
      const def = facts.names.get(s)?.def ?? 0;
      const carriers = ks.flatMap(params);
      const held = new Set(carriers.flatMap((p) => [...liveness.holders(p)]));
      const innermost = facts.names.get(s)?.frames.filter((f) => f.kind === 'while').at(-1);
      const ownPair = ref.kind === 'pair' && innermost?.id === loop.node.id && innermost.branch === 1;
      if (ref.kind === 'slot' || ref.kind === 'result' || (ref.kind === 'pair' && !ownPair)) {
        // One buffer (or an inner loop's pair, written again when the inner loop runs again).
        const late = [...held].filter((h) => {
          const at = liveness.lastUseOf(h);
          return at !== undefined && at >= def && at <= loop.steps.end;
        });
        if (late.length > 0) {
          report('pair', [s, ...late],
            `${where(facts, s)} is carried to the next iteration of while #${loop.node.id} in one buffer (${refText(ref)}), but the next iteration computes it again while the previous value is still read (as ${late.join(', ')}): give it a pair of slots or a fresh buffer`);
        }
      } else if (ref.kind === 'pair') {
        const others = loop.node.outs.flatMap((o, m) => (o.kind === 'array' && !ks.includes(m) ? params(m) : []));
        const survivors = others.filter((p) => held.has(p));
        if (survivors.length > 0) {
          report('pair', [s, ...survivors],
            `${where(facts, s)} has a pair of slots in while #${loop.node.id}, but the body passes its value on to ${survivors.join(', ')}, so it is read two iterations later, when the pair's other slot is written again: a loop that returns a carried value in another position cannot use pairs`);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Rule 5: results
// ---------------------------------------------------------------------------------------------

function checkResults(program: Program, facts: ProgramWalk, memory: MemoryPlan, liveness: Liveness, report: Report): void {
  const components = program.results.flatMap((r) => r.components.map((c) => ({ iface: r.name, value: c })));
  const names = program.body.results;
  if (memory.results.length !== components.length) {
    report('results', [], `the memory plan delivers ${memory.results.length} result components but ${program.name} returns ${components.length}`);
  }
  const label = (k: number): string => {
    const c = components[k];
    return c === undefined ? `result component ${k}` : `result component ${k} (${c.iface}${c.value.name === c.iface ? '' : `: ${c.value.name}`})`;
  };
  components.forEach((c, k) => {
    const delivery = memory.results[k];
    if (delivery === undefined) return;
    const name = names[k]!;
    if (c.value.kind === 'scalar') {
      if (delivery !== 'scalar') report('results', [name], `${label(k)} is a scalar but is delivered as '${delivery}'`);
      return;
    }
    const sources = [...liveness.sources(name)];
    switch (delivery) {
      case 'scalar':
        report('results', [name], `${label(k)} is an array but is delivered as a scalar`);
        return;
      case 'copy':
        return;
      case 'direct': {
        const wrong = sources.filter((s) => {
          const ref = memory.buffers[s];
          return ref === undefined || ref.kind !== 'result' || ref.component !== k;
        });
        for (const s of wrong) {
          const ref = memory.buffers[s];
          report('results', [name, s],
            `${label(k)} is delivered 'direct', so ${where(facts, s)}, which it may be, must be written into that result's buffer; it is in ${ref === undefined ? 'memory the program does not plan (an input or a fused-away array)' : refText(ref)}: deliver it by 'copy'`);
        }
        return;
      }
      case 'donated': {
        const wrong = sources.filter((s) => !facts.donated.has(s));
        if (wrong.length > 0) {
          report('results', [name, ...wrong], `${label(k)} is delivered 'donated', but it may be ${wrong.map((s) => where(facts, s)).join(', ')}, which ${wrong.length === 1 ? 'is' : 'are'} no donated input's memory`);
        }
        return;
      }
      default:
        delivery satisfies never;
    }
  });
  // A result buffer holds only what becomes that result.
  for (const [name, ref] of Object.entries(memory.buffers)) {
    if (ref.kind !== 'result') continue;
    const k = ref.component;
    if (!Number.isInteger(k) || k < 0 || k >= components.length || components[k]!.value.kind !== 'array') {
      report('results', [name], `${where(facts, name)} is written into result component ${k}, which is no array result of ${program.name}`);
      continue;
    }
    if (!liveness.sources(names[k]!).has(name)) {
      report('results', [name], `${where(facts, name)} is written into the buffer of ${label(k)}, but that result is never ${name}`);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Rule 6: totals
// ---------------------------------------------------------------------------------------------

function checkTotals(memory: MemoryPlan, report: Report): void {
  const peak = memory.slots.reduce((a, s) => a + (s.bytes ?? 0), 0);
  const dynamic = memory.slots.filter((s) => s.bytes === null).length;
  if (memory.peakBytes !== peak) report('totals', [], `peakBytes is ${memory.peakBytes}, but the slots' static bytes sum to ${peak}`);
  if (memory.dynamicSlots !== dynamic) report('totals', [], `dynamicSlots is ${memory.dynamicSlots}, but ${dynamic} slot${dynamic === 1 ? ' is' : 's are'} sized at run time`);
}

// ---------------------------------------------------------------------------------------------
// Rule 7: aliases and in-place updates
// ---------------------------------------------------------------------------------------------

/** Whether a map is the identity on each of its inputs (a copy lowering inserted). */
function isIdentityCopy(n: MapNode): boolean {
  const fn = n.fn;
  return (
    fn.lets.length === 0 &&
    fn.params.length === n.inputs.length &&
    fn.results.length === fn.params.length &&
    fn.results.every((r, k) => r.kind === 'var' && r.name === fn.params[k]!.name) &&
    n.outs.length === n.inputs.length
  );
}

function checkAliases(facts: ProgramWalk, memory: MemoryPlan, liveness: Liveness, report: Report): void {
  for (const [name, ref] of Object.entries(memory.buffers)) {
    if (ref.kind !== 'alias') continue;
    const f = facts.names.get(name);
    const n = f?.kind === 'combinator' ? facts.combinators.get(f.node!) : undefined;
    const k = n?.outs.findIndex((o) => o.name === name) ?? -1;
    if (n !== undefined && n.kind === 'scatter') {
      if (n.dest[k] !== ref.of) {
        report('alias', [name, ref.of], `${where(facts, name)} is an alias of ${ref.of}, but the scatter's destination for it is ${n.dest[k]}`);
        continue;
      }
      checkInPlace(facts, memory, liveness, n, name, ref.of, report);
    } else if (n !== undefined && n.kind === 'map' && facts.elided.has(n.id) && isIdentityCopy(n)) {
      if (n.inputs[k] !== ref.of) report('alias', [name, ref.of], `${where(facts, name)} is an elided copy of ${n.inputs[k]}, not of ${ref.of}`);
    } else {
      report('alias', [name, ref.of],
        `${where(facts, name)} is given the memory of ${ref.of}, but only a scatter's output (over its destination) or a copy the plan elides (over its source) may share another array's memory`);
    }
  }
  // An elided copy writes nothing: its output must be its source's memory.
  for (const id of facts.elided) {
    const n = facts.combinators.get(id);
    if (n === undefined) continue;
    if (n.kind !== 'map' || !isIdentityCopy(n)) {
      report('alias', n.outs.map((o) => o.name), `the plan elides #${id}, a ${n.kind} that is no identity copy`);
      continue;
    }
    n.outs.forEach((o, k) => {
      const ref = memory.buffers[o.name];
      if (ref !== undefined && (ref.kind !== 'alias' || ref.of !== n.inputs[k])) {
        report('alias', [o.name], `${where(facts, o.name)} is a copy the plan elides, so it must be the memory of ${n.inputs[k]}, not ${refText(ref)}`);
      }
    });
  }
  // No alias cycles (where chains end is checked with each update, checkInPlace).
  for (const [name, ref] of Object.entries(memory.buffers)) {
    if (ref.kind !== 'alias') continue;
    const chain = [name];
    for (let x: BufferRef | undefined = ref; x !== undefined && x.kind === 'alias'; x = memory.buffers[x.of]) {
      if (chain.includes(x.of)) {
        report('alias', chain, `the aliases ${[...chain, x.of].join(' → ')} form a cycle: no array owns the memory`);
        break;
      }
      chain.push(x.of);
    }
  }
}

/**
 * A scatter `n` writing `out` over `dest` in place: the memory must be its block's own, the
 * scatter must read it only as its destination, and no one may read the old value afterwards.
 */
function checkInPlace(facts: ProgramWalk, memory: MemoryPlan, liveness: Liveness, n: CombinatorNode, out: VarName, dest: VarName, report: Report): void {
  const nf = facts.names.get(out)!;
  const at = nf.def;
  // The memory the update writes: back through aliases to its owner.
  let root = dest;
  for (let ref = memory.buffers[root], guard = 0; ref !== undefined && ref.kind === 'alias' && guard < 1000; ref = memory.buffers[root], guard++) root = ref.of;
  const rf = facts.names.get(root);
  const ownBlock = rf !== undefined && rf.frames.length === nf.frames.length && rf.frames.every((fr, i) => fr === nf.frames[i]);
  if (rf?.kind === 'block-param' && ownBlock && facts.loopParam.has(root)) {
    const notOwned = loopOwnership(facts, memory, root);
    if (notOwned === null) {
      checkLoopOwnedUpdate(facts, memory, liveness, n, out, dest, report);
      return;
    }
    report('alias', [out, root], `${where(facts, out)} updates ${where(facts, root)} in place, but the loop does not own it: ${notOwned}; copy the destination first`);
    return;
  }
  const owned = rf !== undefined && ownBlock && (rf.kind === 'combinator' || (rf.kind === 'input' && facts.donated.has(root)));
  if (!owned) {
    const why =
      rf?.kind === 'input' ? (ownBlock ? 'the caller did not donate it: inputs are never written' : 'an input may be updated only by the entry block')
      : rf?.kind === 'control-output' || rf?.kind === 'block-param' ? 'it may be another array\'s memory (an if or while passes it on unchanged)'
      : rf?.kind === 'combinator' ? 'it belongs to an enclosing block, which may read it again (a loop: on its next iteration)'
      : 'no array owns it';
    report('alias', [out, root], `${where(facts, out)} updates ${where(facts, root)} in place, but ${why}; copy the destination first`);
    return;
  }
  const newValue = liveness.holders(out);
  const old = [...liveness.holders(root)].filter((h) => !newValue.has(h));
  const oldSet = new Set(old);
  const own = combinatorUses(n);
  const selfReads = [...own.inputs, ...own.indexed].filter((x) => oldSet.has(x));
  if (selfReads.length > 0) {
    report('alias', [out, ...selfReads], `${where(facts, out)} updates ${dest} in place but reads ${selfReads.join(', ')} (the same memory) while it writes it`);
  }
  // A scalar nothing uses may read the updated memory: no result sees it (as the IR's rule has it).
  const late = facts.uses.filter((u) => oldSet.has(u.name) && !u.unobserved && !(u.by === n.id && u.dest && u.name === dest) && liveness.lifted(u) >= at);
  if (late.length > 0) {
    const names = [...new Set(late.map((u) => u.name))];
    report('alias', [out, ...names],
      `${where(facts, out)} updates ${dest} in place, but ${names.map((x) => where(facts, x)).join(', ')} ${names.length === 1 ? 'is' : 'are'} read at or after the update (the old value would be gone): copy the destination or read it first`);
  }
}

/** The array `name`'s memory is, back through aliases (itself when it has no alias). */
function aliasRoot(memory: MemoryPlan, name: VarName): VarName {
  let root = name;
  for (let ref = memory.buffers[root], guard = 0; ref !== undefined && ref.kind === 'alias' && guard < 1000; ref = memory.buffers[root], guard++) root = ref.of;
  return root;
}

/**
 * Whether the `while` whose body parameter is `p` owns the memory `p` holds (the IR's
 * loop-ownership rule, restated from the facts here, not src/ir/updates.ts): null when it does,
 * else why not. It does when the body's result at p's position is p's memory updated (an alias
 * chain down to p), no other position's result is that memory, no `if` or inner loop of the body
 * passes p on, and the loop's initial value there is a combinator output of the enclosing block
 * that nothing but the loop's start reads and that flows nowhere but into this position.
 */
function loopOwnership(facts: ProgramWalk, memory: MemoryPlan, p: VarName): string | null {
  const lp = facts.loopParam.get(p)!;
  const w = lp.loop.node;
  const k = lp.position;
  if (w.body.params[k]?.name !== p) return `${p} is not a parameter of the loop's body`;
  const result = w.body.results[k]!;
  if (result === p || aliasRoot(memory, result) !== p) return `the body's result ${result} is not ${p} updated in place`;
  const other = w.body.results.find((r, j) => j !== k && (r === p || r === result || aliasRoot(memory, r) === p));
  if (other !== undefined) return `${other} carries the same memory in another position`;
  if ((facts.flowsTo.get(p) ?? []).length > 0) return `${(facts.flowsTo.get(p) ?? []).join(', ')} may hold ${p} too (an if or while passes it on)`;
  const x = w.init[k]!;
  const xf = facts.names.get(x);
  const p0 = facts.names.get(p)!;
  const outer = p0.frames.slice(0, -1);
  const sameFrames = (fr: readonly Frame[]): boolean => fr.length === outer.length && fr.every((f, i) => f === outer[i]);
  if (xf === undefined || xf.kind !== 'combinator' || !sameFrames(xf.frames)) return `its initial value ${x} is not an array a combinator of the enclosing block computes`;
  const expected = new Set([w.cond.params[k]?.name, p, w.outs[k]?.name]);
  if ((facts.flowsTo.get(x) ?? []).some((y) => !expected.has(y))) return `its initial value ${x} may be held by another name (an if or while passes it on, or it starts another position)`;
  const reads = facts.uses.filter((u) => u.name === x);
  if (reads.length !== 1 || reads[0]!.step !== lp.loop.steps.start || !sameFrames(reads[0]!.frames)) {
    return `its initial value ${x} is read by more than the loop's start (it is still needed elsewhere)`;
  }
  return null;
}

/**
 * The update of `dest`, whose memory is a loop-owned parameter's (`dest` itself or an update of
 * it), reads none of the names on its alias chain but as its destination, and no one reads them
 * at or after it: the old value is gone once it runs.
 */
function checkLoopOwnedUpdate(facts: ProgramWalk, memory: MemoryPlan, liveness: Liveness, n: CombinatorNode, out: VarName, dest: VarName, report: Report): void {
  const at = facts.names.get(out)!.def;
  const chain = new Set<VarName>([dest]);
  for (let ref = memory.buffers[dest], guard = 0; ref !== undefined && ref.kind === 'alias' && guard < 1000; ref = memory.buffers[ref.of], guard++) chain.add(ref.of);
  const own = combinatorUses(n);
  const selfReads = [...own.inputs, ...own.indexed].filter((x) => chain.has(x));
  if (selfReads.length > 0) {
    report('alias', [out, ...selfReads], `${where(facts, out)} updates ${dest} in place but reads ${selfReads.join(', ')} (the same memory) while it writes it`);
  }
  const late = facts.uses.filter((u) => chain.has(u.name) && !u.unobserved && !(u.by === n.id && u.dest && u.name === dest) && liveness.lifted(u) >= at);
  if (late.length > 0) {
    const names = [...new Set(late.map((u) => u.name))];
    report('alias', [out, ...names], `${where(facts, out)} updates the loop's memory of ${dest} in place, but ${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} read at or after the update (the old value would be gone): copy the destination or read it first`);
  }
}
