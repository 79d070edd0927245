// Register blocking of contractions: unroll-and-jam of a loop over outputs around a fold loop.
//
// A matrix product in combinator form, `fold(+, zipWith(*, gather(rows), gather(cols)))`,
// becomes a loop L over outputs j whose body is
//
//   pre(j); for (k …) { fold(j, k) }; post(j)
//
// (`let acc = 0` in pre, `acc = acc + x * y` in the fold, the store and any epilogue — a running
// maximum carried along L, a scale — in post). Every output's sum is a chain of dependent
// additions; a load whose index does not depend on j (the row of the other operand) is reloaded
// for every j. Four iterations of L jammed into one fold loop run four independent chains and
// load the shared operand once per k for all four:
//
//   for (q …) { j0 = from + 4q, j1 = j0 + 1, …; pre(j0) … pre(j3);
//               for (k …) { fold(j0, k); fold(j1, k); fold(j2, k); fold(j3, k) }
//               post(j0) … post(j3) }
//   for (j = from + 4·quads; j < to; j++) { the original body }     (the remainder)
//
// Each accumulator still sums its own terms in k order, so the values are bit for bit the
// unjammed ones (blocking across outputs is exact; splitting one sum would not be, and is never
// done). The pass proves, before rewriting, that moving pre(j1) and fold(j1) before post(j0) is
// unobservable:
// - L counts up by one, its bounds are pure and do not change in the body; the body holds exactly
//   one fold loop (innermost) or the interior pass's split of one (below), no `break`/`return`,
//   no store through anything but an identifier, no call but `Math.*`, `Number.*` and `rt.*`;
// - pre and the fold store nothing, and nothing they load is stored by post (nestFacts.ts: a
//   store to another identifier cannot write that memory inside one cluster), so no iteration
//   sees another's writes; post's stores keep their order exactly (post copies run in L's order);
// - locals declared outside L and assigned in L (accumulators carried along L: the running max)
//   are assigned only in post and not read in pre or the fold, so they see the same sequence of
//   updates;
// - the fold loop's bounds are pure and do not depend on j or on anything pre computes;
// - errors: the jammed fold raises none (no `rt.` call); post may, and its copies run in L's
//   order, so the first error raised — and every store made before it — is the same. Pre raises
//   none either, except checks `if (test) rt.…(…)` whose pure test does not depend on L: such a
//   check fails at L's first iteration or never, and copy 0 of the first quad is that iteration.
//   The counters variant is never blocked.
// The interior pass (interior.ts) splits the fold into general parts that keep their checks and
// an interior part without them: `{ const p = …, q = …; for [from, p) B; H; for [p, q) B′;
// for [q, to) B }`. The four copies compute their p and q, and the interior parts are jammed over
// [from, to) only when every copy has p = from and q = to (the general parts are empty); else
// each copy runs its three parts and its post in turn, exactly as the original iteration did
// (only pre, which stores and raises nothing observable, ran earlier).
// Declarations of the body whose value does not depend on j (a load of the shared operand, its
// row base) are kept once, in the first copy; every other local of the body is renamed per copy.
// Blocking pays only when such a shared load exists in the fold, so the pass requires one.
//
// Cache tiling of k or of the outputs is not done: at FlashAttention's sizes (bc = d = 64) a
// block's operands are 32 KiB each and stay in L1/L2 (docs/EXECUTION.md, "Loop optimisation").

import type { JsExpr, JsStmt } from '../jsast.js';
import { add, bin, constDecl, forEachNode, id, mul, num, renameStmt, type Rename } from '../jsast.js';
import type { LoopContext, LoopPass } from './index.js';
import { runtimeParam } from '../runtimeHelpers.js';
import { effectsOf, idsOfExpr, isPure } from './nestFacts.js';

/** Iterations of L jammed into one fold loop. */
export const BLOCK_FACTOR = 4;

export const blockPass: LoopPass = {
  name: 'block',
  run(stmts, context) {
    if (context.counters) return [...stmts];
    return blockList(stmts, context);
  },
};

function blockList(stmts: readonly JsStmt[], context: LoopContext): JsStmt[] {
  return stmts.flatMap((s) => blockStmt(s, context));
}

function blockStmt(s: JsStmt, context: LoopContext): JsStmt[] {
  switch (s.kind) {
    case 'for':
      return blockLoop(s, context) ?? [{ ...s, body: blockList(s.body, context) }];
    case 'while':
      return [{ ...s, body: blockList(s.body, context) }];
    case 'if':
      return [{ ...s, then: blockList(s.then, context), else: blockList(s.else, context) }];
    case 'block':
      return [{ ...s, body: blockList(s.body, context) }];
    case 'decl':
    case 'assign':
    case 'expr':
    case 'break':
    case 'return':
    case 'comment':
    case 'function':
      return [s];
    default:
      return [s satisfies never];
  }
}

type ForStmt = Extract<JsStmt, { kind: 'for' }>;

