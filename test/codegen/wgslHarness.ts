// A test-only dispatcher for the WGSL kernels of src/codegen/wgsl, and a differential runner:
// a program's parallel variant runs on the CPU (the js runtime, chunks in order), and every
// `rt.par` call and serial cluster call is recorded with its arguments before and after; each is
// then replayed on the device (Node's WebGPU on SwiftShader) from the "before" copies, and the
// device's arrays are compared with the "after" ones. The runtime proper (src/runtime/webgpu)
// is the lead's; this harness writes the params block exactly as the translator's header says.

import type { GeneratedProgram } from '../../src/codegen/index.js';
import type { KernelSource } from '../../src/codegen/wasm/translate.js';
import { translateWgsl, type WgslKernel, type WgslRole, STATUS_BAIL, STATUS_FAULT } from '../../src/codegen/wgsl/translate.js';
import { checkInputs } from '../../src/interp/index.js';
import type { ScalarType } from '../../src/ir/types.js';
import type { TypedArray } from '../../src/ir/scalarOps.js';
import type { Program } from '../../src/ir/types.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { planMemory } from '../../src/memory/index.js';
import type { Plan } from '../../src/plan/types.js';
import { generateProgram } from '../../src/codegen/program.js';
import { Pool, Runtime, runRecord, type RuntimeTables, type WorkFunction } from '../../src/runtime/helpers.js';

/** A generated module's `main`. */
type Main = (rt: unknown, inputs: readonly unknown[]) => unknown[];

// ---- the device ----------------------------------------------------------------------------

let devicePromise: Promise<GPUDevice | null> | null = null;
/**
 * The GPU object the device came from. It must stay reachable while the device is used: once the
 * garbage collector takes it, Dawn's instance goes and the process aborts in pthread or futex
 * assertions at a later collection.
 */
let gpu: GPU | null = null;
/** Why no device could be had (for the skip notice). */
export let gpuUnavailable = '';

/** A WebGPU device on Node (SwiftShader), or null with `gpuUnavailable` saying why. */
export function acquireDevice(): Promise<GPUDevice | null> {
  devicePromise ??= (async () => {
    try {
      process.env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';
      const webgpu = (await import('webgpu')) as { create(options: string[]): GPU; globals: object };
      Object.assign(globalThis, webgpu.globals);
      gpu = webgpu.create([]);
      const adapter = await gpu.requestAdapter();
      if (adapter === null) {
        gpuUnavailable = 'webgpu gave no adapter';
        return null;
      }
      return await adapter.requestDevice({ requiredLimits: { maxStorageBuffersPerShaderStage: adapter.limits.maxStorageBuffersPerShaderStage } });
    } catch (err) {
      gpuUnavailable = `webgpu failed: ${String(err)}`;
      return null;
    }
  })();
  return devicePromise;
}

/** Compiler messages of a WGSL module (errors and warnings). */
export async function compileMessages(device: GPUDevice, code: string): Promise<string[]> {
  const module = device.createShaderModule({ code });
  const info = await module.getCompilationInfo();
  return info.messages.map((m) => `${m.type} ${m.lineNum}:${m.linePos} ${m.message}`);
}

/**
 * The identifiers of a kernel's code that are neither WGSL's (keywords, types, builtins) nor the
 * translator's own (v_, b_, n_, t_, js_ prefixes and the frame's names): none may be there, so
 * that no name from elsewhere (user text) can have reached the code.
 */
