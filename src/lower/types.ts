// Types during lowering: element types and ranks that may still be unknown.
//
// An unannotated entry parameter starts with a type variable for its element type and one for
// its rank; uses of the parameter solve them by unification (gather indices are i32, `x * 2.0`
// makes x f64, fold lowers the rank by one). Lowering runs twice when anything is unknown: a
// first run over these variables to infer the entry's signature, and a second, fully concrete
// run that produces the Program. In the second run no variable is ever created, so every type
// that reaches the IR is concrete.
//
// The solver state (`Infer`) is owned by one lowering run; nothing here is module-level.

import type { ScalarType } from '../ir/types.js';
import { isFloat, isInteger } from '../ir/scalarOps.js';

/** A type variable: an element type (scalar or tuple) not known yet. */
export interface TVar {
  readonly kind: 'tvar';
  readonly id: number;
}

/** A scalar element type or a variable standing for one. */
export type STy = ScalarType | TVar;

/** An element type tree: a scalar, a variable, or a tuple of element types. */
export type ETy = STy | readonly ETy[];

/** A rank: a constant (`v === null`) or a rank variable plus an offset (`fold` subtracts 1). */
export interface Rank {
  readonly v: number | null;
  readonly k: number;
}

export const rankOf = (n: number): Rank => ({ v: null, k: n });

export function isTuple(t: ETy): t is readonly ETy[] {
  return Array.isArray(t);
}

/** Why two types could not be unified; the caller turns it into a diagnostic with a span. */
export class TypeClash extends Error {
  constructor(
    readonly expected: string,
    readonly found: string,
  ) {
    super(`expected ${expected}, found ${found}`);
  }
}

interface TVarState {
  binding: ETy | undefined;
  /** Committed to be a scalar (not a tuple), though its scalar type is still unknown. */
  leaf: boolean;
}

interface RankVarState {
  binding: Rank | undefined;
  /** The smallest value the constraints seen so far allow. */
  lower: number;
}

/** A copy of the solver's variables (see `Infer.snapshot`). */
export interface InferSnapshot {
  readonly tvars: readonly Readonly<TVarState>[];
  readonly rvars: readonly Readonly<RankVarState>[];
}

/** Union-find over element-type and rank variables, owned by one lowering run. */
export class Infer {
  private readonly tvars: TVarState[] = [];
  private readonly rvars: RankVarState[] = [];

  /**
   * The solver's state, to undo what a discarded attempt at lowering a loop body unified (an
   * attempt under assumptions that turned out wrong must not constrain the entry's types).
   */
  snapshot(): InferSnapshot {
    return {
      tvars: this.tvars.map((t) => ({ ...t })),
      rvars: this.rvars.map((r) => ({ ...r })),
    };
  }

  restore(s: InferSnapshot): void {
    this.tvars.splice(0, this.tvars.length, ...s.tvars.map((t) => ({ ...t })));
    this.rvars.splice(0, this.rvars.length, ...s.rvars.map((r) => ({ ...r })));
  }

  freshElem(): TVar {
    this.tvars.push({ binding: undefined, leaf: false });
    return { kind: 'tvar', id: this.tvars.length - 1 };
  }

  freshRank(): Rank {
    this.rvars.push({ binding: undefined, lower: 0 });
    return { v: this.rvars.length - 1, k: 0 };
  }

  /** Follows bindings until a concrete type, a tuple or an unbound variable. */
  prune(t: ETy): ETy {
    let cur = t;
    while (!isTuple(cur) && typeof cur !== 'string') {
      const b = this.tvars[cur.id]!.binding;
      if (b === undefined) return cur;
      cur = b;
    }
    return cur;
  }

  /** Fully resolved copy of a type (variables left where unbound). */
  zonk(t: ETy): ETy {
    const p = this.prune(t);
    return isTuple(p) ? p.map((e) => this.zonk(e)) : p;
  }

  /** Commits a type to be a scalar (an unbound variable can no longer become a tuple). */
  leaf(t: ETy): STy {
    const p = this.prune(t);
    if (isTuple(p)) throw new TypeClash('a scalar', this.show(p));
    if (typeof p !== 'string') this.tvars[p.id]!.leaf = true;
    return p;
  }

  unify(a: ETy, b: ETy): void {
    const pa = this.prune(a);
    const pb = this.prune(b);
    if (!isTuple(pa) && typeof pa !== 'string') return this.bindVar(pa, pb);
    if (!isTuple(pb) && typeof pb !== 'string') return this.bindVar(pb, pa);
    if (isTuple(pa) && isTuple(pb) && pa.length === pb.length) {
      pa.forEach((e, i) => this.unify(e, pb[i]!));
      return;
    }
    if (pa !== pb) throw new TypeClash(this.show(pa), this.show(pb));
  }

  private bindVar(v: TVar, t: ETy): void {
    if (!isTuple(t) && typeof t !== 'string' && t.id === v.id) return;
    const state = this.tvars[v.id]!;
    if (state.leaf && isTuple(t)) throw new TypeClash('a scalar', this.show(t));
    if (this.occurs(v.id, t)) throw new TypeClash(this.show(v), this.show(t));
    state.binding = t;
    if (state.leaf && !isTuple(t) && typeof t !== 'string') this.tvars[t.id]!.leaf = true;
  }

