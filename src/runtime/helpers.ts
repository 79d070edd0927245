// The `rt` object generated code calls: the errors of its inline checks (an index out of range,
// a division by zero), integer powers, memory (the pool, results, allocation with a record),
// counters and per-cluster timing. Hot loops never call it on their common path (see
// codegen/scalar.ts). What it must offer is codegen's `RuntimeHelpers` interface, which
// `Runtime` implements: a helper renamed or removed here, or there, fails to compile.
//
// Every error generated code raises goes through here, by site number, and comes out as the
// UserError the reference interpreter raises for the same fault: same code, same wording, the
// user's span. No module-level state: a `Runtime` holds one run's state and is reset for the
// next (the executor keeps one per compiled variant), a `Pool` holds an executable's buffers.

import { CompilerBug, type SourceFile, userError } from '../diagnostics/index.js';
import type { AllocationSite, CounterSlot, ErrorSite, RuntimeHelpers } from '../codegen/index.js';
import type { ResultSite } from '../codegen/index.js';
import { MAX_ARRAY_ELEMENTS, ScalarDivisionByZero, allocate, binary, elementBytes } from '../ir/scalarOps.js';
import type { ScalarType } from '../ir/types.js';
import type { TypedArray } from '../ir/scalarOps.js';
import type { Slot } from '../memory/types.js';
import { elemOfData, typedArrayName } from './outputs.js';

/**
 * What one allocation site of the generated code allocated over a run: a site inside a `while`
 * allocates once per iteration, and its record sums them (so what a run records is bounded by
 * the program's size, not by how many iterations it runs).
 */
export interface Allocation {
  readonly array: string;
  /** Times the site allocated. */
  readonly count: number;
  /** Elements, summed over those times. */
  readonly elements: number;
  /** Bytes, summed over those times. */
  readonly bytes: number;
  /** The largest single allocation of the site, in bytes. */
  readonly largestBytes: number;
}

/**
 * What one run records besides its results, all of it in one fixed-size array (one allocation,
 * whatever the run does: a list with an entry per allocation once grew by gigabytes in a long
 * `while` loop): per allocation site (the index generated code passes to `alloc`, `take`, …)
 * times, elements and the largest allocation in elements; per cluster milliseconds (timed runs
 * only), calls, and calls whose chunks threads shared (the multicore back end's forks); and the
 * counters variant's counts: per cluster (plus one row, `clusters`, for code outside every
 * cluster) and counter slot the elements read or written, per cluster floating-point and
 * integer operations, innermost-loop iterations and memory bytes.
 */
export class RunRecord {
  readonly data: Float64Array;
  readonly elementsAt: number;
  readonly largestAt: number;
  readonly msAt: number;
  readonly callsAt: number;
  readonly forksAt: number;
  /** Per cluster row `c` (0 … clusters, the last for code outside clusters): `slots` counts from `clusterCountsAt + c · slots`. */
  readonly clusterCountsAt: number;
  /** Per cluster row: floating-point operations at `opsAt + 2c`, integer ones at `opsAt + 2c + 1`. */
  readonly opsAt: number;
  readonly pointsAt: number;
  /** Per cluster row: bytes its calls moved at least (`Runtime.leave`). */
  readonly memoryAt: number;

  constructor(
    readonly sites: number,
    readonly clusters: number,
    readonly slots: number,
  ) {
    this.elementsAt = sites;
    this.largestAt = 2 * sites;
    this.msAt = 3 * sites;
    this.callsAt = 3 * sites + clusters;
    this.forksAt = 3 * sites + 2 * clusters;
    this.clusterCountsAt = 3 * sites + 3 * clusters;
    this.opsAt = this.clusterCountsAt + (clusters + 1) * slots;
    this.pointsAt = this.opsAt + 2 * (clusters + 1);
    this.memoryAt = this.pointsAt + clusters + 1;
    this.data = new Float64Array(this.memoryAt + clusters + 1);
  }

  /** Times site `k` allocated. */
  count(k: number): number {
    return this.data[k]!;
  }

  clusterMs(c: number): number {
    return this.data[this.msAt + c]!;
  }

  clusterCalls(c: number): number {
    return this.data[this.callsAt + c]!;
  }

  /** `rt.par` calls of cluster `c` whose chunks the pool's threads shared. */
  clusterForks(c: number): number {
    return this.data[this.forksAt + c]!;
  }

