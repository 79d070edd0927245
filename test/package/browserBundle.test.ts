// The core runs anywhere: dist/index.js (the package's entry) bundles for a browser with
// esbuild, every import resolving and none of ours naming a `node:` module. Only the bundle is
// checked, not run (HiGHS would need its .wasm located). HiGHS' Emscripten loader imports
// `node:module` dynamically behind its own "are we in Node" test; that one import is allowed,
// as a browser bundler leaves it external. Needs `npm run build` (pretest runs it).

import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** `node:` imports esbuild met, with who imports them and how. */
interface NodeImport {
  readonly path: string;
  readonly importer: string;
  readonly kind: esbuild.ImportKind;
}

/** The one tolerated `node:` import: HiGHS' loader, dynamically, when it runs under Node. */
function tolerated(i: NodeImport): boolean {
  return i.kind === 'dynamic-import' && i.path === 'node:module' && i.importer.startsWith('node_modules/highs/');
}

async function bundleForBrowser(entry: string): Promise<{ errors: string[]; nodeImports: NodeImport[]; inputs: string[] }> {
  const nodeImports: NodeImport[] = [];
  const noteNodeImports: esbuild.Plugin = {
    name: 'note-node-imports',
    setup(build) {
      build.onResolve({ filter: /^node:/ }, (args) => {
        const found = { path: args.path, importer: args.importer.slice(root.length + 1), kind: args.kind };
        nodeImports.push(found);
        return tolerated(found) ? { path: args.path, external: true } : undefined;
      });
    },
  };
  try {
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      outdir: 'out/browser-bundle',
      metafile: true,
      logLevel: 'silent',
      plugins: [noteNodeImports],
    });
    return { errors: [], nodeImports, inputs: Object.keys(result.metafile.inputs) };
  } catch (e) {
    const failure = e as esbuild.BuildFailure;
    return { errors: failure.errors.map((m) => `${m.location?.file ?? '?'}:${m.location?.line ?? 0}: ${m.text}`), nodeImports, inputs: [] };
  }
}

describe('browser bundle of dist/index.js', () => {
  it('resolves every import and imports no node: module of ours', async () => {
    expect(existsSync(resolve(root, 'dist/index.js')), 'run `npm run build` first').toBe(true);
    const { errors, nodeImports, inputs } = await bundleForBrowser('dist/index.js');
    expect(errors).toEqual([]);
    expect(nodeImports.filter((i) => !tolerated(i))).toEqual([]);
    // The bundle holds the compiler, the planner (with HiGHS) and the JavaScript back end.
    for (const module of ['dist/lower/prelude.js', 'dist/plan/ilp/solver.js', 'dist/runtime/index.js', 'node_modules/highs/build/highs.mjs']) {
      expect(inputs).toContain(module);
    }
  });

  it('fails on a node: import', async () => {
    // The CLI reads files: bundling it for a browser must be refused, which shows the check bites.
    const { errors, nodeImports } = await bundleForBrowser('dist/cli/main.js');
    expect(errors.length + nodeImports.filter((i) => !tolerated(i)).length).toBeGreaterThan(0);
  });
});
