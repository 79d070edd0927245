// When may a scatter update its destination in place? The one definition of the IR's rule
// (types.ts, ScatterNode): lowering copies every destination this finds a hazard for
// (src/lower/finish.ts), and the IR verifier rejects a program where any remains
// (src/ir/verify.ts), so a pass that breaks the rule is caught instead of miscompiled. It
// applies to every combinator whose rule updates in place (rules.ts `updatesInPlace`; a
// scatter is the one today): its destination is its reads in that role, its other inputs and
// lambdas are what it must not read the destination through.
//
// The interpreter gives scatter value semantics: it returns a new array. An in-place update is
// the same only when nothing can observe the old array after the first element is written:
//  - the destination's memory belongs to this block: it is the output of one of the block's
//    combinators, not a parameter, an array from outside, or the output of an `if` / `while`
//    (which may be another array's memory: a branch or zero iterations return it as it is);
//  - no other name of the block may share that memory (an `if` or `while` output that may
//    return the destination), since the dependence graph does not see through such aliases;
//  - the scatter itself does not read it: not as its index or values arrays, not by indexing
//    in `op`, directly or through scalar statements (every element of `op` would see a
//    half-updated array);
//  - nothing after the scatter in its block uses it, directly or through a scalar statement
//    (a scalar is evaluated as soon as what it reads exists, which the plan may put after the
//    scatter), and it is no block result.
// Readers that come *before* the scatter are ordered by the dependence graph's precedences
// (src/graph/build.ts; the plan validator checks them again): they run strictly earlier.
//
// A copy whose only hazards are later readers that are nodes is *elidable* (`elidableCopies`):
// the plan may remove it and run those readers before the scatter instead (docs/PLANNING.md
// "In-place updates"). An entry parameter the caller donated is the program's memory: updating
// it in the entry block is no `not-owned` hazard (`inPlaceHazards`' `donated`). Likewise a
// `while` body parameter the loop owns (`loopOwnedParams`, at the end) in the loop's body.

import { combinatorInputs, combinatorRule, inPlaceDestinations, rolesOf, type InPlaceUpdate } from './rules.js';
import { isCombinator, type Block, type CombinatorKind, type CombinatorNode, type MapNode, type NodeId, type Stmt, type VarName, type WhileNode } from './types.js';
import { blockFreeVars, combinatorLambdas, lambdaUses, scalarIndexedArrays, stmtFreeVars } from './walk.js';

/** The rule by which a statement updates arrays in place, or null when it updates none. */
export function inPlaceUpdateOf(s: Stmt): InPlaceUpdate<CombinatorKind> | null {
  return isCombinator(s) ? combinatorRule(s).updatesInPlace : null;
}

/**
 * What makes an in-place update observable (the list in the header):
 *  - `not-owned`: the destination is not an output of a combinator of the block;
 *  - `alias`: an `if` / `while` output of the block may share its memory;
 *  - `reads-self`: the update reads it as its index or values;
 *  - `op-reads`: its op reads it, directly or through a scalar statement;
 *  - `later-use`: a statement after the update uses it (`by`), directly or through a scalar;
 *  - `result`: it is a block result, or a result scalar reads it.
 * Only `later-use` by a combinator or control-flow node can be met by planning instead of a
 * copy (the reader runs before the update: `elidableCopies`); the others need the copy.
 */
export type InPlaceHazard =
  | { readonly kind: 'not-owned' | 'alias' | 'reads-self' | 'op-reads' | 'result'; readonly dest: VarName; readonly message: string }
  | { readonly kind: 'later-use'; readonly dest: VarName; readonly by: Stmt; readonly message: string };

/**
 * Why the combinator at `b.stmts[k]` (one that updates in place) may not update its destination
 * in place: one hazard per reason (one `later-use` per later statement), empty when the update
 * is unobservable. `donated` names parameters of `b` whose memory is `b`'s to update (the entry
 * block's donated parameters, a `while` body's loop-owned ones): updating one is no `not-owned`
 * hazard. Throws if it does not update in
 * place.
 */