  /** Elements counter slot `slot` counted, in every cluster and outside them. */
  counted(slot: number): number {
    let n = 0;
    for (let c = 0; c <= this.clusters; c++) n += this.countedIn(c, slot);
    return n;
  }

  /** Elements counter slot `slot` counted inside cluster `c` (`clusters`: outside every cluster). */
  countedIn(c: number, slot: number): number {
    return this.data[this.clusterCountsAt + c * this.slots + slot]!;
  }

  /** Operations cluster `c` counted: floating-point, and integer or logical. */
  opsIn(c: number): { readonly float: number; readonly int: number } {
    return { float: this.data[this.opsAt + 2 * c]!, int: this.data[this.opsAt + 2 * c + 1]! };
  }

  /** Innermost-loop iterations cluster `c` counted. */
  pointsIn(c: number): number {
    return this.data[this.pointsAt + c]!;
  }

  /** Bytes cluster `c`'s calls moved at least: per call and array, its elements read (and written) but at most its length. */
  memoryBytesIn(c: number): number {
    return this.data[this.memoryAt + c]!;
  }
}

/** A zeroed record for generated code with these side tables. */
export function runRecord(tables: RuntimeTables): RunRecord {
  return new RunRecord(tables.allocations.length, tables.clusterCount, tables.slots.length);
}

/** The record of every site that allocated, in site order. */
export function allocationsOf(sites: readonly AllocationSite[], record: RunRecord): Allocation[] {
  const out: Allocation[] = [];
  const d = record.data;
  sites.forEach((site, k) => {
    const count = d[k]!;
    if (count === 0) return;
    const bytes = elementBytes(site.elem);
    const elements = d[record.elementsAt + k]!;
    out.push({ array: site.array, count, elements, bytes: elements * bytes, largestBytes: d[record.largestAt + k]! * bytes });
  });
  return out;
}

export interface RuntimeTables {
  readonly sites: readonly ErrorSite[];
  readonly slots: readonly CounterSlot[];
  readonly allocations: readonly AllocationSite[];
  readonly clusterCount: number;
  /** Per flat result component (for `out` checks); absent: none given (tests of single helpers). */
  readonly results?: readonly ResultSite[];
}

/** How a run uses its helpers, set anew for every run (`Runtime.reset`). */
export interface RunSettings {
  /** Caller-owned result buffers by flat result component. */
  readonly out: readonly (TypedArray | undefined)[] | undefined;
  /** Time every cluster call (`performance.now` twice per call); calls are counted either way. */
  readonly timing: boolean;
}

/**
 * A work function of the parallel variant (`fns[k]`): iterations [lo, hi) of its cluster's
 * chunked loop, `chunk` the chunk's number (where a fixed chunk writes its partials), then the
 * cluster's own arguments.
 */
export type WorkFunction = (rt: RuntimeHelpers, lo: number, hi: number, chunk: number, ...args: (TypedArray | number)[]) => void;

/**
 * Iterations per chunk of loops that carry a value (whole-array folds, scans) unless the
 * executable is compiled with another: large enough that a chunk's combine and fork costs are
 * noise, small enough that a loop of 10^5 elements has chunks for two threads.
 */
export const DEFAULT_CHUNK_LENGTH = 16384;

/**
 * An executable's buffers, kept across runs: one `ArrayBuffer` per slot of its memory plan
 * (static slots allocated when the pool is made, exactly their bytes; dynamic ones on first
 * use, then grown to the largest size asked), and one row buffer per `rt.scratch` number.
 * Arrays view a slot from byte 0. Nothing in it is ever zeroed: the plan puts in one slot only
 * arrays whose lives do not overlap, and generated code writes a planned array before reading
 * it, so what a slot holds between runs (or after a run that threw) is dead.
 */
export class Pool {
  readonly buffers: (ArrayBufferLike | null)[];
  readonly rows: Float64Array[] = [];
  /** Σ byteLength of every buffer and row. */
  bytes = 0;
  /** Bytes allocated when it was made (its static slots). */
  readonly createdBytes: number;

  /** Per cluster of the parallel variant, its per-chunk partials (`rt.partials`). */
  readonly partials: (Float64Array | undefined)[] = [];
  /** The multicore back end's shared copies of the caller's arrays that are not shared (multicore/runtime.ts), by its key. */
  readonly mirrors = new Map<string, TypedArray>();

