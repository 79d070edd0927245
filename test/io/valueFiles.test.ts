// Value files without a file system (src/runtime/io/valueFiles.ts): what a browser host can
// use on an uploaded file's name and bytes; files.ts only adds Node's reads and writes.
import { describe, expect, it } from 'vitest';
import type { RuntimeValue } from '../../src/ir/values.js';
import { decodeValueFile, encodeValueFile, valueFileFormat } from '../../src/runtime/io/index.js';
import { array, scalar } from '../ir/builders.js';

const plain = (v: RuntimeValue) => (v.kind === 'scalar' ? v : { elem: v.elem, shape: v.shape, data: Array.from(v.data) });
const bytesOf = (contents: Uint8Array | string): Uint8Array => (typeof contents === 'string' ? new TextEncoder().encode(contents) : contents);

describe('value files by name', () => {
  it('take their format from the extension, in any case', () => {
    expect(valueFileFormat('x.NPY')).toBe('npy');
    expect(valueFileFormat('dir/x.json')).toBe('json');
    expect(() => valueFileFormat('x.csv')).toThrow(/^error\[E522\]: x\.csv: unknown file type/);
  });

  it.each(['npy', 'json'] as const)('round-trip arrays and scalars through %s bytes', (format) => {
    const values = [array('i32', [2, 2], [1, 2, 3, 4]), array('f64', [3], [0.5, -1, Infinity])];
    for (const value of values) expect(plain(decodeValueFile(format, bytesOf(encodeValueFile(format, value)), `v.${format}`))).toEqual(plain(value));
  });

  it('write a scalar to .npy as a rank-0 array', () => {
    const back = decodeValueFile('npy', bytesOf(encodeValueFile('npy', scalar('f64', 2.5))), 'v.npy');
    expect(plain(back)).toEqual({ elem: 'f64', shape: [], data: [2.5] });
  });
});
