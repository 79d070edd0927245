// The meaning of each core combinator, one whole array at a time, unfused.
//
// Written to be obviously correct rather than fast: each function reads the comments of
// ../ir/types.ts and does exactly that, element by element in row-major order. The output
// shape of every combinator (with the shape checks that can fail at run time) is computed by
// `combinatorOutputShape`, which the fused executor reuses so both agree on every error.

import { CompilerBug, userError } from '../diagnostics/index.js';
import { allocate } from '../ir/scalarOps.js';
import type {
  CombinatorNode,
  FoldNode,
  GatherNode,
  GenerateNode,
  MapNode,
  ScalarType,
  ScanlNode,
  ScanrNode,
  ScatterNode,
  VarName,
} from '../ir/types.js';
import { type ArrayValue, sizeOf } from '../ir/values.js';
import { type EvalEnv, evalScalarExpr, flatOffset, interpPass, lambdaApplier, shapeText } from './eval.js';

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** Throws E403 unless every named array has one shape; returns that shape. */
function commonShape(
  names: readonly VarName[],
  shapeOf: (name: VarName) => readonly number[],
  env: EvalEnv,
  what: string,
): readonly number[] {
  if (names.length === 0) throw new CompilerBug(interpPass, `${env.context}: no ${what}`);
  const first = shapeOf(names[0]!);
  for (const name of names.slice(1)) {
    const shape = shapeOf(name);
    if (!sameShape(first, shape)) {
      throw userError(
        'E403',
        `${env.context}: shapes ${shapeText(first)} and ${shapeText(shape)} differ (${what} ${names[0]} and ${name})`,
        { file: env.file, span: env.span },
      );
    }
  }
  return first;
}

/** The sizes of a `generate`: each must be a non-negative integer (E404). */
function generateShape(n: GenerateNode, env: EvalEnv): readonly number[] {
  return n.shape.map((e, axis) => {
    const size = evalScalarExpr(e, env);
    if (!Number.isInteger(size) || size < 0) {
      throw userError('E404', `generate: size ${size} of dimension ${axis} is not a non-negative integer`, {
        file: env.file,
        span: e.span ?? env.span,
      });
    }
    return size;
  });
}

/**
 * The shape of a combinator's outputs (all components share it), from the shapes of its
 * inputs; throws E403 when inputs that must agree do not, E404 for a bad generate size.
 */
export function combinatorOutputShape(
  n: CombinatorNode,
  shapeOf: (name: VarName) => readonly number[],
  env: EvalEnv,
): readonly number[] {
  switch (n.kind) {
    case 'generate':
      return generateShape(n, env);
    case 'map':
      return commonShape(n.inputs, shapeOf, env, 'inputs');
    case 'gather':
      commonShape(n.source, shapeOf, env, 'source components');
      return commonShape(n.indices, shapeOf, env, 'index arrays');
    case 'scatter': {
      commonShape([...n.index, ...n.values], shapeOf, env, 'index and value arrays');
      return commonShape(n.dest, shapeOf, env, 'destination components');
    }
    case 'fold': {
      const shape = commonShape(n.input, shapeOf, env, 'input components');
      if (shape.length === 0) throw new CompilerBug(interpPass, 'fold of a rank-0 array');
      return shape.slice(0, -1);
    }
    case 'scanl':
    case 'scanr':
    case 'force':
      return commonShape(n.input, shapeOf, env, 'input components');
    default:
      return n satisfies never;
  }
}

/** Calls `visit` with every multi-index of `shape` in row-major order, and its flat offset. */
export function forEachIndex(shape: readonly number[], visit: (index: readonly number[], flat: number) => void): void {
  const total = sizeOf(shape);
  const index = new Array<number>(shape.length).fill(0);
  for (let flat = 0; flat < total; flat++) {
    visit(index, flat);
    for (let axis = shape.length - 1; axis >= 0; axis--) {
      index[axis]!++;
      if (index[axis]! < shape[axis]!) break;
      index[axis] = 0;
    }
  }
}

