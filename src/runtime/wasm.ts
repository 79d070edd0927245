// WebAssembly kernels for the `js` back end's clusters (docs/EXECUTION.md, "WebAssembly").
//
// `wasmCluster` wraps a module's cluster functions: a call first looks for a kernel
// specialised on the call's extents, array lengths and which scalars are int32
// (codegen/wasm/translate.ts; translated the first time such a call comes, compiled when it
// first runs, and remembered, refusals too), stages the arrays the kernel touches into the kernel memory, runs
// it, and copies the arrays it wrote back. A kernel that stops at a fault (or at an index it
// cannot handle) returns non-zero: its staged writes are dropped and the JavaScript function
// runs on the untouched arrays, raising the same error as without WebAssembly (or computing
// what it computes). Staging also makes in-place updates safe to re-run. A call whose written
// array overlaps another array of the call in memory runs in JavaScript.
//
// Which one runs (`WasmMode`): `on` runs every kernel the translator accepts (tests), `off` none,
// `auto` the rule measured in bench/wasm (see `autoRule`). Modules are compiled with the
// synchronous `new WebAssembly.Module`, fine in Node and in workers; a browser's main thread
// refuses synchronous compiles of more than 4 KB, so there a kernel that large is refused
// (`compileFailed`) and its cluster runs in JavaScript.

import { translateKernel, type Kernel, type KernelSource, type Specialisation } from '../codegen/wasm/translate.js';
import type { TypedArray } from '../ir/scalarOps.js';
import type { ScalarType } from '../ir/types.js';

export type WasmMode = 'auto' | 'on' | 'off';

/** A generated cluster function: `(rt, ...params)`. */
export type ClusterFunction = (rt: unknown, ...args: unknown[]) => unknown;

const MAX_INT = 0x7fffffff;

/** Specialisations a cluster keeps; calls beyond (shapes changing every run) run in JavaScript. */
const maxVariants = 16;

/**
 * `auto`'s rule (bench/wasm; docs/EXECUTION.md "WebAssembly"). A kernel is tried only for calls
 * that stage at least `minAutoElements` elements (below, the fixed cost of a call — views,
 * copies, the boundary — outweighs any gain). The first `jsWarmUp` calls of each specialisation
 * run JavaScript, timed. Then the calls alternate WebAssembly and JavaScript, timed, the kernel's
 * first call (compilation, fresh memory) not counted. Each side is judged by its fastest call,
 * not a median: the noise of a shared machine (collections, page faults, the other core's work)
 * only ever adds time, and V8 takes several calls to reach its final code for a long loop (the
 * second call measured 2–5× its steady time, which made early comparisons favour kernels). As
 * soon as JavaScript's best is faster by `clearRatio`, JavaScript runs from then on; after
 * `autoTrials` kernel calls, the kernel runs from then on if its best is faster by `minGain`,
 * JavaScript otherwise. A kernel has to win over all its trials: decided early on medians,
 * close races went to kernels that then measured slower call after call (singleLoop and
 * reverse: 1.1× faster in their trials, 1.15–1.35× slower afterwards), while MG's stencils,
 * whose kernels win by 1.15–1.2×, need a margin below that. A kernel turned down is dropped,
 * and with it its hold on the staging memory (see KernelMemory).
 */
export const autoRule = { minAutoElements: 4096, jsWarmUp: 2, autoTrials: 4, clearRatio: 1.5, minGain: 1.1 } as const;

/** The typed-array class of each element type (bool is Uint8Array). */
function classOf(elem: ScalarType): Function {
  switch (elem) {
    case 'f64':
      return Float64Array;
    case 'f32':
      return Float32Array;
    case 'i32':
      return Int32Array;
    case 'u32':
      return Uint32Array;
    case 'u8':
    case 'bool':
      return Uint8Array;
    case 'i8':
      return Int8Array;
    default:
      return elem satisfies never;
  }
}

/** The part of the WebAssembly JavaScript API used here (the project's lib has no DOM types). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  readonly Memory: new (descriptor: { initial: number }) => WasmMemory;
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object, imports: object) => { readonly exports: Record<string, unknown> };
  validate(bytes: Uint8Array): boolean;
}

/** The host's WebAssembly, or null where there is none (then every cluster runs in JavaScript). */
export const wasmApi: WasmApi | null = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly ?? null;

const isInt32 = (v: unknown): boolean => typeof v === 'number' && (v | 0) === v && !Object.is(v, -0);

/**
 * The linear memory every kernel of one module stages into (grown as needed). A memory cannot
 * shrink, so when no kernel instance uses it any more (auto chose JavaScript for each) it is
 * replaced by a fresh one and the old one is left to the collector: a 64 MB staging memory kept
 * alive after reverse's two trial calls made its JavaScript loop 1.2–1.4× slower from then on.
 */
