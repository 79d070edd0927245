// WebAssembly kernels for the `js` back end's clusters (docs/EXECUTION.md, "WebAssembly").
//
// `wasmClusters` wraps a module's cluster functions: a call first looks for a kernel
// specialised on the call's extents, array lengths and which scalars are int32
// (codegen/wasm/translate.ts; translated and compiled the first time such a call comes, and
// remembered, refusals too), stages the arrays the kernel touches into the kernel memory, runs
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
 * run JavaScript (V8 is still optimising it: a long loop's second call measured 2–5× its
 * steady time, which made a kernel look 1.5× faster than it is). Then the calls alternate
 * JavaScript and WebAssembly, timed, JavaScript first. The second kernel call also times its
 * staging (the copies in and out) alone (the first touches freshly grown memory, whose page
 * faults made gather's copies look three times slower): when that is at least
 * `maxStagingShare` of the last JavaScript call, the kernel would have to run its loops more
 * than twice as fast as JavaScript just to break even — memory-bound loops (a reverse, a
 * permutation, a long map) never do — so JavaScript runs from then on, and such a cluster pays
 * for two kernel calls, not four. Otherwise,
 * the first call of each side a warm-up, as soon as one is faster by `clearRatio` (after one
 * timed call each), or after `autoTrials` calls each, the kernel runs from then on if its median
 * is faster by `minGain`, JavaScript otherwise (early JavaScript calls still tiering up make a
 * close race lean towards the kernel, which then measured slower: greedyTopDownBad's fold).
 */
export const autoRule = { minAutoElements: 4096, jsWarmUp: 2, autoTrials: 4, clearRatio: 1.5, maxStagingShare: 0.5, minGain: 1.1 } as const;

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
    case 'bool':
      return Uint8Array;
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
  /** The kernel's entry; null once auto has chosen JavaScript (the instance is dropped). */
  run: ((...scalars: number[]) => number) | null;
  /** `auto` only: timings so far, and the choice once made. */
  readonly wasmMs: number[];
  readonly jsMs: number[];
  /** JavaScript calls run before the trials. */
  warmedUp: number;
  choice: 'wasm' | 'js' | null;
}

/** What one kernel call did: whether its results were kept, and how long its copies took. */
interface KernelRun {
  readonly kept: boolean;
  readonly stagingMs: number;
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
    if (mode === 'auto' && kernel.arrays.reduce((s, a) => s + a.length, 0) < autoRule.minAutoElements) {
      stats.refusal = 'too small for auto';
      return null;
    }
    let instance: { readonly exports: Record<string, unknown> };
    try {
      // Growing may fail (the host's limit): then, as for a refused compile, JavaScript runs.
      memory.ensure(kernel.memoryBytes);
      instance = new api.Instance(new api.Module(kernel.bytes), { env: { memory: memory.memory } });
      memory.acquire();
    } catch (err) {
      // A browser's main thread refuses synchronous compiles above 4 KB.
      stats.refusal = `compileFailed: ${String(err)}`;
      return null;
    }
    const run = instance.exports[kernel.entry] as (...scalars: number[]) => number;
    return { kernel, run, wasmMs: [], jsMs: [], warmedUp: 0, choice: mode === 'on' ? 'wasm' : null };
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

  /** Stages, runs, copies back (timing the copies when `timed`). */
  const runKernel = (v: Variant, args: readonly unknown[], timed: boolean): KernelRun => {
    const { kernel } = v;
    if (overlapping(kernel, args)) return { kept: false, stagingMs: 0 };
    const t0 = timed ? performance.now() : 0;
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
    const t1 = timed ? performance.now() : 0;
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
      return { kept: false, stagingMs: 0 };
    }
    const t2 = timed ? performance.now() : 0;
    kernel.arrays.forEach((a, k) => {
      if (a.written) (args[indexOf.get(a.param)!] as TypedArray).set(views[k]!);
    });
    return { kept: true, stagingMs: timed ? t1 - t0 + (performance.now() - t2) : 0 };
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
        if (runKernel(v, args, false).kept) {
          stats.wasmCalls++;
          return undefined;
        }
      } else if (v.choice === null) {
        // auto: JavaScript alone until V8 has optimised it (the untimed calls below), then
        // alternate, timed, JavaScript first; the first call of each is a warm-up (tiers, caches).
        if (v.warmedUp < autoRule.jsWarmUp) v.warmedUp++;
        else if ((v.wasmMs.length + v.jsMs.length) % 2 === 0) {
          const t0 = performance.now();
          const r = js(rt, ...args);
          v.jsMs.push(performance.now() - t0);
          stats.jsCalls++;
          decide(v);
          dropIfJs(v);
          return r;
        } else {
          const t0 = performance.now();
          const done = runKernel(v, args, true);
          if (done.kept) {
            v.wasmMs.push(performance.now() - t0);
            stats.wasmCalls++;
            if (v.wasmMs.length === 2 && done.stagingMs >= autoRule.maxStagingShare * v.jsMs[v.jsMs.length - 1]!) v.choice = 'js';
            else decide(v);
            dropIfJs(v);
            return undefined;
          }
          // A fault: JavaScript runs now (and raises it).
        }
      }
    }
    stats.jsCalls++;
    return js(rt, ...args);
  };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

/** auto: after each pair of timed calls (the first of each dropped), decide if the choice is clear or the trials are over. */
function decide(v: Variant): void {
  const n = Math.min(v.wasmMs.length, v.jsMs.length);
  if (n < 2) return;
  const wasm = median(v.wasmMs.slice(1, n));
  const js = median(v.jsMs.slice(1, n));
  const clear = wasm * autoRule.clearRatio < js || js * autoRule.clearRatio < wasm;
  if (clear || n >= autoRule.autoTrials) v.choice = wasm * autoRule.minGain < js ? 'wasm' : 'js';
}
