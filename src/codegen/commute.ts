// Expressions equal up to the order of the operands of commutative operations, written alike.
//
// Programs state the same value with its operands in either order: LULESH's force loop sums
// pairs of corner coordinates (`(x248 + x255)`, later `(x255 + x248)`), 288 pair sums of
// which 36 are distinct. V8's value numbering merges equal operations only when their operands
// come in the same order, and `shareValues` compared `const`s by their text, so each order was
// computed on its own. Here every commutative operation whose operands may trade places takes
// the order in which the function first wrote it (so code without mirrored repeats prints as
// before), and `ExprKeys` names each expression by its value up to that order, for sharing.
//
// Commutative, bit for bit, on the numbers generated code computes (IEEE 754 and ECMAScript):
// `a + b` and `a * b` (also for ±0, ±∞ and NaN: +0 + −0 is +0 in either order, ∞ · 0 is NaN;
// only which NaN payload survives two NaN operands may depend on the order, and values are
// compared with `Object.is`, where all NaNs are one); `a & b`, `a | b`, `a ^ b`, `Math.imul`;
// `Math.min` and `Math.max` of two numbers (NaN if either is NaN, and +0 counts as larger than
// −0 whichever comes first). Never reordered: `-`, `/`, `%`, shifts, comparisons (`a < b` is not
// `b < a`), `&&`/`||` (they short-circuit), and `===`/`!==` (bounds checks keep their shape).
// Operands trade places only when both can be evaluated in either order without a difference:
// no call but `Math`'s, no temporary assigned (`set`, `seq`), so no fault moves ahead of another.
// An operand that is a number literal keeps its place (`0.5 * x` and `x | 0` stay as written).

import type { JsExpr } from './jsast.js';

const commutativeBinary: ReadonlySet<string> = new Set(['+', '*', '&', '|', '^']);
const commutativeMath: ReadonlySet<string> = new Set(['min', 'max', 'imul']);

/** Whether `e` may be evaluated before or after another such expression with the same result. */
export function reorderable(e: JsExpr): boolean {
  switch (e.kind) {
    case 'num':
    case 'id':
      return true;
    case 'binary':
      return reorderable(e.lhs) && reorderable(e.rhs);
    case 'unary':
      return reorderable(e.arg);
    case 'cond':
      return reorderable(e.test) && reorderable(e.then) && reorderable(e.else);
    case 'call':
      return isMathCall(e) && e.args.every(reorderable);
    case 'member':
      return reorderable(e.object);
    case 'index':
      return reorderable(e.object) && reorderable(e.index);
    case 'array':
      return e.elems.every(reorderable);
    case 'set':
    case 'seq':
      return false;
    default:
      return e satisfies never;
  }
}

function isMathCall(e: JsExpr & { readonly kind: 'call' }): boolean {
  return e.callee.kind === 'member' && e.callee.object.kind === 'id' && e.callee.object.name === 'Math';
}

/** A number's key: `-0` and `0` differ (JSON and `String` print both as `0`). */
function numberKey(value: number): string {
  return Object.is(value, -0) ? '-0' : String(value);
}

/**
 * Keys of expressions and the operand order chosen for each commutative value. Equal keys mean
 * equal values: the same expression up to the order of commutative operands. One instance per
 * generated function: keys are interned numbers, so a key costs O(1) per node.
 */
export class ExprKeys {
  private readonly ids = new Map<string, number>();
  /** For each commutative value's key, the key of the operand written first when first met. */
  private readonly firstOperand = new Map<number, number>();

