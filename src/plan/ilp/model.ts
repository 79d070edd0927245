// The fusion ILP of one block: the paper's Figure 5 with the order variables of §4.2 and the
// cost functions of docs/PLANNING.md, as plain sparse data (no solver types: solver.ts and
// lpfile.ts consume it). Read docs/PLANNING.md first; every row below cites the rule it encodes.
//
// Variables (n nodes):
//   π_a ∈ [lb_a, ub_a]  cluster number; bounds from structure.ts (strict paths into and out of a).
//   x_e ∈ {0,1}          1 = edge e not fused; fixed to 1 when infusible, or when a path with a
//                        strict step joins its ends (structure.ts), or its reads' fixed orders
//                        clash with each other or with the producer's order domain.
//   m_a ∈ {0,1}          1 = manifest (the paper uses the opposite sign; this reads better).
//   d_a ∈ [lo_a, hi_a]   output order: 0, 1, or a gather label 2 … g+1; hi_a ≥ 2 only for labels
//                        the node can actually carry (structure.ts).
//   π_max                only with the `clusters` term (bounded below by the sinks' π only:
//                        π never decreases along a dependence).
//   r_ng ∈ [0,1]         the `recompute` term: 1 when node n's order is the label of gather g (g
//                        with a known growth factor f_g = |g| / |src(g)| > 1), cost w(n)·(f_g − 1).
//                        A producer of g's source needs none: it carries ℓ_g exactly when x(src, g)
//                        = 0, so it pays through 1 − x. For the others, continuous, rows
//                        r_p ≥ ind_c − x(p, c) along the order-carrying fusible edges into src(g)
//                        make r at least the indicator of a fused chain n → … → src(g) → g, which is
//                        exactly "d_n = ℓ_g" (rule 4 carries ℓ_g down such a chain; a node carrying
//                        ℓ_g is unmanifest, so every out-edge is fused and one leads on to g);
//                        minimisation makes r equal it.
//   e_c ∈ {0,1}          per elidable copy c (graph.elidableCopies; docs/PLANNING.md "In-place
//                        updates"): 1 = the copy is elided and its scatter updates the copy's
//                        sources in place. Then every other reader r of the sources runs first
//                        (π_r + 1 ≤ π_s + M·(1 − e_c)), the copy shares its producer p's cluster
//                        (x(p, c) ≤ 1 − e_c: its read of the sources is free) and the sources are
//                        written (m_p ≥ e_c); the copy's write is refunded (cost −w(copy)·e_c, its
//                        `writes` / `intermediate-arrays` / `bytes` weight). Fixed to 0 when that
//                        weight is 0: eliding then gains nothing the cost sees, and plans stay
//                        as they were. Two copies of one array are not both elided (e_a + e_b ≤ 1):
//                        two updates would write it.
//   s_rq, y_q            the `reads` term (per array group with k ≥ 2 ordered read keys, in a
//                        fixed order), as facility location: y_q = 1 when memory read q opens a
//                        stream, s_rq = 1 when q joins the stream opened by an earlier read r
//                        (same π, same order; s_rq ≤ y_r), and y_q + Σ_r s_rq = mem_q. Every
//                        plan has such an assignment (each (π, order) class opened by its first
//                        memory read), so Σ y = the number of distinct streams at an optimum.
//                        Pairs that can never share (π or orders provably different) get no s.
// Every big-M is the range of the difference it relaxes, not n or g + 2. Optional valid cuts
// (ModelOptions.cuts) tighten the LP without removing integer solutions: fused-edge triangles
// and pairs of out-edges whose fixed read orders clash.
//
// The objective's constant part (unordered reads, the +1 of `clusters`) is `offset`.

import type { CostSpec } from '../cost.js';
import type { ArrayGroup, DependenceGraph, GraphNode, GraphRead } from '../../graph/types.js';
import { groupWeight } from '../../graph/weights.js';
import { CompilerBug } from '../../diagnostics/index.js';
import { fusionRule } from '../../ir/rules.js';
import { blockStructure } from './structure.js';
import { addBit, emptyWords, hasBit, unionInto } from '../../util/bitset.js';
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
  /** Column of π_max; -1 without the `clusters` term. */
  readonly piMax: number;
  /** The `reads` variables per array group that has any (for starting solutions, start.ts). */
  readonly streams: readonly StreamLayout[];
  /**
   * The `recompute` variables: r_ng, 1 exactly when node `node`'s order is `label` (a producer
   * of the gather's source has none: 1 − x of its edge to the gather is its indicator).
   */
  readonly recompute: readonly { readonly node: number; readonly label: number; readonly col: number }[];
  /** e_c per elidable copy, in graph.elidableCopies order (empty when the graph has none). */
  readonly elide: readonly { readonly copy: number; readonly col: number }[];
}