export function inPlaceHazards(b: Block, k: number, donated: ReadonlySet<VarName> = new Set()): InPlaceHazard[] {
  const s = b.stmts[k];
  const update = s === undefined ? null : inPlaceUpdateOf(s);
  if (s === undefined || !isCombinator(s) || update === null) throw new Error(`inPlaceHazards: statement ${k} updates nothing in place`);
  const destinations = inPlaceDestinations(s);
  const sources = combinatorInputs(s).filter((r) => r.role !== update.role).map((r) => r.name);
  const hazards: InPlaceHazard[] = [];
  const viaScalars = scalarIndexedArrays(b);
  const reachedBy = (names: Iterable<VarName>): Set<VarName> => {
    const out = new Set<VarName>();
    for (const n of names) {
      out.add(n);
      for (const a of viaScalars.get(n) ?? []) out.add(a);
    }
    return out;
  };
  const owned = combinatorOutputs(b);
  for (const dest of destinations) {
    if (!owned.has(dest) && !donated.has(dest)) {
      hazards.push({ kind: 'not-owned', dest, message: `its destination ${dest} is not an array a combinator of this block produces (its memory may belong to someone else)` });
      continue;
    }
    const aliases = mayAlias(b, dest);
    const others = [...aliases].filter((a) => a !== dest);
    if (others.length > 0) hazards.push({ kind: 'alias', dest, message: `its destination ${dest} may share its memory with ${others.join(', ')} (an if or while output)` });
    const own = sources.filter((a) => aliases.has(a));
    if (own.length > 0) hazards.push({ kind: 'reads-self', dest, message: `it reads its destination ${dest} as its ${sourceRolesText(s, update.role)} (${own.join(', ')})` });
    const opUses = combinatorLambdas(s).map(lambdaUses);
    const byOp = [...reachedBy(opUses.flatMap((u) => [...u.indexed, ...u.scalars]))].filter((a) => aliases.has(a));
    if (byOp.length > 0) hazards.push({ kind: 'op-reads', dest, message: `its op reads its destination ${dest} (${byOp.join(', ')}), directly or through a scalar statement` });
    for (const later of b.stmts.slice(k + 1)) {
      if (![...reachedBy(stmtFreeVars(later))].some((a) => aliases.has(a))) continue;
      hazards.push({ kind: 'later-use', dest, by: later, message: `its destination ${dest} is used after it (by a ${later.kind}${stmtName(later)})` });
    }
    if ([...reachedBy(b.results)].some((a) => aliases.has(a))) hazards.push({ kind: 'result', dest, message: `its destination ${dest} is a result of the block, or read by one` });
  }
  return hazards;
}

/**
 * A copy lowering inserted before an in-place update (`copy = map(id, sources)`, read by the
 * update alone as its destination) that planning may remove: the update then writes the
 * sources' memory itself. Safe exactly when, with the copy gone, every hazard left is a later
 * use by a combinator or control-flow node — a reader the plan can schedule before the update
 * (src/graph/build.ts turns these into the ILP's elision choices, docs/PLANNING.md "In-place
 * updates"). The sources are outputs of one combinator of the block (`producer`), so its
 * cluster can write them where the copy would have been written.
 */
export interface ElidableCopy {
  readonly copy: NodeId;
  readonly scatter: NodeId;
  readonly producer: NodeId;
  /** The copy's inputs, by destination component: what the update writes when the copy is elided. */
  readonly sources: readonly VarName[];
}

/**
 * The copies of `b` that planning may elide (see ElidableCopy). Derived from the IR by the one
 * rule above (no mark on the IR to keep in step through passes): the block with the copy
 * removed and the update pointed at the sources must have only `later-use` hazards, each by a
 * combinator or control-flow node, and no other update may write a source in place.
 */
