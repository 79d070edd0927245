// The checker's own BlockGraph of a graph given in the JSON graph format (docs/PLAN-FORMAT.md
// "JSON graph input"), so that plans made from JSON graphs are validated and costed by the
// same validator, evaluator and brute force as plans of programs.
//
// Independent of the planner's reader (src/graph/fromJson.ts): only the format's types are
// shared. The fusion rules are applied here from docs/PLANNING.md and PLAN-FORMAT.md:
//  - a read's order follows from its role (PLANNING.md's table);
//  - an edge (p, c) joins two nodes of a block when c reads an output of p; it is infusible when
//    one of its reads is indexed, a force input, a scatter destination or a control-flow read,
//    when p is a force or a scatter, when p or c is control flow, or when the JSON says so
//    (`fusible: false` with a `reason`, or an `order` edge between the same two nodes);
//  - an `order` edge orders two nodes without a read (it is no read and costs nothing);
//  - a scatter's destination: every other node reading one of its arrays comes strictly before
//    (per array, as PLANNING.md rule 3 says, not per tuple);
//  - gather orders name the gather's node id, so a gather's label is the gather itself; the
//    nodes are put in a dependence order (Kahn over edges and scatter precedences, the JSON's
//    order breaking ties), which the brute force relies on.
// The in-place memory facts of rule 3 (a destination is the block's own combinator output,
// read by its scatter only as the destination) are lowering's guarantees for IR, not rules of
// the format (it lets a scatter update an input), so they are not checked here
// (BlockGraph.ownsScatterDestinations).
//
// Precondition: the JSON passed the reader's structural checks (E610–E629: known kinds and
// roles, unique names and ids, edges between existing nodes and inputs, arrays the producer
// produces, one destination per scatter, no cycle, nesting depth). A JSON value that did not
// is outside this module's contract: it may throw a CompilerBug or build a meaningless graph.
// Node ids the JSON leaves out are numbered as the reader numbers them: the least numbers no
// node claims, block by block (a block's nodes in the JSON's order, then the blocks of its
// control-flow nodes in dependence order).

import { CompilerBug } from '../diagnostics/index.js';
import type { BlockJson, EdgeJson, GraphJson, InputJson, NodeJson } from '../graph/jsonFormat.js';
import type { NodeId, ScalarType, VarName } from '../ir/types.js';
import {
  isControlKind,
  readInfusibility,
  readsByProducer,
  type BlockGraph,
  type Edge,
  type GraphNode,
  type Group,
  type NodeKind,
  type NodeOutput,
  type Read,
  type ReadOrder,
  type ReadRole,
} from './reads.js';
import { factsOf } from './kinds.js';

/** A role in which a JSON edge reads (every role of the format but `order`). */
type JsonReadRole = Exclude<EdgeJson['role'], 'order'>;

/** A reason the format gives for an infusible edge. */
type JsonReason = Extract<NonNullable<EdgeJson['reason']>, string>;

/** The role's read order (PLANNING.md "Reads") and the checker's name for the role. */
function readOfRole(role: JsonReadRole, consumer: NodeId): { readonly role: ReadRole; readonly order: ReadOrder } {
  switch (role) {
    case 'map-input':
    case 'gather-indices':
    case 'fold-input':
    case 'scatter-index':
    case 'scatter-values':
      return { role, order: { kind: 'output' } };
    case 'gather-source':
      return { role, order: { kind: 'fixed', order: { gather: consumer } } };
    case 'scanl-input':
      return { role, order: { kind: 'fixed', order: 0 } };
    case 'scanr-input':
      return { role, order: { kind: 'fixed', order: 1 } };
    case 'scatter-dest':
    case 'force-input':
    case 'indexed':
    case 'control':
    case 'while-init':
      return { role, order: { kind: 'unordered' } };
    default:
      return role satisfies never;
  }
}

/**
 * Why the edge from `producer` to `consumer` is infusible (PLANNING.md "Edges", then what the
 * JSON states: a reason, or an `order` edge between the two), or null when it is fusible.
 */
