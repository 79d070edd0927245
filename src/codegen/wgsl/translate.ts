// One cluster function or work function (the JS AST after the loop passes) → a WGSL compute
// kernel that computes what the JavaScript function computes, or a refusal saying why not. The
// WebGPU back end (src/runtime/webgpu) dispatches it; a refused function runs on the host.
//
// This file is the kernel's frame (bindings, the params block, the invocation's chunk) and the
// public interface; body.ts translates the body (its header says how JavaScript's meaning is
// kept), library.ts holds the WGSL helper functions, types.ts the value types.
//
// The frame (the runtime relies on exactly this):
// - @group(0) @binding(0) `status`: array<atomic<u32>>, element 0 the fault word (0 fine, 1 a
//   fault helper was called, 2 an index out of range or a value the kernel cannot hold exactly;
//   either way the runtime re-runs the program on the JavaScript back end).
// - @binding(1) `params`: array<u32>: count (invocations that do work), extent (i32 bits), step
//   (i32: iterations per chunk), one word per `scalars` entry (its bits), one word per `buffers`
//   entry (that array's length in elements: bound checks use it).
// - @binding(2 + i): the buffers, in `buffers` order.
// - Invocation t = gid.x + gid.y · (num_workgroups.x · workgroupSize); t ≥ count returns. A work
//   function's chunk is t, lo = chunk · step, hi = min(extent, lo + step); a serial function runs
//   its body in invocation 0 alone.
//
// Generated code never splices user text: every identifier is made from the generator's names
// (re-checked by print.ts) and every number is printed from its value.

import type { ScalarType } from '../../ir/types.js';
import type { KernelSource } from '../wasm/translate.js';
import { arrayUses, workParams } from './analysis.js';
import { Translator, type ArrayInfo, type Binding } from './body.js';
import { librarySource } from './library.js';
import { bufferName, lengthName, localName } from './print.js';
import { F32, FULL, I32_MAX, i32, Refusal, refuse, U32, type VT } from './types.js';

export { STATUS_BAIL, STATUS_FAULT } from './body.js';

/** What the function is: a serial cluster function (one invocation runs its whole body) or a work function over chunks. */
export type WgslRole =
  | { readonly kind: 'serial' }
  | { readonly kind: 'work'; readonly partials: readonly ScalarType[] | null };

export interface WgslBuffer {
  /** The parameter (an array parameter of the source, or `partials`). */
  readonly param: string;
  /** Device element type: 'f32' | 'i32' | 'u32' | 'bool' (stored as u32 0/1) | 'partials' (u32 words, bitcast per component). */
  readonly elem: ScalarType | 'partials';
  /** Whether the kernel may store to it (read-only storage otherwise). */
  readonly written: boolean;
  /** Declared array<atomic<…>> (the body uses Atomics on it). */
  readonly atomic: boolean;
}

export interface WgslScalar {
  readonly param: string;
  /** How its 32-bit word in the params block is read: i32 (extents, ints), u32, f32 (bitcast), bool (0/1). */
  readonly type: 'i32' | 'u32' | 'f32' | 'bool';
}

export interface WgslKernel {
  /** A complete WGSL module whose compute entry point is `main`. */
  readonly code: string;
  readonly workgroupSize: number;
  /** Storage buffers at @group(0) @binding(2 + i), in this order (only those the body uses). */
  readonly buffers: readonly WgslBuffer[];
  /** Scalar parameters (extents included) the body uses, in params-block order. */
  readonly scalars: readonly WgslScalar[];
}

export type WgslTranslation = { readonly ok: true; readonly kernel: WgslKernel } | { readonly ok: false; readonly reason: string };

/** Invocations per workgroup. */
export const WORKGROUP_SIZE = 64;
/** Storage buffers a kernel may bind besides `status` and `params` (maxStorageBuffersPerShaderStage 10). */
export const MAX_BUFFERS = 8;

/** The WGSL element type of a buffer. */
function bufferElem(elem: ScalarType | 'partials', atomic: boolean): string {
  const base = elem === 'f32' ? 'f32' : elem === 'i32' ? 'i32' : elem === 'u32' || elem === 'bool' || elem === 'partials' ? 'u32' : refuse(`a ${elem} array`);
  if (!atomic) return base;
  if (base === 'f32') return refuse('Atomics on an f32 array');
  return `atomic<${base}>`;
}

/** Translates `src` for `role`, or says why not. */
export function translateWgsl(src: KernelSource, role: WgslRole): WgslTranslation {
  try {
    return { ok: true, kernel: translateOrRefuse(src, role) };
  } catch (err) {
    if (err instanceof Refusal) return { ok: false, reason: err.message };
    throw err;
  }
}

