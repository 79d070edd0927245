// One cluster of a plan → one loop nest (paper §3.2; the note "Point evaluation" below).
//
// Point evaluation. Every node of a cluster is computed at the point its order gives: order 0
// or 1 at the loop's own flat index (the loop runs backwards for order 1), a gather label ℓ at
// the flat index that gather ℓ reads its source at. The code is built on demand from the
// cluster's roots (manifest nodes and scatters): a root asks for its inputs at its point; an
// input produced inside the cluster is computed there (vertical fusion), at most once per
// scope (diagonal fusion reuses the local that was also stored; two consumers share it), and
// an input from memory is loaded once per scope and order (horizontal fusion shares it, reads
// in two orders are two loads, as in simple5). A gather computes its source index from its
// index arrays and so defines the point of everything fused into its source, recursively
// (simple2). A fold opens an inner loop over the innermost dimension of its input at its own
// point (so simple4 computes only the rows the gather selects); folds at one point over one
// extent share that inner loop, and roots of a higher rank than the cluster's outer loop run in
// such row loops too. Scans carry their accumulator along the loop, restarting at each row.
//
// Chunks (the parallel variant, `ClusterSpec.chunk`). The same nest, its chunked loop — the
// outer loop, the outermost axis of a per-axis nest, or at rank 0 the one row loop — running
// [lo, hi) of its iterations. A fold or scan carried along that loop starts from the operator's
// identity (phase 1 of a scan, a whole-array fold's partial) or from the chunk's carry (phase 3
// of a scan), and leaves its value in the partials after the loop; scatters update by Atomics or
// only inside the chunk's destination range (`scatter`). `NestFacts` tell program.ts what it
// needs to run such chunks from main.
//
// Scopes. A scope is one loop level: the outer loop, or a row loop nested in it. It knows the
// points of the orders it defines (with their rank), the node values and the loads already
// computed in it. A node is computed in the nearest scope that defines its order at its rank.

import { CompilerBug } from '../diagnostics/index.js';
import type { CombinatorNode, FoldNode, NodeId, ScalarType, ScanlNode, ScanrNode, VarName } from '../ir/types.js';
import { orderKey, type Order } from '../plan/types.js';
import {
  add, arr, assign, bin, call, constDecl, exprStmt, forEachNode, id, index, letDecl, member, mul, num, un, type JsExpr, type JsStmt,
} from './jsast.js';
import {
  applyLambda, bindAtom, compileExpr, counted as countedLoad, flatIndex, indexCheck, outsideTest, mergeOpCounts, type ExprEnv,
} from './scalar.js';
import { callHelper } from './runtimeHelpers.js';
import { identifiersOf, jamRows } from './jam.js';
import { shareValues } from './share.js';
import { optimiseLoops, type LoopContext } from './loops/index.js';
import { atomicOps, identities } from './parallel.js';
import type { ReadOrder } from './sites.js';

/** What the code generator knows of a cluster and of the arrays around it. */
export interface ClusterSpec {
  /** The cluster's nodes in dependence order. */
  readonly nodes: readonly CombinatorNode[];
  readonly orders: Readonly<Record<NodeId, Order>>;
  readonly manifest: ReadonlySet<VarName>;
  /**
   * Every array the cluster touches: memory arrays (data is the buffer), manifest outputs
   * (data is the freshly allocated buffer), fused-away outputs (data unused; dims valid).
   */
  readonly env: ExprEnv;
  /** The parallel variant's work function this build is for (absent: the sequential loop nest). */
  readonly chunk?: ChunkSpec;
  /** Floating-point folds may be regrouped (loops/index.ts; docs/LANGUAGE.md). */
  readonly fastMath?: boolean;
}

/**
 * A work function of the parallel variant (program.ts `parallelCluster`; docs/EXECUTION.md
 * "Threads"; the operators it may regroup: parallel.ts): the cluster's chunked
 * loop runs [lo, hi) of its iterations. `body`: everything the cluster computes (scans start at
 * the chunk's carry, whole-array folds start at the chunk's first element and leave their
 * partials); `reduce`: only the aggregates of the carried scans' inputs over the chunk (phase 1
 * of reduce-then-scan), nothing stored.
 */
export interface ChunkSpec {
  readonly phase: 'body' | 'reduce';
  /** Parameter names of the work function. */
  readonly lo: string;
  readonly hi: string;
  readonly chunk: string;
  readonly partials: string;
  /** Slots per chunk in `partials`, and where each carried scan's or fold's components start. */
  readonly width: number;
  readonly offsets: ReadonlyMap<NodeId, number>;
  /** How scatters update: `plain` (distinct indices), `atomic` (Atomics ops), `owner` (only the destination range [lo, hi), the whole source walked). */
  readonly scatter: 'plain' | 'atomic' | 'owner';
  /** Only some roots: the scatters (an owner split's second call), or the others (its first). */
  readonly only?: 'scatters' | 'others';
}

/** A fold or scan whose accumulator is carried along the cluster's chunked loop. */
export interface Carried {
  readonly node: FoldNode | ScanlNode | ScanrNode;
  /** The accumulator locals (one per component). */
  readonly accs: readonly string[];
  /** Compiled seeds (folds, exclusive scans), or null for an inclusive scan. */
  readonly seeds: readonly JsExpr[] | null;
}

/**
 * What the parallel variant needs to know of a built loop nest. `loop`: the loop a work
 * function would chunk (null: none — a rank-0 cluster with no row loop or several), its extent
 * (an expression of main's locals), and `post`, the statements after it at rank 0 (the stores
 * of whole-array fold results), which main runs once the partials are combined.
 */
export interface NestFacts {
  readonly baseRank: number;
  readonly loop: { readonly extent: JsExpr; readonly outerIndex: string; readonly post: readonly JsStmt[]; readonly rowPre: readonly JsStmt[] } | null;
  readonly scans: readonly Carried[];
  readonly folds: readonly Carried[];
  /** Why the nest cannot be chunked exactly, if it cannot. */
  readonly unsupported: string | null;
  /** Estimated operations per iteration of the chunked loop (see `costOf`). */
  readonly work: JsExpr;
}

