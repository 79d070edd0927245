// Building the dependence graph of one Block (paper §4.1, docs/PLANNING.md).
//
// One node per combinator and control-flow statement. Every array a node reads becomes a read
// (consumer, group, role, order); a read of an array produced by another node of this block is
// an edge. An edge is infusible when any of its reads is unordered (indexing in element code,
// in a shape or seed expression, or in a scalar statement the node uses, transitively — the
// case Accelerate's 2024 code missed), when it enters or leaves a `force`, when it is a
// scatter's destination or any use of a scatter's result, or when it touches control flow.
// `dim(xs, k)` is a shape query and adds nothing — unless the size is known only at run time
// after another node (orderings.ts), which then comes first.
//
// Two user errors are found here because they make every plan impossible: two scatters that
// update the same array in place (E601), and a use of an array after the scatter that
// overwrote it (E602). Lowering copies every destination whose update could be observed
// (src/ir/updates.ts), so only hand-built IR given to the planner API meets them. Both are per
// array: a scatter into one component of a tuple leaves the others alone.
//
// The graph keeps no IR: what the planner needs of a statement (element types, a scatter's
// destination) and the sizes and weights costs are counted in become plain facts on nodes,
// groups and edges here.

import { CompilerBug, userError, type SourceFile } from '../diagnostics/index.js';
import type { Block, CombinatorNode, ControlNode, NodeId, ScalarType, Shape, Stmt, VarName } from '../ir/types.js';
import { fusionRule, inPlaceDestinations, readRuleOf, type NodeKind, type ReadRule } from '../ir/rules.js';
import { scalarIndexedArrays, stmtReads } from '../ir/walk.js';
import { elidableCopies } from '../ir/updates.js';
import { orderingDependences, type Orderings } from './orderings.js';
import { edgeWeightKey, elementCount, type CostWeights } from './weights.js';
import type {
  ArrayGroup,
  DependenceGraph,
  ElidableCopy,
  GraphEdge,
  GraphNode,
  GraphRead,
  GraphReadRole,
  InfusibleReason,
  StrictPrecedence,
} from './types.js';

/** What a block's graph needs to know about the world outside it. */
export interface GraphContext {
  /** Arrays visible from enclosing blocks (or entry parameters), with their element types. */
  readonly outerArrays: ReadonlyMap<VarName, ScalarType>;
  /** Component → group name for arrays of tuples from outside (entry parameters); else own name. */
  readonly groupOf?: ReadonlyMap<VarName, string>;
  /** For diagnostics. */
  readonly file?: SourceFile;
  /** Shapes known at compile time (sizes.ts), by array name; default none. */
  readonly sizes?: ReadonlyMap<VarName, Shape>;
  /** The caller's array and edge weights; default 1 each. */
  readonly weights?: CostWeights;
}

function isControl(s: Stmt): s is ControlNode {
  return s.kind === 'if' || s.kind === 'while';
}

type GraphStmt = CombinatorNode | ControlNode;

/** What a read in `role` by a node of `kind` implies; a role the kind's rule lacks is our bug. */
function readRule(kind: NodeKind, role: GraphReadRole): ReadRule {
  const rule = readRuleOf(kind, role);
  if (rule === undefined) throw new CompilerBug('graph', `a ${kind} read in role ${role}, which its rule does not name`);
  return rule;
}

