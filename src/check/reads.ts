// The checker's own view of a block (BlockGraph): its nodes, every read each node makes (array,
// role, read order), the edges between nodes with their fusibility, and the array groups costs
// are counted over; and its builder from the IR, following docs/PLANNING.md literally. The
// other builder, from a JSON graph, is ./jsonGraph.ts; the validator, the evaluator and the
// brute force work on a BlockGraph whichever entry it came from.
//
// This module deliberately shares no code with the planner's graph builder or the ILP: the
// checker is the independent cross-check of the planner, so it re-derives reads and edges
// itself (a shared bug would hide on both sides). It shares only src/graph/orderings.ts, the
// dependences that are not reads (when values exist, not fusion rules; docs/DESIGN.md).
//
// Two readings of PLANNING.md made precise here:
//  - "indexing in a scalar statement the node uses (transitively)" counts scalar statements of
//    the node's own block (and, for a control-flow node, of the blocks inside it). A scalar of
//    an enclosing block is a value computed out there; its reads belong to that block, where
//    the control-flow node containing this block carries them.
//  - A control-flow node reads the arrays its blocks mention and do not define, where
//    "mention" is a read (input, indexing, a result, a `while` init), never `dim(xs, k)`.

import { orderingDependences } from '../graph/orderings.js';
import type {
  Block,
  CombinatorKind,
  CombinatorNode,
  ControlNode,
  Expr,
  Lambda,
  NodeId,
  Program,
  ScalarType,
  Stmt,
  VarName,
  WhileNode,
} from '../ir/types.js';
import type { Order } from '../plan/types.js';
import { kindFacts } from './kinds.js';

/**
 * The role in which a node reads an array (PLANNING.md's table). The IR's reads use
 * `scatter-src` for a scatter's index and values and `control` for everything a control-flow
 * node reads; a JSON graph names them as its format does (`scatter-index`, `scatter-values`,
 * `while-init`), and its messages and read streams follow the format's roles.
 */
export type ReadRole =
  | 'map-input'
  | 'gather-indices'
  | 'gather-source'
  | 'fold-input'
  | 'scanl-input'
  | 'scanr-input'
  | 'scatter-src'
  | 'scatter-index'
  | 'scatter-values'
  | 'scatter-dest'
  | 'force-input'
  | 'indexed'
  | 'control'
  | 'while-init';

/**
 * How the order of a read is fixed: the consumer's own output order (map, fold, gather
 * indices, scatter src), a constant (scanl 0, scanr 1, gather source: its label), or none.
 */
export type ReadOrder =
  | { readonly kind: 'output' }
  | { readonly kind: 'fixed'; readonly order: Order }
  | { readonly kind: 'unordered' };

export interface Read {
  /** A component array, or (dependence only) a scalar output of a control-flow node. */
  readonly name: VarName;
  readonly role: ReadRole;
  readonly order: ReadOrder;
}

/** What a node is: one of the paper's combinators, or a control-flow construct. */
export type NodeKind = CombinatorKind | ControlNode['kind'];

/** An array a combinator node produces. */
export interface NodeOutput {
  readonly name: VarName;
  readonly elem: ScalarType;
}

export interface GraphNode {
  readonly id: NodeId;
  readonly kind: NodeKind;
  /** The arrays a combinator produces; empty for a control-flow node (its outputs are sources). */
  readonly outs: readonly NodeOutput[];
  /** Position among the block's nodes (a dependence order: statement order for the IR). */
  readonly index: number;
  /** A person-readable name: `map as` or `while #7`. */
  readonly label: string;
  /** The node's name in CostWeights.edges keys (`producer->consumer`). */
  readonly weightName: string;
  readonly reads: readonly Read[];
}

export interface Edge {
  readonly producer: NodeId;
  readonly consumer: NodeId;
  /** The consumer's reads of the producer's outputs. */
  readonly reads: readonly Read[];
  /** Why the edge is infusible, or null when it is fusible. */
  readonly infusible: string | null;
  /** w(p, c) as a JSON graph states it (CostWeights.edges overrides it; default 1). */
  readonly weight?: number;
}

