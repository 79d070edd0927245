// NumPy `.npy` files: reading with thorough validation, and writing.
//
// Format (numpy.lib.format): the magic `\x93NUMPY`, a major and minor version byte, the header
// length (uint16 little-endian in version 1, uint32 in versions 2 and 3), then the header: a
// Python dict literal `{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }` (latin-1 in
// versions 1 and 2, UTF-8 in 3) padded with spaces and a newline so the data starts at a
// multiple of 64 bytes; then the elements.
//
// Why not npyjs at run time: its parser reads the header with regular expressions (a
// structured dtype or a malformed shape slips through), does not check that the data length
// matches the shape, turns `b1` data into JavaScript booleans, reinterprets `>` data without
// an error for some codes, and its writer pads to 8 bytes rather than 64 and writes version 1
// only. All of that is what this module must get right and report precisely, so the reader
// and writer are ours, and npyjs serves the tests as an independent implementation to check
// interoperability against (it reads our files; we read its files).

import { type DiagnosticCode, userError } from '../../diagnostics/index.js';
import { allocate, integerRange, type IntegerType } from '../../ir/scalarOps.js';
import type { ScalarType } from '../../ir/types.js';
import { type ArrayValue, sizeOf } from '../../ir/values.js';

const magic = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

/** The dtype descriptor we write for each element type, and its item size. */
const descrOf: Readonly<Record<ScalarType, string>> = { f64: '<f8', f32: '<f4', i32: '<i4', u32: '<u4', u8: '|u1', i8: '|i1', bool: '|b1' };
const itemSize: Readonly<Record<ScalarType, number>> = { f64: 8, f32: 4, i32: 4, u32: 4, u8: 1, i8: 1, bool: 1 };

function npyError(code: DiagnosticCode, fileName: string, message: string, notes?: readonly string[]): never {
  throw userError(code, `${fileName}: ${message}`, undefined, notes);
}

// ---- the header's Python literal --------------------------------------------------------------

type PyValue = string | number | boolean | null | readonly PyValue[] | { readonly [key: string]: PyValue };

/** Parses the small subset of Python literals .npy headers use: dicts, tuples, lists, str, int, bool, None. */
function parsePyLiteral(text: string, fileName: string): PyValue {
  let i = 0;
  const bad = (what: string): never => npyError('E503', fileName, `malformed header (${what} at character ${i}): ${JSON.stringify(text.trim())}`);
  const ws = (): void => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const value = (): PyValue => {
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++;
      const dict: Record<string, PyValue> = {};
      for (;;) {
        ws();
        if (text[i] === '}') {
          i++;
          return dict;
        }
        const key = value();
        if (typeof key !== 'string') bad('a non-string key');
        ws();
        if (text[i] !== ':') bad('a missing colon');
        i++;
        dict[key as string] = value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] !== '}') bad('a missing comma');
      }
    }
    if (ch === '(' || ch === '[') {
      const close = ch === '(' ? ')' : ']';
      i++;
      const items: PyValue[] = [];
      for (;;) {
        ws();
        if (text[i] === close) {
          i++;
          return items;
        }
        items.push(value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i] !== close) bad('a missing comma');
      }
    }
    if (ch === "'" || ch === '"') {
      const end = text.indexOf(ch, i + 1);
      if (end < 0) bad('an unterminated string');
      const s = text.slice(i + 1, end);
      i = end + 1;
      return s;
    }
    const word = /^(True|False|None|-?\d+L?)/.exec(text.slice(i));
    if (word === null) return bad('an unexpected character');
    i += word[0].length;
    if (word[0] === 'True') return true;
    if (word[0] === 'False') return false;
    if (word[0] === 'None') return null;
    return Number(word[0].replace(/L$/, ''));
  };
  const v = value();
  ws();
  if (i !== text.length) bad('text after the dict');
  return v;
}

/**
 * 64-bit integers (NumPy's default integer: `np.arange`, `np.array([1, 2])`) are read into a
 * narrower integer type (i32 by default; u32, u8 or i8 where the parameter has that type), each
 * value checked to fit (E509 names the first that does not).
 */
type Wide = 'i64' | 'u64';

