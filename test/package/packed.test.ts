// The package as a consumer gets it: `npm pack`, unpacked into a scratch project's
// node_modules beside its dependencies (linked from this repository's, so no registry is
// needed), then Node run on an ES module that imports it and a CommonJS file that requires it,
// and TypeScript (strict) on a `.ts` and a `.cts` consumer. Also: the tarball holds every file
// the README links to. Needs `npm run build` (pretest runs it).

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };

let scratch = '';
let packed: string[] = [];

/** Runs Node on a file of the scratch project: its stdout, or the failure with stderr. */
function runNode(file: string): string {
  const run = spawnSync(process.execPath, [file], { cwd: scratch, encoding: 'utf8', timeout: 60_000 });
  expect(run.stderr, `${file} failed`).toBe('');
  expect(run.status).toBe(0);
  return run.stdout;
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'arrayfuse-consumer-'));
  // --ignore-scripts: `prepare` would build again; the suite's pretest has built dist/.
  const listing = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], { cwd: root, encoding: 'utf8' });
  const [pack] = JSON.parse(listing) as { filename: string; files: { path: string }[] }[];
  packed = pack!.files.map((f) => f.path);
  const installed = join(scratch, 'node_modules', 'arrayfuse');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', join(scratch, pack!.filename), '-C', installed, '--strip-components=1']);
  for (const dependency of Object.keys(manifest.dependencies)) {
    const link = join(scratch, 'node_modules', dependency);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(root, 'node_modules', dependency), link, 'dir');
  }
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
}, 120_000);

afterAll(() => {
  if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
});

const program = 'def main(xs: f64[n]):\\n  return fold(+, 0.0, map(lam x: 2.0 * x, xs))\\n';

describe('the packed package', () => {
  it('is imported by an ES module: compile, run, plan v1', () => {
    writeFileSync(
      join(scratch, 'esm.mjs'),
      `import { compile } from 'arrayfuse';
const p = compile('${program}');
const { result } = await p.run({ xs: new Float64Array([1, 2, 3]) });
const plan = await p.plan();
console.log(JSON.stringify({ result, version: plan.version, status: plan.status }));
`,
    );
    expect(JSON.parse(runNode('esm.mjs'))).toEqual({ result: 12, version: 1, status: 'optimal' });
  });

  it('is required by a CommonJS file: compile, run, plan v1', () => {
    writeFileSync(
      join(scratch, 'cjs.cjs'),
      `const { compile, readNpy, writeNpy } = require('arrayfuse');
const p = compile('${program}');
const bytes = writeNpy({ kind: 'array', elem: 'f64', shape: [3], data: new Float64Array([1, 2, 3]) });
p.run({ xs: readNpy(bytes, 'xs.npy').data })
  .then(async ({ result }) => console.log(JSON.stringify({ result, status: (await p.plan()).status })))
  .catch((e) => { console.error(e); process.exit(1); });
`,
    );
    expect(JSON.parse(runNode('cjs.cjs'))).toEqual({ result: 12, status: 'optimal' });
  });

  it('type-checks strictly from an ES module and from a CommonJS module', () => {
    const consumer = (imports: string): string => `${imports}
async function main(): Promise<void> {
  const p = compile('${program}', { strategy: 'ilp' });
  const results = await p.run({ xs: new Float64Array([1, 2]) });
  const total: Output | undefined = results['result'];
  const plan: PlanJson = await p.plan();
  const text: string = await p.render('text');
  console.log(total, plan.version, text.length);
}
void main();
`;
    writeFileSync(join(scratch, 'consumer.ts'), consumer("import { compile, type Output, type PlanJson } from 'arrayfuse';"));
    writeFileSync(join(scratch, 'consumer.cts'), consumer("import { compile, type Output, type PlanJson } from 'arrayfuse';"));
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', noEmit: true, types: [] }, files: ['consumer.ts', 'consumer.cts'] }),
    );
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', scratch], { encoding: 'utf8', timeout: 120_000 });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  }, 120_000);

  it('holds every file the README links to, and LICENSE and CHANGELOG.md', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/i.test(l));
    expect(links.length).toBeGreaterThan(3);
    for (const file of [...links, 'LICENSE', 'CHANGELOG.md', 'README.md']) expect(packed, file).toContain(file.replace(/^\.\//, ''));
    expect(packed.filter((f) => f.endsWith('.map'))).toEqual([]);
  });
});