export function foreignIdentifiers(code: string): string[] {
  const wgsl = new Set([
    'fn', 'let', 'var', 'loop', 'if', 'else', 'break', 'return', 'select', 'bitcast', 'array', 'atomic', 'storage', 'read', 'read_write', 'private',
    'group', 'binding', 'compute', 'workgroup_size', 'builtin', 'global_invocation_id', 'num_workgroups', 'vec3', 'u32', 'i32', 'f32', 'bool',
    'true', 'false', 'min', 'max', 'abs', 'floor', 'ceil', 'trunc', 'sqrt', 'exp', 'exp2', 'log', 'log2', 'sin', 'cos', 'tan', 'tanh', 'ldexp',
    'countLeadingZeros', 'atomicStore', 'atomicLoad', 'atomicAdd', 'atomicSub', 'atomicAnd', 'atomicOr', 'atomicXor', 'atomicExchange',
    'atomicCompareExchangeWeak', 'exchanged', 'old_value',
  ]);
  const frame = new Set(['main', 'gid', 'nwg', 'inv', 'params', 'status', 'extent', 'step', 'x', 'y', 'nan_bits', 'inf_bits']);
  // Library helpers' own parameters and locals (library.ts, fixed text).
  const library = new Set(['a', 'b', 'c', 'e', 'i', 'm', 'p', 'q', 'r', 'u', 'ab', 'ax', 'ea', 'eb', 'ex', 'ma', 'mb', 'ua', 'ub', 'big', 'bint', 'binf', 'odd', 'base', 'result', 'rest', 'half', 'shift', 'bits', 'positive']);
  const words = code.replace(/\/\/.*$/gm, '').replace(/\b[0-9][0-9.e+]*[iuf]?\b|\b0x[0-9a-f]+u\b/gi, ' ').match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [];
  return [...new Set(words.filter((w) => !wgsl.has(w) && !frame.has(w) && !library.has(w) && !/^(v|b|n|t|js)_[A-Za-z0-9_]+$/.test(w)))];
}

const checkedCode = new Set<string>();

/** Compiles `code` once and throws on any message (an error, or a warning such as unreachable code). */
export async function expectCleanCompile(device: GPUDevice, code: string): Promise<void> {
  if (checkedCode.has(code)) return;
  const messages = await compileMessages(device, code);
  if (messages.length > 0) throw new Error(`compiler messages:\n${messages.join('\n')}\n${code}`);
  const foreign = foreignIdentifiers(code);
  if (foreign.length > 0) throw new Error(`identifiers the translator does not make: ${foreign.join(', ')}\n${code}`);
  checkedCode.add(code);
}

/** Host data of one buffer: what the kernel's buffer holds, as the runtime would upload it. */
export type HostData = TypedArray | Float64Array;

/** One dispatch: the kernel, the params block's count/extent/step, scalars, and the host arrays by parameter. */
export interface Dispatch {
  readonly kernel: WgslKernel;
  readonly count: number;
  readonly extent: number;
  readonly step: number;
  readonly scalars: Readonly<Record<string, number>>;
  readonly arrays: Readonly<Record<string, HostData>>;
  /** The element type of each partial component (for `partials`' words). */
  readonly partials: readonly ScalarType[] | null;
}

export interface DispatchResult {
  readonly status: number;
  /** Each buffer's contents after the kernel, as host values (partials decoded to numbers). */
  readonly arrays: Record<string, number[]>;
}

const pipelines = new Map<string, GPUComputePipeline>();

/** The 32-bit words a host array is uploaded as. */
function toWords(elem: ScalarType | 'partials', data: HostData, partials: readonly ScalarType[] | null): Uint32Array {
  const out = new Uint32Array(Math.max(1, data.length));
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  const i = new Int32Array(f.buffer);
  for (let k = 0; k < data.length; k++) {
    const x = data[k]!;
    const t = elem === 'partials' ? (partials![k % partials!.length] ?? 'f32') : elem;
    if (t === 'f32') {
      f[0] = x;
      out[k] = u[0]!;
    } else if (t === 'i32') {
      i[0] = x;
      out[k] = u[0]!;
    } else if (t === 'u32') out[k] = x >>> 0;
    else if (t === 'bool') out[k] = x & 255;
    else throw new Error(`no words for ${t}`);
  }
  return out;
}

/** Host numbers from the device's words. */
function fromWords(elem: ScalarType | 'partials', words: Uint32Array, n: number, partials: readonly ScalarType[] | null): number[] {
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  const i = new Int32Array(f.buffer);
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    const t = elem === 'partials' ? (partials![k % partials!.length] ?? 'f32') : elem;
    u[0] = words[k]!;
    out.push(t === 'f32' ? f[0]! : t === 'i32' ? i[0]! : u[0]!);
  }
  return out;
}