type BodyItem = JsStmt | { readonly kind: 'row'; readonly row: Scope };

interface Point {
  /** The flat row-major index. */
  readonly at: JsExpr;
  readonly rank: number;
  /**
   * The per-dimension indices of `at`, which the loops always have (a loop's own index, the
   * indices of a loop nest, a row loop's index after its row's, a gather's index values), so a
   * generate or a scan never divides to recover them. Over rank ≥ 2 the outer loop's are named
   * whether or not it becomes a nest (see `generate`).
   */
  readonly indices: readonly JsExpr[];
}

interface Scope {
  readonly parent: Scope | null;
  /** Statements run once before this scope's loop (accumulators live here). */
  readonly pre: JsStmt[];
  readonly body: BodyItem[];
  readonly points: Map<string, Point>;
  readonly values: Map<NodeId, readonly JsExpr[]>;
  readonly loads: Map<string, JsExpr>;
  readonly rows: Map<string, Scope>;
  /** For row scopes: the loop, and the flat index of the row's first element (a local set before the loop). */
  readonly loop: { readonly index: string; readonly extent: JsExpr; readonly start: JsExpr } | null;
  /**
   * The order whose point this scope's own loop index advances, and its direction: fixed by a
   * fold (forwards) or a scan (its own direction); `null` while nothing inside cares.
   */
  readonly own: { readonly key: string; down: boolean | null } | null;
}

/** Rows are shared by order key, the rank of the point they extend, and extent. */
function rowKeyOf(key: string, rank: number, extent: JsExpr): string {
  return `${key}\u0000${rank}\u0000${JSON.stringify(extent)}`;
}

function newScope(parent: Scope | null, loop: Scope['loop'], own: Scope['own']): Scope {
  return { parent, pre: [], body: [], points: new Map(), values: new Map(), loads: new Map(), rows: new Map(), loop, own };
}

function bug(message: string): CompilerBug {
  return new CompilerBug('codegen', message);
}

/** Generates one cluster's loop nest. Not reentrant: one instance per cluster. */
class ClusterGen {
  private readonly producer = new Map<VarName, { node: CombinatorNode; component: number }>();
  private readonly inCluster = new Set<NodeId>();
  private readonly env: ExprEnv;

  /**
   * Rows a fused scanr runs right to left in (by rowKey). Known before any node is evaluated,
   * so a fold that reaches such a row first (`map(f, fold(+, m), fold(+, scanr(+, m)))`)
   * takes the row-buffer path instead of fixing the row forwards (issue 9, C5).
   */
  private readonly backwardRows = new Set<string>();

  /** The outer scope and the rank of its loop, once `generate` has made them. */
  private outerScope: Scope | null = null;
  private baseRank = -1;
  readonly scans: Carried[] = [];
  readonly folds: Carried[] = [];
  unsupported: string | null = null;
  facts: NestFacts | null = null;

  constructor(private readonly spec: ClusterSpec) {
    this.env = spec.env;
    for (const n of spec.nodes) {
      this.inCluster.add(n.id);
      n.outs.forEach((o, k) => this.producer.set(o.name, { node: n, component: k }));
    }
    for (const n of spec.nodes) {
      const scan = loopTraits(n).rowScan;
      if (scan === null || scan.direction !== 'backward') continue;
      for (const dims of [this.env.array(scan.input).dims, this.env.array(n.outs[0]!.name).dims]) {
        this.backwardRows.add(rowKeyOf(orderKey(this.order(n)), dims.length - 1, dims[dims.length - 1]!));
      }
    }
  }

  private order(n: CombinatorNode): Order {
    const o = this.spec.orders[n.id];
    if (o === undefined) throw bug(`node ${n.id} has no order in the plan`);
    return o;
  }

  private fresh(prefix: string): string {
    return this.env.fresh(prefix);
  }

  /** The nearest scope (self or ancestor) that defines order `key` at `rank`. */
  private resolve(scope: Scope, key: string, rank: number): Scope {
    for (let s: Scope | null = scope; s !== null; s = s.parent) {
      const p = s.points.get(key);
      if (p !== undefined && p.rank === rank) return s;
    }
    throw bug(`no loop of the cluster defines order ${key} at rank ${rank}`);
  }

  private point(scope: Scope, key: string): JsExpr {
    return scope.points.get(key)!.at;
  }

  /** The value of one component array at order `o` in `scope`: a fused value or a load. */
  private read(name: VarName, o: Order, readOrder: ReadOrder, scope: Scope): JsExpr {
    const prod = this.producer.get(name);
    if (prod !== undefined) {
      const po = this.order(prod.node);
      if (orderKey(po) !== orderKey(o)) {
        throw bug(`array read in order ${orderKey(o)} but fused with a producer of order ${orderKey(po)}`);
      }
      return this.evaluate(prod.node, scope)[prod.component]!;
    }
    const ref = this.env.array(name);
    const key = orderKey(o);
    const target = this.resolve(scope, key, ref.dims.length);
    const cacheKey = `${name}\u0000${key}\u0000${readOrder === 'unordered' ? 'u' : ''}`;
    const cached = target.loads.get(cacheKey);
    if (cached !== undefined) return cached;
    const local = this.fresh('x');
    const load = countedLoad(this.env, () => this.env.tables.slot(name, ref.elem, { kind: 'read', order: readOrder }), index(ref.data, this.point(target, key)));
    target.body.push(constDecl(local, load));
    target.loads.set(cacheKey, id(local));
    return id(local);
  }

  private readOrdered(name: VarName, o: Order, scope: Scope): JsExpr {
    return this.read(name, o, o, scope);
  }

