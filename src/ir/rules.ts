// The fusion rules of each combinator and control-flow node, declared once (docs/PLANNING.md,
// "Nodes, arrays and reads"; docs/DESIGN.md).
//
// Everything the later stages need to know about a kind of node as a kind — in which roles it
// reads, which order each role's read follows, whether its output is constrained to order 0 or
// 1, which of its edges can never fuse, whether it carries a gather label, and where its
// output's shape comes from — is in the two tables below, typed `{ [K in Kind]: Rule<K> }`:
// adding a combinator to the IR fails to compile here until its rules are written, and the
// graph builder, the JSON graph reader, the planners (ILP, greedy), the interpreter's shapes
// and the code generator all read these rules instead of testing `kind`.
//
// The checker (src/check) deliberately derives the same facts on its own, from the paper.

import type { CombinatorKind, CombinatorNode, ControlNode, Expr, VarName } from './types.js';

/** The role in which a combinator reads one of its array inputs (docs/PLANNING.md, "Reads"). */
export type ReadRole =
  | 'map-input'
  | 'gather-indices'
  | 'gather-source'
  | 'scatter-dest'
  | 'scatter-index'
  | 'scatter-values'
  | 'fold-input'
  | 'scanl-input'
  | 'scanr-input'
  | 'force-input'
  /** A `while`'s initial values (control flow: unordered). */
  | 'while-init';

/** A read role of the dependence graph: an input role, or an indexing / control-flow read. */
export type GraphReadRole = ReadRole | 'indexed' | 'control';

/**
 * How the order in which a read traverses its array follows from its consumer (PLANNING.md):
 * `output` — the consumer's output order (map, fold, gather indices, scatter index/values);
 * `zero` / `one` — fixed (scanl / scanr); `label` — the consumer gather's own label;
 * `unordered` — a random-access read that never shares a stream and never fuses.
 */
export type ReadOrderRule = 'output' | 'zero' | 'one' | 'label' | 'unordered';

/** Why an edge cannot be fused (for the plan explanation and the DOT output). */
export type InfusibleReason =
  | 'indexed'
  | 'force-input'
  | 'force-output'
  | 'scatter-dest'
  | 'scatter-output'
  | 'control-flow'
  /** The consumer needs a size known only once the producer has run (data-dependent shapes). */
  | 'shape';

export type ControlKind = ControlNode['kind'];

/** Every kind of dependence-graph node: the combinators and the control-flow statements. */
export type NodeKind = CombinatorKind | ControlKind;

/** What one read in a role implies: the order it follows and, if it can never fuse, why. */
export interface ReadRule {
  readonly order: ReadOrderRule;
  readonly infusible: InfusibleReason | null;
}

/**
 * The orders a node's output may be produced in (paper §3.2, §4.2): `any` — 0, 1 or a gather's
 * label; `linear` — 0 or 1 only (it is never evaluated at another node's point); `zero` / `one`
 * — fixed; `none` — a control-flow node, which has no output order.
 */
export type OutputOrderDomain = 'any' | 'linear' | 'zero' | 'one' | 'none';

/** The roles in which each kind of node reads, in the order its rule lists them. */
interface RolesOfKind {
  readonly generate: 'indexed';
  readonly map: 'map-input' | 'indexed';
  readonly gather: 'gather-indices' | 'gather-source' | 'indexed';
  readonly scatter: 'scatter-dest' | 'scatter-index' | 'scatter-values' | 'indexed';
  readonly fold: 'fold-input' | 'indexed';
  readonly scanl: 'scanl-input' | 'indexed';
  readonly scanr: 'scanr-input' | 'indexed';
  readonly force: 'force-input' | 'indexed';
  readonly if: 'control';
  readonly while: 'control' | 'while-init';
}

/** The fusion semantics of one kind of node: what the graph and the planners need. */
export interface FusionRule<K extends NodeKind> {
  /** The roles it reads in, each with the order it implies and whether it can fuse. */
  readonly reads: { readonly [R in RolesOfKind[K]]: ReadRule };
  readonly outputOrder: OutputOrderDomain;
  /** Why no edge out of it can fuse (its output is never streamed), or null. */
  readonly infusibleOutput: InfusibleReason | null;
  /** Why no edge into it can fuse, whatever the role, or null. */
  readonly infusibleInput: InfusibleReason | null;
  /** Whether it carries a label ℓ of its own: the order its `label` reads traverse (a gather). */
  readonly labelled: boolean;
  /**
   * Whether it updates arrays in place (a scatter: its destination), naming the role it reads
   * them in; null when it updates nothing. The graph orders every other reader of such an array
   * before it (and rejects two updaters of one array, E601/E622); lowering copies an array
   * whose update could be observed (src/ir/updates.ts), and the IR verifier checks that.
   */
  readonly updatesInPlace: { readonly role: RolesOfKind[K] } | null;
}

/** The combinator node of kind K. */
export type CombinatorOf<K extends CombinatorKind> = Extract<CombinatorNode, { readonly kind: K }>;

