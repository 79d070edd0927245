// The fusion ILP of one block: the paper's Figure 5 with the order variables of §4.2 and the
// cost functions of docs/PLANNING.md, as plain sparse data (no solver types: solver.ts and
// lpfile.ts consume it). Read docs/PLANNING.md first; every row below cites the rule it encodes.
//
// Variables (n nodes, g gathers, G = g + 2):
//   π_a ∈ [lb_a, ub_a]  cluster number. The bounds are longest paths of *strict* steps (infusible
//                       edges, scatter precedences) into and out of a; they keep the model exact
//                       because any plan's cluster numbers can be renumbered densely 0 … k−1
//                       (k ≤ n), and a dense numbering satisfies them.
//   x_ab ∈ {0,1}         1 = not fused; fixed to 1 on infusible edges.
//   m_a ∈ {0,1}          1 = manifest (the paper uses the opposite sign; this reads better).
//   d_a ∈ [0, g+1]       output order: 0, 1, or a gather label 2 … g+1.
//   π_max                only with the `clusters` term.
//   reads slots          per array group with k ≥ 2 ordered reads: k slots (u_s used, P_s cluster,
//                        O_s order) and assignment binaries a_rs for s ≤ r (slot s can only serve
//                        reads r ≥ s: any grouping of reads maps to slots by its least member,
//                        so this symmetry breaking loses no solution).
//
// The objective's constant part (unordered reads, the +1 of `clusters`) is `offset`.

import type { CostSpec } from '../cost.js';
import type { DependenceGraph, GraphEdge, GraphRead } from '../../graph/types.js';
import { CompilerBug } from '../../diagnostics/index.js';

export interface Column {
  readonly name: string;
  readonly lower: number;
  readonly upper: number;
  readonly integer: boolean;
  readonly cost: number;
}

export interface Row {
  readonly name: string;
  readonly lower: number;
  readonly upper: number;
  readonly cols: readonly number[];
  readonly coefs: readonly number[];
}

/** Where the decision variables of the graph live among the columns. */
export interface ModelLayout {
  /** Column of π per node, by node index. */
  readonly pi: readonly number[];
  /** Column of d per node index; -1 for control-flow nodes. */
  readonly order: readonly number[];
  /** Column of m per node index; -1 for control-flow nodes. */
  readonly manifest: readonly number[];
  /** Column of x per edge, by position in graph.edges. */
  readonly fused: readonly number[];
}

export interface IlpModel {
  readonly columns: readonly Column[];
  readonly rows: readonly Row[];
  readonly offset: number;
  readonly layout: ModelLayout;
}

/** Weights resolved by the caller (defaults, user weights, byte weights from shapes). */
export interface ModelWeights {
  /** w(v) of an array group, plain or by bytes. */
  array(group: number, byteWeighted: boolean): number;
  /** w(p, c) of a fusible edge. */
  edge(edge: GraphEdge): number;
}

interface Term {
  readonly col: number;
  readonly coef: number;
}

/** Total coefficient per array group of a term (`reads`, `intermediate-arrays`), summed over the spec. */
function groupCoefficient(cost: CostSpec, term: 'reads' | 'intermediate-arrays', group: number, weights: ModelWeights): number {
  let sum = 0;
  for (const t of cost.terms) {
    const name = t.term === 'writes' ? 'intermediate-arrays' : t.term;
    if (name === term) sum += t.coefficient * weights.array(group, t.byteWeighted);
  }
  return sum;
}

function termCoefficient(cost: CostSpec, term: 'clusters' | 'fused-edges'): number {
  return cost.terms.filter((t) => t.term === term).reduce((s, t) => s + t.coefficient, 0);
}

/**
 * Longest paths counting strict steps only (infusible edges and precedences), forward (into a
 * node) and backward (out of it), over a topological order of edges plus precedences.
 */