/** An array group (PLANNING.md "Arrays"): one combinator's outputs, or one source. */
export interface Group {
  /** The key of CostWeights.arrays: the first component's name (a JSON input: its name). */
  readonly name: VarName;
  readonly components: readonly { readonly name: VarName; readonly elem: ScalarType }[];
  /** The combinator of this block producing it; null for a source group. */
  readonly producer: NodeId | null;
  /** w(v) as a JSON graph states it (CostWeights.arrays overrides it; default 1). */
  readonly weight?: number;
  /** The number of elements as a JSON graph states it (IR: from static sizes instead). */
  readonly elements?: number;
}

/**
 * consumer id → producer id → why the consumer must come after the producer, though it reads
 * none of its arrays: `control-flow` (a scalar the producer computes) or `shape` (a size known
 * only once the producer has run); src/graph/orderings.ts for IR, `order` edges for JSON.
 */
export type OrderingDependences = ReadonlyMap<NodeId, ReadonlyMap<NodeId, string>>;

export interface BlockGraph {
  /** Where the block is, for messages: `root`, `root/while #3 body`. */
  readonly path: string;
  readonly nodes: readonly GraphNode[];
  readonly byId: ReadonlyMap<NodeId, GraphNode>;
  /** The node of this block defining a name (combinator or control-flow outputs). */
  readonly producerOf: ReadonlyMap<VarName, NodeId>;
  readonly edges: readonly Edge[];
  /** Orderings that are no reads: a control-flow node's scalars, sizes known only at run time. */
  readonly orderings: OrderingDependences;
  /** The group of every array name read in this block (scalars have none). */
  readonly groupOf: ReadonlyMap<VarName, Group>;
  readonly groups: readonly Group[];
  /** Combinator nodes whose outputs are block results (directly or through a result scalar). */
  readonly results: ReadonlySet<NodeId>;
  /**
   * Whether the in-place memory facts of rule 3 hold and are checked: a scatter's destination
   * is an output of a combinator of its block, read by the scatter only as its destination.
   * Lowering guarantees them for IR (src/ir/updates.ts); a JSON graph states no memory (its
   * format lets a scatter update an input), so only the precedence part of rule 3 applies.
   */
  readonly ownsScatterDestinations: boolean;
  /** Parameters a scatter may update in place: entry arrays the caller donated (root block), a `while` body's loop-owned ones (`loopOwnedParams`). */
  readonly donatedInputs: ReadonlySet<VarName>;
  /** Child block graphs of control-flow nodes: [then, else] or [cond, body]. */
  readonly children: ReadonlyMap<NodeId, readonly BlockGraph[]>;
  /** What the in-place rule for elided copies needs (validate.ts `elisionCandidates`); absent: no copy may be elided. */
  readonly inPlace?: InPlaceFacts;
}

/**
 * The checker's own facts for eliding a copy before an in-place update (docs/PLANNING.md
 * "In-place updates"), derived from the IR here (restated, not src/ir/updates.ts) or stated by
 * a JSON graph.
 */
export interface InPlaceFacts {
  /** Copies: nodes whose outputs are their inputs unchanged (an identity `map`), node → inputs by output. */
  readonly copies: ReadonlyMap<NodeId, readonly VarName[]>;
  /** Arrays that are block results or that a result scalar indexes. */
  readonly resultArrays: ReadonlySet<VarName>;
  /** Arrays a control-flow node of the block may output unchanged (so share memory with that output). */
  readonly aliasedByControl: ReadonlySet<VarName>;
  /** Arrays a scalar statement indexes that no node and no result uses: read at a point no plan fixes. */
  readonly unanchored: ReadonlySet<VarName>;
  /** Each scalar statement's position among the block's statements and the arrays it indexes (transitively). */
  readonly scalars: readonly { readonly index: number; readonly arrays: ReadonlySet<VarName> }[];
}

export function isControlKind(kind: NodeKind): kind is ControlNode['kind'] {
  return kind === 'if' || kind === 'while';
}

export function orderKey(order: Order): string {
  return order === 0 ? '0' : order === 1 ? '1' : `gather #${order.gather}`;
}

export function sameOrder(a: Order, b: Order): boolean {
  return orderKey(a) === orderKey(b);
}

/** The order of a read given its consumer's output order; null for unordered reads. */
export function readOrderOf(read: Read, consumerOrder: Order | undefined): Order | null {
  switch (read.order.kind) {
    case 'unordered':
      return null;
    case 'fixed':
      return read.order.order;
    case 'output':
      return consumerOrder ?? null;
    default:
      return read.order satisfies never;
  }
}

