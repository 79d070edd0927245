// Reading and writing values as files, by extension: `.npy` (NumPy) or `.json`; and the
// directory and text-file writes the CLI makes (`--out`, `--emit-lp`). Every failure of the
// file system is E500 naming the path, never a raw ENOENT / EEXIST / ENOTDIR.

import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
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
  writeFile(path, bytes);
}

function reason(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Writes bytes or text to a file (E500 when the file system refuses). */
export function writeFile(path: string, contents: Uint8Array | string): void {
  try {
    writeFileSync(path, contents);
  } catch (e) {
    throw userError('E500', `cannot write ${path}: ${reason(e)}`);
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Makes a directory and its missing parents (E500 when one cannot be made, or exists and is
 * not a directory). Not `mkdirSync(…, { recursive: true })`: under /proc it loops forever
 * (ENOENT for a child of a directory that exists); here each level is tried once.
 */
export function ensureDirectory(path: string): void {
  if (isDirectory(path)) return;
  try {
    mkdirSync(path);
    return;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const parent = dirname(path);
    if (code === 'ENOENT' && parent !== path && !isDirectory(parent)) {
      ensureDirectory(parent);
      try {
        mkdirSync(path);
        return;
      } catch (again) {
        throw userError('E500', `cannot create the directory ${path}: ${reason(again)}`);
      }
    }
    if (code === 'EEXIST') throw userError('E500', `cannot create the directory ${path}: a file of that name exists`);
    throw userError('E500', `cannot create the directory ${path}: ${reason(e)}`);
  }
}

function scalarData(elem: RuntimeValue['elem'], value: number) {
  const data = allocate(elem, 1);
  data[0] = value;
  return data;
}
