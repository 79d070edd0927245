// The WebGPU back end's `rt`: the js Runtime (allocation, pool, errors, stats) plus what the
// device variant's main calls (codegen/device.ts DeviceHelpers): a cluster's work dispatched
// as its kernel over the device copies of its arrays, main's own array accesses synced with
// the device, whole-array copies done on the device where the source is there.
//
// Dispatch: a work function's kernel runs one invocation per chunk — `chunkLength` iterations
// for a fixed call (folds and scans, whose partials are per chunk), one iteration for a free
// call (maps, gathers, atomic scatters: consecutive invocations touch consecutive elements),
// and for an owner scatter (each call walks the whole source for its destination range) at
// most OWNER_RANGES ranges. A serial cluster runs as one invocation. A function without a
// kernel (kernels.ts) runs its JavaScript here, on host copies of its arrays, as the js back
// end would; so does a call whose arrays would bind one device buffer twice, once writably
// (WebGPU forbids it: an array and its in-place update in one slot).

import type { DeviceHelpers } from '../../codegen/device.js';
import type { WorkFunctionInfo } from '../../codegen/program.js';
import { CompilerBug, type SourceFile } from '../../diagnostics/index.js';
import type { TypedArray } from '../../ir/scalarOps.js';
import type { ScalarType } from '../../ir/types.js';
import { type Pool, type RunRecord, Runtime, type RuntimeTables, type WorkFunction } from '../helpers.js';
import type { CompiledKernel, DeviceKernels, KernelSlot } from './kernels.js';
import type { DeviceLayout, DeviceMemory } from './memory.js';

/** Destination ranges of an owner scatter's call: each walks the whole source once. */
const OWNER_RANGES = 256;

/** What every runtime of one executable shares. */
export interface DeviceProgram {
  readonly memory: DeviceMemory;
  readonly kernels: DeviceKernels;
  readonly fns: readonly WorkFunction[];
  readonly workFunctions: readonly WorkFunctionInfo[];
  /** Iterations per chunk of a fixed call. */
  readonly chunkLength: number;
  /** Calls that ran on the host, by function name (stats and tests). */
  readonly hostCalls: Map<string, number>;
}

type Arg = TypedArray | number;

export class GpuRuntime extends Runtime implements DeviceHelpers {
  /** Each partials array handed out this run, with its chunk row's component types. */
  private readonly partialRows = new Map<Float64Array, readonly ScalarType[]>();

  constructor(
    tables: RuntimeTables,
    file: SourceFile | undefined,
    maxWhileIterations: number,
    record: RunRecord,
    pool: Pool,
    private readonly dp: DeviceProgram,
  ) {
    super(tables, file, maxWhileIterations, record, pool, false);
    this.chunkLength = dp.chunkLength;
  }

  /** Before main: the fault word cleared. */
  begin(): void {
    this.dp.memory.begin();
  }

  /** After the run (or its failure): the device copies the pool does not keep are dropped. */
  end(): void {
    const pool = this.pool;
    this.dp.memory.end((buffer) => pool.owns(buffer));
  }

  // ---- allocation: a fresh array has no current copy anywhere --------------------------------

  override alloc(k: number, n: number): TypedArray {
    return this.fresh(super.alloc(k, n));
  }

  override take(k: number, slot: number, n: number): TypedArray {
    return this.fresh(super.take(k, slot, n));
  }

  override pair(k: number, even: number, odd: number, t: number, n: number): TypedArray {
    return this.fresh(super.pair(k, even, odd, t, n));
  }

  override result(k: number, component: number, n: number): TypedArray {
    return this.fresh(super.result(k, component, n));
  }

  override partials(c: number, n: number): Float64Array {
    const p = super.partials(c, n);
    const row = this.dp.workFunctions.find((w) => w.cluster === c && w.partials !== null)?.partials;
    if (row !== undefined && row !== null) this.partialRows.set(p, row);
    this.dp.memory.fresh(p);
    return p;
  }

  private fresh<T extends TypedArray>(a: T): T {
    this.dp.memory.fresh(a);
    return a;
  }

  // ---- DeviceHelpers ---------------------------------------------------------------------------

  async dispatch(_c: number, fn: number, extent: number, _work: number, fixed: boolean, args: readonly Arg[]): Promise<void> {
    const info = this.dp.workFunctions[fn]!;
    const slot = this.dp.kernels.work[fn]!;
    let count: number;
    let step: number;
    if (fixed) {
      step = this.chunkLength;
      count = Math.ceil(extent / step);
    } else if (info.wholeSource) {
      count = Math.min(extent, OWNER_RANGES);
      step = count === 0 ? 0 : Math.ceil(extent / count);
      count = step === 0 ? 0 : Math.ceil(extent / step);
    } else {
      step = 1;
      count = extent;
    }
    if (count === 0) return;
    if (slot.ok && this.run(slot.compiled, args, count, extent, step)) return;
    await this.onHost(info.name, args, () => {
      const f = this.dp.fns[fn]!;
      if (!fixed) f(this, 0, extent, 0, ...args);
      else for (let k = 0; k < count; k++) f(this, k * step, Math.min(extent, k * step + step), k, ...args);
    });
  }

  async serial(c: number, f: (...args: never[]) => unknown, args: readonly Arg[]): Promise<void> {
    const slot: KernelSlot | undefined = this.dp.kernels.serial.get(c);
    if (slot?.ok === true && this.run(slot.compiled, args, 1, 0, 0)) return;
    await this.onHost(`c${c}`, args, () => (f as (...a: unknown[]) => unknown)(this, ...args));
  }

