// A whole program and its plan → one JavaScript module: a function per cluster and `main`.
//
// `main` does what lies between clusters: binds the inputs, evaluates scalar statements as
// soon as what they read exists, propagates shapes and checks them (with the interpreter's
// errors), gives the manifest arrays of a cluster their memory as the memory plan says (never
// a fused-away one), calls the cluster's function, runs `if`/`while` with the plans of their
// blocks, and hands the results over as the plan's deliveries say. Each cluster is a function of
// the locals it uses, so its loop nest reads like the paper's listings.
//
// The parallel variant (GenerateOptions.parallel, `parallelCluster`) runs each cluster it can
// through `rt.par` over chunks of its loop: work functions, listed in the module's `fns`, and what
// lies around the chunks (partials combined in chunk order, a scan's carries) in main. Every
// other cluster, and the whole sequential module, is emitted as described here.
//
// Memory (src/memory/types.ts): a manifest array's BufferRef picks the helper that gives it
// its elements — `slot` → `rt.take` (a pooled buffer kept across runs), `pair` → `rt.pair` (a
// `while` body's result, on the slot of the loop's iteration parity), `result` → `rt.result`
// (the caller's `out`, or a fresh array), `alias` → the memory of another array (no helper),
// `fresh` → `rt.alloc`. At the return a result component is returned as is (`direct`), copied
// (`copy` → `rt.emit`), or handed over (`donated`, and a `copy` of an array that is fresh this
// run → `rt.give`: it is copied only into a caller's `out`).

import { CompilerBug } from '../diagnostics/index.js';
import { combinatorInputs, outputShapeOf, type OutputShape } from '../ir/rules.js';
import { exprMayFault, exprUses } from '../ir/walk.js';
import type {
  Block, CombinatorNode, ControlNode, Expr, Lambda, NodeId, Program, ScalarType, ScatterNode, Stmt, Value, VarName,
} from '../ir/types.js';
import type { BlockPlan, Plan } from '../plan/types.js';
import type { BufferRef, MemoryPlan, ResultDelivery } from '../memory/types.js';
import {
  generateCluster, generateClusterNest, loopTraits, type Carried, type ChunkSpec, type ClusterSpec, type NestFacts,
} from './cluster.js';
import {
  add, arr, assign, bin, call, comment, constDecl, exprStmt, forEachNode, id, index, letDecl, mathCall, member, mul, num, un,
  type JsExpr, type JsStmt,
} from './jsast.js';
import { atomicOps, associativeOp } from './parallel.js';
import { printProgramText } from './printer.js';
import { applyLambda, bindAtom, compileExpr, type ArrayRef, type ExprEnv } from './scalar.js';
import { callHelper, helperValue, rt, runtimeParam, workerHelpers } from './runtimeHelpers.js';
import { type CounterSlot, type ErrorSite, SideTables } from './sites.js';
import type { KernelSource } from './wasm/translate.js';
import { deviceMain } from './device.js';

/** Where a manifest array gets memory: the runtime counts times, elements and bytes per site. */
export interface AllocationSite {
  readonly array: VarName;
  readonly elem: ScalarType;
}

/** A flat result component an `out` array may receive (its element type and its name for messages). */
export interface ResultSite {
  /** The result's name, with the component for an array of tuples: `ys`, `pairs.1`. */
  readonly name: string;
  readonly elem: ScalarType;
  /** Scalar components take no `out`. */
  readonly array: boolean;
}

export interface ClusterInfo {
  readonly nodes: readonly NodeId[];
  readonly manifest: readonly VarName[];
}

export interface GeneratedProgram {
  /** Function declarations; `main(rt, inputs)` runs the program. */
  readonly text: string;
  readonly sites: readonly ErrorSite[];
  readonly slots: readonly CounterSlot[];
  readonly allocations: readonly AllocationSite[];
  /** By the cluster numbers the code passes to `rt.enter` / `rt.leave`. */
  readonly clusters: readonly ClusterInfo[];
  /** Per flat result component (the `k` of `rt.result` / `rt.emit` / `rt.give`). */
  readonly results: readonly ResultSite[];
  /** How many row buffers `rt.scratch` is asked for (numbered from 0). */
  readonly scratchRows: number;
  /**
   * Parallel variant only (empty otherwise): how each cluster runs, by cluster number, and the
   * module's work functions (`fns`, by the index main passes to `rt.par`).
   */
  readonly schedules: readonly ClusterSchedule[];
  readonly workFunctions: readonly WorkFunctionInfo[];
  /**
   * Each cluster function `cN` with the types of its parameters, by cluster number (empty for the
   * counters variant): every cluster of the sequential module, the serial ones of the parallel
   * variant. For the WebAssembly translator (codegen/wasm; docs/EXECUTION.md "WebAssembly") and
   * the WGSL one (codegen/wgsl).
   */
  readonly kernels: readonly KernelSource[];
  /** The parallel variant: each work function with its parameters' types, by its index in `fns`. */
  readonly workKernels: readonly KernelSource[];
}

/**
 * How one cluster of the parallel variant runs. `serial`: as in the sequential module, on the
 * calling thread, with the reason (a loop that carries a value no chunking handles, a helper
 * workers lack, an update order only one thread keeps). Otherwise its chunked loop is shared by
 * the threads: `independent` iterations (maps, generates, gathers, per-row folds, updates that
 * cannot collide), `reduce` (a whole-array fold: per-chunk partials combined in chunk order),
 * `scan` (reduce-then-scan in three phases), `atomic` (a scatter whose integer combine is an
 * Atomics operation), `owner` (a scatter split by destination range, each thread applying the
 * updates to its range in source order).
 */
export type ClusterSchedule =
  | { readonly kind: 'serial'; readonly reason: string }
  | { readonly kind: 'independent' | 'reduce' | 'scan' | 'atomic' | 'owner' };

export interface WorkFunctionInfo {
  /** The cluster it belongs to. */
  readonly cluster: number;
  /** Its name in the module (`c3`, `c3_reduce`, …). */
  readonly name: string;
  /**
   * An owner split's scatter: every call walks the whole source for its range of destination
   * elements, so a fork gives it exactly one range per thread (more chunks repeat the walk).
   */
  readonly wholeSource: boolean;
  /**
   * A function over fixed chunks that carries folds or scans: the element type of each of the
   * `width` partials of one chunk's row in `partials` (`partials[chunk * width + j]`); null when
   * it takes no partials.
   */
  readonly partials: readonly ScalarType[] | null;
}

export interface GenerateOptions {
  /** The variant that counts every element read (per array and order) and written. */
  readonly counters: boolean;
  /** Where every manifest array lives and how each result reaches the caller. */
  readonly memory: MemoryPlan;
  /**
   * The parallel variant (the multicore back end): clusters run through `rt.par` over chunks of
   * their loop, and the module also defines `fns`, its work functions, which every worker of the
   * pool compiles (`text` + `return { main, fns };`). False or absent: the sequential module,
   * byte for byte as before.
   */
  readonly parallel?: boolean;
  /**
   * The device variant (the WebGPU back end): the parallel variant with an asynchronous main
   * whose cluster calls go to the runtime and whose own array accesses sync with the device
   * (codegen/device.ts). Implies `parallel`.
   */
  readonly device?: boolean;
  /** Floating-point folds may be regrouped (src/codegen/loops; docs/LANGUAGE.md, "Floating-point reassociation"). Default false: exact. */
  readonly fastMath?: boolean;
}

