// The compute benchmark's timing: contenders that compute one program (arrayfuse in this
// process, a native binary as a child process, NumPy in its own python process, a plain JS loop)
// timed INTERLEAVED, as bench/exec and bench/memory do: every repetition runs each contender once,
// starting at a different one each time, after a full garbage collection, so drift on a shared
// machine hits them alike. Each contender times ITSELF and says what it timed: `kernelMs` is the
// computation alone (arrayfuse's call; a native binary's own timed section; NumPy's
// perf_counter around the expression), the figure every comparison uses; `wallMs`, where there
// is one, is the whole child process (start, set-up, exit). EVERY call, the warm-up included, is
// verified (verification is never inside a timed section); one wrong output fails the run.

import { autoRule } from '../../src/runtime/wasm.js';
import { collectGarbage, summarise, type Summary } from '../memory/harness.js';

/** What one call of a contender reports. */
export interface Outcome {
  /** The computation alone, ms. */
  readonly kernelMs: number;
  /** The child process from start to exit, ms (contenders in another process). */
  readonly wallMs?: number;
  /** Null: the output is right. Else what is wrong with it. */
  readonly problem: string | null;
  /** How the output was checked and how close it came (the last call's is kept). */
  readonly verified?: string;
}

/** autoRule.jsWarmUp + 2 × autoRule.autoTrials − 1 (src/runtime/wasm.ts): the calls `auto`'s trials take at most. */
export const arrayfuseWarmUps = autoRule.jsWarmUp + 2 * autoRule.autoTrials - 1;

export type ContenderKind = 'arrayfuse' | 'baseline' | 'native' | 'numpy' | 'js';

export interface Contender {
  readonly id: string;
  /** Shown in tables. */
  readonly label: string;
  readonly kind: ContenderKind;
  /** One call: computes, times itself, verifies its output (outside the timed part). */
  run(): Promise<Outcome>;
  /** Releases what it holds (a process, compiled code). */
  close?(): Promise<void> | void;
}

export interface ContenderTiming {
  readonly id: string;
  readonly label: string;
  readonly kind: ContenderKind;
  readonly kernelRunsMs: readonly number[];
  readonly kernel: Summary;
  readonly wall: Summary | null;
  readonly verified: string;
}

export interface InterleaveOptions {
  readonly repetitions: number;
  /** Names the computation in a failure's message. */
  readonly what: string;
  /**
   * Untimed, verified calls per contender first (default true): one, or for arrayfuse builds
   * `arrayfuseWarmUps` (its `wasm: 'auto'` settles each kernel choice within that many calls;
   * the timed calls measure the settled program, as a native binary's timed section follows
   * its own warm-up).
   */
  readonly warmUp?: boolean;
  readonly log?: (line: string) => void;
}

/** The schedule: for each repetition, the contenders' indices in the order they run. */
export function schedule(contenders: number, repetitions: number): number[][] {
  return Array.from({ length: repetitions }, (_, rep) => Array.from({ length: contenders }, (_, k) => (rep + k) % contenders));
}

/** Times every contender `repetitions` times, interleaved; throws at the first wrong output. */
export async function interleave(contenders: readonly Contender[], options: InterleaveOptions): Promise<ContenderTiming[]> {
  const call = async (c: Contender): Promise<Outcome> => {
    const out = await c.run();
    if (out.problem !== null) throw new Error(`${options.what}, ${c.label}: ${out.problem}`);
    return out;
  };
  if (options.warmUp ?? true) {
    for (const c of contenders) {
      const calls = c.kind === 'arrayfuse' || c.kind === 'baseline' ? arrayfuseWarmUps : 1;
      for (let k = 0; k < calls; k++) await call(c);
    }
  }
  const kernel = contenders.map((): number[] => []);
  const wall = contenders.map((): number[] => []);
  const verified = contenders.map(() => '');
  for (const order of schedule(contenders.length, options.repetitions)) {
    for (const i of order) {
      collectGarbage();
      const out = await call(contenders[i]!);
      kernel[i]!.push(out.kernelMs);
      if (out.wallMs !== undefined) wall[i]!.push(out.wallMs);
      verified[i] = out.verified ?? 'verified';
    }
  }
  const timings = contenders.map((c, i) => ({
    id: c.id,
    label: c.label,
    kind: c.kind,
    kernelRunsMs: kernel[i]!,
    kernel: summarise(kernel[i]!),
    wall: wall[i]!.length === 0 ? null : summarise(wall[i]!),
    verified: verified[i]!,
  }));
  options.log?.(`${options.what}: ${timings.map((t) => `${t.label} ${t.kernel.median.toFixed(1)} ms`).join(', ')}`);
  return timings;
}

/** Times one synchronous or asynchronous computation: its result and the ms it took. */
export async function timed<T>(f: () => T | Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await f();
  return { value, ms: performance.now() - t0 };
}
