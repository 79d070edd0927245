// A small WebAssembly binary encoder: LEB128 numbers, the module sections a cluster kernel needs
// (type, import, function, export, code) and the opcodes the translator (translate.ts) emits.
//
// Written here rather than taken from a library because the compiler's code generators are its
// own (docs/EXECUTION.md, "WebAssembly"), and a kernel needs only a few dozen instructions. The
// binary format is the WebAssembly 2.0 core specification's (with the fixed-width SIMD proposal's
// `v128` value type reserved, not used yet). No `node:` module: this runs in browsers too.

/** Value types (binary encoding). */
export const ValType = { i32: 0x7f, i64: 0x7e, f32: 0x7d, f64: 0x7c } as const;
export type ValType = (typeof ValType)[keyof typeof ValType];

/** A block that leaves nothing on the stack (`blocktype` empty). */
export const voidBlock = 0x40;

/** The opcodes the translator emits, by their text-format names. */
export const Op = {
  unreachable: 0x00,
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  else: 0x05,
  end: 0x0b,
  br: 0x0c,
  br_if: 0x0d,
  return: 0x0f,
  call: 0x10,
  drop: 0x1a,
  select: 0x1b,
  local_get: 0x20,
  local_set: 0x21,
  local_tee: 0x22,
  i32_load: 0x28,
  f32_load: 0x2a,
  f64_load: 0x2b,
  i32_load8_s: 0x2c,
  i32_load8_u: 0x2d,
  i32_store: 0x36,
  f32_store: 0x38,
  f64_store: 0x39,
  i32_store8: 0x3a,
  i32_const: 0x41,
  i64_const: 0x42,
  f64_const: 0x44,
  i32_eqz: 0x45,
  i32_eq: 0x46,
  i32_ne: 0x47,
  i32_lt_s: 0x48,
  i32_lt_u: 0x49,
  i32_gt_s: 0x4a,
  i32_gt_u: 0x4b,
  i32_le_s: 0x4c,
  i32_le_u: 0x4d,
  i32_ge_s: 0x4e,
  i32_ge_u: 0x4f,
  f64_eq: 0x61,
  f64_ne: 0x62,
  f64_lt: 0x63,
  f64_gt: 0x64,
  f64_le: 0x65,
  f64_ge: 0x66,
  i32_clz: 0x67,
  i32_add: 0x6a,
  i32_sub: 0x6b,
  i32_mul: 0x6c,
  i32_rem_s: 0x6f,
  i32_and: 0x71,
  i32_or: 0x72,
  i32_xor: 0x73,
  i32_shl: 0x74,
  i32_shr_s: 0x75,
  i32_shr_u: 0x76,
  f64_abs: 0x99,
  f64_neg: 0x9a,
  f64_ceil: 0x9b,
  f64_floor: 0x9c,
  f64_trunc: 0x9d,
  f64_sqrt: 0x9f,
  f64_add: 0xa0,
  f64_sub: 0xa1,
  f64_mul: 0xa2,
  f64_div: 0xa3,
  f64_min: 0xa4,
  f64_max: 0xa5,
  i32_wrap_i64: 0xa7,
  f32_demote_f64: 0xb6,
  f64_convert_i32_s: 0xb7,
  f64_convert_i32_u: 0xb8,
  f64_promote_f32: 0xbb,
  /** Prefix of the saturating truncations (`0xfc n`). */
  prefix_fc: 0xfc,
} as const;

/** Second bytes after `prefix_fc`. */
export const SatOp = {
  i32_trunc_sat_f64_s: 2,
  i32_trunc_sat_f64_u: 3,
  i64_trunc_sat_f64_s: 6,
} as const;

/** Unsigned LEB128 of a non-negative integer below 2^32. */
export function u32leb(n: number): number[] {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new RangeError(`u32leb: ${n}`);
  const out: number[] = [];
  let v = n;
  do {
    let byte = v % 128;
    v = Math.floor(v / 128);
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return out;
}

/** Signed LEB128 of an integer in the int32 range (i32.const's immediate). */
export function s32leb(n: number): number[] {
  if (!Number.isInteger(n) || n < -0x80000000 || n > 0x7fffffff) throw new RangeError(`s32leb: ${n}`);
  const out: number[] = [];
  let v = n;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    const done = (v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

/** The 8 little-endian bytes of a double (f64.const's immediate), NaN payloads included. */
export function f64bytes(x: number): number[] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x, true);
  return Array.from(new Uint8Array(view.buffer));
}

/** `i32.const n`. */
export const i32c = (n: number): number[] => [Op.i32_const, ...s32leb(n)];
/** `f64.const x`. */
export const f64c = (x: number): number[] => [Op.f64_const, ...f64bytes(x)];
/** A memory access's immediate: alignment exponent and offset. */
export const memarg = (alignLog2: number, offset = 0): number[] => [...u32leb(alignLog2), ...u32leb(offset)];

function utf8(s: string): number[] {
  return Array.from(new TextEncoder().encode(s));
}

/** A name: its byte length, then its UTF-8 bytes. */
function name(s: string): number[] {
  const b = utf8(s);
  return [...u32leb(b.length), ...b];
}

/** A vector: its length, then its elements' encodings. */
function vec(items: readonly (readonly number[])[]): number[] {
  return [...u32leb(items.length), ...items.flat()];
}

function section(id: number, content: readonly number[]): number[] {
  return content.length === 0 ? [] : [id, ...u32leb(content.length), ...content];
}

export interface FuncType {
  readonly params: readonly ValType[];
  readonly results: readonly ValType[];
}

export interface WasmFunction {
  /** Index into the module's `types`. */
  readonly type: number;
  /** Locals after the parameters, in order. */
  readonly locals: readonly ValType[];
  /** The instructions, without the final `end` (added here). */
  readonly body: readonly number[];
}

export interface WasmModule {
  readonly types: readonly FuncType[];
  /** An imported memory (`module`.`name`), at least `minPages` 64 KiB pages. */
  readonly memory: { readonly module: string; readonly name: string; readonly minPages: number } | null;
  readonly functions: readonly WasmFunction[];
  /** Exported functions, by name and function index. */
  readonly exports: readonly { readonly name: string; readonly func: number }[];
}

/** Locals grouped into runs of one type, as the code section wants them. */
function localRuns(locals: readonly ValType[]): number[][] {
  const runs: { type: ValType; count: number }[] = [];
  for (const t of locals) {
    const last = runs[runs.length - 1];
    if (last !== undefined && last.type === t) last.count++;
    else runs.push({ type: t, count: 1 });
  }
  return runs.map((r) => [...u32leb(r.count), r.type]);
}

/** The module's binary encoding. */
export function encodeModule(m: WasmModule): Uint8Array {
  const types = section(1, vec(m.types.map((t) => [0x60, ...vec(t.params.map((p) => [p])), ...vec(t.results.map((r) => [r]))])));
  // Import kind 0x02: a memory with limits flag 0 (a minimum only).
  const imports = m.memory === null ? [] : section(2, vec([[...name(m.memory.module), ...name(m.memory.name), 0x02, 0x00, ...u32leb(m.memory.minPages)]]));
  const funcs = section(3, vec(m.functions.map((f) => u32leb(f.type))));
  const exports = section(7, vec(m.exports.map((e) => [...name(e.name), 0x00, ...u32leb(e.func)])));
  const code = section(
    10,
    vec(
      m.functions.map((f) => {
        const body = [...vec(localRuns(f.locals)), ...f.body, Op.end];
        return [...u32leb(body.length), ...body];
      }),
    ),
  );
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...types, ...imports, ...funcs, ...exports, ...code]);
}
