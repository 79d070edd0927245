// Reading and writing values as files, by extension: `.npy` (NumPy) or `.json`; and the
// directory and text-file writes the CLI makes (`--out`, `--emit-lp`). Every failure of the
// file system is E500 naming the path, never a raw ENOENT / EEXIST / ENOTDIR. The one module
// outside src/cli that uses Node: formats and encodings are valueFiles.ts, npy.ts and
// jsonValues.ts, on bytes and strings.

import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { userError } from '../../diagnostics/index.js';
import type { RuntimeValue } from '../../ir/values.js';
import type { ReadNpyOptions } from './npy.js';
import { decodeValueFile, encodeValueFile, valueFileFormat } from './valueFiles.js';

function readBytes(path: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (e) {
    throw userError('E500', `cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Reads an input value from a `.npy` or `.json` file (the format checked before reading). */
export function readValueFile(path: string, options: ReadNpyOptions = {}): RuntimeValue {
  const format = valueFileFormat(path);
  return decodeValueFile(format, readBytes(path), path, options);
}

/**
 * Writes a value to a `.npy` or `.json` file. A scalar written to `.npy` becomes a rank-0
 * array, as numpy.save does with a NumPy scalar.
 */
export function writeValueFile(path: string, value: RuntimeValue): void {
  writeFile(path, encodeValueFile(valueFileFormat(path), value));
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
