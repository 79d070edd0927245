// What the parallel variant of the module (GenerateOptions.parallel) may do with a combine
// operator, read off the lambda's structure.
//
// A work function runs a chunk of its cluster's loop, so the operator of a fold or scan carried
// along that loop is applied in another grouping (each chunk from its first element, the partials
// combined in chunk order on the calling thread), and a scatter's updates to one destination may
// come from several threads at once. Both are exact only for some operators:
// - folds and scans: a component-wise operator that associates (and commutes: a right scan
//   applies it with the carry on the right) — `+`, `*`, `min`, `max` on numbers, `&`, `|`, `^`
//   on i32/u32, `and`, `or` on bool. Integers (wrapping) and bools are exact; floats `+` and `*` are regrouped (the float
//   policy of docs/EXECUTION.md "Threads": a function of the chunk length, never of the thread
//   count). Any other lambda (`lam a, x: a * 2 + x`) keeps its cluster serial.
// - scatters: an integer combine that an `Atomics` operation performs on the destination
//   (i32/u32 `old + new`, `old - new`, which wrap as the typed array stores them; bool `and`,
//   `or` on the Uint8Array of 0/1), or i32/u32 `min`/`max` by a compare-exchange loop (no
//   `Atomics.min` exists), applied in any order with the sequential result.

import { CompilerBug } from '../diagnostics/index.js';
import type { BinaryOp, Expr, Lambda, ScalarType, ScatterNode } from '../ir/types.js';
import { integerRange } from '../ir/scalarOps.js';

/** The `Atomics` method of each component's update (`min`, `max`: a compare-exchange loop), or null when one has none. */
export function atomicOps(n: ScatterNode, elems: readonly ScalarType[]): string[] | null {
  const m = elems.length;
  if (n.op.params.length !== 2 * m || n.op.lets.length !== 0 || n.op.results.length !== m) return null;
  const ops: string[] = [];
  for (let k = 0; k < m; k++) {
    const op = componentOp(n.op, k, m);
    const t = elems[k]!;
    if (op === null) return null;
    const { binary, swapped } = op;
    // Atomics on a Uint8Array or Int8Array wrap modulo 2^8, as u8 and i8 arithmetic does.
    const integer = t === 'i32' || t === 'u32' || t === 'u8' || t === 'i8';
    if (integer && binary === '+') ops.push('add');
    else if (integer && binary === '-' && !swapped) ops.push('sub');
    else if (integer && (binary === 'min' || binary === 'max')) ops.push(binary);
    else if (integer && (binary === '&' || binary === '|' || binary === '^')) ops.push(atomicBitOps[binary]);
    else if (t === 'bool' && binary === 'and') ops.push('and');
    else if (t === 'bool' && binary === 'or') ops.push('or');
    else return null;
  }
  return ops;
}

const atomicBitOps = { '&': 'and', '|': 'or', '^': 'xor' } as const;

/** Whether a fold's or scan's operator is component-wise and associative (see the header). */
export function associativeOp(lam: Lambda, elems: readonly ScalarType[]): boolean {
  const m = elems.length;
  if (lam.params.length !== 2 * m || lam.lets.length !== 0 || lam.results.length !== m) return false;
  for (let k = 0; k < m; k++) {
    const op = componentOp(lam, k, m);
    const t = elems[k]!;
    if (op === null) return false;
    const numeric = t !== 'bool' && (op.binary === '+' || op.binary === '*' || op.binary === 'min' || op.binary === 'max');
    const logical = t === 'bool' && (op.binary === 'and' || op.binary === 'or');
    const bits = t !== 'bool' && t !== 'f64' && t !== 'f32' && (op.binary === '&' || op.binary === '|' || op.binary === '^');
    if (!numeric && !logical && !bits) return false;
  }
  return true;
}

/**
 * Result `k` as `param[k] op param[m + k]` (or `swapped`: the other way round), its operand type
 * the component's; null for any other shape.
 */
function componentOp(lam: Lambda, k: number, m: number): { readonly binary: BinaryOp; readonly swapped: boolean } | null {
  const r: Expr = lam.results[k]!;
  if (r.kind !== 'binary' || r.lhs.kind !== 'var' || r.rhs.kind !== 'var') return null;
  const left = lam.params[k]!;
  const right = lam.params[m + k]!;
  if (left.type !== right.type || r.lhs.type !== left.type || r.rhs.type !== left.type) return null;
  if (r.lhs.name === left.name && r.rhs.name === right.name) return { binary: r.op, swapped: false };
  if (r.lhs.name === right.name && r.rhs.name === left.name) return { binary: r.op, swapped: true };
  return null;
}

/**
 * The exact identity of each component of an operator `associativeOp` accepts: `op(e, x)` is `x`
 * bit for bit for every x of the type (-0 for float `+`: `-0 + 0` is `0`, `0 + -0` would not be
 * `-0`), so a chunk's accumulator may start from it instead of from the chunk's first element.
 */
export function identities(lam: Lambda, elems: readonly ScalarType[]): number[] {
  return elems.map((t, k) => {
    const op = componentOp(lam, k, elems.length);
    if (op === null) throw new CompilerBug('codegen', `component ${k} of a chunked operator is not a binary operation of its parameters`);
    const float = t === 'f64' || t === 'f32';
    switch (op.binary) {
      case '+':
        return float ? -0 : 0;
      case '*':
        return 1;
      case 'min':
        return float ? Infinity : t === 'bool' ? 1 : integerRange(t)[1];
      case 'max':
        return float ? -Infinity : t === 'bool' ? 0 : integerRange(t)[0];
      case 'and':
        return 1;
      case 'or':
      case '|':
      case '^':
        return 0;
      case '&':
        return t === 'u32' ? 4294967295 : t === 'u8' ? 255 : -1;
      default:
        throw new CompilerBug('codegen', `no identity for ${op.binary}`);
    }
  });
}