export function elidableCopies(b: Block): ElidableCopy[] {
  const out: ElidableCopy[] = [];
  const viaScalars = scalarIndexedArrays(b);
  const uses = (names: Iterable<VarName>): Set<VarName> => {
    const acc = new Set<VarName>();
    for (const n of names) {
      acc.add(n);
      for (const a of viaScalars.get(n) ?? []) acc.add(a);
    }
    return acc;
  };
  b.stmts.forEach((s, k) => {
    const update = inPlaceUpdateOf(s);
    if (update === null || !isCombinator(s)) return;
    const dest = inPlaceDestinations(s);
    const j = b.stmts.findIndex((t) => t.kind === 'map' && t.outs.length === dest.length && t.outs.every((o, i) => o.name === dest[i]));
    if (j < 0 || j > k) return;
    const copy = b.stmts[j] as MapNode;
    if (!isIdentity(copy)) return;
    // The update as it stands is unobserved (the verifier's rule), and nothing else reads the copy.
    if (inPlaceHazards(b, k).length > 0) return;
    const isDest = (names: Iterable<VarName>): boolean => [...uses(names)].some((n) => dest.includes(n));
    if (b.stmts.some((t, i) => i !== k && i !== j && isDest(stmtFreeVars(t))) || isDest(b.results)) return;
    // Another update of a source writes it too: running it first would still change what the
    // scatter updates (lowering's copy for it stays, or it updates the source as its last use).
    if (b.stmts.some((t, i) => i !== k && inPlaceUpdateOf(t) !== null && isCombinator(t) && inPlaceDestinations(t).some((d) => copy.inputs.includes(d)))) return;
    const producer = b.stmts.find((t) => isCombinator(t) && copy.inputs.every((x) => t.outs.some((o) => o.name === x)));
    if (producer === undefined || !isCombinator(producer)) return;
    const stmts = b.stmts.filter((_, i) => i !== j).map((t) => (t === s ? update.updating(s, copy.inputs) : t));
    const hazards = inPlaceHazards({ ...b, stmts }, k - 1);
    if (!hazards.every((h) => h.kind === 'later-use' && h.by.kind !== 'scalar')) return;
    out.push({ copy: copy.id, scatter: s.id, producer: producer.id, sources: copy.inputs });
  });
  return out;
}

/** A `map` returning its parameters unchanged, in order, each input a different array. */
function isIdentity(m: MapNode): boolean {
  const { params, lets, results } = m.fn;
  return (
    lets.length === 0 &&
    params.length === m.inputs.length &&
    results.length === params.length &&
    m.outs.length === params.length &&
    new Set(m.inputs).size === m.inputs.length &&
    results.every((r, i) => r.kind === 'var' && r.name === params[i]!.name)
  );
}

/** Its other input roles in words, the kind's prefix dropped: a scatter's `index or values`. */
function sourceRolesText(s: CombinatorNode, destRole: string): string {
  const roles = rolesOf(s.kind).filter((r) => r !== destRole && r !== 'indexed');
  return roles.map((r) => r.slice(r.indexOf('-') + 1)).join(' or ');
}

function stmtName(s: Stmt): string {
  if (s.kind === 'scalar') return ` ${s.name}`;
  return ` #${s.id}`;
}

/** Arrays of `b` whose memory a combinator of `b` allocates (a scatter's: its destination's). */
function combinatorOutputs(b: Block): Set<VarName> {
  const out = new Set<VarName>();
  for (const s of b.stmts) if (isCombinator(s)) for (const o of s.outs) out.add(o.name);
  return out;
}

/**
 * The names of `b` (and of blocks nested in it) that may hold `name`'s memory: `name`, and the
 * array outputs of control-flow nodes that may return it unchanged. An `if` output aliases what
 * its branch results may alias; a `while` output may be any initial value (zero iterations) or
 * any body result, so if any of them may alias, every array output of the `while` may.
 */
export function mayAlias(b: Block, name: VarName): Set<VarName> {
  return aliasesIn(b, new Set([name]));
}

function aliasesIn(b: Block, seed: ReadonlySet<VarName>): Set<VarName> {
  const aliases = new Set(seed);
  for (const s of b.stmts) {
    if (s.kind === 'if') {
      const inThen = aliasesIn(s.then, aliases);
      const inElse = aliasesIn(s.else, aliases);
      s.outs.forEach((o, i) => {
        if (o.kind === 'array' && (inThen.has(s.then.results[i]!) || inElse.has(s.else.results[i]!))) aliases.add(o.name);
      });
    } else if (s.kind === 'while') {
      const inBody = aliasesIn(s.body, aliases);
      const carried = s.init.some((n) => aliases.has(n)) || s.body.results.some((r) => inBody.has(r));
      if (carried) for (const o of s.outs) if (o.kind === 'array') aliases.add(o.name);
    }
  }
  return aliases;
}

