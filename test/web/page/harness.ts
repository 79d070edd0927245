// The page of the browser differential tests (test/web/gpuPage.ts bundles it with esbuild and
// drives it with playwright-core). It exposes `window.arrayfuseHarness`: the page's WebGPU
// adapter (described, or null) and `runCases(backend, cases)`, which compiles each case for
// the named back end, runs it twice, runs the reference interpreter on it, and sends back every
// outcome as wire data (./wire.ts): results, or the error each raised, and the webgpu back
// end's own account of the runs (kernels refused and run on the host, runs redone on the CPU,
// submissions).
//
// The runs go through the driver's Compiler, which `compile` wraps (src/index.ts): it gives
// the executable a run used, hence that account, at no second compilation (SwiftShader compiles
// shaders slowly). Inputs and results are converted as `compile`'s FuseProgram converts them
// (./runs.ts). The playground's tests drive `compile` itself in the browser. The reference
// interpreter runs in a worker (./interpreter.ts), beside the fused runs. Everything comes from
// the working tree's source, so no `npm run build` is needed.

import { Compiler, signatureOf, type NamedInputs } from '../../../src/driver/index.js';
import { configureSolver, type BackendName } from '../../../src/index.js';
import { isWebgpuExecutable } from '../../../src/runtime/index.js';
import { webgpuAdapter } from '../../../web/src/gpu.js';
import { decodedInputs, errorOf, namedInputs, resultsOfRun } from './runs.js';
import { encodeValue, sameWire, type CaseOptions, type DeviceReport, type Harness, type WireCase, type WireCaseResult, type WireOutcome } from './wire.js';

declare global {
  interface Window {
    arrayfuseHarness?: Harness;
  }
}

// HiGHS' wasm is served beside the bundle (gpuPage.ts copies it there).
configureSolver({ wasm: new URL('highs.wasm', location.href) });

/**
 * The reference interpreter, in a worker (./interpreter.ts): a case's interpretation runs on
 * another core while this thread compiles and runs its fused code. Answers come in order.
 */
const interpreter = new Worker(new URL('interpreter.js', location.href), { type: 'module' });
const waiting = new Map<number, (outcome: WireOutcome) => void>();
let nextJob = 0;
interpreter.onmessage = (event: MessageEvent<{ id: number; outcome: WireOutcome }>) => {
  waiting.get(event.data.id)?.(event.data.outcome);
  waiting.delete(event.data.id);
};
interpreter.onerror = (event) => {
  // A worker that fails to load or throws fails every case waiting on it, loudly.
  for (const settle of waiting.values()) settle({ ok: false, error: { name: 'WorkerError', message: event.message } });
  waiting.clear();
};

function interpret(c: WireCase): Promise<WireOutcome> {
  const id = nextJob++;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    interpreter.postMessage({ id, c });
  });
}

async function outcomeOf(compiler: Compiler, inputs: NamedInputs): Promise<WireOutcome> {
  try {
    const run = await compiler.execute(inputs);
    const results = resultsOfRun(run);
    return run.fallback === undefined ? { ok: true, results } : { ok: true, results, fallback: errorOf(run.fallback) };
  } catch (e) {
    return { ok: false, error: errorOf(e) };
  }
}

/** The webgpu executable's account of the runs so far, if the last run compiled one. */
async function deviceReport(compiler: Compiler, inputs: NamedInputs): Promise<DeviceReport | undefined> {
  let exe;
  try {
    exe = await compiler.executable(signatureOf(compiler.entry, inputs, compiler.file));
  } catch {
    return undefined; // Compiling failed (E680, …): the outcomes say how.
  }
  if (!isWebgpuExecutable(exe)) return undefined;
  return {
    adapter: exe.adapter,
    hostKernels: exe.kernels.filter((k) => !k.device).map((k) => `${k.name}: ${k.reason ?? ''}`),
    hostCalls: [...exe.hostCalls],
    cpuReruns: exe.cpuReruns,
    submissions: exe.submissions,
  };
}

async function runCase(backend: string, c: WireCase, compilers: Map<string, Compiler>): Promise<WireCaseResult> {
  const start = performance.now();
  // Started first: the worker interprets while this thread compiles and runs the fused code.
  const reference = interpret(c);
  const options: CaseOptions = c.options ?? {};
  const fileName = c.fileName ?? 'case.fuse';
  // One Compiler per source, file name and options in a batch: a program run at several sizes
  // reuses it, as an application would (and its device buffers between runs).
  const key = JSON.stringify([c.source, fileName, options]);
  let compiler = compilers.get(key);
  if (compiler === undefined) {
    try {
      compiler = new Compiler(c.source, { ...options, fileName, backend: backend as BackendName, threads: 1 });
      compilers.set(key, compiler);
    } catch (e) {
      const failed: WireOutcome = { ok: false, error: errorOf(e) };
      return { name: c.name, fused: failed, fusedAgain: 'same', reference: await reference, inputsIntact: true, ms: performance.now() - start };
    }
  }
  // The inputs of the first run are checked afterwards: a run never writes its inputs.
  const given = decodedInputs(c);
  const fused = await outcomeOf(compiler, namedInputs(compiler, given));
  const fusedAgain = await outcomeOf(compiler, namedInputs(compiler, decodedInputs(c)));
  const inputsIntact = c.inputs.every(([name, value]) => sameWire(encodeValue(given[name]!), value));
  const device = await deviceReport(compiler, namedInputs(compiler, given));
  const again = JSON.stringify(fusedAgain) === JSON.stringify(fused) ? 'same' : fusedAgain;
  const result = { name: c.name, backend: compiler.backend.name, fused, fusedAgain: again, reference: await reference, inputsIntact, ms: performance.now() - start };
  return device === undefined ? result : { ...result, device };
}

async function runCases(backend: string, cases: readonly WireCase[]): Promise<WireCaseResult[]> {
  const compilers = new Map<string, Compiler>();
  const results: WireCaseResult[] = [];
  try {
    for (const c of cases) results.push(await runCase(backend, c, compilers));
  } finally {
    for (const compiler of compilers.values()) await compiler.dispose();
  }
  return results;
}

window.arrayfuseHarness = { adapter: webgpuAdapter(navigator.gpu), runCases };
document.title = 'ready';
