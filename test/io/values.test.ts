// JSON values, scalars from command-line text, random inputs and value files.

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/diagnostics/index.js';
import type { RuntimeValue } from '../../src/ir/values.js';
import {
  parseArgAssignment,
  parseRandomSpec,
  parseScalar,
  randomValue,
  randomValues,
  readJsonValue,
  readValueFile,
  valueToJson,
  writeValueFile,
} from '../../src/runtime/io/index.js';
import { array, scalar } from '../ir/builders.js';

const plain = (v: RuntimeValue) => (v.kind === 'scalar' ? v : { elem: v.elem, shape: v.shape, data: Array.from(v.data) });

function errorOf(f: () => unknown): UserError {
  try {
    f();
  } catch (e) {
    if (e instanceof UserError) return e;
    throw e;
  }
  throw new Error('expected a UserError');
}

describe('JSON values', () => {
  it.each<[string, string, ReturnType<typeof plain>]>([
    ['dtype object, flat data', '{"dtype": "f64", "shape": [2, 3], "data": [1, 2, 3, 4, 5, 6]}', { elem: 'f64', shape: [2, 3], data: [1, 2, 3, 4, 5, 6] }],
    ['dtype object, nested data', '{"dtype": "u32", "shape": [2, 2], "data": [[1, 2], [3, 4294967295]]}', { elem: 'u32', shape: [2, 2], data: [1, 2, 3, 4294967295] }],
    ['dtype object, shape inferred', '{"dtype": "f32", "data": [[0.1], [2]]}', { elem: 'f32', shape: [2, 1], data: [Math.fround(0.1), 2] }],
    ['dtype object, non-finite floats', '{"dtype": "f64", "data": ["inf", "-inf", "nan"]}', { elem: 'f64', shape: [3], data: [Infinity, -Infinity, NaN] }],
    ['dtype object, rank 0', '{"dtype": "i32", "shape": [], "data": [7]}', { elem: 'i32', shape: [], data: [7] }],
    ['dtype object, bools', '{"dtype": "bool", "data": [true, false, 1]}', { elem: 'bool', shape: [3], data: [1, 0, 1] }],
    ['nested integers are i32', '[[1, 2], [3, -4]]', { elem: 'i32', shape: [2, 2], data: [1, 2, 3, -4] }],
    ['any float literal makes f64', '[1, 2.0]', { elem: 'f64', shape: [2], data: [1, 2] }],
    ['an exponent makes f64', '[1, 1e2]', { elem: 'f64', shape: [2], data: [1, 100] }],
    ['integers beyond i32 make f64', '[1, 3000000000]', { elem: 'f64', shape: [2], data: [1, 3000000000] }],
    ['booleans make bool', '[true, false]', { elem: 'bool', shape: [2], data: [1, 0] }],
    ['an empty list', '[]', { elem: 'i32', shape: [0], data: [] }],
  ])('%s', (_name, text, expected) => {
    expect(plain(readJsonValue(text, 'in.json'))).toEqual(expected);
  });

  it.each<[string, string, RuntimeValue]>([
    ['a bare integer', '7', scalar('i32', 7)],
    ['a bare float', '2.0', scalar('f64', 2)],
    ['a bare bool', 'true', scalar('bool', 1)],
    ['a typed scalar', '{"dtype": "u32", "value": 5}', scalar('u32', 5)],
  ])('scalar: %s', (_name, text, expected) => {
    expect(readJsonValue(text, 'in.json')).toEqual(expected);
  });

  it.each<[string, string, string, string]>([
    ['not JSON', '[1, 2', 'E510', 'not valid JSON'],
    ['ragged lists', '[[1, 2], [3]]', 'E511', '[1]: ragged lists: expected a list of shape [2] like [0], got a list of shape [1]'],
    ['a list among numbers', '[1, [2]]', 'E511', '[1]: ragged lists'],
    ['a string element', '{"dtype": "i32", "data": [1, "two"]}', 'E511', 'data[1]: expected a number, got the string "two"'],
    ['an unknown dtype', '{"dtype": "f16", "data": [1]}', 'E512', 'dtype: unknown dtype the string "f16"'],
    ['an unknown field', '{"dtype": "f64", "data": [1], "order": "C"}', 'E511', 'order: unknown field'],
    ['shape and flat data disagree', '{"dtype": "f64", "shape": [2, 2], "data": [1, 2, 3]}', 'E513', 'shape [2, 2] needs 4 elements, the data has 3'],
    ['shape and nested data disagree', '{"dtype": "f64", "shape": [3, 2], "data": [[1, 2, 3], [4, 5, 6]]}', 'E513', 'the data has shape [2, 3]'],
    ['a float for i32', '{"dtype": "i32", "data": [1, 2.5]}', 'E514', 'data[1]: 2.5 is not a value of type i32'],
    ['a negative u32', '{"dtype": "u32", "data": [[0], [-1]]}', 'E514', 'data[1][0]: -1 is not a value of type u32'],
    ['an i32 out of range', '{"dtype": "i32", "value": 2147483648}', 'E514', 'value: 2147483648 is not a value of type i32'],
    ['a bad bool', '{"dtype": "bool", "data": [2]}', 'E514', 'data[0]: expected a bool'],
    ['no data', '{"dtype": "f64", "shape": [1]}', 'E511', 'data: missing'],
  ])('error: %s', (_name, text, code, fragment) => {
    const err = errorOf(() => readJsonValue(text, 'in.json'));
    expect(err.code).toBe(code);
    expect(err.diagnostics[0]!.message).toContain(fragment);
    expect(err.diagnostics[0]!.file?.name).toBe('in.json');
  });

  it('writes nested data with the dtype, and reads it back', () => {
    const a = array('f32', [2, 2], [0.5, -1, Infinity, 3]);
    const text = valueToJson(a);
    expect(text).toBe('{"dtype": "f32", "shape": [2, 2], "data": [[0.5,-1],["inf",3]]}');
    expect(plain(readJsonValue(text, 'x.json'))).toEqual(plain(a));
    expect(valueToJson(array('bool', [2], [1, 0]))).toContain('[true,false]');
    expect(readJsonValue(valueToJson(scalar('u32', 9)), 'x.json')).toEqual(scalar('u32', 9));
  });
});

