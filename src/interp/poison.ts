// Poison: how the reference interpreter gives run-time faults their meaning under fusion.
//
// A fault in one element (integer division by zero, an index out of range) counts only if that
// element is demanded: if its value reaches an observation (a program result, a scalar result,
// an `if`/`while` condition, a size, a scatter index). Fused code legitimately never computes
// elements nobody reads, so this is the only definition every strategy can agree on.
//
// The interpreter computes every element, so it must not throw where the fault happens: the
// faulting evaluation records a Fault (its diagnostic and its place in evaluation order) and
// yields a poisoned value; whatever is computed from a poisoned value is poisoned with the
// earliest of its operands' faults; an observation of a poisoned value throws that fault's
// diagnostic. Poison lives in side tables keyed by the value objects, empty when nothing
// faulted, so a run without faults pays one failed WeakMap lookup per array per combinator.

import type { UserError } from '../diagnostics/index.js';
import type { ArrayValue, RuntimeValue, ScalarValue } from '../ir/values.js';

/** One recorded fault: its diagnostic, and when it happened (program order, then element order). */
export interface Fault {
  readonly order: number;
  readonly error: UserError;
}

/** The earlier of two faults (null: no fault). */
export function earlier(a: Fault | null, b: Fault | null): Fault | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.order <= b.order ? a : b;
}

/** The poisoned elements of one array, by flat offset. */
type ArrayPoison = Map<number, Fault>;

/** Every fault of one run, and which values they poisoned. */
export class FaultLog {
  private count = 0;
  /** Whether any value of the run was ever poisoned: while not, every query is one test. */
  private poisoned = false;
  private readonly arrays = new WeakMap<ArrayValue, ArrayPoison>();
  /**
   * Arrays broken as a whole (a scatter whose index faulted or was out of range, and every
   * array built from one): the fault belongs to the array itself, not only to its elements, so
   * observing the array fails even when it has no elements (its size is still known).
   */
  private readonly broken = new WeakMap<ArrayValue, Fault>();
  private readonly scalars = new WeakMap<ScalarValue, Fault>();

  /** Records a fault that just happened; later faults compare as later. */
  record(error: UserError): Fault {
    this.poisoned = true;
    return { order: this.count++, error };
  }

  /** The poison table of an array, undefined when none of its elements is poisoned. */
  poisonOf(a: ArrayValue): ReadonlyMap<number, Fault> | undefined {
    return this.arrays.get(a);
  }

  /** Whether any value of the run has been poisoned so far. */
  get any(): boolean {
    return this.poisoned;
  }

  elementFault(a: ArrayValue, flat: number): Fault | null {
    if (!this.poisoned) return null;
    return earlier(this.arrays.get(a)?.get(flat) ?? null, this.broken.get(a) ?? null);
  }

  /** The fault an array is broken by as a whole, or null. */
  brokenBy(a: ArrayValue): Fault | null {
    if (!this.poisoned) return null;
    return this.broken.get(a) ?? null;
  }

  /** Breaks an array as a whole (keeping the earliest fault), with null a no-op. */
  breakArray(a: ArrayValue, fault: Fault | null): void {
    if (fault === null) return;
    this.poisoned = true;
    this.broken.set(a, earlier(this.broken.get(a) ?? null, fault)!);
  }

  /** Sets (or, with null, clears) the poison of one element. */
  setElement(a: ArrayValue, flat: number, fault: Fault | null): void {
    if (fault === null) {
      if (this.poisoned) this.arrays.get(a)?.delete(flat);
      return;
    }
    this.poisoned = true;
    let table = this.arrays.get(a);
    if (table === undefined) {
      table = new Map();
      this.arrays.set(a, table);
    }
    table.set(flat, fault);
  }

  /** Gives `to` the poison of `from`, element for element (a copy of an array). */
  copyPoison(from: ArrayValue, to: ArrayValue): void {
    if (!this.poisoned) return;
    const table = this.arrays.get(from);
    if (table !== undefined && table.size > 0) this.arrays.set(to, new Map(table));
    this.breakArray(to, this.brokenBy(from));
  }

  scalarFault(v: ScalarValue): Fault | null {
    if (!this.poisoned) return null;
    return this.scalars.get(v) ?? null;
  }

  setScalar(v: ScalarValue, fault: Fault | null): void {
    if (fault === null) return;
    this.poisoned = true;
    this.scalars.set(v, fault);
  }

  /** The earliest fault anywhere in a value (any element of an array). */
  valueFault(v: RuntimeValue): Fault | null {
    if (v.kind === 'scalar') return this.scalarFault(v);
    if (!this.poisoned) return null;
    let first: Fault | null = this.broken.get(v) ?? null;
    for (const fault of this.arrays.get(v)?.values() ?? []) first = earlier(first, fault);
    return first;
  }
}

/** An observation: a poisoned value reaching it raises its fault's diagnostic. */
export function observe(fault: Fault | null): void {
  if (fault !== null) throw fault.error;
}