  constructor(
    slots: readonly Slot[],
    /** SharedArrayBuffers, which the multicore back end's workers see (same speed; docs/EXECUTION.md "Threads"). */
    readonly shared = false,
  ) {
    this.buffers = slots.map((s) => (s.bytes === null ? null : newBuffer(s.bytes, shared)));
    for (const b of this.buffers) if (b !== null) this.bytes += b.byteLength;
    this.createdBytes = this.bytes;
  }

  /** Replaces slot `slot`'s buffer by one of `bytes` bytes (views of the old one are remade when next taken). */
  grow(slot: number, bytes: number): ArrayBufferLike {
    const old = this.buffers[slot];
    const b = newBuffer(bytes, this.shared);
    this.bytes += bytes - (old == null ? 0 : old.byteLength);
    while (this.buffers.length < slot) this.buffers.push(null);
    this.buffers[slot] = b;
    return b;
  }

  /** Whether `buffer` is one of the pool's (results must never be: the caller would share them). */
  owns(buffer: ArrayBufferLike): boolean {
    if (this.buffers.includes(buffer) || this.rows.some((r) => r.buffer === buffer) || this.partials.some((p) => p?.buffer === buffer)) return true;
    for (const m of this.mirrors.values()) if (m.buffer === buffer) return true;
    return false;
  }
}

function newBuffer(bytes: number, shared: boolean): ArrayBufferLike {
  try {
    return shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes);
  } catch (e) {
    if (e instanceof RangeError) throw userError('E406', `a buffer of ${bytes} bytes could not be allocated (${e.message})`);
    throw e;
  }
}

/**
 * A zeroed array of `n` elements of type `t` on a SharedArrayBuffer of its own (or on an
 * ArrayBuffer when not `shared`: `allocate`), with `allocate`'s E406 for a size too large.
 */
export function allocateArray(t: ScalarType, n: number, shared: boolean): TypedArray {
  if (!shared || !(n <= MAX_ARRAY_ELEMENTS)) return allocate(t, n);
  try {
    return viewOf(t, new SharedArrayBuffer(n * elementBytes(t)), n);
  } catch (e) {
    if (e instanceof RangeError) throw userError('E406', `an array of ${n} ${t} elements could not be allocated (${e.message})`);
    throw e;
  }
}

/** A view of `n` elements of type `t` on `buffer` from byte 0. */
function viewOf(t: ScalarType, buffer: ArrayBufferLike, n: number): TypedArray {
  switch (t) {
    case 'f64':
      return new Float64Array(buffer, 0, n);
    case 'f32':
      return new Float32Array(buffer, 0, n);
    case 'i32':
      return new Int32Array(buffer, 0, n);
    case 'u32':
      return new Uint32Array(buffer, 0, n);
    case 'u8':
    case 'bool':
      return new Uint8Array(buffer, 0, n);
    case 'i8':
      return new Int8Array(buffer, 0, n);
    default:
      throw new CompilerBug('runtime', `no typed array for ${String(t satisfies never)}`);
  }
}

/** Fills a buffer handed out with values no correct program reads (`CompileOptions.poisonBuffers`). */
function poison(a: TypedArray): void {
  if (a instanceof Float64Array || a instanceof Float32Array) a.fill(NaN);
  else if (a instanceof Uint8Array) a.fill(0xad);
  else a.fill(0xdeadbeef);
}

function shapeText(shape: readonly number[]): string {
  return `[${shape.join(', ')}]`;
}

function unflatten(flat: number, dims: readonly number[]): number[] {
  const out = new Array<number>(dims.length);
  let rest = flat;
  for (let k = dims.length - 1; k >= 0; k--) {
    out[k] = rest % dims[k]!;
    rest = Math.floor(rest / dims[k]!);
  }
  return out;
}

/**
 * The helper object of one run. A class, not an object literal: every run's helpers then share
 * one hidden class (V8 map), with the methods on its prototype. Generated cluster functions take
 * `rt` as a parameter, and their optimised code checks its map; an object literal built per run
 * (with a spread) had a map of its own each time, so every run threw away the previous run's
 * optimised code for every cluster and ran each hot loop in the interpreter until V8 optimised
 * it again (LULESH's force loop: 4 recompilations in 4 runs, each several milliseconds).
 */