type Binding =
  | { readonly kind: 'array'; readonly ref: ArrayRef; readonly materialized: boolean }
  | { readonly kind: 'scalar'; readonly value: JsExpr; readonly elem: ScalarType };

interface Env {
  readonly vars: Map<VarName, Binding>;
  readonly parent: Env | null;
  /**
   * The block whose statements bind these names. A shape query (`dim`) adds no graph edge,
   * so a cluster may ask for the extents of an array that a later cluster produces: its shape
   * is then computed on demand, here, from the shapes of its inputs. The graph orders such a
   * cluster after the data those shapes read (graph/orderings.ts); a scalar binding has no
   * cluster, so it waits until the shapes it asks for are computable (`shapeable`).
   */
  readonly block: BlockState | null;
}

interface BlockState {
  readonly producers: ReadonlyMap<VarName, CombinatorNode>;
  readonly out: JsStmt[];
  readonly shaped: Set<NodeId>;
}

function bug(message: string): CompilerBug {
  return new CompilerBug('codegen', message);
}

/** The data of a fused-away array: printing it is a CompilerBug, so a stray use cannot hide. */
const fusedAway: JsExpr = { kind: 'id', name: '<fused-away>' };

/** The parameters every work function starts with, after `rt` (names no generated local has: those end in digits). */
const workParams = { lo: 'lo', hi: 'hi', chunk: 'chunk', partials: 'partials' } as const;

/** `rt.par`'s `fixed` argument: `!0` (the chunks are chunkLength's, partials depend on them) or `!1` (any split). */
const FIXED = un('!', num(0));
const FREE = un('!', num(1));

/** A cluster's schedule as `classify` decides it, with how its scatters update (and an owner split's destination extent and cost). */
type Classified =
  | { readonly kind: 'serial'; readonly reason: string }
  | { readonly kind: 'independent' | 'reduce' | 'scan' | 'atomic'; readonly scatter: ChunkSpec['scatter'] }
  /** `split`: the scatter shares its loop with other roots, which a first call computes. */
  | { readonly kind: 'owner'; readonly scatter: 'owner'; readonly extent: JsExpr; readonly work: JsExpr; readonly split: boolean };

/** A work function as built: its index in `fns`, main's arguments for it, its cost per iteration, and a helper it calls that workers lack. */
interface WorkBuilt {
  readonly index: number;
  /** Its name in the module. */
  readonly name: string;
  readonly args: readonly JsExpr[];
  readonly work: JsExpr;
  readonly stray: string | null;
  /** Whether it calls the runtime at all (every helper a work function may call raises a fault). */
  readonly faults: boolean;
  readonly facts: NestFacts;
}

/** The first helper the statements use that a worker's `rt` lacks (runtimeHelpers.ts `workerHelpers`), or null. */
function strayHelper(stmts: readonly JsStmt[]): string | null {
  const allowed = new Set<string>(workerHelpers);
  let stray: string | null = null;
  forEachNode(stmts, {
    expr(e) {
      if (stray === null && e.kind === 'member' && e.object.kind === 'id' && e.object.name === runtimeParam && !allowed.has(e.prop)) stray = e.prop;
    },
  });
  return stray;
}

/** Whether statements refer to the runtime: every helper a work function may call raises a fault but `scratch`, which phase 1 never asks for. */
function refersToRuntime(stmts: readonly JsStmt[]): boolean {
  let found = false;
  forEachNode(stmts, { expr: (x) => void (x.kind === 'id' && x.name === runtimeParam && (found = true)) });
  return found;
}

/** Whether a lambda may raise a fault: integer `//`, `%` or `**` (E401), or an array index (E402). */
function lambdaMayFault(l: Lambda): boolean {
  return l.lets.some((b) => exprMayFault(b.expr)) || l.results.some(exprMayFault);
}

/**
 * Whether a carried scan reads, through the cluster's nodes, another carried scan's output. Phase
 * 1 of reduce-then-scan runs each chunk without its carries, so such an input would be computed
 * from the other scan's values *within the chunk alone*: the aggregate, and so every later
 * chunk's carry, would be wrong (`scanr(+, 2, scanr(+, 2, is))`).
 */
function scanFeedsScan(nodes: readonly CombinatorNode[], scans: readonly Carried[]): boolean {
  const producer = new Map<VarName, CombinatorNode>();
  for (const n of nodes) for (const o of n.outs) producer.set(o.name, n);
  const carried = new Set<NodeId>(scans.map((s) => s.node.id));
  for (const s of scans) {
    const seen = new Set<NodeId>();
    const pending = combinatorInputs(s.node).map((r) => r.name);
    for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
      const p = producer.get(name);
      if (p === undefined || seen.has(p.id)) continue;
      seen.add(p.id);
      if (carried.has(p.id)) return true;
      pending.push(...combinatorInputs(p).map((r) => r.name));
    }
  }
  return false;
}

/** Whether a seed may fault or sets a temporary: main may not evaluate it out of the loop's order then. */
function mayCallOut(e: JsExpr): boolean {
  let temp = false;
  forEachNode([exprStmt(e)], { expr: (x) => void (x.kind === 'set' && (temp = true)) });
  return temp || refersToRuntime([exprStmt(e)]);
}

class ProgramGen {
  private counter = 0;
  readonly tables = new SideTables();
  readonly functions: JsStmt[] = [];
  readonly allocations: AllocationSite[] = [];
  readonly clusters: ClusterInfo[] = [];
  readonly kernels: KernelSource[] = [];

  /**
   * The iteration counters of the `while` bodies being generated, innermost last (null for a
   * condition block, which runs before its iteration is counted): a `pair` takes its parity.
   */
  private readonly loops: (string | null)[] = [];
  /** Arrays of the entry block that `rt.alloc` made this run: a result that is one is the caller's to keep. */
  private readonly freshAtTop = new Set<VarName>();
  private depth = 0;

  constructor(
    private readonly counters: boolean,
    private readonly memory: MemoryPlan,
    private readonly parallel: boolean,
    private readonly fastMath: boolean,
    /** The device variant (GenerateOptions.device): a cluster's partials combined on the device. */
    private readonly device = false,
  ) {}

  fresh(prefix: string): string {
    return `${prefix}${this.counter++}`;
  }

  private lookup(env: Env, name: VarName): Binding {
    for (let e: Env | null = env; e !== null; e = e.parent) {
      const b = e.vars.get(name);
      if (b !== undefined) return b;
      const producer = e.block?.producers.get(name);
      if (producer !== undefined && !e.block!.shaped.has(producer.id)) {
        this.shape(producer, e);
        return this.lookup(env, name);
      }
    }
    throw bug(`${JSON.stringify(name)} is not bound`);
  }

  /** Whether a name is bound now: a scalar, or an array in memory if `needData`. */
  private has(env: Env, name: VarName, needData: boolean): boolean {
    for (let e: Env | null = env; e !== null; e = e.parent) {
      const b = e.vars.get(name);
      if (b !== undefined) return !needData || b.kind !== 'array' || b.materialized;
    }
    return false;
  }

  /**
   * Whether an array's extents can be computed now: it is bound, or its producer's extents
   * follow from what exists. A shape may be known only at run time, from data (a `filter`
   * sizes its result by a count read from an array) or from a control node's result, so a
   * producer is shapeable only once the arrays its shape reads are in memory, the scalars it
   * uses are bound and the arrays it takes its extents from are shapeable in turn.
   */
  private shapeable(env: Env, name: VarName): boolean {
    for (let e: Env | null = env; e !== null; e = e.parent) {
      if (e.vars.has(name)) return true;
      const producer = e.block?.producers.get(name);
      if (producer !== undefined) return this.shapeInputsReady(producer, e);
    }
    return false;
  }

