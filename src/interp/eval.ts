// Element-level evaluation: one scalar expression or one lambda application at a time.
//
// Shared by the reference interpreter and (for scalar statements and shapes) the fused
// executor. All arithmetic goes through ../ir/scalarOps, the single definition of what every
// operation means; this module only walks the expression, looks names up and turns run-time
// faults into located UserErrors (E401 division by zero, E402 index out of range).

import { type SourceFile, type Span, CompilerBug, userError } from '../diagnostics/index.js';
import { ScalarDivisionByZero, binary, cast, mathFn, unary } from '../ir/scalarOps.js';
import type { Expr, Lambda, VarName } from '../ir/types.js';
import type { ArrayValue } from '../ir/values.js';

/** Where names come from while evaluating, and what to blame when something goes wrong. */
export interface EvalEnv {
  /** The value of a scalar in scope (lambda parameter, let, array-level scalar). */
  readonly scalar: (name: VarName) => number;
  /** An array in scope, for indexing and `dim`. */
  readonly array: (name: VarName) => ArrayValue;
  /** The source the IR's spans point into, when there is one. */
  readonly file?: SourceFile;
  /** What run-time errors name: `map`, `gather`, `scalar binding`, … */
  readonly context: string;
  /** The enclosing statement's span, used when an expression has none of its own. */
  readonly span?: Span;
}

export const interpPass = 'interp';

export function shapeText(shape: readonly number[]): string {
  return `[${shape.join(', ')}]`;
}

/** Row-major flat offset of a multi-index, or the dimension that is out of range. */
export function flatOffset(shape: readonly number[], index: readonly number[]): number | { readonly badAxis: number } {
  let offset = 0;
  for (let axis = 0; axis < shape.length; axis++) {
    const i = index[axis]!;
    if (!(i >= 0 && i < shape[axis]!)) return { badAxis: axis };
    offset = offset * shape[axis]! + i;
  }
  return offset;
}

function located(env: EvalEnv, span: Span | undefined): { file?: SourceFile; span?: Span } {
  return { file: env.file, span: span ?? env.span };
}

export function evalScalarExpr(e: Expr, env: EvalEnv): number {
  switch (e.kind) {
    case 'const':
      return e.value;
    case 'var':
      return env.scalar(e.name);
    case 'unary':
      return unary(e.op, e.arg.type, evalScalarExpr(e.arg, env));
    case 'binary': {
      // Operands first, both of them: element code has no short-circuit (only `select` is lazy).
      const a = evalScalarExpr(e.lhs, env);
      const b = evalScalarExpr(e.rhs, env);
      try {
        return binary(e.op, e.lhs.type, a, b);
      } catch (err) {
        if (err instanceof ScalarDivisionByZero) {
          throw userError('E401', `${env.context}: integer division by zero (${a} ${e.op} ${b})`, located(env, e.span));
        }
        throw err;
      }
    }
    case 'call':
      return mathFn(e.fn, e.arg.type, evalScalarExpr(e.arg, env));
    case 'cast':
      return cast(e.to, evalScalarExpr(e.arg, env));
    case 'select':
      return evalScalarExpr(e.cond, env) !== 0 ? evalScalarExpr(e.then, env) : evalScalarExpr(e.else, env);
    case 'index': {
      const a = env.array(e.array);
      const index = e.indices.map((i) => evalScalarExpr(i, env));
      if (index.length !== a.shape.length) {
        throw new CompilerBug(interpPass, `${e.array} has rank ${a.shape.length} but is indexed with ${index.length} indices`);
      }
      const offset = flatOffset(a.shape, index);
      if (typeof offset !== 'number') {
        const shown = index.length === 1 ? String(index[0]) : shapeText(index);
        throw userError(
          'E402',
          `${env.context}: index ${shown} is out of range for ${e.array} of shape ${shapeText(a.shape)} (dimension ${offset.badAxis})`,
          located(env, e.span),
        );
      }
      return a.data[offset]!;
    }
    case 'dim': {
      const a = env.array(e.array);
      const extent = a.shape[e.axis];
      if (extent === undefined) throw new CompilerBug(interpPass, `dim(${e.array}, ${e.axis}) of an array of rank ${a.shape.length}`);
      return extent;
    }
    default:
      return e satisfies never;
  }
}

/** An environment that sees `locals` first, then `outer`. */
export function withLocals(outer: EvalEnv, locals: ReadonlyMap<VarName, number>): EvalEnv {
  return {
    ...outer,
    scalar: (name) => {
      const local = locals.get(name);
      return local !== undefined ? local : outer.scalar(name);
    },
  };
}

/**
 * Prepares a lambda for repeated application: one environment and one map of locals are made
 * here and reused by every call (element code cannot nest lambdas, so calls never overlap).
 */
export function lambdaApplier(l: Lambda, env: EvalEnv): (args: readonly number[]) => number[] {
  const locals = new Map<VarName, number>();
  const inner = withLocals(env, locals);
  return (args) => {
    if (args.length !== l.params.length) {
      throw new CompilerBug(interpPass, `${env.context}: lambda of ${l.params.length} parameters applied to ${args.length} arguments`);
    }
    locals.clear();
    for (let i = 0; i < args.length; i++) locals.set(l.params[i]!.name, args[i]!);
    for (const b of l.lets) locals.set(b.name, evalScalarExpr(b.expr, inner));
    return l.results.map((r) => evalScalarExpr(r, inner));
  };
}

/** Applies a lambda to scalar arguments: binds params, evaluates lets in order, then results. */
export function applyLambda(l: Lambda, args: readonly number[], env: EvalEnv): number[] {
  return lambdaApplier(l, env)(args);
}
