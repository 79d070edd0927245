// singleLoop at large n: what a run costs beyond its loop. arrayfuse's public `run` writing
// into a caller-owned `out` array and writing a fresh result, next to the same fused loop by
// hand into a reused array (the floor: no allocation, no page faults) and into a new array each
// call, and NumPy (bench/memory/numpy.ts) in the same run. All are checked bit for bit against
// the hand loop: the same operations in the same order give the same doubles.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compile, type Output, type RunOptions } from '../../src/index.js';
import { interleave, type Variant, type VariantTiming } from './harness.js';
import { numpyMissing, startNumpy } from './numpy.js';

export type SingleLoopVariant = 'run-out' | 'run' | 'hand-reused' | 'hand-new' | 'numpy';

export const singleLoopVariants: readonly SingleLoopVariant[] = ['run-out', 'run', 'hand-reused', 'hand-new', 'numpy'];

export interface SingleLoopOptions {
  readonly repoRoot: string;
  readonly n: number;
  readonly repetitions: number;
  readonly variants: readonly SingleLoopVariant[];
  /** The python with NumPy for the `numpy` variant. */
  readonly python: string;
}

export interface SingleLoopResult {
  readonly n: number;
  readonly repetitions: number;
  readonly timings: readonly VariantTiming[];
  /** Why a requested variant did not run (NumPy absent), shown under the table. */
  readonly skipped: readonly string[];
  readonly numpyVersion: string | null;
}

/** singleLoop by hand: bs = reverse(as), cs = 2as, ds = cs + 1, result = bs + cs + ds, one pass. */
export function singleLoopHand(a: Float64Array, out: Float64Array): Float64Array {
  const m = a.length;
  for (let i = 0; i < m; i++) {
    const c = a[i]! * 2;
    out[i] = a[m - 1 - i]! + c + (c + 1);
  }
  return out;
}

export function singleLoopInput(n: number): Float64Array {
  const a = new Float64Array(n);
  for (let i = 0; i < n; i++) a[i] = i * 0.5 - n / 7;
  return a;
}

/** A named array result of the public API, as the hand loops return it. */
export function arrayResult(results: Readonly<Record<string, Output>>, name: string): Float64Array | Int32Array {
  const r = results[name];
  if (r === undefined || typeof r === 'number' || Array.isArray(r)) throw new Error(`result ${name} is not an array`);
  const data = (r as { readonly data: unknown }).data;
  if (!(data instanceof Float64Array || data instanceof Int32Array)) throw new Error(`result ${name} is not f64 or i32`);
  return data;
}

const labels: Readonly<Record<SingleLoopVariant, string>> = {
  'run-out': 'arrayfuse `run` with `out`',
  run: 'arrayfuse `run` (fresh result)',
  'hand-reused': 'hand loop into a reused array',
  'hand-new': 'hand loop, new array per call',
  numpy: 'NumPy (four temporaries)',
};

export async function measureSingleLoop(options: SingleLoopOptions): Promise<SingleLoopResult> {
  const { n } = options;
  const as = singleLoopInput(n);
  const expected = [singleLoopHand(as, new Float64Array(n))];
  const program = compile(readFileSync(join(options.repoRoot, 'examples/singleLoop.fuse'), 'utf8'), { fileName: 'examples/singleLoop.fuse' });
  const reused = new Float64Array(n);
  const outArray = new Float64Array(n);
  // `out` names the result to write into; the caller's array is the result (docs/EXECUTION.md).
  const withOut = { out: { result: outArray } } as RunOptions;
  const skipped: string[] = [];
  let numpyVersion: string | null = null;
  const closers: (() => void)[] = [];
  const variants: Variant[] = [];
  for (const id of options.variants) {
    const label = labels[id];
    switch (id) {
      case 'run-out':
        variants.push({
          id,
          label,
          // Poisoned before every call, untimed: a call that did not write `out` cannot pass the check.
          prepare: () => outArray.fill(Number.NaN),
          run: async (check) => {
            await program.run({ as }, withOut);
            return { results: check ? [outArray] : [] };
          },
        });
        break;
      case 'run':
        variants.push({
          id,
          label,
          run: async () => {
            return { results: [arrayResult(await program.run({ as }), 'result')] };
          },
        });
        break;
      case 'hand-reused':
        variants.push({ id, label, run: () => ({ results: [singleLoopHand(as, reused)] }) });
        break;
      case 'hand-new':
        variants.push({ id, label, run: () => ({ results: [singleLoopHand(as, new Float64Array(n))] }) });
        break;
      case 'numpy': {
        const missing = numpyMissing(options.python);
        if (missing !== null) {
          skipped.push(`NumPy skipped: ${missing}`);
          break;
        }
        const peer = await startNumpy(options.python, 'singleLoop', as);
        numpyVersion = peer.version;
        closers.push(() => peer.close());
        variants.push({ id, label: `${label}, NumPy ${peer.version}`, run: (check) => peer.call(check) });
        break;
      }
      default:
        id satisfies never;
    }
  }
  try {
    const timings = await interleave(variants, { repetitions: options.repetitions, expected, what: `singleLoop n = ${n}` });
    return { n, repetitions: options.repetitions, timings, skipped, numpyVersion };
  } finally {
    for (const close of closers) close();
    await program.dispose();
  }
}