/** Runs one dispatch on `device` as the runtime would (a 2-D grid past 65535 workgroups). */
export async function dispatch(device: GPUDevice, d: Dispatch): Promise<DispatchResult> {
  const { kernel } = d;
  let pipeline = pipelines.get(kernel.code);
  if (pipeline === undefined) {
    device.pushErrorScope('validation');
    pipeline = device.createComputePipeline({ layout: 'auto', compute: { module: device.createShaderModule({ code: kernel.code }), entryPoint: 'main' } });
    const err = await device.popErrorScope();
    if (err !== null) throw new Error(`pipeline: ${err.message}\n${kernel.code}`);
    pipelines.set(kernel.code, pipeline);
  }
  const words: number[] = [d.count, d.extent | 0, d.step | 0];
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  for (const s of kernel.scalars) {
    const x = d.scalars[s.param]!;
    if (s.type === 'f32') {
      f[0] = x;
      words.push(u[0]!);
    } else words.push(x >>> 0);
  }
  for (const b of kernel.buffers) words.push(d.arrays[b.param]!.length);
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const make = (data: Uint32Array): GPUBuffer => {
    const buffer = device.createBuffer({ size: Math.max(4, data.byteLength), usage });
    device.queue.writeBuffer(buffer, 0, data);
    return buffer;
  };
  const status = make(new Uint32Array([0]));
  const params = make(new Uint32Array(words));
  const buffers = kernel.buffers.map((b) => make(toWords(b.elem, d.arrays[b.param]!, d.partials)));
  const entries: GPUBindGroupEntry[] = [status, params, ...buffers].map((buffer, binding) => ({ binding, resource: { buffer } }));
  device.pushErrorScope('validation');
  const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries });
  const encoder = device.createCommandEncoder();
  if (d.count > 0) {
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, group);
    const groups = Math.ceil(d.count / kernel.workgroupSize);
    const x = Math.min(groups, 65535);
    pass.dispatchWorkgroups(x, Math.ceil(groups / x));
    pass.end();
  }
  const all = [status, ...buffers];
  const reads = all.map((b) => device.createBuffer({ size: b.size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }));
  all.forEach((b, k) => encoder.copyBufferToBuffer(b, 0, reads[k]!, 0, b.size));
  device.queue.submit([encoder.finish()]);
  const err = await device.popErrorScope();
  if (err !== null) throw new Error(`dispatch: ${err.message}`);
  await Promise.all(reads.map((r) => r.mapAsync(GPUMapMode.READ)));
  const got = reads.map((r) => {
    const words = new Uint32Array(r.getMappedRange().slice(0));
    r.unmap();
    return words;
  });
  const arrays: Record<string, number[]> = {};
  kernel.buffers.forEach((b, k) => {
    arrays[b.param] = fromWords(b.elem, got[k + 1]!, d.arrays[b.param]!.length, d.partials);
  });
  for (const b of [...all, ...reads]) b.destroy();
  return { status: got[0]![0]!, arrays };
}

// ---- recording the CPU run -------------------------------------------------------------------

/** One kernel call of the CPU run: its source and role, arguments before and after, and whether the JavaScript faulted. */
export interface Recorded {
  readonly label: string;
  readonly source: KernelSource;
  readonly role: WgslRole;
  readonly count: number;
  readonly extent: number;
  readonly step: number;
  readonly before: Readonly<Record<string, HostData | number>>;
  readonly after: Readonly<Record<string, HostData | number>>;
  readonly faulted: boolean;
  /** The cluster's schedule (ClusterSchedule kind). */
  readonly schedule: string;
}

function snapshot(params: readonly string[], args: readonly (TypedArray | number)[]): Record<string, HostData | number> {
  const out: Record<string, HostData | number> = {};
  params.forEach((p, k) => {
    const a = args[k]!;
    out[p] = typeof a === 'number' ? a : a.slice();
  });
  return out;
}

/** The js runtime, recording every par call (its chunks run in order here) for replay on the device. */
class RecordingRuntime extends Runtime {
  fns: readonly WorkFunction[] = [];
  readonly recorded: Recorded[] = [];