// ---------------------------------------------------------------------------------------------
// Loop-owned carried arrays
// ---------------------------------------------------------------------------------------------
//
// A `while` body parameter p (carried position k) is *loop-owned* when the loop may update the
// memory it holds in place, iteration after iteration, instead of copying it each time:
//  (a) the body's result at k is the output of an in-place update of the body whose destination
//      is p (directly, or through a chain of in-place updates of the body's own outputs);
//  (b) no other result position may share that memory: neither p nor any name that may alias
//      the result at k (an `if` / `while` output) is a result at another position;
//  (c) the update of p is unobserved but for `not-owned`: `inPlaceHazards` with p given finds
//      nothing (p not read by the update, nothing after it uses p, no alias of p in the body);
//  (d) the loop owns the initial value `init[k]`: it is the output of a combinator of the
//      enclosing block that nothing else reads — no other statement, not this loop's cond or
//      body, no other init position, no block result, no scalar statement. Lowering makes it so
//      by copying the init once before the loop (src/lower/finish.ts) when it is not.
// Then the memory that enters the loop is the loop's alone: iteration t updates what iteration
// t − 1 produced, which nothing else can see, and the loop's output is that memory (the init
// itself after zero iterations, which nothing else reads either). The cond block only reads its
// parameters before each iteration's update.

/** The positions of `w`'s body parameters that satisfy (a)–(c), with the parameter's name. */
export function loopOwnableParams(w: WhileNode): Map<number, VarName> {
  const body = w.body;
  const out = new Map<number, VarName>();
  body.params.forEach((p, k) => {
    if (p.kind !== 'array') return;
    const update = updateChainTo(body, body.results[k]!, p.name);
    if (update === null) return;
    const resultAliases = mayAlias(body, body.results[k]!);
    const paramAliases = mayAlias(body, p.name);
    const elsewhere = body.results.some((r, j) => j !== k && (resultAliases.has(r) || paramAliases.has(r)));
    if (elsewhere || body.results[k] === p.name) return;
    if (inPlaceHazards(body, update, new Set([p.name])).length > 0) return;
    out.set(k, p.name);
  });
  return out;
}

/**
 * The index of the in-place update of `b` whose destination is `param` and whose output, through
 * a chain of in-place updates of `b`'s own outputs, is `result`; null when there is none.
 */
function updateChainTo(b: Block, result: VarName, param: VarName): number | null {
  let name = result;
  for (let guard = 0; guard <= b.stmts.length; guard++) {
    const k = b.stmts.findIndex((s) => isCombinator(s) && s.outs.some((o) => o.name === name));
    const s = b.stmts[k];
    if (s === undefined || !isCombinator(s) || inPlaceUpdateOf(s) === null) return null;
    const dest = inPlaceDestinations(s)[s.outs.findIndex((o) => o.name === name)];
    if (dest === undefined) return null;
    if (dest === param) return k;
    name = dest;
  }
  return null;
}

/** Whether the block `b` owns `w.init[k]` for the `while` at `b.stmts[i]` (condition (d)). */
export function loopOwnsInit(b: Block, i: number, k: number): boolean {
  const w = b.stmts[i];
  if (w === undefined || w.kind !== 'while') throw new Error(`loopOwnsInit: statement ${i} is no while`);
  const x = w.init[k];
  if (x === undefined || !combinatorOutputs(b).has(x)) return false;
  if (w.init.filter((n) => n === x).length !== 1) return false;
  const viaScalars = scalarIndexedArrays(b);
  const reads = (names: Iterable<VarName>): boolean => [...names].some((n) => n === x || (viaScalars.get(n)?.has(x) ?? false));
  if (reads(blockFreeVars(w.cond)) || reads(blockFreeVars(w.body)) || reads(b.results)) return false;
  return b.stmts.every((s, j) => j === i || !reads(stmtFreeVars(s)));
}

/**
 * The body parameters of the `while` at `b.stmts[i]` that are loop-owned (all of (a)–(d)): the
 * body's in-place updates may write them (`inPlaceHazards`' given set for the body).
 */
export function loopOwnedParams(b: Block, i: number): Set<VarName> {
  const w = b.stmts[i];
  if (w === undefined || w.kind !== 'while') throw new Error(`loopOwnedParams: statement ${i} is no while`);
  const out = new Set<VarName>();
  for (const [k, p] of loopOwnableParams(w)) if (loopOwnsInit(b, i, k)) out.add(p);
  return out;
}