// ---------------------------------------------------------------------------------------------
// Program-wide facts (names are unique within a Program)
// ---------------------------------------------------------------------------------------------

interface ProgramFacts {
  /** Element type of every array name (entry params, block params, all outputs). */
  readonly arrays: ReadonlyMap<VarName, ScalarType>;
  /** Component name → its entry parameter's components, for entry arrays of tuples. */
  readonly entryGroup: ReadonlyMap<VarName, readonly VarName[]>;
  /**
   * Scalar name → what evaluating it reads: arrays it indexes, directly or through scalar
   * statements of its own block, and scalar outputs of control-flow nodes of its block it
   * depends on. A control-flow node's scalar output depends on itself.
   */
  readonly scalarDeps: ReadonlyMap<VarName, ReadonlySet<VarName>>;
  /** The block that defines each scalar of scalarDeps. */
  readonly scalarBlock: ReadonlyMap<VarName, Block>;
  /** Array components of the entry parameters the caller donated. */
  readonly donated: ReadonlySet<VarName>;
  readonly controlScalars: ReadonlySet<VarName>;
}

/**
 * What a use of a scalar reads, as seen from one block: a scalar of an enclosing block is a
 * value computed there (its reads belong to that block, where the control-flow node that
 * contains this block carries them), so only scalars of this block or nested ones count.
 */
export type DepsOf = (scalar: VarName) => Iterable<VarName>;

function depsSeenFrom(facts: ProgramFacts, outer: ReadonlySet<Block>): DepsOf {
  return (scalar) => {
    const home = facts.scalarBlock.get(scalar);
    return home === undefined || outer.has(home) ? [] : (facts.scalarDeps.get(scalar) ?? []);
  };
}

function programFacts(program: Program): ProgramFacts {
  const arrays = new Map<VarName, ScalarType>();
  const entryGroup = new Map<VarName, readonly VarName[]>();
  const scalarDeps = new Map<VarName, ReadonlySet<VarName>>();
  const scalarBlock = new Map<VarName, Block>();
  const controlScalars = new Set<VarName>();
  const donated = new Set<VarName>();
  for (const p of program.params) {
    if (p.donated === true) for (const c of p.components) if (c.kind === 'array') donated.add(c.name);
    const names = p.components.filter((c) => c.kind === 'array').map((c) => c.name);
    for (const c of p.components) if (c.kind === 'array') arrays.set(c.name, c.elem);
    for (const n of names) entryGroup.set(n, names);
  }
  const visitBlock = (b: Block): void => {
    for (const prm of b.params) if (prm.kind === 'array') arrays.set(prm.name, prm.elem);
    for (const s of b.stmts) {
      switch (s.kind) {
        case 'scalar': {
          const deps = new Set<VarName>();
          exprReads(s.expr, (t) => (scalarBlock.get(t) === b ? (scalarDeps.get(t) ?? []) : []), deps);
          scalarDeps.set(s.name, deps);
          scalarBlock.set(s.name, b);
          break;
        }
        case 'if':
        case 'while':
          for (const o of s.outs) {
            if (o.kind === 'array') arrays.set(o.name, o.elem);
            else {
              controlScalars.add(o.name);
              scalarDeps.set(o.name, new Set([o.name]));
              scalarBlock.set(o.name, b);
            }
          }
          if (s.kind === 'if') {
            visitBlock(s.then);
            visitBlock(s.else);
          } else {
            visitBlock(s.cond);
            visitBlock(s.body);
          }
          break;
        case 'generate':
        case 'map':
        case 'gather':
        case 'scatter':
        case 'fold':
        case 'scanl':
        case 'scanr':
        case 'force':
          for (const o of s.outs) arrays.set(o.name, o.elem);
          break;
        default:
          s satisfies never;
      }
    }
  };
  visitBlock(program.body);
  return { arrays, entryGroup, scalarDeps, scalarBlock, controlScalars, donated };
}

/**
 * Adds to `acc` what evaluating `e` reads in no predictable order: arrays it indexes, and,
 * through the scalars it mentions, what those read. `dim` is a shape query, not a read.
 */