/** One array input of a combinator, in the role it is read. */
export interface RoleRead {
  readonly name: VarName;
  readonly role: ReadRole;
}

/** Input arrays that must share one shape (E403 otherwise), named as the error names them. */
export interface AgreeGroup {
  readonly arrays: readonly VarName[];
  readonly what: string;
}

/**
 * Where a combinator's output shape (shared by all its components) comes from: its own size
 * expressions (`generate`), or the extents of one input array, with the innermost dimension
 * dropped for a reduction. `agree` lists the groups of inputs that must have one shape, in the
 * order they are checked; `like` is the first array of the last group.
 */
export type OutputShape =
  | { readonly kind: 'sizes'; readonly sizes: readonly Expr[] }
  | { readonly kind: 'like'; readonly like: VarName | undefined; readonly dropInnermost: boolean; readonly agree: readonly AgreeGroup[] };

/** How a combinator updates arrays in place: the role of those reads, and how to retarget it. */
export interface InPlaceUpdate<K extends CombinatorKind> {
  readonly role: RolesOfKind[K] & ReadRole;
  /** The same node updating `dest` instead (lowering's copy of an observable destination). */
  readonly updating: (n: CombinatorOf<K>, dest: readonly VarName[]) => CombinatorOf<K>;
}

/** A combinator's rule: its fusion semantics plus what it reads and the shape it produces. */
export interface CombinatorRule<K extends CombinatorKind> extends FusionRule<K> {
  readonly updatesInPlace: InPlaceUpdate<K> | null;
  /** Its array inputs by role, in the order the node lists them. */
  readonly inputs: (n: CombinatorOf<K>) => readonly RoleRead[];
  readonly shape: (n: CombinatorOf<K>) => OutputShape;
}

const ordered = (order: ReadOrderRule): ReadRule => ({ order, infusible: null });
const unordered = (why: InfusibleReason): ReadRule => ({ order: 'unordered', infusible: why });
/** A free array variable of element code (`xs[i]`), a shape or seed expression, or a scalar it uses. */
const indexed: ReadRule = unordered('indexed');

const as = (names: readonly VarName[], role: ReadRole): RoleRead[] => names.map((name) => ({ name, role }));
const like = (agree: readonly AgreeGroup[], dropInnermost = false): OutputShape => ({
  kind: 'like',
  like: agree[agree.length - 1]?.arrays[0],
  dropInnermost,
  agree,
});

export const combinatorRules: { readonly [K in CombinatorKind]: CombinatorRule<K> } = {
  generate: {
    reads: { indexed },
    outputOrder: 'any',
    infusibleOutput: null,
    infusibleInput: null,
    labelled: false,
    updatesInPlace: null,
    inputs: () => [],
    shape: (n) => ({ kind: 'sizes', sizes: n.shape }),
  },
  map: {
    reads: { 'map-input': ordered('output'), indexed },
    outputOrder: 'any',
    infusibleOutput: null,
    infusibleInput: null,
    labelled: false,
    updatesInPlace: null,
    inputs: (n) => as(n.inputs, 'map-input'),
    shape: (n) => like([{ arrays: n.inputs, what: 'inputs' }]),
  },
  gather: {
    reads: { 'gather-indices': ordered('output'), 'gather-source': ordered('label'), indexed },
    outputOrder: 'any',
    infusibleOutput: null,
    infusibleInput: null,
    labelled: true,
    updatesInPlace: null,
    inputs: (n) => [...as(n.indices, 'gather-indices'), ...as(n.source, 'gather-source')],
    shape: (n) => like([{ arrays: n.source, what: 'source components' }, { arrays: n.indices, what: 'index arrays' }]),
  },
  scatter: {
    // The destination is updated in place at indices read from data: random access, and its
    // result exists only once every update is done, so nothing reads it fused.
    reads: { 'scatter-dest': unordered('scatter-dest'), 'scatter-index': ordered('output'), 'scatter-values': ordered('output'), indexed },
    outputOrder: 'linear',
    infusibleOutput: 'scatter-output',
    infusibleInput: null,
    labelled: false,
    updatesInPlace: { role: 'scatter-dest', updating: (n, dest) => ({ ...n, dest }) },
    inputs: (n) => [...as(n.dest, 'scatter-dest'), ...as(n.index, 'scatter-index'), ...as(n.values, 'scatter-values')],
    shape: (n) => like([{ arrays: [...n.index, ...n.values], what: 'index and value arrays' }, { arrays: n.dest, what: 'destination components' }]),
  },
  fold: {
    reads: { 'fold-input': ordered('output'), indexed },
    outputOrder: 'any',
    infusibleOutput: null,
    infusibleInput: null,
    labelled: false,
    updatesInPlace: null,
    inputs: (n) => as(n.input, 'fold-input'),
    shape: (n) => like([{ arrays: n.input, what: 'input components' }], true),
  },
  scanl: {
    reads: { 'scanl-input': ordered('zero'), indexed },
    outputOrder: 'zero',
    infusibleOutput: null,
    infusibleInput: null,
    labelled: false,
    updatesInPlace: null,
    inputs: (n) => as(n.input, 'scanl-input'),
    shape: (n) => like([{ arrays: n.input, what: 'input components' }]),
  },
  scanr: {
    reads: { 'scanr-input': ordered('one'), indexed },
    outputOrder: 'one',
    infusibleOutput: null,
    infusibleInput: null,
    labelled: false,
    updatesInPlace: null,
    inputs: (n) => as(n.input, 'scanr-input'),
    shape: (n) => like([{ arrays: n.input, what: 'input components' }]),
  },
  force: {
    reads: { 'force-input': unordered('force-input'), indexed },
    outputOrder: 'linear',
    infusibleOutput: 'force-output',
    infusibleInput: null,
    labelled: false,
    updatesInPlace: null,
    inputs: (n) => as(n.input, 'force-input'),
    shape: (n) => like([{ arrays: n.input, what: 'input components' }]),
  },
};