/** The element type a dtype descriptor stands for, or a precise error. */
function elemOfDescr(descr: PyValue, fileName: string): ScalarType | Wide {
  if (typeof descr !== 'string') {
    return npyError('E504', fileName, 'unsupported dtype: a structured (record) dtype', ['arrays of records are not supported; save each field as its own .npy file']);
  }
  const m = /^([<>|=]?)([a-zA-Z])(\d*)$/.exec(descr);
  if (m === null) return npyError('E504', fileName, `unsupported dtype '${descr}'`);
  const [, order, kind, size] = m;
  const code = `${kind}${size}`;
  const supported: Readonly<Record<string, ScalarType | Wide>> = { f8: 'f64', f4: 'f32', i4: 'i32', u4: 'u32', u1: 'u8', i1: 'i8', b1: 'bool', i8: 'i64', u8: 'u64' };
  const elem = supported[code];
  if (elem === undefined) {
    const hint: Readonly<Record<string, string>> = {
      i2: 'int16: convert with .astype(np.int32)',
      u2: 'uint16: convert with .astype(np.uint32)',
      f2: 'float16: convert with .astype(np.float32)',
      O: 'object arrays hold Python objects, not numbers',
    };
    return npyError('E504', fileName, `unsupported dtype '${descr}' (supported: <f8, <f4, <i4, <u4, |u1, |i1, |b1, and <i8, <u8 whose values fit 32 bits)`, hint[code] === undefined ? [] : [hint[code]!]);
  }
  // Byte order is meaningless for one-byte types; otherwise only little-endian (or native,
  // which numpy writes only on little-endian machines as '<' anyway) is read.
  if (order === '>' && itemSize[elem as ScalarType] !== 1) {
    return npyError('E505', fileName, `big-endian dtype '${descr}' is not supported`, [`convert with .astype('<${code}')`]);
  }
  return elem;
}

interface Header {
  readonly elem: ScalarType | Wide;
  readonly shape: readonly number[];
  readonly dataOffset: number;
}