export function strictDepths(graph: DependenceGraph): { readonly lb: readonly number[]; readonly height: readonly number[] } {
  const n = graph.nodes.length;
  const idx = new Map(graph.nodes.map((node) => [node.id, node.index]));
  const arcs: { from: number; to: number; strict: number }[] = [
    ...graph.edges.map((e) => ({ from: idx.get(e.from)!, to: idx.get(e.to)!, strict: e.fusible ? 0 : 1 })),
    ...graph.precedences.map((p) => ({ from: idx.get(p.before)!, to: idx.get(p.scatter)!, strict: 1 })),
  ];
  const out: { to: number; strict: number }[][] = Array.from({ length: n }, () => []);
  const indeg = new Array<number>(n).fill(0);
  for (const a of arcs) {
    out[a.from]!.push({ to: a.to, strict: a.strict });
    indeg[a.to]!++;
  }
  const topo: number[] = [];
  const ready = [...Array(n).keys()].filter((i) => indeg[i] === 0);
  while (ready.length > 0) {
    const i = ready.shift()!;
    topo.push(i);
    for (const { to } of out[i]!) if (--indeg[to]! === 0) ready.push(to);
  }
  if (topo.length !== n) throw new CompilerBug('plan/ilp', 'dependence graph with precedences is cyclic');
  const lb = new Array<number>(n).fill(0);
  for (const i of topo) for (const { to, strict } of out[i]!) lb[to] = Math.max(lb[to]!, lb[i]! + strict);
  const height = new Array<number>(n).fill(0);
  for (const i of [...topo].reverse()) for (const { to, strict } of out[i]!) height[i] = Math.max(height[i]!, height[to]! + strict);
  return { lb, height };
}

