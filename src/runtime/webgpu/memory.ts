// The device copies of a run's arrays, and the one command stream that kernels, copies and read
// backs go into.
//
// Every host array main or a kernel touches has a device buffer, keyed by its host memory (the
// ArrayBuffer for views from byte 0 — a pooled slot is one key whatever array holds it — else
// the view itself), and a state saying which copy is current: `host`, `device`, `both`, or
// `none` (a fresh array whose contents nobody has written: neither side needs copying). Kernels
// run on the device copies; a host access first reads back a copy the device changed, and marks
// what it writes so that the next kernel uploads it.
//
// Every element is 4 bytes on the device: f32, i32, u32 as they are, bool as a u32 0/1 (the
// host's Uint8Array widened and narrowed on the way), a chunk's partials (a Float64Array on the
// host) as the 32-bit bits of each component's type.
//
// Ordering: uploads, kernel dispatches and copies are all recorded, in program order, into one
// command encoder (an upload is a copy from a staging buffer written on the host), which is
// submitted only when the host must see a result: at a read back. A run is then one submission
// per read back, the last one reading its results (and the fault word) together.

import { CompilerBug, userError } from '../../diagnostics/index.js';
import type { ScalarType } from '../../ir/types.js';
import type { TypedArray } from '../../ir/scalarOps.js';
import { deviceLost, type GpuContext } from './device.js';

/** How an array's elements sit on the device: its element type, or a chunk row's component types (partials). */
export type DeviceLayout = ScalarType | { readonly partials: readonly ScalarType[] };

type State = 'none' | 'host' | 'device' | 'both';

interface Entry {
  buffer: GPUBuffer;
  /** Bytes of `buffer`. */
  bytes: number;
  state: State;
}

const STORAGE_USAGE = (): number => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;

/** The least buffer size: a binding must not be empty. */
const MIN_BYTES = 16;

/** Words of the fault word buffer (element 0 is the fault; the rest is room for the kernel frame). */
export const STATUS_WORDS = 4;

/** A kernel's fault word was set: the run is redone on the js back end (backend.ts), which raises the diagnostic. */
export class DeviceFault extends Error {
  constructor(readonly code: number) {
    super(`a kernel stopped with fault code ${code}`);
    this.name = 'DeviceFault';
  }
}

export class DeviceMemory {
  private readonly entries = new Map<object, Entry>();
  private encoder: GPUCommandEncoder | null = null;
  private pass: GPUComputePassEncoder | null = null;
  /** Buffers to destroy once the work recorded so far has been submitted and done (staging, params). */
  private garbage: GPUBuffer[] = [];
  /** The kernels' fault word: zeroed at the start of each run. */
  readonly status: GPUBuffer;
  /** Submissions so far (stats: one per read back). */
  submissions = 0;
  /** A kernel was recorded since the fault word was last read: the run's last read back must read it. */
  private unchecked = false;

  constructor(readonly gpu: GpuContext) {
    this.status = gpu.device.createBuffer({ size: STATUS_WORDS * 4, usage: STORAGE_USAGE() });
  }

  private get device(): GPUDevice {
    return this.gpu.device;
  }

  /** Starts a run: the fault word cleared before anything else runs. */
  begin(): void {
    this.commands().clearBuffer(this.status);
    this.unchecked = false;
  }

  /** The device buffer of `view`, uploaded first if the host holds the newer copy. */
  bind(view: TypedArray, layout: DeviceLayout): GPUBuffer {
    const e = this.entry(view);
    if (e.state === 'host') {
      this.upload(view, layout, e);
      e.state = 'both';
    }
    return e.buffer;
  }

  /** After a kernel that may write `view`: the device copy is the current one. */
  deviceWrote(view: TypedArray): void {
    this.entry(view).state = 'device';
  }

  /** After main wrote `view` on the host. */
  hostWrote(view: TypedArray): void {
    const e = this.entries.get(keyOf(view));
    if (e === undefined) return; // never on the device: nothing to refresh
    e.state = 'host';
  }

  /** A freshly handed out array (its contents unspecified until written): no copy is current, none is uploaded. */
  fresh(view: TypedArray): void {
    this.entry(view).state = 'none';
  }

  /** A host array the caller gave (an input, an `out` array): the host copy is current. */
  given(view: TypedArray): void {
    const e = this.entries.get(keyOf(view));
    if (e !== undefined) e.state = 'host';
  }

  /** Device-to-device copy of `from` into the fresh `to` (same element type and length). */
  copy(from: TypedArray, to: TypedArray, layout: DeviceLayout): boolean {
    const f = this.entries.get(keyOf(from));
    if (f === undefined || f.state !== 'device') return false;
    const t = this.entry(to);
    this.commands().copyBufferToBuffer(f.buffer, 0, t.buffer, 0, deviceBytes(from, layout));
    t.state = 'device';
    return true;
  }