  /** The values of a node's outputs at its point, computing them (once) if needed. */
  evaluate(n: CombinatorNode, scope: Scope): readonly JsExpr[] {
    const o = this.order(n);
    const key = orderKey(o);
    const target = this.resolve(scope, key, this.rootDims(n).length);
    const known = target.values.get(n.id);
    if (known !== undefined) return known;
    const values = this.compute(n, o, target);
    target.values.set(n.id, values);
    if (loopTraits(n).inPlace === null) this.storeIfManifest(n, values, target, key);
    return values;
  }

  private storeIfManifest(n: CombinatorNode, values: readonly JsExpr[], scope: Scope, key: string): void {
    // Phase 1 of reduce-then-scan only aggregates: phase 3 stores every value.
    if (this.spec.chunk?.phase === 'reduce') return;
    n.outs.forEach((out, k) => {
      if (!this.spec.manifest.has(out.name)) return;
      const ref = this.env.array(out.name);
      scope.body.push(assign(index(ref.data, this.point(scope, key)), values[k]!));
      if (this.env.counters) scope.body.push(this.countWrite(out.name, out.elem, ref.data));
    });
  }

  private countWrite(name: VarName, elem: ScalarType, data: JsExpr): JsStmt {
    return exprStmt(callHelper('count', [num(this.env.tables.slot(name, elem, { kind: 'write' })), num(0), member(data, 'length')]));
  }

  /** The expression environment of one node: its errors name it and point at it. */
  private nodeEnv(n: CombinatorNode): ExprEnv {
    return { ...this.env, context: n.kind, span: n.span };
  }

  private compute(n: CombinatorNode, o: Order, scope: Scope): readonly JsExpr[] {
    const key = orderKey(o);
    const env = this.nodeEnv(n);
    const out = scope.body as JsStmt[];
    switch (n.kind) {
      case 'generate': {
        const p = scope.points.get(key)!;
        if (p.indices.length !== n.shape.length) throw bug(`generate ${n.id} of rank ${n.shape.length} at a point of rank ${p.indices.length}`);
        return applyLambda(n.fn, p.indices, env, out, 'g');
      }
      case 'map': {
        const args = n.inputs.map((a) => this.readOrdered(a, o, scope));
        return applyLambda(n.fn, args, env, out, 'm');
      }
      case 'gather':
        return this.gather(n, o, scope);
      case 'fold':
        return this.fold(n, o, scope);
      case 'scanl':
      case 'scanr':
        return this.scan(n, o, scope);
      case 'scatter':
        this.scatter(n, o, scope);
        return n.dest.map(() => num(0));
      case 'force':
        return n.input.map((a) => this.read(a, o, 'unordered', scope));
      default:
        return n satisfies never;
    }
  }

  private gather(n: Extract<CombinatorNode, { kind: 'gather' }>, o: Order, scope: Scope): readonly JsExpr[] {
    const out = scope.body as JsStmt[];
    const src = this.env.array(n.source[0]!);
    if (src.dims.length !== n.indices.length) throw bug(`gather ${n.id}: ${n.indices.length} index arrays for a rank-${src.dims.length} source`);
    const site = this.env.tables.site({ kind: 'index', what: 'gather', span: n.span });
    const position = this.point(scope, orderKey(o));
    const raw = n.indices.map((ia) => bindAtom(this.readOrdered(ia, o, scope), 'j', this.env, out));
    const outDims = this.env.array(n.outs[0]!.name).dims;
    if (scope.loop !== null && raw.every((a) => this.invariantIn(scope, a))) {
      // Indices that do not change along the row (greedyBottomUpBad gathers xs[i] for every j)
      // are checked once before the row loop, as its first element would be: at the row's
      // start, and only when the row has elements.
      scope.pre.push(indexCheck(site, raw, src.dims, scope.loop.start, outDims, bin('>', scope.loop.extent, num(0))));
      return this.gatherAt(n, scope, raw, src.dims);
    }
    if (raw.length === 1 && !this.producer.has(n.source[0]!)) {
      // A rank-1 source in memory, whose data holds exactly its n elements: the load itself is
      // the check. A typed array read outside [0, n) is `undefined`, which no element is, and
      // V8 folds the test into its own bounds check of the load, so the common path pays for
      // one bounds check instead of two (singleLoop's reverse runs as fast as a plain loop).
      const values = this.gatherAt(n, scope, raw, src.dims);
      const missed = bin('===', values[0]!, un('void', num(0)));
      out.push({ kind: 'if', test: missed, then: [exprStmt(callHelper('oob', [num(site), arr(raw), arr(src.dims), position, arr(outDims)]))], else: [] });
      return values;
    }
    out.push(indexCheck(site, raw, src.dims, position, outDims));
    return this.gatherAt(n, scope, raw, src.dims);
  }

  /** The source values of a gather at its (checked, or checked next) index atoms. */
  private gatherAt(n: Extract<CombinatorNode, { kind: 'gather' }>, scope: Scope, raw: readonly JsExpr[], dims: readonly JsExpr[]): readonly JsExpr[] {
    const at = bindAtom(flatIndex(raw, dims), 'j', this.env, scope.body as JsStmt[]);
    const label: Order = { gather: n.id };
    scope.points.set(orderKey(label), { at, rank: dims.length, indices: raw });
    return n.source.map((s) => this.readOrdered(s, label, scope));
  }

  /** Whether an atom is the same for every element of row scope `scope`: not computed in it. */
  private invariantIn(scope: Scope, atom: JsExpr): boolean {
    if (atom.kind === 'num') return true;
    if (atom.kind !== 'id') return false;
    if (scope.loop !== null && atom.name === scope.loop.index) return false;
    // Locals of the loop body (a nested row's `pre` is rendered into it), and this row's own
    // `pre` locals, which the loop updates (accumulators), vary; anything else is from outside.
    const declares = (stmts: readonly BodyItem[]): boolean =>
      stmts.some((item) => (item.kind === 'row' ? declares(item.row.pre) : item.kind === 'decl' && item.name === atom.name));
    return !declares(scope.pre) && !declares(scope.body);
  }