  private intern(text: string): number {
    let id = this.ids.get(text);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(text, id);
    }
    return id;
  }

  /** `e` with each commutative operation's operands in the order first met for its value, and its key. */
  orient(e: JsExpr): { readonly expr: JsExpr; readonly key: number } {
    const go = (x: JsExpr) => this.orient(x);
    const keyed = (expr: JsExpr, text: string) => ({ expr, key: this.intern(text) });
    switch (e.kind) {
      case 'num':
        return keyed(e, `n${numberKey(e.value)}`);
      case 'id':
        return keyed(e, `i${e.name}`);
      case 'binary': {
        const lhs = go(e.lhs);
        const rhs = go(e.rhs);
        if (commutativeBinary.has(e.op)) {
          const [a, b] = this.order(`b${e.op}`, lhs, rhs);
          return { expr: { ...e, lhs: a.expr, rhs: b.expr }, key: this.pairKey(`b${e.op}`, lhs.key, rhs.key, lhs.expr, rhs.expr) };
        }
        return keyed({ ...e, lhs: lhs.expr, rhs: rhs.expr }, `b${e.op}(${lhs.key},${rhs.key})`);
      }
      case 'unary': {
        const arg = go(e.arg);
        return keyed({ ...e, arg: arg.expr }, `u${e.op}(${arg.key})`);
      }
      case 'cond': {
        const [test, then, otherwise] = [go(e.test), go(e.then), go(e.else)];
        return keyed({ ...e, test: test.expr, then: then.expr, else: otherwise.expr }, `?(${test.key},${then.key},${otherwise.key})`);
      }
      case 'call': {
        const callee = go(e.callee);
        const args = e.args.map(go);
        if (isMathCall(e) && e.callee.kind === 'member' && commutativeMath.has(e.callee.prop) && args.length === 2) {
          const tag = `m${e.callee.prop}`;
          const [a, b] = this.order(tag, args[0]!, args[1]!);
          return { expr: { ...e, args: [a.expr, b.expr] }, key: this.pairKey(tag, args[0]!.key, args[1]!.key, args[0]!.expr, args[1]!.expr) };
        }
        return keyed({ ...e, callee: callee.expr, args: args.map((a) => a.expr) }, `c(${callee.key};${args.map((a) => a.key).join(',')})`);
      }
      case 'member': {
        const object = go(e.object);
        return keyed({ ...e, object: object.expr }, `.(${object.key}).${e.prop}`);
      }
      case 'index': {
        const [object, ix] = [go(e.object), go(e.index)];
        return keyed({ ...e, object: object.expr, index: ix.expr }, `[(${object.key},${ix.key})`);
      }
      case 'array': {
        const elems = e.elems.map(go);
        return keyed({ ...e, elems: elems.map((a) => a.expr) }, `a(${elems.map((a) => a.key).join(',')})`);
      }
      case 'set': {
        const value = go(e.value);
        return keyed({ ...e, value: value.expr }, `=${e.name}(${value.key})`);
      }
      case 'seq': {
        const [first, then] = [go(e.first), go(e.then)];
        return keyed({ ...e, first: first.expr, then: then.expr }, `,(${first.key},${then.key})`);
      }
      default:
        return e satisfies never;
    }
  }

  /** Whether the operands of a commutative operation may trade places. */
  private static swappable(a: JsExpr, b: JsExpr): boolean {
    return a.kind !== 'num' && b.kind !== 'num' && reorderable(a) && reorderable(b);
  }

  /** The key of a commutative operation: unordered when its operands may trade places. */
  private pairKey(tag: string, ka: number, kb: number, a: JsExpr, b: JsExpr): number {
    if (!ExprKeys.swappable(a, b)) return this.intern(`${tag}(${ka},${kb})`);
    return this.intern(`${tag}{${Math.min(ka, kb)},${Math.max(ka, kb)}}`);
  }

  /** The operands in the order first met for this value (recorded now if it is the first). */
  private order<T extends { readonly expr: JsExpr; readonly key: number }>(tag: string, a: T, b: T): readonly [T, T] {
    if (a.key === b.key || !ExprKeys.swappable(a.expr, b.expr)) return [a, b];
    const value = this.pairKey(tag, a.key, b.key, a.expr, b.expr);
    const first = this.firstOperand.get(value);
    if (first === undefined) {
      this.firstOperand.set(value, a.key);
      return [a, b];
    }
    return first === a.key ? [a, b] : [b, a];
  }
}
