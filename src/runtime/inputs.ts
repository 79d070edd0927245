// Checks a run's inputs against the entry parameters, with the interpreter's codes and words
// (E410–E414), and flattens them into component values.
//
// A local adapter: the interpreter's own checks (src/interp/interpret.ts) are not exported.
// When they are, this module should become a re-export so the two cannot drift apart.

import { type SourceFile, userError } from '../diagnostics/index.js';
import { wrap } from '../ir/scalarOps.js';
import type { Program, Value } from '../ir/types.js';
import { type InterfaceValue, type RuntimeValue, sizeOf } from '../ir/values.js';

function shapeText(shape: readonly number[]): string {
  return `[${shape.join(', ')}]`;
}

function describe(v: Value): string {
  return v.kind === 'array' ? `an array of ${v.elem} of rank ${v.rank}` : `a scalar ${v.elem}`;
}

function describeValue(v: RuntimeValue): string {
  return v.kind === 'array' ? `an array of ${v.elem} of shape ${shapeText(v.shape)}` : `a scalar ${v.elem}`;
}

const typedArrays = {
  f64: Float64Array,
  f32: Float32Array,
  i32: Int32Array,
  u32: Uint32Array,
  bool: Uint8Array,
} as const;

export function checkInputs(program: Program, inputs: readonly InterfaceValue[], file: SourceFile | undefined): RuntimeValue[] {
  if (inputs.length !== program.params.length) {
    const names = program.params.map((p) => p.name).join(', ');
    const plural = program.params.length === 1 ? '' : 's';
    throw userError('E410', `${program.name} takes ${program.params.length} input${plural} (${names}), got ${inputs.length}`, { file });
  }
  return program.params.flatMap((iface, i) => {
    const where = { file, span: iface.span };
    const input = inputs[i]!;
    const values: readonly RuntimeValue[] = Array.isArray(input) ? (input as readonly RuntimeValue[]) : [input as RuntimeValue];
    if (values.length !== iface.components.length) {
      const plural = iface.components.length === 1 ? '' : 's';
      throw userError('E411', `input ${iface.name}: expected ${iface.components.length} component${plural}, got ${values.length}`, where);
    }
    iface.components.forEach((param, k) => {
      const what = iface.components.length === 1 ? iface.name : `${iface.name} (component ${k})`;
      const value = values[k]!;
      if (value.kind !== param.kind) throw userError('E411', `input ${what}: expected ${describe(param)}, got ${describeValue(value)}`, where);
      if (value.elem !== param.elem) throw userError('E412', `input ${what}: expected element type ${param.elem}, got ${value.elem}`, where);
      if (value.kind === 'scalar') {
        if (!Object.is(wrap(value.elem, value.value), value.value)) {
          throw userError('E414', `input ${what}: ${value.value} is not a value of type ${value.elem}`, where);
        }
        return;
      }
      if (param.kind === 'array' && value.shape.length !== param.rank) {
        throw userError('E413', `input ${what}: expected rank ${param.rank}, got shape ${shapeText(value.shape)} of rank ${value.shape.length}`, where);
      }
      if (!value.shape.every((d) => Number.isInteger(d) && d >= 0)) {
        throw userError('E414', `input ${what}: shape ${shapeText(value.shape)} is not a list of non-negative integers`, where);
      }
      const ctor = typedArrays[value.elem];
      if (!(value.data instanceof ctor)) {
        throw userError('E414', `input ${what}: ${value.elem} data must be a ${ctor.name}, got a ${value.data.constructor.name}`, where);
      }
      if (value.data.length !== sizeOf(value.shape)) {
        throw userError('E414', `input ${what}: shape ${shapeText(value.shape)} needs ${sizeOf(value.shape)} elements, the data has ${value.data.length}`, where);
      }
    });
    return values;
  });
}