  private shapeInputsReady(n: CombinatorNode, env: Env): boolean {
    const rule = outputShapeOf(n);
    if (rule.kind === 'sizes') return rule.sizes.every((e) => this.ready(e, env));
    return this.shapeable(env, shapeSource(n, rule));
  }

  private arrayRef(env: Env, name: VarName): ArrayRef {
    const b = this.lookup(env, name);
    if (b.kind !== 'array') throw bug(`${JSON.stringify(name)} is a scalar where an array was expected`);
    return b.ref;
  }

  exprEnv(env: Env, context: string, span: ExprEnv['span']): ExprEnv {
    return {
      tables: this.tables,
      counters: this.counters,
      context,
      span,
      fresh: (p) => this.fresh(p),
      array: (n) => this.arrayRef(env, n),
      scalar: (n) => {
        const b = this.lookup(env, n);
        if (b.kind !== 'scalar') throw bug(`${JSON.stringify(n)} is an array where a scalar was expected`);
        return b.value;
      },
    };
  }

  /** Binds a value held in fresh locals (`data`, extents) or a scalar local. */
  private bindLocals(env: Env, v: Value, out: JsStmt[], data: JsExpr, dims: readonly JsExpr[], mutable: boolean): Binding {
    const decl = mutable ? letDecl : constDecl;
    if (v.kind === 'scalar') {
      const s = this.fresh('s');
      out.push(decl(s, data));
      const b: Binding = { kind: 'scalar', value: id(s), elem: v.elem };
      env.vars.set(v.name, b);
      return b;
    }
    const a = this.fresh('a');
    out.push(decl(a, data));
    const dimIds = dims.map((d) => {
      const n = this.fresh('n');
      out.push(decl(n, d));
      return id(n);
    });
    const b: Binding = { kind: 'array', ref: { name: v.name, elem: v.elem, data: id(a), dims: dimIds }, materialized: true };
    env.vars.set(v.name, b);
    return b;
  }

  main(program: Program, plan: Plan): JsStmt {
    const env: Env = { vars: new Map(), parent: null, block: null };
    const out: JsStmt[] = [];
    let flat = 0;
    for (const iface of program.params) {
      for (const c of iface.components) {
        const input = index(id('inputs'), num(flat++));
        if (c.kind === 'scalar') this.bindLocals(env, c, out, member(input, 'value'), [], false);
        else {
          const shape = member(input, 'shape');
          const dims = Array.from({ length: c.rank }, (_, k) => index(shape, num(k)));
          this.bindLocals(env, c, out, member(input, 'data'), dims, false);
        }
      }
    }
    if (program.body.params.length !== flat) throw bug('the entry block does not take the entry parameters');
    program.body.params.forEach((p, k) => {
      const c = program.params.flatMap((i) => i.components)[k]!;
      if (p.name !== c.name) env.vars.set(p.name, this.lookup(env, c.name));
    });
    const results = this.block(program.body, plan.root, env, out);
    const flatResults = program.results.flatMap((r) => r.components);
    if (this.memory.results.length !== flatResults.length) throw bug(`the memory plan delivers ${this.memory.results.length} results, the program has ${flatResults.length}`);
    const returned = new Map<VarName, number>();
    for (const b of results) if (b.kind === 'array') returned.set(b.ref.name, (returned.get(b.ref.name) ?? 0) + 1);
    out.push({ kind: 'return', value: arr(results.map((b, k) => this.resultValue(b, k, this.memory.results[k]!, returned.get(b.kind === 'array' ? b.ref.name : '') === 1))) });
    return { kind: 'function', name: 'main', params: [runtimeParam, 'inputs'], body: withTemps(out) };
  }

  /**
   * Result component `k` as `main` returns it: a scalar, or `[data, dims]` with `data` delivered
   * as the plan says. Delivery copies are not counted traffic (counters variant included): the
   * plan's traffic estimate is the program's, and handing results to the caller is not part of
   * it (docs/DESIGN.md invariant 4).
   */
  private resultValue(b: Binding, k: number, delivery: ResultDelivery, once: boolean): JsExpr {
    if (b.kind === 'scalar') {
      if (delivery !== 'scalar') throw bug(`result component ${k} is a scalar, delivered as '${delivery}'`);
      return b.value;
    }
    if (!b.materialized) throw bug(`result ${JSON.stringify(b.ref.name)} was fused away`);
    const site = (): number => {
      this.allocations.push({ array: b.ref.name, elem: b.ref.elem });
      return this.allocations.length - 1;
    };
    let data: JsExpr;
    switch (delivery) {
      case 'direct':
        data = b.ref.data;
        break;
      case 'copy':
        // An array `rt.alloc` made this run and returned once is the caller's already: copying
        // it would only double the result's allocation (it still goes into an `out` if given).
        data = once && this.freshAtTop.has(b.ref.name) ? callHelper('give', [num(k), b.ref.data]) : callHelper('emit', [num(site()), num(k), b.ref.data]);
        break;
      case 'donated':
        data = callHelper('give', [num(k), b.ref.data]);
        break;
      case 'scalar':
        throw bug(`result component ${k} is an array, delivered as a scalar`);
      default:
        throw bug(`unknown delivery ${String(delivery satisfies never)}`);
    }
    return arr([data, arr(b.ref.dims)]);
  }

  /** Emits a block into `out` (its params already bound in `env`); returns its results. */
  block(b: Block, plan: BlockPlan, outer: Env, out: JsStmt[]): Binding[] {
    this.depth++;
    try {
      return this.blockBody(b, plan, outer, out);
    } finally {
      this.depth--;
    }
  }

  private blockBody(b: Block, plan: BlockPlan, outer: Env, out: JsStmt[]): Binding[] {
    const producers = new Map<VarName, CombinatorNode>();
    for (const s of b.stmts) {
      if (s.kind === 'scalar' || s.kind === 'if' || s.kind === 'while') continue;
      for (const o of s.outs) producers.set(o.name, s);
    }
    const env: Env = { vars: outer.vars, parent: outer.parent, block: { producers, out, shaped: new Set() } };
    const byId = new Map<NodeId, Exclude<Stmt, { kind: 'scalar' }>>();
    for (const s of b.stmts) if (s.kind !== 'scalar') byId.set(s.id, s);
    const pending = b.stmts.filter((s) => s.kind === 'scalar');
    const emitReady = (all: boolean): void => {
      for (let k = 0; k < pending.length; ) {
        const s = pending[k]!;
        if (!all && !this.ready(s.expr, env)) {
          k++;
          continue;
        }
        if (all && !this.ready(s.expr, env)) {
          // A scalar nothing uses may index an array the plan fused away (no graph edge keeps
          // it in memory), ask the extents of an array computed from one, or use such a
          // scalar. Its value cannot matter: it is not computed.
          pending.splice(k, 1);
          continue;
        }
        // Evaluated in block order as soon as what it reads exists, as the interpreter would.
        const value = compileExpr(s.expr, this.exprEnv(env, 'scalar binding', s.span));
        const local = this.fresh('s');
        out.push(constDecl(local, value));
        env.vars.set(s.name, { kind: 'scalar', value: id(local), elem: s.expr.type });
        pending.splice(k, 1);
        k = 0;
      }
    };
    for (const cluster of plan.clusters) {
      emitReady(false);
      const nodes = cluster.nodes.map((nid) => {
        const n = byId.get(nid);
        if (n === undefined) throw bug(`the plan names node ${nid}, which is not in its block`);
        return n;
      });
      const control = nodes.find((n) => n.kind === 'if' || n.kind === 'while');
      if (control !== undefined) {
        if (nodes.length !== 1) throw bug('a control-flow node shares its cluster');
        const children = plan.children[control.id];
        if (children === undefined || children.length !== 2) throw bug(`no plans for the blocks of node ${control.id}`);
        this.control(control as ControlNode, children, env, out);
      } else {
        this.cluster(nodes as CombinatorNode[], new Set(cluster.manifest), plan, env, out);
      }
    }
    emitReady(true);
    return b.results.map((name) => this.lookup(env, name));
  }

