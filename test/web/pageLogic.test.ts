// The playground's pure logic (web/src, no DOM): results compared bit for bit, results
// described, diagnostics placed at their line and column, the controls' fields parsed.

import { describe, expect, it } from 'vitest';
import { compile, UserError } from '../../src/index.js';
import { agreement, closeOutput, describeOutput, sameOutput, sameResults } from '../../web/src/results.js';
import { backendLabel, isWebgpu, offeredBackends, withF32 } from '../../web/src/backendChoice.js';
import type { AdapterSummary } from '../../web/src/gpu.js';
import { adapterName } from '../../web/src/gpu.js';
import { diagnosticLine, diagnosticsOf, lineColOf } from '../../web/src/diagnostics.js';
import { costOf, parameterSeed, parseScalars, parseSeed, parseSize } from '../../web/src/settings.js';

describe('sameOutput', () => {
  const f64 = (...xs: number[]) => ({ data: new Float64Array(xs), shape: [xs.length] });
  it('is bit for bit, with every NaN equal to every NaN and -0 unlike +0', () => {
    expect(sameOutput(f64(1, NaN, 3), f64(1, NaN, 3))).toBe(true);
    const otherNaN = new Float64Array(1);
    new DataView(otherNaN.buffer).setBigUint64(0, 0x7ff8000000000123n, true);
    expect(sameOutput(f64(NaN), { data: otherNaN, shape: [1] })).toBe(true);
    expect(sameOutput(f64(0), f64(-0))).toBe(false);
    expect(sameOutput(-0, 0)).toBe(false);
    expect(sameOutput(NaN, NaN)).toBe(true);
    expect(sameOutput(f64(1, 2), f64(1, 2 + 2 ** -51))).toBe(false);
  });
  it('compares element types, shapes and tuple structure', () => {
    expect(sameOutput(f64(1, 2), { data: new Float32Array([1, 2]), shape: [2] })).toBe(false);
    expect(sameOutput({ data: new Float64Array(6), shape: [2, 3] }, { data: new Float64Array(6), shape: [3, 2] })).toBe(false);
    expect(sameOutput([f64(1), 2], [f64(1), 2])).toBe(true);
    expect(sameOutput([f64(1), 2], [f64(1)])).toBe(false);
    expect(sameOutput(f64(1), [f64(1)])).toBe(false);
    expect(sameOutput(1, f64(1))).toBe(false);
  });
  it('compares result records by name, __proto__ included', () => {
    const a: Record<string, number> = {};
    Object.defineProperty(a, '__proto__', { value: 1, enumerable: true });
    const b: Record<string, number> = {};
    Object.defineProperty(b, '__proto__', { value: 1, enumerable: true });
    expect(sameResults(a, b)).toBe(true);
    expect(sameResults({ x: 1 }, { y: 1 })).toBe(false);
    expect(sameResults({ x: 1 }, { x: 1, y: 2 })).toBe(false);
    expect(sameResults({}, {})).toBe(true);
  });
});

describe('describeOutput', () => {
  it('gives type, shape and the first elements', () => {
    expect(describeOutput({ data: new Float64Array([1.5, -0, NaN]), shape: [3] })).toBe('f64[3] = [1.5, -0, NaN]');
    expect(describeOutput({ data: new Int32Array(20).map((_, k) => k), shape: [4, 5] }, 3)).toBe('i32[4, 5] = [0, 1, 2, … (20 elements)]');
    expect(describeOutput({ data: new Uint8Array([1, 0]), shape: [2] })).toBe('bool[2] = [True, False]');
    expect(describeOutput([2, { data: new Float32Array(0), shape: [0] }])).toBe('(2, f32[0] = [])');
  });
});

describe('diagnostics', () => {
  it('places a compile error at its line and column in the editor text', () => {
    // compile() parses; names are resolved when the program is first lowered (as the page's plan does).
    const source = 'def main(xs: f64[n]):\n  ys = map(lam x: x * 2.0, xs)\n  return map(lam y: y + nope, ys)\n';
    let error: unknown;
    try {
      compile(source, { fileName: 'p.fuse' }).lower();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UserError);
    const [first] = diagnosticsOf(error, source);
    expect(first?.range?.line).toBe(3);
    expect(source.slice(first!.range!.from, first!.range!.to)).toBe('nope');
    expect(diagnosticLine(first!, 'p.fuse')).toMatch(/^p\.fuse:3:\d+: error\[E\d+\]: /);
  });
  it('leaves unplaced what points elsewhere, and keeps other errors as one message', () => {
    expect(diagnosticsOf(new TypeError('bad <b>'), 'x')).toEqual([{ code: 'error', message: 'TypeError: bad <b>', notes: [] }]);
    expect(diagnosticLine({ code: 'error', message: 'm', notes: [] }, 'f')).toBe('f: error: m');
  });
  it('counts lines and columns in UTF-16 units from 1', () => {
    expect(lineColOf('', 0)).toEqual({ line: 1, col: 1 });
    expect(lineColOf('ab\ncd', 3)).toEqual({ line: 2, col: 1 });
    expect(lineColOf('ab\ncd', 2)).toEqual({ line: 1, col: 3 });
    expect(lineColOf('😀\nx', 3)).toEqual({ line: 2, col: 1 });
  });
});

