// NumPy's attention as a contender: one python process, started once, holding Q, K and V, that
// computes softmax(Q Kᵀ / √d) V on request and times each call itself (perf_counter around the
// expression, gc.collect() before it), so the time is NumPy's alone, not the pipe's. Single
// thread: OpenBLAS (and any other BLAS or OpenMP runtime NumPy may use) is limited to one thread
// through the environment before NumPy loads. Each call's result comes back over a file of raw
// little-endian f64 and is checked by the caller. bench/memory/numpy.ts is the same pattern.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lineReader } from '../memory/numpy.js';

export { numpyMissing } from '../memory/numpy.js';

/** The variables that hold every BLAS and OpenMP runtime NumPy may load to one thread. */
export const SINGLE_THREAD_ENV: Readonly<Record<string, string>> = {
  OPENBLAS_NUM_THREADS: '1',
  OMP_NUM_THREADS: '1',
  MKL_NUM_THREADS: '1',
  BLIS_NUM_THREADS: '1',
  VECLIB_MAXIMUM_THREADS: '1',
  NUMEXPR_NUM_THREADS: '1',
};

const SERVER = String.raw`
import gc, sys, time
import numpy as np
n, d = int(sys.argv[2]), int(sys.argv[3])
qkv = np.fromfile(sys.argv[1], dtype='<f8').reshape(3, n, d)
Q, K, V = (np.ascontiguousarray(qkv[i]) for i in range(3))
scale = np.sqrt(d)
def attention(Q, K, V):
    # As referenceAttention writes it: scores / sqrt(d), the row maximum subtracted, exp, P V / row sums.
    s = (Q @ K.T) / scale
    s -= s.max(axis=1, keepdims=True)
    np.exp(s, out=s)
    return (s @ V) / s.sum(axis=1, keepdims=True)
print('ready', np.__version__, flush=True)
out = None
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == 'run':
        out = None
        gc.collect()
        t0 = time.perf_counter()
        out = attention(Q, K, V)
        t1 = time.perf_counter()
        print((t1 - t0) * 1000, flush=True)
    elif cmd[0] == 'dump':
        out.astype('<f8').tofile(cmd[1])
        print('ok', flush=True)
    else:
        break
`;

export interface NumpyAttention {
  readonly version: string;
  /** One timed call: NumPy's own ms and the result. */
  call(): Promise<{ ms: number; result: Float64Array }>;
  close(): void;
}

/** Starts the peer on row-major n×d matrices Q, K, V. */
export async function startNumpyAttention(python: string, q: Float64Array, k: Float64Array, v: Float64Array, n: number, d: number): Promise<NumpyAttention> {
  const dir = mkdtempSync(join(tmpdir(), 'arrayfuse-numpy-'));
  const inputFile = join(dir, 'qkv.f64');
  const outputFile = join(dir, 'out.f64');
  const qkv = new Float64Array(3 * n * d);
  qkv.set(q, 0);
  qkv.set(k, n * d);
  qkv.set(v, 2 * n * d);
  writeFileSync(inputFile, new Uint8Array(qkv.buffer));
  const child = spawn(python, ['-c', SERVER, inputFile, String(n), String(d)], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...SINGLE_THREAD_ENV } });
  const next = lineReader(child);
  const request = async (line: string): Promise<string> => {
    child.stdin.write(line + '\n');
    return next();
  };
  const ready = (await next()).split(' ');
  if (ready[0] !== 'ready') throw new Error(`the NumPy peer said ${ready.join(' ')}`);
  return {
    version: ready[1] ?? '?',
    async call() {
      const ms = Number(await request('run'));
      if (!Number.isFinite(ms)) throw new Error('the NumPy peer answered nonsense');
      if ((await request(`dump ${outputFile}`)) !== 'ok') throw new Error('the NumPy peer could not write its result');
      const bytes = readFileSync(outputFile);
      return { ms, result: new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)) };
    },
    close() {
      child.stdin.end('quit\n');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