  private ready(e: Expr, env: Env): boolean {
    const uses = exprUses(e);
    return (
      [...uses.scalars].every((n) => this.has(env, n, false)) &&
      [...uses.indexed].every((n) => this.has(env, n, true)) &&
      [...uses.dims].every((n) => this.shapeable(env, n))
    );
  }

  // ---- one cluster ---------------------------------------------------------------------------

  private cluster(all: readonly CombinatorNode[], written: ReadonlySet<VarName>, plan: BlockPlan, env: Env, out: JsStmt[]): void {
    // Elided copies (BlockPlan.elided) run no loop: their outputs are their sources' memory,
    // which the scatter after them then updates in place (docs/PLANNING.md "In-place updates").
    const elided = new Set(plan.elided ?? []);
    const nodes = all.filter((n) => !elided.has(n.id));
    const manifest = new Set([...written].filter((name) => !all.some((n) => elided.has(n.id) && n.outs.some((o) => o.name === name))));
    const number = this.clusters.length;
    this.clusters.push({ nodes: nodes.map((n) => n.id), manifest: [...manifest] });
    out.push(comment(`cluster ${number}: shapes, checks, manifest arrays`));
    for (const n of nodes) this.allocate(n, manifest, env, out);
    for (const n of all) if (elided.has(n.id)) this.bindElided(n, env);
    const spec: ClusterSpec = { nodes, orders: plan.orders, manifest, env: this.exprEnv(env, 'cluster', undefined), fastMath: this.fastMath };
    if (this.parallel) {
      this.parallelCluster(number, spec, env, out);
      return;
    }
    this.serialCluster(number, withTemps(generateCluster(spec)), env, out);
  }

  /** The cluster's function and its call in main, as the sequential module has them. */
  private serialCluster(number: number, stmts: JsStmt[], env: Env, out: JsStmt[]): void {
    const params = freeIds(stmts);
    const name = `c${number}`;
    if (!this.counters) this.kernels[number] = kernelSource(name, stmts, env);
    this.functions.push({ kind: 'function', name, params: [runtimeParam, ...params], body: stmts });
    out.push(exprStmt(callHelper('enter', [num(number)])));
    out.push(exprStmt(call(id(name), [rt, ...params.map(id)])));
    out.push(exprStmt(callHelper('leave', [num(number)])));
  }

  // ---- the parallel variant ------------------------------------------------------------------

  readonly schedules: ClusterSchedule[] = [];
  readonly workFunctions: WorkFunctionInfo[] = [];
  /** Each work function with its parameters' types, by its index in `fns`. */
  readonly workKernels: KernelSource[] = [];

  /**
   * A cluster of the parallel variant: classified (`classify`), then either emitted as in the
   * sequential module (`serial`) or as work functions over chunks of its loop that main runs
   * through `rt.par`, with what lies around the chunks (partials, carries) in main.
   */
  private parallelCluster(number: number, spec: ClusterSpec, env: Env, out: JsStmt[]): void {
    const nest = generateClusterNest(spec);
    const plan = this.classify(spec, nest.facts, env);
    if (plan.kind === 'serial') {
      this.schedules[number] = plan;
      this.serialCluster(number, withTemps(nest.stmts), env, out);
      return;
    }
    if (plan.kind === 'owner' && plan.split) {
      this.splitOwner(number, spec, plan, nest.stmts, env, out);
      return;
    }
    const facts = nest.facts;
    const loop = facts.loop!;
    const carried = [...facts.scans, ...facts.folds];
    const offsets = new Map<NodeId, number>();
    let width = 0;
    for (const c of carried) {
      offsets.set(c.node.id, width);
      width += c.accs.length;
    }
    const chunkSpec = (phase: ChunkSpec['phase']): ChunkSpec => ({ phase, ...workParams, width, offsets, scatter: plan.scatter });
    // The element type of each partial of a chunk's row (a fold's or scan's components, in offset order).
    const row = carried.flatMap((c) => c.node.outs.map((o) => o.elem));
    const body = this.workFunction(number, `c${number}`, { ...spec, chunk: chunkSpec('body') }, width > 0 ? row : null, env);
    const reduce = facts.scans.length > 0 ? this.workFunction(number, `c${number}_reduce`, { ...spec, chunk: chunkSpec('reduce') }, row, env) : null;
    const calls = [body, ...(reduce === null ? [] : [reduce])].find((f) => f.stray !== null);
    // Phase 1 of a scan computes only the scan's inputs, all of it before phase 3: a fault there
    // could come before a fault of another root at an earlier element, which the sequential loop
    // raises first.
    // A scanr's loop runs right to left, so the sequential loop meets the fault of the highest
    // chunk first, while a fault is reported from the lowest faulting chunk.
    const down = facts.scans.some((s) => s.node.kind === 'scanr');
    const serial =
      calls !== undefined
        ? `its loop calls rt.${calls.stray}, which workers lack`
        : reduce?.faults === true
          ? 'the inputs of its scan may fault'
          : down && body.faults
            ? 'its loop runs right to left (a scanr) and may fault'
            : null;
    if (serial !== null) {
      // Built for nothing: the cluster runs as in the sequential module.
      this.functions.length -= reduce === null ? 1 : 2;
      this.workFunctions.length -= reduce === null ? 1 : 2;
      this.workKernels.length -= reduce === null ? 1 : 2;
      this.schedules[number] = { kind: 'serial', reason: serial };
      this.serialCluster(number, withTemps(nest.stmts), env, out);
      return;
    }
    this.schedules[number] = { kind: plan.kind };
    out.push(exprStmt(callHelper('enter', [num(number)])));
    if (width === 0) {
      const extent = plan.kind === 'owner' ? plan.extent : loop.extent;
      out.push(this.parCall(number, body, extent, plan.kind === 'owner' ? plan.work : facts.work, null, body.args));
      out.push(exprStmt(callHelper('leave', [num(number)])));
      return;
    }
    // Whole-array folds and scans: fixed chunks, partials combined in chunk order — here, or in
    // the device variant by one-invocation work functions on the device (`glue`), so that a fold
    // or scan reads nothing back to the host.
    if (facts.baseRank === 0) out.push(constDecl(loop.outerIndex, num(0)));
    const count = this.fresh('k');
    const partials = this.fresh('p');
    if (!this.device) for (const f of facts.folds) f.accs.forEach((a, k) => out.push(letDecl(a, f.seeds![k]!)));
    out.push(constDecl(count, mathCall('ceil', [bin('/', loop.extent, helperValue('chunkLength'))])));
    out.push(constDecl(partials, callHelper('partials', [num(number), mul(id(count), num(width))])));
    const here = this.device ? workParams.partials : partials;
    const slot = (k: JsExpr, offset: number): JsExpr => index(id(here), add(mul(k, num(width)), num(offset)));
    const glue = (name: string, stmts: JsStmt[]): JsStmt => {
      const g = this.glueFunction(number, name, stmts, row, env, [count]);
      return this.parCall(number, g, num(1), num(1), null, [id(partials), ...g.args]);
    };
    if (reduce !== null) {
      out.push(this.parCall(number, reduce, loop.extent, reduce.work, id(count), [id(partials), ...reduce.args]));
      const carries = facts.scans.flatMap((s) => this.carries(s, offsets.get(s.node.id)!, id(count), slot, env));
      out.push(...(this.device ? [glue(`c${number}_carry`, carries)] : carries));
    }
    out.push(this.parCall(number, body, loop.extent, facts.work, id(count), [id(partials), ...body.args]));
    const combine = facts.folds.map((f): JsStmt => {
      // total = op(…op(op(seed, p0), p1)…): each partial started from its chunk's first element.
      const k = this.fresh('k');
      const step: JsStmt[] = [];
      const ps = f.accs.map((_, c) => bindAtom(slot(id(k), offsets.get(f.node.id)! + c), 'x', this.exprEnv(env, 'fold', f.node.span), step));
      const results = applyLambda(f.node.op, [...f.accs.map(id), ...ps], this.exprEnv(env, 'fold', f.node.span), step, 'r');
      f.accs.forEach((a, c) => step.push(assign(id(a), results[c]!)));
      return { kind: 'for', index: k, from: num(0), to: id(count), down: false, body: step };
    });
    if (this.device && facts.folds.length > 0) {
      // One glue function per fold, with the stores of its results: a kernel binds few arrays.
      const outer = facts.baseRank === 0 ? [constDecl(loop.outerIndex, num(0))] : [];
      const owner = loop.post.map((stmt) => facts.folds.findIndex((f) => f.accs.some((a) => mentions(stmt, a))));
      facts.folds.forEach((f, i) => {
        const post = loop.post.filter((_, j) => owner[j] === i || (owner[j] === -1 && i === facts.folds.length - 1));
        const decls = f.accs.map((a, k) => letDecl(a, f.seeds![k]!));
        out.push(glue(`c${number}_fold${i}`, [...outer, ...decls, combine[i]!, ...post]));
      });
    } else out.push(...combine, ...loop.post);
    out.push(exprStmt(callHelper('leave', [num(number)])));
  }

