// src/util is the bottom of the import order (docs/DESIGN.md): its modules import only each
// other, so every other folder can use them.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const folder = join(import.meta.dirname, '..', '..', 'src', 'util');

it('src/util imports nothing but src/util', () => {
  const outside = readdirSync(folder)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => {
      const text = readFileSync(join(folder, f), 'utf8');
      const specifiers = [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
      return specifiers.filter((s) => !/^\.\/[^/]+$/.test(s)).map((s) => `${f}: ${s}`);
    });
  expect(outside).toEqual([]);
});
