// The JSON graph format, version 1 (docs/PLAN-FORMAT.md "JSON graph input"): how another
// compiler hands us its dependence graph without our IR, and how we print ours.
//
// `parseGraphJson(json, options)` reads a graph and checks it thoroughly (every mistake is one
// UserError, E610–E629, whose message starts with the JSON path of the offending value, located
// in the text when given text). It gives the BlockGraphs that `programGraphs` (program.ts) gives
// for a Program, sizes and weights resolved the same way, so that planning (src/plan) and the
// driver's `planGraph` treat both entries alike. No IR is made up: a node read here carries the
// same facts as one built from a statement (types.ts).
// The writer, `graphToJson`, is toJson.ts; the format's types and tables are jsonFormat.ts.
//
// The format states facts the planner cannot re-derive without element code (which arrays a
// node reads, in which role), and derives the rest the way src/graph/build.ts does: the order
// rule of a read from its role, why an edge is infusible from its roles and kinds, a scatter's
// precedences from its destination, gather labels from the node order. A stated `fusible` or
// `reason` may add infusibility but never contradict what the roles imply.

import { CompilerBug, noSpan, SourceFile, userError, type DiagnosticCode } from '../diagnostics/index.js';
import { jsonError, parseJson, type Json, type JsonObject } from '../diagnostics/checkedJson.js';
import type {
  ArrayGroup,
  DependenceGraph,
  ElidableCopy,
  GraphEdge,
  GraphNode,
  GraphNodeKind,
  GraphRead,
  GraphReadRole,
  InfusibleReason,
  StrictPrecedence,
} from './types.js';
import { fusionRule, graphReadRoles, isControlKind, nodeKinds, roleRule, rolesOf } from '../ir/rules.js';
import { scalarTypes, type NodeId, type ScalarType } from '../ir/types.js';
import type { BlockGraphs } from './program.js';
import type { EntrySizes } from './sizes.js';
import { edgeWeightKey, elementCount, type CostWeights } from './weights.js';
import { findCycle, topologicalOrder as kahnOrder } from '../util/graphs.js';
import { withReaders } from './build.js';
import {
  type GraphJson,
  graphJsonFormat,
  graphJsonVersion,
  infusibleReasons,
  maxGraphBlockDepth,
} from './jsonFormat.js';

// ---------------------------------------------------------------------------------------------
// Checked reading of untyped JSON, every complaint naming its JSON path
// ---------------------------------------------------------------------------------------------

/** Where errors point: the JSON path always; the source text when we were given one. */
interface Where {
  readonly file: SourceFile | undefined;
}

/** A UserError whose message starts with the JSON path, located in the text when there is one. */
function fail(where: Where, code: DiagnosticCode, path: string, message: string, notes?: readonly string[]): never {
  throw jsonError({ file: where.file, located: true, root: '$' }, code, path, message, notes);
}

/** A short rendering of a JSON value for messages: containers nested deeper than 3 show as `…`. */
function show(v: Json): string {
  const text = showShallow(v, 3);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function showShallow(v: Json, depth: number): string {
  if (typeof v !== 'object' || v === null) return JSON.stringify(v) ?? String(v);
  if (depth === 0) return Array.isArray(v) ? '[…]' : '{…}';
  // Long containers: the first few members are all a 40-character message can show.
  if (Array.isArray(v)) return `[${v.slice(0, 8).map((x) => showShallow(x, depth - 1)).join(',')}${v.length > 8 ? ',…' : ''}]`;
  const entries = Object.entries(v).slice(0, 8);
  return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${showShallow(x, depth - 1)}`).join(',')}${Object.keys(v).length > 8 ? ',…' : ''}}`;
}

function objectAt(where: Where, v: Json, path: string, what: string, fields: readonly string[]): JsonObject {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(where, 'E612', path, `expected ${what} (a JSON object), found ${show(v)}`);
  for (const key of Object.keys(v)) {
    if (!fields.includes(key)) fail(where, 'E628', `${path}.${key}`, `unknown field \`${key}\` of ${what}`, [`the fields are: ${fields.join(', ')}`]);
  }
  return v as JsonObject;
}

function arrayAt(where: Where, v: Json, path: string): readonly Json[] {
  if (!Array.isArray(v)) fail(where, 'E612', path, `expected a JSON array, found ${show(v)}`);
  return v;
}

function stringAt(where: Where, v: Json, path: string): string {
  if (typeof v !== 'string' || v === '') fail(where, 'E612', path, `expected a non-empty string, found ${show(v)}`);
  return v;
}

function stringsAt(where: Where, v: Json, path: string): string[] {
  const out = arrayAt(where, v, path).map((x, i) => stringAt(where, x, `${path}[${i}]`));
  const dup = out.find((x, i) => out.indexOf(x) !== i);
  if (dup !== undefined) fail(where, 'E614', path, `\`${dup}\` is listed twice`);
  return out;
}

function weightAt(where: Where, v: Json, path: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) fail(where, 'E623', path, `a weight is a finite non-negative number, not ${show(v)}`);
  return v;
}