/** Builds the dependence graph of `block`. Throws UserError E601/E602 for impossible scatters. */
export function buildGraph(block: Block, context: GraphContext): DependenceGraph {
  const stmts = block.stmts.filter((s): s is GraphStmt => s.kind !== 'scalar');

  // Arrays in scope and their element types; groups are created lazily for sources.
  const elemOf = new Map<VarName, ScalarType>(context.outerArrays);
  for (const p of block.params) if (p.kind === 'array') elemOf.set(p.name, p.elem);
  // A control-flow node's scalar outputs are not arrays: a use of one (a `while`'s counter
  // carried into a later loop) only orders the two nodes (orderings.ts), it is no array read.
  for (const s of stmts) {
    if (isControl(s)) {
      for (const o of s.outs) if (o.kind === 'array') elemOf.set(o.name, o.elem);
    } else {
      for (const o of s.outs) elemOf.set(o.name, o.elem);
    }
  }

  // Every component of a group has one shape; the first whose shape is known gives its size.
  const sizeOf = (names: readonly VarName[]): number | null => {
    for (const name of names) {
      const shape = context.sizes?.get(name);
      if (shape !== undefined) return elementCount(shape);
    }
    return null;
  };
  const weightOf = (name: string): number => context.weights?.arrays?.[name] ?? 1;
  const groups: ArrayGroup[] = [];
  // Outputs of control-flow nodes are sources for costing, but their readers still depend on them.
  const controlOutput = new Map<VarName, NodeId>();
  for (const s of stmts) if (isControl(s)) for (const o of s.outs) controlOutput.set(o.name, s.id);
  const groupByName = new Map<VarName, number>();
  const producerOfGroup = new Map<number, NodeId>();
  let gatherCount = 0;
  const nodes: GraphNode[] = stmts.map((s, index) => {
    const outs = isControl(s) ? s.outs.filter((o) => o.kind === 'array').map((o) => o.name) : s.outs.map((o) => o.name);
    let group: number | null = null;
    if (!isControl(s)) {
      group = groups.length;
      const name = outs[0] ?? `#${s.id}`;
      groups.push({ index: group, name, names: outs, elems: s.outs.map((o) => o.elem), producer: s.id, definedBy: null, size: sizeOf(outs), weight: weightOf(name) });
      for (const o of outs) groupByName.set(o, group);
      producerOfGroup.set(group, s.id);
    }
    const label = fusionRule(s.kind).labelled ? 2 + gatherCount++ : null;
    const elems = isControl(s) ? s.outs.filter((o) => o.kind === 'array').map((o) => o.elem) : s.outs.map((o) => o.elem);
    const dest = isControl(s) ? [] : inPlaceDestinations(s);
    return { id: s.id, index, kind: s.kind, name: outs[0] ?? `${s.kind}#${s.id}`, outs, elems, dest, group, label, span: s.span };
  });

  // Source groups: entry-parameter components grouped (keyed by the parameter's first
  // component, whichever component is read first), everything else one group per name.
  const sourceGroupByKey = new Map<string, number>();
  const componentsOfKey = new Map<string, VarName[]>();
  for (const [component, key] of context.groupOf ?? []) componentsOfKey.set(key, [...(componentsOfKey.get(key) ?? []), component]);
  const groupFor = (name: VarName): number | null => {
    const known = groupByName.get(name);
    if (known !== undefined) return known;
    const elem = elemOf.get(name);
    if (elem === undefined) return null; // a scalar
    const key = context.groupOf?.get(name) ?? name;
    const existing = sourceGroupByKey.get(key);
    if (existing !== undefined) return existing;
    // An entry array of tuples is one array for costing: all its components, read or not.
    const members = [...(componentsOfKey.get(key) ?? [name])].filter((m) => elemOf.has(m));
    const index = groups.length;
    groups.push({
      index,
      name: key,
      names: members,
      elems: members.map((m) => elemOf.get(m)!),
      producer: null,
      definedBy: controlOutput.get(name) ?? null,
      size: sizeOf(members),
      weight: weightOf(key),
    });
    sourceGroupByKey.set(key, index);
    for (const m of members) groupByName.set(m, index);
    return index;
  };

  const indexedByScalar = scalarIndexedArrays(block);
  const reads: GraphRead[] = [];
  for (const s of stmts) {
    const r = stmtReads(s);
    const found = new Map<string, { group: number; role: GraphReadRole; arrays: VarName[] }>();
    const add = (name: VarName, role: GraphReadRole): void => {
      const group = groupFor(name);
      if (group === null) return;
      const key = `${group}/${role}`;
      const entry = found.get(key);
      if (entry === undefined) found.set(key, { group, role, arrays: [name] });
      else if (!entry.arrays.includes(name)) entry.arrays.push(name);
    };
    const control = isControl(s);
    for (const input of r.inputs) add(input.name, control ? 'control' : input.role);
    const indexed = new Set<VarName>(r.indexed);
    // A control-flow node's blocks read what they capture, except names they only ask the
    // shape of (`capturedDims`): a shape query adds no edge (PLANNING.md).
    // A `while`'s initial values may be scalars too (`s = a[0]` carried by the loop): they read
    // what they index, like a captured scalar.
    for (const scalar of [...r.scalars, ...(control ? [...r.captured, ...r.inputs.map((i) => i.name)] : [])]) {
      for (const a of indexedByScalar.get(scalar) ?? []) indexed.add(a);
    }
    for (const a of indexed) add(a, control ? 'control' : 'indexed');
    if (control) for (const name of r.captured) add(name, 'control');
    for (const { group, role, arrays } of found.values()) {
      const order = readRule(s.kind, role).order;
      reads.push({ consumer: s.id, group, role, order, arrays });
    }
  }

  const nodeOf = new Map<NodeId, GraphNode>(nodes.map((n) => [n.id, n]));
  for (const g of groups) if (g.definedBy !== null) producerOfGroup.set(g.index, g.definedBy);
  const edges = buildEdges(nodes, reads, producerOfGroup, nodeOf, orderingDependences(block), context.weights ?? {});
  const precedences = scatterPrecedences(nodes, reads, context);
  checkAcyclic(nodes, edges, reads, precedences, context);

  // A result scalar that indexes an array (`s = a[0]; return s`) is evaluated from memory after
  // the clusters: that array is as much a result as one returned directly.
  const resultArrays = block.results.flatMap((r) => [r, ...(indexedByScalar.get(r) ?? [])]);
  const resultGroups = [
    ...new Set(resultArrays.map((r) => groupByName.get(r)).filter((g): g is number => g !== undefined && groups[g]!.producer !== null)),
  ];
  const elidable = elisionChoices(block, nodes, reads, edges, precedences);
  return { nodes, groups, reads, edges, precedences, resultGroups, gatherCount, ...(elidable.length === 0 ? {} : { elidableCopies: elidable }) };
}