function pairInfusibility(
  producer: GraphNode,
  consumer: GraphNode,
  reads: readonly Read[],
  statedReasons: readonly JsonReason[],
  ordering: string | undefined,
): string | null {
  if (isControlKind(producer.kind)) return `the producer ${producer.label} is control flow`;
  if (isControlKind(consumer.kind)) return `the consumer ${consumer.label} is control flow`;
  const unstreamed = factsOf(producer.kind)?.unstreamedOutput ?? null;
  if (unstreamed !== null) return unstreamed;
  for (const r of reads) {
    const why = readInfusibility(r);
    if (why !== null) return why;
  }
  if (statedReasons.length > 0) return `the graph states it infusible (${[...new Set(statedReasons)].join(', ')})`;
  if (ordering !== undefined) return `${consumer.label} must come after ${producer.label} (${ordering})`;
  return null;
}

function reasonsOf(e: EdgeJson): JsonReason[] {
  if (e.reason === undefined) return [];
  return typeof e.reason === 'string' ? [e.reason] : [...e.reason];
}

/** One node of a block as the JSON gives it, with its id settled. */
interface JsonNode {
  readonly json: NodeJson;
  readonly id: NodeId;
  /** Position in the JSON's list (ties of the dependence order). */
  readonly position: number;
  readonly kind: NodeKind;
  readonly outs: readonly NodeOutput[];
  readonly label: string;
}

interface Ids {
  /** The least number no node of the graph claims, each call a new one. */
  readonly next: () => NodeId;
}

function claimedIds(block: BlockJson, acc: Set<number>): Set<number> {
  for (const n of block.nodes) {
    if (n.id !== undefined) acc.add(n.id);
    for (const b of n.blocks ?? []) claimedIds(b, acc);
  }
  return acc;
}

function idAllocator(taken: ReadonlySet<number>): Ids {
  let candidate = 0;
  return {
    next: () => {
      while (taken.has(candidate)) candidate++;
      return candidate++;
    },
  };
}

/** The arrays a node produces: `outs`, by default `[name]` for a combinator, none for `if`/`while`. */
function outputNames(node: NodeJson): readonly string[] {
  return node.outs ?? (isControlKind(node.kind) ? [] : [node.name]);
}

function elemsOf(facts: { readonly elems?: readonly ScalarType[] }, count: number): ScalarType[] {
  return facts.elems === undefined ? new Array<ScalarType>(count).fill('f64') : [...facts.elems];
}

function inputGroup(input: InputJson): Group {
  const names = input.components ?? [input.name];
  const elems = elemsOf(input, names.length);
  return {
    name: input.name,
    components: names.map((name, i) => ({ name, elem: elems[i]! })),
    producer: null,
    ...(input.weight === undefined ? {} : { weight: input.weight }),
    ...(input.size === undefined ? {} : { elements: input.size }),
  };
}

/**
 * The nodes in a dependence order: a producer before its consumers (reads and `order` edges),
 * every other reader of a scatter's destination array before the scatter; ties in the JSON's
 * order (Kahn's algorithm, the least JSON position first).
 */
function dependenceOrder(nodes: readonly JsonNode[], arcs: readonly (readonly [NodeId, NodeId])[], path: string): JsonNode[] {
  const succ = new Map<NodeId, NodeId[]>(nodes.map((n) => [n.id, []]));
  const indegree = new Map<NodeId, number>(nodes.map((n) => [n.id, 0]));
  for (const [a, b] of arcs) {
    succ.get(a)!.push(b);
    indegree.set(b, indegree.get(b)! + 1);
  }
  const byId = new Map(nodes.map((n) => [n.id, n] as const));
  const ready = nodes.filter((n) => indegree.get(n.id) === 0);
  const out: JsonNode[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => a.position - b.position);
    const n = ready.shift()!;
    out.push(n);
    for (const m of succ.get(n.id)!) {
      indegree.set(m, indegree.get(m)! - 1);
      if (indegree.get(m) === 0) ready.push(byId.get(m)!);
    }
  }
  if (out.length < nodes.length) {
    throw new CompilerBug('check/json-graph', `${path}: the graph has a cycle; the checker expects a graph the reader accepted (E620)`);
  }
  return out;
}

