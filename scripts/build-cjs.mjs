// The CommonJS entry (`require('arrayfuse')`): dist/cjs/index.js, one file bundled by esbuild
// from the ES module build in dist/, its dependencies left to `require`; and the declarations
// copied beside it under a package.json of `"type": "commonjs"`, so TypeScript reads them as
// the types of a CommonJS module (a `.cts` consumer type-checks against what it will load).
// Runs after `tsc -p tsconfig.build.json` (npm run build).

import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const out = join(dist, 'cjs');

rmSync(out, { recursive: true, force: true });
await esbuild.build({
  entryPoints: [join(dist, 'index.js')],
  outfile: join(out, 'index.js'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // The package's dependencies stay packages: one copy of HiGHS and Graphviz for both entries.
  packages: 'external',
  logLevel: 'warning',
});

/** Every declaration file under `dir`, the CommonJS folder excepted. */
function declarations(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === out ? [] : declarations(path);
    return entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

for (const file of declarations(dist)) {
  const target = join(out, relative(dist, file));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
}
writeFileSync(join(out, 'package.json'), '{ "type": "commonjs" }\n');