/**
 * The fold loop of L's body: one loop, or the interior pass's split of it (interior.ts), a block
 *   { const p = …, q = …; for (k = from; k < p; k++) B; H; for (k = p; k < q; k++) B′; for (k = q; k < to; k++) B }
 * whose general parts B may raise errors and whose interior part B′ does not.
 */
interface FoldRegion {
  readonly index: string;
  readonly from: JsExpr;
  readonly to: JsExpr;
  /** The split's `p`, `q` declarations (empty for one loop). */
  readonly setup: readonly JsStmt[];
  /** The general parts [from, p) and [q, to); null for one loop. */
  readonly general: { readonly before: ForStmt; readonly after: ForStmt } | null;
  /** Declarations between the general part and the interior (the interior's row-invariant part). */
  readonly hoisted: readonly JsStmt[];
  /** The loop jammed: the interior part, or the one loop. */
  readonly interior: ForStmt;
}

function foldRegionOf(s: JsStmt): FoldRegion | null {
  if (s.kind === 'for') return s.down ? null : { index: s.index, from: s.from, to: s.to, setup: [], general: null, hoisted: [], interior: s };
  if (s.kind !== 'block') return null;
  const loops = s.body.flatMap((x, k) => (x.kind === 'for' ? [k] : []));
  if (loops.length !== 3 || loops[1]! + 1 !== loops[2]) return null;
  const [before, interior, after] = loops.map((k) => s.body[k]) as [ForStmt, ForStmt, ForStmt];
  const setup = s.body.slice(0, loops[0]);
  const hoisted = s.body.slice(loops[0]! + 1, loops[1]);
  if (![...setup, ...hoisted].every((x) => x.kind === 'decl' && !x.mutable)) return null;
  if (before.down || interior.down || after.down) return null;
  if (before.index !== interior.index || after.index !== interior.index) return null;
  const p = before.to;
  const q = interior.to;
  if (p.kind !== 'id' || q.kind !== 'id') return null;
  if (interior.from.kind !== 'id' || interior.from.name !== p.name || after.from.kind !== 'id' || after.from.name !== q.name) return null;
  return { index: interior.index, from: before.from, to: after.to, setup, general: { before, after }, hoisted, interior };
}

/** `loop` blocked by BLOCK_FACTOR and its remainder loop, or null when the header's conditions fail. */
export function blockLoop(loop: JsStmt, context: LoopContext): JsStmt[] | null {
  if (loop.kind !== 'for' || loop.down) return null;
  const at = loop.body.findIndex((s) => foldRegionOf(s) !== null);
  const region = at < 0 ? null : foldRegionOf(loop.body[at]!);
  if (region === null) return null;
  const pre = loop.body.slice(0, at);
  const post = loop.body.slice(at + 1);
  const regionStmts = [...region.setup, ...region.hoisted, region.interior, ...(region.general === null ? [] : [region.general.before, region.general.after])];
  const whole = effectsOf(loop.body);
  const before = effectsOf([...pre, ...regionStmts]);
  const after = effectsOf(post);
  if (whole.loops !== (region.general === null ? 1 : 3) || whole.escapes || whole.opaqueStore || whole.unknownCalls) return null;
  if (before.stored.size > 0) return null;
  if (effectsOf([...region.setup, ...region.hoisted, region.interior]).runtime) return null;
  for (const a of after.stored) if (before.loaded.has(a)) return null;

  // Bounds: pure, and fixed through L (the fold's also through pre).
  const declared = declaredIn(loop.body);
  const dependsOnL = (n: string): boolean => n === loop.index || whole.written.has(n);
  const fixedThroughL = (e: JsExpr): boolean => isPure(e) && [...idsOfExpr(e)].every((n) => !dependsOnL(n));
  if (!fixedThroughL(loop.from) || !fixedThroughL(loop.to) || !fixedThroughL(region.from) || !fixedThroughL(region.to)) return null;
  if (!pre.every((s) => !effectsOf([s]).runtime || isInvariantCheck(s, fixedThroughL))) return null;

  // Locals of the enclosing code that L assigns: only post may touch them.
  const carried = [...whole.written].filter((n) => !declared.has(n) && n !== loop.index && n !== region.index);
  for (const n of carried) if (before.ids.has(n) || before.written.has(n)) return null;

  // Declarations whose value is the same in every copy: kept once, in copy 0.
  const shared = sharedDeclarations([...pre, ...region.hoisted, ...region.interior.body], loop.index, region.index, declared, whole.written);
  if (!foldLoadsShared(region.interior.body, shared)) return null;

  const renamed = new Set([...declared].filter((n) => !shared.has(n) && n !== region.index));
  const copies = Array.from({ length: BLOCK_FACTOR }, (_, c) => {
    const names = new Map<string, string>();
    const rename: Rename = (name) => {
      if (c === 0 || !(renamed.has(name) || name === loop.index)) return name;
      let n = names.get(name);
      if (n === undefined) {
        n = context.fresh(name.replace(/[0-9]+$/, ''));
        names.set(name, n);
      }
      return n;
    };
    const once = (s: JsStmt): boolean => c === 0 || !(s.kind === 'decl' && shared.has(s.name));
    const copy = (stmts: readonly JsStmt[], dedupe: boolean): JsStmt[] => stmts.filter((s) => !dedupe || once(s)).map((s) => renameStmt(s, rename));
    return { c, rename, copy };
  });
  const all = <T>(f: (copy: (typeof copies)[number]) => T[]): T[] => copies.flatMap(f);
  // The interior loops of the four copies jammed into one over the whole fold range.
  const jammed: JsStmt[] = [
    ...all((k) => k.copy(region.hoisted, true)),
    { ...region.interior, from: region.from, to: region.to, body: all((k) => k.copy(region.interior.body, true)) },
    ...all((k) => k.copy(post, false)),
  ];
  let blocked: JsStmt[];
  if (region.general === null) blocked = jammed;
  else {
    // Run time: jam only when no copy has a general part (each copy's p = from and q = to);
    // otherwise run the four iterations one after the other, as the original loop does.
    const { before: g0, after: g1 } = region.general;
    const p = (g0.to as { name: string }).name;
    const q = (region.interior.to as { name: string }).name;
    const noGeneralPart = all((k) => [bin('===', id(k.rename(p)), region.from), bin('===', id(k.rename(q)), region.to)]).reduce((a, b) => bin('&&', a, b));
    const sequential: JsStmt[] = copies.map((k) => ({
      kind: 'block',
      body: [...k.copy([g0], false), ...k.copy(region.hoisted, false), ...k.copy([region.interior, g1], false), ...k.copy(post, false)],
    }));
    blocked = [...all((k) => k.copy(region.setup, false)), { kind: 'if', test: noGeneralPart, then: jammed, else: sequential }];
  }

  const quads = context.fresh('q');
  const step = context.fresh('t');
  const span = loop.from.kind === 'num' && loop.from.value === 0 ? loop.to : bin('-', loop.to, loop.from);
  const body: JsStmt[] = [
    constDecl(loop.index, add(loop.from, mul(id(step), num(BLOCK_FACTOR)))),
    ...copies.flatMap((k) => (k.c === 0 ? [] : [constDecl(k.rename(loop.index), bin('+', id(loop.index), num(k.c)))])),
    ...all((k) => k.copy(pre, true)),
    ...blocked,
  ];
  return [
    // (span - span % 4) / 4: the whole quads (≤ 0 when the range is empty: no quad, no remainder).
    constDecl(quads, bin('/', bin('-', span, bin('%', span, num(BLOCK_FACTOR))), num(BLOCK_FACTOR))),
    { kind: 'for', index: step, from: num(0), to: id(quads), down: false, body },
    { ...loop, from: add(loop.from, mul(id(quads), num(BLOCK_FACTOR))) },
  ];
}