  /**
   * The device variant: statements main would run over a cluster's partials (a scan's carries; a
   * fold's combination and the stores after it) as a work function that main dispatches once
   * (extent 1), `name(rt, lo, hi, chunk, partials, …args)`. `ints`: main's locals among its
   * parameters that are non-negative integers (the chunk count).
   */
  private glueFunction(cluster: number, name: string, stmts: JsStmt[], row: readonly ScalarType[], env: Env, ints: readonly string[]): Pick<WorkBuilt, 'index' | 'name' | 'args'> {
    const body = withTemps(stmts);
    const fixed = new Set<string>([workParams.lo, workParams.hi, workParams.chunk, workParams.partials]);
    const params = freeIds(body).filter((p) => !fixed.has(p));
    const head = [runtimeParam, workParams.lo, workParams.hi, workParams.chunk, workParams.partials];
    this.functions.push({ kind: 'function', name, params: [...head, ...params], body });
    this.workFunctions.push({ cluster, name, wholeSource: false, partials: row });
    const typed = kernelSource(name, body, env);
    this.workKernels.push({ ...typed, params: [...head.slice(1), ...params], extents: [...typed.extents, ...ints.filter((p) => params.includes(p))] });
    return { index: this.workFunctions.length - 1, name, args: params.map(id) };
  }

  /**
   * `if (!rt.par(…)) …`: the runtime forks the call, or leaves it to this thread, which then
   * calls the work function here, directly — chunk after chunk for a fixed call (`count` chunks
   * of `rt.chunkLength`), once over [0, extent) for a free one. A direct call lets V8 inline the
   * loop into main as the sequential module's cluster calls are; run through the runtime's one
   * generic call, the same loop was up to 1.6× slower (gather at n = 10^4: 89 against 57 µs).
   */
  private parCall(number: number, fn: Pick<WorkBuilt, 'index' | 'name'>, extent: JsExpr, work: JsExpr, count: JsExpr | null, args: readonly JsExpr[]): JsStmt {
    const forked = callHelper('par', [num(number), num(fn.index), extent, work, count === null ? FREE : FIXED, arr(args)]);
    let here: JsStmt;
    if (count === null) here = exprStmt(call(id(fn.name), [rt, num(0), extent, num(0), ...args]));
    else {
      const k = this.fresh('k');
      const lo = mul(id(k), helperValue('chunkLength'));
      const hi = mathCall('min', [extent, add(lo, helperValue('chunkLength'))]);
      here = { kind: 'for', index: k, from: num(0), to: count, down: false, body: [exprStmt(call(id(fn.name), [rt, lo, hi, id(k), ...args]))] };
    }
    return { kind: 'if', test: un('!', forked), then: [here], else: [] };
  }

  /**
   * An owner split of a scatter that shares its loop with other roots: first the other roots,
   * over the source in any chunks (`cN_others`), then the scatter alone, each call walking the
   * whole source for its destination range (`cN`). Exact only if the first call cannot fault: a
   * fault of the scatter's (its index check) at an earlier element must still come first.
   */
  private splitOwner(number: number, spec: ClusterSpec, plan: Extract<Classified, { kind: 'owner' }>, sequential: JsStmt[], env: Env, out: JsStmt[]): void {
    const chunk = (only: 'scatters' | 'others', scatter: ChunkSpec['scatter']): ChunkSpec => ({ phase: 'body', ...workParams, width: 0, offsets: new Map(), scatter, only });
    const others = this.workFunction(number, `c${number}_others`, { ...spec, chunk: chunk('others', 'plain') }, null, env);
    const scatter = this.workFunction(number, `c${number}`, { ...spec, chunk: chunk('scatters', 'owner') }, null, env);
    const facts = others.facts;
    const stray = others.stray ?? scatter.stray;
    const serial =
      stray !== null
        ? `its loop calls rt.${stray}, which workers lack`
        : others.faults
          ? 'a scatter whose updates may collide, with other roots that may fault'
          : facts.loop === null || facts.unsupported !== null || facts.scans.length + facts.folds.length > 0
            ? 'a scatter whose updates may collide, with other roots that carry a value'
            : null;
    if (serial !== null) {
      this.functions.length -= 2;
      this.workFunctions.length -= 2;
      this.workKernels.length -= 2;
      this.schedules[number] = { kind: 'serial', reason: serial };
      this.serialCluster(number, withTemps(sequential), env, out);
      return;
    }
    this.schedules[number] = { kind: 'owner' };
    out.push(exprStmt(callHelper('enter', [num(number)])));
    out.push(this.parCall(number, others, facts.loop!.extent, facts.work, null, others.args));
    out.push(this.parCall(number, scatter, plan.extent, plan.work, null, scatter.args));
    out.push(exprStmt(callHelper('leave', [num(number)])));
  }