/**
 * The block's elidable copies (src/ir/updates.ts) with the readers of their sources. A copy
 * whose scatter reaches one of those readers is left out: that reader can never run before the
 * scatter, so the copy is always needed.
 */
function elisionChoices(
  block: Block,
  nodes: readonly GraphNode[],
  reads: readonly GraphRead[],
  edges: readonly GraphEdge[],
  precedences: readonly StrictPrecedence[],
): ElidableCopy[] {
  return withReaders(elidableCopies(block), nodes, reads, edges, precedences);
}

/**
 * Elidable copies with the readers of their sources (every node but the copy reading one),
 * leaving out a copy whose scatter reaches one of them. Shared by the IR and JSON readers.
 */
export function withReaders(
  copies: readonly Omit<ElidableCopy, 'readers'>[],
  nodes: readonly GraphNode[],
  reads: readonly GraphRead[],
  edges: readonly GraphEdge[],
  precedences: readonly StrictPrecedence[],
): ElidableCopy[] {
  if (copies.length === 0) return [];
  const succ = new Map<NodeId, NodeId[]>();
  for (const e of edges) succ.set(e.from, [...(succ.get(e.from) ?? []), e.to]);
  for (const p of precedences) succ.set(p.before, [...(succ.get(p.before) ?? []), p.scatter]);
  const reachable = (from: NodeId): Set<NodeId> => {
    const seen = new Set<NodeId>();
    const stack = [from];
    for (let n = stack.pop(); n !== undefined; n = stack.pop()) {
      for (const m of succ.get(n) ?? []) if (!seen.has(m)) (seen.add(m), stack.push(m));
    }
    return seen;
  };
  const out: ElidableCopy[] = [];
  for (const c of copies) {
    const readers = [...new Set(reads.filter((r) => r.consumer !== c.copy && r.arrays.some((a) => c.sources.includes(a))).map((r) => r.consumer))];
    const after = reachable(c.scatter);
    if (readers.some((r) => r === c.scatter || after.has(r))) continue;
    // Statement order for a stable model.
    readers.sort((a, b) => nodes.findIndex((n) => n.id === a) - nodes.findIndex((n) => n.id === b));
    out.push({ copy: c.copy, scatter: c.scatter, producer: c.producer, sources: c.sources, readers });
  }
  return out;
}