export class KernelMemory {
  memory: WasmMemory;
  private users = 0;

  constructor(private readonly api: WasmApi) {
    this.memory = new api.Memory({ initial: 1 });
  }

  /** An instance importing `memory` was made. */
  acquire(): void {
    this.users++;
  }

  /** An instance importing `memory` is dropped. */
  release(): void {
    if (--this.users === 0 && this.memory.buffer.byteLength > 65536) this.memory = new this.api.Memory({ initial: 1 });
  }

  ensure(bytes: number): void {
    const have = this.memory.buffer.byteLength;
    if (bytes > have) this.memory.grow(Math.ceil((bytes - have) / 65536));
  }
}

/** What a wrapped cluster records (tests and the benchmark read it). */
export interface KernelStats {
  /** Calls the kernel ran to the end (its results kept). */
  wasmCalls: number;
  /** Calls that ran the JavaScript function: refused, not chosen, faulted, overlapping. */
  jsCalls: number;
  /** Kernel runs that stopped at a fault or an unhandled index (then JavaScript ran). */
  faults: number;
  /** Why the last refused specialisation was refused. */
  refusal: string | null;
}

interface Variant {
  readonly kernel: Kernel;
  /** The kernel's entry: null until auto first runs it, and again once auto chose JavaScript. */
  run: ((...scalars: number[]) => number) | null;
  /** `auto` only: timings so far, and the choice once made. */
  readonly wasmMs: number[];
  readonly jsMs: number[];
  choice: 'wasm' | 'js' | null;
}