function sizeAt(where: Where, v: Json, path: string): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) fail(where, 'E624', path, `a size is a whole number of elements (0 or more), not ${show(v)}`);
  return v;
}

function elemsAt(where: Where, v: Json, path: string, count: number): ScalarType[] {
  if (v === undefined) return new Array<ScalarType>(count).fill('f64');
  const list = arrayAt(where, v, path);
  if (list.length !== count) fail(where, 'E627', path, `expected ${count} element type(s), one per array, found ${list.length}`);
  return list.map((x, i) => {
    if (!scalarTypes.includes(x as ScalarType)) fail(where, 'E627', `${path}[${i}]`, `unknown element type ${show(x)}`, [`element types: ${scalarTypes.join(', ')}`]);
    return x as ScalarType;
  });
}

// ---------------------------------------------------------------------------------------------
// JSON → BlockGraphs
// ---------------------------------------------------------------------------------------------

/** Sizes and weights the caller adds to (and that override) the graph's own. */
interface Overrides {
  readonly weights: CostWeights;
  readonly shapes: EntrySizes;
}

interface ReadContext {
  readonly where: Where;
  readonly overrides: Overrides;
  /** The id of a node the JSON gives none: the least number no node of the graph claims. */
  readonly nextId: () => NodeId;
}

function idAllocator(taken: ReadonlySet<number>): () => NodeId {
  let candidate = 0;
  return () => {
    while (taken.has(candidate)) candidate++;
    return candidate++;
  };
}

/**
 * E629 when blocks nest deeper than maxGraphBlockDepth. Runs before anything that recurses over
 * blocks, with an explicit stack, looking only at `nodes[i].blocks[k]` (their shapes are checked
 * later).
 */
function checkBlockDepth(where: Where, top: Json): void {
  const pending: { readonly block: Json; readonly path: string; readonly depth: number }[] = [{ block: top, path: '$', depth: 0 }];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { block, path, depth } = item;
    if (depth > maxGraphBlockDepth) {
      fail(where, 'E629', path, `blocks are nested more than ${maxGraphBlockDepth} deep`);
    }
    const nodes = typeof block === 'object' && block !== null ? (block as JsonObject)['nodes'] : undefined;
    if (!Array.isArray(nodes)) continue;
    nodes.forEach((n: Json, i) => {
      const blocks = typeof n === 'object' && n !== null ? (n as JsonObject)['blocks'] : undefined;
      if (Array.isArray(blocks)) blocks.forEach((b: Json, k) => pending.push({ block: b, path: `${path}.nodes[${i}].blocks[${k}]`, depth: depth + 1 }));
    });
  }
}

/** Every `id` given anywhere in the graph, checked for type and uniqueness first. */
function collectIds(where: Where, block: Json, path: string, seen: Map<number, string>): void {
  if (typeof block !== 'object' || block === null || !Array.isArray((block as JsonObject)['nodes'])) return; // reported later
  ((block as JsonObject)['nodes'] as Json[]).forEach((n, i) => {
    if (typeof n !== 'object' || n === null) return;
    const node = n as JsonObject;
    const id = node['id'];
    if (id !== undefined) {
      const p = `${path}.nodes[${i}].id`;
      if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) fail(where, 'E612', p, `an id is a whole number (0 or more), not ${show(id)}`);
      const other = seen.get(id);
      if (other !== undefined) fail(where, 'E614', p, `id ${id} is also the id of ${other}`);
      seen.set(id, p);
    }
    if (Array.isArray(node['blocks'])) node['blocks'].forEach((b, k) => collectIds(where, b, `${path}.nodes[${i}].blocks[${k}]`, seen));
  });
}

interface InputInfo {
  readonly name: string;
  readonly components: readonly string[];
  readonly elems: readonly ScalarType[];
  readonly size: number | undefined;
  readonly weight: number | undefined;
}

interface NodeInfo {
  readonly path: string;
  readonly id: NodeId;
  readonly name: string;
  readonly kind: GraphNodeKind;
  readonly outs: readonly string[];
  readonly elems: readonly ScalarType[];
  readonly size: number | undefined;
  readonly weight: number | undefined;
  readonly blocks: readonly Json[];
}

interface EdgeInfo {
  readonly path: string;
  /** The producing node, or null for an input. */
  readonly producer: NodeInfo | null;
  readonly input: InputInfo | null;
  readonly consumer: NodeInfo;
  readonly role: GraphReadRole | 'order';
  /** Empty for an `order` edge. */
  readonly arrays: readonly string[];
  readonly fusible: boolean | undefined;
  readonly reasons: readonly InfusibleReason[];
  readonly weight: number | undefined;
}

