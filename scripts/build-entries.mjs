// The package's other entry points, made from the ES module build in dist/ (after
// `tsc -p tsconfig.build.json`; npm run build):
//
// - dist/cjs/index.js, for `require('arrayfuse')`: one CommonJS file bundled by esbuild, its
//   dependencies left to `require`; the declarations copied beside it under a package.json of
//   `"type": "commonjs"`, so TypeScript reads them as a CommonJS module's (a `.cts` consumer
//   type-checks against what it loads).
// - dist/browser/index.js, the `browser` condition of the exports map (what a bundler takes
//   for a web page): one ES module holding HiGHS' loader, whose Node-only `import("node:module")`
//   (reached only when it runs under Node) is replaced by a module that throws, so a page's
//   bundler needs no flags or shims. Graphviz (@viz-js/viz, loaded by the picture renderers)
//   stays a package: it is made for browsers and large.

import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const cjs = join(dist, 'cjs');
const browser = join(dist, 'browser');

/** Node built-ins as a module that says so if it is ever called (it is not, in a browser). */
const nodeBuiltinsUnavailable = {
  name: 'node-builtins-unavailable',
  setup(build) {
    build.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, namespace: 'node-builtin' }));
    build.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({
      contents: `const unavailable = () => { throw new Error(${JSON.stringify(`${args.path} is not available in a browser`)}); };
export const createRequire = unavailable;
export default {};`,
      loader: 'js',
    }));
  },
};

/** Every declaration file under `dir`, the generated entries' folders excepted. */
function declarations(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === cjs || path === browser ? [] : declarations(path);
    return entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

rmSync(cjs, { recursive: true, force: true });
rmSync(browser, { recursive: true, force: true });

await esbuild.build({
  entryPoints: [join(dist, 'index.js')],
  outfile: join(cjs, 'index.js'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // The package's dependencies stay packages: one copy of HiGHS and Graphviz for both entries.
  packages: 'external',
  logLevel: 'warning',
});
for (const file of declarations(dist)) {
  const target = join(cjs, relative(dist, file));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
}
writeFileSync(join(cjs, 'package.json'), '{ "type": "commonjs" }\n');

await esbuild.build({
  entryPoints: [join(dist, 'index.js')],
  outfile: join(browser, 'index.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  external: ['@viz-js/viz'],
  plugins: [nodeBuiltinsUnavailable],
  logLevel: 'warning',
});