  /**
   * Phase 2 of reduce-then-scan for one scan: the chunks' aggregates, in scan order (from the
   * last chunk for a scanr), replaced by the carry into each chunk — the seed (an exclusive
   * scan) combined with the aggregates of the chunks before it.
   */
  private carries(s: Carried, offset: number, count: JsExpr, slot: (k: JsExpr, offset: number) => JsExpr, env: Env): JsStmt[] {
    const out: JsStmt[] = [];
    const down = s.node.kind === 'scanr';
    const cars = s.accs.map((_, c) => {
      const car = this.fresh('c');
      out.push(letDecl(car, s.seeds === null ? num(0) : s.seeds[c]!));
      return id(car);
    });
    const k = this.fresh('k');
    const step: JsStmt[] = [];
    const eenv = this.exprEnv(env, s.node.kind, s.node.span);
    const ts = cars.map((_, c) => bindAtom(slot(id(k), offset + c), 'x', eenv, step));
    cars.forEach((car, c) => step.push(assign(slot(id(k), offset + c), car)));
    const combine: JsStmt[] = [];
    const results = applyLambda(s.node.op, down ? [...ts, ...cars] : [...cars, ...ts], eenv, combine, 'r');
    cars.forEach((car, c) => combine.push(assign(car, results[c]!)));
    if (s.seeds === null) {
      // Inclusive: the first chunk in scan order has no carry; its aggregate is the next one's.
      const first = down ? bin('-', count, num(1)) : num(0);
      step.push({ kind: 'if', test: bin('===', id(k), first), then: cars.map((car, c) => assign(car, ts[c]!)), else: combine });
    } else step.push(...combine);
    out.push({ kind: 'for', index: k, from: num(0), to: count, down, body: step });
    return out;
  }

  /**
   * Builds one work function (`fns[index]`): `name(rt, lo, hi, chunk, [partials,] …args)`;
   * `stray`, the first helper it calls that workers lack (then it is not kept).
   */
  private workFunction(cluster: number, name: string, spec: ClusterSpec, partials: readonly ScalarType[] | null, env: Env): WorkBuilt {
    const nest = generateClusterNest(spec);
    const stmts = withTemps(nest.stmts);
    const fixed = new Set<string>([workParams.lo, workParams.hi, workParams.chunk, workParams.partials]);
    const params = freeIds(stmts).filter((p) => !fixed.has(p));
    const head = [runtimeParam, workParams.lo, workParams.hi, workParams.chunk, ...(partials !== null ? [workParams.partials] : [])];
    this.functions.push({ kind: 'function', name, params: [...head, ...params], body: stmts });
    this.workFunctions.push({ cluster, name, wholeSource: spec.chunk?.scatter === 'owner' && spec.chunk.only !== 'others', partials });
    this.workKernels.push({ ...kernelSource(name, stmts, env), params: [...head.slice(1), ...params] });
    return { index: this.workFunctions.length - 1, name, args: params.map(id), work: nest.facts.work, stray: strayHelper(stmts), faults: refersToRuntime(stmts), facts: nest.facts };
  }

  /** How a cluster of the parallel variant runs (ClusterSchedule), and how its scatters update. */
  private classify(spec: ClusterSpec, facts: NestFacts, env: Env): Classified {
    const nodes = spec.nodes;
    const serial = (reason: string): Classified => ({ kind: 'serial', reason });
    if (this.counters) return serial('the counters variant runs on the calling thread');
    if (facts.unsupported !== null) return serial(facts.unsupported);
    if (facts.loop === null) return serial(facts.baseRank === 0 ? 'a rank-0 cluster without exactly one row loop' : 'no loop to chunk');
    for (const c of [...facts.scans, ...facts.folds]) {
      const elems = c.node.outs.map((o) => o.elem);
      if (!associativeOp(c.node.op, elems)) return serial(`the operator of ${c.node.kind} ${c.node.id} is not one whose chunks may be regrouped`);
      if (c.seeds !== null && c.seeds.some(mayCallOut)) return serial(`the seed of ${c.node.kind} ${c.node.id} may fault`);
    }
    if (facts.baseRank === 0) {
      // main runs the statements after the row loop: they may use only the accumulators and the outer index.
      const rowLocals = new Set<string>();
      forEachNode(facts.loop.rowPre, { stmt: (s) => void (s.kind === 'decl' && rowLocals.add(s.name)) });
      for (const f of facts.folds) for (const a of f.accs) rowLocals.delete(a);
      let crosses = false;
      forEachNode(facts.loop.post, { expr: (e) => void (e.kind === 'id' && rowLocals.has(e.name) && (crosses = true)) });
      if (crosses) return serial('the statements after its row loop use the row');
    }
    const scatters = nodes.filter((n): n is ScatterNode => n.kind === 'scatter');
    const atomic = scatters.some((n) => n.unique !== true && atomicOps(n, n.outs.map((o) => o.elem)) !== null);
    const collide = scatters.filter((n) => n.unique !== true && atomicOps(n, n.outs.map((o) => o.elem)) === null);
    const scatter: ChunkSpec['scatter'] = atomic ? 'atomic' : 'plain';
    if (facts.scans.length > 0) {
      if (collide.length > 0) return serial('a scatter whose updates may collide, fused with a scan');
      if (scanFeedsScan(nodes, facts.scans)) return serial('a scan whose input comes from another scan of its cluster');
      return { kind: 'scan', scatter };
    }
    // Chunks of a reduce run on several threads at once: a colliding scatter's plain updates would race.
    if (facts.folds.length > 0 && collide.length > 0) return serial('a scatter whose updates may collide, fused with a whole-array fold');
    if (facts.folds.length > 0) return { kind: 'reduce', scatter };
    if (collide.length > 0) {
      const roots = nodes.filter((n) => n.kind !== 'scatter' && n.outs.some((o) => spec.manifest.has(o.name)));
      if (scatters.length !== 1) return serial('several scatters in one loop, one of whose updates may collide');
      const n = collide[0]!;
      // Only the owner of an index applies the combine, while every call checks every index: a
      // combine that faults at an earlier element than another call's index fault would lose.
      if (lambdaMayFault(n.op)) return serial('a scatter whose updates may collide, with a combine that may fault');
      const dims = this.arrayRef(env, n.outs[0]!.name).dims;
      const extent = dims.reduce<JsExpr>((a, d) => mul(a, d), num(1));
      // Every chunk walks the whole source: its cost per destination element is the source's
      // work over the destination's size (plus one for the update itself).
      const work = bin('+', num(1), bin('/', mul(facts.work, facts.loop.extent), bin('+', extent, num(1))));
      // At least one range even for an empty destination: every index of a non-empty source is
      // then out of range, and only a call that walks the source raises the sequential fault
      // (its bounds check comes before the range test, so the range [0, 1) writes nothing).
      return { kind: 'owner', scatter: 'owner', extent: mathCall('max', [num(1), extent]), work, split: roots.length > 0 };
    }
    return { kind: atomic ? 'atomic' : 'independent', scatter };
  }

  /** An elided copy's outputs: bound to its inputs' buffers (the copy is an identity map). */
  private bindElided(n: CombinatorNode, env: Env): void {
    if (n.kind !== 'map') throw bug(`elided node ${n.id} is a ${n.kind}, not a copy`);
    n.outs.forEach((o, k) => {
      const src = this.lookup(env, n.inputs[k]!);
      if (src.kind !== 'array' || !src.materialized) throw bug(`elided copy ${n.id}: its source is not in memory`);
      env.vars.set(o.name, { kind: 'array', ref: { ...src.ref, name: o.name }, materialized: true });
      this.producedInBlock.add(o.name);
    });
  }