const blockFields = ['inputs', 'nodes', 'edges', 'results', 'elidable'];
const topFields = ['format', 'version', 'name', ...blockFields];

function readInputs(ctx: ReadContext, v: Json, path: string): InputInfo[] {
  const { where } = ctx;
  if (v === undefined) return [];
  return arrayAt(where, v, path).map((x, i) => {
    const p = `${path}[${i}]`;
    const o = objectAt(where, x, p, 'an input', ['name', 'components', 'elems', 'size', 'weight']);
    const name = stringAt(where, o['name'], `${p}.name`);
    const components = o['components'] === undefined ? [name] : stringsAt(where, o['components'], `${p}.components`);
    if (components.length === 0) fail(where, 'E612', `${p}.components`, 'an input has at least one component array');
    return {
      name,
      components,
      elems: elemsAt(where, o['elems'], `${p}.elems`, components.length),
      size: sizeAt(where, o['size'], `${p}.size`),
      weight: weightAt(where, o['weight'], `${p}.weight`),
    };
  });
}

function readNodes(ctx: ReadContext, v: Json, path: string): NodeInfo[] {
  const { where } = ctx;
  return arrayAt(where, v, path).map((x, i) => {
    const p = `${path}[${i}]`;
    const o = objectAt(where, x, p, 'a node', ['name', 'kind', 'id', 'outs', 'elems', 'size', 'weight', 'blocks']);
    const name = stringAt(where, o['name'], `${p}.name`);
    const kindValue = o['kind'];
    if (!nodeKinds.includes(kindValue as GraphNodeKind)) {
      fail(where, 'E613', `${p}.kind`, `unknown node kind ${show(kindValue)}`, [`node kinds: ${nodeKinds.join(', ')}`]);
    }
    const kind = kindValue as GraphNodeKind;
    const control = isControlKind(kind);
    const outs = o['outs'] === undefined ? (control ? [] : [name]) : stringsAt(where, o['outs'], `${p}.outs`);
    if (!control && outs.length === 0) fail(where, 'E612', `${p}.outs`, `a ${kind} produces at least one array`);
    let blocks: readonly Json[] = [];
    const aKind = kind === 'if' ? 'an `if`' : kind === 'while' ? 'a `while`' : `a ${kind}`;
    if (control) {
      const names = kind === 'if' ? '[then, else]' : '[cond, body]';
      if (o['blocks'] === undefined) fail(where, 'E626', p, `${aKind} node needs \`blocks\`: ${names}`);
      blocks = arrayAt(where, o['blocks'], `${p}.blocks`);
      if (blocks.length !== 2) fail(where, 'E626', `${p}.blocks`, `${aKind} node has two blocks, ${names}; found ${blocks.length}`);
    } else if (o['blocks'] !== undefined) {
      fail(where, 'E626', `${p}.blocks`, `only \`if\` and \`while\` nodes have blocks, not a ${kind}`);
    }
    if (control && (o['size'] !== undefined || o['weight'] !== undefined)) {
      fail(where, 'E612', p, `${aKind} node's outputs are inputs of its readers; give their size and weight there`);
    }
    const id = o['id'] === undefined ? ctx.nextId() : (o['id'] as number);
    return {
      path: p,
      id,
      name,
      kind,
      outs,
      elems: elemsAt(where, o['elems'], `${p}.elems`, outs.length),
      size: sizeAt(where, o['size'], `${p}.size`),
      weight: weightAt(where, o['weight'], `${p}.weight`),
      blocks,
    };
  });
}

function readReasons(where: Where, v: Json, path: string): InfusibleReason[] {
  if (v === undefined) return [];
  const list = Array.isArray(v) ? v : [v];
  return list.map((r, i) => {
    if (!infusibleReasons.includes(r as InfusibleReason)) {
      fail(where, 'E619', Array.isArray(v) ? `${path}[${i}]` : path, `unknown reason ${show(r)}`, [`reasons: ${infusibleReasons.join(', ')}`]);
    }
    return r as InfusibleReason;
  });
}

