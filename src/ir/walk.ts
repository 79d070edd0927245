// Walking the core IR: what an expression, lambda, statement or block uses and defines.
//
// Every later stage needs the same questions answered — which arrays does this combinator read,
// and in which role (graph edges, plan costs); which scalars does it mention (scheduling of
// scalar statements); what does a block need from outside (control-flow nodes) — so they are
// answered once, here, by small pure functions. A use is classified three ways, following
// docs/PLANNING.md: an *ordered* read of a combinator input (in a named role), an *indexed*
// read (`xs[i]` in element code: a free array variable) and a *dim* use (`dim(xs, k)`, which is
// not a read at all).

import type {
  Block,
  CombinatorNode,
  Expr,
  Lambda,
  Program,
  Stmt,
  Value,
  VarName,
} from './types.js';
import { combinatorInputs, type RoleRead } from './rules.js';
import { binaryMayFault } from './scalarOps.js';

/** What an expression, lambda or statement mentions, by kind of use. */
export interface Uses {
  /** Scalars read by name: lambda parameters and lets excluded where they are bound. */
  readonly scalars: ReadonlySet<VarName>;
  /** Arrays read by indexing (`xs[i]`): free array variables. */
  readonly indexed: ReadonlySet<VarName>;
  /** Arrays whose extents are queried (`dim(xs, k)`): not reads. */
  readonly dims: ReadonlySet<VarName>;
}

interface MutableUses {
  readonly scalars: Set<VarName>;
  readonly indexed: Set<VarName>;
  readonly dims: Set<VarName>;
}

function emptyUses(): MutableUses {
  return { scalars: new Set(), indexed: new Set(), dims: new Set() };
}

/**
 * Whether evaluating `e` can fault: an integer `//`, `%` or `**` (E401) or an array index
 * (E402) in it, the branches of a `select` included (either may be the one evaluated).
 */
export function exprMayFault(e: Expr): boolean {
  switch (e.kind) {
    case 'const':
    case 'var':
    case 'dim':
      return false;
    case 'index':
      return true;
    case 'unary':
    case 'call':
    case 'cast':
      return exprMayFault(e.arg);
    case 'select':
      return exprMayFault(e.cond) || exprMayFault(e.then) || exprMayFault(e.else);
    case 'binary':
      return binaryMayFault(e.op, e.lhs.type) || exprMayFault(e.lhs) || exprMayFault(e.rhs);
    default:
      return e satisfies never;
  }
}

/** Adds the uses of `e` to `acc`, skipping scalar names in `bound`. */
function collectExpr(e: Expr, bound: ReadonlySet<VarName>, acc: MutableUses): void {
  switch (e.kind) {
    case 'const':
      return;
    case 'var':
      if (!bound.has(e.name)) acc.scalars.add(e.name);
      return;
    case 'unary':
    case 'call':
    case 'cast':
      collectExpr(e.arg, bound, acc);
      return;
    case 'binary':
      collectExpr(e.lhs, bound, acc);
      collectExpr(e.rhs, bound, acc);
      return;
    case 'select':
      collectExpr(e.cond, bound, acc);
      collectExpr(e.then, bound, acc);
      collectExpr(e.else, bound, acc);
      return;
    case 'index':
      acc.indexed.add(e.array);
      for (const i of e.indices) collectExpr(i, bound, acc);
      return;
    case 'dim':
      acc.dims.add(e.array);
      return;
    default:
      e satisfies never;
  }
}

function collectLambda(l: Lambda, acc: MutableUses): void {
  const bound = new Set<VarName>(l.params.map((p) => p.name));
  for (const letBinding of l.lets) {
    collectExpr(letBinding.expr, bound, acc);
    bound.add(letBinding.name);
  }
  for (const r of l.results) collectExpr(r, bound, acc);
}

export function exprUses(e: Expr): Uses {
  const acc = emptyUses();
  collectExpr(e, new Set(), acc);
  return acc;
}

/** The free variables of a lambda: what it mentions besides its own params and lets. */
export function lambdaUses(l: Lambda): Uses {
  const acc = emptyUses();
  collectLambda(l, acc);
  return acc;
}

