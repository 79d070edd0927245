// The folder list of docs/DESIGN.md ("Layout") is the import order: a module may import from
// its own folder and from folders listed before it, never after. The list is read from the
// document itself, so the design text and the code cannot drift apart silently.

import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSpecifiers, repoRoot, resolveSpecifier, sourceFiles } from '../util/sources.js';

/** The layers in order: `src/util`, …, `src/cli`, then `src/index.ts`. */
function layerOrder(design: string): string[] {
  const section = design.slice(design.indexOf('\n## Layout'));
  const open = section.indexOf('```') + 3;
  return section
    .slice(open, section.indexOf('```', open))
    .split('\n')
    .map((line) => /^(src\/[\w.]+)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
}

/** The layer of a repository path under src/: its first folder, or the file at the top. */
function layerOf(path: string): string {
  const parts = path.split('/');
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : path;
}

/** `file → target` for every import from a layer to one listed after it, or from or to a layer not listed. */
function layerViolations(files: readonly { path: string; imports: readonly string[] }[], order: readonly string[]): string[] {
  const rank = new Map(order.map((layer, k) => [layer, k]));
  const out: string[] = [];
  for (const { path, imports } of files) {
    const from = rank.get(layerOf(path));
    if (from === undefined) {
      out.push(`${path}: its folder is not in the list`);
      continue;
    }
    for (const target of imports.map((spec) => resolveSpecifier(path, spec)).filter((t) => t.startsWith('src/'))) {
      const to = rank.get(layerOf(target));
      if (to === undefined || to > from) out.push(`${path} → ${target}`);
    }
  }
  return out;
}

describe('layers', () => {
  const order = layerOrder(readFileSync(join(repoRoot, 'docs/DESIGN.md'), 'utf8'));

  it('docs/DESIGN.md lists every folder of src/ once, src/index.ts last', () => {
    const src = join(repoRoot, 'src');
    const folders = readdirSync(src).filter((name) => statSync(join(src, name)).isDirectory());
    expect([...order].sort()).toEqual([...folders.map((f) => `src/${f}`), 'src/index.ts'].sort());
    expect(order.at(-1)).toBe('src/index.ts');
  });

  it('no folder imports one listed after it', () => {
    const files = sourceFiles('src').map((path) => ({ path, imports: importSpecifiers(readFileSync(join(repoRoot, path), 'utf8')) }));
    expect(files.length).toBeGreaterThan(50);
    expect(layerViolations(files, order)).toEqual([]);
  });

  it('finds an import that goes up the list, and a folder the list does not name', () => {
    const order = ['src/graph', 'src/plan', 'src/check'];
    const files = [
      { path: 'src/plan/index.ts', imports: ['../check/validate.js', '../graph/types.js', './types.js', 'highs'] },
      { path: 'src/extra/a.ts', imports: [] },
    ];
    expect(layerViolations(files, order)).toEqual(['src/plan/index.ts → src/check/validate.ts', 'src/extra/a.ts: its folder is not in the list']);
  });
});
