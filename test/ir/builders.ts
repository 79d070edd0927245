// Small helpers to build core IR by hand in tests (shared by every stage's tests).
//
// Expressions take their type from their operands where the IR's rules fix it (binary results
// follow scalarOps' binaryResultType); nodes get their ids from a counter owned by one
// `nodes()` builder, so a test never has to number them by hand and ids stay unique.
//
//   const n = nodes();
//   const prog = program('double', [arrayParam('xs', 'f64', 1)], [
//     n.map([arr('ys', 'f64', 1)], ['xs'], lam([['x', 'f64']], bin('*', v('x', 'f64'), f64(2)))),
//   ], ['ys']);

import { binaryResultType } from '../../src/ir/scalarOps.js';
import type {
  ArrayVar,
  BinaryExpr,
  BinaryOp,
  Block,
  CallExpr,
  CastExpr,
  CombinatorNode,
  ConstExpr,
  DimExpr,
  Expr,
  FoldNode,
  ForceNode,
  GatherNode,
  GenerateNode,
  IfNode,
  IndexExpr,
  Interface,
  Lambda,
  Let,
  MapNode,
  MathFn,
  NodeId,
  Program,
  ScalarStmt,
  ScalarType,
  ScanlNode,
  ScanrNode,
  ScatterNode,
  SelectExpr,
  Stmt,
  UnaryExpr,
  UnaryOp,
  Value,
  VarExpr,
  WhileNode,
} from '../../src/ir/types.js';
import type { Span } from '../../src/diagnostics/index.js';
import type { ArrayValue, ScalarValue } from '../../src/ir/values.js';
import { allocate } from '../../src/ir/scalarOps.js';

export const span0: Span = { start: 0, end: 0 };
export function sp(start: number, end: number = start + 1): Span {
  return { start, end };
}

// ---- expressions ---------------------------------------------------------------------------

export function c(type: ScalarType, value: number, span?: Span): ConstExpr {
  return span === undefined ? { kind: 'const', type, value } : { kind: 'const', type, value, span };
}
export const f64 = (x: number): ConstExpr => c('f64', x);
export const f32 = (x: number): ConstExpr => c('f32', Math.fround(x));
export const i32 = (x: number): ConstExpr => c('i32', x | 0);
export const u32 = (x: number): ConstExpr => c('u32', x >>> 0);
export const bool = (x: boolean): ConstExpr => c('bool', x ? 1 : 0);

export function v(name: string, type: ScalarType): VarExpr {
  return { kind: 'var', name, type };
}
export function bin(op: BinaryOp, lhs: Expr, rhs: Expr, span?: Span): BinaryExpr {
  const e: BinaryExpr = { kind: 'binary', op, lhs, rhs, type: binaryResultType(op, lhs.type) };
  return span === undefined ? e : { ...e, span };
}
export function un(op: UnaryOp, arg: Expr): UnaryExpr {
  return { kind: 'unary', op, arg, type: op === 'not' ? 'bool' : arg.type };
}
export function call(fn: MathFn, arg: Expr): CallExpr {
  return { kind: 'call', fn, arg, type: arg.type };
}
export function cast(to: ScalarType, arg: Expr): CastExpr {
  return { kind: 'cast', to, arg, type: to };
}
export function sel(cond: Expr, then: Expr, otherwise: Expr): SelectExpr {
  return { kind: 'select', cond, then, else: otherwise, type: then.type };
}
export function idx(array: string, indices: readonly Expr[], type: ScalarType, span?: Span): IndexExpr {
  const e: IndexExpr = { kind: 'index', array, indices, type };
  return span === undefined ? e : { ...e, span };
}
export function dim(array: string, axis: number): DimExpr {
  return { kind: 'dim', array, axis, type: 'i32' };
}

/** `lam([['x', 'f64'], ['y', 'f64']], bin('+', v('x','f64'), v('y','f64')))`; several results as an array. */
export function lam(
  params: readonly (readonly [string, ScalarType])[],
  results: Expr | readonly Expr[],
  lets: readonly Let[] = [],
): Lambda {
  return {
    params: params.map(([name, type]) => ({ name, type })),
    lets,
    results: Array.isArray(results) ? (results as readonly Expr[]) : [results as Expr],
  };
}
export function let_(name: string, expr: Expr): Let {
  return { name, expr };
}

/** `λ(a, b): a op b` over one type, e.g. `opLam('+', 'f64', 'acc', 'x')`. */
export function opLam(op: BinaryOp, t: ScalarType, a = 'a', b = 'b'): Lambda {
  return lam([[a, t], [b, t]], bin(op, v(a, t), v(b, t)));
}

// ---- array level ---------------------------------------------------------------------------

export function arr(name: string, elem: ScalarType, rank: number): ArrayVar {
  return { name, elem, rank };
}
export function arrayValue(name: string, elem: ScalarType, rank: number): Value {
  return { kind: 'array', name, elem, rank };
}
export function scalarValue(name: string, elem: ScalarType): Value {
  return { kind: 'scalar', name, elem };
}
export function scalarStmt(name: string, expr: Expr, span: Span = span0): ScalarStmt {
  return { kind: 'scalar', name, expr, span };
}

