// The command line in process, for the end-to-end tests: main(argv) with a terminal that
// collects what it prints, scratch files, and the arrays `run` prints.

import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { main } from '../../src/cli/main.js';

/** Runs the CLI on `argv`: its exit code and what it printed on stdout and stderr (each line ended). */
export async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => (out += t.endsWith('\n') ? t : t + '\n'), err: (t) => (err += t.endsWith('\n') ? t : t + '\n') });
  return { code, out, err };
}

/** A file of its own scratch folder holding `contents`. */
export function tempFile(name: string, contents: string | Uint8Array): string {
  const dir = mkdtempSync(join(tmpdir(), 'arrayfuse-cli-'));
  const path = join(dir, name);
  writeFileSync(path, contents);
  return path;
}

/** Parses the `name = [a, b, …]` line of `run`'s output. */
export function printedArray(out: string, name: string): number[] {
  const line = out.split('\n').find((l) => l.startsWith(`${name} = `));
  expect(line, `no line for ${name} in:\n${out}`).toBeDefined();
  return JSON.parse(line!.slice(name.length + 3)) as number[];
}

/** How many examples `demo` runs: every bundled `examples/*.fuse`. */
export const bundledExampleCount = readdirSync(join(import.meta.dirname, '..', '..', 'examples')).filter((f) => f.endsWith('.fuse')).length;