export function exprReads(e: Expr, deps: DepsOf, acc: Set<VarName>): void {
  switch (e.kind) {
    case 'const':
    case 'dim':
      return;
    case 'var':
      for (const d of deps(e.name)) acc.add(d);
      return;
    case 'unary':
    case 'call':
    case 'cast':
      exprReads(e.arg, deps, acc);
      return;
    case 'binary':
      exprReads(e.lhs, deps, acc);
      exprReads(e.rhs, deps, acc);
      return;
    case 'select':
      exprReads(e.cond, deps, acc);
      exprReads(e.then, deps, acc);
      exprReads(e.else, deps, acc);
      return;
    case 'index':
      acc.add(e.array);
      for (const i of e.indices) exprReads(i, deps, acc);
      return;
    default:
      e satisfies never;
  }
}

function lambdaReads(l: Lambda, deps: DepsOf, acc: Set<VarName>): void {
  for (const let_ of l.lets) exprReads(let_.expr, deps, acc);
  for (const r of l.results) exprReads(r, deps, acc);
}

// ---------------------------------------------------------------------------------------------
// Reads of one node
// ---------------------------------------------------------------------------------------------

const output: ReadOrder = { kind: 'output' };
const unordered: ReadOrder = { kind: 'unordered' };
const fixed = (order: Order): ReadOrder => ({ kind: 'fixed', order });

function combinatorReads(n: CombinatorNode, deps: DepsOf): Read[] {
  const reads: Read[] = [];
  const ordered = (names: readonly VarName[], role: ReadRole, order: ReadOrder): void => {
    for (const name of names) reads.push({ name, role, order });
  };
  const indexed = new Set<VarName>();
  switch (n.kind) {
    case 'generate':
      for (const e of n.shape) exprReads(e, deps, indexed);
      lambdaReads(n.fn, deps, indexed);
      break;
    case 'map':
      ordered(n.inputs, 'map-input', output);
      lambdaReads(n.fn, deps, indexed);
      break;
    case 'gather':
      ordered(n.indices, 'gather-indices', output);
      ordered(n.source, 'gather-source', fixed({ gather: n.id }));
      break;
    case 'scatter':
      ordered(n.index, 'scatter-src', output);
      ordered(n.values, 'scatter-src', output);
      ordered(n.dest, 'scatter-dest', unordered);
      lambdaReads(n.op, deps, indexed);
      break;
    case 'fold':
      ordered(n.input, 'fold-input', output);
      lambdaReads(n.op, deps, indexed);
      for (const e of n.init) exprReads(e, deps, indexed);
      break;
    case 'scanl':
    case 'scanr':
      ordered(n.input, n.kind === 'scanl' ? 'scanl-input' : 'scanr-input', fixed(n.kind === 'scanl' ? 0 : 1));
      lambdaReads(n.op, deps, indexed);
      for (const e of n.init ?? []) exprReads(e, deps, indexed);
      break;
    case 'force':
      ordered(n.input, 'force-input', unordered);
      break;
    default:
      n satisfies never;
  }
  for (const name of indexed) reads.push({ name, role: 'indexed', order: unordered });
  return reads;
}

/** Names a block defines anywhere inside it (params, outputs, scalars, nested blocks). */
function blockDefines(b: Block, acc: Set<VarName>): Set<VarName> {
  for (const p of b.params) acc.add(p.name);
  for (const s of b.stmts) {
    switch (s.kind) {
      case 'scalar':
        acc.add(s.name);
        break;
      case 'if':
        for (const o of s.outs) acc.add(o.name);
        blockDefines(s.then, acc);
        blockDefines(s.else, acc);
        break;
      case 'while':
        for (const o of s.outs) acc.add(o.name);
        blockDefines(s.cond, acc);
        blockDefines(s.body, acc);
        break;
      case 'generate':
      case 'map':
      case 'gather':
      case 'scatter':
      case 'fold':
      case 'scanl':
      case 'scanr':
      case 'force':
        for (const o of s.outs) acc.add(o.name);
        break;
      default:
        s satisfies never;
    }
  }
  return acc;
}

/** Every name a block reads anywhere inside it, whether defined there or not. */
function blockMentions(b: Block, facts: ProgramFacts, deps: DepsOf, acc: Set<VarName>): Set<VarName> {
  for (const s of b.stmts) stmtMentions(s, facts, deps, acc);
  for (const r of b.results) nameMentions(r, facts, deps, acc);
  return acc;
}

/** A name used as a value (a block result, a `while` init): an array, or a scalar's reads. */
function nameMentions(name: VarName, facts: ProgramFacts, deps: DepsOf, acc: Set<VarName>): void {
  if (facts.arrays.has(name)) acc.add(name);
  for (const d of deps(name)) acc.add(d);
}