function readEdges(ctx: ReadContext, v: Json, path: string, nodes: ReadonlyMap<string, NodeInfo>, inputs: ReadonlyMap<string, InputInfo>): EdgeInfo[] {
  const { where } = ctx;
  if (v === undefined) return [];
  return arrayAt(where, v, path).map((x, i) => {
    const p = `${path}[${i}]`;
    const o = objectAt(where, x, p, 'an edge', ['from', 'to', 'role', 'arrays', 'fusible', 'reason', 'weight']);
    const from = stringAt(where, o['from'], `${p}.from`);
    const to = stringAt(where, o['to'], `${p}.to`);
    const producer = nodes.get(from) ?? null;
    const input = inputs.get(from) ?? null;
    if (producer === null && input === null) {
      fail(where, 'E615', `${p}.from`, `\`${from}\` is neither a node nor an input of this block`, [`a block lists what it reads from outside under \`inputs\``]);
    }
    const consumer = nodes.get(to);
    if (consumer === undefined) {
      fail(where, 'E615', `${p}.to`, inputs.has(to) ? `\`${to}\` is an input; edges end at nodes` : `\`${to}\` is not a node of this block`);
    }
    const roleValue = o['role'];
    let role: GraphReadRole | 'order';
    let arrays: readonly string[] = [];
    if (roleValue === 'order') {
      role = 'order';
      if (producer === null) fail(where, 'E615', `${p}.from`, `\`${from}\` is an input; an \`order\` edge comes from a node of the block`);
      if (o['arrays'] !== undefined) fail(where, 'E617', `${p}.arrays`, 'an `order` edge reads no arrays');
    } else {
      if (!graphReadRoles.includes(roleValue as GraphReadRole)) {
        fail(where, 'E616', `${p}.role`, `unknown read role ${show(roleValue)}`, [`roles: ${graphReadRoles.join(', ')}, or \`order\` for an ordering without a read`]);
      }
      role = roleValue as GraphReadRole;
      if (!rolesOf(consumer.kind).includes(role)) {
        fail(where, 'E616', `${p}.role`, `a ${consumer.kind} does not read in role \`${role}\``, [`a ${consumer.kind} reads in: ${rolesOf(consumer.kind).join(', ')}`]);
      }
      const available = producer?.outs ?? input!.components;
      arrays = o['arrays'] === undefined ? available : stringsAt(where, o['arrays'], `${p}.arrays`);
      if (arrays.length === 0) fail(where, 'E617', `${p}.arrays`, 'an edge carries at least one array');
      for (const [k, a] of arrays.entries()) {
        if (!available.includes(a)) fail(where, 'E617', `${p}.arrays[${k}]`, `\`${from}\` does not produce \`${a}\``, [`it produces: ${available.join(', ') || 'no arrays'}`]);
      }
    }
    const fusible = o['fusible'];
    if (fusible !== undefined && typeof fusible !== 'boolean') fail(where, 'E612', `${p}.fusible`, `expected true or false, found ${show(fusible)}`);
    return {
      path: p,
      producer,
      input,
      consumer,
      role,
      arrays,
      fusible,
      reasons: readReasons(where, o['reason'], `${p}.reason`),
      weight: weightAt(where, o['weight'], `${p}.weight`),
    };
  });
}

function producerName(e: EdgeInfo): string {
  return e.producer?.name ?? e.input!.name;
}

/** Why the roles and kinds make an edge infusible (the nodes' rules, as src/graph/build.ts reads them). */
function impliedReasons(e: EdgeInfo): InfusibleReason[] {
  const out: InfusibleReason[] = [];
  const byRole = e.role === 'order' ? null : roleRule(e.role).infusible;
  if (byRole !== null) out.push(byRole);
  const byKinds = new Set([e.producer === null ? null : fusionRule(e.producer.kind).infusibleOutput, fusionRule(e.consumer.kind).infusibleInput]);
  for (const reason of byKinds) if (reason !== null) out.push(reason);
  return out;
}

/** Topological order of the nodes over edges and precedences, the given order breaking ties. */
function topologicalOrder(where: Where, path: string, nodes: readonly NodeInfo[], arcs: readonly (readonly [NodeId, NodeId])[]): NodeInfo[] {
  const position = new Map(nodes.map((n, i) => [n.id, i]));
  const succ = nodes.map((): number[] => []);
  for (const [a, b] of arcs) {
    const i = position.get(a)!;
    const j = position.get(b)!;
    if (i === j) fail(where, 'E620', path, `\`${nodes[i]!.name}\` depends on itself`);
    succ[i]!.push(j);
  }
  const order = kahnOrder(succ, 'smallest');
  if (order.length < nodes.length) {
    const cycle = findCycle(succ, order);
    if (cycle === null) throw new CompilerBug('plan/graph-json', 'the order is incomplete, yet no cycle is left unordered');
    const names = cycle.map((i) => nodes[i]!.name);
    fail(where, 'E620', path, `the graph has a cycle: ${[...names, names[0]].join(' -> ')}`, [
      'edges go from producer to consumer, and every other reader of a scatter destination runs before the scatter',
    ]);
  }
  return order.map((i) => nodes[i]!);
}

interface GroupFacts {
  readonly size: number | undefined;
  readonly weight: number | undefined;
}

