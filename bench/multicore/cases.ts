// The programs of the multicore benchmark (issue 12, "Benchmarks") with their inputs and an
// independent check of their output: NAS MG class W, LULESH -s 10 and FlashAttention n = 1024,
// d = 64 as the paper harness builds and verifies them (bench/paper/registry.ts: NPB's
// verification value, the TypeScript LULESH simulation and LLNL's numbers, plain-loop
// attention), which must run at least 1.7× faster on 2 threads; singleLoop at n = 10^7 (a
// memory-bound stream) and every shared example at a small n (10^4), checked against its hand
// loop (bench/exec/programs.ts), which must not run slower (at least 0.95×).

import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import { execPrograms, type ExecProgram, type HandResult, type Inputs } from '../exec/programs.js';
import { builtinPrograms, type BenchSize } from '../paper/registry.js';
import { agreement, agreementText, type FlatResults } from './threads.js';

/** Which of the issue's bars a program is held to. */
export type CaseKind = 'app' | 'stream' | 'example';

/** The issue's bar per kind: the N-thread speed-up (1-thread time ÷ N-thread time) it must reach. */
export const bars: Readonly<Record<CaseKind, number>> = { app: 1.7, stream: 0.95, example: 0.95 };

export interface MulticoreCase {
  /** What `--programs` selects it by. */
  readonly id: string;
  /** As the tables show it. */
  readonly name: string;
  readonly kind: CaseKind;
  /** The .fuse file, relative to the repository root. */
  readonly file: string;
  /** The size, as the tables show it. */
  readonly size: string;
  /** Builds the inputs (once per case; every variant runs on the same values). */
  inputs(): Inputs;
  /** A check of one run's results against the case's reference: null when right. Built once per case. */
  verifier(inputs: Inputs): (results: readonly InterfaceValue[]) => string | null;
}

/** The size of a paper-harness program whose label starts with `label`. */
function paperSize(program: string, label: string): { file: string; size: BenchSize } {
  const p = builtinPrograms.find((x) => x.name === program);
  if (p === undefined) throw new Error(`bench/paper/registry.ts has no ${program}`);
  const size = p.sizes.full.find((s) => s.label.startsWith(label));
  if (size === undefined) throw new Error(`${program} has no full size labelled ${label}…`);
  return { file: p.file, size };
}

function appCase(id: string, name: string, program: string, label: string): MulticoreCase {
  const { file, size } = paperSize(program, label);
  return { id, name, kind: 'app', file, size: size.label, inputs: () => size.inputs(), verifier: (inputs) => size.verifier(inputs) };
}

/** The results as a hand loop returns them: a rank-0 array (a fold's result) as its number. */
function asHand(results: readonly InterfaceValue[]): FlatResults {
  const parts = results.flatMap((r) => (Array.isArray(r) ? (r as readonly RuntimeValue[]) : [r as RuntimeValue]));
  return parts.map((v) => (v.kind === 'scalar' ? v.value : v.shape.length === 0 ? v.data[0]! : v.data));
}

function exampleCase(p: ExecProgram, n: number, kind: CaseKind): MulticoreCase {
  return {
    id: p.name,
    name: p.name,
    kind,
    file: p.file,
    size: p.describe(n),
    inputs: () => p.inputs(n),
    verifier(inputs) {
      const expected: HandResult = p.hand(inputs);
      // The hand loop computes every element as the 1-thread code does, so the 1-thread run
      // equals it bit for bit; an N-thread run may regroup a whole-array fold (float policy).
      return (results) => {
        const a = agreement(expected, asHand(results));
        return a.wrong === null ? null : `against the hand loop: ${agreementText(a)}`;
      };
    },
  };
}

/** Sizes of the cases (the issue's unless a command line says otherwise). */
export interface CaseSizes {
  /** singleLoop's elements: 10^7. */
  readonly streamN: number;
  /** The examples' elements: 10^4 (the issue: n ≤ 10^4). */
  readonly exampleN: number;
}

export const issueSizes: CaseSizes = { streamN: 10_000_000, exampleN: 10_000 };

/** Every case, in table order: the three applications, singleLoop's stream, then the examples. */
export function multicoreCases(sizes: CaseSizes = issueSizes): MulticoreCase[] {
  const single = execPrograms.find((p) => p.name === 'singleLoop');
  if (single === undefined) throw new Error('bench/exec/programs.ts has no singleLoop');
  return [
    appCase('mg', 'NAS MG', 'Multigrid', 'class W'),
    appCase('lulesh', 'LULESH', 'LULESH', '-s 10'),
    appCase('flash', 'FlashAttention', 'FlashAttention', 'n=1024, d=64'),
    { ...exampleCase(single, sizes.streamN, 'stream'), id: 'stream', name: 'singleLoop (stream)' },
    ...execPrograms.map((p) => exampleCase(p, sizes.exampleN, 'example')),
  ];
}
