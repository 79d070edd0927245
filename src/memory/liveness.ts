// Liveness for the memory planner: execution steps, every array's own live range in steps, the
// alias classes, and the facts about where each array comes from that the planner's decisions
// need (src/memory/NOTES.md has the reasoning).
//
// Steps: one per plan cluster, numbered by a depth-first walk of the plan — a block's clusters in
// order, a control node's cluster followed by the steps of its blocks (`if`: then, else; `while`:
// cond, body) — so a control node covers an interval [its step, its last nested step]. A range
// is an inclusive interval of steps. Ranges are program points, not time: a `while` body's steps
// repeat every iteration, which is sound because an array defined in the body dies in the same
// iteration unless it is carried, and carried values belong to the loop's alias class, whose range
// covers the whole loop.

import { CompilerBug } from '../diagnostics/index.js';
import { inPlaceDestinations } from '../ir/rules.js';
import { exprUses, stmtFreeVars } from '../ir/walk.js';
import { isCombinator, type Block, type CombinatorNode, type IfNode, type NodeId, type Program, type ScalarType, type Stmt, type VarName, type WhileNode } from '../ir/types.js';
import { loopOwnedParams } from '../ir/updates.js';
import type { BlockPlan, Plan } from '../plan/types.js';

export interface Interval {
  readonly start: number;
  readonly end: number;
}

/** How an array comes to exist. */
export type Origin =
  /** An entry parameter (the caller's memory). */
  | { readonly kind: 'entry'; readonly donated: boolean }
  /** An output of a combinator that writes memory of its own when manifest. */
  | { readonly kind: 'combinator'; readonly node: CombinatorNode; readonly elem: ScalarType }
  /** A scatter's output: its destination updated in place (`dest`), or a copy of it when `dest` is not the block's own. */
  | { readonly kind: 'in-place'; readonly node: CombinatorNode; readonly dest: VarName; readonly owned: boolean }
  /** The output of a copy the plan elided: the memory of `source`. */
  | { readonly kind: 'elided'; readonly node: CombinatorNode; readonly source: VarName }
  /** An `if` output: whichever branch result ran. */
  | { readonly kind: 'if-out'; readonly node: IfNode; readonly k: number }
  /** A `while` output, or a parameter of its condition or body: a carried value. */
  | { readonly kind: 'while-out' | 'while-param'; readonly node: WhileNode; readonly k: number };

/** Where an array is defined: its block, the `if` branches and `while` bodies around it. */
export interface Place {
  readonly block: Block;
  /** `${if id}:then` / `${if id}:else`, outermost first. */
  readonly branches: readonly string[];
  /** Ids of the `while` loops whose blocks contain it, outermost first. */
  readonly loops: readonly NodeId[];
}

export interface LoopFacts {
  readonly node: WhileNode;
  /** The loop's interval of steps. */
  readonly steps: Interval;
  /** Every array defined inside the loop's blocks, at any depth (parameters included). */
  readonly inside: ReadonlySet<VarName>;
}

export interface Liveness {
  /** Number of steps (plan clusters). */
  readonly steps: number;
  /** Each array's own range: from its definition to its last use. */
  readonly own: ReadonlyMap<VarName, Interval>;
  readonly origin: ReadonlyMap<VarName, Origin>;
  readonly place: ReadonlyMap<VarName, Place>;
  /** The alias class representative of each array (arrays absent: a class of their own). */
  readonly classOf: (name: VarName) => VarName;
  /** The range of an array's alias class: the hull of its members' own ranges. */
  readonly classRange: (name: VarName) => Interval;
  /** Manifest arrays in the order their clusters run (scatter outputs and elided copies included). */
  readonly manifest: readonly VarName[];
  readonly loops: readonly LoopFacts[];
}

function bug(message: string): CompilerBug {
  return new CompilerBug('memory', message);
}

const hull = (a: Interval | undefined, b: Interval): Interval => (a === undefined ? b : { start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) });