/** Control-flow nodes fuse with nothing: every read and every edge in or out is infusible. */
export const controlRules: { readonly [K in ControlKind]: FusionRule<K> } = {
  if: {
    reads: { control: unordered('control-flow') },
    outputOrder: 'none',
    infusibleOutput: 'control-flow',
    infusibleInput: 'control-flow',
    labelled: false,
    updatesInPlace: null,
  },
  while: {
    reads: { control: unordered('control-flow'), 'while-init': unordered('control-flow') },
    outputOrder: 'none',
    infusibleOutput: 'control-flow',
    infusibleInput: 'control-flow',
    labelled: false,
    updatesInPlace: null,
  },
};

/** Every node kind, combinators first, in the order of the IR's declarations. */
export const nodeKinds: readonly NodeKind[] = [...(Object.keys(combinatorRules) as CombinatorKind[]), ...(Object.keys(controlRules) as ControlKind[])];

export function isControlKind(kind: NodeKind): kind is ControlKind {
  return Object.hasOwn(controlRules, kind);
}

/** A FusionRule of some kind, its roles widened to every read role (as consumers look it up). */
export type AnyFusionRule = Omit<FusionRule<NodeKind>, 'reads'> & { readonly reads: Partial<Readonly<Record<GraphReadRole, ReadRule>>> };

/** The rule of a kind of graph node. */
export function fusionRule(kind: NodeKind): AnyFusionRule {
  return isControlKind(kind) ? controlRules[kind] : combinatorRules[kind];
}

/** The roles in which a kind of node may read, in its rule's order. */
export function rolesOf(kind: NodeKind): readonly GraphReadRole[] {
  return Object.keys(fusionRule(kind).reads) as GraphReadRole[];
}

/** What a read in `role` by a node of `kind` implies; undefined when that kind never reads so. */
export function readRuleOf(kind: NodeKind, role: GraphReadRole): ReadRule | undefined {
  return fusionRule(kind).reads[role];
}

/**
 * Every read role, each once, in the graph format's order (the E616 note prints this list, and
 * diagnostics are stable text): the consumer's order, then the fixed orders, then the unordered
 * roles. A record, so that a new role fails to compile until it is placed here; a test checks
 * it holds exactly the roles the kinds' rules name.
 */
const readRoleListing: { readonly [R in GraphReadRole]: true } = {
  'map-input': true,
  'gather-indices': true,
  'fold-input': true,
  'scatter-index': true,
  'scatter-values': true,
  'gather-source': true,
  'scanl-input': true,
  'scanr-input': true,
  'scatter-dest': true,
  'force-input': true,
  'while-init': true,
  indexed: true,
  control: true,
};
export const graphReadRoles: readonly GraphReadRole[] = Object.keys(readRoleListing) as GraphReadRole[];

/**
 * The rule of a read role, whatever the kind reading in it: a role means one rule (`indexed`
 * is read by every combinator, `control` by both control-flow nodes, the same way; a test
 * checks that the kinds agree).
 */
export function roleRule(role: GraphReadRole): ReadRule {
  for (const kind of nodeKinds) {
    const rule = readRuleOf(kind, role);
    if (rule !== undefined) return rule;
  }
  throw new Error(`rules: no kind reads in role ${role}`);
}

/** The rule of a combinator, typed by its node (the one place the table is indexed generically). */
export function combinatorRule<K extends CombinatorKind>(n: CombinatorOf<K>): CombinatorRule<K> {
  return combinatorRules[n.kind as K];
}

/** A combinator's array inputs by role, in the order the node lists them. */
export function combinatorInputs(n: CombinatorNode): readonly RoleRead[] {
  return combinatorRule(n).inputs(n);
}

/** Where a combinator's output shape comes from. */
export function outputShapeOf(n: CombinatorNode): OutputShape {
  return combinatorRule(n).shape(n);
}

/** The arrays a combinator updates in place (its reads in its rule's in-place role); none for most kinds. */
export function inPlaceDestinations(n: CombinatorNode): VarName[] {
  const update = combinatorRule(n).updatesInPlace;
  return update === null ? [] : combinatorInputs(n).filter((r) => r.role === update.role).map((r) => r.name);
}
