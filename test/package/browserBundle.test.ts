// A web page's bundler takes the package's `browser` entry (dist/browser/index.js, made by
// scripts/build-entries.mjs) with no flags and no shims: esbuild bundles a consumer's page that
// imports 'arrayfuse' by name for the browser, every import resolving and none naming a `node:`
// module. The core itself (dist/index.js) imports no `node:` module of ours either: bundled
// directly, the only one left is HiGHS' loader's own, which the browser entry replaces.
// test/web/consumerPage.test.ts runs such a page in Chromium. Needs `npm run build` (pretest runs it).

import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot as root } from '../util/sources.js';

/** `node:` imports esbuild met, with who imports them and how. */
interface NodeImport {
  readonly path: string;
  readonly importer: string;
  readonly kind: esbuild.ImportKind;
}

async function bundleForBrowser(entry: string, workingDir: string, external: readonly string[] = []): Promise<{ errors: string[]; nodeImports: NodeImport[]; inputs: string[] }> {
  const nodeImports: NodeImport[] = [];
  const noteNodeImports: esbuild.Plugin = {
    name: 'note-node-imports',
    setup(build) {
      build.onResolve({ filter: /^node:/ }, (args) => {
        nodeImports.push({ path: args.path, importer: args.importer, kind: args.kind });
        return undefined;
      });
    },
  };
  try {
    const result = await esbuild.build({
      absWorkingDir: workingDir,
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      outdir: 'out',
      metafile: true,
      logLevel: 'silent',
      external: [...external],
      plugins: [noteNodeImports],
    });
    return { errors: [], nodeImports, inputs: Object.keys(result.metafile.inputs) };
  } catch (e) {
    const failure = e as esbuild.BuildFailure;
    return { errors: failure.errors.map((m) => `${m.location?.file ?? '?'}:${m.location?.line ?? 0}: ${m.text}`), nodeImports, inputs: [] };
  }
}

describe('bundling for a browser', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'arrayfuse-page-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("a page importing 'arrayfuse' by name bundles with no flags: the browser entry, no node: import", async () => {
    expect(existsSync(join(root, 'dist/browser/index.js')), 'run `npm run build` first').toBe(true);
    mkdirSync(join(scratch, 'node_modules'));
    symlinkSync(root, join(scratch, 'node_modules', 'arrayfuse'), 'dir');
    writeFileSync(join(scratch, 'page.js'), "import { compile, configureSolver } from 'arrayfuse';\nconfigureSolver({ wasm: '/highs.wasm' });\nconsole.log(compile('def main(xs):\\n  return xs\\n'));\n");
    const { errors, nodeImports, inputs } = await bundleForBrowser('page.js', scratch);
    expect(errors).toEqual([]);
    expect(nodeImports).toEqual([]);
    expect(inputs.some((i) => i.endsWith('dist/browser/index.js'))).toBe(true);
    expect(inputs.filter((i) => i.includes('node_modules/highs/'))).toEqual([]);
  });

  it("the core, bundled directly, imports no node: module but HiGHS' loader's", async () => {
    const { errors, nodeImports, inputs } = await bundleForBrowser('dist/index.js', root, ['node:module']);
    expect(errors).toEqual([]);
    expect(nodeImports.map((i) => `${i.path} ${i.kind} ${i.importer.slice(root.length + 1)}`)).toEqual(['node:module dynamic-import node_modules/highs/build/highs.mjs']);
    // The bundle holds the compiler, the planner (with HiGHS) and the JavaScript back end.
    for (const module of ['dist/lower/prelude.js', 'dist/plan/ilp/solver.js', 'dist/runtime/index.js', 'node_modules/highs/build/highs.mjs']) {
      expect(inputs).toContain(module);
    }
  });

  it('fails on a node: import', async () => {
    // The CLI reads files: bundling it for a browser must be refused, which shows the check bites.
    const { errors, nodeImports } = await bundleForBrowser('dist/cli/main.js', root);
    expect(errors.length + nodeImports.length).toBeGreaterThan(1);
  });
});