export class Runtime implements RuntimeHelpers {
  private readonly started: Float64Array;
  /** Per allocation site, two views (a pair's parities; index 2k for the others): reused while their slot's buffer and length stay. */
  private readonly views: (TypedArray | undefined)[];
  private readonly rowViews: (Float64Array | undefined)[] = [];
  protected out: readonly (TypedArray | undefined)[] | undefined = undefined;
  private timing = false;
  /** Bytes this run added to the pool outside allocation sites (row buffers); the executor adds the pool's creation. */
  poolAllocated = 0;
  /** The stats of the last run, which read `record` when first asked for. */
  pending: { readonly read: boolean } | null = null;

  constructor(
    private readonly tables: RuntimeTables,
    private readonly file: SourceFile | undefined,
    readonly maxWhileIterations: number,
    /** Replaced by a new one when a run starts while the last run's stats, which read it, are unread. */
    public record: RunRecord,
    /** The buffers `take`, `pair` and `scratch` hand out; the executor sets its executable's pool per run. */
    public pool: Pool = new Pool([]),
    /** Test only: fill every buffer handed out with NaN / 0xDEADBEEF, so a read of stale data shows. */
    private readonly poisoned = false,
  ) {
    this.started = new Float64Array(tables.clusterCount);
    this.current = tables.clusterCount;
    this.base = record.clusterCountsAt + tables.clusterCount * record.slots;
    const slots = tables.slots.length;
    this.entered = new Float64Array(slots);
    this.lengths = new Float64Array(slots);
    this.groupOf = new Int32Array(slots);
    const groups = new Map<string, number>();
    const sizes: number[] = [];
    tables.slots.forEach((slot, k) => {
      const key = `${slot.access.kind === 'write' ? 'w' : 'r'}${slot.array}`;
      let g = groups.get(key);
      if (g === undefined) {
        g = groups.size;
        groups.set(key, g);
        sizes.push(elementBytes(slot.elem));
      }
      this.groupOf[k] = g;
    });
    this.groupBytes = Float64Array.from(sizes);
    this.groupSums = new Float64Array(sizes.length);
    this.views = new Array<TypedArray | undefined>(2 * tables.allocations.length).fill(undefined);
  }

  /** Prepares for another run: a zeroed record, this run's pool and settings. */
  reset(pool: Pool, settings: RunSettings): void {
    // Unread stats keep the record they will be built from; read ones no longer need it.
    if (this.pending !== null && !this.pending.read) this.record = new RunRecord(this.record.sites, this.record.clusters, this.record.slots);
    else this.record.data.fill(0);
    this.pending = null;
    this.countInto(this.record.clusters);
    this.pool = pool;
    this.out = settings.out;
    this.timing = settings.timing;
    this.poolAllocated = 0;
  }

  private site(k: number): ErrorSite {
    const s = this.tables.sites[k];
    if (s === undefined) throw new CompilerBug('runtime', `generated code used unknown error site ${k}`);
    return s;
  }

  private where(s: ErrorSite): { file: SourceFile | undefined; span: ErrorSite['span'] } {
    return { file: this.file, span: s.span };
  }

  /** `//`, `%` or `**` by scalarOps, with its division by zero as the interpreter's E401. */
  private arithmetic(k: number, op: '//' | '%' | '**', t: ScalarType, a: number, b: number): number {
    try {
      return binary(op, t, a, b);
    } catch (err) {
      if (!(err instanceof ScalarDivisionByZero)) throw err;
      const s = this.site(k);
      throw userError('E401', `${s.what}: integer division by zero (${a} ${op} ${b})`, this.where(s));
    }
  }

  // The operations generated code does not inline (codegen/runtimeHelpers.ts
  // arithmeticHelpers): bool `//` and `%`, and integer `**` (float `**` is inline).
  floordiv_bool(k: number, a: number, b: number): number { return this.arithmetic(k, '//', 'bool', a, b); }
  mod_bool(k: number, a: number, b: number): number { return this.arithmetic(k, '%', 'bool', a, b); }
  pow_i32(k: number, a: number, b: number): number { return this.arithmetic(k, '**', 'i32', a, b); }
  pow_u32(k: number, a: number, b: number): number { return this.arithmetic(k, '**', 'u32', a, b); }
  pow_u8(k: number, a: number, b: number): number { return this.arithmetic(k, '**', 'u8', a, b); }
  pow_i8(k: number, a: number, b: number): number { return this.arithmetic(k, '**', 'i8', a, b); }
  pow_bool(k: number, a: number, b: number): number { return this.arithmetic(k, '**', 'bool', a, b); }

