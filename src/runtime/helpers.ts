// The `rt` object generated code calls: the errors of its inline checks (an index out of range,
// a division by zero), integer powers, allocation with a record, counters and per-cluster
// timing. Hot loops never call it on their common path (see codegen/scalar.ts). What it must
// offer is codegen's `RuntimeHelpers` interface, which `Runtime` implements: a helper renamed or
// removed here, or there, fails to compile.
//
// Every error generated code raises goes through here, by site number, and comes out as the
// UserError the reference interpreter raises for the same fault: same code, same wording, the
// user's span. The helpers are plain closures over one run's state (no module-level state).

import { CompilerBug, type SourceFile, userError } from '../diagnostics/index.js';
import type { AllocationSite, CounterSlot, ErrorSite, RuntimeHelpers } from '../codegen/index.js';
import { ScalarDivisionByZero, allocate, binary, elementBytes } from '../ir/scalarOps.js';
import type { ScalarType } from '../ir/types.js';
import type { TypedArray } from '../ir/scalarOps.js';

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
 * Per allocation site (the index generated code passes to `alloc` / `copy`): times, elements
 * and the largest allocation in elements. Fixed-size arrays: a run that loops forever records
 * no more than one that does not loop (issue 9, H3: a list with an entry per allocation grew by
 * gigabytes in a `while` loop).
 */
export interface AllocationCounts {
  readonly count: Float64Array;
  readonly elements: Float64Array;
  readonly largest: Float64Array;
}

export function allocationCounts(sites: number): AllocationCounts {
  return { count: new Float64Array(sites), elements: new Float64Array(sites), largest: new Float64Array(sites) };
}

/** The record of every site that allocated, in site order. */
export function allocationsOf(sites: readonly AllocationSite[], counts: AllocationCounts): Allocation[] {
  const out: Allocation[] = [];
  sites.forEach((site, k) => {
    const count = counts.count[k]!;
    if (count === 0) return;
    const bytes = elementBytes(site.elem);
    out.push({ array: site.array, count, elements: counts.elements[k]!, bytes: counts.elements[k]! * bytes, largestBytes: counts.largest[k]! * bytes });
  });
  return out;
}

/** What one run records besides its results: all of it fixed-size, whatever the run does. */
export interface RunRecord {
  readonly allocations: AllocationCounts;
  readonly clusterMs: number[];
  readonly clusterCalls: number[];
  /** Per counter slot: elements read or written. */
  readonly counts: Float64Array;
}

export interface RuntimeTables {
  readonly sites: readonly ErrorSite[];
  readonly slots: readonly CounterSlot[];
  readonly allocations: readonly AllocationSite[];
  readonly clusterCount: number;
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
  private readonly started: number[];

  constructor(
    private readonly tables: RuntimeTables,
    private readonly file: SourceFile | undefined,
    readonly maxWhileIterations: number,
    private readonly record: RunRecord,
  ) {
    this.started = new Array<number>(tables.clusterCount).fill(0);
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
    const c = this.record.allocations;
    c.count[k]! += 1;
    c.elements[k]! += n;
    if (n > c.largest[k]!) c.largest[k] = n;
  }

  alloc(k: number, n: number): TypedArray {
    this.recordAllocation(k, n);
    return allocate(this.tables.allocations[k]!.elem, n);
  }

  copy(k: number, data: TypedArray): TypedArray {
    this.recordAllocation(k, data.length);
    const out = allocate(this.tables.allocations[k]!.elem, data.length);
    out.set(data);
    return out;
  }

  /**
   * A row buffer for a fold over a fused scanr (see codegen/cluster.ts): one row of a
   * fused-away array, not an array of the program, so not an allocation in the record.
   * Float64 holds every element type exactly.
   */
  scratch(n: number): Float64Array {
    return new Float64Array(n);
  }

  count(slot: number, value: number): number {
    this.record.counts[slot]! += 1;
    return value;
  }

  enter(c: number): void {
    this.started[c] = performance.now();
  }

  leave(c: number): void {
    this.record.clusterMs[c]! += performance.now() - this.started[c]!;
    this.record.clusterCalls[c]! += 1;
  }
}

/** Builds the helper object for one run. */
export function makeRuntime(tables: RuntimeTables, file: SourceFile | undefined, maxWhileIterations: number, record: RunRecord): Runtime {
  return new Runtime(tables, file, maxWhileIterations, record);
}