describe('settings', () => {
  it('parses sizes, seeds, scalars and costs, naming the bad field', () => {
    expect(parseSize(' 100 ')).toEqual({ ok: true, value: 100 });
    expect(parseSize('64, 16')).toEqual({ ok: true, value: [64, 16] });
    // 0 is a size: empty arrays can be tried in the page too.
    expect(parseSize('0')).toEqual({ ok: true, value: 0 });
    for (const bad of ['', '-1', '1.5', '1e3', '99999999999', '4,', 'x']) expect(parseSize(bad).ok, bad).toBe(false);
    expect(parseSeed('0')).toEqual({ ok: true, value: 0 });
    expect(parseSeed('4294967296').ok).toBe(false);
    expect(parseScalars('br=16, bc = 4 ,flag=True')).toEqual({ ok: true, value: new Map<string, number | boolean>([['br', 16], ['bc', 4], ['flag', true]]) });
    expect(parseScalars('')).toEqual({ ok: true, value: new Map() });
    for (const bad of ['x', '=3', 'x=', 'x=nan', 'x=1=2', '"x"=1']) expect(parseScalars(bad).ok, bad).toBe(false);
    expect(costOf('reads', 'ignored')).toEqual({ ok: true, value: 'reads' });
    expect(costOf('other', ' 2*reads + writes ')).toEqual({ ok: true, value: '2*reads + writes' });
    expect(costOf('other', '  ').ok).toBe(false);
    // A typed cost is checked by the cost parser: its message names the field and the column.
    expect(costOf('other', 'reads +')).toEqual({ ok: false, message: 'cost: expected a cost name here (at column 8)' });
    expect(costOf('other', '1e20*reads')).toEqual({ ok: false, message: 'cost: coefficient `1e20` is too large (at most 1e+9) (at column 1)' });
  });
  it('gives each parameter its own seed in 0..2^32-1', () => {
    const seeds = [0, 1, 2, 3].map((k) => parameterSeed(4294967295, k));
    expect(new Set(seeds).size).toBe(4);
    expect(seeds.every((s) => Number.isInteger(s) && s >= 0 && s <= 0xffffffff)).toBe(true);
  });
});

describe('the WebGPU agreement (within the f32 tolerance)', () => {
  const f32 = (...xs: number[]) => ({ data: new Float32Array(xs), shape: [xs.length] });
  it('allows 1e-5·(1+|want|) on floats, NaN where NaN, infinities equal, integers exactly', () => {
    expect(closeOutput(f32(1000.005, NaN, Infinity, -0), f32(1000, NaN, Infinity, 0))).toBe(true);
    expect(closeOutput(f32(1000.02), f32(1000))).toBe(false);
    expect(closeOutput(f32(0), f32(NaN))).toBe(false);
    expect(closeOutput(f32(3.4e38), f32(Infinity))).toBe(false);
    expect(closeOutput({ data: new Int32Array([1]), shape: [1] }, { data: new Int32Array([2]), shape: [1] })).toBe(false);
    expect(closeOutput(f32(1), { data: new Float64Array([1]), shape: [1] })).toBe(false);
    expect(closeOutput([1.000001, f32(2)], [1, f32(2)])).toBe(true);
  });
  it('says yes when bit for bit, and "within the f32 tolerance" only where that is the contract', () => {
    expect(agreement({ r: f32(1) }, { r: f32(1) }, true)).toBe('yes');
    expect(agreement({ r: f32(1.000001) }, { r: f32(1) }, true)).toBe('yes, within the f32 tolerance');
    expect(agreement({ r: f32(1.000001) }, { r: f32(1) }, false)).toBe('no');
    expect(agreement({ r: f32(2) }, { r: f32(1) }, true)).toBe('no');
  });
});

describe('the back-end switch', () => {
  const swiftshader: AdapterSummary = {
    vendor: 'google', architecture: 'swiftshader', device: '', description: '', fallback: true, maxStorageBuffersPerShaderStage: 10, maxComputeWorkgroupsPerDimension: 65535,
  };
  it('offers WebGPU only with an adapter and the back end registered, never multicore in a page', () => {
    expect(offeredBackends(['js', 'multicore', 'webgpu'], swiftshader)).toEqual(['js', 'webgpu']);
    expect(offeredBackends(['js', 'multicore', 'webgpu'], null)).toEqual(['js']);
    expect(offeredBackends(['js', 'multicore'], swiftshader)).toEqual(['js']);
    expect(isWebgpu('webgpu') && !isWebgpu('js')).toBe(true);
    expect([backendLabel('js'), backendLabel('webgpu'), backendLabel('other')]).toEqual(['JavaScript', 'WebGPU', 'other']);
    expect(adapterName(swiftshader)).toBe('google swiftshader');
    expect(adapterName({ ...swiftshader, vendor: '', architecture: '', description: 'A GPU' })).toBe('A GPU');
  });
  it('makes f64 arrays f32 for WebGPU runs, and leaves everything else', () => {
    expect(withF32({ kind: 'array', elems: ['f64', 'i32', 'f64'], rank: 2, shape: null })).toEqual({ kind: 'array', elems: ['f32', 'i32', 'f32'], rank: 2, shape: null });
    expect(withF32({ kind: 'scalar', elem: 'f64' })).toEqual({ kind: 'scalar', elem: 'f64' });
    expect(withF32({ kind: 'array', elems: ['bool'], rank: 1, shape: [3] })).toEqual({ kind: 'array', elems: ['bool'], rank: 1, shape: [3] });
  });
});