describe('scalars from text', () => {
  it.each<[string, string | undefined, RuntimeValue]>([
    ['1000', undefined, scalar('i32', 1000)],
    ['-3', undefined, scalar('i32', -3)],
    ['2.5', undefined, scalar('f64', 2.5)],
    ['1e3', undefined, scalar('f64', 1000)],
    ['inf', undefined, scalar('f64', Infinity)],
    ['true', undefined, scalar('bool', 1)],
    ['4000000000', undefined, scalar('f64', 4000000000)],
    ['4000000000', 'u32', scalar('u32', 4000000000)],
    ['7', 'f64', scalar('f64', 7)],
    ['0.1', 'f32', scalar('f32', Math.fround(0.1))],
    ['0', 'bool', scalar('bool', 0)],
  ])('%s as %s', (text, elem, expected) => {
    expect(parseScalar(text, '--arg x', elem as never)).toEqual(expected);
  });

  it.each<[string, string | undefined, string]>([
    ['abc', undefined, '--arg x: "abc" is not a number or a bool'],
    ['2.5', 'i32', 'is not a value of type i32'],
    ['-1', 'u32', 'is not a value of type u32'],
    ['2147483648', 'i32', 'is not a value of type i32'],
    ['yes', 'bool', 'is not a bool'],
    ['1.2.3', 'f64', 'is not a number of type f64'],
  ])('rejects %s as %s', (text, elem, fragment) => {
    const err = errorOf(() => parseScalar(text, '--arg x', elem as never));
    expect(err.code).toBe('E520');
    expect(err.diagnostics[0]!.message).toContain(fragment);
  });

  it('splits name=value and uses the parameter type when known', () => {
    expect(parseArgAssignment('m=1000')).toEqual({ name: 'm', value: scalar('i32', 1000) });
    expect(parseArgAssignment('x=2', (name) => (name === 'x' ? 'f64' : undefined))).toEqual({ name: 'x', value: scalar('f64', 2) });
    expect(errorOf(() => parseArgAssignment('=5')).diagnostics[0]!.message).toContain('expected name=value');
    expect(errorOf(() => parseArgAssignment('m')).code).toBe('E520');
  });
});