  /** The row loop over `extent` at this scope's point of order `key`, shared by key and extent. */
  private row(scope: Scope, key: string, rank: number, extent: JsExpr, down: boolean | null): Scope {
    const rowKey = rowKeyOf(key, rank, extent);
    const existing = scope.rows.get(rowKey);
    if (existing !== undefined) {
      this.direct(existing, down);
      return existing;
    }
    const j = this.fresh('j');
    const base = this.fresh('b');
    const r = newScope(scope, { index: j, extent, start: id(base) }, { key, down: down ?? (this.backwardRows.has(rowKey) ? true : null) });
    const outerPoint = scope.points.get(key)!;
    // The row's start, once per row rather than a multiplication per element.
    r.pre.push(constDecl(base, mul(outerPoint.at, extent)));
    const p = this.fresh('p');
    r.body.push(constDecl(p, add(id(base), id(j))));
    r.points.set(key, { at: id(p), rank: rank + 1, indices: [...outerPoint.indices, id(j)] });
    scope.rows.set(rowKey, r);
    scope.body.push({ kind: 'row', row: r });
    return r;
  }

  /** Fixes the direction of a scope's loop, or finds that two users need opposite ones. */
  private direct(scope: Scope, down: boolean | null): void {
    const own = scope.own!;
    if (down === null) return;
    if (own.down === null) own.down = down;
    else if (own.down !== down) throw bug('a fold over a fused scanr (a row loop needed in both directions) is not supported');
  }

  private fold(n: FoldNode, o: Order, scope: Scope): readonly JsExpr[] {
    const key = orderKey(o);
    const input = this.env.array(n.input[0]!);
    const extent = input.dims[input.dims.length - 1]!;
    const r = this.row(scope, key, input.dims.length - 1, extent, null);
    const carried = this.isCarried(r);
    const chunk = this.spec.chunk;
    const seeds: JsExpr[] = [];
    // A chunk's partial starts from the operator's exact identity, as if from its first element:
    // the seed is main's, combined once.
    const start = carried && chunk !== undefined ? identities(n.op, n.outs.map((o) => o.elem)) : null;
    const accs = n.init.map((z, k) => {
      const acc = this.fresh('acc');
      const seed = compileExpr(z, this.nodeEnv(n));
      seeds.push(seed);
      r.pre.push(letDecl(acc, start === null ? seed : num(start[k]!)));
      return id(acc);
    });
    if (carried) this.folds.push({ node: n, accs: accs.map(nameOf), seeds });
    const xs = n.input.map((a) => this.readOrdered(a, o, r));
    if (r.own!.down !== true) {
      // A fold runs left to right, as the interpreter does, so float results are identical.
      this.direct(r, false);
      this.accumulate(n, [...accs, ...xs], accs, r.body as JsStmt[]);
      return accs;
    }
    if (carried) this.unsupported = 'a whole-array fold over a fused scanr (its row runs right to left into a row buffer)';
    // The row loop runs right to left for a fused scanr: its elements go to a row buffer,
    // which a second loop then folds left to right.
    let root = scope;
    while (root.parent !== null) root = root.parent;
    const j = id(r.loop!.index);
    const bufs = xs.map((x) => {
      const buf = this.fresh('buf');
      root.pre.push(constDecl(buf, callHelper('scratch', [num(this.env.tables.scratch()), extent])));
      (r.body as JsStmt[]).push(assign(index(id(buf), j), x));
      return id(buf);
    });
    const k = this.fresh('j');
    const body: JsStmt[] = [];
    const ys = bufs.map((b) => bindAtom(index(b, id(k)), 'y', this.env, body));
    this.accumulate(n, [...accs, ...ys], accs, body);
    scope.body.push({ kind: 'for', index: k, from: num(0), to: extent, down: false, body });
    return accs;
  }

  /** `accs = op(args)`, binding all results before assigning any (they may swap). */
  private accumulate(n: FoldNode | ScanlNode | ScanrNode, args: readonly JsExpr[], accs: readonly JsExpr[], out: JsStmt[]): void {
    const results = applyLambda(n.op, args, this.nodeEnv(n), out, 'r').map((v) => {
      if (!accs.some((a) => a.kind === 'id' && v.kind === 'id' && a.name === v.name)) return v;
      const copy = this.fresh('r');
      out.push(constDecl(copy, v));
      return id(copy);
    });
    accs.forEach((a, k) => out.push(assign(a, results[k]!)));
  }

