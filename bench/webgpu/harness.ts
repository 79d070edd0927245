// Timing for bench:webgpu, as bench:exec and bench:multicore time: every variant of one
// comparison runs once per repetition, INTERLEAVED (each repetition starts at a different
// variant) after a full garbage collection, so drift on a shared machine hits every variant
// alike; a variant whose call is short is timed in samples of several calls (fixed per
// comparison from a warm run so that a sample lasts at least `minSampleMs`) and reported per
// call. A run of the webgpu back end ends at its read back, so the time of a call is the
// device's work as well as the host's.
//
// Checks: every variant's warm-up and its last timed call are compared with the `js` back end's
// results of the same program and inputs, by the f32 tolerance of the WebGPU tests
// (test/webgpu/tolerance.ts); a variant that fails a check, compile or run is reported FAILED
// with the reason and has no time.

import type { InterfaceValue } from '../../src/ir/values.js';
import { collectGarbage, summarise, type Summary } from '../memory/harness.js';
import { firstDifference } from '../../test/webgpu/tolerance.js';
import type { Output } from '../../src/index.js';

/** One way to run the computation being compared. */
export interface TimedVariant {
  readonly label: string;
  /** One call: its results (checked at the warm-up and the last timed call). */
  run(): Promise<readonly InterfaceValue[]>;
  /** The reference results (the js back end's for the same program and inputs): null skips the check. */
  readonly expected: readonly InterfaceValue[] | null;
}

export interface VariantTiming {
  readonly label: string;
  /** Per-call ms of each timed sample, in repetition order (empty when the variant failed). */
  readonly runsMs: readonly number[];
  readonly ms: Summary | null;
  /** Why the variant has no time (compile or run error, a failed check). */
  readonly error: string | null;
}

export interface TimingOptions {
  readonly repetitions: number;
  /** A sample of calls lasts at least this long (ms), measured on the first variant. */
  readonly minSampleMs: number;
  readonly log?: (line: string) => void;
}

export function message(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/** A result as the public API gives it (the form test/webgpu/tolerance.ts compares). */
export function asOutput(v: InterfaceValue): Output {
  if (Array.isArray(v)) return (v as readonly InterfaceValue[]).map(asOutput);
  const value = v as Exclude<InterfaceValue, readonly unknown[]>;
  if (value.kind === 'scalar') return value.value;
  return { data: value.data, shape: value.shape };
}

/** The first element of `got` beyond the f32 tolerance of `want`, or null. */
export function difference(got: readonly InterfaceValue[], want: readonly InterfaceValue[]): string | null {
  if (got.length !== want.length) return `${got.length} results, want ${want.length}`;
  for (let k = 0; k < want.length; k++) {
    const d = firstDifference(asOutput(got[k]!), asOutput(want[k]!), `result ${k}`);
    if (d !== null) return d;
  }
  return null;
}

interface State {
  readonly variant: TimedVariant;
  readonly runsMs: number[];
  error: string | null;
}

/** Times the variants interleaved (see the file comment); variants that fail are reported, not thrown. */
export async function timeInterleaved(variants: readonly TimedVariant[], options: TimingOptions): Promise<VariantTiming[]> {
  const log = options.log ?? (() => {});
  const states: State[] = variants.map((variant) => ({ variant, runsMs: [], error: null }));
  const call = async (s: State, check: boolean): Promise<boolean> => {
    try {
      const results = await s.variant.run();
      if (check && s.variant.expected !== null) {
        const wrong = difference(results, s.variant.expected);
        if (wrong !== null) s.error = `differs from the js back end: ${wrong}`;
      }
    } catch (e) {
      s.error = `run failed: ${message(e)}`;
    }
    if (s.error !== null) log(`  ${s.variant.label}: ${s.error}`);
    return s.error === null;
  };
  // Checked warm-up: pipelines, pools and device buffers made; V8 compiles main.
  for (const s of states) await call(s, true);
  const live = (): State[] => states.filter((s) => s.error === null);
  let callsPerSample = 1;
  const first = live()[0];
  if (first !== undefined) {
    const t0 = performance.now();
    let calls = 0;
    while ((calls < 3 || performance.now() - t0 < options.minSampleMs) && (await call(first, false))) calls++;
    const perCall = (performance.now() - t0) / Math.max(1, calls);
    callsPerSample = Math.max(1, Math.min(10_000, Math.ceil(options.minSampleMs / Math.max(perCall, 1e-3))));
  }
  for (let rep = 0; rep < options.repetitions; rep++) {
    const entries = live();
    for (let k = 0; k < entries.length; k++) {
      const s = entries[(rep + k) % entries.length]!;
      collectGarbage();
      const t0 = performance.now();
      let ok = true;
      for (let c = 0; c < callsPerSample && ok; c++) ok = await call(s, rep === options.repetitions - 1 && c === callsPerSample - 1);
      if (ok) s.runsMs.push((performance.now() - t0) / callsPerSample);
    }
    log(`  repetition ${rep + 1}/${options.repetitions}: ${states.map((s) => `${s.variant.label} ${s.runsMs.at(-1)?.toFixed(3) ?? '–'} ms`).join(', ')}`);
  }
  return states.map((s) => ({
    label: s.variant.label,
    runsMs: s.error === null ? s.runsMs : [],
    ms: s.error === null && s.runsMs.length > 0 ? summarise(s.runsMs) : null,
    error: s.error,
  }));
}
