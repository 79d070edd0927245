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
// shaders slowly). Inputs and results are converted as `compile`'s FuseProgram converts them:
// a typed array's type is its element type, a number takes the parameter's scalar type, a
// rank-0 result is a number. The playground's tests drive `compile` itself in the browser.
// Everything comes from the working tree's source, so no `npm run build` is needed.

import { Compiler, signatureOf, type NamedInputs } from '../../../src/driver/index.js';
import { configureSolver, renderDiagnostic, UserError, type BackendName } from '../../../src/index.js';
import type { InterfaceValue, RuntimeValue } from '../../../src/ir/values.js';
import { isWebgpuExecutable } from '../../../src/runtime/index.js';
import { webgpuAdapter } from '../../../web/src/gpu.js';
import {
  decodeRecord, elemOfArray, encodeRecord, encodeValue, sameWire, type CaseOptions, type DeviceReport, type Harness, type PlainArray, type PlainValue, type WireCase,
  type WireCaseResult, type WireError, type WireOutcome,
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
 * Plain inputs, decoded afresh for every run so that no run sees another's arrays; an aliased
 * input is the very object of the input it names.
 */
function plainInputs(c: WireCase): Record<string, PlainValue> {
  const inputs = decodeRecord(c.inputs);
  for (const [name, same] of Object.entries(c.aliases ?? {})) {
    if (!Object.hasOwn(inputs, same)) throw new TypeError(`case ${c.name}: alias ${name} names no input ${JSON.stringify(same)}`);
    Object.defineProperty(inputs, name, { value: inputs[same], enumerable: true, writable: true, configurable: true });
  }
  return inputs;
}

/** An input as the driver takes it: as `compile`'s programs convert one (src/index.ts toInterfaceValue). */
function interfaceValue(compiler: Compiler, name: string, x: PlainValue): InterfaceValue {
  if (typeof x === 'boolean') return { kind: 'scalar', elem: 'bool', value: x ? 1 : 0 };
  if (typeof x === 'number') {
    const elem = compiler.scalarInputType(name) ?? (Number.isInteger(x) && (x | 0) === x ? 'i32' : 'f64');
    return { kind: 'scalar', elem, value: Object.is(x, -0) && elem !== 'f32' && elem !== 'f64' ? 0 : x };
  }
  const array = (a: PlainArray): RuntimeValue => ({ kind: 'array', elem: elemOfArray(a.data), shape: [...a.shape], data: a.data });
  if (Array.isArray(x)) return (x as readonly PlainArray[]).map(array);
  return array(x as PlainArray);
}

function namedInputs(compiler: Compiler, inputs: Readonly<Record<string, PlainValue>>): NamedInputs {
  return Object.fromEntries(Object.keys(inputs).map((name) => [name, interfaceValue(compiler, name, inputs[name]!)]));
}

/** A result as `compile`'s programs give it: a rank-0 array is a number (src/index.ts toOutput). */
function plainOutput(v: InterfaceValue): PlainValue {
  if (Array.isArray(v)) return (v as readonly InterfaceValue[]).map(plainOutput);
  const value = v as RuntimeValue;
  if (value.kind === 'scalar') return value.value;
  return value.shape.length === 0 ? value.data[0]! : { data: value.data, shape: value.shape };
}

async function outcomeOf(compiler: Compiler, inputs: NamedInputs, interpret: boolean): Promise<WireOutcome> {
  try {
    const run = await compiler.execute(inputs, { interpret });
    const results = encodeRecord(Object.fromEntries(run.program.results.map((r, k) => [r.name, plainOutput(run.results[k]!)])));
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
      return { name: c.name, fused: failed, fusedAgain: 'same', reference: failed, inputsIntact: true, ms: performance.now() - start };
    }
  }
  // The inputs of the first run are checked afterwards: a run never writes its inputs.
  const given = plainInputs(c);
  const fused = await outcomeOf(compiler, namedInputs(compiler, given), false);
  const fusedAgain = await outcomeOf(compiler, namedInputs(compiler, plainInputs(c)), false);
  const inputsIntact = c.inputs.every(([name, value]) => sameWire(encodeValue(given[name]!), value));
  const device = await deviceReport(compiler, namedInputs(compiler, given));
  const reference = await outcomeOf(compiler, namedInputs(compiler, plainInputs(c)), true);
  const again = JSON.stringify(fusedAgain) === JSON.stringify(fused) ? 'same' : fusedAgain;
  const result = { name: c.name, backend: compiler.backend.name, fused, fusedAgain: again, reference, inputsIntact, ms: performance.now() - start };
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
