// `npm run test:fuzz [-- --count N --seed S --jobs J --threads T]`: a long fuzz campaign (campaign.ts).
// `npm run test:fuzz -- --seed S --program K`: program K of seed S alone, every finding shrunk.
// `npm run test:fuzz -- --loops N [--seed S --jobs J]`: instead, N loop-shape programs (stencils
// and contractions, loopGen.ts), each fused on js, multicore@2 and multicore@3 and compared with
// the interpreter bit for bit (loopCheck.ts); with `--program K`, program K of them alone.
// Every program also runs on the multicore back end with 2 … T threads (default 3; 1: none),
// the ILP plan, the fork threshold at 0 and chunks of `threads` iterations (check.ts
// `threadedModes`), and on one thread with every cluster the WebAssembly translator accepts run
// as a kernel, fused by the ILP and unfused (`wasmModes`).
// J worker processes (default: one per CPU) each check every J-th program and send back
// counts and groups; this process merges them, shrinks each group's smallest program and
// prints the counts per class and one reproducer per group. Exit status 1 when anything was
// found, 2 for a bad option.

import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { checkProgram, modeName, threadedModes, wasmModes } from './check.js';
import { fuzzCase, merge, report, reproduce, scan, secondSet, type ScanResult } from './campaign.js';
import { loopCase, loopReport, scanLoops, type LoopScanResult } from './loopCampaign.js';
import { checkLoopCase } from './loopCheck.js';
import { backends } from '../runtime/backends.js';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isSafeInteger(value) || value < 0) {
    process.stderr.write(`test:fuzz: --${name} needs a non-negative integer, got '${process.argv[at + 1] ?? ''}'\n`);
    process.exit(2);
  }
  return value;
}

const count = option('count', 100_000);
const seed = option('seed', Date.now() % 1_000_000);
const jobs = Math.max(1, option('jobs', availableParallelism()));
const worker = option('worker', -1);
const program = option('program', -1);
const threaded = [...threadedModes(option('threads', 3)), ...wasmModes()];
const loops = option('loops', 0);

/** Workers still running: a worker that fails ends the campaign, and takes the others along. */
const children = new Set<ReturnType<typeof spawn>>();
process.on('exit', () => children.forEach((c) => c.kill()));

function runWorker<R>(index: number): Promise<R> {
  const args = [fileURLToPath(import.meta.url), '--count', String(count), '--seed', String(seed), '--jobs', String(jobs), '--threads', String(option('threads', 3)), '--loops', String(loops), '--worker', String(index)];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    children.add(child);
    child.on('exit', () => children.delete(child));
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !last.startsWith('{')) reject(new Error(`fuzz worker ${index} exited with ${code}`));
      else resolve(JSON.parse(last) as R);
    });
  });
}

/** The loop-shape campaign's slices as one. */
function mergeLoops(parts: readonly LoopScanResult[]): LoopScanResult {
  const groups = new Map<string, LoopScanResult['groups'][number]>();
  for (const g of parts.flatMap((p) => p.groups)) {
    const known = groups.get(g.where);
    if (known === undefined) groups.set(g.where, { ...g });
    else {
      known.count += g.count;
      if (g.size < known.size) Object.assign(known, { k: g.k, size: g.size, finding: g.finding });
    }
  }
  return { programs: parts.reduce((s, p) => s + p.programs, 0), failed: parts.reduce((s, p) => s + p.failed, 0), groups: [...groups.values()] };
}

if (loops > 0) {
  const solver = createSolverLoader();
  if (program >= 0) {
    const findings = await checkLoopCase(loopCase(seed, program), { solver, configs: backends });
    for (const f of findings) process.stdout.write(`=== ${f.where}\n${f.detail}\n`);
    process.stdout.write(`loop program ${program} of seed ${seed}: ${findings.length} finding(s)\n`);
    process.exit(findings.length === 0 ? 0 : 1);
  } else if (worker >= 0) {
    const log = (line: string): void => void process.stderr.write(`worker ${worker}: ${line}\n`);
    const result = await scanLoops({ seed, count: loops, solver, configs: backends, slice: { index: worker, of: jobs }, log });
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  } else {
    process.stdout.write(`fuzz loops: seed ${seed}, ${loops} programs, ${jobs} worker(s), configurations ${backends.map((b) => b.name).join(', ')} (repeat with --seed ${seed})\n`);
    const started = performance.now();
    const result = mergeLoops(await Promise.all(Array.from({ length: jobs }, (_, w) => runWorker<LoopScanResult>(w))));
    process.stdout.write(`${loopReport(seed, result, (performance.now() - started) / 1000)}\n`);
    process.exit(result.failed === 0 ? 0 : 1);
  }
} else if (program >= 0) {
  const solver = createSolverLoader();
  const c = fuzzCase(seed, program);
  const { prog, inputs } = c;
  let found = 0;
  for (let set = 0; set < inputs.length; set++) {
    for (const f of await checkProgram(prog, inputs[set]!, solver, true, secondSet(c, set), threaded)) {
      found++;
      const r = await reproduce(seed, { cls: f.cls, key: f.key, count: 1, k: program, set, size: 0 }, solver, 400, threaded);
      process.stdout.write(`=== ${f.cls.toUpperCase()}: ${f.key}  (program ${program}, input set ${set}, seed ${seed})\n${r.detail}\n`);
    }
  }
  process.stdout.write(`program ${program} of seed ${seed}: ${found} finding(s)\n`);
  process.exit(found === 0 ? 0 : 1);
} else if (worker >= 0) {
  const log = (line: string): void => void process.stderr.write(`worker ${worker}: ${line}\n`);
  const result = await scan({ count, seed, slice: { index: worker, of: jobs }, log, threaded });
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  const threads = threaded.length === 0 ? 'no threaded modes' : `threaded modes ${threaded.map(modeName).join(', ')}`;
  process.stdout.write(`fuzz: seed ${seed}, ${count} programs, ${jobs} worker(s), ${threads} (repeat with --seed ${seed})\n`);
  const started = performance.now();
  const result =
    jobs === 1
      ? await scan({ count, seed, log: (line) => process.stdout.write(`${line}\n`), threaded })
      : merge(await Promise.all(Array.from({ length: jobs }, (_, w) => runWorker<ScanResult>(w))));
  const seconds = (performance.now() - started) / 1000;
  const solver = createSolverLoader();
  const reproducers = [];
  for (const g of result.groups) reproducers.push(await reproduce(seed, g, solver, 400, threaded));
  process.stdout.write(`${report(seed, result, reproducers, seconds, threaded)}\n`);
  process.exit(result.agreed === result.runs ? 0 : 1);
}
