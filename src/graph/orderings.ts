// Dependences that are not reads of an array's contents, but still order two nodes.
//
// 1. A scalar computed by an `if`/`while` (a loop counter, a residual) is known only once that
//    node has run: every node using it — directly or through scalar statements — comes after.
// 2. A shape query `dim(xs, k)` is no read (paper §4.1: shapes are known before contents), but
//    that holds only for shapes that ARE known before contents. The shape of an output of an
//    `if`/`while` is known once the node has run, and the shape of a `generate` sized by data
//    (`filter`'s result, sized by a count read from an array) once that data is complete. A
//    node asking such a shape comes after what the shape depends on.
// Both become infusible edges (reason `control-flow`, resp. `shape`); neither is a read, so
// they cost nothing.

import { outputShapeOf } from '../ir/rules.js';
import type { Block, Expr, NodeId, Stmt, VarName } from '../ir/types.js';
import { exprUses, stmtReads } from '../ir/walk.js';
import type { InfusibleReason } from './types.js';

/** consumer id → producer id → why the consumer must come after the producer. */
export type Orderings = ReadonlyMap<NodeId, ReadonlyMap<NodeId, InfusibleReason>>;

interface ScalarClosure {
  /** Arrays indexed, directly or through other scalar statements. */
  readonly indexed: ReadonlySet<VarName>;
  /** Arrays whose shape is asked, directly or through other scalar statements. */
  readonly dims: ReadonlySet<VarName>;
  /** Scalars mentioned, directly or through other scalar statements (themselves included). */
  readonly scalars: ReadonlySet<VarName>;
}

/** What each scalar statement of a block depends on, transitively through earlier ones. */
function scalarClosures(block: Block): ReadonlyMap<VarName, ScalarClosure> {
  const closures = new Map<VarName, ScalarClosure>();
  for (const s of block.stmts) {
    if (s.kind !== 'scalar') continue;
    const uses = exprUses(s.expr);
    const indexed = new Set(uses.indexed);
    const dims = new Set(uses.dims);
    const scalars = new Set<VarName>([s.name]);
    for (const name of uses.scalars) {
      const inner = closures.get(name);
      scalars.add(name);
      if (inner === undefined) continue;
      inner.indexed.forEach((a) => indexed.add(a));
      inner.dims.forEach((a) => dims.add(a));
      inner.scalars.forEach((x) => scalars.add(x));
    }
    closures.set(s.name, { indexed, dims, scalars });
  }
  return closures;
}

/** The expressions that decide a combinator's output shape (not its contents), by its rule. */
function shapeInputs(s: Stmt): { readonly exprs: readonly Expr[]; readonly like: VarName | null } {
  switch (s.kind) {
    case 'scalar':
    case 'if':
    case 'while':
      return { exprs: [], like: null };
    default: {
      const rule = outputShapeOf(s);
      return rule.kind === 'sizes' ? { exprs: rule.sizes, like: null } : { exprs: [], like: rule.like ?? null };
    }
  }
}

export function orderingDependences(block: Block): Orderings {
  const closures = scalarClosures(block);
  const producer = new Map<VarName, NodeId>();
  const controlScalar = new Map<VarName, NodeId>();
  for (const s of block.stmts) {
    if (s.kind === 'scalar') continue;
    for (const o of s.outs) {
      if ('kind' in o && o.kind === 'scalar') controlScalar.set(o.name, s.id);
      else producer.set(o.name, s.id);
    }
  }

  // What an array's shape waits for: arrays whose contents it is computed from, and control
  // nodes that produce it. Memoised per array; arrays from outside the block wait for nothing.
  const waits = new Map<VarName, { readonly arrays: ReadonlySet<VarName>; readonly nodes: ReadonlySet<NodeId> }>();
  const stmtOf = new Map<NodeId, Stmt>(block.stmts.flatMap((s) => (s.kind === 'scalar' ? [] : [[s.id, s] as const])));
  const shapeWaits = (name: VarName): { readonly arrays: ReadonlySet<VarName>; readonly nodes: ReadonlySet<NodeId> } => {
    const known = waits.get(name);
    if (known !== undefined) return known;
    const arrays = new Set<VarName>();
    const nodes = new Set<NodeId>();
    const result = { arrays, nodes };
    waits.set(name, result); // SSA: no cycles, but guard re-entry anyway
    const p = producer.get(name);
    const s = p === undefined ? undefined : stmtOf.get(p);
    if (s !== undefined) {
      if (s.kind === 'if' || s.kind === 'while') nodes.add(s.id);
      const { exprs, like } = shapeInputs(s);
      if (like !== null) {
        const inner = shapeWaits(like);
        inner.arrays.forEach((a) => arrays.add(a));
        inner.nodes.forEach((n) => nodes.add(n));
      }
      for (const e of exprs) addUses(exprUses(e), arrays, nodes);
    }
    return result;
  };
  function addUses(
    uses: { readonly scalars: ReadonlySet<VarName>; readonly indexed: ReadonlySet<VarName>; readonly dims: ReadonlySet<VarName> },
    arrays: Set<VarName>,
    nodes: Set<NodeId>,
  ): void {
    uses.indexed.forEach((a) => arrays.add(a));
    const dims = new Set(uses.dims);
    for (const x of uses.scalars) {
      const c = closures.get(x);
      const ctl = controlScalar.get(x);
      if (ctl !== undefined) nodes.add(ctl);
      if (c === undefined) continue;
      c.indexed.forEach((a) => arrays.add(a));
      c.dims.forEach((a) => dims.add(a));
      for (const y of c.scalars) {
        const n = controlScalar.get(y);
        if (n !== undefined) nodes.add(n);
      }
    }
    for (const d of dims) {
      const inner = shapeWaits(d);
      inner.arrays.forEach((a) => arrays.add(a));
      inner.nodes.forEach((n) => nodes.add(n));
    }
  }

  const out = new Map<NodeId, Map<NodeId, InfusibleReason>>();
  const order = (from: NodeId, to: NodeId, reason: InfusibleReason): void => {
    if (from === to) return;
    const m = out.get(to) ?? new Map<NodeId, InfusibleReason>();
    if (!m.has(from)) m.set(from, reason);
    out.set(to, m);
  };
  for (const s of block.stmts) {
    if (s.kind === 'scalar') continue;
    const r = stmtReads(s);
    const control = s.kind === 'if' || s.kind === 'while';
    // Scalars the node uses (a control node: also those its blocks take from outside).
    const scalarUses = new Set<VarName>(r.scalars);
    if (control) for (const name of r.captured) if (!producer.has(name)) scalarUses.add(name);
    const dimUses = new Set<VarName>(r.dims);
    if (control) r.capturedDims.forEach((d) => dimUses.add(d));
    // Arrays the node's scalars index are ordinary indexed reads (build.ts); here only the
    // control nodes behind its scalars and the sizes it asks for, directly or through them.
    const nodes = new Set<NodeId>();
    for (const x of scalarUses) {
      const c = closures.get(x);
      for (const y of c?.scalars ?? [x]) {
        const n = controlScalar.get(y);
        if (n !== undefined) nodes.add(n);
      }
      c?.dims.forEach((d) => dimUses.add(d));
    }
    const arrays = new Set<VarName>();
    addUses({ scalars: new Set(), indexed: new Set(), dims: dimUses }, arrays, nodes);
    for (const n of nodes) order(n, s.id, 'control-flow');
    for (const a of arrays) {
      const p = producer.get(a);
      if (p !== undefined) order(p, s.id, 'shape');
    }
  }
  return out;
}
