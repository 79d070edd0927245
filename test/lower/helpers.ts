// Test helpers: lower .fuse text (verifying the IR after each of lowering's passes), run it
// with the reference interpreter, and count the statements of a lowered program by kind.

import { SourceFile, UserError, diagnosticPosition } from '../../src/diagnostics/index.js';
import { parseModule } from '../../src/syntax/index.js';
import { lowerModule, type LowerOptions } from '../../src/lower/index.js';
import { verifyProgram } from '../../src/ir/verify.js';
import { forEachStmt } from '../../src/ir/walk.js';
import { interpret } from '../../src/interp/index.js';
import { compile } from '../../src/index.js';
import type { Program, Stmt } from '../../src/ir/types.js';
import type { ArrayValue, InterfaceValue, RuntimeValue } from '../../src/ir/values.js';

export function lowerText(text: string, options: LowerOptions = {}, name = 'test.fuse'): Program {
  const file = new SourceFile(name, text);
  const program = lowerModule(parseModule(file), file, { verifyEachPass: true, ...options });
  verifyProgram(program, 'lower');
  return program;
}

/** Number of statements of each kind, nested blocks included. */
export function kinds(p: Program): Record<string, number> {
  const out: Record<string, number> = {};
  forEachStmt(p.body, (s: Stmt) => (out[s.kind] = (out[s.kind] ?? 0) + 1));
  return out;
}

export function statements(p: Program): Stmt[] {
  const out: Stmt[] = [];
  forEachStmt(p.body, (s) => out.push(s));
  return out;
}

/** Names of the arrays combinators define, in order. */
export function nodeNames(p: Program): string[] {
  return statements(p).flatMap((s) => ('outs' in s ? s.outs.map((o) => o.name) : []));
}

export function f64s(xs: readonly number[]): ArrayValue {
  return { kind: 'array', elem: 'f64', shape: [xs.length], data: Float64Array.from(xs) };
}

export function i32s(xs: readonly number[]): ArrayValue {
  return { kind: 'array', elem: 'i32', shape: [xs.length], data: Int32Array.from(xs) };
}

export function scalar(elem: 'f64' | 'i32', value: number): RuntimeValue {
  return { kind: 'scalar', elem, value };
}

export function run(p: Program, inputs: readonly InterfaceValue[]): InterfaceValue[] {
  return interpret(p, inputs);
}

/** The contents of a result that is one array or scalar, as a plain list. */
export function contents(v: InterfaceValue): number[] {
  if (Array.isArray(v)) throw new Error('expected a single value');
  const r = v as RuntimeValue;
  return r.kind === 'scalar' ? [r.value] : [...r.data];
}

/** The first diagnostic of a lowering error, as code, message and line:col. */
export function lowerError(text: string, options: LowerOptions = {}): { code: string; message: string; at: string } {
  try {
    lowerText(text, options);
  } catch (e) {
    if (e instanceof UserError) {
      const d = e.diagnostics[0]!;
      return { code: d.code, message: d.message, at: diagnosticPosition(d) };
    }
    throw e;
  }
  throw new Error('expected a lowering error');
}

/** The single value an entry without inputs returns (`body` is its indented statements), interpreted. */
export async function constantValue(body: string): Promise<number> {
  const out = await compile(`def main():\n${body}`).run({}, { interpret: true });
  return Object.values(out)[0] as number;
}