describe('random inputs', () => {
  it('parses specs', () => {
    expect(parseRandomSpec('f64[1000,64]')).toEqual({ elem: 'f64', shape: [1000, 64], low: 0, high: 1 });
    expect(parseRandomSpec('i32[10]@0..5')).toEqual({ elem: 'i32', shape: [10], low: 0, high: 5 });
    expect(parseRandomSpec('f32[2] @ -1..0.5')).toEqual({ elem: 'f32', shape: [2], low: -1, high: 0.5 });
    expect(parseRandomSpec('u32')).toEqual({ elem: 'u32', shape: null, low: 0, high: 100 });
    expect(parseRandomSpec('bool[]')).toEqual({ elem: 'bool', shape: [], low: 0, high: 1 });
  });

  it.each([
    ['f16[3]', 'unknown element type f16'],
    ['f64[3,x]', 'extents must be non-negative integers'],
    ['i32[3]@5..1', 'bad range 5..1'],
    ['i32[3]@0..2.5', 'is not a range of i32 values'],
    ['bool[3]@0..1', 'bool takes no range'],
    ['f64[3', 'not a spec'],
  ])('rejects %s', (spec, fragment) => {
    const err = errorOf(() => parseRandomSpec(spec));
    expect(err.code).toBe('E521');
    expect(err.diagnostics[0]!.message).toContain(fragment);
  });

  it('draws within the range, deterministically per seed', () => {
    const a = randomValue('i32[2000]@-3..4', 7);
    if (a.kind !== 'array') throw new Error('expected an array');
    const values = Array.from(a.data);
    expect(Math.min(...values)).toBe(-3);
    expect(Math.max(...values)).toBe(4);
    expect(plain(randomValue('i32[2000]@-3..4', 7))).toEqual(plain(a));
    expect(plain(randomValue('i32[2000]@-3..4', 8))).not.toEqual(plain(a));
    const f = randomValue('f64[1000]@2..3', 1);
    if (f.kind !== 'array') throw new Error('expected an array');
    expect(Array.from(f.data).every((x) => x >= 2 && x < 3)).toBe(true);
    expect(new Set(f.data).size).toBe(1000);
  });

  it('makes scalars and several inputs with distinct seeds', () => {
    expect(randomValue('f64', 3).kind).toBe('scalar');
    const [x, y] = randomValues(['f64[4]', 'f64[4]'], 11);
    expect(plain(x!)).not.toEqual(plain(y!));
    expect(plain(x!)).toEqual(plain(randomValue('f64[4]', 11)));
  });
});

describe('value files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'arrayfuse-io-'));
  it.each([
    ['a.npy', array('i32', [2, 2], [1, 2, 3, 4])],
    ['a.json', array('f64', [3], [0.5, -1, 2])],
    ['s.json', scalar('u32', 3)],
  ])('%s round trips', (name, value) => {
    const path = join(dir, name);
    writeValueFile(path, value);
    expect(plain(readValueFile(path))).toEqual(plain(value));
  });

  it('writes a scalar to .npy as a rank-0 array', () => {
    const path = join(dir, 's.npy');
    writeValueFile(path, scalar('f64', 2.5));
    expect(plain(readValueFile(path))).toEqual({ elem: 'f64', shape: [], data: [2.5] });
    expect(readFileSync(path)[6]).toBe(1);
  });

  it.each([
    [join(dir, 'missing.npy'), 'E500', 'cannot read'],
    [join(dir, 'a.csv'), 'E522', 'unknown file type'],
  ])('reports %s', (path, code, fragment) => {
    const err = errorOf(() => readValueFile(path));
    expect(err.code).toBe(code);
    expect(err.diagnostics[0]!.message).toContain(fragment);
  });
});

describe('never a crash', () => {
  it('answers any JSON text with a value or a UserError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string()), (text) => {
        try {
          readJsonValue(text, 'in.json');
        } catch (e) {
          if (!(e instanceof UserError)) throw e;
          expect(e.code).toMatch(/^E51[0-4]$/);
        }
      }),
      { numRuns: 500 },
    );
  });
});