/** Wraps cluster function `js` with its kernel source. */
export function wasmCluster(source: KernelSource, js: ClusterFunction, mode: Exclude<WasmMode, 'off'>, memory: KernelMemory, stats: KernelStats): ClusterFunction {
  const api = wasmApi;
  if (api === null) return js;
  const variants = new Map<string, Variant | null>();
  const { params } = source;
  const n = params.length;
  const kinds = params.map((p) => (source.arrays[p] !== undefined ? 'array' : source.extents.includes(p) ? 'extent' : 'scalar'));
  const classes = params.map((p) => (source.arrays[p] !== undefined ? classOf(source.arrays[p]!) : null));
  const indexOf = new Map(params.map((p, k) => [p, k]));

  const variantFor = (args: readonly unknown[]): Variant | null => {
    let key = '';
    for (let k = 0; k < n; k++) {
      const v = args[k];
      switch (kinds[k]) {
        case 'array': {
          if (v === null || typeof v !== 'object' || (v as object).constructor !== classes[k]) return null;
          key += `${(v as TypedArray).length},`;
          break;
        }
        case 'extent':
          if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_INT) return null;
          key += `${v},`;
          break;
        default:
          if (typeof v !== 'number') return null;
          key += isInt32(v) ? 'i,' : 'f,';
      }
    }
    const known = variants.get(key);
    if (known !== undefined) return known;
    if (variants.size >= maxVariants) return null;
    const made = makeVariant(args);
    variants.set(key, made);
    return made;
  };

  const makeVariant = (args: readonly unknown[]): Variant | null => {
    const extents: Record<string, number> = Object.create(null) as Record<string, number>;
    const lengths: Record<string, number> = Object.create(null) as Record<string, number>;
    const intScalars = new Set<string>();
    params.forEach((p, k) => {
      if (kinds[k] === 'array') lengths[p] = (args[k] as TypedArray).length;
      else if (kinds[k] === 'extent') extents[p] = args[k] as number;
      else if (isInt32(args[k])) intScalars.add(p);
    });
    const spec: Specialisation = { extents, lengths, intScalars };
    const t = translateKernel(source, spec);
    if (!t.ok) {
      stats.refusal = t.reason;
      return null;
    }
    const kernel = t.kernel;
    if (mode === 'auto') {
      if (kernel.arrays.reduce((s, a) => s + a.length, 0) < autoRule.minAutoElements) {
        stats.refusal = 'too small for auto';
        return null;
      }
      return { kernel, run: null, wasmMs: [], jsMs: [], choice: null };
    }
    const v: Variant = { kernel, run: null, wasmMs: [], jsMs: [], choice: 'wasm' };
    return instantiate(v) ? v : null;
  };

  /** Compiles and instantiates the variant's kernel; false (and the refusal recorded) if the host will not. */
  const instantiate = (v: Variant): boolean => {
    try {
      // Growing may fail (the host's limit): then, as for a refused compile, JavaScript runs.
      memory.ensure(v.kernel.memoryBytes);
      const instance = new api.Instance(new api.Module(v.kernel.bytes), { env: { memory: memory.memory } });
      memory.acquire();
      v.run = instance.exports[v.kernel.entry] as (...scalars: number[]) => number;
      return true;
    } catch (err) {
      // A browser's main thread refuses synchronous compiles above 4 KB.
      stats.refusal = `compileFailed: ${String(err)}`;
      return false;
    }
  };

  /** Whether a written array shares bytes with another array of the call (then staging would differ). */
  const overlapping = (kernel: Kernel, args: readonly unknown[]): boolean => {
    for (const w of kernel.arrays) {
      if (!w.written) continue;
      const a = args[indexOf.get(w.param)!] as TypedArray;
      for (const o of kernel.arrays) {
        if (o === w || (!o.read && !o.written)) continue;
        const b = args[indexOf.get(o.param)!] as TypedArray;
        if (a.buffer !== b.buffer) continue;
        if (a.byteOffset < b.byteOffset + b.byteLength && b.byteOffset < a.byteOffset + a.byteLength) return true;
      }
    }
    return false;
  };

  /** Stages, runs, copies back: true when the kernel's results were kept. */
  const runKernel = (v: Variant, args: readonly unknown[]): boolean => {
    const { kernel } = v;
    if (overlapping(kernel, args)) return false;
    const buffer = memory.memory.buffer;
    const views: (TypedArray | null)[] = [];
    for (const a of kernel.arrays) {
      if (!a.read && !a.written) {
        views.push(null);
        continue;
      }
      const src = args[indexOf.get(a.param)!] as TypedArray;
      const Ctor = src.constructor as new (b: ArrayBufferLike, offset: number, length: number) => TypedArray;
      const view = new Ctor(buffer, a.offset, a.length);
      view.set(src);
      views.push(view);
    }
    const scalars: number[] = kernel.scalars.map((s) => args[indexOf.get(s)!] as number);
    let code: number;
    try {
      code = v.run!(...scalars);
    } catch {
      // A trap (none is expected: divisions are guarded, truncations saturate, addresses are
      // proven or checked) would be a translator bug; JavaScript still gives the right answer.
      code = -1;
    }
    if (code !== 0) {
      stats.faults++;
      return false;
    }
    kernel.arrays.forEach((a, k) => {
      if (a.written) (args[indexOf.get(a.param)!] as TypedArray).set(views[k]!);
    });
    return true;
  };

  /** Once auto has chosen JavaScript, the kernel's instance (and its hold on the memory) goes. */
  const dropIfJs = (v: Variant): void => {
    if (v.choice !== 'js' || v.run === null) return;
    v.run = null;
    memory.release();
  };

  /** `auto`: whether the call's arrays are large enough to try a kernel (a quick sum, before any key is built). */
  const largeEnough = (args: readonly unknown[]): boolean => {
    let elements = 0;
    for (let k = 0; k < n; k++) if (kinds[k] === 'array') elements += (args[k] as { length?: number } | null)?.length ?? 0;
    return elements >= autoRule.minAutoElements;
  };

  return (rt: unknown, ...args: unknown[]): unknown => {
    if (mode === 'auto' && !largeEnough(args)) {
      stats.jsCalls++;
      return js(rt, ...args);
    }
    const v = variantFor(args);
    if (v !== null) {
      if (v.choice === 'wasm') {
        if (runKernel(v, args)) {
          stats.wasmCalls++;
          return undefined;
        }
      } else if (v.choice === null) {
        // auto: JavaScript for the warm-up calls, then the kernel and JavaScript in turn; every call timed.
        const jsTurn = v.jsMs.length < autoRule.jsWarmUp || v.wasmMs.length > v.jsMs.length - autoRule.jsWarmUp;
        if (jsTurn) {
          const t0 = performance.now();
          const r = js(rt, ...args);
          v.jsMs.push(performance.now() - t0);
          stats.jsCalls++;
          return r;
        }
        if (v.run !== null || instantiate(v)) {
          const t0 = performance.now();
          if (runKernel(v, args)) {
            v.wasmMs.push(performance.now() - t0);
            stats.wasmCalls++;
            decide(v);
            dropIfJs(v);
            return undefined;
          }
          // A fault (or overlapping arrays): JavaScript runs now, and from then on — the data
          // that made this kernel give up will mostly come again, and each try costs a staging.
          v.choice = 'js';
          dropIfJs(v);
        } else v.choice = 'js';
      }
    }
    stats.jsCalls++;
    return js(rt, ...args);
  };
}

/** auto: after each kernel call, JavaScript if its best call is clearly faster; once the trials are over, the kernel only if it wins by `minGain`. */
function decide(v: Variant): void {
  if (v.wasmMs.length < 2) return;
  const wasm = Math.min(...v.wasmMs.slice(1));
  const js = Math.min(...v.jsMs);
  if (js * autoRule.clearRatio < wasm) v.choice = 'js';
  else if (v.wasmMs.length >= autoRule.autoTrials) v.choice = wasm * autoRule.minGain < js ? 'wasm' : 'js';
}
