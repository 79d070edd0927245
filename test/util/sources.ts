// The repository's TypeScript sources and what they import, for the tests that enforce the
// architecture (test/architecture/layers, test/check/imports, test/package/nodeImports).
// Specifiers come from TypeScript's own scanner: static imports, `import type`, re-exports and
// dynamic `import('…')`, never those in comments or strings.

import { readdirSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Every .ts file under a folder of the repository, as sorted repository-relative posix paths. */
export function sourceFiles(folder: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((e) => {
      const path = posix.join(dir, e.name);
      if (e.isDirectory()) return walk(path);
      return e.name.endsWith('.ts') ? [path] : [];
    });
  return walk(relative(repoRoot, resolve(repoRoot, folder)).split('\\').join('/')).sort();
}

/** Every module specifier a source text imports, re-exports or `import()`s. */
export function importSpecifiers(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** A specifier as a repository path (`src/ir/types.ts`), or the bare specifier of a package. */
export function resolveSpecifier(file: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  return posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\.js$/, '.ts');
}