function buildEdges(
  nodes: readonly GraphNode[],
  reads: readonly GraphRead[],
  producerOfGroup: ReadonlyMap<number, NodeId>,
  nodeOf: ReadonlyMap<NodeId, GraphNode>,
  orderings: Orderings,
  weights: CostWeights,
): GraphEdge[] {
  const byPair = new Map<string, GraphRead[]>();
  for (const r of reads) {
    const p = producerOfGroup.get(r.group);
    if (p === undefined) continue;
    const key = `${p}->${r.consumer}`;
    byPair.set(key, [...(byPair.get(key) ?? []), r]);
  }
  // Orderings without a read (a control node's scalar, a run-time size) are edges too.
  for (const [to, froms] of orderings) for (const from of froms.keys()) if (!byPair.has(`${from}->${to}`)) byPair.set(`${from}->${to}`, []);
  const edges: GraphEdge[] = [];
  for (const [key, edgeReads] of byPair) {
    const [from, to] = key.split('->').map(Number) as [NodeId, NodeId];
    const p = nodeOf.get(from);
    const c = nodeOf.get(to);
    if (p === undefined || c === undefined) throw new CompilerBug('graph', `edge ${key} names an unknown node`);
    const reasons = new Set<InfusibleReason>();
    for (const r of edgeReads) {
      const why = readRule(c.kind, r.role).infusible;
      if (why !== null) reasons.add(why);
    }
    const ordering = orderings.get(to)?.get(from);
    if (ordering !== undefined) reasons.add(ordering);
    for (const why of [fusionRule(p.kind).infusibleOutput, fusionRule(c.kind).infusibleInput]) if (why !== null) reasons.add(why);
    const weight = weights.edges?.[edgeWeightKey(p.name, c.name)] ?? 1;
    edges.push({ from, to, fusible: reasons.size === 0, reasons: [...reasons], reads: edgeReads, weight });
  }
  // Deterministic order: by producer, then consumer, in statement order.
  const pos = (id: NodeId): number => nodeOf.get(id)!.index;
  return edges.sort((a, b) => pos(a.from) - pos(b.from) || pos(a.to) - pos(b.to));
}

/**
 * Every other reader of a scatter's destination array runs strictly before the scatter. Per
 * array, not per group: a scatter into `a` of `a, b = map(…)` leaves `b` alone, so readers of
 * `b` are not ordered by it, and another scatter may update `b`.
 */
function scatterPrecedences(nodes: readonly GraphNode[], reads: readonly GraphRead[], context: GraphContext): StrictPrecedence[] {
  const scatterOf = scattersByDestination(nodes, context);
  const out: StrictPrecedence[] = [];
  const seen = new Set<string>();
  for (const r of reads) {
    for (const name of r.arrays) {
      const s = scatterOf.get(name);
      if (s === undefined || s.id === r.consumer || seen.has(`${r.consumer}->${s.id}`)) continue;
      seen.add(`${r.consumer}->${s.id}`);
      out.push({ before: r.consumer, scatter: s.id });
    }
  }
  return out;
}

/** The scatter updating each destination array; E601 when two update the same one. */
function scattersByDestination(nodes: readonly GraphNode[], context: GraphContext): Map<VarName, GraphNode> {
  const scatterOf = new Map<VarName, GraphNode>();
  for (const n of nodes) {
    for (const d of n.dest) {
      if (scatterOf.has(d)) {
        throw userError('E601', `\`${d}\` is the destination of two scatters; a scatter updates its destination in place, so only one may`, {
          file: context.file,
          span: n.span,
        });
      }
      scatterOf.set(d, n);
    }
  }
  return scatterOf;
}

/** Dependences plus scatter precedences must be acyclic, or no order of clusters exists. */
function checkAcyclic(
  nodes: readonly GraphNode[],
  edges: readonly GraphEdge[],
  reads: readonly GraphRead[],
  precedences: readonly StrictPrecedence[],
  context: GraphContext,
): void {
  // Edges always go forward in statement order (SSA); only a precedence can point backward:
  // a reader of the destination that itself comes after the scatter in the dependence order.
  const pos = new Map(nodes.map((n) => [n.id, n.index]));
  const succ = new Map<NodeId, NodeId[]>();
  for (const e of edges) succ.set(e.from, [...(succ.get(e.from) ?? []), e.to]);
  for (const p of precedences) succ.set(p.before, [...(succ.get(p.before) ?? []), p.scatter]);
  for (const p of precedences) {
    if (pos.get(p.before)! < pos.get(p.scatter)!) continue;
    // Is there a path scatter → … → before? Then `before` both follows and precedes the scatter.
    const seen = new Set<NodeId>();
    const stack = [p.scatter];
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (n === p.before) {
        const reader = nodes.find((x) => x.id === p.before)!;
        const scatter = nodes.find((x) => x.id === p.scatter)!;
        const dests = scatter.dest;
        const dest = reads.find((r) => r.consumer === p.before && r.arrays.some((a) => dests.includes(a)))?.arrays.find((a) => dests.includes(a)) ?? dests[0] ?? '?';
        throw userError('E602', `\`${dest}\` is read here after the ${scatter.kind} that updates it in place`, {
          file: context.file,
          span: reader.span,
        }, [`the ${scatter.kind} producing \`${scatter.name}\` overwrites \`${dest}\`; read \`${scatter.name}\` instead, or copy \`${dest}\` first`]);
      }
      if (seen.has(n)) continue;
      seen.add(n);
      stack.push(...(succ.get(n) ?? []));
    }
  }
}