  /**
   * Brings the host copies of `views` up to date (one submission and read back for all those the
   * device changed) and checks the fault word: DeviceFault when a kernel faulted. `check`:
   * read the fault word even when no array needs reading back (the run's last read back).
   */
  async toHost(views: readonly { readonly view: TypedArray; readonly layout: DeviceLayout }[], check: boolean): Promise<void> {
    const stale = views.filter(({ view }) => this.entries.get(keyOf(view))?.state === 'device');
    const unique = stale.filter((v, k) => stale.findIndex((w) => keyOf(w.view) === keyOf(v.view)) === k);
    // Nothing to read: the host goes on without waiting (a fault shows at the run's last read
    // back), and the last one is needed only if a kernel ran since the fault word was read.
    if (unique.length === 0 && (!check || !this.unchecked)) return;
    this.unchecked = false;
    const offsets: number[] = [];
    let total = STATUS_WORDS * 4;
    for (const { view, layout } of unique) {
      offsets.push(total);
      total += align4(deviceBytes(view, layout));
    }
    const staging = this.device.createBuffer({ size: total, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const enc = this.commands();
    enc.copyBufferToBuffer(this.status, 0, staging, 0, STATUS_WORDS * 4);
    unique.forEach(({ view, layout }, k) => {
      const bytes = deviceBytes(view, layout);
      if (bytes > 0) enc.copyBufferToBuffer(this.entries.get(keyOf(view))!.buffer, 0, staging, offsets[k]!, align4(bytes));
    });
    this.submit();
    try {
      await staging.mapAsync(GPUMapMode.READ);
    } catch (e) {
      if (this.gpu.lost.reason !== null) throw deviceLost(this.gpu);
      throw e;
    }
    const words = staging.getMappedRange();
    const fault = new Uint32Array(words, 0, 1)[0]!;
    if (fault === 0) {
      unique.forEach(({ view, layout }, k) => {
        fromDevice(view, layout, words, offsets[k]!);
        this.entries.get(keyOf(view))!.state = 'both';
      });
    }
    staging.unmap();
    staging.destroy();
    if (fault !== 0) throw new DeviceFault(fault);
  }

  /** The compute pass the next dispatch goes into. */
  computePass(): GPUComputePassEncoder {
    this.unchecked = true;
    if (this.pass === null) this.pass = this.commands().beginComputePass();
    return this.pass;
  }

  /** A small buffer holding `words`, read by the kernel about to be dispatched (destroyed after the submission). */
  paramsBuffer(words: Uint32Array): GPUBuffer {
    const b = this.device.createBuffer({ size: Math.max(MIN_BYTES, align4(words.byteLength)), usage: GPUBufferUsage.STORAGE, mappedAtCreation: true });
    new Uint32Array(b.getMappedRange()).set(words);
    b.unmap();
    this.garbage.push(b);
    return b;
  }

  /** Submits what is recorded (nothing if nothing is). */
  submit(): void {
    if (this.pass !== null) {
      this.pass.end();
      this.pass = null;
    }
    if (this.encoder === null) return;
    this.device.queue.submit([this.encoder.finish()]);
    this.encoder = null;
    this.submissions++;
    const done = this.garbage;
    this.garbage = [];
    if (done.length > 0) void this.device.queue.onSubmittedWorkDone().then(() => done.forEach((b) => b.destroy()));
  }

  /**
   * Ends a run: drops the device copies of arrays the pool does not keep (inputs, results, fresh
   * arrays: the next run brings its own), keeping the pool's buffers resident across runs.
   */
  end(keep: (key: ArrayBufferLike) => boolean): void {
    this.submit();
    for (const [key, e] of this.entries) {
      if (ArrayBuffer.isView(key) || !keep(key as ArrayBufferLike)) {
        e.buffer.destroy();
        this.entries.delete(key);
      }
    }
  }

  /** Releases every device buffer (the executable is disposed). */
  dispose(): void {
    this.submit();
    for (const e of this.entries.values()) e.buffer.destroy();
    this.entries.clear();
    this.status.destroy();
  }

  /** Device bytes the arrays resident now hold (stats). */
  get residentBytes(): number {
    let n = 0;
    for (const e of this.entries.values()) n += e.bytes;
    return n;
  }

  private commands(): GPUCommandEncoder {
    if (this.pass !== null) {
      this.pass.end();
      this.pass = null;
    }
    return (this.encoder ??= this.device.createCommandEncoder());
  }

  /** The entry of `view`, its buffer large enough for the view's device bytes (a larger one keeps the contents). */
  private entry(view: TypedArray): Entry {
    const key = keyOf(view);
    const need = Math.max(MIN_BYTES, align4(4 * view.length));
    const limit = Math.min(this.gpu.limits.maxStorageBufferBindingSize, this.gpu.limits.maxBufferSize);
    if (need > limit) {
      throw userError('E681', `an array of ${view.length} elements needs ${need} bytes on the device, more than its largest storage buffer (${limit} bytes); use the js or multicore back end for arrays this large`);
    }
    let e = this.entries.get(key);
    if (e === undefined) {
      e = { buffer: this.device.createBuffer({ size: need, usage: STORAGE_USAGE() }), bytes: need, state: 'host' };
      this.entries.set(key, e);
      return e;
    }
    if (e.bytes < need) {
      const bigger = this.device.createBuffer({ size: need, usage: STORAGE_USAGE() });
      if (e.state === 'device' || e.state === 'both') this.commands().copyBufferToBuffer(e.buffer, 0, bigger, 0, e.bytes);
      this.garbage.push(e.buffer);
      e.buffer = bigger;
      e.bytes = need;
    }
    return e;
  }

  private upload(view: TypedArray, layout: DeviceLayout, e: Entry): void {
    const bytes = deviceBytes(view, layout);
    if (bytes === 0) return;
    const staging = this.device.createBuffer({ size: align4(bytes), usage: GPUBufferUsage.COPY_SRC, mappedAtCreation: true });
    toDevice(view, layout, staging.getMappedRange());
    staging.unmap();
    this.commands().copyBufferToBuffer(staging, 0, e.buffer, 0, align4(bytes));
    this.garbage.push(staging);
  }
}

function keyOf(view: TypedArray): object {
  return view.byteOffset === 0 ? view.buffer : view;
}

const align4 = (n: number): number => Math.ceil(n / 4) * 4;

/** Bytes `view`'s elements take on the device: 4 each. */
function deviceBytes(view: TypedArray, _layout: DeviceLayout): number {
  return 4 * view.length;
}

/** Writes `view`'s elements into `into` (a mapped staging range) in their device form. */
function toDevice(view: TypedArray, layout: DeviceLayout, into: ArrayBuffer): void {
  if (typeof layout !== 'string') {
    const row = layout.partials;
    const bits = new DataView(into);
    for (let i = 0; i < view.length; i++) writeWord(bits, 4 * i, row[i % row.length]!, view[i]!);
    return;
  }
  switch (layout) {
    case 'f32':
    case 'i32':
    case 'u32':
      new Uint8Array(into).set(new Uint8Array(view.buffer, view.byteOffset, 4 * view.length));
      return;
    case 'bool':
      new Uint32Array(into, 0, view.length).set(view);
      return;
    case 'f64':
    case 'u8':
    case 'i8':
      // support.ts refuses these types (E680) before anything is compiled.
      throw new CompilerBug('runtime', `an ${layout} array reached the WebGPU back end`);
    default:
      layout satisfies never;
  }
}

/** Reads `view`'s elements back from `words` at byte `offset`, converting from their device form. */
function fromDevice(view: TypedArray, layout: DeviceLayout, words: ArrayBuffer, offset: number): void {
  if (typeof layout !== 'string') {
    const row = layout.partials;
    const bits = new DataView(words, offset);
    for (let i = 0; i < view.length; i++) view[i] = readWord(bits, 4 * i, row[i % row.length]!);
    return;
  }
  switch (layout) {
    case 'f32':
    case 'i32':
    case 'u32':
      new Uint8Array(view.buffer, view.byteOffset, 4 * view.length).set(new Uint8Array(words, offset, 4 * view.length));
      return;
    case 'bool': {
      const from = new Uint32Array(words, offset, view.length);
      for (let i = 0; i < view.length; i++) view[i] = from[i]! === 0 ? 0 : 1;
      return;
    }
    case 'f64':
    case 'u8':
    case 'i8':
      // support.ts refuses these types (E680) before anything is compiled.
      throw new CompilerBug('runtime', `an ${layout} array reached the WebGPU back end`);
    default:
      layout satisfies never;
  }
}

function writeWord(bits: DataView, at: number, t: ScalarType, v: number): void {
  switch (t) {
    case 'f32':
      bits.setFloat32(at, v, true);
      return;
    case 'i32':
      bits.setInt32(at, v, true);
      return;
    case 'u32':
      bits.setUint32(at, v, true);
      return;
    case 'bool':
      bits.setUint32(at, v === 0 ? 0 : 1, true);
      return;
    case 'f64':
    case 'u8':
    case 'i8':
      throw new CompilerBug('runtime', `an ${t} partial reached the WebGPU back end`);
    default:
      t satisfies never;
  }
}

function readWord(bits: DataView, at: number, t: ScalarType): number {
  switch (t) {
    case 'f32':
      return bits.getFloat32(at, true);
    case 'i32':
      return bits.getInt32(at, true);
    case 'u32':
      return bits.getUint32(at, true);
    case 'bool':
      return bits.getUint32(at, true) === 0 ? 0 : 1;
    case 'f64':
    case 'u8':
    case 'i8':
      throw new CompilerBug('runtime', `an ${t} partial reached the WebGPU back end`);
    default:
      return t satisfies never;
  }
}