/** Builds the ILP of one block's graph for a cost function. */
export function buildModel(graph: DependenceGraph, cost: CostSpec, weights: ModelWeights): IlpModel {
  const columns: Column[] = [];
  const rows: Row[] = [];
  let offset = 0;
  const addCol = (name: string, lower: number, upper: number, integer: boolean, colCost = 0): number => {
    columns.push({ name, lower, upper, integer, cost: colCost });
    return columns.length - 1;
  };
  const addCost = (col: number, c: number): void => {
    if (c === 0) return;
    const old = columns[col]!;
    columns[col] = { ...old, cost: old.cost + c };
  };
  const addRow = (name: string, lower: number, upper: number, terms: readonly Term[]): void => {
    rows.push({ name, lower, upper, cols: terms.map((t) => t.col), coefs: terms.map((t) => t.coef) });
  };

  const n = graph.nodes.length;
  const g = graph.gatherCount;
  const G = g + 2;
  const bigN = Math.max(1, n);
  const idx = new Map(graph.nodes.map((node) => [node.id, node.index]));
  const { lb, height } = strictDepths(graph);

  // π, d, m per node.
  const pi = graph.nodes.map((node) => addCol(`pi_${node.id}`, lb[node.index]!, n - 1 - height[node.index]!, true));
  const hasConsumer = new Set(graph.edges.map((e) => e.from));
  const results = new Set(graph.resultGroups);
  const order: number[] = [];
  const manifest: number[] = [];
  for (const node of graph.nodes) {
    if (node.group === null) {
      order.push(-1);
      manifest.push(-1);
      continue;
    }
    // Rule 4: scanl 0, scanr 1, scatter {0,1}; force is always manifest, so {0,1} too.
    const [dLo, dHi] =
      node.kind === 'scanl' ? [0, 0] : node.kind === 'scanr' ? [1, 1] : node.kind === 'scatter' || node.kind === 'force' ? [0, 1] : [0, g + 1];
    order.push(addCol(`d_${node.id}`, dLo, dHi, true));
    // Rule 5: block results and arrays nobody reads are manifest.
    const forced = results.has(node.group) || !hasConsumer.has(node.id);
    const m = addCol(`m_${node.id}`, forced ? 1 : 0, 1, true);
    manifest.push(m);
    // A manifest array is written whole: order 0 or 1 (d ≤ 1 + g·(1 − m)).
    if (g > 0 && dHi > 1) addRow(`whole_${node.id}`, -Infinity, 1 + g, [{ col: order[node.index]!, coef: 1 }, { col: m, coef: g }]);
    else if (dHi > 1) columns[order[node.index]!] = { ...columns[order[node.index]!]!, upper: 1 };
  }

  // x per edge and the cluster-number rows: x ≤ π_c − π_p ≤ n·x (fused ⇔ same cluster).
  const fused = graph.edges.map((e) => {
    const p = idx.get(e.from)!;
    const c = idx.get(e.to)!;
    const neverTogether = !e.fusible || lb[c]! > n - 1 - height[p]!;
    const x = addCol(`x_${e.from}_${e.to}`, neverTogether ? 1 : 0, 1, true);
    addRow(`sep_${e.from}_${e.to}`, 0, Infinity, [{ col: pi[c]!, coef: 1 }, { col: pi[p]!, coef: -1 }, { col: x, coef: -1 }]);
    addRow(`join_${e.from}_${e.to}`, -Infinity, 0, [{ col: pi[c]!, coef: 1 }, { col: pi[p]!, coef: -1 }, { col: x, coef: -bigN }]);
    // Rule 5: an unfused consumer makes the producer manifest.
    if (manifest[p]! >= 0) addRow(`man_${e.from}_${e.to}`, -Infinity, 0, [{ col: x, coef: 1 }, { col: manifest[p]!, coef: -1 }]);
    return x;
  });

  // Rule 4: a fused edge carries the producer's order into each of the consumer's reads.
  graph.edges.forEach((e, k) => {
    if (!e.fusible) return;
    const p = idx.get(e.from)!;
    const c = idx.get(e.to)!;
    const seen = new Set<string>();
    for (const r of e.reads) {
      if (r.order === 'unordered' || seen.has(r.order)) continue;
      seen.add(r.order);
      const read = readOrderTerm(r, order[c]!, graph.nodes[c]!.label);
      const dp = { col: order[p]!, coef: 1 };
      const xs = fused[k]!;
      // d_p − read − G·x ≤ 0 and d_p − read + G·x ≥ 0, constants of `read` moved to the bounds.
      const lhs: Term[] = read.col === null ? [dp] : [dp, { col: read.col, coef: -1 }];
      addRow(`ordle_${e.from}_${e.to}_${r.order}`, -Infinity, read.constant, [...lhs, { col: xs, coef: -G }]);
      addRow(`ordge_${e.from}_${e.to}_${r.order}`, read.constant, Infinity, [...lhs, { col: xs, coef: G }]);
    }
  });

  // Rule 3: scatter's temporal uniqueness, π_before + 1 ≤ π_scatter.
  for (const p of graph.precedences) {
    addRow(`scat_${p.before}_${p.scatter}`, 1, Infinity, [
      { col: pi[idx.get(p.scatter)!]!, coef: 1 },
      { col: pi[idx.get(p.before)!]!, coef: -1 },
    ]);
  }

  // Costs. clusters: π_max + 1 per non-empty block.
  const clustersCoef = termCoefficient(cost, 'clusters');
  if (clustersCoef > 0 && n > 0) {
    const piMax = addCol('pimax', Math.max(0, ...lb), n - 1, true, clustersCoef);
    for (const node of graph.nodes) addRow(`max_${node.id}`, -Infinity, 0, [{ col: pi[node.index]!, coef: 1 }, { col: piMax, coef: -1 }]);
    offset += clustersCoef;
  }
  // fused-edges: Σ w(p,c)·x over fusible edges.
  const fusedCoef = termCoefficient(cost, 'fused-edges');
  if (fusedCoef > 0) graph.edges.forEach((e, k) => e.fusible && addCost(fused[k]!, fusedCoef * weights.edge(e)));
  // intermediate-arrays: Σ w(v)·m over combinator nodes.
  for (const node of graph.nodes) {
    if (node.group === null) continue;
    addCost(manifest[node.index]!, groupCoefficient(cost, 'intermediate-arrays', node.group, weights));
  }
  // reads: distinct memory read streams per array group.
  for (const group of graph.groups) {
    const w = groupCoefficient(cost, 'reads', group.index, weights);
    if (w === 0) continue;
    offset += addReadStreams(group.index, w);
  }

  return { columns, rows, offset, layout: { pi, order, manifest, fused } };

  /** Adds the read-stream variables of one group; returns the constant part of its cost. */
  function addReadStreams(group: number, w: number): number {
    const groupReads = graph.reads.filter((r) => r.group === group);
    // Unordered reads: a stream each, per (consumer, role): constant.
    const unorderedKeys = new Set(groupReads.filter((r) => r.order === 'unordered').map((r) => `${r.consumer}/${r.role}`));
    let constant = w * unorderedKeys.size;
    // Ordered reads, one per (consumer, order rule): reads of one consumer in one rule share a key.
    const producer = graph.groups[group]!.producer;
    interface OrderedRead {
      readonly c: number;
      readonly read: { readonly col: number | null; readonly constant: number };
      /** Column of x when the read is from a register iff fused; null when always from memory. */
      readonly x: number | null;
      readonly key: string;
    }
    const ordered: OrderedRead[] = [];
    const keys = new Set<string>();
    for (const r of groupReads) {
      if (r.order === 'unordered') continue;
      const c = idx.get(r.consumer)!;
      const key = `${r.consumer}/${r.order}`;
      if (keys.has(key)) continue;
      keys.add(key);
      let x: number | null = null;
      if (producer !== null) {
        const k = graph.edges.findIndex((e) => e.from === producer && e.to === r.consumer);
        if (k < 0) throw new CompilerBug('plan/ilp', `read of group ${group} by ${r.consumer} has no edge`);
        if (graph.edges[k]!.fusible) x = fused[k]!;
      }
      ordered.push({ c, read: readOrderTerm(r, order[c]!, graph.nodes[c]!.label), x, key });
    }
    if (ordered.length === 1) {
      const only = ordered[0]!;
      if (only.x === null) constant += w;
      else addCost(only.x, w);
      return constant;
    }
    // k ≥ 2: slots.
    const slots = ordered.map((_, s) => ({
      u: addCol(`u_${group}_${s}`, 0, 1, true, w),
      P: addCol(`P_${group}_${s}`, 0, Math.max(0, n - 1), true),
      O: addCol(`O_${group}_${s}`, 0, g + 1, true),
    }));
    ordered.forEach((r, ri) => {
      const assign: Term[] = [];
      for (let s = 0; s <= ri; s++) {
        const slot = slots[s]!;
        const a = addCol(`a_${group}_${ri}_${s}`, 0, 1, true);
        assign.push({ col: a, coef: 1 });
        addRow(`use_${group}_${ri}_${s}`, -Infinity, 0, [{ col: a, coef: 1 }, { col: slot.u, coef: -1 }]);
        // a = 1 ⇒ π_c = P_s and order = O_s.
        addRow(`pile_${group}_${ri}_${s}`, -Infinity, bigN, [{ col: pi[r.c]!, coef: 1 }, { col: slot.P, coef: -1 }, { col: a, coef: bigN }]);
        addRow(`pige_${group}_${ri}_${s}`, -Infinity, bigN, [{ col: slot.P, coef: 1 }, { col: pi[r.c]!, coef: -1 }, { col: a, coef: bigN }]);
        const ord: Term[] = r.read.col === null ? [] : [{ col: r.read.col, coef: 1 }];
        // ord_r − O_s + G·a ≤ G − constant ; O_s − ord_r + G·a ≤ G + constant.
        addRow(`ordle_${group}_${ri}_${s}`, -Infinity, G - r.read.constant, [...ord, { col: slot.O, coef: -1 }, { col: a, coef: G }]);
        addRow(`ordge_${group}_${ri}_${s}`, -Infinity, G + r.read.constant, [
          ...ord.map((t) => ({ col: t.col, coef: -1 })),
          { col: slot.O, coef: 1 },
          { col: a, coef: G },
        ]);
      }
      // A memory read is assigned a slot: Σ a ≥ 1, or ≥ x when fusing makes it a register read.
      if (r.x === null) addRow(`slot_${group}_${ri}`, 1, Infinity, assign);
      else addRow(`slot_${group}_${ri}`, 0, Infinity, [...assign, { col: r.x, coef: -1 }]);
    });
    return constant;
  }
}

/**
 * The order in which a read traverses its array, as `col + constant` (col null: a constant):
 * the consumer's output order, 0, 1, or the consumer gather's label.
 */
function readOrderTerm(r: GraphRead, consumerOrderCol: number, label: number | null): { readonly col: number | null; readonly constant: number } {
  switch (r.order) {
    case 'output':
      return { col: consumerOrderCol, constant: 0 };
    case 'zero':
      return { col: null, constant: 0 };
    case 'one':
      return { col: null, constant: 1 };
    case 'label':
      if (label === null) throw new CompilerBug('plan/ilp', 'a label read by a node that is not a gather');
      return { col: null, constant: label };
    case 'unordered':
      throw new CompilerBug('plan/ilp', 'an unordered read has no order');
    default:
      return r.order satisfies never;
  }
}