  /** An index of element code out of range (generated code checks inline, then calls this). */
  index(k: number, indices: readonly number[], dims: readonly number[]): never {
    const s = this.site(k);
    const badAxis = indices.findIndex((i, axis) => !(i >= 0 && i < dims[axis]!));
    const shown = indices.length === 1 ? String(indices[0]) : shapeText(indices);
    throw userError('E402', `${s.what}: index ${shown} is out of range for ${s.array} of shape ${shapeText(dims)} (dimension ${badAxis})`, this.where(s));
  }

  /** An integer `//` or `%` by zero (generated code tests the divisor inline). */
  divzero(k: number, a: number, b: number): never {
    const s = this.site(k);
    throw userError('E401', `${s.what}: integer division by zero (${a} ${s.detail} ${b})`, this.where(s));
  }

  /** A gather or scatter index out of range, with its position in the index arrays. */
  oob(k: number, indices: readonly number[], dims: readonly number[], position: number, positionDims: readonly number[]): never {
    const s = this.site(k);
    const shown = indices.length === 1 ? String(indices[0]) : shapeText(indices);
    const at = positionDims.length === 1 ? String(position) : shapeText(unflatten(position, positionDims));
    if (s.what === 'scatter') {
      throw userError('E402', `scatter: index ${shown} is out of range for a destination of shape ${shapeText(dims)} (position ${at} of the source)`, this.where(s));
    }
    const arrays = indices.length === 1 ? 'index array' : 'index arrays';
    throw userError('E402', `gather: index ${shown} is out of range for an array of shape ${shapeText(dims)} (position ${at} of the ${arrays})`, this.where(s));
  }

  shapes(k: number, a: readonly number[], b: readonly number[]): never {
    const s = this.site(k);
    throw userError('E403', `${s.what}: shapes ${shapeText(a)} and ${shapeText(b)} differ (${s.detail})`, this.where(s));
  }

  size(k: number, d: number): never {
    const s = this.site(k);
    throw userError('E404', `generate: size ${d} of dimension ${s.detail} is not a non-negative integer`, this.where(s));
  }

  loop(k: number, limit: number): never {
    const s = this.site(k);
    throw userError('E405', `while: the loop did not finish within ${limit} iterations (the iteration limit)`, this.where(s));
  }

  /** Counts an allocation of `n` elements at site `k`; nothing keeps the buffer. */
  private recordAllocation(k: number, n: number): void {
    const r = this.record;
    const d = r.data;
    d[k]! += 1;
    d[r.elementsAt + k]! += n;
    if (n > d[r.largestAt + k]!) d[r.largestAt + k] = n;
  }

  // Fresh arrays (`alloc`, `copy`, `result`, `emit`) are on SharedArrayBuffers when the pool is
  // shared (the multicore back end): the pool's workers can then read and write them. A fresh
  // SharedArrayBuffer costs what an ArrayBuffer does (docs/EXECUTION.md "Threads").
  alloc(k: number, n: number): TypedArray {
    this.recordAllocation(k, n);
    return allocateArray(this.tables.allocations[k]!.elem, n, this.pool.shared);
  }

  copy(k: number, data: TypedArray): TypedArray {
    this.recordAllocation(k, data.length);
    const out = allocateArray(this.tables.allocations[k]!.elem, data.length, this.pool.shared);
    out.set(data);
    return out;
  }

  take(k: number, slot: number, n: number): TypedArray {
    const v = this.views[2 * k];
    if (v !== undefined && v.length === n && v.buffer === this.pool.buffers[slot]) {
      if (this.poisoned) poison(v);
      return v;
    }
    return this.remake(2 * k, k, slot, n);
  }

  pair(k: number, even: number, odd: number, t: number, n: number): TypedArray {
    const parity = t & 1;
    const slot = parity === 0 ? even : odd;
    const v = this.views[2 * k + parity];
    if (v !== undefined && v.length === n && v.buffer === this.pool.buffers[slot]) {
      if (this.poisoned) poison(v);
      return v;
    }
    return this.remake(2 * k + parity, k, slot, n);
  }