function translateOrRefuse(src: KernelSource, role: WgslRole): WgslKernel {
  const uses = arrayUses(src.body);
  const work = role.kind === 'work';
  const own = new Set<string>(work ? [workParams.lo, workParams.hi, workParams.chunk] : []);
  if (work && role.partials !== null) own.add(workParams.partials);
  const extents = new Set(src.extents);
  const globals = new Map<string, Binding>();
  const buffers: WgslBuffer[] = [];
  const infos: ArrayInfo[] = [];
  const scalars: WgslScalar[] = [];
  const scalarVals: { name: string; type: WgslScalar['type'] }[] = [];
  for (const p of src.params) {
    if (globals.has(p)) return refuse(`parameter ${p} twice`);
    localName(p); // refuses a name it would not print
    if (own.has(p)) {
      if (p === workParams.partials) {
        const info: ArrayInfo = { param: p, elem: 'partials', buffer: bufferName(p), length: lengthName(p), atomic: false, written: uses.written.has(p) };
        infos.push(info);
        globals.set(p, { kind: 'array', info });
      } else globals.set(p, { kind: 'value', val: { t: i32(0, I32_MAX), code: localName(p) } });
      continue;
    }
    const elem = src.arrays[p];
    if (elem !== undefined) {
      if (elem === 'f64') return refuse(`the f64 array ${p}`);
      const atomic = uses.atomic.has(p);
      if (atomic && elem === 'f32') return refuse(`Atomics on the f32 array ${p}`);
      const info: ArrayInfo = { param: p, elem, buffer: bufferName(p), length: lengthName(p), atomic, written: uses.written.has(p) };
      infos.push(info);
      globals.set(p, { kind: 'array', info });
      continue;
    }
    if (extents.has(p)) {
      scalars.push({ param: p, type: 'i32' });
      scalarVals.push({ name: p, type: 'i32' });
      globals.set(p, { kind: 'value', val: { t: i32(0, I32_MAX), code: localName(p) } });
      continue;
    }
    const st = src.scalars[p];
    if (st === undefined) return refuse(`parameter ${p} is neither an array, an extent nor a scalar`);
    if (st === 'f64') return refuse(`the f64 scalar ${p}`);
    const type = st === 'f32' ? 'f32' : st === 'u32' ? 'u32' : st === 'bool' ? 'bool' : 'i32';
    scalars.push({ param: p, type });
    scalarVals.push({ name: p, type });
    const t: VT = type === 'f32' ? F32 : type === 'u32' ? U32 : type === 'bool' ? i32(0, 1) : FULL;
    globals.set(p, { kind: 'value', val: { t, code: localName(p) } });
  }
  if (work && role.partials !== null && !src.params.includes(workParams.partials)) return refuse('a work function with partials but no partials parameter');
  for (const n of [...uses.mutable, ...uses.consts]) if (globals.has(n)) return refuse(`${n} is both a parameter and a local`);
  if (infos.length > MAX_BUFFERS) return refuse(`${infos.length} arrays, more than the ${MAX_BUFFERS} storage buffers a kernel may bind`);
  for (const i of infos) buffers.push({ param: i.param, elem: i.elem, written: i.written, atomic: i.atomic });

  const tr = new Translator(src.body, globals, uses.mutable, work ? role.partials : null);
  const body = tr.translate();

  const header: string[] = [
    '// Generated by arrayfuse (src/codegen/wgsl): one cluster function as a compute kernel.',
    '@group(0) @binding(0) var<storage, read_write> status: array<atomic<u32>>;',
    '@group(0) @binding(1) var<storage, read> params: array<u32>;',
    ...infos.map((a, k) => `@group(0) @binding(${2 + k}) var<storage, ${a.written || a.atomic ? 'read_write' : 'read'}> ${a.buffer}: array<${bufferElem(a.elem, a.atomic)}>;`),
  ];
  const lib = librarySource(tr.used);
  const frame: string[] = [
    `@compute @workgroup_size(${WORKGROUP_SIZE})`,
    'fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {',
    `  let inv = gid.x + gid.y * (nwg.x * ${WORKGROUP_SIZE}u);`,
    '  if (inv >= params[0]) { return; }',
  ];
  if (work) {
    frame.push(
      '  let extent = bitcast<i32>(params[1]);',
      '  let step = bitcast<i32>(params[2]);',
      `  let ${localName(workParams.chunk)} = i32(inv);`,
      `  let ${localName(workParams.lo)} = ${localName(workParams.chunk)} * step;`,
      // min(extent, lo + step) without computing lo + step, which may pass 2^31 on the last chunk.
      `  let ${localName(workParams.hi)} = ${localName(workParams.lo)} + min(step, extent - ${localName(workParams.lo)});`,
    );
  } else frame.push('  if (inv != 0u) { return; }');
  scalarVals.forEach((s, k) => {
    const word = `params[${3 + k}]`;
    const read = s.type === 'f32' ? `bitcast<f32>(${word})` : s.type === 'u32' ? word : `bitcast<i32>(${word})`;
    frame.push(`  let ${localName(s.name)}: ${s.type === 'bool' ? 'i32' : s.type} = ${read};`);
  });
  infos.forEach((a, k) => frame.push(`  let ${a.length} = params[${3 + scalarVals.length + k}];`));
  const code = [...header, ...(lib === '' ? [] : [lib]), ...frame, ...body, '}', ''].join('\n');
  return { code, workgroupSize: WORKGROUP_SIZE, buffers, scalars };
}