  private scan(n: ScanlNode | ScanrNode, o: Order, scope: Scope): readonly JsExpr[] {
    const key = orderKey(o);
    const down = loopTraits(n).rowScan?.direction === 'backward';
    if (scope.own === null || scope.own.key !== key) throw bug(`${n.kind} ${n.id} is not in a loop along its rows`);
    this.direct(scope, down);
    const out = scope.body as JsStmt[];
    const input = this.env.array(n.input[0]!);
    const extent = input.dims[input.dims.length - 1]!;
    const xs = n.input.map((a) => this.readOrdered(a, o, scope));
    const carried = this.isCarried(scope);
    const chunk = carried ? this.spec.chunk : undefined;
    // Phase 1 of reduce-then-scan folds the chunk's inputs from the operator's exact identity.
    const start = chunk?.phase === 'reduce' ? identities(n.op, n.outs.map((o) => o.elem)) : null;
    const accs = n.outs.map((_, k) => {
      const acc = this.fresh('acc');
      scope.pre.push(letDecl(acc, start === null ? null : num(start[k]!)));
      return id(acc);
    });
    const p = scope.points.get(key)!;
    // The loop has the index along the rows: no remainder is needed to find a row's start.
    const along = p.indices[p.indices.length - 1];
    if (along === undefined) throw bug(`${n.kind} ${n.id} at a point of rank 0`);
    const rowStart =
      chunk === undefined
        ? bin('===', along, down ? bin('-', extent, num(1)) : num(0))
        : bin('===', along, down ? bin('-', id(chunk.hi), num(1)) : id(chunk.lo));
    const first: JsStmt[] = [];
    const next: JsStmt[] = [];
    const combine = (prev: readonly JsExpr[]): void =>
      this.accumulate(n, down ? [...prev, ...accs] : [...accs, ...prev], accs, next);
    // The seeds of a carried exclusive scan are compiled by the sequential branch below (the
    // build main takes them from); a work function has none.
    const seeds: JsExpr[] | null = n.init === null ? null : [];
    if (carried) this.scans.push({ node: n, accs: accs.map(nameOf), seeds });
    if (chunk?.phase === 'reduce') {
      // Phase 1: the chunk's aggregate of its inputs in scan order.
      combine(xs);
      out.push(...next);
      return accs;
    }
    if (chunk !== undefined && n.init === null) {
      // An inclusive scan's phase 3: its first element in scan order is the row's own first
      // element in the chunk at the row's end, else the carry combined with it.
      const carry = this.carryOf(n, chunk, first);
      const withCarry: JsStmt[] = [];
      this.accumulate(n, down ? [...xs, ...carry] : [...carry, ...xs], accs, withCarry);
      const atEnd = down ? bin('===', id(chunk.hi), extent) : bin('===', id(chunk.lo), num(0));
      first.push({ kind: 'if', test: atEnd, then: accs.map((a, k) => assign(a, xs[k]!)), else: withCarry });
      combine(xs);
      out.push({ kind: 'if', test: rowStart, then: first, else: next });
      return accs;
    }
    if (chunk !== undefined && n.init !== null) {
      // Exclusive, phase 3: the chunk's first element in scan order holds its carry.
      const carry = this.carryOf(n, chunk, first);
      const prevs = n.input.map(() => {
        const p = this.fresh('prev');
        scope.pre.push(letDecl(p, null));
        return id(p);
      });
      accs.forEach((a, k) => first.push(assign(a, carry[k]!)));
      combine(prevs);
      out.push({ kind: 'if', test: rowStart, then: first, else: next });
      prevs.forEach((p, k) => out.push(assign(p, xs[k]!)));
      return accs;
    }
    if (n.init === null) {
      accs.forEach((a, k) => first.push(assign(a, xs[k]!)));
      combine(xs);
      out.push({ kind: 'if', test: rowStart, then: first, else: next });
    } else {
      // Exclusive: out[i] = op(out[i∓1], x[i∓1]); the previous element is carried too.
      const prevs = n.input.map(() => {
        const p = this.fresh('prev');
        scope.pre.push(letDecl(p, null));
        return id(p);
      });
      n.init.forEach((z, k) => {
        const seed = compileExpr(z, this.nodeEnv(n));
        seeds?.push(seed);
        first.push(assign(accs[k]!, seed));
      });
      combine(prevs);
      out.push({ kind: 'if', test: rowStart, then: first, else: next });
      prevs.forEach((p, k) => out.push(assign(p, xs[k]!)));
    }
    return accs;
  }

  /** Whether `scope`'s loop is the one a work function chunks and a fold or scan in it carries a value along it. */
  private isCarried(scope: Scope): boolean {
    if (this.baseRank === 0) return scope.loop !== null && scope.parent === this.outerScope;
    return this.baseRank === 1 && scope === this.outerScope;
  }

  /** A carried node's slot `k` of this chunk in the partials: `partials[chunk · width + offset + k]`. */
  private partialAt(n: CombinatorNode, chunk: ChunkSpec, k: number): JsExpr {
    const offset = chunk.offsets.get(n.id);
    if (offset === undefined) throw bug(`${n.kind} ${n.id} has no place in the partials`);
    return index(id(chunk.partials), add(mul(id(chunk.chunk), num(chunk.width)), num(offset + k)));
  }

  /** A scan's carry into this chunk (main stored it over the chunk's aggregate), bound to locals in `out`. */
  private carryOf(n: ScanlNode | ScanrNode, chunk: ChunkSpec, out: JsStmt[]): JsExpr[] {
    // Partials are f64: an integer carry is made an integer again (`| 0`, `>>> 0`), else V8
    // would keep the accumulator, and every index computed from it, as a double.
    return n.outs.map((o, k) => {
      const at = this.partialAt(n, chunk, k);
      const value = o.elem === 'u32' ? bin('>>>', at, num(0)) : o.elem === 'i32' || o.elem === 'u8' || o.elem === 'i8' || o.elem === 'bool' ? bin('|', at, num(0)) : at;
      return bindAtom(value, 'c', this.env, out);
    });
  }

  /** After the chunked loop: the chunk's fold partials (phase 3) or scan aggregates (phase 1). */
  private partialStores(chunk: ChunkSpec): JsStmt[] {
    const carried = chunk.phase === 'reduce' ? this.scans : this.folds;
    return carried.flatMap((c) => c.accs.map((a, k) => assign(this.partialAt(c.node, chunk, k), id(a))));
  }