function stmtMentions(s: Stmt, facts: ProgramFacts, deps: DepsOf, acc: Set<VarName>): void {
  switch (s.kind) {
    case 'scalar':
      exprReads(s.expr, deps, acc);
      return;
    case 'if':
      exprReads(s.cond, deps, acc);
      blockMentions(s.then, facts, deps, acc);
      blockMentions(s.else, facts, deps, acc);
      return;
    case 'while':
      for (const i of s.init) nameMentions(i, facts, deps, acc);
      blockMentions(s.cond, facts, deps, acc);
      blockMentions(s.body, facts, deps, acc);
      return;
    case 'generate':
    case 'map':
    case 'gather':
    case 'scatter':
    case 'fold':
    case 'scanl':
    case 'scanr':
    case 'force':
      for (const r of combinatorReads(s, deps)) acc.add(r.name);
      return;
    default:
      s satisfies never;
  }
}

/** A control-flow node reads, unordered, everything its construct mentions but does not define. */
function controlReads(s: ControlNode, facts: ProgramFacts, deps: DepsOf): Read[] {
  const mentioned = new Set<VarName>();
  stmtMentions(s, facts, deps, mentioned);
  const defined = new Set<VarName>();
  if (s.kind === 'if') {
    blockDefines(s.then, defined);
    blockDefines(s.else, defined);
  } else {
    blockDefines(s.cond, defined);
    blockDefines(s.body, defined);
  }
  const reads: Read[] = [];
  for (const name of mentioned) {
    // Scalars are values, not reads: what they read was added above; a control-flow node's
    // scalar output stands for the dependence on it.
    const isRead = facts.arrays.has(name) || facts.controlScalars.has(name);
    if (!defined.has(name) && isRead) reads.push({ name, role: 'control', order: unordered });
  }
  return reads;
}

// ---------------------------------------------------------------------------------------------
// The block graph
// ---------------------------------------------------------------------------------------------

type GraphStmt = CombinatorNode | ControlNode;

function isControl(s: GraphStmt): s is ControlNode {
  return isControlKind(s.kind);
}

function nodeLabel(s: GraphStmt): string {
  if (isControl(s)) return `${s.kind} #${s.id}`;
  return `${s.kind} ${s.outs.map((o) => o.name).join(', ')} (#${s.id})`;
}

function infusibility(producer: GraphStmt, consumer: GraphStmt, reads: readonly Read[]): string | null {
  if (isControl(producer)) return `the producer ${nodeLabel(producer)} is control flow`;
  if (isControl(consumer)) return `the consumer ${nodeLabel(consumer)} is control flow`;
  const unstreamed = kindFacts[producer.kind].unstreamedOutput;
  if (unstreamed !== null) return unstreamed;
  for (const r of reads) {
    const why = readInfusibility(r);
    if (why !== null) return why;
  }
  return null;
}

/** Why a read makes its edge infusible (PLANNING.md "Edges"), or null. */
export function readInfusibility(r: Read): string | null {
  switch (r.role) {
    case 'indexed':
      return `${r.name} is read by indexing`;
    case 'force-input':
      return `${r.name} is the input of a force`;
    case 'scatter-dest':
      return `${r.name} is a scatter destination`;
    case 'control':
    case 'while-init':
      return `${r.name} is read by control flow`;
    case 'map-input':
    case 'gather-indices':
    case 'gather-source':
    case 'fold-input':
    case 'scanl-input':
    case 'scanr-input':
    case 'scatter-src':
    case 'scatter-index':
    case 'scatter-values':
      return null;
    default:
      return r.role satisfies never;
  }
}

/** A node's reads of arrays produced in its block, by producer: one edge each (PLANNING.md "Edges"). */
export function readsByProducer(consumer: GraphNode, producerOf: ReadonlyMap<VarName, NodeId>): Map<NodeId, Read[]> {
  const byProducer = new Map<NodeId, Read[]>();
  for (const r of consumer.reads) {
    const p = producerOf.get(r.name);
    if (p === undefined) continue;
    const list = byProducer.get(p) ?? [];
    list.push(r);
    byProducer.set(p, list);
  }
  return byProducer;
}

