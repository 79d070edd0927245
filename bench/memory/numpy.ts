// The NumPy peer: one python3 process, started once, that computes a program's NumPy
// equivalent on request and times each call itself (time.perf_counter around the expression,
// gc.collect() before it, minor page faults from resource.getrusage), so the time excludes the
// pipe. The harness interleaves its calls with the JavaScript variants by alternating process
// calls: each timed NumPy call is one request, made in its turn of the repetition schedule.
// Inputs go over a file of raw little-endian f64; results come back the same way when checked.
// Without python3 or NumPy the peer is absent and the benchmark says so and skips it.

import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallResult } from './harness.js';

/** The peer's loop: `run` computes and times one call; `dump PATH` writes the last result. */
const SERVER = String.raw`
import gc, resource, sys, time
import numpy as np
a = np.fromfile(sys.argv[1], dtype='<f8')
out = None
def single_loop(a):
    # singleLoop as NumPy writes it: bs = a[::-1] (a view), four temporaries (c, c + 1, the two sums).
    c = a * 2.0
    return a[::-1] + c + (c + 1.0)
kernels = {'singleLoop': single_loop}
kernel = kernels[sys.argv[2]]
print('ready', np.__version__, flush=True)
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == 'run':
        out = None
        gc.collect()
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        t0 = time.perf_counter()
        out = kernel(a)
        t1 = time.perf_counter()
        f1 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        print((t1 - t0) * 1000, f1 - f0, flush=True)
    elif cmd[0] == 'dump':
        out.astype('<f8').tofile(cmd[1])
        print('ok', flush=True)
    else:
        break
`;

export interface NumpyPeer {
  /** The NumPy version, for the table. */
  readonly version: string;
  /** One timed call; with `check`, also its result. */
  call(check: boolean): Promise<CallResult>;
  close(): void;
}

/** Why the peer cannot run here (no python, no NumPy), or null when it can. */
export function numpyMissing(python: string): string | null {
  const probe = spawnSync(python, ['-c', 'import numpy'], { encoding: 'utf8' });
  if (probe.error !== undefined) return `${python} not found (${probe.error.message})`;
  if (probe.status !== 0) return `${python} has no NumPy (${probe.stderr.trim().split('\n').pop() ?? ''})`;
  return null;
}

/** Reads the child's stdout line by line (bench/compute/numpy.ts reads its peer with it too). */
export function lineReader(child: ChildProcessWithoutNullStreams): () => Promise<string> {
  let buffered = '';
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let failure: Error | null = null;
  const fail = (e: Error): void => {
    failure = e;
    for (const w of waiting.splice(0)) w('');
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const w = waiting.shift();
      if (w === undefined) lines.push(line);
      else w(line);
    }
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  child.on('exit', (code) => fail(new Error(`the NumPy peer exited (${code}): ${stderr.trim()}`)));
  child.on('error', fail);
  return () =>
    new Promise((resolve, reject) => {
      const line = lines.shift();
      if (line !== undefined) return resolve(line);
      if (failure !== null) return reject(failure);
      waiting.push((l) => (failure !== null && l === '' ? reject(failure) : resolve(l)));
    });
}

/** Starts the peer on `input` for one of its kernels (`singleLoop`). */
export async function startNumpy(python: string, kernel: 'singleLoop', input: Float64Array): Promise<NumpyPeer> {
  const dir = mkdtempSync(join(tmpdir(), 'arrayfuse-numpy-'));
  const inputFile = join(dir, 'input.f64');
  const outputFile = join(dir, 'output.f64');
  writeFileSync(inputFile, new Uint8Array(input.buffer, input.byteOffset, input.byteLength));
  const child = spawn(python, ['-c', SERVER, inputFile, kernel], { stdio: ['pipe', 'pipe', 'pipe'] });
  const next = lineReader(child);
  const ready = (await next()).split(' ');
  if (ready[0] !== 'ready') throw new Error(`the NumPy peer said ${ready.join(' ')}`);
  const request = async (line: string): Promise<string> => {
    child.stdin.write(line + '\n');
    return next();
  };
  return {
    version: ready[1] ?? '?',
    async call(check) {
      const [ms, faults] = (await request('run')).split(' ').map(Number);
      if (!Number.isFinite(ms) || !Number.isFinite(faults)) throw new Error('the NumPy peer answered nonsense');
      if (!check) return { results: [], ms: ms!, faults: faults! };
      if ((await request(`dump ${outputFile}`)) !== 'ok') throw new Error('the NumPy peer could not write its result');
      const bytes = readFileSync(outputFile);
      const result = new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      return { results: [result], ms: ms!, faults: faults! };
    },
    close() {
      child.stdin.end('quit\n');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