  private scatter(n: Extract<CombinatorNode, { kind: 'scatter' }>, o: Order, scope: Scope): void {
    let out = scope.body as JsStmt[];
    const position = this.point(scope, orderKey(o));
    // The scatter's output is its destination's buffer, updated in place.
    const dest = n.outs.map((d) => this.env.array(d.name));
    const dims = dest[0]!.dims;
    const site = this.env.tables.site({ kind: 'index', what: 'scatter', span: n.span });
    const raw = n.index.map((ia) => bindAtom(this.readOrdered(ia, o, scope), 'j', this.env, out));
    if (n.drop !== true) out.push(indexCheck(site, raw, dims, position, this.env.array(n.index[0]!).dims));
    const at = bindAtom(flatIndex(raw, dims), 'j', this.env, out);
    const news = n.values.map((v) => this.readOrdered(v, o, scope));
    // A dropping scatter skips an update whose index is out of range. Its value is computed all
    // the same (fused code may fault there; the interpreter then decides, and a value nobody
    // stores is not observed): only the update is guarded.
    if (n.drop === true) {
      out = [];
      (scope.body as JsStmt[]).push({ kind: 'if', test: outsideTest(raw, dims), then: [], else: out });
    }
    // Updates in source order, as the interpreter applies them, unless a fused scanr already
    // runs this loop backwards (the order of updates to one index is unspecified then).
    if (scope.own !== null && scope.own.key === orderKey(o) && scope.own.down === null) scope.own.down = false;
    const mode = this.spec.chunk?.scatter ?? 'plain';
    if (mode === 'atomic' && n.unique !== true) {
      // Integer combines that commute and associate: one Atomics operation per component.
      const ops = atomicOps(n, dest.map((d) => d.elem));
      if (ops === null) throw bug(`scatter ${n.id} has no Atomics form`);
      dest.forEach((d, k) => {
        const op = ops[k]!;
        if (op !== 'min' && op !== 'max') {
          out.push(exprStmt(call(member(id('Atomics'), op), [d.data, at, news[k]!])));
          return;
        }
        // No Atomics.min/max: store the new extreme unless another thread changed the element
        // since it was read (then read it again); nothing to store when the old one wins.
        const old = this.fresh('o');
        const value = this.fresh('r');
        const x = news[k]!;
        const wins = bin(op === 'min' ? '<' : '>', x, id(old));
        const stored = bin('===', call(member(id('Atomics'), 'compareExchange'), [d.data, at, id(old), id(value)]), id(old));
        out.push({
          kind: 'while',
          test: un('!', num(0)),
          body: [
            constDecl(old, call(member(id('Atomics'), 'load'), [d.data, at])),
            constDecl(value, { kind: 'cond', test: wins, then: x, else: id(old) }),
            { kind: 'if', test: bin('||', bin('===', id(value), id(old)), stored), then: [{ kind: 'break' }], else: [] },
          ],
        });
      });
      return;
    }
    // The owner split: this chunk applies only the updates to its destination range, after
    // computing (and checking) every update as the sequential loop does.
    const update: JsStmt[] = [];
    const olds = dest.map((d, k) =>
      bindAtom(countedLoad(this.env, () => this.env.tables.slot(n.dest[k]!, d.elem, { kind: 'read', order: 'unordered' }), index(d.data, at)), 'old', this.env, update),
    );
    const results = applyLambda(n.op, [...olds, ...news], this.nodeEnv(n), update, 's');
    dest.forEach((d, k) => {
      update.push(assign(index(d.data, at), results[k]!));
      if (this.env.counters) update.push(this.countWrite(n.outs[k]!.name, d.elem, d.data));
    });
    if (mode === 'owner') {
      const chunk = this.spec.chunk!;
      out.push({ kind: 'if', test: bin('&&', bin('>=', at, id(chunk.lo)), bin('<', at, id(chunk.hi))), then: update, else: [] });
    } else out.push(...update);
  }

  /**
   * Whether a scan of this cluster is the node itself or flows into it through fused edges.
   * A walk with a stack, not recursion: a chain of thousands of fused maps is a valid cluster.
   */
  private feedsFromScan(root: CombinatorNode): boolean {
    const seen = new Set<NodeId>();
    const pending = [root];
    for (let n = pending.pop(); n !== undefined; n = pending.pop()) {
      if (seen.has(n.id)) continue;
      seen.add(n.id);
      if (loopTraits(n).rowScan !== null) return true;
      for (const a of inputArrays(n)) {
        const p = this.producer.get(a);
        if (p !== undefined) pending.push(p.node);
      }
    }
    return false;
  }

  /** The rank and shape a root is computed over: a scatter over its source, others their output. */
  private rootDims(n: CombinatorNode): readonly JsExpr[] {
    return this.env.array(loopTraits(n).iterates).dims;
  }

  generate(): JsStmt[] {
    const chunk = this.spec.chunk;
    // Phase 1 of a scan computes only what the carried scans read.
    const all =
      chunk?.phase === 'reduce'
        ? this.spec.nodes.filter((n) => loopTraits(n).rowScan !== null && chunk.offsets.has(n.id))
        : this.spec.nodes.filter((n) => loopTraits(n).inPlace !== null || n.outs.some((o) => this.spec.manifest.has(o.name)));
    const only = chunk?.only;
    const roots = only === undefined ? all : all.filter((n) => (n.kind === 'scatter') === (only === 'scatters'));
    if (roots.length === 0) throw bug('a cluster without manifest outputs');
    const rootOrders = new Set(roots.map((r) => orderKey(this.order(r))));
    if (rootOrders.size !== 1) throw bug(`cluster roots in several orders (${[...rootOrders].join(', ')})`);
    const o = this.order(roots[0]!);
    if (o !== 0 && o !== 1) throw bug('a cluster root in a gather order');
    const key = orderKey(o);
    const baseRank = Math.min(...roots.map((r) => this.rootDims(r).length));
    const base = roots.find((r) => this.rootDims(r).length === baseRank)!;
    const baseDims = this.rootDims(base);
    const i = this.fresh('i');
    // Only scans care which way a loop runs (and a scatter, for the order of its updates): a
    // loop that neither fixes runs forwards, even in order 1, where every point is the same.
    const outer = newScope(null, null, { key, down: null });
    // Over rank ≥ 2 the per-dimension indices are named up front; the loop becomes a nest over
    // them only if the body uses them (see `outerLoop`).
    const axes = baseRank >= 2 ? baseDims.map(() => this.fresh('i')) : [];
    const indices = baseRank === 0 ? [] : baseRank === 1 ? [id(i)] : axes.map(id);
    outer.points.set(key, { at: id(i), rank: baseRank, indices });
    this.outerScope = outer;
    this.baseRank = baseRank;
    // Roots fed by a scan go first: a scan fixes the direction of its row loop, and a fold that
    // comes later into a right-to-left row then takes the row-buffer path instead of failing.
    const ordered = [...roots.filter((r) => this.feedsFromScan(r)), ...roots.filter((r) => !this.feedsFromScan(r))];
    for (const r of ordered) {
      let scope = outer;
      const dims = this.rootDims(r);
      for (let level = baseRank; level < dims.length; level++) scope = this.row(scope, key, level, dims[level]!, null);
      this.evaluate(r, scope);
    }
    for (const n of this.spec.nodes) {
      if (chunk?.phase !== 'reduce' && only === undefined && !this.evaluatedSomewhere(n.id, outer)) throw bug(`node ${n.id} of the cluster is used by none of its roots`);
    }
    if (this.env.counters) countPoints(outer);
    const body = render(outer.body);
    const down = outer.own!.down === true;
    const used = identifiersOf(body);
    const nested = baseRank >= 2 && axes.some((a) => used.has(a));
    this.facts = this.factsOf(outer, i, baseDims, nested);
    if (chunk !== undefined && chunk.scatter !== 'owner') return this.chunked(chunk, outer, i, axes, baseDims, nested, body);
    // Roots of rank 0 (a fold to a scalar) have one point: no outer loop at all.
    if (baseRank === 0) return [...outer.pre, constDecl(i, num(0)), ...body];
    if (nested) return [...outer.pre, ...this.nestedLoop(i, axes, baseDims, down, body, null)];
    // The extent of a flat loop over several dimensions is computed once, not per iteration.
    let extent = baseDims.reduce<JsExpr>((acc, d) => mul(acc, d), num(1));
    const hoisted: JsStmt[] = [];
    if (extent.kind !== 'id' && extent.kind !== 'num') {
      const e = this.fresh('e');
      hoisted.push(constDecl(e, extent));
      extent = id(e);
    }
    const loop: JsStmt = { kind: 'for', index: i, from: num(0), to: extent, down, body };
    return [...outer.pre, ...hoisted, ...this.jam(loop)];
  }