function buildBlockGraph(b: Block, path: string, facts: ProgramFacts, outer: ReadonlySet<Block>, loopOwned: ReadonlySet<VarName> = new Set()): BlockGraph {
  const deps = depsSeenFrom(facts, outer);
  const nodes: GraphNode[] = [];
  const stmtOf = new Map<NodeId, GraphStmt>();
  const producerOf = new Map<VarName, NodeId>();
  b.stmts.forEach((s, index) => {
    if (s.kind === 'scalar') return;
    const reads = isControl(s) ? controlReads(s, facts, deps) : combinatorReads(s, deps);
    const outs = isControl(s) ? [] : s.outs.map((o) => ({ name: o.name, elem: o.elem }));
    const weightName = isControl(s) ? `#${s.id}` : s.outs[0]!.name;
    nodes.push({ id: s.id, kind: s.kind, outs, index, label: nodeLabel(s), weightName, reads });
    stmtOf.set(s.id, s);
    for (const o of s.outs) producerOf.set(o.name, s.id);
  });
  const byId = new Map(nodes.map((n) => [n.id, n] as const));

  const edges: Edge[] = [];
  for (const c of nodes) {
    for (const [p, reads] of readsByProducer(c, producerOf)) {
      edges.push({ producer: p, consumer: c.id, reads, infusible: infusibility(stmtOf.get(p)!, stmtOf.get(c.id)!, reads) });
    }
  }

  const groupOf = new Map<VarName, Group>();
  for (const n of nodes) {
    if (isControlKind(n.kind)) continue;
    const g: Group = { name: n.outs[0]!.name, components: n.outs, producer: n.id };
    for (const o of n.outs) groupOf.set(o.name, g);
  }
  for (const n of nodes) {
    for (const r of n.reads) {
      if (groupOf.has(r.name) || !facts.arrays.has(r.name)) continue;
      const members = facts.entryGroup.get(r.name) ?? [r.name];
      const g: Group = {
        name: members[0]!,
        components: members.map((m) => ({ name: m, elem: facts.arrays.get(m)! })),
        producer: null,
      };
      for (const m of members) groupOf.set(m, g);
    }
  }
  const groups = [...new Set(groupOf.values())];

  const results = new Set<NodeId>();
  for (const r of b.results) {
    for (const name of [r, ...deps(r)]) {
      const p = producerOf.get(name);
      if (p !== undefined && !isControlKind(byId.get(p)!.kind)) results.add(p);
    }
  }

  const children = new Map<NodeId, readonly BlockGraph[]>();
  const inner = new Set([...outer, b]);
  for (const n of nodes) {
    const s = stmtOf.get(n.id)!;
    if (s.kind === 'if') {
      children.set(n.id, [
        buildBlockGraph(s.then, `${path}/if #${s.id} then`, facts, inner),
        buildBlockGraph(s.else, `${path}/if #${s.id} else`, facts, inner),
      ]);
    } else if (s.kind === 'while') {
      children.set(n.id, [
        buildBlockGraph(s.cond, `${path}/while #${s.id} cond`, facts, inner),
        buildBlockGraph(s.body, `${path}/while #${s.id} body`, facts, inner, loopOwnedParams(b, s, facts, deps)),
      ]);
    }
  }
  const orderings = orderingDependences(b);
  const inPlace = inPlaceFacts(b, facts, deps);
  return { path, nodes, byId, producerOf, edges, orderings, groupOf, groups, results, ownsScatterDestinations: true,
    donatedInputs: path === 'root' ? facts.donated : loopOwned, children, inPlace };
}

/**
 * The body parameters of `w` (a `while` of block `b`) that the body's scatters may update in
 * place: the checker's own statement of the IR's loop-ownership rule (docs/PLANNING.md "In-place
 * updates", restated here, not taken from src/ir/updates.ts). Carried position k qualifies when
 *  - the body's result at k is a scatter's output whose destination is the parameter p, directly
 *    or through scatters of the body's own outputs;
 *  - no control-flow node of the body may output p unchanged, and neither p nor anything that
 *    may hold the result's memory is the body's result at another position;
 *  - the initial value is a combinator output of `b` that nothing else mentions: no other
 *    statement of `b`, not the loop's cond or body, no other initial position, no result of `b`.
 * Then what the loop updates is its own memory; validate.ts checks, as for any destination,
 * that the scatter does not read p and every other reader of p runs before it.
 */