/** Everything one statement reads: its ordered inputs by role, plus the uses of its expressions. */
export interface StmtReads extends Uses {
  /** Combinator inputs (and a `while`'s init), in the order the statement lists them. */
  readonly inputs: readonly RoleRead[];
  /** For `if`/`while`: every name its blocks read from outside; empty for other statements. */
  readonly captured: ReadonlySet<VarName>;
  /** For `if`/`while`: names its blocks take from outside only to ask their shape (`dim`). */
  readonly capturedDims: ReadonlySet<VarName>;
}

/** The expressions and lambdas a combinator evaluates (not its array inputs). */
function collectCombinator(n: CombinatorNode, acc: MutableUses): void {
  const none = new Set<VarName>();
  switch (n.kind) {
    case 'generate':
      for (const e of n.shape) collectExpr(e, none, acc);
      collectLambda(n.fn, acc);
      return;
    case 'map':
      collectLambda(n.fn, acc);
      return;
    case 'gather':
    case 'force':
      return;
    case 'scatter':
      collectLambda(n.op, acc);
      return;
    case 'fold':
    case 'scanl':
    case 'scanr':
      for (const e of n.init ?? []) collectExpr(e, none, acc);
      collectLambda(n.op, acc);
      return;
    default:
      n satisfies never;
  }
}

function collectStmt(s: Stmt, acc: MutableUses): void {
  switch (s.kind) {
    case 'scalar':
      collectExpr(s.expr, new Set(), acc);
      return;
    case 'if':
      collectExpr(s.cond, new Set(), acc);
      return;
    case 'while':
      return;
    case 'generate':
    case 'map':
    case 'gather':
    case 'scatter':
    case 'fold':
    case 'scanl':
    case 'scanr':
    case 'force':
      collectCombinator(s, acc);
      return;
    default:
      s satisfies never;
  }
}

/**
 * What a statement reads. For a control-flow node, `inputs` holds a `while`'s init values, the
 * use sets hold what an `if`'s condition mentions, and `captured` every name its blocks take
 * from outside (all such reads are unordered: the node fuses with nothing).
 */
export function stmtReads(s: Stmt): StmtReads {
  const { acc, inputs } = directReads(s);
  const blocks = capturedOf(s);
  const capturedDims = new Set([...blocks.withDims].filter((name) => !blocks.plain.has(name)));
  return { ...acc, inputs, captured: blocks.plain, capturedDims };
}

function directReads(s: Stmt): { acc: MutableUses; inputs: readonly RoleRead[] } {
  const acc = emptyUses();
  collectStmt(s, acc);
  switch (s.kind) {
    case 'scalar':
    case 'if':
      return { acc, inputs: [] };
    case 'while':
      return { acc, inputs: s.init.map((name) => ({ name, role: 'while-init' as const })) };
    default:
      return { acc, inputs: combinatorInputs(s) };
  }
}

/**
 * Free names without and with shape queries, computed together: computing them separately made
 * every level of nested control flow walk its blocks twice, exponential in the nesting depth
 * (20 nested `elif`s took minutes).
 */
interface FreeSets {
  readonly plain: ReadonlySet<VarName>;
  readonly withDims: ReadonlySet<VarName>;
}

/** What a control-flow node's blocks need from outside. */
function capturedOf(s: Stmt): FreeSets {
  const blocks = s.kind === 'if' ? [s.then, s.else] : s.kind === 'while' ? [s.cond, s.body] : [];
  const plain = new Set<VarName>();
  const withDims = new Set<VarName>();
  for (const b of blocks) {
    const f = blockFree(b);
    f.plain.forEach((n) => plain.add(n));
    f.withDims.forEach((n) => withDims.add(n));
  }
  return { plain, withDims };
}

function stmtFree(s: Stmt): FreeSets {
  const { acc, inputs } = directReads(s);
  const blocks = capturedOf(s);
  const plain = new Set<VarName>([...inputs.map((i) => i.name), ...acc.scalars, ...acc.indexed, ...blocks.plain]);
  return { plain, withDims: new Set([...plain, ...acc.dims, ...blocks.withDims]) };
}