function readBlock(ctx: ReadContext, v: Json, path: string, fields: readonly string[]): BlockGraphs {
  const { where } = ctx;
  const o = objectAt(where, v, path, 'a block', fields);
  if (o['nodes'] === undefined) fail(where, 'E612', path, 'a block needs `nodes` (a list, possibly empty)');
  const inputs = readInputs(ctx, o['inputs'], `${path}.inputs`);
  const nodes = readNodes(ctx, o['nodes'], `${path}.nodes`);

  // Names: node names, input names and every array name are unique within the block.
  const nodeByName = new Map<string, NodeInfo>();
  const inputByName = new Map<string, InputInfo>();
  const arrayOwner = new Map<string, string>();
  const claim = (name: string, owner: string, p: string): void => {
    const other = arrayOwner.get(name);
    if (other !== undefined && other !== owner) fail(where, 'E614', p, `\`${name}\` is also the name of ${other}`);
    arrayOwner.set(name, owner);
  };
  inputs.forEach((inp, i) => {
    if (inputByName.has(inp.name)) fail(where, 'E614', `${path}.inputs[${i}].name`, `two inputs are named \`${inp.name}\``);
    inputByName.set(inp.name, inp);
    claim(inp.name, `input \`${inp.name}\``, `${path}.inputs[${i}].name`);
    inp.components.forEach((c, k) => claim(c, `input \`${inp.name}\``, `${path}.inputs[${i}].components[${k}]`));
  });
  for (const n of nodes) {
    if (nodeByName.has(n.name)) fail(where, 'E614', `${n.path}.name`, `two nodes are named \`${n.name}\``);
    nodeByName.set(n.name, n);
    claim(n.name, `node \`${n.name}\``, `${n.path}.name`);
    n.outs.forEach((a, k) => claim(a, `node \`${n.name}\``, `${n.path}.outs[${k}]`));
  }

  const edges = readEdges(ctx, o['edges'], `${path}.edges`, nodeByName, inputByName);

  // Array groups: each combinator's outputs, each input, each array a control-flow node defines.
  const groups: ArrayGroup[] = [];
  const groupOfArray = new Map<string, number>();
  const addGroup = (g: Omit<ArrayGroup, 'index' | 'size' | 'weight'>, f: GroupFacts): number => {
    groups.push({ ...g, index: groups.length, ...resolvedFacts(g.name, f, ctx.overrides) });
    for (const a of g.names) groupOfArray.set(a, groups.length - 1);
    return groups.length - 1;
  };

  // Scatter destinations first: they give precedences, which the node order must respect. They
  // act per array, not per group (PLANNING.md rule 3, as build.ts): a scatter into one component
  // of a tuple leaves the others alone, so their readers are not ordered by it and another
  // scatter may update them. Array names are unique in a block (E614), so a name is the key.
  const destOf = new Map<NodeId, EdgeInfo>();
  const scatterOfArray = new Map<string, EdgeInfo>();
  const inPlaceRole = (kind: GraphNodeKind): string | null => fusionRule(kind).updatesInPlace?.role ?? null;
  for (const e of edges) {
    if (e.role !== inPlaceRole(e.consumer.kind)) continue;
    const previous = destOf.get(e.consumer.id);
    if (previous !== undefined && producerName(previous) !== producerName(e)) {
      fail(where, 'E621', e.path, `the ${e.consumer.kind} \`${e.consumer.name}\` already has the destination \`${producerName(previous)}\`; a ${e.consumer.kind} has one`);
    }
    destOf.set(e.consumer.id, e);
  }
  for (const n of nodes) {
    const role = inPlaceRole(n.kind);
    if (role !== null && !destOf.has(n.id)) fail(where, 'E621', n.path, `the ${n.kind} \`${n.name}\` has no destination (an edge to it in role \`${role}\`)`);
  }
  // Every destination edge (an update may split its destination's arrays over several).
  for (const e of edges) {
    if (e.role !== inPlaceRole(e.consumer.kind)) continue;
    for (const a of e.arrays) {
      const other = scatterOfArray.get(a);
      if (other !== undefined && other.consumer.id !== e.consumer.id) {
        fail(where, 'E622', e.path, `\`${a}\` is the destination of two scatters, \`${other.consumer.name}\` and \`${e.consumer.name}\`; a scatter updates its destination in place, so only one may`);
      }
      scatterOfArray.set(a, e);
    }
  }

  // Node order: topological over producer → consumer and reader → scatter of what it reads.
  const arcs: [NodeId, NodeId][] = [];
  for (const e of edges) if (e.producer !== null) arcs.push([e.producer.id, e.consumer.id]);
  const precedences: StrictPrecedence[] = [];
  for (const e of edges) {
    const scatters = new Set(e.arrays.map((a) => scatterOfArray.get(a)).filter((s) => s !== undefined && s.consumer.id !== e.consumer.id).map((s) => s!.consumer.id));
    for (const s of scatters) {
      if (!precedences.some((p) => p.before === e.consumer.id && p.scatter === s)) precedences.push({ before: e.consumer.id, scatter: s });
      arcs.push([e.consumer.id, s]);
    }
  }
  const ordered = topologicalOrder(where, path, nodes, arcs);

  // Combinator groups in node order, so that group numbers follow the statement order.
  const groupOfNode = new Map<NodeId, number>();
  for (const n of ordered) {
    if (!isControlKind(n.kind)) groupOfNode.set(n.id, addGroup({ name: n.outs[0]!, names: n.outs, elems: n.elems, producer: n.id, definedBy: null }, { size: n.size, weight: n.weight }));
  }

  // Reads: one per (consumer, group, role), touching the union of the arrays the edges name.
  const reads: GraphRead[] = [];
  const sourceGroup = (e: EdgeInfo, array: string): number => {
    const known = groupOfArray.get(array);
    if (known !== undefined) return known;
    if (e.input !== null) {
      const inp = e.input;
      return addGroup({ name: inp.name, names: inp.components, elems: inp.elems, producer: null, definedBy: null }, { size: inp.size, weight: inp.weight });
    }
    const p = e.producer!;
    return addGroup({ name: array, names: [array], elems: [p.elems[p.outs.indexOf(array)]!], producer: null, definedBy: p.id }, { size: undefined, weight: undefined });
  };
  for (const e of edges) {
    const role = e.role;
    if (role === 'order') continue;
    for (const a of e.arrays) {
      const group = sourceGroup(e, a);
      const existing = reads.findIndex((r) => r.consumer === e.consumer.id && r.group === group && r.role === role);
      if (existing < 0) reads.push({ consumer: e.consumer.id, group, role, order: roleRule(role).order, arrays: [a] });
      else if (!reads[existing]!.arrays.includes(a)) reads[existing] = { ...reads[existing]!, arrays: [...reads[existing]!.arrays, a] };
    }
  }

  let gatherCount = 0;
  const graphNodes: GraphNode[] = ordered.map((n, index) => ({
    id: n.id,
    index,
    kind: n.kind,
    name: n.name,
    outs: n.outs,
    elems: n.elems,
    // The arrays its destination edges carry (from one producer, checked above).
    dest: reads.filter((r) => r.consumer === n.id && r.role === inPlaceRole(n.kind)).flatMap((r) => r.arrays),
    group: groupOfNode.get(n.id) ?? null,
    label: fusionRule(n.kind).labelled ? 2 + gatherCount++ : null,
    span: noSpan,
  }));

  const graphEdges = pairEdges(where, edges, reads, groups, graphNodes, ctx.overrides);
  const resultGroupOf = (name: string): number | undefined => groupOfArray.get(nodeByName.get(name)?.outs[0] ?? name);
  const resultGroups = readResults(where, o['results'], `${path}.results`, resultGroupOf, groups, arrayOwner);
  const base: DependenceGraph = { nodes: graphNodes, groups, reads, edges: graphEdges, precedences, resultGroups, gatherCount };
  const elidable = readElidable(where, o['elidable'], `${path}.elidable`, base, (name) => nodeByName.get(name)?.id);
  const graph: DependenceGraph = elidable.length === 0 ? base : { ...base, elidableCopies: elidable };

  const children: Record<number, readonly BlockGraphs[]> = {};
  for (const n of ordered) {
    if (isControlKind(n.kind)) children[n.id] = n.blocks.map((b, k) => readBlock(ctx, b, `${n.path}.blocks[${k}]`, blockFields));
  }
  return { graph, children };
}

