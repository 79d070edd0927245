// Every shared conformance example lowers, with and without a signature, to the combinators
// and names its header implies, with the parameter types inference must find.

import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { kinds, lowerText, nodeNames } from './helpers.js';
import type { InputSignature } from '../../src/lower/index.js';
import type { Program } from '../../src/ir/types.js';

// The bundled copies (kept identical to ../shared/examples by test/e2e/examples-sync.test.ts).
const dir = new URL('../../examples/', import.meta.url);
const read = (name: string): string => readFileSync(new URL(`${name}.fuse`, dir), 'utf8');

const f64 = (...shape: number[]): InputSignature => ({ kind: 'array', elem: 'f64', shape });
const i32 = (...shape: number[]): InputSignature => ({ kind: 'array', elem: 'i32', shape });

/** Entry parameter types as `name: elem[rank]` strings. */
function paramTypes(p: Program): string[] {
  return p.params.map((i) => {
    const c = i.components.map((v) => (v.kind === 'array' ? `${v.elem}[${v.rank}]` : v.elem));
    return `${i.name}: ${c.join(' ')}`;
  });
}

const examples: {
  name: string;
  kinds: Record<string, number>;
  params: string[];
  names: string[];
  signature: Record<string, InputSignature>;
}[] = [
  { name: 'singleLoop', kinds: { scalar: 1, generate: 1, gather: 1, map: 3 }, params: ['as: f64[1]'], names: ['inds', 'bs', 'cs', 'ds', 'result'], signature: { as: f64(100) } },
  { name: 'simple1', kinds: { map: 1, gather: 1 }, params: ['is: i32[1]', 'xs: f64[1]'], names: ['as', 'bs'], signature: { is: i32(5), xs: f64(10) } },
  { name: 'simple2', kinds: { gather: 2 }, params: ['is1: i32[1]', 'is2: i32[1]', 'xs: f64[1]'], names: ['as', 'bs'], signature: { is1: i32(5), is2: i32(3), xs: f64(10) } },
  { name: 'simple3', kinds: { map: 1, gather: 1 }, params: ['is: i32[1]', 'xs: f64[1]'], names: ['as', 'bs'], signature: { is: i32(5), xs: f64(10) } },
  { name: 'simple4', kinds: { fold: 1, gather: 1 }, params: ['is: i32[1]', 'xs: f64[2]'], names: ['as', 'bs'], signature: { is: i32(5), xs: f64(10, 4) } },
  { name: 'simple5', kinds: { map: 2, gather: 1 }, params: ['is: i32[1]', 'xs: f64[1]'], names: ['as', 'bs', 'cs'], signature: { is: i32(10), xs: f64(10) } },
  { name: 'scatterExample', kinds: { map: 2, scatter: 1 }, params: ['xs: f64[1]'], names: ['as.0', 'as.1', 'bs', 'result'], signature: { xs: f64(8) } },
  { name: 'greedyBottomUpBad', kinds: { scalar: 1, generate: 1, gather: 1, fold: 2, map: 1 }, params: ['xs: f64[1]', 'm: i32'], names: ['is', 'large', 'ys', 'zs', 'result'], signature: { xs: f64(10), m: { kind: 'scalar', elem: 'i32' } } },
  { name: 'greedyTopDownBad', kinds: { scalar: 1, map: 3, generate: 1, fold: 1 }, params: ['as: f64[1]'], names: ['bs', 'cs', 'ds', 'es', 'result'], signature: { as: f64(10) } },
  { name: 'reverse', kinds: { scalar: 1, generate: 1, gather: 1 }, params: ['xs: f64[1]'], names: ['inds', 'result'], signature: { xs: f64(10) } },
  { name: 'backpermute', kinds: { scalar: 1, map: 1, generate: 1, gather: 1 }, params: ['xs: f64[1]'], names: ['ys', 'inds', 'zs'], signature: { xs: f64(10) } },
  { name: 'gather', kinds: { map: 1, generate: 1, gather: 1 }, params: ['is: i32[1]', 'xs: f64[1]'], names: ['js', 'inds', 'ys'], signature: { is: i32(6), xs: f64(10) } },
];

describe('shared examples without a signature', () => {
  test.each(examples)('$name', (ex) => {
    const p = lowerText(read(ex.name), {}, `${ex.name}.fuse`);
    expect(kinds(p)).toEqual(ex.kinds);
    expect(paramTypes(p)).toEqual(ex.params);
    expect(nodeNames(p)).toEqual(ex.names);
  });
});

describe('shared examples with a signature', () => {
  test.each(examples)('$name', (ex) => {
    const p = lowerText(read(ex.name), { signature: ex.signature }, `${ex.name}.fuse`);
    expect(paramTypes(p)).toEqual(ex.params);
    // With shapes known, size queries fold to constants: no scalar statement is left.
    const { scalar: _scalars, ...combinators } = ex.kinds;
    expect(kinds(p)).toEqual(combinators);
  });
});

test('simple3 returns two named results', () => {
  const p = lowerText(read('simple3'));
  expect(p.results.map((r) => r.name)).toEqual(['as', 'bs']);
  expect(p.body.results).toEqual(['as', 'bs']);
});

test('scatterExample scatters (i32, f64) pairs into bs without a copy', () => {
  const p = lowerText(read('scatterExample'));
  const s = p.body.stmts.find((x) => x.kind === 'scatter');
  expect(s).toMatchObject({ dest: ['bs'], index: ['as.0'], values: ['as.1'] });
});

test('a signature shape folds size queries into generate shapes', () => {
  const p = lowerText(read('reverse'), { signature: { xs: f64(7) } });
  const g = p.body.stmts.find((x) => x.kind === 'generate');
  expect(g).toMatchObject({ shape: [{ kind: 'const', value: 7 }] });
});
