// The meaning of each core combinator, one whole array at a time, unfused.
//
// Written to be obviously correct rather than fast: each function reads the comments of
// ../ir/types.ts and does exactly that, element by element in row-major order. The output
// shape of every combinator (with the shape checks that can fail at run time) is computed by
// `combinatorOutputShape`.
//
// Element faults poison elements instead of throwing (./poison.ts): every element's fault
// travels with it through the element code, so an element nobody observes never fails the run.
// Sizes are observations: a poisoned one throws its fault at once. A scatter index that faults or
// is out of range breaks the whole result, since it could have written anywhere.

import { CompilerBug, UserError, userError } from '../diagnostics/index.js';
import { allocate } from '../ir/scalarOps.js';
import type {
  CombinatorNode,
  Expr,
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
import { combinatorInputs, outputShapeOf } from '../ir/rules.js';
import { type EvalEnv, evalScalarExpr, flatOffset, interpPass, lambdaApplier, shapeText } from './eval.js';
import { earlier, type Fault, observe } from './poison.js';

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
function generateShape(sizes: readonly Expr[], env: EvalEnv): readonly number[] {
  return sizes.map((e, axis) => {
    const { value: size, fault } = evalScalarExpr(e, env);
    observe(fault);
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
 * The shape of a combinator's outputs (all components share it), by its rule (src/ir/rules.ts)
 * from the shapes of its inputs; throws E403 when inputs that must agree do not, E404 for a bad
 * generate size.
 */
export function combinatorOutputShape(
  n: CombinatorNode,
  shapeOf: (name: VarName) => readonly number[],
  env: EvalEnv,
): readonly number[] {
  const rule = outputShapeOf(n);
  if (rule.kind === 'sizes') return generateShape(rule.sizes, env);
  for (const group of rule.agree) commonShape(group.arrays, shapeOf, env, group.what);
  if (rule.like === undefined) throw new CompilerBug(interpPass, `${env.context}: no input to take the shape of`);
  const shape = shapeOf(rule.like);
  if (!rule.dropInnermost) return shape;
  if (shape.length === 0) throw new CompilerBug(interpPass, `${n.kind} of a rank-0 array`);
  return shape.slice(0, -1);
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

/** A zeroed array; one too large to allocate is E406 at the combinator that makes it. */
function newArray(elem: ScalarType, shape: readonly number[], env: EvalEnv): ArrayValue {
  try {
    return { kind: 'array', elem, shape, data: allocate(elem, sizeOf(shape)) };
  } catch (e) {
    if (!(e instanceof UserError) || e.code !== 'E406') throw e;
    throw userError('E406', `${env.context}: an array of shape ${shapeText(shape)} is too large (${e.diagnostics[0]!.message})`, {
      file: env.file,
      span: env.span,
    });
  }
}

function outputs(n: CombinatorNode, shape: readonly number[], env: EvalEnv): ArrayValue[] {
  return n.outs.map((o) => newArray(o.elem, shape, env));
}

/** A position in an index array, as a user would point at it. */
function positionText(shape: readonly number[], index: readonly number[], flat: number): string {
  return shape.length === 1 ? String(flat) : shapeText(index);
}

/** Stores a lambda's results (and their poison) as element `flat` of the outputs. */
function store(outs: readonly ArrayValue[], flat: number, values: readonly number[], faults: readonly (Fault | null)[], env: EvalEnv): void {
  outs.forEach((o, c) => {
    o.data[flat] = values[c]!;
    env.faults.setElement(o, flat, faults[c] ?? null);
  });
}

const noFaults: readonly (Fault | null)[] = [];

/**
 * The values and faults of element `flat` of several arrays (the components of a tuple). While
 * nothing in the run is poisoned the faults are one shared empty list (read as all null).
 */
function load(arrays: readonly ArrayValue[], flat: number, env: EvalEnv): { values: number[]; faults: readonly (Fault | null)[] } {
  const values = arrays.map((a) => a.data[flat]!);
  return { values, faults: env.faults.any ? arrays.map((a) => env.faults.elementFault(a, flat)) : noFaults };
}

/** The faults of two loads side by side, as a lambda's arguments. */
function joinFaults(a: readonly (Fault | null)[], aLength: number, b: readonly (Fault | null)[], bLength: number): readonly (Fault | null)[] {
  if (a.length === 0 && b.length === 0) return noFaults;
  return [...Array.from({ length: aLength }, (_, k) => a[k] ?? null), ...Array.from({ length: bLength }, (_, k) => b[k] ?? null)];
}

function evalGenerate(n: GenerateNode, env: EvalEnv): ArrayValue[] {
  const shape = generateShape(n.shape, env);
  const outs = outputs(n, shape, env);
  const fn = lambdaApplier(n.fn, env);
  forEachIndex(shape, (index, flat) => store(outs, flat, fn(index), fn.faults, env));
  return outs;
}

function evalMap(n: MapNode, inputs: readonly ArrayValue[], env: EvalEnv): ArrayValue[] {
  const shape = combinatorOutputShape(n, (name) => inputs[n.inputs.indexOf(name)]!.shape, env);
  const outs = outputs(n, shape, env);
  const total = sizeOf(shape);
  const fn = lambdaApplier(n.fn, env);
  for (let i = 0; i < total; i++) {
    const x = load(inputs, i, env);
    store(outs, i, fn(x.values, x.faults), fn.faults, env);
  }
  return outs;
}

/** The earliest of some faults, null when there are none. */
function firstFault(faults: readonly (Fault | null)[]): Fault | null {
  let first: Fault | null = null;
  for (const f of faults) if (f !== null && (first === null || f.order < first.order)) first = f;
  return first;
}

/**
 * Element j reads the source where the index arrays point: a poisoned index poisons the element
 * (it is a read position, observed only if the element is), and so does one out of range (E402).
 */
function evalGather(n: GatherNode, lookup: (name: VarName) => ArrayValue, env: EvalEnv): ArrayValue[] {
  const indices = n.indices.map(lookup);
  const source = n.source.map(lookup);
  const shape = combinatorOutputShape(n, (name) => lookup(name).shape, env);
  const srcShape = source[0]!.shape;
  const outs = outputs(n, shape, env);
  forEachIndex(shape, (position, j) => {
    const { values: index, faults } = load(indices, j, env);
    const indexFault = firstFault(faults);
    if (indexFault !== null) {
      outs.forEach((o) => env.faults.setElement(o, j, indexFault));
      return;
    }
    const offset = flatOffset(srcShape, index);
    if (typeof offset !== 'number') {
      const shown = index.length === 1 ? String(index[0]) : shapeText(index);
      const arrays = indices.length === 1 ? 'index array' : 'index arrays';
      const error = userError(
        'E402',
        `gather: index ${shown} is out of range for an array of shape ${shapeText(srcShape)} (position ${positionText(shape, position, j)} of the ${arrays})`,
        { file: env.file, span: env.span },
      );
      const fault = env.faults.record(error);
      outs.forEach((o) => env.faults.setElement(o, j, fault));
      return;
    }
    const x = load(source, offset, env);
    store(outs, j, x.values, x.faults, env);
  });
  return outs;
}

/**
 * Source elements update a copy of `dest` in source (row-major) order. A poisoned index, or one
 * out of range (E402), could have written anywhere: it breaks the result as a whole with its
 * fault (the earliest such; poison.ts), and the update it would have made is skipped. A
 * dropping scatter (`n.drop`) skips an out-of-range update without a fault, and never reads its
 * value: a fault in that value is not observed.
 */
function evalScatter(n: ScatterNode, lookup: (name: VarName) => ArrayValue, env: EvalEnv): ArrayValue[] {
  const dest = n.dest.map(lookup);
  const index = n.index.map(lookup);
  const values = n.values.map(lookup);
  const shape = combinatorOutputShape(n, (name) => lookup(name).shape, env);
  const srcShape = index[0]!.shape;
  const outs = outputs(n, shape, env);
  outs.forEach((o, c) => {
    o.data.set(dest[c]!.data);
    env.faults.copyPoison(dest[c]!, o);
  });
  const op = lambdaApplier(n.op, env);
  let everywhere: Fault | null = null;
  forEachIndex(srcShape, (position, p) => {
    const { values: target, faults: targetFaults } = load(index, p, env);
    const targetFault = firstFault(targetFaults);
    const offset = flatOffset(shape, target);
    if (targetFault === null && typeof offset !== 'number' && n.drop === true) return;
    if (targetFault !== null || typeof offset !== 'number') {
      const shown = target.length === 1 ? String(target[0]) : shapeText(target);
      everywhere = earlier(
        everywhere,
        targetFault ??
          env.faults.record(
            userError(
              'E402',
              `scatter: index ${shown} is out of range for a destination of shape ${shapeText(shape)} (position ${positionText(srcShape, position, p)} of the source)`,
              { file: env.file, span: env.span },
            ),
          ),
      );
      return;
    }
    const old = load(outs, offset, env);
    const incoming = load(values, p, env);
    const argFaults = joinFaults(old.faults, outs.length, incoming.faults, values.length);
    store(outs, offset, op([...old.values, ...incoming.values], argFaults), op.faults, env);
  });
  for (const o of outs) env.faults.breakArray(o, everywhere);
  return outs;
}

/**
 * Test mode (InterpretOptions.checkUniqueScatters): a scatter marked `unique` promises that no
 * two of its in-range indices are equal, which the multicore back end relies on to apply the
 * updates in any order; a broken promise is the compiler's (the prelude's) bug, not the user's.
 * Out-of-range and faulted indices are left to the scatter itself (E402, poison).
 */
export function checkUniqueScatter(n: ScatterNode, lookup: (name: VarName) => ArrayValue, env: EvalEnv): void {
  if (n.unique !== true) return;
  const shape = lookup(n.dest[0]!).shape;
  const index = n.index.map(lookup);
  // Per destination element, 1 + the first source position that wrote it (0: none yet; positions are below 2^31 − 1).
  const writer = new Int32Array(sizeOf(shape));
  forEachIndex(index[0]!.shape, (_, p) => {
    const { values: target, faults } = load(index, p, env);
    if (firstFault(faults) !== null) return;
    const offset = flatOffset(shape, target);
    if (typeof offset !== 'number') return;
    if (writer[offset] !== 0) {
      const shown = target.length === 1 ? String(target[0]) : shapeText(target);
      throw new CompilerBug(interpPass, `scatter #${n.id} is marked unique, but source positions ${writer[offset]! - 1} and ${p} both update index ${shown}`);
    }
    writer[offset] = p + 1;
  });
}

/** The seeds of a fold or scan, with their faults. */
function seedsOf(init: readonly Expr[], env: EvalEnv): { values: number[]; faults: readonly (Fault | null)[] } {
  const seeds = init.map((e) => evalScalarExpr(e, env));
  return { values: seeds.map((s) => s.value), faults: seeds.map((s) => s.fault) };
}

/** Left to right along the innermost dimension: acc = op(acc, x), starting from the seeds. */
function evalFold(n: FoldNode, inputs: readonly ArrayValue[], env: EvalEnv): ArrayValue[] {
  const shape = combinatorOutputShape(n, (name) => inputs[n.input.indexOf(name)]!.shape, env);
  const rowLength = inputs[0]!.shape[inputs[0]!.shape.length - 1]!;
  const seeds = seedsOf(n.init, env);
  const outs = outputs(n, shape, env);
  const rows = sizeOf(shape);
  const op = lambdaApplier(n.op, env);
  for (let r = 0; r < rows; r++) {
    let acc = seeds.values;
    let accFaults = seeds.faults;
    for (let k = 0; k < rowLength; k++) {
      const x = load(inputs, r * rowLength + k, env);
      acc = op([...acc, ...x.values], joinFaults(accFaults, acc.length, x.faults, inputs.length));
      accFaults = env.faults.any ? [...op.faults] : noFaults;
    }
    store(outs, r, acc, accFaults, env);
  }
  return outs;
}

/** Scans every innermost row independently, in the direction of its kind. */
function evalScan(n: ScanlNode | ScanrNode, inputs: readonly ArrayValue[], env: EvalEnv): ArrayValue[] {
  const shape = combinatorOutputShape(n, (name) => inputs[n.input.indexOf(name)]!.shape, env);
  if (shape.length === 0) throw new CompilerBug(interpPass, `${n.kind} of a rank-0 array`);
  const rowLength = shape[shape.length - 1]!;
  const seeds = n.init === null ? null : seedsOf(n.init, env);
  const outs = outputs(n, shape, env);
  const rows = rowLength === 0 ? 0 : sizeOf(shape) / rowLength;
  const x = (at: number) => load(inputs, at, env);
  const out = (at: number) => load(outs, at, env);
  const op = lambdaApplier(n.op, env);
  type Loaded = { values: number[]; faults: readonly (Fault | null)[] };
  const step = (at: number, left: Loaded, right: Loaded): void =>
    store(outs, at, op([...left.values, ...right.values], joinFaults(left.faults, left.values.length, right.faults, right.values.length)), op.faults, env);
  for (let r = 0; r < rows; r++) {
    const base = r * rowLength;
    const last = base + rowLength - 1;
    if (n.kind === 'scanl') {
      // Inclusive: out[0] = x[0], out[i] = op(out[i-1], x[i]).
      // Exclusive: out[0] = z,    out[i] = op(out[i-1], x[i-1]).
      const first = seeds ?? x(base);
      store(outs, base, first.values, first.faults, env);
      for (let at = base + 1; at <= last; at++) step(at, out(at - 1), seeds === null ? x(at) : x(at - 1));
    } else {
      // Inclusive: out[n-1] = x[n-1], out[i] = op(x[i], out[i+1]).
      // Exclusive: out[n-1] = z,      out[i] = op(x[i+1], out[i+1]).
      const first = seeds ?? x(last);
      store(outs, last, first.values, first.faults, env);
      for (let at = last - 1; at >= base; at--) step(at, seeds === null ? x(at) : x(at + 1), out(at + 1));
    }
  }
  return outs;
}

function copyArray(a: ArrayValue, env: EvalEnv): ArrayValue {
  const copy: ArrayValue = { kind: 'array', elem: a.elem, shape: a.shape, data: a.data.slice() };
  env.faults.copyPoison(a, copy);
  return copy;
}

/**
 * Evaluates one combinator given a way to look up the arrays in scope; `env` supplies scalars,
 * indexed arrays and the error context (its `context` should be the combinator's kind).
 */
export function evalCombinator(n: CombinatorNode, lookup: (name: VarName) => ArrayValue, env: EvalEnv): ArrayValue[] {
  const outs = evalNode(n, lookup, env);
  // An array built from a broken one is broken too, even where it reads none of its elements.
  if (env.faults.any) {
    const fault = combinatorInputs(n).reduce<Fault | null>((first, r) => earlier(first, env.faults.brokenBy(lookup(r.name))), null);
    for (const o of outs) env.faults.breakArray(o, fault);
  }
  return outs;
}

function evalNode(n: CombinatorNode, lookup: (name: VarName) => ArrayValue, env: EvalEnv): ArrayValue[] {
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
      return n.input.map((name) => copyArray(lookup(name), env));
    }
    default:
      return n satisfies never;
  }
}