  constructor(
    tables: RuntimeTables,
    chunkLength: number,
    private readonly generated: GeneratedProgram,
    /** Iterations per invocation of a free (`fixed` false) call on the device. */
    private readonly freeStep: number,
  ) {
    super(tables, undefined, Infinity, runRecord(tables), new Pool([]));
    this.chunkLength = chunkLength;
  }

  override par(c: number, fn: number, extent: number, _work: number, fixed: boolean, args: readonly (TypedArray | number)[]): boolean {
    const f = this.fns[fn]!;
    const source = this.generated.workKernels[fn]!;
    const info = this.generated.workFunctions[fn]!;
    const step = fixed ? this.chunkLength : this.freeStep;
    const count = Math.ceil(extent / step);
    const own = info.partials !== null ? ['lo', 'hi', 'chunk', 'partials'] : ['lo', 'hi', 'chunk'];
    const params = source.params.filter((p) => !own.includes(p) || p === 'partials');
    const before = snapshot(params, args);
    let faulted = false;
    try {
      for (let k = 0; k < count; k++) f(this, k * step, Math.min(extent, (k + 1) * step), k, ...args);
    } catch (err) {
      faulted = true;
      this.recorded.push({ label: `${info.name} (cluster ${c})`, source, role: { kind: 'work', partials: info.partials }, count, extent, step, before, after: snapshot(params, args), faulted, schedule: this.generated.schedules[c]!.kind });
      throw err;
    }
    this.recorded.push({ label: `${info.name} (cluster ${c})`, source, role: { kind: 'work', partials: info.partials }, count, extent, step, before, after: snapshot(params, args), faulted, schedule: this.generated.schedules[c]!.kind });
    return true;
  }

  /** A serial cluster call, through the rebinding in `runRecorded`. */
  serial(c: number, f: (rt: Runtime, ...args: (TypedArray | number)[]) => void, args: (TypedArray | number)[]): void {
    const source = this.generated.kernels[c]!;
    const before = snapshot(source.params, args);
    try {
      f(this, ...args);
    } catch (err) {
      this.recorded.push({ label: `${source.name} (serial)`, source, role: { kind: 'serial' }, count: 1, extent: 0, step: 0, before, after: snapshot(source.params, args), faulted: true, schedule: 'serial' });
      throw err;
    }
    this.recorded.push({ label: `${source.name} (serial)`, source, role: { kind: 'serial' }, count: 1, extent: 0, step: 0, before, after: snapshot(source.params, args), faulted: false, schedule: 'serial' });
  }
}

export interface RecordedRun {
  readonly generated: GeneratedProgram;
  readonly calls: readonly Recorded[];
  /** The error the CPU run raised, if any. */
  readonly error: unknown;
}

/** Runs the parallel variant of `program` on the CPU, recording every kernel call. */
export function runRecorded(program: Program, plan: Plan, inputs: readonly InterfaceValue[], options: { chunkLength: number; freeStep: number }): RecordedRun {
  const memory = planMemory(program, plan);
  const generated = generateProgram(program, plan, { counters: false, memory, parallel: true });
  const serial = generated.schedules.flatMap((s, c) => (s.kind === 'serial' && generated.kernels[c] !== undefined && /^c[0-9]+$/.test(generated.kernels[c]!.name) ? [c] : []));
  // Each serial cluster function is rebound, in the module's scope, to the recording wrapper.
  const rebind = serial.map((c) => `${generated.kernels[c]!.name} = hook(${c}, ${generated.kernels[c]!.name});\n`).join('');
  const tables: RuntimeTables = { sites: generated.sites, slots: generated.slots, allocations: generated.allocations, clusterCount: generated.clusters.length, results: generated.results };
  const rt = new RecordingRuntime(tables, options.chunkLength, generated, options.freeStep);
  const hook =
    (c: number, f: (rt: Runtime, ...args: (TypedArray | number)[]) => void) =>
    (r: Runtime, ...args: (TypedArray | number)[]): void =>
      rt.serial(c, f, args);
  const { main, fns } = new Function('hook', `'use strict';\n${generated.text}${rebind}return { main, fns };\n`)(hook) as { main: Main; fns: readonly WorkFunction[] };
  rt.fns = fns;
  rt.reset(new Pool(memory.slots), { out: undefined, timing: false });
  let error: unknown = null;
  try {
    main(rt, checkInputs(program, inputs, undefined));
  } catch (err) {
    error = err;
  }
  return { generated, calls: rt.recorded, error };
}