/** Steps, ranges, origins and alias classes of a program under a plan. */
export function liveness(program: Program, plan: Plan): Liveness {
  const own = new Map<VarName, Interval>();
  const origin = new Map<VarName, Origin>();
  const place = new Map<VarName, Place>();
  const manifest: VarName[] = [];
  const manifestSeen = new Set<VarName>();
  const loops: LoopFacts[] = [];
  const parent = new Map<VarName, VarName>();
  let step = 0;

  const touch = (name: VarName, at: Interval): void => {
    own.set(name, hull(own.get(name), at));
  };
  const find = (name: VarName): VarName => {
    let root = name;
    while (parent.has(root)) root = parent.get(root)!;
    for (let n = name; n !== root; ) {
      const next = parent.get(n)!;
      parent.set(n, root);
      n = next;
    }
    return root;
  };
  const union = (a: VarName, b: VarName): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(rb, ra);
  };
  const define = (name: VarName, o: Origin, where: Place): void => {
    if (origin.has(name)) throw bug(`${JSON.stringify(name)} is defined twice (SSA names must be unique)`);
    origin.set(name, o);
    place.set(name, where);
  };
  const addManifest = (name: VarName): void => {
    if (manifestSeen.has(name)) return;
    manifestSeen.add(name);
    manifest.push(name);
  };

  const flatParams = program.params.flatMap((p) => p.components.map((c) => ({ c, donated: p.donated === true })));
  const rootPlace: Place = { block: program.body, branches: [], loops: [] };
  program.body.params.forEach((p, k) => {
    define(p.name, { kind: 'entry', donated: flatParams[k]?.donated ?? false }, rootPlace);
    touch(p.name, { start: 0, end: 0 });
  });

  /** Walks a block; returns its last step (or `fallback` when it has no cluster). */
  const walk = (b: Block, bp: BlockPlan, where: Place, fallback: number, loopOwned: ReadonlySet<VarName> = new Set()): number => {
    const byId = new Map<NodeId, Exclude<Stmt, { kind: 'scalar' }>>();
    for (const s of b.stmts) if (s.kind !== 'scalar') byId.set(s.id, s);
    const elided = new Set(bp.elided ?? []);
    const ownedHere = new Set<VarName>();
    for (const s of b.stmts) if (isCombinator(s)) for (const o of s.outs) ownedHere.add(o.name);
    const uses: { readonly names: ReadonlySet<VarName>; readonly at: Interval }[] = [];

    for (const cluster of bp.clusters) {
      const t = step++;
      const nodes = cluster.nodes.map((id) => {
        const n = byId.get(id);
        if (n === undefined) throw bug(`the plan names node ${id}, which is not in its block`);
        return n;
      });
      let at: Interval = { start: t, end: t };
      for (const n of nodes) {
        if (n.kind === 'if' || n.kind === 'while') {
          const children = bp.children[n.id];
          if (children === undefined || children.length !== 2) throw bug(`no plans for the blocks of node ${n.id}`);
          at = n.kind === 'if' ? walkIf(n, children, where, t) : walkWhile(n, children, where, t, loopOwnedParams(b, b.stmts.indexOf(n)));
          n.outs.forEach((o, k) => {
            if (o.kind !== 'array') return;
            define(o.name, n.kind === 'if' ? { kind: 'if-out', node: n, k } : { kind: 'while-out', node: n, k }, where);
            touch(o.name, { start: at.end, end: at.end });
          });
          continue;
        }
        const dests = inPlaceDestinations(n);
        n.outs.forEach((o, k) => {
          let o2: Origin;
          if (dests.length > 0) {
            const dest = dests[k]!;
            const destOrigin = origin.get(dest);
            const owned = ownedHere.has(dest) || loopOwned.has(dest) || (destOrigin?.kind === 'entry' && destOrigin.donated);
            o2 = { kind: 'in-place', node: n, dest, owned };
            if (owned) union(dest, o.name);
            addManifest(o.name);
          } else if (elided.has(n.id) && n.kind === 'map') {
            o2 = { kind: 'elided', node: n, source: n.inputs[k]! };
            union(n.inputs[k]!, o.name);
            addManifest(o.name);
          } else {
            o2 = { kind: 'combinator', node: n, elem: o.elem };
          }
          define(o.name, o2, where);
          touch(o.name, at);
        });
      }
      for (const name of cluster.manifest) addManifest(name);
      const names = new Set<VarName>();
      for (const n of nodes) for (const name of stmtFreeVars(n, false)) names.add(name);
      uses.push({ names, at });
    }
    const blockEnd = bp.clusters.length === 0 ? fallback : step - 1;

    // Arrays a cluster reads (by role or index) and scalar statements it uses.
    const scalarFirstUse = new Map<VarName, number>();
    const scalarStmts = b.stmts.filter((s) => s.kind === 'scalar');
    const scalarNames = new Set(scalarStmts.map((s) => s.name));
    for (const u of uses) {
      for (const name of u.names) {
        if (scalarNames.has(name)) scalarFirstUse.set(name, Math.min(scalarFirstUse.get(name) ?? Infinity, u.at.start));
        else touch(name, u.at);
      }
    }
    for (const r of b.results) {
      if (scalarNames.has(r)) scalarFirstUse.set(r, blockEnd);
      else touch(r, { start: blockEnd, end: blockEnd });
    }
    // A scalar statement runs as soon as what it reads exists, and before the first cluster that
    // uses it (directly or through later scalar statements); one nothing uses may run at the end.
    for (let k = scalarStmts.length - 1; k >= 0; k--) {
      const s = scalarStmts[k]!;
      const uses = exprUses(s.expr);
      const first = scalarFirstUse.get(s.name) ?? blockEnd;
      for (const name of uses.scalars) if (scalarNames.has(name)) scalarFirstUse.set(name, Math.min(scalarFirstUse.get(name) ?? Infinity, first));
      for (const a of uses.indexed) touch(a, { start: first, end: first });
    }
    return blockEnd;
  };

  const walkIf = (n: IfNode, children: readonly BlockPlan[], where: Place, t: number): Interval => {
    const inThen: Place = { block: n.then, branches: [...where.branches, `${n.id}:then`], loops: where.loops };
    const inElse: Place = { block: n.else, branches: [...where.branches, `${n.id}:else`], loops: where.loops };
    walk(n.then, children[0]!, inThen, t);
    walk(n.else, children[1]!, inElse, t);
    const at = { start: t, end: Math.max(t, step - 1) };
    n.outs.forEach((o, k) => {
      if (o.kind !== 'array') return;
      union(o.name, n.then.results[k]!);
      union(o.name, n.else.results[k]!);
    });
    return at;
  };

  const walkWhile = (n: WhileNode, children: readonly BlockPlan[], where: Place, t: number, loopOwned: ReadonlySet<VarName>): Interval => {
    const inside: Place = { block: n.body, branches: where.branches, loops: [...where.loops, n.id] };
    const definedBefore = new Set(origin.keys());
    n.cond.params.forEach((p, k) => {
      if (p.kind === 'array') define(p.name, { kind: 'while-param', node: n, k }, { ...inside, block: n.cond });
    });
    n.body.params.forEach((p, k) => {
      // The verifier wants every name once, but a hand-built loop may name a carried value alike
      // in its cond and body: one value, one origin.
      const same = origin.get(p.name);
      if (same?.kind === 'while-param' && same.node === n && same.k === k) return;
      if (p.kind === 'array') define(p.name, { kind: 'while-param', node: n, k }, inside);
    });
    walk(n.cond, children[0]!, { ...inside, block: n.cond }, t);
    walk(n.body, children[1]!, inside, t, loopOwned);
    const at = { start: t, end: Math.max(t, step - 1) };
    for (const p of [...n.cond.params, ...n.body.params]) if (p.kind === 'array') touch(p.name, at);
    n.outs.forEach((o, k) => {
      if (o.kind !== 'array') return;
      for (const m of [n.init[k]!, n.cond.params[k]!.name, n.body.params[k]!.name, n.body.results[k]!]) union(o.name, m);
    });
    loops.push({ node: n, steps: at, inside: new Set([...origin.keys()].filter((name) => !definedBefore.has(name))) });
    return at;
  };

  const last = walk(program.body, plan.root, rootPlace, 0);
  for (const r of program.body.results) if (origin.get(r) !== undefined) touch(r, { start: last, end: last });

  const classRanges = new Map<VarName, Interval>();
  for (const [name, range] of own) classRanges.set(find(name), hull(classRanges.get(find(name)), range));
  return {
    steps: step,
    own,
    origin,
    place,
    classOf: find,
    classRange: (name) => {
      const range = classRanges.get(find(name));
      if (range === undefined) throw bug(`no range for ${JSON.stringify(name)}`);
      return range;
    },
    manifest,
    loops,
  };
}