  /**
   * Output extents of a node and the interpreter's shape checks, emitted once into the
   * statements of the node's block where first needed; binds the outputs without data.
   */
  private shape(n: CombinatorNode, env: Env): void {
    // The plan orders every user of a run-time extent after what it is computed from
    // (graph/orderings.ts), and scalar bindings wait for it (`ready`): reaching this otherwise
    // would read a buffer not yet written, or a name not yet bound.
    if (!this.shapeInputsReady(n, env)) throw bug(`the extents of ${n.kind} ${n.id} are asked before what they are computed from exists`);
    const state = env.block!;
    state.shaped.add(n.id);
    const out = state.out;
    let dims: readonly JsExpr[];
    const rule = outputShapeOf(n);
    if (rule.kind === 'sizes') {
      const env1 = this.exprEnv(env, n.kind, n.span);
      dims = rule.sizes.map((e, axis) => {
        const d = this.fresh('n');
        out.push(constDecl(d, compileExpr(e, env1)));
        const site = this.tables.site({ kind: 'size', what: n.kind, detail: String(axis), span: e.span ?? n.span });
        out.push({ kind: 'if', test: bin('<', id(d), num(0)), then: [exprStmt(callHelper('size', [num(site), id(d)]))], else: [] });
        return id(d);
      });
    } else {
      const like = this.arrayRef(env, shapeSource(n, rule)).dims;
      dims = rule.dropInnermost ? like.slice(0, -1) : like;
    }
    for (const o of n.outs) {
      env.vars.set(o.name, { kind: 'array', ref: { name: o.name, elem: o.elem, data: fusedAway, dims }, materialized: false });
    }
  }

  /**
   * The interpreter's checks that a node's input arrays agree in shape (E403), emitted where the
   * node's cluster runs, when every input exists. Not with its extents: those come from one
   * input (`shapeSource`) and may be asked earlier, before another input exists (the result of
   * an `if` that a gather reads, say, while the gather's size follows from its indices alone).
   */
  private checkShapes(n: CombinatorNode, env: Env, out: JsStmt[]): void {
    const dimsOf = (name: VarName): readonly JsExpr[] => this.arrayRef(env, name).dims;
    const same = (names: readonly VarName[], what: string): void => {
      if (names.length < 2) return;
      const first = dimsOf(names[0]!);
      for (const other of names.slice(1)) {
        const dims = dimsOf(other);
        if (dims.length !== first.length) throw bug(`${n.kind} ${n.id}: components of different ranks`);
        if (dims.length === 0 || dims.every((d, k) => sameExpr(d, first[k]!))) continue;
        const site = this.tables.site({ kind: 'shape', what: n.kind, detail: `${what} ${names[0]} and ${other}`, span: n.span });
        const differ = dims.map((d, k) => bin('!==', first[k]!, d)).reduce((a, b) => bin('||', a, b));
        out.push({ kind: 'if', test: differ, then: [exprStmt(callHelper('shapes', [num(site), arr(first), arr(dims)]))], else: [] });
      }
    };
    const rule = outputShapeOf(n);
    if (rule.kind === 'like') for (const group of rule.agree) same(group.arrays, group.what);
  }

  /** The buffers of a node's outputs: the memory plan's for manifest ones, none for fused-away ones. */
  private allocate(n: CombinatorNode, manifest: ReadonlySet<VarName>, env: Env, out: JsStmt[]): void {
    if (!env.block!.shaped.has(n.id)) this.shape(n, env);
    this.checkShapes(n, env, out);
    const dims = this.arrayRef(env, n.outs[0]!.name).dims;
    const size = dims.reduce<JsExpr>((a, d) => mul(a, d), num(1));
    const inPlace = loopTraits(n).inPlace;
    n.outs.forEach((o, k) => {
      let data = fusedAway;
      let materialized = false;
      if (inPlace !== null) {
        // The scatter updates its destination in place: the IR makes it dest's last use. The
        // memory plan says whether that memory may be written (`alias`: the block's own array,
        // or an input the caller donated); a destination it may not write (an input) is copied.
        const dest = this.lookup(env, inPlace[k]!);
        if (dest.kind !== 'array' || !dest.materialized) throw bug(`${n.kind} ${n.id}: its destination is not in memory`);
        data = dest.ref.data;
        const ref = this.memory.buffers[o.name];
        const writable = ref?.kind === 'alias' && ref.of === inPlace[k];
        const owned = env.vars.has(inPlace[k]!) && this.producedInBlock.has(inPlace[k]!);
        if (owned && !writable) throw bug(`${n.kind} ${n.id} updates ${JSON.stringify(inPlace[k])} in place, which the memory plan does not alias`);
        if (!writable) {
          this.allocations.push({ array: o.name, elem: o.elem });
          data = callHelper('copy', [num(this.allocations.length - 1), data]);
        }
        const a = this.fresh('a');
        out.push(constDecl(a, data));
        data = id(a);
        materialized = true;
        // Updating a fresh array in place leaves it the caller's to keep (it was the destination's last use).
        if (this.depth === 1 && this.freshAtTop.has(inPlace[k]!)) this.freshAtTop.add(o.name);
      } else if (manifest.has(o.name)) {
        const ref = this.memory.buffers[o.name];
        if (ref === undefined) throw bug(`the memory plan has no buffer for manifest array ${JSON.stringify(o.name)}`);
        const a = this.fresh('a');
        out.push(constDecl(a, this.buffer(o, ref, size, env)));
        if (ref.kind === 'fresh' && this.depth === 1) this.freshAtTop.add(o.name);
        data = id(a);
        materialized = true;
      }
      env.vars.set(o.name, { kind: 'array', ref: { name: o.name, elem: o.elem, data, dims }, materialized });
      if (materialized) this.producedInBlock.add(o.name);
    });
  }

  /** The expression that gives manifest array `o` (of `size` elements) its memory, by its BufferRef. */
  private buffer(o: { readonly name: VarName; readonly elem: ScalarType }, ref: BufferRef, size: JsExpr, env: Env): JsExpr {
    const site = (): JsExpr => {
      this.allocations.push({ array: o.name, elem: o.elem });
      return num(this.allocations.length - 1);
    };
    switch (ref.kind) {
      case 'fresh':
        return callHelper('alloc', [site(), size]);
      case 'slot':
        return callHelper('take', [site(), num(ref.slot), size]);
      case 'pair': {
        const t = this.loops.length === 0 ? null : this.loops[this.loops.length - 1]!;
        if (t === null) throw bug(`${JSON.stringify(o.name)} is planned on a loop pair outside a while body`);
        return callHelper('pair', [site(), num(ref.slots[0]), num(ref.slots[1]), id(t), size]);
      }
      case 'result':
        return callHelper('result', [site(), num(ref.component), size]);
      case 'alias': {
        // No memory of its own: the cluster writes into the other array's (an elided copy, an
        // in-place update), which the plan has proved dead or identical by then.
        const of = this.lookup(env, ref.of);
        if (of.kind !== 'array' || !of.materialized) throw bug(`${JSON.stringify(o.name)} aliases ${JSON.stringify(ref.of)}, which is not in memory`);
        return of.ref.data;
      }
      default:
        throw bug(`unknown buffer kind ${String(ref satisfies never)}`);
    }
  }

  /** Arrays produced by a combinator (not passed in): a scatter may update them in place. */
  private readonly producedInBlock = new Set<VarName>();

  // ---- control flow --------------------------------------------------------------------------

