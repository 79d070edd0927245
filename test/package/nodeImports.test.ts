// A core that runs anywhere: no module of src/ imports a Node built-in (`node:fs`, or bare
// `fs`), statically or dynamically, except the CLI (src/cli/**) and the one Node I/O module,
// src/runtime/io/files.ts (value files and directories; the .npy and JSON encodings it uses
// are pure, on bytes and strings). The browser bundle test checks the result from the outside.

import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSpecifiers as importsOf, repoRoot as root, sourceFiles } from '../util/sources.js';

/** Where Node built-ins may be imported: the CLI, and the one Node I/O module. */
function mayImportNode(file: string): boolean {
  return file.startsWith('src/cli/') || file === 'src/runtime/io/files.ts';
}

function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!);
}

/** `file: specifier` for every Node built-in imported where it may not be. */
function misplacedNodeImports(files: readonly string[], read: (file: string) => string): string[] {
  return files.filter((f) => !mayImportNode(f)).flatMap((f) => importsOf(read(f)).filter(isNodeBuiltin).map((s) => `${f}: ${s}`));
}

describe('Node built-ins', () => {
  it('are imported only by src/cli and src/runtime/io/files.ts', () => {
    const files = sourceFiles('src');
    expect(files).toContain('src/index.ts');
    expect(misplacedNodeImports(files, (f) => readFileSync(join(root, f), 'utf8'))).toEqual([]);
  });

  it('are found however they are imported', () => {
    const texts: Record<string, string> = {
      'src/plan/a.ts': "import { join } from 'node:path';",
      'src/plan/b.ts': "export { tmpdir } from 'os';",
      'src/plan/c.ts': "const fs = await import('node:fs');",
      'src/plan/d.ts': "import type { Highs } from 'highs';\nimport { x } from './x.js';",
      'src/cli/e.ts': "import { readFileSync } from 'node:fs';",
    };
    expect(misplacedNodeImports(Object.keys(texts), (f) => texts[f]!)).toEqual(['src/plan/a.ts: node:path', 'src/plan/b.ts: os', 'src/plan/c.ts: node:fs']);
  });
});