function loopOwnedParams(b: Block, w: WhileNode, facts: ProgramFacts, deps: DepsOf): Set<VarName> {
  const owned = new Set<VarName>();
  const produced = new Map<VarName, { readonly s: CombinatorNode; readonly k: number }>();
  for (const s of w.body.stmts) if (s.kind !== 'scalar' && s.kind !== 'if' && s.kind !== 'while') s.outs.forEach((o, k) => produced.set(o.name, { s, k }));
  const combinatorOfB = new Set<VarName>();
  for (const s of b.stmts) if (s.kind !== 'scalar' && s.kind !== 'if' && s.kind !== 'while') for (const o of s.outs) combinatorOfB.add(o.name);
  const others = b.stmts.filter((s) => s !== w);
  w.body.params.forEach((p, k) => {
    if (p.kind !== 'array') return;
    // The chain of scatters from the result back to p.
    let name = w.body.results[k]!;
    let reaches = false;
    for (let guard = 0; guard <= w.body.stmts.length && !reaches; guard++) {
      const at = produced.get(name);
      if (at === undefined || at.s.kind !== 'scatter') break;
      const dest = at.s.dest[at.k];
      if (dest === undefined) break;
      if (dest === p.name) reaches = true;
      name = dest;
    }
    if (!reaches) return;
    const fromParam = heldBy(w.body, p.name);
    const fromResult = heldBy(w.body, w.body.results[k]!);
    if (fromParam.size > 1) return;
    if (w.body.results.some((r, j) => r === p.name || (j !== k && (fromParam.has(r) || fromResult.has(r))))) return;
    const x = w.init[k]!;
    if (!combinatorOfB.has(x) || w.init.filter((i) => i === x).length !== 1) return;
    const mentioned = new Set<VarName>();
    blockMentions(w.cond, facts, deps, mentioned);
    blockMentions(w.body, facts, deps, mentioned);
    for (const s of others) stmtMentions(s, facts, deps, mentioned);
    for (const r of b.results) nameMentions(r, facts, deps, mentioned);
    if (mentioned.has(x)) return;
    owned.add(p.name);
  });
  return owned;
}

/**
 * The names of `b` (and blocks nested in it) that may hold `name`'s memory: `name`, and the
 * outputs of control-flow nodes that may return it unchanged (an `if` output by position, every
 * output of a `while` whose initial values or body results may).
 */
function heldBy(b: Block, name: VarName): Set<VarName> {
  const held = new Set([name]);
  const walk = (blk: Block): Set<VarName> => {
    for (const s of blk.stmts) {
      if (s.kind === 'if') {
        const inThen = walk(s.then);
        const inElse = walk(s.else);
        s.outs.forEach((o, i) => {
          if (o.kind === 'array' && (inThen.has(s.then.results[i]!) || inElse.has(s.else.results[i]!))) held.add(o.name);
        });
      } else if (s.kind === 'while') {
        const inBody = walk(s.body);
        if (s.init.some((n) => held.has(n)) || s.body.results.some((r) => inBody.has(r))) for (const o of s.outs) if (o.kind === 'array') held.add(o.name);
      }
    }
    return held;
  };
  return walk(b);
}

/** The in-place facts of an IR block (InPlaceFacts), from its statements. */
function inPlaceFacts(b: Block, facts: ProgramFacts, deps: DepsOf): InPlaceFacts {
  const copies = new Map<NodeId, readonly VarName[]>();
  for (const s of b.stmts) {
    if (s.kind !== 'map') continue;
    const { params, lets, results } = s.fn;
    const identity =
      lets.length === 0 &&
      params.length === s.inputs.length &&
      results.length === params.length &&
      s.outs.length === params.length &&
      new Set(s.inputs).size === s.inputs.length &&
      results.every((r, i) => r.kind === 'var' && r.name === params[i]!.name);
    if (identity) copies.set(s.id, s.inputs);
  }
  const arraysOf = (names: Iterable<VarName>): Set<VarName> => {
    const out = new Set<VarName>();
    for (const n of names) {
      if (facts.arrays.has(n)) out.add(n);
      for (const d of deps(n)) if (facts.arrays.has(d)) out.add(d);
    }
    return out;
  };
  const resultArrays = arraysOf(b.results);
  const aliasedByControl = new Set<VarName>();
  for (const s of b.stmts) if (s.kind === 'if' || s.kind === 'while') for (const n of controlReturns(s)) aliasedByControl.add(n);
  // A scalar is anchored when a node or a result uses it, directly or through later scalars.
  const used = new Set<VarName>(b.results);
  for (const s of b.stmts) {
    if (s.kind === 'scalar') continue;
    const acc = new Set<VarName>();
    stmtScalarUses(s, acc);
    for (const n of acc) used.add(n);
  }
  const scalars: { index: number; arrays: ReadonlySet<VarName> }[] = [];
  const unanchored = new Set<VarName>();
  for (let i = b.stmts.length - 1; i >= 0; i--) {
    const s = b.stmts[i]!;
    if (s.kind !== 'scalar') continue;
    const arrays = arraysOf([s.name]);
    scalars.unshift({ index: i, arrays });
    if (used.has(s.name)) exprNames(s.expr, used);
    else for (const a of arrays) unanchored.add(a);
  }
  return { copies, resultArrays, aliasedByControl, unanchored, scalars };
}