function newArray(elem: ScalarType, shape: readonly number[]): ArrayValue {
  return { kind: 'array', elem, shape, data: allocate(elem, sizeOf(shape)) };
}

function outputs(n: CombinatorNode, shape: readonly number[]): ArrayValue[] {
  return n.outs.map((o) => newArray(o.elem, shape));
}

/** A position in an index array, as a user would point at it. */
function positionText(shape: readonly number[], index: readonly number[], flat: number): string {
  return shape.length === 1 ? String(flat) : shapeText(index);
}

function evalGenerate(n: GenerateNode, env: EvalEnv): ArrayValue[] {
  const shape = generateShape(n, env);
  const outs = outputs(n, shape);
  const fn = lambdaApplier(n.fn, env);
  forEachIndex(shape, (index, flat) => {
    const results = fn(index);
    outs.forEach((o, c) => (o.data[flat] = results[c]!));
  });
  return outs;
}

function evalMap(n: MapNode, inputs: readonly ArrayValue[], env: EvalEnv): ArrayValue[] {
  const shape = combinatorOutputShape(n, (name) => inputs[n.inputs.indexOf(name)]!.shape, env);
  const outs = outputs(n, shape);
  const total = sizeOf(shape);
  const fn = lambdaApplier(n.fn, env);
  for (let i = 0; i < total; i++) {
    const results = fn(inputs.map((a) => a.data[i]!));
    outs.forEach((o, c) => (o.data[i] = results[c]!));
  }
  return outs;
}

function evalGather(n: GatherNode, lookup: (name: VarName) => ArrayValue, env: EvalEnv): ArrayValue[] {
  const indices = n.indices.map(lookup);
  const source = n.source.map(lookup);
  const shape = combinatorOutputShape(n, (name) => lookup(name).shape, env);
  const srcShape = source[0]!.shape;
  const outs = outputs(n, shape);
  forEachIndex(shape, (position, j) => {
    const index = indices.map((a) => a.data[j]!);
    const offset = flatOffset(srcShape, index);
    if (typeof offset !== 'number') {
      const shown = index.length === 1 ? String(index[0]) : shapeText(index);
      const arrays = indices.length === 1 ? 'index array' : 'index arrays';
      throw userError(
        'E402',
        `gather: index ${shown} is out of range for an array of shape ${shapeText(srcShape)} (position ${positionText(shape, position, j)} of the ${arrays})`,
        { file: env.file, span: env.span },
      );
    }
    outs.forEach((o, c) => (o.data[j] = source[c]!.data[offset]!));
  });
  return outs;
}

/** Source elements update a copy of `dest` in source (row-major) order. */
function evalScatter(n: ScatterNode, lookup: (name: VarName) => ArrayValue, env: EvalEnv): ArrayValue[] {
  const dest = n.dest.map(lookup);
  const index = n.index.map(lookup);
  const values = n.values.map(lookup);
  const shape = combinatorOutputShape(n, (name) => lookup(name).shape, env);
  const srcShape = index[0]!.shape;
  const outs = outputs(n, shape);
  outs.forEach((o, c) => o.data.set(dest[c]!.data));
  const op = lambdaApplier(n.op, env);
  forEachIndex(srcShape, (position, p) => {
    const target = index.map((a) => a.data[p]!);
    const offset = flatOffset(shape, target);
    if (typeof offset !== 'number') {
      const shown = target.length === 1 ? String(target[0]) : shapeText(target);
      throw userError(
        'E402',
        `scatter: index ${shown} is out of range for a destination of shape ${shapeText(shape)} (position ${positionText(srcShape, position, p)} of the source)`,
        { file: env.file, span: env.span },
      );
    }
    const old = outs.map((o) => o.data[offset]!);
    const incoming = values.map((a) => a.data[p]!);
    const results = op([...old, ...incoming]);
    outs.forEach((o, c) => (o.data[offset] = results[c]!));
  });
  return outs;
}