/** The read-stream variables of one array group (see the header: s_rq, y_q). */
export interface StreamLayout {
  /** The array group read (index in graph.groups). */
  readonly group: number;
  /** Ordered read keys in model order: consumer node index, read order, memory indicator. */
  readonly reads: readonly { readonly c: number; readonly order: Affine; readonly memory: Affine }[];
  /** s_rq columns by pair of positions in `reads`. */
  readonly pairs: readonly { readonly r: number; readonly q: number; readonly s: number }[];
  /** y_q column per read, -1 for a read in no pair (it pays through its memory term). */
  readonly opens: readonly number[];
}

export interface IlpModel {
  readonly columns: readonly Column[];
  readonly rows: readonly Row[];
  readonly offset: number;
  readonly layout: ModelLayout;
}

/**
 * How many times as often a node carrying gather g's label is evaluated as in its own order:
 * |g| / |src(g)| (PLANNING.md `recompute`; 0 for an empty source), or null when a size is
 * unknown at compile time. |src(g)| is the first source component whose size is known (all
 * components of a source share one shape).
 */
export function gatherFactor(graph: DependenceGraph, gather: GraphNode): number | null {
  if (!fusionRule(gather.kind).labelled || gather.group === null) return null;
  const out = graph.groups[gather.group]!.size;
  const sourceSizes = graph.reads
    .filter((r) => r.consumer === gather.id && r.order === 'label')
    .map((r) => graph.groups[r.group]!.size)
    .filter((size): size is number => size !== null);
  const source = sourceSizes[0];
  if (out === null || source === undefined) return null;
  // An empty source: nothing to recompute (a non-empty gather of it fails at run time anyway).
  return source === 0 ? 0 : out / source;
}

interface Term {
  readonly col: number;
  readonly coef: number;
}

/** Total coefficient per array group of a term (`reads`, `intermediate-arrays`, `recompute`), summed over the spec. */
function groupCoefficient(cost: CostSpec, term: 'reads' | 'intermediate-arrays' | 'recompute', group: ArrayGroup): number {
  let sum = 0;
  for (const t of cost.terms) {
    const name = t.term === 'writes' ? 'intermediate-arrays' : t.term;
    if (name === term) sum += t.coefficient * groupWeight(group, t.byteWeighted);
  }
  return sum;
}

function termCoefficient(cost: CostSpec, term: 'clusters' | 'fused-edges'): number {
  return cost.terms.filter((t) => t.term === term).reduce((s, t) => s + t.coefficient, 0);
}

type LayoutRecompute = ModelLayout['recompute'];

/** Formulation switches, for benchmarks comparing variants; the defaults are the best measured. */
export interface ModelOptions {
  /** Add the valid cuts (triangles, clashing read orders). Default true. */
  readonly cuts?: boolean;
}

/** A linear expression `col + constant` (col null: the constant alone). */
export interface Affine {
  readonly col: number | null;
  readonly constant: number;
}

/** Builds the ILP of one block's graph for a cost function. */
export function buildModel(graph: DependenceGraph, cost: CostSpec, options: ModelOptions = {}): IlpModel {
  return buildModelChecked(graph, cost, options, () => false);
}

/** Thrown at a checkpoint of buildModelChecked when its `stop` says so; caught by buildModelUnless. */
class ModelStopped extends Error {}

/**
 * buildModel for a planner under a deadline: `stop` is asked at checkpoints between parts of
 * the work (at most a few milliseconds apart on blocks of a thousand nodes), and the model is
 * abandoned, null, when it says so.
 */
export function buildModelUnless(graph: DependenceGraph, cost: CostSpec, options: ModelOptions, stop: () => boolean): IlpModel | null {
  try {
    return buildModelChecked(graph, cost, options, stop);
  } catch (e) {
    if (e instanceof ModelStopped) return null;
    throw e;
  }
}