/**
 * A check of pre that fails at L's first iteration or never: `if (test) { … }` with a pure test
 * fixed through L. Copy 0 of the first quad runs it first, as the original's first iteration.
 */
function isInvariantCheck(s: JsStmt, fixedThroughL: (e: JsExpr) => boolean): boolean {
  const raises = (x: JsStmt): boolean =>
    x.kind === 'expr' && x.expr.kind === 'call' && x.expr.callee.kind === 'member' && x.expr.callee.object.kind === 'id' && x.expr.callee.object.name === runtimeParam;
  return s.kind === 'if' && fixedThroughL(s.test) && s.else.length === 0 && s.then.every(raises);
}

/** Names declared anywhere in the statements (loop indices included). */
function declaredIn(stmts: readonly JsStmt[]): Set<string> {
  const names = new Set<string>();
  forEachNode(stmts, {
    stmt(s) {
      if (s.kind === 'decl') names.add(s.name);
      if (s.kind === 'for') names.add(s.index);
    },
  });
  return names;
}

/**
 * The top-level `const`s of pre and the fold body whose value does not depend on L's index:
 * made of names from outside L, the fold's index and earlier such constants only, by loads (no
 * iteration of pre or the fold stores anything) and `Math.*` calls, with no `set`.
 */
function sharedDeclarations(
  stmts: readonly JsStmt[],
  outerIndex: string,
  foldIndex: string,
  declared: ReadonlySet<string>,
  written: ReadonlySet<string>,
): Set<string> {
  const shared = new Set<string>();
  for (const s of stmts) {
    if (s.kind !== 'decl' || s.mutable || s.init === null) continue;
    const effects = effectsOf([{ kind: 'expr', expr: s.init }]);
    if (effects.written.size > 0 || effects.runtime || effects.unknownCalls) continue;
    const fixed = [...effects.ids].every(
      (n) => n === 'Math' || n === 'Number' || n === foldIndex || shared.has(n) || (n !== outerIndex && !declared.has(n) && !written.has(n)),
    );
    if (fixed) shared.add(s.name);
  }
  return shared;
}

/** Whether the fold body loads something through a shared declaration (what blocking saves). */
function foldLoadsShared(body: readonly JsStmt[], shared: ReadonlySet<string>): boolean {
  return body.some((s) => s.kind === 'decl' && shared.has(s.name) && s.init !== null && effectsOf([{ kind: 'expr', expr: s.init }]).loaded.size > 0);
}
