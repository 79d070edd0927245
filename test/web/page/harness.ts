// The page of the browser differential tests (test/web/gpuPage.ts bundles it with esbuild and
// drives it with playwright-core). It exposes `window.arrayfuseHarness`: the page's WebGPU
// adapter (described, or null) and `runCases(backend, cases)`, which compiles each case for
// the named back end, runs it twice, runs the reference interpreter on it, and sends back every
// outcome as wire data (./wire.ts): results, or the error each raised. Only arrayfuse's public
// API is used, from the working tree's source (src/index.ts), so no `npm run build` is needed
// and what runs is what is checked out.

import { compile, configureSolver, renderDiagnostic, UserError, type BackendName, type FuseProgram, type Input, type Output } from '../../../src/index.js';
import { webgpuAdapter } from '../../../web/src/gpu.js';
import {
  decodeRecord, encodeRecord, encodeValue, sameWire, type CaseOptions, type Harness, type PlainValue, type WireCase, type WireCaseResult, type WireError,
  type WireOutcome, type WireRecord,
} from './wire.js';

declare global {
  interface Window {
    arrayfuseHarness?: Harness;
  }
}

// HiGHS' wasm is served beside the bundle (gpuPage.ts copies it there).
configureSolver({ wasm: new URL('highs.wasm', location.href) });

function errorOf(e: unknown): WireError {
  if (e instanceof UserError) {
    const d = e.diagnostics[0]!;
    return { name: 'UserError', code: d.code, message: d.message, located: renderDiagnostic(d).split('\n')[0]! };
  }
  if (e instanceof Error) return { name: e.name, message: e.message };
  return { name: 'thrown', message: String(e) };
}

/**
 * Inputs as the API takes them, decoded afresh for every run so that no run sees another's
 * arrays; an aliased input is the very object of the input it names.
 */
function inputsOf(c: WireCase): Record<string, Input> {
  const inputs = decodeRecord(c.inputs) as Record<string, Input>;
  for (const [name, same] of Object.entries(c.aliases ?? {})) {
    if (!Object.hasOwn(inputs, same)) throw new TypeError(`case ${c.name}: alias ${name} names no input ${JSON.stringify(same)}`);
    Object.defineProperty(inputs, name, { value: inputs[same], enumerable: true, writable: true, configurable: true });
  }
  return inputs;
}

function resultsOf(results: Readonly<Record<string, Output>>): WireRecord {
  return encodeRecord(results as Readonly<Record<string, PlainValue>>);
}

async function outcomeOf(work: () => Promise<{ results: Readonly<Record<string, Output>>; fallback?: UserError }>): Promise<WireOutcome> {
  try {
    const { results, fallback } = await work();
    return fallback === undefined ? { ok: true, results: resultsOf(results) } : { ok: true, results: resultsOf(results), fallback: errorOf(fallback) };
  } catch (e) {
    return { ok: false, error: errorOf(e) };
  }
}

async function runCase(backend: string, c: WireCase, compiled: Map<string, FuseProgram>): Promise<WireCaseResult> {
  const start = performance.now();
  const options: CaseOptions = c.options ?? {};
  const fileName = c.fileName ?? 'case.fuse';
  // One compiled program per source, file name and options in a batch: a program run at
  // several sizes reuses it, as an application would (and its device buffers between runs).
  const key = JSON.stringify([c.source, fileName, options]);
  let program = compiled.get(key);
  let compileError: WireError | undefined;
  if (program === undefined) {
    try {
      program = compile(c.source, { ...options, fileName, backend: backend as BackendName, threads: 1 });
      compiled.set(key, program);
    } catch (e) {
      compileError = errorOf(e);
    }
  }
  const fusedRun = (inputs: Record<string, Input>): Promise<WireOutcome> =>
    program === undefined ? Promise.resolve({ ok: false, error: compileError! }) : outcomeOf(() => program!.execute(inputs));
  // The inputs of the first run are checked afterwards: a run never writes its inputs.
  const given = inputsOf(c);
  const fused = await fusedRun(given);
  const fusedAgain = await fusedRun(inputsOf(c));
  const inputsIntact = c.inputs.every(([name, value]) => sameWire(encodeValue(given[name] as PlainValue), value));
  const reference = await outcomeOf(async () => {
    const interpreted = compile(c.source, { ...options, fileName, backend: 'js', threads: 1 });
    return await interpreted.execute(inputsOf(c), { interpret: true });
  });
  const result = { name: c.name, fused, fusedAgain, reference, inputsIntact, ms: performance.now() - start };
  return program === undefined ? result : { ...result, backend: program.backend };
}

async function runCases(backend: string, cases: readonly WireCase[]): Promise<WireCaseResult[]> {
  const compiled = new Map<string, FuseProgram>();
  const results: WireCaseResult[] = [];
  try {
    for (const c of cases) results.push(await runCase(backend, c, compiled));
  } finally {
    for (const program of compiled.values()) await program.dispose();
  }
  return results;
}

window.arrayfuseHarness = { adapter: webgpuAdapter(navigator.gpu), runCases };
document.title = 'ready';
