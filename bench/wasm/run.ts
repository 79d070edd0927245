// WebAssembly kernels against the JavaScript loops they replace, per cluster (docs/EXECUTION.md,
// "WebAssembly"): the measurements `auto`'s rule (src/runtime/wasm.ts `autoRule`) comes from.
//
//   npm run bench:wasm -- [--rounds 7] [--only mg,fa,map,examples]
//
// Each case compiles one executable each with `wasm: 'off'`, `'on'` and `'auto'` and runs them
// alternately (interleaved, so machine noise hits all alike), with per-cluster timing; it
// prints each cluster's median time off and on, and the whole runs' medians in all three modes
// (auto's include its trial calls), and checks that all give the same results bit for bit. `on`
// times include staging (the copies into and out of the kernel's memory).
//
// Inputs: MG class W's right-hand side from NPB's zran3 (bench/programs/mg-reference.ts);
// FlashAttention n = 1024, d = 64, br = bc = 64 on seeded uniform Q, K, V; the examples on
// seeded arrays of 2^20 elements; a compute-heavy map (a degree-16 polynomial per element).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Compiler } from '../../src/driver/index.js';
import type { InputSignature } from '../../src/lower/index.js';
import type { InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import type { Executable, RunResult } from '../../src/runtime/index.js';
import { zran3 } from '../programs/mg-reference.js';
import { findRepoRoot } from '../cli.js';

const repoRoot = findRepoRoot();

interface Case {
  readonly name: string;
  readonly source: string;
  readonly entry?: string;
  readonly inputs: readonly RuntimeValue[];
  readonly names: readonly string[];
}

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const f64 = (shape: number[], r: () => number, scale = 1): RuntimeValue => {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Float64Array(n);
  for (let k = 0; k < n; k++) data[k] = (r() * 2 - 1) * scale;
  return { kind: 'array', elem: 'f64', shape, data };
};
const i32s = (n: number, bound: number, r: () => number): RuntimeValue => {
  const data = new Int32Array(n);
  for (let k = 0; k < n; k++) data[k] = Math.floor(r() * bound);
  return { kind: 'array', elem: 'i32', shape: [n], data };
};
const scalar = (elem: 'i32' | 'f64', value: number): RuntimeValue => ({ kind: 'scalar', elem, value });

function programFile(name: string): string {
  return readFileSync(join(repoRoot, name), 'utf8');
}

const polynomial = `def main(xs: f64[n]):
  return map(lam x: ((((((((((((((((x * 0.5 + 1.0) * x - 0.25) * x + 0.125) * x - 2.0) * x + 0.75) * x - 1.5) * x + 3.0) * x - 0.5) * x + 0.25) * x - 0.125) * x + 2.0) * x - 0.75) * x + 1.5) * x - 3.0) * x + 0.5) * x - 1.0), xs)
`;

function cases(only: ReadonlySet<string> | null): Case[] {
  const r = rng(13);
  const out: Case[] = [];
  const want = (k: string): boolean => only === null || only.has(k);
  if (want('mg')) {
    const v: RuntimeValue = { kind: 'array', elem: 'f64', shape: [128, 128, 128], data: zran3(128) };
    out.push({ name: 'MG class W', source: programFile('bench/programs/mg.fuse'), entry: 'mg', inputs: [v, scalar('i32', 4)], names: ['v', 'nit'] });
  }
  if (want('fa')) {
    const n = 1024;
    const d = 64;
    out.push({
      name: 'FlashAttention n=1024 d=64 br=bc=64',
      source: programFile('bench/programs/flashAttention.fuse'),
      entry: 'flashAttention',
      inputs: [f64([n, d], r), f64([n, d], r), f64([n, d], r), scalar('i32', 64), scalar('i32', 64)],
      names: ['Q', 'K', 'V', 'br', 'bc'],
    });
  }
  if (want('map')) out.push({ name: 'polynomial map n=2^20', source: polynomial, inputs: [f64([1 << 20], r)], names: ['xs'] });
  if (want('examples')) {
    const n = 1 << 20;
    const ex = (file: string, inputs: RuntimeValue[], names: string[]): void => {
      out.push({ name: `examples/${file}`, source: programFile(`examples/${file}.fuse`), inputs, names });
    };
    ex('singleLoop', [f64([n], r)], ['as']);
    ex('simple1', [i32s(n, n, r), f64([n], r)], ['is', 'xs']);
    ex('scatterExample', [f64([n], r)], ['xs']);
  }
  return out;
}

function signatureOf(c: Case): Record<string, InputSignature> {
  const sig: Record<string, InputSignature> = {};
  c.inputs.forEach((v, k) => {
    sig[c.names[k]!] = v.kind === 'array' ? { kind: 'array', elem: v.elem, shape: v.shape } : { kind: 'scalar', elem: v.elem, value: v.value };
  });
  return sig;
}

function sameBits(a: RunResult, b: RunResult): boolean {
  const flat = (x: InterfaceValue): RuntimeValue[] => (Array.isArray(x) ? (x as RuntimeValue[]) : [x as RuntimeValue]);
  const xs = a.results.flatMap(flat);
  const ys = b.results.flatMap(flat);
  if (xs.length !== ys.length) return false;
  return xs.every((x, k) => {
    const y = ys[k]!;
    if (x.kind === 'scalar' || y.kind === 'scalar') return x.kind === 'scalar' && y.kind === 'scalar' && Object.is(x.value, y.value);
    if (x.data.length !== y.data.length) return false;
    const u = new Uint8Array(x.data.buffer, x.data.byteOffset, x.data.byteLength);
    const w = new Uint8Array(y.data.buffer, y.data.byteOffset, y.data.byteLength);
    return u.every((b, i) => b === w[i]);
  });
}

type Mode = 'off' | 'on' | 'auto';

const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

async function bench(c: Case, rounds: number): Promise<void> {
  const sig = signatureOf(c);
  const exes: Record<Mode, Executable> = {
    off: await new Compiler(c.source, { entry: c.entry, backend: 'js', wasm: 'off' }).executable(sig),
    on: await new Compiler(c.source, { entry: c.entry, backend: 'js', wasm: 'on' }).executable(sig),
    auto: await new Compiler(c.source, { entry: c.entry, backend: 'js', wasm: 'auto' }).executable(sig),
  };
  const total: Record<Mode, number[]> = { off: [], on: [], auto: [] };
  const perCluster: Record<Mode, number[][]> = { off: [], on: [], auto: [] };
  let same = true;
  for (let round = 0; round < rounds + 1; round++) {
    const results: Partial<Record<Mode, RunResult>> = {};
    for (const mode of round % 2 === 0 ? (['off', 'on', 'auto'] as const) : (['auto', 'on', 'off'] as const)) {
      const t0 = performance.now();
      const res = await exes[mode].run(c.inputs, { timing: true });
      const dt = performance.now() - t0;
      results[mode] = res;
      if (round === 0) continue; // warm-up: compiles, tiers up, fills the pool
      total[mode].push(dt);
      res.stats.clusters.forEach((cl, k) => (perCluster[mode][k] ??= []).push(cl.timeMs ?? 0));
    }
    same &&= sameBits(results.off!, results.on!) && sameBits(results.off!, results.auto!);
  }
  const ratio = (m: Mode): string => `x${(median(total.off) / median(total[m])).toFixed(2)}`;
  console.log(
    `\n${c.name}: whole run (median of ${rounds} after a warm-up) off ${median(total.off).toFixed(2)} ms, on ${median(total.on).toFixed(2)} ms (${ratio('on')}), ` +
      `auto ${median(total.auto).toFixed(2)} ms (${ratio('auto')}); results ${same ? 'bit-identical' : 'DIFFER'}`,
  );
  console.log('  cluster   js ms   wasm ms   speed-up');
  perCluster.off.forEach((times, k) => {
    const js = median(times);
    const wasm = median(perCluster.on[k]!);
    if (js < 0.05 && wasm < 0.05) return;
    console.log(`  c${String(k).padEnd(6)} ${js.toFixed(3).padStart(8)} ${wasm.toFixed(3).padStart(9)}   x${(js / wasm).toFixed(2)}`);
  });
  exes.off.dispose();
  exes.on.dispose();
  exes.auto.dispose();
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const at = (flag: string): string | undefined => {
    const k = args.indexOf(flag);
    return k >= 0 ? args[k + 1] : undefined;
  };
  const rounds = Number(at('--rounds') ?? 7);
  const only = at('--only');
  for (const c of cases(only === undefined ? null : new Set(only.split(',')))) await bench(c, rounds);
  process.exit(0);
}

void main();