/** A node builder: numbers nodes 0, 1, 2, … in creation order. */
export function nodes(firstId: NodeId = 0) {
  let next = firstId;
  const id = (): NodeId => next++;
  return {
    generate(outs: readonly ArrayVar[], shape: readonly Expr[], fn: Lambda, span: Span = span0): GenerateNode {
      return { kind: 'generate', id: id(), outs, span, shape, fn };
    },
    map(outs: readonly ArrayVar[], inputs: readonly string[], fn: Lambda, span: Span = span0): MapNode {
      return { kind: 'map', id: id(), outs, span, inputs, fn };
    },
    gather(outs: readonly ArrayVar[], indices: readonly string[], source: readonly string[], span: Span = span0): GatherNode {
      return { kind: 'gather', id: id(), outs, span, indices, source };
    },
    scatter(
      outs: readonly ArrayVar[],
      op: Lambda,
      dest: readonly string[],
      index: readonly string[],
      values: readonly string[],
      span: Span = span0,
    ): ScatterNode {
      return { kind: 'scatter', id: id(), outs, span, op, dest, index, values };
    },
    fold(outs: readonly ArrayVar[], op: Lambda, init: readonly Expr[], input: readonly string[], span: Span = span0): FoldNode {
      return { kind: 'fold', id: id(), outs, span, op, init, input };
    },
    scanl(outs: readonly ArrayVar[], op: Lambda, init: readonly Expr[] | null, input: readonly string[], span: Span = span0): ScanlNode {
      return { kind: 'scanl', id: id(), outs, span, op, init, input };
    },
    scanr(outs: readonly ArrayVar[], op: Lambda, init: readonly Expr[] | null, input: readonly string[], span: Span = span0): ScanrNode {
      return { kind: 'scanr', id: id(), outs, span, op, init, input };
    },
    force(outs: readonly ArrayVar[], input: readonly string[], span: Span = span0): ForceNode {
      return { kind: 'force', id: id(), outs, span, input };
    },
    if_(outs: readonly Value[], cond: Expr, then: Block, otherwise: Block, span: Span = span0): IfNode {
      return { kind: 'if', id: id(), cond, then, else: otherwise, outs, span };
    },
    while_(outs: readonly Value[], init: readonly string[], cond: Block, body: Block, span: Span = span0): WhileNode {
      return { kind: 'while', id: id(), init, cond, body, outs, span };
    },
  };
}

export function block(params: readonly Value[], stmts: readonly Stmt[], results: readonly string[]): Block {
  return { params, stmts, results };
}

export function arrayParam(name: string, elem: ScalarType, rank: number): Interface {
  return { name, components: [arrayValue(name, elem, rank)] };
}
export function scalarParam(name: string, elem: ScalarType): Interface {
  return { name, components: [scalarValue(name, elem)] };
}
/** An entry parameter that is an array of tuples: one component per element. */
export function tupleParam(name: string, components: readonly Value[]): Interface {
  return { name, components };
}

/** The values a statement defines (for looking up result types by name). */
function definedValues(s: Stmt): readonly Value[] {
  switch (s.kind) {
    case 'scalar':
      return [scalarValue(s.name, s.expr.type)];
    case 'if':
    case 'while':
      return s.outs;
    default:
      return (s as CombinatorNode).outs.map((o) => arrayValue(o.name, o.elem, o.rank));
  }
}

/**
 * A program whose body is one block. Results given by name become single-component
 * interfaces, their types looked up among the params and the statements' definitions.
 */
export function program(
  name: string,
  params: readonly Interface[],
  stmts: readonly Stmt[],
  results: readonly (string | Interface)[],
): Program {
  const known = new Map<string, Value>();
  for (const p of params) for (const comp of p.components) known.set(comp.name, comp);
  for (const s of stmts) for (const d of definedValues(s)) known.set(d.name, d);
  const resultIfaces = results.map((r): Interface => {
    if (typeof r !== 'string') return r;
    const value = known.get(r);
    if (value === undefined) throw new Error(`builders.program: result ${r} is not defined`);
    return { name: r, components: [value] };
  });
  return {
    name,
    params,
    body: {
      params: params.flatMap((p) => p.components),
      stmts,
      results: resultIfaces.flatMap((r) => r.components.map((comp) => comp.name)),
    },
    results: resultIfaces,
  };
}

// ---- run-time values -----------------------------------------------------------------------

export function array(elem: ScalarType, shape: readonly number[], data: readonly number[]): ArrayValue {
  const typed = allocate(elem, data.length);
  for (let i = 0; i < data.length; i++) typed[i] = data[i]!;
  return { kind: 'array', elem, shape, data: typed };
}
export function scalar(elem: ScalarType, value: number): ScalarValue {
  return { kind: 'scalar', elem, value };
}