  /**
   * A new view for site `k` on slot `slot` (cached at `at`): the slot's buffer grown first when
   * it holds fewer than `n` elements (or has none yet) — an allocation of the site's, recorded.
   */
  private remake(at: number, k: number, slot: number, n: number): TypedArray {
    const elem = this.tables.allocations[k]!.elem;
    if (!(n <= MAX_ARRAY_ELEMENTS)) allocate(elem, n); // throws the interpreter's E406
    const bytes = n * elementBytes(elem);
    let buffer = this.pool.buffers[slot];
    if (buffer == null || buffer.byteLength < bytes) {
      buffer = this.pool.grow(slot, bytes);
      this.recordAllocation(k, n);
    }
    const v = viewOf(elem, buffer, n);
    this.views[at] = v;
    if (this.poisoned) poison(v);
    return v;
  }

  result(k: number, component: number, n: number): TypedArray {
    const o = this.out?.[component];
    if (o !== undefined) {
      this.checkOut(component, o, n);
      if (this.poisoned) poison(o);
      return o;
    }
    this.recordAllocation(k, n);
    const a = allocateArray(this.tables.allocations[k]!.elem, n, this.pool.shared);
    if (this.poisoned) poison(a);
    return a;
  }

  emit(k: number, component: number, data: TypedArray): TypedArray {
    const o = this.out?.[component];
    if (o !== undefined) return this.into(component, o, data);
    return this.copy(k, data);
  }

  give(component: number, data: TypedArray): TypedArray {
    const o = this.out?.[component];
    return o === undefined ? data : this.into(component, o, data);
  }

  /** Copies result component `component` into the caller's `o` (checked first) unless it is `o` already. */
  into(component: number, o: TypedArray, data: TypedArray): TypedArray {
    if (o === data) return o;
    this.checkOut(component, o, data.length);
    o.set(data);
    return o;
  }

  /**
   * The back end's own checks of an `out` array (E421, E422), for callers of `Executable.run`
   * that are not the driver, which checks the same before a run (src/runtime/outputs.ts).
   */
  private checkOut(component: number, o: TypedArray, n: number): void {
    const r = this.tables.results?.[component];
    if (r === undefined) throw new CompilerBug('runtime', `an out array for result component ${component}, which the tables lack`);
    if (elemOfData(o, r.elem) !== r.elem) {
      throw userError('E421', `out for result ${r.name}: a ${o.constructor.name} where its ${r.elem} elements need a ${typedArrayName[r.elem]}`);
    }
    if (o.length !== n) throw userError('E422', `out for result ${r.name}: the result has ${n} elements; the out array has ${o.length} elements`);
  }

  /**
   * Row buffer `k` for a fold over a fused scanr (see codegen/cluster.ts): one row of a
   * fused-away array, not an array of the program, so not an allocation site in the record;
   * pooled like the slots (its growth counts in the run's bytes). Float64 holds every element
   * type exactly.
   */
  scratch(k: number, n: number): Float64Array {
    const v = this.rowViews[k];
    const row = this.pool.rows[k];
    if (v !== undefined && v.length === n && row !== undefined && v.buffer === row.buffer) {
      if (this.poisoned) v.fill(NaN);
      return v;
    }
    let buffer = row;
    if (buffer === undefined || buffer.length < n) {
      if (!(n <= MAX_ARRAY_ELEMENTS)) allocate('f64', n);
      buffer = new Float64Array(n);
      this.pool.bytes += buffer.byteLength - (row === undefined ? 0 : row.byteLength);
      this.poolAllocated += buffer.byteLength;
      while (this.pool.rows.length < k) this.pool.rows.push(new Float64Array(0));
      this.pool.rows[k] = buffer;
    }
    const view = buffer.length === n ? buffer : buffer.subarray(0, n);
    this.rowViews[k] = view;
    if (this.poisoned) view.fill(NaN);
    return view;
  }

  /** Iterations per chunk of a `fixed` `par` call (CompileOptions.chunkLength). */
  chunkLength = DEFAULT_CHUNK_LENGTH;

  /**
   * A `par` call on this back end: never forked, so left to main, which runs its chunks here by
   * direct calls (false). The multicore back end's runtime overrides it to share the chunks with
   * its workers when the work is worth a fork.
   */
  par(_c: number, _fn: number, _extent: number, _work: number, _fixed: boolean, _args: readonly (TypedArray | number)[]): boolean {
    return false;
  }

