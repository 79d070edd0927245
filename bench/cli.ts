// What every benchmark harness's command line shares: the repository root (results and programs
// are found from it) and commander's argument parsers, each a usage error on bad text.

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError } from 'commander';

/** The nearest folder above `start` (default: this file's) that holds a package.json. */
export function findRepoRoot(start: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

export function positiveInt(text: string): number {
  const v = Number(text);
  if (!Number.isInteger(v) || v <= 0) throw new InvalidArgumentError('expected a positive integer');
  return v;
}

export function nonNegative(text: string): number {
  const v = Number(text);
  if (!(v >= 0) || !Number.isFinite(v)) throw new InvalidArgumentError('expected a non-negative number');
  return v;
}

/** A comma-separated list of names from `allowed`. */
export function listOf<T extends string>(allowed: readonly T[]): (text: string) => T[] {
  return (text) => {
    const items = text.split(',').map((s) => s.trim()).filter((s) => s !== '');
    for (const item of items) if (!allowed.includes(item as T)) throw new InvalidArgumentError(`expected some of ${allowed.join(', ')}`);
    return items as T[];
  };
}