/** A group's size and weight: the caller's (by the group's name) over the graph's own, else unknown and 1. */
function resolvedFacts(name: string, facts: GroupFacts, overrides: Overrides): Pick<ArrayGroup, 'size' | 'weight'> {
  const shape = overrides.shapes[name];
  return {
    size: Array.isArray(shape) ? elementCount(shape) : (facts.size ?? null),
    weight: overrides.weights.arrays?.[name] ?? facts.weight ?? 1,
  };
}

/** Merges the JSON edges of each producer–consumer pair into one GraphEdge, its weight the caller's over the stated one. */
function pairEdges(
  where: Where,
  edges: readonly EdgeInfo[],
  reads: readonly GraphRead[],
  groups: readonly ArrayGroup[],
  nodes: readonly GraphNode[],
  overrides: Overrides,
): GraphEdge[] {
  const byPair = new Map<string, EdgeInfo[]>();
  for (const e of edges) {
    if (e.producer === null) {
      if (e.fusible === true) fail(where, 'E618', `${e.path}.fusible`, `\`${e.input!.name}\` is an input: it is read from memory, never fused`);
      if (e.reasons.length > 0 || e.fusible === false) fail(where, 'E618', e.path, `\`${e.input!.name}\` is an input: reads of inputs are never fused, so they take no \`fusible\` or \`reason\``);
      continue;
    }
    const key = `${e.producer.id}->${e.consumer.id}`;
    byPair.set(key, [...(byPair.get(key) ?? []), e]);
  }
  const position = new Map(nodes.map((n) => [n.id, n.index]));
  const out: GraphEdge[] = [];
  for (const list of byPair.values()) {
    const { producer, consumer } = list[0]!;
    const reasons = new Set<InfusibleReason>();
    for (const e of list) {
      const implied = impliedReasons(e);
      if (e.fusible === true && implied.length > 0) {
        fail(where, 'E618', `${e.path}.fusible`, `this edge cannot be fused: ${implied.join(', ')}`, [`drop \`fusible\`; it follows from the role and the kinds`]);
      }
      if (e.fusible === true && e.reasons.length > 0) fail(where, 'E618', `${e.path}.reason`, 'a fusible edge has no reason to be infusible');
      if (e.role === 'order' && e.fusible === true) fail(where, 'E618', `${e.path}.fusible`, 'an `order` edge reads nothing, so there is nothing to fuse');
      if (e.role === 'order' && implied.length === 0 && e.reasons.length === 0) {
        fail(where, 'E619', e.path, 'say why the consumer must come after the producer', ['give `reason`: `control-flow` (a scalar the producer computes) or `shape` (a size known once it has run)']);
      }
      if (e.fusible === false && implied.length === 0 && e.reasons.length === 0) {
        fail(where, 'E619', e.path, 'say why this edge is infusible: nothing in its role or kinds makes it so', [`give \`reason\`: one of ${infusibleReasons.join(', ')}`]);
      }
      for (const r of [...implied, ...e.reasons]) reasons.add(r);
    }
    const stated = list.filter((e) => e.weight !== undefined);
    const weight = stated[0]?.weight;
    const disagreeing = stated.find((e) => e.weight !== weight);
    if (disagreeing !== undefined) {
      fail(where, 'E623', `${disagreeing.path}.weight`, `the edges from \`${producer!.name}\` to \`${consumer.name}\` state different weights (${weight} and ${disagreeing.weight}); they are one edge of the graph`);
    }
    const resolved = overrides.weights.edges?.[edgeWeightKey(producer!.name, consumer.name)] ?? weight ?? 1;
    const pairReads = reads.filter((r) => r.consumer === consumer.id && (groups[r.group]!.producer ?? groups[r.group]!.definedBy) === producer!.id);
    out.push({ from: producer!.id, to: consumer.id, fusible: reasons.size === 0, reasons: [...reasons], reads: pairReads, weight: resolved });
  }
  out.sort((a, b) => position.get(a.from)! - position.get(b.from)! || position.get(a.to)! - position.get(b.to)!);
  return out;
}

