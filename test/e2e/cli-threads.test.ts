// `--threads N` on the commands that run fused code (`run`, `demo`): a positive integer or a
// usage error (exit 2) that names the flag; `--stats` says the threads and back end that ran;
// ARRAYFUSE_THREADS sets the default, and a bad value of it is a usage error too.

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { bundledExampleCount } from './cliHarness.js';

const repo = join(import.meta.dirname, '..', '..');
const example = (name: string): string => join(repo, 'examples', name);

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => (out += t.endsWith('\n') ? t : t + '\n'), err: (t) => (err += t.endsWith('\n') ? t : t + '\n') });
  return { code, out, err };
}

/** `run` on simple1 (a gather) with random inputs, plus `flags`. */
const runSimple1 = (...flags: string[]) => cli('run', example('simple1.fuse'), '--random', 'is=i32[50]@0..99', '--random', 'xs=f64[100]', ...flags);

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('--threads', () => {
  it('run --threads 1 --stats runs the js back end and says so', async () => {
    const { code, out, err } = await runSimple1('--threads', '1', '--stats');
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toMatch(/^stats:\n {2}threads: 1 \(js\)$/m);
  });

  it('without it, --stats shows the default: ARRAYFUSE_THREADS, one thread in this suite', async () => {
    const { code, out } = await runSimple1('--stats');
    expect(code).toBe(0);
    expect(out).toMatch(/^ {2}threads: 1 \(js\)$/m);
  });

  it.each(['0', '-1', '1.5', 'two', '', '0x2', '257'])('run --threads %j is a usage error naming the flag', async (value) => {
    const { code, out, err } = await runSimple1(`--threads=${value}`);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain("option '--threads <n>' argument");
    expect(err).toContain('expected an integer number of threads from 1 to 256');
  });

  it('demo --threads 1 runs every example on one thread; a bad value is a usage error', async () => {
    const good = await cli('demo', '--threads', '1', '--size', '4');
    expect(good.code).toBe(0);
    expect(good.out.match(/agrees with the reference interpreter: yes/g)).toHaveLength(bundledExampleCount);
    const bad = await cli('demo', '--threads', '0');
    expect([bad.code, bad.out]).toEqual([2, '']);
    expect(bad.err).toContain("option '--threads <n>' argument '0' is invalid");
  });

  it('--help of run and demo documents it', async () => {
    for (const command of ['run', 'demo']) {
      const { code, out } = await cli(command, '--help');
      expect(code).toBe(0);
      // Commander wraps the help to the terminal's width.
      const help = out.replace(/\s+/g, ' ');
      expect(help).toContain('--threads <n>');
      expect(help).toContain('1 runs the js back end, more the multicore one');
      expect(help).toContain("(default ARRAYFUSE_THREADS, else the machine's available parallelism; more than its cores is slow)");
    }
  });

  it('a bad ARRAYFUSE_THREADS is a usage error naming it; --threads overrides it', async () => {
    vi.stubEnv('ARRAYFUSE_THREADS', 'many');
    const bad = await runSimple1();
    expect(bad.code).toBe(2);
    expect(bad.err).toBe('error: ARRAYFUSE_THREADS="many": expected an integer number of threads, 1 or more\n');
    const given = await runSimple1('--threads', '1');
    expect(given.code).toBe(0);
    expect((await cli('demo', '--size', '2')).code).toBe(2);
  });

  it('the installed command reads ARRAYFUSE_THREADS too', () => {
    const installed = (threads: string) =>
      spawnSync(process.execPath, [join(repo, 'bin', 'arrayfuse.js'), 'run', example('singleLoop.fuse'), '--random', 'as=f64[10]', '--stats'], {
        encoding: 'utf8',
        env: { ...process.env, ARRAYFUSE_THREADS: threads },
      });
    const one = installed('1');
    expect(one.status).toBe(0);
    expect(one.stdout).toMatch(/^ {2}threads: 1 \(js\)$/m);
    const bad = installed('1.5');
    expect([bad.status, bad.stdout, bad.stderr]).toEqual([2, '', 'error: ARRAYFUSE_THREADS="1.5": expected an integer number of threads, 1 or more\n']);
  });

  describe('on the multicore back end', () => {
    it('run --threads 2 prints what --threads 1 prints, and --stats says 2 (multicore)', async () => {
      const one = await runSimple1('--threads', '1');
      const two = await runSimple1('--threads', '2', '--stats');
      expect(two.code).toBe(0);
      expect(two.out).toMatch(/^ {2}threads: 2 \(multicore\)$/m);
      expect(two.out.slice(0, two.out.indexOf('stats:'))).toBe(one.out);
    });

    it('ARRAYFUSE_THREADS=2 makes it the default', async () => {
      vi.stubEnv('ARRAYFUSE_THREADS', '2');
      const { code, out } = await runSimple1('--stats');
      expect(code).toBe(0);
      expect(out).toMatch(/^ {2}threads: 2 \(multicore\)$/m);
    });

    it('demo --threads 2: every example agrees with the interpreter', async () => {
      const { code, out } = await cli('demo', '--threads', '2');
      expect(code).toBe(0);
      expect(out.match(/agrees with the reference interpreter: yes/g)).toHaveLength(bundledExampleCount);
    });
  });
});
