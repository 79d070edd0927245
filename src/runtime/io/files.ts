// Reading and writing values as files, by extension: `.npy` (NumPy) or `.json`.

import { readFileSync, writeFileSync } from 'node:fs';
import { userError } from '../../diagnostics/index.js';
import { allocate } from '../../ir/scalarOps.js';
import type { RuntimeValue } from '../../ir/values.js';
import { readJsonValue, valueToJson } from './jsonValues.js';
import { readNpy, writeNpy } from './npy.js';

type Format = 'npy' | 'json';

function formatOf(path: string): Format {
  if (/\.npy$/i.test(path)) return 'npy';
  if (/\.json$/i.test(path)) return 'json';
  throw userError('E522', `${path}: unknown file type (expected a .npy or .json file)`);
}

function readBytes(path: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (e) {
    throw userError('E500', `cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Reads an input value from a `.npy` or `.json` file. */
export function readValueFile(path: string): RuntimeValue {
  const format = formatOf(path);
  const bytes = readBytes(path);
  switch (format) {
    case 'npy':
      return readNpy(bytes, path);
    case 'json':
      return readJsonValue(new TextDecoder().decode(bytes), path);
    default:
      return format satisfies never;
  }
}

/**
 * Writes a value to a `.npy` or `.json` file. A scalar written to `.npy` becomes a rank-0
 * array, as numpy.save does with a NumPy scalar.
 */
export function writeValueFile(path: string, value: RuntimeValue): void {
  const format = formatOf(path);
  let bytes: Uint8Array | string;
  switch (format) {
    case 'npy': {
      const array =
        value.kind === 'array'
          ? value
          : { kind: 'array' as const, elem: value.elem, shape: [], data: scalarData(value.elem, value.value) };
      bytes = writeNpy(array);
      break;
    }
    case 'json':
      bytes = valueToJson(value) + '\n';
      break;
    default:
      return format satisfies never;
  }
  try {
    writeFileSync(path, bytes);
  } catch (e) {
    throw userError('E500', `cannot write ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function scalarData(elem: RuntimeValue['elem'], value: number) {
  const data = allocate(elem, 1);
  data[0] = value;
  return data;
}
