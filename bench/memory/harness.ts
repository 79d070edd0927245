// The memory benchmark's timing: variants of one computation (arrayfuse's entry points, hand
// loops, a NumPy peer in another process) timed INTERLEAVED, as bench/exec does: every
// repetition runs each variant once, starting at a different variant each time, after a full
// garbage collection (node --expose-gc), so drift on a shared machine hits every variant alike.
// Per call it records the wall time and the process's minor page faults (what a fresh large
// array costs: one per 4 KiB page touched); a variant timed in another process reports both
// itself. The warm-up and the last timed call of every variant are checked bit for bit against
// the expected results; a mismatch fails the benchmark.

import { compareResults, median } from '../exec/harness.js';
import type { HandResult } from '../exec/programs.js';

export { compareResults, median };

/** What one call of a variant returns. */
export interface CallResult {
  readonly results: HandResult;
  /** Set by a variant timed elsewhere (another process): its own time for the call, ms. */
  readonly ms?: number;
  /** Set by a variant timed elsewhere: its own minor page faults for the call. */
  readonly faults?: number;
}

export interface Variant {
  readonly id: string;
  /** Shown in tables. */
  readonly label: string;
  /** Untimed, before each call (before the collection): e.g. poison a reused output array. */
  prepare?(check: boolean): void;
  /** One call; `check`: its results are compared (else a peer elsewhere may return none, saving the transfer). */
  run(check: boolean): CallResult | Promise<CallResult>;
}

/** Median, min and max of a variant's timed calls. */
export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export interface VariantTiming {
  readonly id: string;
  readonly label: string;
  readonly runsMs: readonly number[];
  readonly ms: Summary;
  /** Median minor page faults per call. */
  readonly minorFaults: number;
}

export function summarise(xs: readonly number[]): Summary {
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
}

export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run node with --expose-gc (npm run bench:memory does)');
  // Twice: the first collection's array buffers are freed by a concurrent sweep the second completes.
  gc();
  gc();
}

export interface InterleaveOptions {
  readonly repetitions: number;
  /** The results every variant must produce, bit for bit. */
  readonly expected: HandResult;
  /** Names the computation in a mismatch's message. */
  readonly what: string;
}

/** Times every variant `repetitions` times, interleaved, after one checked warm-up each. */
export async function interleave(variants: readonly Variant[], options: InterleaveOptions): Promise<VariantTiming[]> {
  const check = (v: Variant, results: HandResult): void => {
    const wrong = compareResults(options.expected, results);
    if (wrong !== null) throw new Error(`${options.what}, ${v.label}: ${wrong}`);
  };
  for (const v of variants) {
    v.prepare?.(true);
    check(v, (await v.run(true)).results);
  }
  const times = variants.map((): number[] => []);
  const faults = variants.map((): number[] => []);
  for (let rep = 0; rep < options.repetitions; rep++) {
    for (let k = 0; k < variants.length; k++) {
      const i = (rep + k) % variants.length;
      const v = variants[i]!;
      const last = rep === options.repetitions - 1;
      v.prepare?.(last);
      collectGarbage();
      const f0 = process.resourceUsage().minorPageFault;
      const t0 = performance.now();
      const out = await v.run(last);
      const ms = performance.now() - t0;
      const f1 = process.resourceUsage().minorPageFault;
      times[i]!.push(out.ms ?? ms);
      faults[i]!.push(out.faults ?? f1 - f0);
      if (last) check(v, out.results);
    }
  }
  return variants.map((v, i) => ({ id: v.id, label: v.label, runsMs: times[i]!, ms: summarise(times[i]!), minorFaults: median(faults[i]!) }));
}

/** A batch of calls timed as one (per-call overheads far below a timer's resolution). */
export interface Batch {
  readonly id: string;
  readonly label: string;
  /** Makes `calls` calls; returns the last call's results, for the check. */
  run(calls: number): HandResult | Promise<HandResult>;
}

export interface BatchTiming {
  readonly id: string;
  readonly label: string;
  /** µs per call, over rounds. */
  readonly us: Summary;
}

/**
 * µs per call: `rounds` rounds, each timing `calls` calls of every batch in turn (interleaved,
 * starting at a different batch each round), after a checked warm-up round of the same size.
 * No collection between rounds: the allocation a call causes is part of its cost.
 */
export async function perCall(batches: readonly Batch[], options: { readonly rounds: number; readonly calls: number; readonly expected: HandResult; readonly what: string }): Promise<BatchTiming[]> {
  for (const b of batches) {
    const wrong = compareResults(options.expected, await b.run(options.calls));
    if (wrong !== null) throw new Error(`${options.what}, ${b.label}: ${wrong}`);
  }
  const us = batches.map((): number[] => []);
  for (let round = 0; round < options.rounds; round++) {
    for (let k = 0; k < batches.length; k++) {
      const i = (round + k) % batches.length;
      const t0 = performance.now();
      const last = await batches[i]!.run(options.calls);
      us[i]!.push(((performance.now() - t0) * 1000) / options.calls);
      if (round === options.rounds - 1) {
        const wrong = compareResults(options.expected, last);
        if (wrong !== null) throw new Error(`${options.what}, ${batches[i]!.label}: ${wrong}`);
      }
    }
  }
  return batches.map((b, i) => ({ id: b.id, label: b.label, us: summarise(us[i]!) }));
}

/** `12.3 (11.9–13.0)`: a median with its min and max. */
export function spread(s: Summary, digits = 2): string {
  const f = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(digits));
  return `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
}

export const ratio = (x: number): string => `${x >= 10 ? x.toFixed(0) : x.toFixed(2)}×`;

export const mib = (bytes: number | null | undefined): string =>
  bytes === null || bytes === undefined ? '–' : `${(bytes / 2 ** 20).toFixed(bytes < 2 ** 20 && bytes > 0 ? 3 : 1)}`;