  /** What the parallel variant needs to know of this nest (NestFacts). */
  private factsOf(outer: Scope, i: string, baseDims: readonly JsExpr[], nested: boolean): NestFacts {
    let loop: NestFacts['loop'] = null;
    let work: JsExpr = costOf(outer.body);
    if (this.baseRank === 0) {
      const first = outer.body[0];
      const rows = outer.body.filter((item) => item.kind === 'row');
      if (first !== undefined && first.kind === 'row' && rows.length === 1) {
        const r = first.row;
        loop = { extent: r.loop!.extent, outerIndex: i, post: render(outer.body.slice(1)), rowPre: r.pre };
        work = costOf(r.body);
      }
    } else {
      // A nest is chunked by its outermost axis: an iteration is a whole sub-array.
      const extent = nested ? baseDims[0]! : baseDims.reduce<JsExpr>((acc, d) => mul(acc, d), num(1));
      if (nested) work = baseDims.slice(1).reduce<JsExpr>((acc, d) => mul(acc, d), work);
      loop = { extent, outerIndex: i, post: [], rowPre: [] };
    }
    return { baseRank: this.baseRank, loop, scans: this.scans, folds: this.folds, unsupported: this.unsupported, work };
  }

  /** The work function's statements: the chunked loop over [lo, hi), then the chunk's partials. */
  private chunked(chunk: ChunkSpec, outer: Scope, i: string, axes: readonly string[], baseDims: readonly JsExpr[], nested: boolean, body: JsStmt[]): JsStmt[] {
    const loop = this.facts!.loop;
    if (loop === null) throw bug('a work function for a cluster with no loop to chunk');
    const stores = this.partialStores(chunk);
    const range = { from: id(chunk.lo), to: id(chunk.hi) };
    if (this.baseRank === 0) {
      const row = outer.body[0] as { kind: 'row'; row: Scope };
      return [...outer.pre, constDecl(i, num(0)), ...render([row], { scope: row.row, ...range }), ...stores];
    }
    const down = outer.own!.down === true;
    if (nested) return [...outer.pre, ...this.nestedLoop(i, axes, baseDims, down, body, range), ...stores];
    return [...outer.pre, ...this.jam({ kind: 'for', index: i, ...range, down, body }), ...stores];
  }

  /** Counters variants stay plain: they count per element and may stay slow. */
  private jam(loop: JsStmt): JsStmt[] {
    return (this.env.counters ? null : jamRows(loop, (p) => this.fresh(p))) ?? [loop];
  }

  /**
   * The outer loop as one loop per dimension, for a body that uses the per-dimension indices
   * (a generate over a 3-D grid, as in MG's stencils). A flat loop would recover them with a
   * division and a remainder per dimension and element, which cost more than the stencil's
   * arithmetic; here each level computes its part of the flat index once (`b = (b' + i) · n`),
   * and the element's flat index is one addition. The loops visit the points in the flat
   * loop's order (all of them backwards when it runs backwards), so nothing observable changes.
   */
  private nestedLoop(
    flat: string,
    axes: readonly string[],
    dims: readonly JsExpr[],
    down: boolean,
    body: readonly JsStmt[],
    /** The outermost axis' range in a work function (null: all of it). */
    range: { readonly from: JsExpr; readonly to: JsExpr } | null,
  ): JsStmt[] {
    const hoisted: JsStmt[] = [];
    const extents = dims.map((d) => {
      if (d.kind === 'id' || d.kind === 'num') return d;
      const e = this.fresh('e');
      hoisted.push(constDecl(e, d));
      return id(e);
    });
    const last = axes.length - 1;
    // Innermost first: the element's flat index, then the body (jammed where it has rows).
    const starts: (string | null)[] = axes.map((_, k) => (k === 0 ? null : this.fresh('b')));
    const startOf = (k: number): JsExpr => (k === 0 ? num(0) : id(starts[k]!));
    const element = constDecl(flat, add(startOf(last), id(axes[last]!)));
    let loop: JsStmt[] = this.jam({ kind: 'for', index: axes[last]!, from: num(0), to: extents[last]!, down, body: [element, ...body] });
    for (let k = last - 1; k >= 0; k--) {
      // The flat index of the first element of row (i0, …, ik): (start_k + ik) · n_{k+1}.
      const start = constDecl(starts[k + 1]!, mul(add(startOf(k), id(axes[k]!)), extents[k + 1]!));
      const bounds = k === 0 && range !== null ? range : { from: num(0), to: extents[k]! };
      loop = [{ kind: 'for', index: axes[k]!, ...bounds, down, body: [start, ...loop] }];
    }
    return [...hoisted, ...loop];
  }

