// Element-level evaluation: one scalar expression or one lambda application at a time.
//
// All arithmetic goes through ../ir/scalarOps, the single definition of what every operation
// means; this module only walks the expression, looks names up and turns run-time faults into
// located diagnostics (E401 division by zero, E402 index out of range). A fault does not throw
// here: it is recorded and poisons the value (./poison.ts); the caller decides whether the value
// is observed. Every evaluation therefore yields a value and the earliest fault it depends on.

import { type SourceFile, type Span, CompilerBug, userError } from '../diagnostics/index.js';
import { type Fault, type FaultLog, earlier } from './poison.js';
import { ScalarDivisionByZero, binary, cast, mathFn, unary } from '../ir/scalarOps.js';
import type { Expr, Lambda, VarName } from '../ir/types.js';
import type { ArrayValue } from '../ir/values.js';

/** Where names come from while evaluating, and what to blame when something goes wrong. */
export interface EvalEnv {
  /** The value of a scalar in scope (lambda parameter, let, array-level scalar). */
  readonly scalar: (name: VarName) => number;
  /** The fault that poisons a scalar in scope, or null. */
  readonly scalarFault: (name: VarName) => Fault | null;
  /** An array in scope, for indexing and `dim`. */
  readonly array: (name: VarName) => ArrayValue;
  /** Where faults are recorded and poison is kept. */
  readonly faults: FaultLog;
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

/** The earliest fault an evaluation has depended on so far (mutated while walking). */
interface Taint {
  fault: Fault | null;
}

/** A value and the earliest fault it was computed from (null: a clean value). */
export interface Tainted {
  readonly value: number;
  readonly fault: Fault | null;
}

/** Evaluates a scalar expression; a fault in it poisons the result instead of throwing. */
export function evalScalarExpr(e: Expr, env: EvalEnv): Tainted {
  const taint: Taint = { fault: null };
  const value = evaluate(e, env, taint);
  return { value, fault: taint.fault };
}

/**
 * Walks `e`, adding to `taint` the faults of everything the value depends on. Operands are
 * evaluated with the taint cleared and merged back after, so a node can tell whether its own
 * operands are poisoned (then it has no value of its own to check: it is poisoned already).
 */
function evaluate(e: Expr, env: EvalEnv, taint: Taint): number {
  switch (e.kind) {
    case 'const':
      return e.value;
    case 'var':
      taint.fault = earlier(taint.fault, env.scalarFault(e.name));
      return env.scalar(e.name);
    case 'unary':
      return unary(e.op, e.arg.type, evaluate(e.arg, env, taint));
    case 'binary': {
      // Operands first, both of them: element code has no short-circuit (only `select` is lazy).
      const outer = taint.fault;
      taint.fault = null;
      const a = evaluate(e.lhs, env, taint);
      const b = evaluate(e.rhs, env, taint);
      const operands = taint.fault;
      taint.fault = earlier(outer, operands);
      if (operands !== null) return 0;
      try {
        return binary(e.op, e.lhs.type, a, b);
      } catch (err) {
        if (!(err instanceof ScalarDivisionByZero)) throw err;
        const error = userError('E401', `${env.context}: integer division by zero (${a} ${e.op} ${b})`, located(env, e.span));
        taint.fault = earlier(taint.fault, env.faults.record(error));
        return 0;
      }
    }
    case 'call':
      return mathFn(e.fn, e.arg.type, evaluate(e.arg, env, taint));
    case 'cast':
      return cast(e.to, evaluate(e.arg, env, taint));
    case 'select':
      return evaluate(e.cond, env, taint) !== 0 ? evaluate(e.then, env, taint) : evaluate(e.else, env, taint);
    case 'index':
      return evalIndex(e, env, taint);
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

/** `xs[i, j]`: a poisoned index poisons the read; one out of range is a fault (E402). */
function evalIndex(e: Extract<Expr, { kind: 'index' }>, env: EvalEnv, taint: Taint): number {
  const a = env.array(e.array);
  const outer = taint.fault;
  taint.fault = null;
  const index = e.indices.map((i) => evaluate(i, env, taint));
  const indexFault = taint.fault;
  taint.fault = earlier(outer, indexFault);
  if (index.length !== a.shape.length) {
    throw new CompilerBug(interpPass, `${e.array} has rank ${a.shape.length} but is indexed with ${index.length} indices`);
  }
  if (indexFault !== null) return 0;
  const offset = flatOffset(a.shape, index);
  if (typeof offset !== 'number') {
    const shown = index.length === 1 ? String(index[0]) : shapeText(index);
    const error = userError(
      'E402',
      `${env.context}: index ${shown} is out of range for ${e.array} of shape ${shapeText(a.shape)} (dimension ${offset.badAxis})`,
      located(env, e.span),
    );
    taint.fault = earlier(taint.fault, env.faults.record(error));
    return 0;
  }
  taint.fault = earlier(taint.fault, env.faults.elementFault(a, offset));
  return a.data[offset]!;
}

/**
 * A lambda prepared for repeated application. A call returns the results' values; `faults`
 * then holds each result's fault (null when clean), overwritten by the next call.
 */
export interface LambdaApplier {
  (args: readonly number[], argFaults?: readonly (Fault | null)[]): number[];
  readonly faults: (Fault | null)[];
}

/**
 * Prepares a lambda for repeated application: one environment and one map of locals are made
 * here and reused by every call (element code cannot nest lambdas, so calls never overlap).
 */
export function lambdaApplier(l: Lambda, env: EvalEnv): LambdaApplier {
  const locals = new Map<VarName, number>();
  const localFaults = new Map<VarName, Fault>();
  const inner: EvalEnv = {
    ...env,
    scalar: (name) => {
      const local = locals.get(name);
      return local !== undefined ? local : env.scalar(name);
    },
    scalarFault: (name) => (locals.has(name) ? (localFaults.get(name) ?? null) : env.scalarFault(name)),
  };
  const faults = new Array<Fault | null>(l.results.length).fill(null);
  // One taint record for every expression of every call: evaluation allocates nothing per element.
  const taint: Taint = { fault: null };
  const bind = (name: VarName, value: number, fault: Fault | null): void => {
    locals.set(name, value);
    if (fault !== null) localFaults.set(name, fault);
  };
  const run = (e: Expr): number => {
    taint.fault = null;
    return evaluate(e, inner, taint);
  };
  const apply = (args: readonly number[], argFaults?: readonly (Fault | null)[]): number[] => {
    if (args.length !== l.params.length) {
      throw new CompilerBug(interpPass, `${env.context}: lambda of ${l.params.length} parameters applied to ${args.length} arguments`);
    }
    locals.clear();
    if (localFaults.size > 0) localFaults.clear();
    for (let i = 0; i < args.length; i++) bind(l.params[i]!.name, args[i]!, argFaults?.[i] ?? null);
    for (const b of l.lets) bind(b.name, run(b.expr), taint.fault);
    return l.results.map((r, k) => {
      const value = run(r);
      faults[k] = taint.fault;
      return value;
    });
  };
  return Object.assign(apply, { faults });
}