  /** Cluster `c`'s per-chunk partials: pooled (shared when the pool is), grown when asked for more. */
  partials(c: number, n: number): Float64Array {
    const have = this.pool.partials[c];
    if (have !== undefined && have.length >= n) return have;
    if (!(n <= MAX_ARRAY_ELEMENTS)) allocate('f64', n);
    // Grown to at least twice the last size: a loop whose extent creeps up does not reallocate every iteration.
    const length = Math.max(n, 2 * (have?.length ?? 0));
    const made = new Float64Array(newBuffer(8 * length, this.pool.shared));
    this.pool.bytes += made.byteLength - (have?.byteLength ?? 0);
    this.poolAllocated += made.byteLength;
    this.pool.partials[c] = made;
    return made;
  }

  /**
   * The cluster whose call is under way (`tables.clusterCount` between calls): where the
   * counters variant's counts go. Cluster calls do not nest (a `while` body calls its clusters
   * one after another).
   */
  private current: number;
  /** Where the counts of the current cluster row start in `record.data` (`count` adds the slot). */
  private base = 0;
  /** The counters variant's per-call state: per slot, the counts when the call under way entered, and the length of its array. */
  private readonly entered: Float64Array;
  private readonly lengths: Float64Array;
  /** Per slot, its (array, read or write) group, and per group its element size and the call's sum. */
  private readonly groupOf: Int32Array;
  private readonly groupBytes: Float64Array;
  private readonly groupSums: Float64Array;

  count(slot: number, value: number, length: number): number {
    this.record.data[this.base + slot]! += 1;
    this.lengths[slot] = length;
    return value;
  }

  /** Makes cluster row `c` the one counted into (`c` = clusters: outside every cluster). */
  private countInto(c: number): void {
    const r = this.record;
    this.current = c;
    this.base = r.clusterCountsAt + c * r.slots;
  }

  /**
   * At the end of a counted cluster call: the bytes it moved at least, added to its record. Per
   * array, reads (in every order) and writes each count at most the array's length: an element
   * read by 27 neighbours of a stencil is moved from memory once, if the caches keep it.
   */
  private settleCall(c: number): void {
    const r = this.record;
    const row = r.data;
    const at = r.clusterCountsAt + c * r.slots;
    const entered = this.entered;
    const sums = this.groupSums;
    let bytes = 0;
    for (let k = 0; k < entered.length; k++) {
      const n = row[at + k]! - entered[k]!;
      if (n !== 0) sums[this.groupOf[k]!]! += n;
    }
    for (let k = 0; k < entered.length; k++) {
      if (row[at + k]! === entered[k]!) continue;
      const g = this.groupOf[k]!;
      // The first slot of a group seen settles it (every slot of a group has its array's length).
      if (sums[g]! > 0) {
        bytes += Math.min(sums[g]!, this.lengths[k]!) * this.groupBytes[g]!;
        sums[g] = 0;
      }
    }
    r.data[r.memoryAt + c]! += bytes;
  }

  ops(float: number, int: number, value: number): number {
    const r = this.record;
    r.data[r.opsAt + 2 * this.current]! += float;
    r.data[r.opsAt + 2 * this.current + 1]! += int;
    return value;
  }

  point(): void {
    this.record.data[this.record.pointsAt + this.current]! += 1;
  }

  enter(c: number): void {
    const r = this.record;
    if (r.slots > 0) {
      this.countInto(c);
      // The call's counts are the row's growth from here (`settleCall`).
      this.entered.set(r.data.subarray(this.base, this.base + r.slots));
    } else this.current = c;
    if (this.timing) this.started[c] = performance.now();
  }

  leave(c: number): void {
    const r = this.record;
    if (this.timing) r.data[r.msAt + c]! += performance.now() - this.started[c]!;
    r.data[r.callsAt + c]! += 1;
    if (r.slots > 0) this.settleCall(c);
    this.countInto(r.clusters);
  }
}

/** Builds a helper object (tests; the executor keeps one per compiled variant and resets it per run). */
export function makeRuntime(
  tables: RuntimeTables,
  file: SourceFile | undefined,
  maxWhileIterations: number,
  record: RunRecord,
  pool: Pool = new Pool([]),
  poisoned = false,
): Runtime {
  return new Runtime(tables, file, maxWhileIterations, record, pool, poisoned);
}