  private control(node: ControlNode, children: readonly BlockPlan[], env: Env, out: JsStmt[]): void {
    // The outputs live in mutable locals assigned at the end of each branch or iteration.
    const holders = node.outs.map((v) => {
      const b = this.bindLocals(env, v, out, v.kind === 'scalar' ? num(0) : num(0), v.kind === 'array' ? Array.from({ length: v.rank }, () => num(0)) : [], true);
      return b;
    });
    const assignAll = (values: readonly Binding[], target: JsStmt[]): void => {
      // Through temporaries: a loop body may return its carried values permuted.
      const temps = values.map((v) => {
        const parts = v.kind === 'scalar' ? [v.value] : [v.ref.data, ...v.ref.dims];
        return parts.map((p) => {
          const t = this.fresh('t');
          target.push(constDecl(t, p));
          return id(t);
        });
      });
      holders.forEach((h, k) => {
        const parts = h.kind === 'scalar' ? [h.value] : [h.ref.data, ...h.ref.dims];
        parts.forEach((p, j) => target.push(assign(p, temps[k]![j]!)));
      });
    };
    const child = (params: readonly Value[], values: readonly Binding[]): Env => {
      const e: Env = { vars: new Map(), parent: env, block: null };
      params.forEach((p, k) => e.vars.set(p.name, values[k]!));
      return e;
    };
    if (node.kind === 'if') {
      const test = compileExpr(node.cond, this.exprEnv(env, 'if', node.span));
      const branch = (b: Block, plan: BlockPlan): JsStmt[] => {
        const body: JsStmt[] = [];
        assignAll(this.block(b, plan, child([], []), body), body);
        return body;
      };
      out.push({ kind: 'if', test: bin('!==', test, num(0)), then: branch(node.then, children[0]!), else: branch(node.else, children[1]!) });
      return;
    }
    assignAll(node.init.map((name) => this.lookup(env, name)), out);
    const body: JsStmt[] = [];
    this.loops.push(null);
    const [go] = this.block(node.cond, children[0]!, child(node.cond.params, holders), body);
    this.loops.pop();
    if (go === undefined || go.kind !== 'scalar') throw bug('while: the condition block returns no scalar');
    const site = this.tables.site({ kind: 'loop', what: 'while', span: node.span });
    // Counts iterations for the limit, and is the parity of the loop's pairs (`rt.pair`).
    const iterations = this.fresh('w');
    out.push(letDecl(iterations, num(0)));
    body.push({ kind: 'if', test: bin('===', go.value, num(0)), then: [{ kind: 'break' }], else: [] });
    body.push({
      kind: 'if',
      test: bin('>=', id(iterations), helperValue('maxWhileIterations')),
      then: [exprStmt(callHelper('loop', [num(site), helperValue('maxWhileIterations')]))],
      else: [],
    });
    body.push(assign(id(iterations), bin('+', id(iterations), num(1))));
    this.loops.push(iterations);
    const results = this.block(node.body, children[1]!, child(node.body.params, holders), body);
    this.loops.pop();
    assignAll(results, body);
    out.push({ kind: 'while', test: un('!', num(0)), body });
  }
}

/**
 * The array whose extents a node's output takes (its rule's `like`, as graph/orderings.ts has
 * it): the other inputs must agree with it (`checkShapes`), but the extents need only this one.
 */
function shapeSource(n: CombinatorNode, rule: Extract<OutputShape, { kind: 'like' }>): VarName {
  if (rule.like === undefined) throw bug(`${n.kind} ${n.id} has no input to take its extents from`);
  return rule.like;
}

function sameExpr(a: JsExpr, b: JsExpr): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * A function body with its expression temporaries (see `set` in jsast.ts) declared up front:
 * one `let` per temporary, at function level, so V8 keeps each in a register like any local.
 */
function withTemps(stmts: readonly JsStmt[]): JsStmt[] {
  const temps = new Set<string>();
  forEachNode(stmts, {
    expr(e) {
      if (e.kind === 'set') temps.add(e.name);
    },
  });
  return [...[...temps].map((t) => letDecl(t, null)), ...stmts];
}

/**
 * A cluster function's body with its parameters' types (`KernelSource`): the data of every array
 * bound in `env` with its element type, and every array extent. Other parameters are scalars.
 */
function kernelSource(name: string, body: JsStmt[], env: Env): KernelSource {
  const params = freeIds(body);
  const wanted = new Set(params);
  const arrays: Record<string, ScalarType> = Object.create(null) as Record<string, ScalarType>;
  const scalars: Record<string, ScalarType> = Object.create(null) as Record<string, ScalarType>;
  const extents = new Set<string>();
  for (let e: Env | null = env; e !== null; e = e.parent) {
    for (const b of e.vars.values()) {
      if (b.kind === 'scalar') {
        if (b.value.kind === 'id' && wanted.has(b.value.name)) scalars[b.value.name] = b.elem;
        continue;
      }
      if (b.ref.data.kind === 'id' && wanted.has(b.ref.data.name)) arrays[b.ref.data.name] = b.ref.elem;
      for (const d of b.ref.dims) if (d.kind === 'id' && wanted.has(d.name)) extents.add(d.name);
    }
  }
  return { name, params, body, arrays, scalars, extents: params.filter((p) => extents.has(p) && arrays[p] === undefined) };
}

/** Whether `stmt` mentions the identifier `name`. */
function mentions(stmt: JsStmt, name: string): boolean {
  let found = false;
  forEachNode([stmt], { expr: (e) => void (e.kind === 'id' && e.name === name && (found = true)) });
  return found;
}

/** Identifiers a cluster's statements use but do not declare: the cluster function's parameters. */
function freeIds(stmts: readonly JsStmt[]): string[] {
  const used: string[] = [];
  const seen = new Set<string>();
  const declared = new Set<string>([runtimeParam, 'Math', 'Atomics']);
  const onId = (name: string): void => {
    if (!seen.has(name)) {
      seen.add(name);
      used.push(name);
    }
  };
  forEachNode(stmts, {
    expr(e) {
      if (e.kind === 'id') onId(e.name);
      if (e.kind === 'set') declared.add(e.name);
    },
    stmt(s) {
      if (s.kind === 'decl') declared.add(s.name);
      if (s.kind === 'for') declared.add(s.index);
    },
  });
  return used.filter((n) => !declared.has(n));
}

/** Generates the module for a program and its plan. */
export function generateProgram(program: Program, plan: Plan, options: GenerateOptions): GeneratedProgram {
  const parallel = options.parallel === true || options.device === true;
  const gen = new ProgramGen(options.counters, options.memory, parallel, options.fastMath === true, options.device === true);
  const serial = new Map<string, number>();
  const sequential = gen.main(program, plan);
  gen.schedules.forEach((s, c) => void (s.kind === 'serial' && serial.set(`c${c}`, c)));
  const main = options.device === true ? deviceMain(sequential, serial) : sequential;
  // The parallel variant's work functions, by the index main passes to rt.par.
  const fns: JsStmt[] = parallel
    ? [
        comment('fns: the work functions rt.par runs over chunks (on the calling thread and the workers).'),
        constDecl('fns', arr(gen.workFunctions.map((f) => id(f.name)))),
      ]
    : [];
  return {
    text: printProgramText([
      comment('Generated by arrayfuse: one function per cluster of the plan, and main(rt, inputs).'),
      comment('rt holds the runtime helpers (src/runtime/helpers.ts); inputs are { data, shape } or { value }.'),
      ...gen.functions,
      main,
      ...fns,
    ]),
    sites: gen.tables.sites,
    slots: gen.tables.slots,
    allocations: gen.allocations,
    clusters: gen.clusters,
    results: program.results.flatMap((r) =>
      r.components.map((c, j): ResultSite => ({ name: r.components.length === 1 ? r.name : `${r.name}.${j}`, elem: c.elem, array: c.kind === 'array' })),
    ),
    scratchRows: gen.tables.scratchRows,
    schedules: gen.schedules,
    workFunctions: gen.workFunctions,
    kernels: gen.kernels,
    workKernels: gen.workKernels,
  };
}