  async host(arrays: readonly TypedArray[]): Promise<void> {
    await this.dp.memory.toHost(
      arrays.map((view) => ({ view, layout: this.layoutOf(view) })),
      false,
    );
  }

  hostWrote(arrays: readonly TypedArray[]): void {
    for (const a of arrays) this.dp.memory.hostWrote(a);
  }

  async deviceCopy(k: number, data: TypedArray): Promise<TypedArray> {
    const out = super.alloc(k, data.length);
    if (this.dp.memory.copy(data, out, this.layoutOf(data))) return out;
    await this.host([data]);
    out.set(data);
    this.dp.memory.hostWrote(out);
    return out;
  }

  async deviceEmit(k: number, component: number, data: TypedArray): Promise<TypedArray> {
    await this.host([data]);
    const r = super.emit(k, component, data);
    this.dp.memory.hostWrote(r);
    return r;
  }

  async deviceGive(component: number, data: TypedArray): Promise<TypedArray> {
    await this.host([data]);
    const r = super.give(component, data);
    if (r !== data) this.dp.memory.hostWrote(r);
    return r;
  }

  /** Main's results read back together, with the fault word (DeviceFault if a kernel faulted). */
  async settle(raw: readonly unknown[]): Promise<void> {
    const arrays: TypedArray[] = [];
    for (const r of raw) if (Array.isArray(r) && ArrayBuffer.isView(r[0])) arrays.push(r[0] as TypedArray);
    await this.dp.memory.toHost(
      arrays.map((view) => ({ view, layout: this.layoutOf(view) })),
      true,
    );
  }

  // ---- running one kernel ----------------------------------------------------------------------

  /**
   * Dispatches `k` over `count` invocations: false (nothing recorded) when two of its buffers
   * are one device buffer and one of them is written.
   */
  private run(k: CompiledKernel, args: readonly Arg[], count: number, extent: number, step: number): boolean {
    const { kernel } = k;
    const memory = this.dp.memory;
    const views = k.bufferArgs.map((at) => args[at] as TypedArray);
    const buffers = views.map((v) => memory.bind(v, this.layoutOf(v)));
    for (let i = 0; i < buffers.length; i++) {
      for (let j = 0; j < i; j++) {
        if (buffers[i] === buffers[j] && (kernel.buffers[i]!.written || kernel.buffers[j]!.written)) return false;
      }
    }
    const words = new Uint32Array(3 + kernel.scalars.length + kernel.buffers.length);
    const bits = new DataView(words.buffer);
    words[0] = count;
    bits.setInt32(4, extent, true);
    bits.setInt32(8, step, true);
    kernel.scalars.forEach((s, i) => writeScalar(bits, 4 * (3 + i), s.type, args[k.scalarArgs[i]!] as number));
    views.forEach((v, i) => (words[3 + kernel.scalars.length + i] = v.length));
    const entries: GPUBindGroupEntry[] = [
      { binding: 0, resource: { buffer: memory.status } },
      { binding: 1, resource: { buffer: memory.paramsBuffer(words) } },
      ...buffers.map((buffer, i): GPUBindGroupEntry => ({ binding: 2 + i, resource: { buffer } })),
    ];
    const group = memory.gpu.device.createBindGroup({ layout: k.layout, entries });
    const pass = memory.computePass();
    pass.setPipeline(k.pipeline);
    pass.setBindGroup(0, group);
    const groups = Math.ceil(count / kernel.workgroupSize);
    const x = Math.min(groups, memory.gpu.limits.maxComputeWorkgroupsPerDimension);
    pass.dispatchWorkgroups(x, Math.ceil(groups / x));
    kernel.buffers.forEach((b, i) => {
      if (b.written || b.atomic) memory.deviceWrote(views[i]!);
    });
    return true;
  }

  /** Runs `body` (a function's JavaScript) on host copies of the typed arrays among `args`. */
  private async onHost(name: string, args: readonly Arg[], body: () => void): Promise<void> {
    const arrays = args.filter((a): a is TypedArray => typeof a !== 'number');
    await this.host(arrays);
    this.dp.hostCalls.set(name, (this.dp.hostCalls.get(name) ?? 0) + 1);
    body();
    this.hostWrote(arrays);
  }

  /** How `view` sits on the device (its element type; a partials array, its chunk row). */
  private layoutOf(view: TypedArray): DeviceLayout {
    if (view instanceof Float64Array) {
      const row = this.partialRows.get(view);
      if (row === undefined) throw new CompilerBug('runtime', 'a Float64Array that is not a chunk\'s partials reached the device');
      return { partials: row };
    }
    if (view instanceof Float32Array) return 'f32';
    if (view instanceof Int32Array) return 'i32';
    if (view instanceof Uint32Array) return 'u32';
    return 'bool';
  }
}

function writeScalar(bits: DataView, at: number, t: 'i32' | 'u32' | 'f32' | 'bool', v: number): void {
  if (t === 'f32') bits.setFloat32(at, v, true);
  else if (t === 'u32') bits.setUint32(at, v >>> 0, true);
  else if (t === 'bool') bits.setUint32(at, v === 0 ? 0 : 1, true);
  else bits.setInt32(at, v | 0, true);
}
