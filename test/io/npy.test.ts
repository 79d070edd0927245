// .npy reading and writing: NumPy-written fixtures (test/io/fixtures/make_fixtures.py), round
// trips for every dtype and version, npyjs as an independent reader and writer, bad files.

import { readFileSync } from 'node:fs';
import { parse as npyjsParse, dump as npyjsDump } from 'npyjs';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/diagnostics/index.js';
import { readNpy, writeNpy } from '../../src/runtime/io/index.js';
import type { ArrayValue } from '../../src/ir/values.js';
import type { ScalarType } from '../../src/ir/types.js';
import { array } from '../ir/builders.js';

const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(new URL(`./fixtures/${name}`, import.meta.url)));
const plain = (a: ArrayValue) => ({ elem: a.elem, shape: a.shape, data: Array.from(a.data) });

function errorOf(bytes: Uint8Array): UserError {
  try {
    readNpy(bytes, 'in.npy');
  } catch (e) {
    if (e instanceof UserError) return e;
    throw e;
  }
  throw new Error('expected a UserError');
}

describe('reading files NumPy wrote', () => {
  it.each<[string, ScalarType, number[], number[]]>([
    ['f64_2x3_v1.npy', 'f64', [2, 3], [1.5, -2, 3.25, 0, 1e300, -0]],
    ['f32_4_v2.npy', 'f32', [4], [Math.fround(0.1), -1.5, Math.fround(3e38), 7]],
    ['i32_2x2_v3.npy', 'i32', [2, 2], [-2147483648, -1, 0, 2147483647]],
    ['u32_3_v1.npy', 'u32', [3], [0, 1, 4294967295]],
    ['bool_5_v1.npy', 'bool', [5], [1, 0, 1, 1, 0]],
    ['u1_3.npy', 'u8', [3], [0, 1, 2]],
    ['f64_scalar_v1.npy', 'f64', [], [2.5]],
    ['i32_empty_v1.npy', 'i32', [0, 3], []],
    ['f64_fortran_column.npy', 'f64', [2, 1], [1, 2]],
  ])('%s', (name, elem, shape, data) => {
    expect(plain(readNpy(fixture(name), name))).toEqual({ elem, shape, data });
  });
});

describe('round trips', () => {
  const samples: ArrayValue[] = [
    array('f64', [2, 3], [1.5, -2, 3.25, 0, 1e300, Number.MIN_VALUE]),
    array('f32', [3], [0.1, -1.5, 1e-30]),
    array('i32', [2, 1, 2], [-2147483648, -1, 0, 2147483647]),
    array('u32', [3], [0, 1, 4294967295]),
    array('bool', [4], [1, 0, 0, 1]),
    array('u8', [2, 3], [0, 1, 127, 128, 254, 255]),
    array('i8', [5], [-128, -1, 0, 1, 127]),
    array('u8', [0], []),
    array('f64', [], [42]),
    array('i32', [0], []),
  ];
  it.each(samples.flatMap((a) => ([1, 2, 3] as const).map((version) => [`${a.elem}[${a.shape.join(',')}] v${version}`, a, version] as const)))(
    '%s',
    (_name, a, version) => {
      const bytes = writeNpy(a, { version });
      expect(bytes[6]).toBe(version);
      expect(plain(readNpy(bytes, 'x.npy'))).toEqual(plain(a));
      const headerEnd = bytes.length - a.data.byteLength;
      expect(headerEnd % 64).toBe(0);
      expect(bytes[headerEnd - 1]).toBe(0x0a);
    },
  );

  it('writes the header NumPy writes', () => {
    const bytes = writeNpy(array('f64', [2, 3], [1.5, -2, 3.25, 0, 1e300, -0]));
    expect(Array.from(bytes)).toEqual(Array.from(fixture('f64_2x3_v1.npy')));
  });

  it('is read by npyjs, an independent implementation', () => {
    const parsed = npyjsParse(writeNpy(array('i32', [2, 2], [1, -2, 3, -4])).slice().buffer);
    expect(parsed.dtype).toBe('i4');
    expect(parsed.shape).toEqual([2, 2]);
    expect(Array.from(parsed.data as Int32Array)).toEqual([1, -2, 3, -4]);
  });

  it('writes bytes npyjs reads as uint8 and int8', () => {
    const u = npyjsParse(writeNpy(array('u8', [3], [0, 200, 255])).slice().buffer);
    expect([u.dtype, Array.from(u.data as Uint8Array)]).toEqual(['u1', [0, 200, 255]]);
    const i = npyjsParse(writeNpy(array('i8', [3], [-128, -1, 127])).slice().buffer);
    expect([i.dtype, Array.from(i.data as Int8Array)]).toEqual(['i1', [-128, -1, 127]]);
  });

  it("reads one-byte integers in any byte order ('<u1', '>i1', '|i1')", () => {
    for (const descr of ['<u1', '>u1', '|i1', '>i1']) {
      const bytes = handMade(`{'descr': '${descr}', 'fortran_order': False, 'shape': (2,), }`, 2);
      bytes.set([0xff, 0x80], bytes.length - 2);
      const signed = descr.endsWith('i1');
      expect(plain(readNpy(bytes, 'b.npy'))).toEqual({ elem: signed ? 'i8' : 'u8', shape: [2], data: signed ? [-1, -128] : [255, 128] });
    }
  });

  it('reads what npyjs writes', () => {
    const bytes = new Uint8Array(npyjsDump(new Float32Array([1.5, 2.5, 3.5]), [3]));
    expect(plain(readNpy(bytes, 'npyjs.npy'))).toEqual({ elem: 'f32', shape: [3], data: [1.5, 2.5, 3.5] });
  });

  it('reads a file whose data starts at an unaligned offset', () => {
    // A hand-made v1 file with a 7-byte header region: data at offset 17, not a multiple of 8.
    const header = "{'descr':'<f8','fortran_order':False,'shape':(1,)}\n";
    const bytes = new Uint8Array(10 + header.length + 8);
    bytes.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length, 0]);
    for (let i = 0; i < header.length; i++) bytes[10 + i] = header.charCodeAt(i);
    new DataView(bytes.buffer).setFloat64(10 + header.length, 6.5, true);
    expect((10 + header.length) % 8).not.toBe(0);
    expect(plain(readNpy(bytes, 'odd.npy'))).toEqual({ elem: 'f64', shape: [1], data: [6.5] });
  });
});

