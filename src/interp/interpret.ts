// The reference interpreter: the semantic oracle every other backend is tested against.
//
// Runs a Program one statement at a time, unfused: every combinator's outputs are whole
// arrays in memory (see ./combinators.ts), scalar statements are evaluated where they stand,
// and `if`/`while` run their blocks in a scope that sees the enclosing one. Inputs are
// checked against the entry parameters first (E410–E414), so a mistake in the data the user
// passed is reported as such and not as a crash deep inside a combinator.
//
// Run-time faults follow ./poison.ts: a fault poisons the value it happens in, and only an
// observation of a poisoned value fails the run — an `if` or `while` condition, a size, a
// scatter index, or the program's results (the earliest fault among them all).

import { type SourceFile, type Span, CompilerBug, userError } from '../diagnostics/index.js';
import { wrap } from '../ir/scalarOps.js';
import type { Block, Interface, Program, Stmt, Value, VarName } from '../ir/types.js';
import { componentsOf, type ArrayValue, type InterfaceValue, type RuntimeValue, shapeProblem, sizeOf } from '../ir/values.js';
import { checkUniqueScatter, evalCombinator } from './combinators.js';
import { type EvalEnv, evalScalarExpr, interpPass, shapeText } from './eval.js';
import { type Fault, FaultLog, earlier, observe } from './poison.js';

export interface InterpretOptions {
  /** The source the program's spans point into, for error locations. */
  readonly file?: SourceFile;
  /** A `while` that runs more iterations than this fails with E405 (default: no limit). */
  readonly maxWhileIterations?: number;
  /**
   * Tests: check that every scatter marked `unique` (the prelude's filter) has distinct in-range
   * indices, and throw a CompilerBug naming the node otherwise (default: trusted, unchecked).
   */
  readonly checkUniqueScatters?: boolean;
}

/** The values bound in one block execution, seeing its enclosing blocks' values. */
interface Scope {
  readonly vars: Map<VarName, RuntimeValue>;
  readonly parent: Scope | null;
}

function lookup(scope: Scope, name: VarName): RuntimeValue {
  for (let s: Scope | null = scope; s !== null; s = s.parent) {
    const value = s.vars.get(name);
    if (value !== undefined) return value;
  }
  throw new CompilerBug(interpPass, `${name} is not bound`);
}

function lookupArray(scope: Scope, name: VarName): ArrayValue {
  const value = lookup(scope, name);
  if (value.kind !== 'array') throw new CompilerBug(interpPass, `${name} is a scalar where an array was expected`);
  return value;
}

function lookupScalar(scope: Scope, name: VarName): number {
  const value = lookup(scope, name);
  if (value.kind !== 'scalar') throw new CompilerBug(interpPass, `${name} is an array where a scalar was expected`);
  return value.value;
}

interface Context {
  readonly options: InterpretOptions;
  readonly faults: FaultLog;
}

function envFor(scope: Scope, ctx: Context, context: string, span: Span): EvalEnv {
  return {
    scalar: (name) => lookupScalar(scope, name),
    scalarFault: (name) => {
      const value = lookup(scope, name);
      return value.kind === 'scalar' ? ctx.faults.scalarFault(value) : null;
    },
    array: (name) => lookupArray(scope, name),
    faults: ctx.faults,
    file: ctx.options.file,
    context,
    span,
  };
}

function bindAll(scope: Scope, defs: readonly Value[], values: readonly RuntimeValue[]): void {
  if (defs.length !== values.length) throw new CompilerBug(interpPass, `${values.length} values for ${defs.length} names`);
  defs.forEach((d, i) => {
    const value = values[i]!;
    if (value.kind !== d.kind) throw new CompilerBug(interpPass, `${d.name} is bound to a ${value.kind}, declared a ${d.kind}`);
    scope.vars.set(d.name, value);
  });
}

function runBlock(b: Block, args: readonly RuntimeValue[], parent: Scope | null, ctx: Context): RuntimeValue[] {
  const scope: Scope = { vars: new Map(), parent };
  bindAll(scope, b.params, args);
  for (const s of b.stmts) runStmt(s, scope, ctx);
  return b.results.map((name) => lookup(scope, name));
}

function runStmt(s: Stmt, scope: Scope, ctx: Context): void {
  switch (s.kind) {
    case 'scalar': {
      const { value, fault } = evalScalarExpr(s.expr, envFor(scope, ctx, 'scalar binding', s.span));
      const bound = { kind: 'scalar', elem: s.expr.type, value } as const;
      ctx.faults.setScalar(bound, fault);
      scope.vars.set(s.name, bound);
      return;
    }
    case 'if': {
      const cond = evalScalarExpr(s.cond, envFor(scope, ctx, 'if', s.span));
      observe(cond.fault);
      bindAll(scope, s.outs, runBlock(cond.value !== 0 ? s.then : s.else, [], scope, ctx));
      return;
    }
    case 'while': {
      let carried = s.init.map((name) => lookup(scope, name));
      const limit = ctx.options.maxWhileIterations ?? Infinity;
      for (let iterations = 0; ; iterations++) {
        const [go] = runBlock(s.cond, carried, scope, ctx);
        if (go === undefined || go.kind !== 'scalar') throw new CompilerBug(interpPass, 'while: the condition block returned no scalar');
        observe(ctx.faults.scalarFault(go));
        if (go.value === 0) break;
        if (iterations >= limit) {
          throw userError('E405', `while: the loop did not finish within ${limit} iterations (the iteration limit)`, {
            file: ctx.options.file,
            span: s.span,
          });
        }
        carried = runBlock(s.body, carried, scope, ctx);
      }
      bindAll(scope, s.outs, carried);
      return;
    }
    case 'generate':
    case 'map':
    case 'gather':
    case 'scatter':
    case 'fold':
    case 'scanl':
    case 'scanr':
    case 'force': {
      const env = envFor(scope, ctx, s.kind, s.span);
      const outs = evalCombinator(s, (name) => lookupArray(scope, name), env);
      // After the scatter's own checks (shapes), which it reports as the user's errors.
      if (s.kind === 'scatter' && ctx.options.checkUniqueScatters === true) checkUniqueScatter(s, (name) => lookupArray(scope, name), env);
      bindAll(
        scope,
        s.outs.map((o) => ({ kind: 'array', ...o })),
        outs,
      );
      return;
    }
    default:
      s satisfies never;
  }
}

