// Value files by name, without a file system: which format a name means (`.npy` or `.json`),
// and a value decoded from, or encoded to, that format's bytes or text. files.ts adds the Node
// reads and writes; a browser host can hand these functions an uploaded file's name and bytes.

import { userError } from '../../diagnostics/index.js';
import { allocate } from '../../ir/scalarOps.js';
import type { RuntimeValue } from '../../ir/values.js';
import { readJsonValue, valueToJson } from './jsonValues.js';
import { readNpy, writeNpy, type ReadNpyOptions } from './npy.js';

export type ValueFileFormat = 'npy' | 'json';

/** The format a file name's extension names (E522 for any other). */
export function valueFileFormat(name: string): ValueFileFormat {
  if (/\.npy$/i.test(name)) return 'npy';
  if (/\.json$/i.test(name)) return 'json';
  throw userError('E522', `${name}: unknown file type (expected a .npy or .json file)`);
}

/** A value from a file's bytes; errors name the file. `options` say how to read 64-bit integer .npy data. */
export function decodeValueFile(format: ValueFileFormat, bytes: Uint8Array, name: string, options: ReadNpyOptions = {}): RuntimeValue {
  switch (format) {
    case 'npy':
      return readNpy(bytes, name, options);
    case 'json':
      return readJsonValue(new TextDecoder().decode(bytes), name);
    default:
      return format satisfies never;
  }
}

/**
 * A value as a file's contents. A scalar written to `.npy` becomes a rank-0 array, as
 * numpy.save does with a NumPy scalar.
 */
export function encodeValueFile(format: ValueFileFormat, value: RuntimeValue): Uint8Array | string {
  switch (format) {
    case 'npy': {
      const array =
        value.kind === 'array'
          ? value
          : { kind: 'array' as const, elem: value.elem, shape: [], data: scalarData(value.elem, value.value) };
      return writeNpy(array);
    }
    case 'json':
      return valueToJson(value) + '\n';
    default:
      return format satisfies never;
  }
}

function scalarData(elem: RuntimeValue['elem'], value: number) {
  const data = allocate(elem, 1);
  data[0] = value;
  return data;
}