/** A v1 file with the given header dict text and data bytes. */
function handMade(dict: string, dataBytes: number, major = 1): Uint8Array {
  const header = dict + '\n';
  const prefix = major === 1 ? 10 : 12;
  const bytes = new Uint8Array(prefix + header.length + dataBytes);
  bytes.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, major, 0]);
  new DataView(bytes.buffer).setUint16(8, header.length, true);
  for (let i = 0; i < header.length; i++) bytes[prefix + i] = header.charCodeAt(i);
  return bytes;
}

describe("64-bit integers (NumPy's default integer)", () => {
  it('are read as i32, or as u32 when asked, when every value fits', () => {
    expect(plain(readNpy(fixture('i64_3.npy'), 'i64.npy'))).toEqual({ elem: 'i32', shape: [3], data: [1, 2, 3] });
    expect(plain(readNpy(fixture('i64_arange_2x3.npy'), 'a.npy', { integer: 'u32' }))).toEqual({ elem: 'u32', shape: [2, 3], data: [0, 1, 2, 3, 4, 5] });
  });

  it('name the first value that does not fit the type asked for', () => {
    const asU32 = (bytes: Uint8Array): string => {
      try {
        readNpy(bytes, 'in.npy', { integer: 'u32' });
      } catch (e) {
        if (e instanceof UserError) return `${e.code}: ${e.diagnostics[0]!.message}`;
        throw e;
      }
      return 'read';
    };
    expect(asU32(fixture('i64_wide.npy'))).toBe('E509: in.npy: element 1 is -1, which does not fit u32 (0..4294967295); 64-bit integers are read as u32 when every value fits');
    expect(asU32(fixture('u64_3.npy'))).toBe('E509: in.npy: element 2 is 4294967296, which does not fit u32 (0..4294967295); 64-bit integers are read as u32 when every value fits');
  });
});