function readResults(
  where: Where,
  v: Json,
  path: string,
  groupOf: (name: string) => number | undefined,
  groups: readonly ArrayGroup[],
  arrayOwner: ReadonlyMap<string, string>,
): number[] {
  if (v === undefined) return [];
  const names = stringsAt(where, v, path);
  const out: number[] = [];
  names.forEach((name, i) => {
    if (!arrayOwner.has(name)) fail(where, 'E625', `${path}[${i}]`, `the result \`${name}\` is not an array (or node) of this block`);
    const group = groupOf(name);
    // Results that are inputs (or control-flow outputs nobody reads) cost nothing here.
    if (group !== undefined && groups[group]!.producer !== null && !out.includes(group)) out.push(group);
  });
  return out;
}

/**
 * The block's elidable copies (BlockJson.elidable), each checked as the plan validator's
 * in-place rule requires (src/check/validate.ts `elisionCandidates`, for a graph that states no
 * scalars and no control-flow aliases): a `map` whose inputs are outputs of one combinator and
 * no result, read only by one scatter as its whole destination, its output no result, its
 * sources not read by that scatter and updated in place by no other node. E612 otherwise.
 */
function readElidable(where: Where, v: Json, path: string, graph: DependenceGraph, idOf: (name: string) => NodeId | undefined): ElidableCopy[] {
  if (v === undefined) return [];
  const names = stringsAt(where, v, path);
  const copies = names.map((name, i): Omit<ElidableCopy, 'readers'> => {
    const p = `${path}[${i}]`;
    const bad = (why: string): never => fail(where, 'E612', p, `\`${name}\` cannot be an elidable copy: ${why}`);
    const id = idOf(name);
    const node = graph.nodes.find((n) => n.id === id);
    if (node === undefined) return bad('it is no node of this block');
    if (node.kind !== 'map') return bad(`it is a ${node.kind}, not a map`);
    const inputs = graph.reads.filter((r) => r.consumer === node.id);
    const producers = new Set(inputs.map((r) => graph.groups[r.group]!.producer));
    const producer = [...producers][0];
    const sources = inputs.flatMap((r) => r.arrays);
    if (inputs.length !== 1 || producers.size !== 1 || producer === null || producer === undefined || sources.length !== node.outs.length) {
      return bad('its inputs are not outputs of one combinator, one per output');
    }
    const readers = graph.reads.filter((r) => r.arrays.some((a) => node.outs.includes(a)));
    const scatter = graph.nodes.find((n) => n.id === readers[0]?.consumer);
    if (readers.length !== 1 || scatter === undefined || scatter.dest.length !== node.outs.length || !scatter.dest.every((d, k) => d === node.outs[k])) {
      return bad('it is not read by one scatter alone, as its whole destination');
    }
    const results = new Set(graph.resultGroups.flatMap((g) => graph.groups[g]!.names));
    if ([...node.outs, ...sources].some((a) => results.has(a))) return bad('it or its input is a result');
    if (graph.reads.some((r) => r.consumer === scatter.id && r.arrays.some((a) => sources.includes(a)))) return bad(`the scatter \`${scatter.name}\` reads its input`);
    if (graph.nodes.some((n) => n.id !== scatter.id && n.dest.some((d) => sources.includes(d)))) return bad('another scatter updates its input in place');
    if (names.indexOf(name) !== i) return bad('it is listed twice');
    return { copy: node.id, scatter: scatter.id, producer, sources };
  });
  return withReaders(copies, graph.nodes, graph.reads, graph.edges, graph.precedences);
}

