// Per-call overhead: singleLoop at small n through each layer of the API, in µs per call — the
// public `compile(src).run(inputs)`, the driver's `Compiler.execute` on InterfaceValues, the
// compiled Executable's `run` on ordered inputs, and the hand loop writing a new array (as a run
// without `out` returns one). Rounds of many calls each, interleaved (harness.perCall); the
// last call of each round's batch is checked against the hand loop.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Compiler, signatureOf } from '../../src/driver/index.js';
import { compile } from '../../src/index.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import type { RunResult } from '../../src/runtime/index.js';
import { perCall, type Batch, type BatchTiming } from './harness.js';
import { arrayResult, singleLoopHand, singleLoopInput } from './singleLoop.js';

export type OverheadVariant = 'api' | 'execute' | 'executable' | 'hand';
export const overheadVariants: readonly OverheadVariant[] = ['api', 'execute', 'executable', 'hand'];

export interface OverheadResult {
  readonly n: number;
  readonly rounds: number;
  readonly calls: number;
  readonly timings: readonly BatchTiming[];
}

const SOURCE_FILE = 'examples/singleLoop.fuse';

export async function measureOverhead(repoRoot: string, n: number, rounds: number, calls: number): Promise<OverheadResult> {
  const source = readFileSync(join(repoRoot, SOURCE_FILE), 'utf8');
  const as = singleLoopInput(n);
  const expected = [singleLoopHand(as, new Float64Array(n))];
  const program = compile(source, { fileName: SOURCE_FILE });
  const compiler = new Compiler(source, { fileName: SOURCE_FILE, solver: createSolverLoader() });
  const inputs: Record<string, InterfaceValue> = { as: { kind: 'array', elem: 'f64', shape: [n], data: as } };
  const exe = await compiler.executable(signatureOf(compiler.entry, inputs, compiler.file));
  const ordered = [inputs['as']!];
  // The JS back end runs synchronously; awaiting it would time a microtask too.
  const runSync = (): RunResult => {
    const r = exe.run(ordered);
    if (r instanceof Promise) throw new Error('expected the js back end, whose run is synchronous');
    return r;
  };
  const data = (v: InterfaceValue | undefined): Float64Array => (v as { data: Float64Array }).data;
  const batches: Batch[] = [
    {
      id: 'api',
      label: 'public `run`',
      run: async (k) => {
        let r = await program.run({ as });
        for (let i = 1; i < k; i++) r = await program.run({ as });
        return [arrayResult(r, 'result')];
      },
    },
    {
      id: 'execute',
      label: '`Compiler.execute`',
      run: async (k) => {
        let r = await compiler.execute(inputs);
        for (let i = 1; i < k; i++) r = await compiler.execute(inputs);
        return [data(r.results[0])];
      },
    },
    {
      id: 'executable',
      label: "the Executable's `run`",
      run: (k) => {
        let r = runSync();
        for (let i = 1; i < k; i++) r = runSync();
        return [data(r.results[0])];
      },
    },
    {
      id: 'hand',
      label: 'hand loop (new array)',
      run: (k) => {
        let r = singleLoopHand(as, new Float64Array(n));
        for (let i = 1; i < k; i++) r = singleLoopHand(as, new Float64Array(n));
        return [r];
      },
    },
  ];
  try {
    const timings = await perCall(batches, { rounds, calls, expected, what: `per-call singleLoop n = ${n}` });
    return { n, rounds, calls, timings };
  } finally {
    await program.dispose();
    await compiler.dispose();
  }
}