/**
 * The names from outside a control-flow node that it may output unchanged: an `if` branch's
 * result, a `while`'s initial value or body result, through nested control flow too.
 */
function controlReturns(s: ControlNode): Set<VarName> {
  const out = new Set<VarName>();
  const fromBlock = (blk: Block): void => {
    const own = new Map<VarName, ControlNode>();
    const defined = new Set<VarName>(blk.params.map((p) => p.name));
    for (const t of blk.stmts) {
      if (t.kind === 'scalar') defined.add(t.name);
      else for (const o of t.outs) (defined.add(o.name), t.kind === 'if' || t.kind === 'while' ? own.set(o.name, t) : undefined);
    }
    for (const r of blk.results) {
      const inner = own.get(r);
      if (inner !== undefined) for (const n of controlReturns(inner)) if (!defined.has(n)) out.add(n);
      if (!defined.has(r)) out.add(r);
    }
  };
  if (s.kind === 'if') {
    fromBlock(s.then);
    fromBlock(s.else);
  } else {
    for (const n of s.init) out.add(n);
    fromBlock(s.body);
  }
  return out;
}

/** Every name an expression mentions (variables, indexed arrays, dims). */
function exprNames(e: Expr, acc: Set<VarName>): void {
  switch (e.kind) {
    case 'const':
      return;
    case 'var':
      acc.add(e.name);
      return;
    case 'dim':
      acc.add(e.array);
      return;
    case 'unary':
    case 'call':
    case 'cast':
      exprNames(e.arg, acc);
      return;
    case 'binary':
      exprNames(e.lhs, acc);
      exprNames(e.rhs, acc);
      return;
    case 'select':
      exprNames(e.cond, acc);
      exprNames(e.then, acc);
      exprNames(e.else, acc);
      return;
    case 'index':
      acc.add(e.array);
      for (const i of e.indices) exprNames(i, acc);
      return;
    default:
      e satisfies never;
  }
}

/** Every name a node's expressions mention, nested blocks included (scalars they use among them). */
function stmtScalarUses(s: Stmt, acc: Set<VarName>): void {
  const lambda = (l: Lambda): void => {
    for (const x of l.lets) exprNames(x.expr, acc);
    for (const r of l.results) exprNames(r, acc);
  };
  const block = (blk: Block): void => {
    for (const t of blk.stmts) {
      if (t.kind === 'scalar') exprNames(t.expr, acc);
      else stmtScalarUses(t, acc);
    }
    for (const r of blk.results) acc.add(r);
  };
  switch (s.kind) {
    case 'scalar':
      exprNames(s.expr, acc);
      return;
    case 'generate':
      s.shape.forEach((e) => exprNames(e, acc));
      lambda(s.fn);
      return;
    case 'map':
      lambda(s.fn);
      return;
    case 'scatter':
      lambda(s.op);
      return;
    case 'fold':
      s.init.forEach((e) => exprNames(e, acc));
      lambda(s.op);
      return;
    case 'scanl':
    case 'scanr':
      s.init?.forEach((e) => exprNames(e, acc));
      lambda(s.op);
      return;
    case 'gather':
    case 'force':
      return;
    case 'if':
      exprNames(s.cond, acc);
      block(s.then);
      block(s.else);
      return;
    case 'while':
      for (const n of s.init) acc.add(n);
      block(s.cond);
      block(s.body);
      return;
    default:
      s satisfies never;
  }
}

/** The graph of a program's entry block, with the graphs of every nested block. */
export function programGraph(program: Program): BlockGraph {
  return buildBlockGraph(program.body, 'root', programFacts(program), new Set());
}