/** JSON.parse with a located E610 on malformed text. */
function parseText(text: string, sourceName: string): { value: Json; file: SourceFile } {
  const file = new SourceFile(sourceName, text);
  const parsed = parseJson(text);
  if (parsed.ok) return { value: parsed.value, file };
  // E610 points where the engine says, else at the end of the text (graph JSON's diagnostics are
  // stable text; IR JSON uses the grammar's `offset`, more precise where the engine names none).
  const start = Math.min(parsed.engineOffset ?? text.length, text.length);
  throw userError('E610', `$: the graph is not valid JSON: ${parsed.message}`, { file, span: { start, end: Math.min(start + 1, text.length) } });
}

/** Sizes and weights a caller gives for a JSON graph; they override the graph's own. */
export interface GraphJsonOptions {
  /** Weights by array name and `producer->consumer`. */
  readonly weights?: CostWeights;
  /** Sizes by array (group) name. */
  readonly shapes?: EntrySizes;
}

/** A JSON graph that passed every check, and the graphs it describes. */
export interface ReadGraph {
  readonly json: GraphJson;
  readonly graphs: BlockGraphs;
}

/**
 * Reads and checks a JSON graph (text or an already parsed value). Sizes in `options.shapes` and
 * weights in `options.weights` override the graph's own, by array name and `producer->consumer`.
 */
export function parseGraphJson(json: string | unknown, options: GraphJsonOptions = {}, sourceName = 'graph.json'): BlockGraphs {
  return readGraphJson(json, options, sourceName).graphs;
}

/** parseGraphJson, also giving the checked JSON value (what a checker of the plan reads). */
export function readGraphJson(json: string | unknown, options: GraphJsonOptions = {}, sourceName = 'graph.json'): ReadGraph {
  let value: Json = json;
  let file: SourceFile | undefined;
  if (typeof json === 'string') ({ value, file } = parseText(json, sourceName));
  const where: Where = { file };
  const top = objectAt(where, value, '$', 'a graph', topFields);
  if (top['format'] !== graphJsonFormat) fail(where, 'E611', '$.format', `expected "${graphJsonFormat}", found ${show(top['format'])}`);
  if (top['version'] !== graphJsonVersion) fail(where, 'E611', '$.version', `this arrayfuse reads graph format version ${graphJsonVersion}, not ${show(top['version'])}`);
  if (top['name'] !== undefined) stringAt(where, top['name'], '$.name');
  checkBlockDepth(where, value);
  const ids = new Map<number, string>();
  collectIds(where, value, '$', ids);
  const ctx: ReadContext = {
    where,
    overrides: { weights: options.weights ?? {}, shapes: options.shapes ?? {} },
    nextId: idAllocator(new Set(ids.keys())),
  };
  const graphs = readBlock(ctx, value, '$', topFields);
  // Every field was checked against the format while reading: the value is a GraphJson.
  return { json: value as GraphJson, graphs };
}