function buildModelChecked(graph: DependenceGraph, cost: CostSpec, options: ModelOptions, stop: () => boolean): IlpModel {
  const checkpoint = (): void => {
    if (stop()) throw new ModelStopped('stopped');
  };
  const cuts = options.cuts ?? true;
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
  const idx = new Map(graph.nodes.map((node) => [node.id, node.index]));
  const st = blockStructure(graph);
  checkpoint();
  const canShareCluster = (a: number, b: number): boolean =>
    a === b ||
    (!st.strictlyAfter[a]!.has(b) && !st.strictlyAfter[b]!.has(a) && st.piLower[a]! <= st.piUpper[b]! && st.piLower[b]! <= st.piUpper[a]!);

  // π, d, m per node.
  const pi = graph.nodes.map((node) => addCol(`pi_${node.id}`, st.piLower[node.index]!, st.piUpper[node.index]!, true));
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
    // Rule 4 (scanl 0, scanr 1, scatter and force {0,1}) and the label domain, from structure.ts.
    const dLo = st.orderLower[node.index]!;
    const dHi = st.orderUpper[node.index]!;
    const d = addCol(`d_${node.id}`, dLo, dHi, true);
    order.push(d);
    // Rule 5: block results and arrays nobody reads are manifest.
    const forced = results.has(node.group) || !hasConsumer.has(node.id);
    const m = addCol(`m_${node.id}`, forced ? 1 : 0, 1, true);
    manifest.push(m);
    // A manifest array is written whole: order 0 or 1 (d ≤ 1 + (hi − 1)·(1 − m)).
    if (dHi > 1) addRow(`whole_${node.id}`, -Infinity, dHi, [{ col: d, coef: 1 }, { col: m, coef: dHi - 1 }]);
  }
  // Bounds of an affine term from its column bounds (orders and cluster numbers alike).
  const valueLo = (a: Affine): number => (a.col === null ? a.constant : columns[a.col]!.lower + a.constant);
  const valueHi = (a: Affine): number => (a.col === null ? a.constant : columns[a.col]!.upper + a.constant);
  const readOrder = (r: GraphRead, c: number): Affine => readOrderTerm(r, order[c]!, graph.nodes[c]!.label);

  // Fixed read orders of each fusible edge; an edge whose fixed orders clash, or fall outside the
  // producer's order domain, is never fused (rule 4).
  const fixedOrders = graph.edges.map((e) => {
    const c = idx.get(e.to)!;
    return new Set(e.reads.filter((r) => r.order !== 'unordered' && r.order !== 'output').map((r) => readOrder(r, c).constant));
  });
  const ordersClash = (k: number): boolean => {
    const p = idx.get(graph.edges[k]!.from)!;
    const fixed = [...fixedOrders[k]!];
    return fixed.length > 1 || fixed.some((o) => o < st.orderLower[p]! || o > st.orderUpper[p]!);
  };

  // x per edge and the cluster-number rows: x ≤ π_c − π_p ≤ M·x (fused ⇔ same cluster), M the
  // largest possible difference.
  const fused = graph.edges.map((e, k) => {
    const p = idx.get(e.from)!;
    const c = idx.get(e.to)!;
    const neverTogether = st.neverFused[k]! || !canShareCluster(p, c) || ordersClash(k);
    const x = addCol(`x_${e.from}_${e.to}`, neverTogether ? 1 : 0, 1, true);
    addRow(`sep_${e.from}_${e.to}`, 0, Infinity, [{ col: pi[c]!, coef: 1 }, { col: pi[p]!, coef: -1 }, { col: x, coef: -1 }]);
    // The rows below stay even when x is fixed to 1 (presolve drops them at no cost), so that the
    // model keeps meaning "fused ⇔ same cluster" for anyone who fixes x differently (tests do).
    const bigM = Math.max(1, st.piUpper[c]! - st.piLower[p]!);
    addRow(`join_${e.from}_${e.to}`, -Infinity, 0, [{ col: pi[c]!, coef: 1 }, { col: pi[p]!, coef: -1 }, { col: x, coef: -bigM }]);
    // Rule 5: an unfused consumer makes the producer manifest.
    if (manifest[p]! >= 0 && columns[manifest[p]!]!.lower < 1) addRow(`man_${e.from}_${e.to}`, -Infinity, 0, [{ col: x, coef: 1 }, { col: manifest[p]!, coef: -1 }]);
    return x;
  });
  const fixedUnfused = (k: number): boolean => columns[fused[k]!]!.lower === 1;
  const streams: StreamLayout[] = [];
  /** Shared-stream binaries (s = 1 ⇒ π_a = π_b), collected for the cuts. */
  const shares: { readonly col: number; readonly holdsAt: 0 | 1; readonly a: number; readonly b: number }[] = [];

  // Rule 4: a fused edge carries the producer's order into each of the consumer's reads:
  // |d_p − read| ≤ M·x, M the largest possible difference.
  graph.edges.forEach((e, k) => {
    if (!e.fusible) return;
    const p = idx.get(e.from)!;
    const c = idx.get(e.to)!;
    const seen = new Set<string>();
    for (const r of e.reads) {
      if (r.order === 'unordered' || seen.has(r.order)) continue;
      seen.add(r.order);
      addEqualWhen(`ord_${e.from}_${e.to}_${r.order}`, { col: order[p]!, constant: 0 }, readOrder(r, c), fused[k]!, 0);
    }
  });

  // Rule 3: scatter's temporal uniqueness, π_before + 1 ≤ π_scatter.
  for (const p of graph.precedences) {
    addRow(`scat_${p.before}_${p.scatter}`, 1, Infinity, [
      { col: pi[idx.get(p.scatter)!]!, coef: 1 },
      { col: pi[idx.get(p.before)!]!, coef: -1 },
    ]);
  }

  checkpoint();
  const elide = addElisions();

  // Costs. clusters: π_max + 1 per non-empty block.
  const clustersCoef = termCoefficient(cost, 'clusters');
  let piMax = -1;
  if (clustersCoef > 0 && n > 0) {
    piMax = addCol('pimax', Math.max(0, ...st.piLower), Math.max(0, ...st.piUpper), true, clustersCoef);
    for (const i of st.sinks) addRow(`max_${graph.nodes[i]!.id}`, -Infinity, 0, [{ col: pi[i]!, coef: 1 }, { col: piMax, coef: -1 }]);
    offset += clustersCoef;
  }
  // fused-edges: Σ w(p,c)·x over fusible edges.
  const fusedCoef = termCoefficient(cost, 'fused-edges');
  if (fusedCoef > 0) {
    graph.edges.forEach((e, k) => {
      if (!e.fusible) return;
      if (fixedUnfused(k)) offset += fusedCoef * e.weight;
      else addCost(fused[k]!, fusedCoef * e.weight);
    });
  }
  // intermediate-arrays: Σ w(v)·m over combinator nodes.
  for (const node of graph.nodes) {
    if (node.group === null) continue;
    addCost(manifest[node.index]!, groupCoefficient(cost, 'intermediate-arrays', graph.groups[node.group]!));
  }
  // reads: distinct memory read streams per array group.
  for (const group of graph.groups) {
    checkpoint();
    const w = groupCoefficient(cost, 'reads', group);
    if (w === 0) continue;
    offset += addReadStreams(group.index, w);
  }
  const recompute = cost.terms.some((t) => t.term === 'recompute') ? addRecompute() : [];
  if (cuts) addCuts();

  return { columns, rows, offset, layout: { pi, order, manifest, fused, piMax, streams, recompute, elide } };

  /** The elision choices e_c and their rows (see the header); the refund is their cost. */
  function addElisions(): { copy: number; col: number }[] {
    const out: { copy: number; col: number }[] = [];
    for (const ec of graph.elidableCopies ?? []) {
      const c = idx.get(ec.copy)!;
      const s = idx.get(ec.scatter)!;
      const p = idx.get(ec.producer)!;
      const copyGroup = graph.nodes[c]!.group;
      const k = graph.edges.findIndex((e) => e.from === ec.producer && e.to === ec.copy);
      if (copyGroup === null || k < 0) throw new CompilerBug('plan/ilp', `elidable copy #${ec.copy} is no combinator read by its producer #${ec.producer}`);
      const refund = groupCoefficient(cost, 'intermediate-arrays', graph.groups[copyGroup]!);
      const possible = refund > 0 && columns[fused[k]!]!.lower < 1 && columns[manifest[p]!]!.upper > 0;
      const e = addCol(`e_${ec.copy}`, 0, possible ? 1 : 0, true, -refund);
      out.push({ copy: c, col: e });
      if (!possible) continue;
      addRow(`elcopy_${ec.copy}`, -Infinity, 1, [{ col: fused[k]!, coef: 1 }, { col: e, coef: 1 }]);
      if (columns[manifest[p]!]!.lower < 1) addRow(`elman_${ec.copy}`, 0, Infinity, [{ col: manifest[p]!, coef: 1 }, { col: e, coef: -1 }]);
      for (const reader of ec.readers) {
        const r = idx.get(reader)!;
        // π_s − π_r ≥ 1 − M·(1 − e), M = ub_r − lb_s + 1 (the row is slack at e = 0); none when it always holds.
        const bigM = st.piUpper[r]! - st.piLower[s]! + 1;
        if (bigM <= 0) continue;
        addRow(`elread_${reader}_${ec.copy}`, 1 - bigM, Infinity, [
          { col: pi[s]!, coef: 1 },
          { col: pi[r]!, coef: -1 },
          { col: e, coef: -bigM },
        ]);
      }
    }
    // Two updates may not both write one array: at most one copy of each source is elided.
    const copies = graph.elidableCopies ?? [];
    copies.forEach((a, i) => {
      copies.forEach((b, j) => {
        if (j <= i || !a.sources.some((x) => b.sources.includes(x))) return;
        if (columns[out[i]!.col]!.upper === 0 || columns[out[j]!.col]!.upper === 0) return;
        addRow(`elone_${a.copy}_${b.copy}`, -Infinity, 1, [{ col: out[i]!.col, coef: 1 }, { col: out[j]!.col, coef: 1 }]);
      });
    });
    return out;
  }

  /**
   * The `recompute` term, per gather g with f_g > 1. A producer of g's source carries ℓ_g exactly
   * when its edge to g is fused, so its indicator is 1 − x(src, g), with no column of its own
   * (cost w·(f_g − 1) as a constant minus the same on x). Every other node n that can carry ℓ_g
   * (structure.ts's label domain) and reaches a source producer along fusible edges that carry
   * the consumer's order (`output` reads: map, fold and gather-index inputs) gets r_ng.
   */
  function addRecompute(): LayoutRecompute {
    const out: { node: number; label: number; col: number }[] = [];
    const inEdges = graph.nodes.map(() => [] as number[]);
    graph.edges.forEach((e, k) => {
      if (e.fusible && !fixedUnfused(k) && e.reads.some((r) => r.order === 'output')) inEdges[idx.get(e.to)!]!.push(k);
    });
    for (const g of graph.nodes) {
      checkpoint();
      const factor = gatherFactor(graph, g);
      if (g.label === null || factor === null || factor <= 1) continue;
      const label = g.label;
      const carries = (i: number): boolean => st.orderLabels[i]!.has(label);
      const costOf = (i: number): number => groupCoefficient(cost, 'recompute', graph.groups[graph.nodes[i]!.group!]!) * (factor - 1);
      /** The indicator of "node i carries ℓ_g" as Σ terms + constant. */
      const indicator = new Map<number, { readonly terms: readonly Term[]; readonly constant: number }>();
      const queue: number[] = [];
      graph.edges.forEach((e, k) => {
        const p = idx.get(e.from)!;
        if (e.to !== g.id || !e.reads.some((r) => r.order === 'label') || fixedUnfused(k) || !carries(p)) return;
        indicator.set(p, { terms: [{ col: fused[k]!, coef: -1 }], constant: 1 });
        offset += costOf(p);
        addCost(fused[k]!, -costOf(p));
        queue.push(p);
      });
      for (let head = 0; head < queue.length; head++) {
        const c = queue[head]!;
        const ic = indicator.get(c)!;
        for (const k of inEdges[c]!) {
          const e = graph.edges[k]!;
          const p = idx.get(e.from)!;
          if (!carries(p)) continue;
          let ip = indicator.get(p);
          if (ip === undefined) {
            const col = addCol(`r_${e.from}_${g.id}`, 0, 1, false, costOf(p));
            out.push({ node: p, label, col });
            ip = { terms: [{ col, coef: 1 }], constant: 0 };
            indicator.set(p, ip);
            queue.push(p);
          } else if (ip.constant === 1) {
            continue; // a source producer: its indicator is exact already
          }
          // r_p ≥ indicator_c − x(p, c).
          addRow(`rcarry_${e.from}_${e.to}_${g.id}`, ic.constant, Infinity, [
            ...ip.terms,
            ...ic.terms.map((t) => ({ col: t.col, coef: -t.coef })),
            { col: fused[k]!, coef: 1 },
          ]);
        }
      }
    }
    return out;
  }

  /**
   * a = b when the binary `switchCol` equals `equalAt` (x = 0: fused; s = 1: shared), by
   * a − b ≤ M·(switch off) and b − a ≤ M'·(switch off), M and M' the largest possible
   * differences; no row for a direction that can never be positive.
   */
  function addEqualWhen(name: string, a: Affine, b: Affine, switchCol: number, equalAt: 0 | 1): void {
    const up = valueHi(a) - valueLo(b); // largest a − b
    const down = valueHi(b) - valueLo(a); // largest b − a
    const terms: Term[] = [];
    if (a.col !== null) terms.push({ col: a.col, coef: 1 });
    if (b.col !== null) terms.push({ col: b.col, coef: -1 });
    if (terms.length === 0) return;
    const rhs = b.constant - a.constant; // the row bounds a.col − b.col against this
    // equalAt 0: a − b ≤ up·x, b − a ≤ down·x.  equalAt 1: a − b ≤ up·(1 − s), b − a ≤ down·(1 − s).
    const sign = equalAt === 0 ? 1 : -1;
    const shift = equalAt === 0 ? 0 : 1;
    if (up > 0) addRow(`${name}_le`, -Infinity, rhs + up * shift, [...terms, { col: switchCol, coef: -up * sign }]);
    if (down > 0) addRow(`${name}_ge`, rhs - down * shift, Infinity, [...terms, { col: switchCol, coef: down * sign }]);
  }

  /** Valid inequalities that cut fractional points only. */
  function addCuts(): void {
    const edgeAt = new Map<string, number>();
    graph.edges.forEach((e, k) => {
      if (!fixedUnfused(k)) edgeAt.set(`${e.from}->${e.to}`, k);
    });
    const outOf = graph.nodes.map(() => [] as number[]);
    for (const k of edgeAt.values()) outOf[idx.get(graph.edges[k]!.from)!]!.push(k);
    // Triangles a→b→c with a→c: fusing two sides fuses the third (π equal along all three).
    checkpoint();
    for (const kac of edgeAt.values()) {
      const a = graph.edges[kac]!.from;
      const c = graph.edges[kac]!.to;
      for (const kab of outOf[idx.get(a)!]!) {
        const kbc = edgeAt.get(`${graph.edges[kab]!.to}->${c}`);
        if (kbc === undefined) continue;
        const [xab, xbc, xac] = [fused[kab]!, fused[kbc]!, fused[kac]!];
        addRow(`tri_${a}_${graph.edges[kab]!.to}_${c}_ab`, -Infinity, 0, [{ col: xab, coef: 1 }, { col: xac, coef: -1 }]);
        addRow(`tri_${a}_${graph.edges[kab]!.to}_${c}_bc`, -Infinity, 0, [{ col: xbc, coef: 1 }, { col: xac, coef: -1 }]);
        addRow(`tri_${a}_${graph.edges[kab]!.to}_${c}_ac`, -Infinity, 0, [{ col: xac, coef: 1 }, { col: xab, coef: -1 }, { col: xbc, coef: -1 }]);
      }
    }
    // Equalities of π: a fused edge (x = 0) or a shared read stream (s = 1). Two of them, {p, q}
    // and {r, t}, with paths q ⇝ r and t ⇝ p (any orientation) close a cycle through which all
    // these nodes share one π; a strict step on either path makes that impossible, so at most
    // one holds. (One alone is the strict-path fixing and pair pruning above.)
    const equalities = [
      ...[...edgeAt.values()].map((k) => ({ col: fused[k]!, holdsAt: 0, a: idx.get(graph.edges[k]!.from)!, b: idx.get(graph.edges[k]!.to)! })),
      ...shares,
    ];
    const reachOrSelf = (u: number, v: number): boolean => u === v || st.after[u]!.has(v);
    const strictlyReaches = (u: number, v: number): boolean => u !== v && st.strictlyAfter[u]!.has(v);
    const closesStrictCycle = (p: number, q: number, r: number, t: number): boolean =>
      reachOrSelf(q, r) && reachOrSelf(t, p) && (strictlyReaches(q, r) || strictlyReaches(t, p));
    // A strict step on a path starts at a node with a strict descendant, and every such path
    // starts at an end of e or f: pairs where no end has one close no strict cycle, so only pairs
    // with a `touched` member are tried.
    const touched = equalities.map((e) => st.hasStrictDescendant[e.a]! || st.hasStrictDescendant[e.b]!);
    const touchedAt = touched.flatMap((t, i) => (t ? [i] : []));
    // Every orientation of a cycle needs a path from an end of e to an end of f and one back, so
    // a pair passes only when f has an end in Down(e) (e's ends and their descendants) and an
    // end in Up(e) (e's ends and their ancestors): tested on bit sets, since blocks of a
    // thousand nodes have tens of millions of pairs (NAS MG).
    const down = equalities.map((e) => {
      const set = emptyWords(n);
      for (const u of [e.a, e.b]) {
        unionInto(set, st.after[u]!.words);
        addBit(set, u);
      }
      return set;
    });
    const ancestors = graph.nodes.map(() => emptyWords(n));
    for (let u = 0; u < n; u++) {
      if (u % 64 === 0) checkpoint();
      const reach = st.after[u]!.words;
      for (let v = 0; v < n; v++) if (hasBit(reach, v)) addBit(ancestors[v]!, u);
    }
    const up = equalities.map((e) => {
      const set = emptyWords(n);
      for (const u of [e.a, e.b]) {
        unionInto(set, ancestors[u]!);
        addBit(set, u);
      }
      return set;
    });
    const tryPair = (i: number, j: number): void => {
      const [e, f] = [equalities[i]!, equalities[j]!];
      const [downE, upE] = [down[i]!, up[i]!];
      if (!((hasBit(downE, f.a) && hasBit(upE, f.b)) || (hasBit(downE, f.b) && hasBit(upE, f.a)))) return;
      if (!closesStrictCycle(e.a, e.b, f.a, f.b) && !closesStrictCycle(e.a, e.b, f.b, f.a) && !closesStrictCycle(e.b, e.a, f.a, f.b) && !closesStrictCycle(e.b, e.a, f.b, f.a)) return;
      // literal(x) = 1 − x, literal(s) = s; literal_e + literal_f ≤ 1.
      const constant = (e.holdsAt === 0 ? 1 : 0) + (f.holdsAt === 0 ? 1 : 0);
      addRow(`cyc_${e.col}_${f.col}`, -Infinity, 1 - constant, [
        { col: e.col, coef: e.holdsAt === 0 ? -1 : 1 },
        { col: f.col, coef: f.holdsAt === 0 ? -1 : 1 },
      ]);
    };
    // Pairs i < j with a touched member, in the order (i, j) of the plain double loop.
    for (let i = 0; i < equalities.length; i++) {
      checkpoint();
      if (touched[i]) {
        for (let j = i + 1; j < equalities.length; j++) tryPair(i, j);
      } else {
        for (const j of touchedAt) if (j > i) tryPair(i, j);
      }
    }
    // Two out-edges of one producer whose reads are in different fixed orders: one is unfused.
    for (const ks of outOf) {
      for (let i = 0; i < ks.length; i++) {
        for (let j = i + 1; j < ks.length; j++) {
          const fi = [...fixedOrders[ks[i]!]!];
          const fj = [...fixedOrders[ks[j]!]!];
          if (fi.length === 1 && fj.length === 1 && fi[0] !== fj[0]) {
            addRow(`clash_${graph.edges[ks[i]!]!.from}_${graph.edges[ks[i]!]!.to}_${graph.edges[ks[j]!]!.to}`, 1, Infinity, [{ col: fused[ks[i]!]!, coef: 1 }, { col: fused[ks[j]!]!, coef: 1 }]);
          }
        }
      }
    }
  }

  /** Adds the read-stream variables of one group; returns the constant part of its cost. */
  function addReadStreams(group: number, w: number): number {
    const groupReads = graph.reads.filter((r) => r.group === group);
    // Unordered reads: a stream each, per (consumer, role): constant.
    const unorderedKeys = new Set(groupReads.filter((r) => r.order === 'unordered').map((r) => `${r.consumer}/${r.role}`));
    let constant = w * unorderedKeys.size;
    // Ordered reads, one key per (consumer, order rule): reads of one consumer in one rule share it.
    const producer = graph.groups[group]!.producer;
    interface OrderedRead {
      readonly c: number;
      readonly order: Affine;
      /** 1 when the read is from memory: x of the producer's edge, or the constant 1. */
      readonly memory: Affine;
    }
    const ordered: OrderedRead[] = [];
    const keys = new Set<string>();
    for (const r of groupReads) {
      if (r.order === 'unordered') continue;
      const key = `${r.consumer}/${r.order}`;
      if (keys.has(key)) continue;
      keys.add(key);
      const c = idx.get(r.consumer)!;
      let memory: Affine = { col: null, constant: 1 };
      if (producer !== null) {
        const k = graph.edges.findIndex((e) => e.from === producer && e.to === r.consumer);
        if (k < 0) throw new CompilerBug('plan/ilp', `read of group ${group} by ${r.consumer} has no edge`);
        if (!fixedUnfused(k)) memory = { col: fused[k]!, constant: 0 };
      }
      ordered.push({ c, order: readOrder(r, c), memory });
    }
    const payIfMemory = (m: Affine): void => {
      if (m.col === null) constant += w * m.constant;
      else addCost(m.col, w);
    };
    // Pairs (r, q), r < q, that may share a stream: no strict path between the consumers, π
    // ranges and order domains that overlap.
    const pairs: { readonly r: number; readonly q: number; readonly s: number }[] = [];
    ordered.forEach((q, qi) => {
      for (let ri = 0; ri < qi; ri++) {
        const r = ordered[ri]!;
        const mayShare = canShareCluster(r.c, q.c) && valueLo(r.order) <= valueHi(q.order) && valueLo(q.order) <= valueHi(r.order);
        if (!mayShare) continue;
        const s = addCol(`s_${group}_${ri}_${qi}`, 0, 1, true);
        pairs.push({ r: ri, q: qi, s });
        if (r.c !== q.c) shares.push({ col: s, holdsAt: 1, a: r.c, b: q.c });
        // s = 1 ⇒ π_r = π_q and order_r = order_q.
        if (r.c !== q.c) addEqualWhen(`spi_${group}_${ri}_${qi}`, { col: pi[r.c]!, constant: 0 }, { col: pi[q.c]!, constant: 0 }, s, 1);
        addEqualWhen(`sord_${group}_${ri}_${qi}`, r.order, q.order, s, 1);
      }
    });
    // A memory read either opens a stream (y) or joins exactly one earlier read that opened one
    // (facility location: s_rq ≤ y_r), so y_q + Σ_r s_rq = memory_q. A read in no pair pays alone.
    const opens = ordered.map((q, qi) => {
      if (!pairs.some((pair) => pair.r === qi || pair.q === qi)) {
        payIfMemory(q.memory);
        return -1;
      }
      return addCol(`y_${group}_${qi}`, 0, 1, false, w);
    });
    ordered.forEach((q, qi) => {
      const y = opens[qi]!;
      if (y < 0) return;
      const joins = pairs.filter((pair) => pair.q === qi).map((pair) => ({ col: pair.s, coef: 1 }));
      const memoryTerm = q.memory.col === null ? [] : [{ col: q.memory.col, coef: -1 }];
      const rhs = q.memory.col === null ? q.memory.constant : 0;
      addRow(`open_${group}_${qi}`, rhs, rhs, [{ col: y, coef: 1 }, ...joins, ...memoryTerm]);
    });
    for (const pair of pairs) addRow(`joinopen_${group}_${pair.r}_${pair.q}`, -Infinity, 0, [{ col: pair.s, coef: 1 }, { col: opens[pair.r]!, coef: -1 }]);
    if (pairs.length > 0) streams.push({ group, reads: ordered, pairs, opens });
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