// ---- replay and compare ------------------------------------------------------------------------

export interface Replay {
  readonly label: string;
  /** `refused`: the translator's reason; `bail`: the kernel bailed (status 2) where the CPU did not fault. */
  readonly outcome: 'same' | 'refused' | 'bail' | 'fault-agrees';
  readonly detail: string;
}

/** Whether two host numbers are equal: bit for bit for ints, within `tol` (relative) for floats. */
function close(elem: ScalarType | 'partials', x: number, y: number, tol: number): boolean {
  if (Object.is(x, y) || (Number.isNaN(x) && Number.isNaN(y))) return true;
  if (elem !== 'f32' && elem !== 'partials') return false;
  // A subnormal result may be flushed to zero on the device (WGSL allows it; SwiftShader does).
  if (Math.abs(y) < 2 ** -126 && x === 0) return true;
  if (tol === 0) return false;
  // Relative, or absolute near zero (sin and cos promise an absolute error).
  return Math.abs(x - y) <= tol * Math.max(1, Math.abs(x), Math.abs(y));
}

/**
 * Replays one recorded call on the device and compares. Throws (a test failure) when the device
 * disagrees: a different element, a fault where the CPU had none or none where it had one.
 */
export async function replay(device: GPUDevice, call: Recorded, tol: number): Promise<Replay> {
  const t = translateWgsl(call.source, call.role);
  if (!t.ok) return { label: call.label, outcome: 'refused', detail: t.reason };
  const kernel = t.kernel;
  await expectCleanCompile(device, kernel.code);
  const scalars: Record<string, number> = {};
  for (const s of kernel.scalars) scalars[s.param] = call.before[s.param] as number;
  const arrays: Record<string, HostData> = {};
  for (const b of kernel.buffers) arrays[b.param] = call.before[b.param] as HostData;
  const partials = call.role.kind === 'work' ? call.role.partials : null;
  const result = await dispatch(device, { kernel, count: call.count, extent: call.extent, step: call.step, scalars, arrays, partials });
  if (call.faulted) {
    if (result.status === 0) throw new Error(`${call.label}: the CPU faulted, the device did not\n${kernel.code}`);
    return { label: call.label, outcome: 'fault-agrees', detail: `status ${result.status}` };
  }
  if (result.status === STATUS_FAULT) throw new Error(`${call.label}: the device faulted, the CPU did not\n${kernel.code}`);
  if (result.status === STATUS_BAIL) return { label: call.label, outcome: 'bail', detail: 'status 2' };
  if (result.status !== 0) throw new Error(`${call.label}: status ${result.status}`);
  for (const b of kernel.buffers) {
    const want = call.after[b.param] as HostData;
    const got = result.arrays[b.param]!;
    // Partials: only the rows of the chunks this call ran (the rest is scratch on both sides).
    const n = b.elem === 'partials' ? Math.min(want.length, call.count * (partials?.length ?? 1)) : want.length;
    for (let k = 0; k < n; k++) {
      const elem = b.elem === 'partials' ? (partials![k % partials!.length] === 'f32' ? 'f32' : 'i32') : b.elem;
      const expected = b.elem === 'bool' ? want[k]! & 255 : elem === 'f32' ? Math.fround(want[k]!) : want[k]!;
      if (!close(elem, got[k]!, expected, tol)) {
        const inputs = kernel.buffers.map((i) => `${i.param}[${k}] = ${String((call.before[i.param] as HostData)[k])}`).join(', ');
        throw new Error(`${call.label}: ${b.param}[${k}] is ${got[k]} on the device, ${expected} on the CPU (before: ${inputs})\n${kernel.code}`);
      }
    }
  }
  return { label: call.label, outcome: 'same', detail: '' };
}