function blockFree(b: Block): FreeSets {
  const local = new Set<VarName>(b.params.map((p) => p.name));
  const plain = new Set<VarName>();
  const withDims = new Set<VarName>();
  for (const s of b.stmts) {
    const f = stmtFree(s);
    for (const name of f.plain) if (!local.has(name)) plain.add(name);
    for (const name of f.withDims) if (!local.has(name)) withDims.add(name);
    for (const d of stmtDefs(s)) local.add(d.name);
  }
  for (const r of b.results) {
    if (local.has(r)) continue;
    plain.add(r);
    withDims.add(r);
  }
  return { plain, withDims };
}

/**
 * Every name a statement mentions that is defined outside it: inputs, indexed arrays, dims,
 * scalars, and (for control flow) whatever its blocks need from outside.
 */
export function stmtFreeVars(s: Stmt, withDims = true): ReadonlySet<VarName> {
  const f = stmtFree(s);
  return withDims ? f.withDims : f.plain;
}

/** Every name a block mentions that it does not bind itself (params and statement definitions). */
export function blockFreeVars(b: Block, withDims = true): ReadonlySet<VarName> {
  const f = blockFree(b);
  return withDims ? f.withDims : f.plain;
}

/** The values a statement defines, in order. */
export function stmtDefs(s: Stmt): readonly Value[] {
  switch (s.kind) {
    case 'scalar':
      return [{ kind: 'scalar', name: s.name, elem: s.expr.type }];
    case 'if':
    case 'while':
      return s.outs;
    case 'generate':
    case 'map':
    case 'gather':
    case 'scatter':
    case 'fold':
    case 'scanl':
    case 'scanr':
    case 'force':
      return s.outs.map((o) => ({ kind: 'array' as const, name: o.name, elem: o.elem, rank: o.rank }));
    default:
      return s satisfies never;
  }
}

/** The blocks directly inside a statement: `[then, else]` for `if`, `[cond, body]` for `while`. */
export function childBlocks(s: Stmt): readonly Block[] {
  if (s.kind === 'if') return [s.then, s.else];
  if (s.kind === 'while') return [s.cond, s.body];
  return [];
}

/** Visits every statement of a block and of its nested blocks, outer before inner, in order. */
export function forEachStmt(b: Block, visit: (s: Stmt, depth: number) => void, depth = 0): void {
  for (const s of b.stmts) {
    visit(s, depth);
    for (const child of childBlocks(s)) forEachStmt(child, visit, depth + 1);
  }
}

/** Every statement of a program, nested blocks included. */
export function allStmts(p: Program): readonly Stmt[] {
  const out: Stmt[] = [];
  forEachStmt(p.body, (s) => out.push(s));
  return out;
}

/** Every lambda of a combinator, for stages that inspect element code. */
export function combinatorLambdas(n: CombinatorNode): readonly Lambda[] {
  switch (n.kind) {
    case 'generate':
    case 'map':
      return [n.fn];
    case 'scatter':
    case 'fold':
    case 'scanl':
    case 'scanr':
      return [n.op];
    case 'gather':
    case 'force':
      return [];
    default:
      return n satisfies never;
  }
}

/**
 * For each scalar statement of a block, the arrays it indexes directly or through other scalar
 * statements of the same block. A combinator that uses such a scalar reads those arrays
 * (indexed, unordered: docs/PLANNING.md), so the graph gets an infusible edge from their producers.
 */
export function scalarIndexedArrays(b: Block): ReadonlyMap<VarName, ReadonlySet<VarName>> {
  const result = new Map<VarName, ReadonlySet<VarName>>();
  for (const s of b.stmts) {
    if (s.kind !== 'scalar') continue;
    const uses = exprUses(s.expr);
    const arrays = new Set<VarName>(uses.indexed);
    for (const name of uses.scalars) for (const a of result.get(name) ?? []) arrays.add(a);
    result.set(s.name, arrays);
  }
  return result;
}