/** Left to right along the innermost dimension: acc = op(acc, x), starting from the seeds. */
function evalFold(n: FoldNode, inputs: readonly ArrayValue[], env: EvalEnv): ArrayValue[] {
  const shape = combinatorOutputShape(n, (name) => inputs[n.input.indexOf(name)]!.shape, env);
  const rowLength = inputs[0]!.shape[inputs[0]!.shape.length - 1]!;
  const seeds = n.init.map((e) => evalScalarExpr(e, env));
  const outs = outputs(n, shape);
  const rows = sizeOf(shape);
  const op = lambdaApplier(n.op, env);
  for (let r = 0; r < rows; r++) {
    let acc = seeds;
    for (let k = 0; k < rowLength; k++) {
      const at = r * rowLength + k;
      acc = op([...acc, ...inputs.map((a) => a.data[at]!)]);
    }
    outs.forEach((o, c) => (o.data[r] = acc[c]!));
  }
  return outs;
}

/** Scans every innermost row independently, in the direction of its kind. */
function evalScan(n: ScanlNode | ScanrNode, inputs: readonly ArrayValue[], env: EvalEnv): ArrayValue[] {
  const shape = combinatorOutputShape(n, (name) => inputs[n.input.indexOf(name)]!.shape, env);
  if (shape.length === 0) throw new CompilerBug(interpPass, `${n.kind} of a rank-0 array`);
  const rowLength = shape[shape.length - 1]!;
  const seeds = n.init === null ? null : n.init.map((e) => evalScalarExpr(e, env));
  const outs = outputs(n, shape);
  const rows = rowLength === 0 ? 0 : sizeOf(shape) / rowLength;
  const x = (at: number): number[] => inputs.map((a) => a.data[at]!);
  const out = (at: number): number[] => outs.map((o) => o.data[at]!);
  const store = (at: number, value: readonly number[]): void => outs.forEach((o, c) => (o.data[at] = value[c]!));
  const op = lambdaApplier(n.op, env);
  for (let r = 0; r < rows; r++) {
    const base = r * rowLength;
    const last = base + rowLength - 1;
    if (n.kind === 'scanl') {
      // Inclusive: out[0] = x[0], out[i] = op(out[i-1], x[i]).
      // Exclusive: out[0] = z,    out[i] = op(out[i-1], x[i-1]).
      store(base, seeds ?? x(base));
      for (let at = base + 1; at <= last; at++) {
        store(at, op([...out(at - 1), ...(seeds === null ? x(at) : x(at - 1))]));
      }
    } else {
      // Inclusive: out[n-1] = x[n-1], out[i] = op(x[i], out[i+1]).
      // Exclusive: out[n-1] = z,      out[i] = op(x[i+1], out[i+1]).
      store(last, seeds ?? x(last));
      for (let at = last - 1; at >= base; at--) {
        store(at, op([...(seeds === null ? x(at) : x(at + 1)), ...out(at + 1)]));
      }
    }
  }
  return outs;
}

function copyArray(a: ArrayValue): ArrayValue {
  return { kind: 'array', elem: a.elem, shape: a.shape, data: a.data.slice() };
}

/**
 * Evaluates one combinator given a way to look up the arrays in scope; `env` supplies scalars,
 * indexed arrays and the error context (its `context` should be the combinator's kind).
 */
export function evalCombinator(n: CombinatorNode, lookup: (name: VarName) => ArrayValue, env: EvalEnv): ArrayValue[] {
  switch (n.kind) {
    case 'generate':
      return evalGenerate(n, env);
    case 'map':
      return evalMap(n, n.inputs.map(lookup), env);
    case 'gather':
      return evalGather(n, lookup, env);
    case 'scatter':
      return evalScatter(n, lookup, env);
    case 'fold':
      return evalFold(n, n.input.map(lookup), env);
    case 'scanl':
    case 'scanr':
      return evalScan(n, n.input.map(lookup), env);
    case 'force': {
      combinatorOutputShape(n, (name) => lookup(name).shape, env);
      return n.input.map((name) => copyArray(lookup(name)));
    }
    default:
      return n satisfies never;
  }
}
