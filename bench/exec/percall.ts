// Run from the repository root. Per-call fixed cost of the public API (issue 11, item 5): µs per call at a small n, where the
// loop itself costs almost nothing, for the public `run`, the driver's `Compiler.execute`, the
// compiled executable's `run` and the same loop by hand. Medians of rounds of `calls` calls.
//
//   npx tsc -p bench/exec/tsconfig.json && node out/bench-exec/bench/exec/percall.js [n] [calls] [rounds]

import { readFileSync } from 'node:fs';
import { compile } from '../../src/index.js';
import { Compiler } from '../../src/driver/index.js';
import type { InterfaceValue } from '../../src/ir/values.js';

const n = Number(process.argv[2] ?? 10);
const calls = Number(process.argv[3] ?? 20000);
const rounds = Number(process.argv[4] ?? 7);

const singleLoop = readFileSync('examples/singleLoop.fuse', 'utf8');
const saxpyAnnotated = 'def main(a: f64, xs: f64[n], ys: f64[n]):\n  return zipWith(lam(x, y): a * x + y, xs, ys)\n';
const saxpyInferred = 'def main(a, xs, ys):\n  return zipWith(lam(x, y): a * x + y, xs, ys)\n';

const as = Float64Array.from({ length: n }, (_, i) => i);
const xs = new Float64Array(n).fill(1);
const ys = new Float64Array(n).fill(2);
const out = new Float64Array(n);

/** singleLoop by hand: the same fused loop, a new array per call. */
function hand(a: Float64Array): Float64Array {
  const m = a.length;
  const r = new Float64Array(m);
  for (let i = 0; i < m; i++) {
    const c = a[i]! * 2;
    r[i] = a[m - 1 - i]! + c + (c + 1);
  }
  return r;
}

const program = compile(singleLoop);
const annotated = compile(saxpyAnnotated);
const inferred = compile(saxpyInferred);
const compiler = new Compiler(singleLoop);
const named: Record<string, InterfaceValue> = { as: { kind: 'array', elem: 'f64', shape: [n], data: as } };
await compiler.execute(named);
const exe = await compiler.executable({ as: { kind: 'array', elem: 'f64', shape: [n] } });
const ordered = [named['as']!];

const cases: Record<string, () => Promise<void>> = {
  'singleLoop run': async () => {
    for (let k = 0; k < calls; k++) await program.run({ as });
  },
  'singleLoop run out': async () => {
    for (let k = 0; k < calls; k++) await program.run({ as }, { out: { result: out } });
  },
  'singleLoop Compiler.execute': async () => {
    for (let k = 0; k < calls; k++) await compiler.execute(named);
  },
  'singleLoop exe.run': async () => {
    for (let k = 0; k < calls; k++) await exe.run(ordered);
  },
  'singleLoop hand': async () => {
    for (let k = 0; k < calls; k++) hand(as);
  },
  'saxpy annotated run': async () => {
    for (let k = 0; k < calls; k++) await annotated.run({ a: 2, xs, ys });
  },
  'saxpy un-annotated run': async () => {
    for (let k = 0; k < calls; k++) await inferred.run({ a: 2.5, xs, ys });
  },
};

for (const run of Object.values(cases)) await run(); // warm up: compile every signature, let V8 optimise
const times: Record<string, number[]> = {};
for (let r = 0; r < rounds; r++) {
  for (const [name, run] of Object.entries(cases)) {
    const t0 = performance.now();
    await run();
    (times[name] ??= []).push(((performance.now() - t0) * 1000) / calls);
  }
}
const median = (x: readonly number[]): number => [...x].sort((a, b) => a - b)[x.length >> 1]!;
for (const [name, t] of Object.entries(times)) console.log(`n=${n} ${name.padEnd(28)} ${median(t).toFixed(2)} µs/call`);