describe("64-bit integers read as bytes (NumPy's default integer for pixel values)", () => {
  it('are read as u8 or i8 when asked and every value fits, else E509 with the conversion', () => {
    expect(plain(readNpy(fixture('i64_arange_2x3.npy'), 'a.npy', { integer: 'u8' }))).toEqual({ elem: 'u8', shape: [2, 3], data: [0, 1, 2, 3, 4, 5] });
    expect(plain(readNpy(fixture('i64_arange_2x3.npy'), 'a.npy', { integer: 'i8' }))).toEqual({ elem: 'i8', shape: [2, 3], data: [0, 1, 2, 3, 4, 5] });
    let error: UserError | undefined;
    try {
      readNpy(fixture('i64_wide.npy'), 'in.npy', { integer: 'u8' });
    } catch (e) {
      if (e instanceof UserError) error = e;
    }
    expect(error?.code).toBe('E509');
    expect(error?.diagnostics[0]!.message).toContain('which does not fit u8 (0..255)');
    expect(error?.diagnostics[0]!.notes).toEqual(['convert with .astype(np.uint8) after checking the range, or .astype(np.float64)']);
    expect(() => readNpy(fixture('i64_3.npy'), 'x.npy', { integer: 'u16' as 'u8' })).toThrow(TypeError);
  });
});

describe('bad files', () => {
  const good = fixture('f64_2x3_v1.npy');
  it.each<[string, Uint8Array, string, string]>([
    ['empty', new Uint8Array(0), 'E501', 'not a .npy file'],
    ['bad magic', new TextEncoder().encode('PK\x03\x04 this is a zip file'), 'E501', 'not a .npy file'],
    ['truncated header', good.slice(0, 40), 'E501', 'truncated .npy header'],
    ['truncated data', good.slice(0, good.length - 3), 'E507', 'the data has 45 bytes, but shape (2, 3) of <f8 needs 48 (the file is truncated)'],
    ['extra data', new Uint8Array([...good, 0, 0, 0, 0, 0, 0, 0, 0]), 'E507', 'the data has 56 bytes'],
    ['version 4', (() => { const b = good.slice(); b[6] = 4; return b; })(), 'E502', 'unsupported .npy format version 4.0'],
    ['big-endian', fixture('f64_big_endian.npy'), 'E505', "big-endian dtype '>f8' is not supported"],
    ['Fortran order', fixture('f64_fortran.npy'), 'E506', 'Fortran-order (column-major) arrays are not supported'],
    ['int64 outside i32', fixture('i64_wide.npy'), 'E509', 'element 2 is 2147483648, which does not fit i32 (-2147483648..2147483647)'],
    ['uint64 outside i32', fixture('u64_3.npy'), 'E509', 'element 1 is 4294967295, which does not fit i32'],
    ['big-endian int64', fixture('i64_big_endian.npy'), 'E505', "big-endian dtype '>i8' is not supported"],
    ['int16', handMade("{'descr': '<i2', 'fortran_order': False, 'shape': (1,), }", 2), 'E504', "unsupported dtype '<i2'"],
    ['object array', fixture('object_2.npy'), 'E504', "unsupported dtype '|O'"],
    ['structured dtype', fixture('structured_2.npy'), 'E504', 'a structured (record) dtype'],
    ['malformed dict', handMade("{'descr': '<f8', 'shape': (1,", 8), 'E503', 'malformed header'],
    ['missing shape', handMade("{'descr': '<f8', 'fortran_order': False}", 8), 'E503', "no 'shape'"],
    ['negative extent', handMade("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,)}", 8), 'E503', 'is not a tuple of non-negative integers'],
  ])('%s', (_name, bytes, code, fragment) => {
    const err = errorOf(bytes);
    expect(err.code).toBe(code);
    expect(err.diagnostics[0]!.message).toContain('in.npy: ');
    expect(err.diagnostics[0]!.message).toContain(fragment);
  });

  it('suggests a conversion for dtypes NumPy can convert', () => {
    expect(errorOf(handMade("{'descr': '<i2', 'fortran_order': False, 'shape': (1,), }", 2)).diagnostics[0]!.notes).toEqual(['int16: convert with .astype(np.int32)']);
    expect(errorOf(fixture('i64_wide.npy')).diagnostics[0]!.notes).toEqual(['convert with .astype(np.int32) after checking the range, or .astype(np.float64)']);
  });
});

describe('never a crash', () => {
  it('answers truncated or corrupted files with an array or a UserError', () => {
    const good = fixture('f64_2x3_v1.npy');
    fc.assert(
      fc.property(fc.nat({ max: good.length }), fc.array(fc.tuple(fc.nat({ max: good.length - 1 }), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }), (cut, edits) => {
        const bytes = good.slice(0, cut);
        for (const [at, byte] of edits) if (at < bytes.length) bytes[at] = byte;
        try {
          readNpy(bytes, 'in.npy');
        } catch (e) {
          if (!(e instanceof UserError)) throw e;
          expect(e.code).toMatch(/^E50[1-7]$/);
        }
      }),
      { numRuns: 500 },
    );
  });
});
