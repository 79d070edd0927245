// What the harness page and its interpreter worker share: a case's inputs decoded and given to
// the driver as `compile`'s programs give them (src/index.ts toInterfaceValue), a run's results
// and errors turned into wire data (./wire.ts) as those programs return them (toOutput).

import type { Compiler, Execution, NamedInputs } from '../../../src/driver/index.js';
import { renderDiagnostic, UserError } from '../../../src/index.js';
import type { InterfaceValue, RuntimeValue } from '../../../src/ir/values.js';
import { decodeRecord, elemOfArray, encodeRecord, type PlainArray, type PlainValue, type WireCase, type WireError, type WireRecord } from './wire.js';

/** A UserError's first diagnostic with its located first line, or another error's name and message. */
export function errorOf(e: unknown): WireError {
  if (e instanceof UserError) {
    const d = e.diagnostics[0]!;
    return { name: 'UserError', code: d.code, message: d.message, located: renderDiagnostic(d).split('\n')[0]! };
  }
  if (e instanceof Error) return { name: e.name, message: e.message };
  return { name: 'thrown', message: String(e) };
}

/**
 * A case's inputs, decoded afresh for every run so that no run sees another's arrays; an
 * aliased input is the very object of the input it names.
 */
export function decodedInputs(c: WireCase): Record<string, PlainValue> {
  const inputs = decodeRecord(c.inputs);
  for (const [name, same] of Object.entries(c.aliases ?? {})) {
    if (!Object.hasOwn(inputs, same)) throw new TypeError(`case ${c.name}: alias ${name} names no input ${JSON.stringify(same)}`);
    Object.defineProperty(inputs, name, { value: inputs[same], enumerable: true, writable: true, configurable: true });
  }
  return inputs;
}

/** An input as the driver takes it: a typed array's type is its element type, a number takes the parameter's scalar type. */
function interfaceValue(compiler: Compiler, name: string, x: PlainValue): InterfaceValue {
  if (typeof x === 'boolean') return { kind: 'scalar', elem: 'bool', value: x ? 1 : 0 };
  if (typeof x === 'number') {
    const elem = compiler.scalarInputType(name) ?? (Number.isInteger(x) && (x | 0) === x ? 'i32' : 'f64');
    // -0 is the integer 0 (an integer type has no sign of zero).
    return { kind: 'scalar', elem, value: Object.is(x, -0) && elem !== 'f32' && elem !== 'f64' ? 0 : x };
  }
  const array = (a: PlainArray): RuntimeValue => ({ kind: 'array', elem: elemOfArray(a.data), shape: [...a.shape], data: a.data });
  if (Array.isArray(x)) return (x as readonly PlainArray[]).map(array);
  return array(x as PlainArray);
}

export function namedInputs(compiler: Compiler, inputs: Readonly<Record<string, PlainValue>>): NamedInputs {
  return Object.fromEntries(Object.keys(inputs).map((name) => [name, interfaceValue(compiler, name, inputs[name]!)]));
}

/** A result as `compile`'s programs give it: a rank-0 array is a number. */
function plainOutput(v: InterfaceValue): PlainValue {
  if (Array.isArray(v)) return (v as readonly InterfaceValue[]).map(plainOutput);
  const value = v as RuntimeValue;
  if (value.kind === 'scalar') return value.value;
  return value.shape.length === 0 ? value.data[0]! : { data: value.data, shape: value.shape };
}

/** A run's results by their names. */
export function resultsOfRun(run: Execution): WireRecord {
  return encodeRecord(Object.fromEntries(run.program.results.map((r, k) => [r.name, plainOutput(run.results[k]!)])));
}
