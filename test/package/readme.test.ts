// The README's TypeScript is real: every ```ts block, as it stands, type-checks under
// `strict` as a consumer's ES module importing 'arrayfuse' (this package, linked into a scratch
// project), and runs in Node without an error. Needs `npm run build` (pretest runs it).

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../util/sources.js';

const snippets = [...readFileSync(join(repoRoot, 'README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
let scratch = '';

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'arrayfuse-readme-'));
  mkdirSync(join(scratch, 'node_modules'));
  symlinkSync(repoRoot, join(scratch, 'node_modules', 'arrayfuse'), 'dir');
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'readme', private: true, type: 'module' }));
  snippets.forEach((code, k) => writeFileSync(join(scratch, `snippet${k}.ts`), code));
});

afterAll(() => {
  if (scratch !== '') rmSync(scratch, { recursive: true, force: true });
});

describe('the README', () => {
  it('has TypeScript examples', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(3);
    for (const code of snippets) expect(code).toMatch(/from 'arrayfuse'/);
  });

  it('every TypeScript example type-checks strictly', () => {
    const files = snippets.map((_, k) => `snippet${k}.ts`);
    writeFileSync(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', lib: ['ES2022'], noEmit: true, typeRoots: [join(repoRoot, 'node_modules/@types')], types: ['node'] }, files }),
    );
    const tsc = spawnSync(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', scratch], { encoding: 'utf8', timeout: 120_000 });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  }, 120_000);

  it.each(snippets.map((_, k) => k))('TypeScript example %i runs', async (k) => {
    const { code } = await esbuild.transform(snippets[k]!, { loader: 'ts', format: 'esm' });
    const file = join(scratch, `snippet${k}.mjs`);
    writeFileSync(file, code);
    const run = spawnSync(process.execPath, [file], { cwd: scratch, encoding: 'utf8', timeout: 60_000, env: { ...process.env, ARRAYFUSE_THREADS: '1' } });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  }, 60_000);
});