function buildBlock(block: BlockJson, path: string, ids: Ids): BlockGraph {
  const inputs = block.inputs ?? [];
  const edgesJson = block.edges ?? [];

  // Nodes, with ids (the reader's numbering: this block's nodes first, in the JSON's order).
  const jsonNodes: JsonNode[] = block.nodes.map((json, position) => {
    const id = json.id ?? ids.next();
    const names = outputNames(json);
    const elems = elemsOf(json, names.length);
    return {
      json,
      id,
      position,
      kind: json.kind,
      outs: isControlKind(json.kind) ? [] : names.map((name, i) => ({ name, elem: elems[i]! })),
      label: `${json.kind} ${json.name} (#${id})`,
    };
  });
  const nodeByName = new Map(jsonNodes.map((n) => [n.json.name, n] as const));
  const producerOf = new Map<VarName, NodeId>();
  for (const n of jsonNodes) for (const a of outputNames(n.json)) producerOf.set(a, n.id);

  // Array groups: a combinator's outputs; an input (its components); an array a control-flow
  // node of the block defines (one array each).
  const groupOf = new Map<VarName, Group>();
  for (const n of jsonNodes) {
    if (isControlKind(n.kind)) {
      const names = outputNames(n.json);
      const elems = elemsOf(n.json, names.length);
      names.forEach((name, i) => groupOf.set(name, { name, components: [{ name, elem: elems[i]! }], producer: null }));
      continue;
    }
    const group: Group = {
      name: n.outs[0]!.name,
      components: n.outs,
      producer: n.id,
      ...(n.json.weight === undefined ? {} : { weight: n.json.weight }),
      ...(n.json.size === undefined ? {} : { elements: n.json.size }),
    };
    for (const o of n.outs) groupOf.set(o.name, group);
  }
  for (const input of inputs) {
    const group = inputGroup(input);
    for (const c of group.components) groupOf.set(c.name, group);
  }

  // Reads: one per array an edge names, in its role (an array read twice in one role is one read).
  const readsOf = new Map<NodeId, Read[]>(jsonNodes.map((n) => [n.id, []]));
  const arraysOf = (e: EdgeJson): readonly string[] => {
    if (e.role === 'order') return [];
    if (e.arrays !== undefined) return e.arrays;
    const producer = nodeByName.get(e.from);
    if (producer !== undefined) return outputNames(producer.json);
    const input = inputs.find((i) => i.name === e.from);
    return input?.components ?? [e.from];
  };
  for (const e of edgesJson) {
    if (e.role === 'order') continue;
    const consumer = nodeByName.get(e.to)!;
    const list = readsOf.get(consumer.id)!;
    const { role, order } = readOfRole(e.role, consumer.id);
    for (const name of arraysOf(e)) {
      if (!list.some((r) => r.name === name && r.role === role)) list.push({ name, role, order });
    }
  }

  // Orderings without a read, and what the JSON states about each producer–consumer pair.
  const orderings = new Map<NodeId, Map<NodeId, string>>();
  const stated = new Map<string, { reasons: JsonReason[]; weight: number | undefined }>();
  const pairKey = (p: NodeId, c: NodeId): string => `${p}->${c}`;
  for (const e of edgesJson) {
    const producer = nodeByName.get(e.from);
    if (producer === undefined) continue; // an input: a memory read, never fused
    const consumer = nodeByName.get(e.to)!;
    const reasons = reasonsOf(e);
    const facts = stated.get(pairKey(producer.id, consumer.id)) ?? { reasons: [], weight: undefined };
    facts.reasons.push(...reasons);
    if (e.weight !== undefined) facts.weight = e.weight;
    stated.set(pairKey(producer.id, consumer.id), facts);
    if (e.role === 'order') {
      const m = orderings.get(consumer.id) ?? new Map<NodeId, string>();
      if (!m.has(producer.id)) m.set(producer.id, reasons.includes('shape') ? 'shape' : 'control-flow');
      orderings.set(consumer.id, m);
    }
  }

  // The dependence order: a producer before its consumers (reads and `order` edges), and every
  // other reader of a scatter's destination array before the scatter — per array, as the rule
  // (validate.ts) and the reader (src/graph/fromJson.ts) are, so that nested blocks' unnumbered
  // nodes get the reader's ids.
  const arcs: (readonly [NodeId, NodeId])[] = [];
  for (const e of edgesJson) {
    const producer = nodeByName.get(e.from);
    if (producer !== undefined) arcs.push([producer.id, nodeByName.get(e.to)!.id]);
  }
  for (const s of jsonNodes) {
    const role = factsOf(s.kind)?.updatesInPlace ?? null;
    if (role === null) continue;
    const dest = new Set(readsOf.get(s.id)!.filter((r) => r.role === role).map((r) => r.name));
    for (const other of jsonNodes) {
      if (other.id !== s.id && readsOf.get(other.id)!.some((r) => dest.has(r.name))) arcs.push([other.id, s.id]);
    }
  }
  const ordered = dependenceOrder(jsonNodes, arcs, path);

  const nodes: GraphNode[] = ordered.map((n, index) => ({
    id: n.id,
    kind: n.kind,
    outs: n.outs,
    index,
    label: n.label,
    weightName: n.json.name,
    reads: readsOf.get(n.id)!,
  }));
  const byId = new Map(nodes.map((n) => [n.id, n] as const));

  // Edges: per producer–consumer pair with at least one read; infusible as PLANNING.md says,
  // or as the JSON states (a reason, or an `order` edge between the two).
  const edges: Edge[] = [];
  for (const c of nodes) {
    for (const [p, reads] of readsByProducer(c, producerOf)) {
      const facts = stated.get(pairKey(p, c.id));
      const infusible = pairInfusibility(byId.get(p)!, c, reads, facts?.reasons ?? [], orderings.get(c.id)?.get(p));
      edges.push({
        producer: p,
        consumer: c.id,
        reads,
        infusible,
        ...(facts?.weight === undefined ? {} : { weight: facts.weight }),
      });
    }
  }

  // Results: the combinators producing them (a node named, or one of its arrays).
  const results = new Set<NodeId>();
  for (const name of block.results ?? []) {
    const id = nodeByName.get(name)?.id ?? producerOf.get(name);
    if (id !== undefined && !isControlKind(byId.get(id)!.kind)) results.add(id);
  }

  const readGroups = new Set<Group>();
  for (const n of nodes) for (const r of n.reads) if (groupOf.has(r.name)) readGroups.add(groupOf.get(r.name)!);
  for (const n of nodes) if (!isControlKind(n.kind)) readGroups.add(groupOf.get(n.outs[0]!.name)!);

  // Children: the reader numbers their nodes after this block's, in dependence order.
  const children = new Map<NodeId, readonly BlockGraph[]>();
  for (const n of ordered) {
    if (!isControlKind(n.kind)) continue;
    const names = n.kind === 'if' ? ['then', 'else'] : ['cond', 'body'];
    const blocks = n.json.blocks ?? [];
    children.set(n.id, blocks.map((b, k) => buildBlock(b, `${path}/${n.kind} #${n.id} ${names[k]}`, ids)));
  }

  // In-place facts: the copies the graph declares elidable; a JSON graph states no scalars and
  // no control-flow outputs that may alias (BlockJson.elidable).
  const copies = new Map<NodeId, readonly VarName[]>();
  for (const name of block.elidable ?? []) {
    const n = nodeByName.get(name);
    if (n !== undefined) copies.set(n.id, byId.get(n.id)!.reads.filter((r) => r.role === 'map-input').map((r) => r.name));
  }
  const resultArrays = new Set<VarName>((block.results ?? []).flatMap((name) => nodeByName.get(name)?.outs.map((o) => o.name) ?? [name]));
  const inPlace = { copies, resultArrays, aliasedByControl: new Set<VarName>(), unanchored: new Set<VarName>(), scalars: [] };

  return {
    path,
    nodes,
    byId,
    producerOf,
    edges,
    orderings,
    groupOf,
    groups: [...readGroups],
    results,
    ownsScatterDestinations: false,
    donatedInputs: new Set(),
    children,
    inPlace,
  };
}

/**
 * The checker's graph of a JSON graph (the top-level block, its nested blocks inside). The JSON
 * must have passed the reader's structural checks, E610–E629 (module comment).
 */
export function jsonBlockGraph(json: GraphJson): BlockGraph {
  return buildBlock(json, 'root', idAllocator(claimedIds(json, new Set())));
}
