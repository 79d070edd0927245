// Builds the playground (web/) into a static site: out/web/ by default, git-ignored.
//
//   node scripts/build-web.mjs [--out DIR] [--dev]      (npm run build:web)
//
// esbuild bundles web/src/main.ts, which imports arrayfuse from its source entry
// (src/index.ts): the site always shows the working tree's compiler, with no `npm run build`
// first, and esbuild compiles TypeScript itself. The examples (examples/*.fuse and the case
// studies listed below) are bundled as a virtual module, `arrayfuse:examples`, read at build
// time: the page fetches nothing but its own files. HiGHS' highs.wasm is copied next to the
// bundle; the page hands its URL to `configureSolver`.

import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';
import { embedPrelude } from './embed-prelude.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Case studies offered next to the paper's examples: they plan and run in about a second. */
const caseStudies = ['bench/programs/flashAttention.fuse', 'bench/programs/mg.fuse'];

/** The bundled examples, in menu order: the paper's examples by name, then the case studies. */
export function exampleSources() {
  const paper = readdirSync(join(root, 'examples'))
    .filter((f) => f.endsWith('.fuse'))
    .sort()
    .map((f) => `examples/${f}`);
  return [...paper, ...caseStudies].map((path) => ({
    name: basename(path, '.fuse'),
    path,
    source: readFileSync(join(root, path), 'utf8'),
  }));
}

/** Resolves `arrayfuse:examples` to the examples as JSON, so the bundle carries their text. */
const examplesPlugin = {
  name: 'arrayfuse-examples',
  setup(build) {
    build.onResolve({ filter: /^arrayfuse:examples$/ }, (args) => ({ path: args.path, namespace: 'arrayfuse-examples' }));
    build.onLoad({ filter: /.*/, namespace: 'arrayfuse-examples' }, () => ({
      contents: JSON.stringify(exampleSources()),
      loader: 'json',
      watchFiles: exampleSources().map((e) => join(root, e.path)),
    }));
  },
};

/**
 * Builds the site into `outDir` (emptied first): index.html, style.css, app.js (one ES module)
 * and highs.wasm. Returns the folder. `minify: false` keeps the bundle readable for debugging.
 */
export async function buildWeb({ outDir = join(root, 'out/web'), minify = true } = {}) {
  embedPrelude();
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: [join(root, 'web/src/main.ts')],
    outfile: join(outDir, 'app.js'),
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify,
    sourcemap: true,
    // HiGHS' Emscripten loader imports Node modules only behind its own "are we in Node" test;
    // in a browser those imports are never reached, so they stay external.
    external: ['node:*'],
    plugins: [examplesPlugin],
    logLevel: 'warning',
    tsconfig: join(root, 'web/tsconfig.json'),
  });
  for (const file of ['index.html', 'style.css']) copyFileSync(join(root, 'web', file), join(outDir, file));
  copyFileSync(join(root, 'node_modules/highs/build/highs.wasm'), join(outDir, 'highs.wasm'));
  return outDir;
}

/** `--out DIR` and `--dev` from the command line. */
function parseArgs(argv) {
  const options = {};
  for (let k = 0; k < argv.length; k++) {
    if (argv[k] === '--out' && argv[k + 1] !== undefined) options.outDir = resolve(argv[++k]);
    else if (argv[k] === '--dev') options.minify = false;
    else throw new Error(`build-web: unknown argument ${JSON.stringify(argv[k])} (use --out DIR, --dev)`);
  }
  return options;
}

if (process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url) {
  try {
    const outDir = await buildWeb(parseArgs(process.argv.slice(2)));
    console.log(`playground built in ${outDir}`);
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  }
}