// ---- checking the inputs against the entry parameters ---------------------------------------

function describe(v: Value): string {
  return v.kind === 'array' ? `an array of ${v.elem} of rank ${v.rank}` : `a scalar ${v.elem}`;
}

function describeValue(v: RuntimeValue): string {
  return v.kind === 'array' ? `an array of ${v.elem} of shape ${shapeText(v.shape)}` : `a scalar ${v.elem}`;
}

const typedArrayNames = {
  f64: 'Float64Array',
  f32: 'Float32Array',
  i32: 'Int32Array',
  u32: 'Uint32Array',
  u8: 'Uint8Array',
  i8: 'Int8Array',
  bool: 'Uint8Array',
} as const;

function storesType(elem: keyof typeof typedArrayNames, data: unknown): boolean {
  switch (elem) {
    case 'f64':
      return data instanceof Float64Array;
    case 'f32':
      return data instanceof Float32Array;
    case 'i32':
      return data instanceof Int32Array;
    case 'u32':
      return data instanceof Uint32Array;
    case 'u8':
      return data instanceof Uint8Array;
    case 'i8':
      return data instanceof Int8Array;
    case 'bool':
      return data instanceof Uint8Array;
    default:
      return elem satisfies never;
  }
}

function checkComponent(what: string, param: Value, value: RuntimeValue, where: { file?: SourceFile; span?: Span }): void {
  if (value.kind !== param.kind) {
    throw userError('E411', `input ${what}: expected ${describe(param)}, got ${describeValue(value)}`, where);
  }
  if (value.elem !== param.elem) {
    throw userError('E412', `input ${what}: expected element type ${param.elem}, got ${value.elem}`, where);
  }
  if (value.kind === 'scalar') {
    if (!Object.is(wrap(value.elem, value.value), value.value)) {
      throw userError('E414', `input ${what}: ${value.value} is not a value of type ${value.elem}`, where);
    }
    return;
  }
  if (param.kind === 'array' && value.shape.length !== param.rank) {
    throw userError('E413', `input ${what}: expected rank ${param.rank}, got shape ${shapeText(value.shape)} of rank ${value.shape.length}`, where);
  }
  const problem = shapeProblem(value.shape);
  if (problem !== null) throw userError('E414', `input ${what}: shape ${shapeText(value.shape)}: ${problem}`, where);
  if (!storesType(value.elem, value.data)) {
    throw userError('E414', `input ${what}: ${value.elem} data must be a ${typedArrayNames[value.elem]}, got a ${value.data.constructor.name}`, where);
  }
  if (value.data.length !== sizeOf(value.shape)) {
    throw userError('E414', `input ${what}: shape ${shapeText(value.shape)} needs ${sizeOf(value.shape)} elements, the data has ${value.data.length}`, where);
  }
}

/** The flat component values of one entry parameter, checked against its declaration. */
function checkInput(iface: Interface, input: InterfaceValue, file: SourceFile | undefined): readonly RuntimeValue[] {
  const where = { file, span: iface.span };
  const values = componentsOf(input);
  if (values.length !== iface.components.length) {
    throw userError(
      'E411',
      `input ${iface.name}: expected ${iface.components.length} component${iface.components.length === 1 ? '' : 's'}, got ${values.length}`,
      where,
    );
  }
  iface.components.forEach((param, i) => {
    const what = iface.components.length === 1 ? iface.name : `${iface.name} (component ${i})`;
    checkComponent(what, param, values[i]!, where);
  });
  return values;
}

/**
 * Checks a run's inputs against the entry parameters (E410–E414) and returns their flat
 * component values, in the order of the body's params. Shared with the fused executor so
 * both report bad inputs in the same words.
 */
export function checkInputs(program: Program, inputs: readonly InterfaceValue[], file: SourceFile | undefined): RuntimeValue[] {
  if (inputs.length !== program.params.length) {
    const names = program.params.map((p) => p.name).join(', ');
    throw userError('E410', `${program.name} takes ${program.params.length} input${program.params.length === 1 ? '' : 's'} (${names}), got ${inputs.length}`, {
      file,
    });
  }
  return program.params.flatMap((iface, i) => checkInput(iface, inputs[i]!, file));
}

/**
 * Runs a program on its inputs (one per entry parameter: a value, or the component values of
 * an array of tuples) and returns one value per result in the same form.
 */
export function interpret(
  program: Program,
  inputs: readonly InterfaceValue[],
  options: InterpretOptions = {},
): InterfaceValue[] {
  const args = checkInputs(program, inputs, options.file);
  const faults = new FaultLog();
  const flat = runBlock(program.body, args, null, { options, faults });
  // The results are observed, every element of them: the earliest fault among them fails the run.
  observe(flat.reduce<Fault | null>((first, v) => earlier(first, faults.valueFault(v)), null));
  let next = 0;
  return program.results.map((iface): InterfaceValue => {
    const comps = flat.slice(next, next + iface.components.length);
    next += iface.components.length;
    return comps.length === 1 ? comps[0]! : comps;
  });
}