function readHeader(bytes: Uint8Array, fileName: string): Header {
  if (bytes.length < 10 || !magic.every((b, i) => bytes[i] === b)) npyError('E501', fileName, 'not a .npy file (it does not start with \\x93NUMPY)');
  const major = bytes[6]!;
  const minor = bytes[7]!;
  if (major < 1 || major > 3 || minor !== 0) npyError('E502', fileName, `unsupported .npy format version ${major}.${minor} (1.0, 2.0 and 3.0 are read)`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lengthBytes = major === 1 ? 2 : 4;
  if (bytes.length < 8 + lengthBytes) npyError('E501', fileName, 'truncated .npy header');
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const headerStart = 8 + lengthBytes;
  const dataOffset = headerStart + headerLength;
  if (bytes.length < dataOffset) npyError('E501', fileName, `truncated .npy header (${headerLength} header bytes announced, ${bytes.length - headerStart} present)`);
  const headerBytes = bytes.subarray(headerStart, dataOffset);
  const text = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(headerBytes);
  const dict = parsePyLiteral(text, fileName);
  if (typeof dict !== 'object' || dict === null || Array.isArray(dict)) return npyError('E503', fileName, 'malformed header: not a dict');
  const fields = dict as { readonly [key: string]: PyValue };
  for (const key of ['descr', 'fortran_order', 'shape']) if (!(key in fields)) npyError('E503', fileName, `malformed header: no '${key}'`);
  const elem = elemOfDescr(fields.descr!, fileName);
  const shape = fields.shape;
  if (!Array.isArray(shape) || !shape.every((d) => typeof d === 'number' && Number.isSafeInteger(d) && d >= 0)) {
    return npyError('E503', fileName, `malformed header: shape ${JSON.stringify(shape)} is not a tuple of non-negative integers`);
  }
  if (fields.fortran_order !== false) {
    if (fields.fortran_order === true && shape.filter((d) => d !== 1).length > 1) {
      npyError('E506', fileName, 'Fortran-order (column-major) arrays are not supported', ['save with np.save(f, np.ascontiguousarray(a))']);
    }
    // A Fortran-order array with at most one extent above 1 has the same bytes in C order.
    if (fields.fortran_order !== true) npyError('E503', fileName, `malformed header: fortran_order is ${JSON.stringify(fields.fortran_order)}`);
  }
  return { elem, shape: shape as number[], dataOffset };
}

export interface ReadNpyOptions {
  /** The type 64-bit integer data (`<i8`, `<u8`) is read into, every value checked to fit it: i32 (default), u32, u8 or i8. */
  readonly integer?: IntegerType;
}

const wideItemSize = 8;

/** 64-bit integers narrowed to `target`, or E509 naming the first value (and its index) that does not fit. */
const numpyNames: Readonly<Record<IntegerType, string>> = { i32: 'int32', u32: 'uint32', u8: 'uint8', i8: 'int8' };

function narrowed(raw: Uint8Array, wide: Wide, target: IntegerType, count: number, fileName: string): ArrayValue['data'] {
  const values = wide === 'i64' ? new BigInt64Array(count) : new BigUint64Array(count);
  new Uint8Array(values.buffer).set(raw);
  const [low, high] = integerRange(target).map(BigInt) as [bigint, bigint];
  const data = allocate(target, count);
  for (let i = 0; i < count; i++) {
    const v = values[i]!;
    if (v < low || v > high) {
      npyError('E509', fileName, `element ${i} is ${v}, which does not fit ${target} (${low}..${high}); 64-bit integers are read as ${target} when every value fits`, [
        `convert with .astype(np.${numpyNames[target]}) after checking the range, or .astype(np.float64)`,
      ]);
    }
    data[i] = Number(v);
  }
  return data;
}

/** Reads a `.npy` file's bytes into an array; every problem is a UserError E501–E509 naming the file. */
export function readNpy(bytes: Uint8Array, fileName: string, options: ReadNpyOptions = {}): ArrayValue {
  if (options.integer !== undefined && !Object.hasOwn(numpyNames, options.integer)) {
    throw new TypeError(`readNpy: integer must be 'i32', 'u32', 'u8' or 'i8', not ${JSON.stringify(options.integer)}`);
  }
  const header = readHeader(bytes, fileName);
  const { shape, dataOffset } = header;
  const count = sizeOf(shape);
  const wide = header.elem === 'i64' || header.elem === 'u64' ? header.elem : null;
  const size = wide === null ? itemSize[header.elem as ScalarType] : wideItemSize;
  const expectedBytes = count * size;
  const present = bytes.length - dataOffset;
  if (present !== expectedBytes) {
    const shown = `(${shape.join(', ')}${shape.length === 1 ? ',' : ''})`;
    const descr = wide === null ? descrOf[header.elem as ScalarType] : wide === 'i64' ? '<i8' : '<u8';
    npyError('E507', fileName, `the data has ${present} bytes, but shape ${shown} of ${descr} needs ${expectedBytes}${present < expectedBytes ? ' (the file is truncated)' : ''}`);
  }
  // The element bytes, copied into a fresh typed array below: their offset need not be aligned.
  const raw = bytes.subarray(dataOffset, dataOffset + expectedBytes);
  if (wide !== null) {
    const target = options.integer ?? 'i32';
    return { kind: 'array', elem: target, shape, data: narrowed(raw, wide, target, count, fileName) };
  }
  const elem = header.elem as ScalarType;
  const data = allocate(elem, count);
  if (elem === 'bool') {
    for (let i = 0; i < count; i++) data[i] = raw[i] !== 0 ? 1 : 0;
  } else {
    new Uint8Array(data.buffer).set(raw);
  }
  return { kind: 'array', elem, shape, data };
}

export interface WriteNpyOptions {
  /** Format version; by default 1, or 2 when the header does not fit version 1's 64 KiB. */
  readonly version?: 1 | 2 | 3;
}

/** The typed array class of each element type: what `writeNpy` checks `data` against. */
const dataClass: Readonly<Record<ScalarType, string>> = { f64: 'Float64Array', f32: 'Float32Array', i32: 'Int32Array', u32: 'Uint32Array', u8: 'Uint8Array', i8: 'Int8Array', bool: 'Uint8Array' };

/** A TypeError unless `a` is an array value whose data, element type and shape agree (JavaScript callers may pass anything). */
function checkWritable(a: ArrayValue, version: unknown): void {
  const bad = (why: string): never => {
    throw new TypeError(`writeNpy: ${why}`);
  };
  if (!Object.hasOwn(descrOf, a?.elem ?? '')) bad(`elem ${JSON.stringify(a?.elem)} is none of ${Object.keys(descrOf).join(', ')}`);
  const cls = Object.prototype.toString.call(a.data).slice(8, -1);
  if (cls !== dataClass[a.elem]) bad(`data is ${cls === 'Undefined' ? 'missing' : `a ${cls}`}, but elem ${a.elem} needs a ${dataClass[a.elem]}`);
  if (!Array.isArray(a.shape) || !a.shape.every((d) => Number.isSafeInteger(d) && d >= 0) || sizeOf(a.shape) !== a.data.length) {
    bad(`shape ${JSON.stringify(a.shape)} does not hold the ${a.data.length} elements of data`);
  }
  if (version !== undefined && version !== 1 && version !== 2 && version !== 3) bad(`version ${JSON.stringify(version)}: expected 1, 2 or 3`);
}

/** Encodes an array as a `.npy` file (C order, little-endian, header aligned to 64 bytes). */
export function writeNpy(a: ArrayValue, options: WriteNpyOptions = {}): Uint8Array {
  checkWritable(a, options.version);
  const shapeText = a.shape.length === 1 ? `(${a.shape[0]},)` : `(${a.shape.join(', ')})`;
  const dict = `{'descr': '${descrOf[a.elem]}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  const pick = (v: 1 | 2 | 3): number => 8 + (v === 1 ? 2 : 4);
  let version = options.version ?? 1;
  if (options.version === undefined && pick(1) + dict.length + 1 > 0xffff) version = 2;
  const prefix = pick(version);
  const total = Math.ceil((prefix + dict.length + 1) / 64) * 64;
  const header = dict + ' '.repeat(total - prefix - dict.length - 1) + '\n';
  if (version === 1 && header.length > 0xffff) throw userError('E508', `a header of ${header.length} bytes does not fit .npy version 1`);
  const body = new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength);
  const out = new Uint8Array(total + body.length);
  out.set(magic, 0);
  out[6] = version;
  out[7] = 0;
  const view = new DataView(out.buffer);
  if (version === 1) view.setUint16(8, header.length, true);
  else view.setUint32(8, header.length, true);
  // The header is ASCII, which latin-1 and UTF-8 encode alike.
  for (let i = 0; i < header.length; i++) out[prefix + i] = header.charCodeAt(i);
  out.set(body, total);
  return out;
}