  private occurs(id: number, t: ETy): boolean {
    const p = this.prune(t);
    if (isTuple(p)) return p.some((e) => this.occurs(id, e));
    return typeof p !== 'string' && p.id === id;
  }

  pruneRank(r: Rank): Rank {
    let cur = r;
    while (cur.v !== null) {
      const b = this.rvars[cur.v]!.binding;
      if (b === undefined) return cur;
      cur = { v: b.v, k: b.k + cur.k };
    }
    return cur;
  }

  /** Requires `r >= n`. */
  rankAtLeast(r: Rank, n: number): void {
    const p = this.pruneRank(r);
    if (p.v === null) {
      if (p.k < n) throw new TypeClash(`rank at least ${n}`, `rank ${p.k}`);
      return;
    }
    const st = this.rvars[p.v]!;
    st.lower = Math.max(st.lower, n - p.k);
  }

  unifyRank(a: Rank, b: Rank): void {
    const pa = this.pruneRank(a);
    const pb = this.pruneRank(b);
    if (pa.v !== null && pb.v !== null && pa.v === pb.v) {
      if (pa.k !== pb.k) throw new TypeClash(this.showRank(pa), this.showRank(pb));
      return;
    }
    if (pa.v !== null) return this.bindRank(pa, pb);
    if (pb.v !== null) return this.bindRank(pb, pa);
    if (pa.k !== pb.k) throw new TypeClash(`rank ${pa.k}`, `rank ${pb.k}`);
  }

  /** Binds the variable of `a` (unbound, pruned) so that a = b. */
  private bindRank(a: Rank, b: Rank): void {
    const st = this.rvars[a.v!]!;
    const target: Rank = { v: b.v, k: b.k - a.k };
    if (target.v === null) {
      if (target.k < st.lower) throw new TypeClash(`rank at least ${st.lower + a.k}`, `rank ${b.k}`);
    } else {
      const other = this.rvars[target.v]!;
      other.lower = Math.max(other.lower, st.lower - target.k);
    }
    st.binding = target;
  }

  /** The rank as a number, committing an unknown rank to its smallest allowed value (at least 1). */
  concreteRank(r: Rank): number {
    const p = this.pruneRank(r);
    if (p.v === null) return p.k;
    const st = this.rvars[p.v]!;
    const value = Math.max(1, st.lower);
    st.binding = { v: null, k: value };
    return value + p.k;
  }

  /**
   * The rank as a number without committing anything: an unknown rank reads as its smallest
   * allowed value. Only the inference run sees unknown ranks, and its IR is discarded.
   */
  peekRank(r: Rank): number {
    const p = this.pruneRank(r);
    return p.v === null ? p.k : Math.max(1, this.rvars[p.v]!.lower) + p.k;
  }

  /** The concrete scalar type, or f64 for a variable nobody constrained. */
  defaultScalar(t: STy): ScalarType {
    const p = this.prune(t);
    if (isTuple(p)) throw new TypeClash('a scalar', this.show(p));
    return typeof p === 'string' ? p : 'f64';
  }

  /** The element type with every unknown scalar defaulted to f64. */
  defaultElem(t: ETy): ElemType {
    const p = this.prune(t);
    if (isTuple(p)) return p.map((e) => this.defaultElem(e));
    return typeof p === 'string' ? p : 'f64';
  }

  show(t: ETy): string {
    const p = this.prune(t);
    if (isTuple(p)) return `(${p.map((e) => this.show(e)).join(', ')})`;
    return typeof p === 'string' ? p : `?${p.id}`;
  }

  showRank(r: Rank): string {
    const p = this.pruneRank(r);
    return p.v === null ? `rank ${p.k}` : 'an unknown rank';
  }
}

/** A concrete element type: a scalar or a tuple of them. */
export type ElemType = ScalarType | readonly ElemType[];

/** The scalar leaves of a concrete element type, in order. */
export function elemLeaves(t: ElemType): ScalarType[] {
  return typeof t === 'string' ? [t] : t.flatMap(elemLeaves);
}

export function showElem(t: ElemType): string {
  return typeof t === 'string' ? t : `(${t.map(showElem).join(', ')})`;
}

export function showArrayType(elem: string, rank: number): string {
  return rank === 0 ? `${elem}[]` : `${elem}[${Array.from({ length: rank }, () => '_').join(', ')}]`;
}

/**
 * The operand type of a binary arithmetic operation on two concrete scalar types (Python-like
 * promotion: integer with float gives the float type; f32 with f64 gives f64), or undefined when
 * they do not mix (bool with a number, i32 with u32).
 */
export function promote(a: ScalarType, b: ScalarType): ScalarType | undefined {
  if (a === b) return a;
  if (isFloat(a) && isFloat(b)) return 'f64';
  if (isFloat(a) && isInteger(b)) return a;
  if (isInteger(a) && isFloat(b)) return b;
  return undefined;
}
