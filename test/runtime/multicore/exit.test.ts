// The pool's workers never keep a process alive: a Node process that compiles a program with
// two threads through the built package (dist/), runs it (large enough to fork), prints the
// result and returns from its script exits by itself — with and without disposing the program.
// A hang is caught by the child's time limit (generous: this machine is shared and slow).

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';

const repo = join(import.meta.dirname, '..', '..', '..');
const dist = join(repo, 'dist', 'index.js');

function child(dispose: boolean): string {
  return `
import { compile } from ${JSON.stringify(pathToFileURL(dist).href)};
const program = compile('def main(xs: f64[n]):\\n  return fold(+, map(lam x: x * 2.0, xs)), scanl(+, xs)\\n', { threads: 2 });
const xs = new Float64Array(200000).map((_, i) => i % 7);
const { result0, result1 } = await program.run({ xs });
const again = await program.run({ xs });
console.log(JSON.stringify({ backend: program.backend, threads: program.threads, sum: result0, last: result1.data[199999], same: again.result0 === result0 }));
${dispose ? 'await program.dispose();' : ''}
`;
}

// dist/ is built by `npm test`'s pretest (and `npm ci`); a checkout without it skips this.
describe.skipIf(!existsSync(dist))('a process that used the pool exits by itself', () => {
  test.each([
    ['without disposing', false],
    ['after disposing', true],
  ])('%s', (_, dispose) => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', child(dispose)], {
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, ARRAYFUSE_THREADS: '2' },
    });
    expect(run.error, run.stderr).toBeUndefined();
    expect(run.signal, `the child was killed after 60 s: it did not exit by itself\n${run.stderr}`).toBeNull();
    expect(run.status, run.stderr).toBe(0);
    const printed = JSON.parse(run.stdout.trim()) as { backend: string; threads: number; sum: number; last: number; same: boolean };
    // Σ 2·(i mod 7) over i < 200000 (a rank-0 result is a number), and the inclusive scan's last element Σ (i mod 7): exact in f64.
    let sum = 0;
    for (let i = 0; i < 200000; i++) sum += i % 7;
    expect(printed).toEqual({ backend: 'multicore', threads: 2, sum: 2 * sum, last: sum, same: true });
  });
});