  private evaluatedSomewhere(nodeId: NodeId, s: Scope): boolean {
    if (s.values.has(nodeId)) return true;
    for (const r of s.rows.values()) if (this.evaluatedSomewhere(nodeId, r)) return true;
    return false;
  }
}

/**
 * How a combinator's loop differs by kind, beyond what `compute` emits for it: the arrays it
 * updates in place (a scatter's destination: its output is that buffer, never stored, and it
 * is always a root of its cluster), whether it carries a value along its rows and which way
 * (a scan: the loop over its rows must run that way), and the array whose shape its loop runs
 * over (a scatter's values, anything else its output). A closed switch: a new combinator fails
 * to compile here until its loop is decided.
 */
export interface LoopTraits {
  readonly inPlace: readonly VarName[] | null;
  readonly rowScan: { readonly direction: 'forward' | 'backward'; readonly input: VarName } | null;
  readonly iterates: VarName;
}

export function loopTraits(n: CombinatorNode): LoopTraits {
  switch (n.kind) {
    case 'generate':
    case 'map':
    case 'gather':
    case 'fold':
    case 'force':
      return { inPlace: null, rowScan: null, iterates: n.outs[0]!.name };
    case 'scanl':
      return { inPlace: null, rowScan: { direction: 'forward', input: n.input[0]! }, iterates: n.outs[0]!.name };
    case 'scanr':
      return { inPlace: null, rowScan: { direction: 'backward', input: n.input[0]! }, iterates: n.outs[0]!.name };
    case 'scatter':
      return { inPlace: n.dest, rowScan: null, iterates: n.values[0]! };
    default:
      return n satisfies never;
  }
}

/** The arrays a node reads in an order (the ones that can be fused into it). */
function inputArrays(n: CombinatorNode): readonly VarName[] {
  switch (n.kind) {
    case 'generate':
      return [];
    case 'map':
      return n.inputs;
    case 'gather':
      return [...n.indices, ...n.source];
    case 'scatter':
      return [...n.index, ...n.values];
    case 'fold':
    case 'scanl':
    case 'scanr':
    case 'force':
      return n.input;
    default:
      return n satisfies never;
  }
}

/**
 * The counters variant's point count: `rt.point()` first in the body of every innermost scope
 * (one with no row loop inside), so a cluster's points are the iterations of its innermost
 * loops (docs/EXECUTION.md, "Roofline per cluster"); a rank-0 cluster with no loop has one.
 */
function countPoints(scope: Scope): void {
  const rows = scope.body.filter((item): item is { kind: 'row'; row: Scope } => item.kind === 'row');
  if (rows.length === 0) scope.body.unshift(exprStmt(callHelper('point', [])));
  for (const r of rows) countPoints(r.row);
}

/** Row scopes as loops; `chunked`, a row a work function runs over [from, to) only. */
function render(items: readonly BodyItem[], chunked: { readonly scope: Scope; readonly from: JsExpr; readonly to: JsExpr } | null = null): JsStmt[] {
  const out: JsStmt[] = [];
  for (const item of items) {
    if (item.kind !== 'row') {
      out.push(item);
      continue;
    }
    const r = item.row;
    const loop = r.loop!;
    out.push(...r.pre);
    const bounds = chunked !== null && chunked.scope === r ? { from: chunked.from, to: chunked.to } : { from: num(0), to: loop.extent };
    out.push({ kind: 'for', index: loop.index, ...bounds, down: r.own!.down === true, body: render(r.body, chunked) });
  }
  return out;
}

/**
 * The estimated cost of one iteration of a scope's body (NestFacts.work, which the runtime
 * multiplies by the chunked loop's extent and compares with its measured fork threshold): the
 * number of expression nodes of its statements, each row loop counting its body's cost times its
 * extent (main's locals). A rough count: only its order of magnitude matters.
 */
function costOf(items: readonly BodyItem[]): JsExpr {
  let flat = 0;
  let cost: JsExpr | null = null;
  for (const item of items) {
    if (item.kind === 'row') {
      const row = mul(item.row.loop!.extent, costOf(item.row.body));
      cost = cost === null ? row : bin('+', cost, row);
      continue;
    }
    forEachNode([item], { expr: () => void flat++ });
  }
  return cost === null ? num(Math.max(1, flat)) : bin('+', num(flat), cost);
}

function nameOf(e: JsExpr): string {
  if (e.kind !== 'id') throw bug('an accumulator that is not a local');
  return e.name;
}

/** The statements of one cluster's loop nest, each repeated pure value computed once. */
export function generateCluster(spec: ClusterSpec): JsStmt[] {
  return optimiseLoops(counted(spec, shareValues(new ClusterGen(spec).generate())), loopContext(spec));
}

/** The counters variant's operation counts merged, one call per block (`mergeOpCounts`); other variants as they are. */
function counted(spec: ClusterSpec, stmts: JsStmt[]): JsStmt[] {
  return spec.env.counters ? mergeOpCounts(stmts) : stmts;
}

function loopContext(spec: ClusterSpec): LoopContext {
  return { fastMath: spec.fastMath === true, counters: spec.env.counters, fresh: (prefix) => spec.env.fresh(prefix) };
}

/** The same, with what the parallel variant needs to know of the nest. */
export function generateClusterNest(spec: ClusterSpec): { readonly stmts: JsStmt[]; readonly facts: NestFacts } {
  const gen = new ClusterGen(spec);
  const stmts = optimiseLoops(counted(spec, shareValues(gen.generate())), loopContext(spec));
  return { stmts, facts: gen.facts! };
}
