// bench:webgpu's command line and its adapter-dependent defaults (bench/webgpu/options.ts), and
// the f32 edition of the repository's programs it runs (cases.ts): no device, nothing timed.

import { describe, expect, it } from 'vitest';
import { parseBenchOptions, sizesFor } from '../../bench/webgpu/options.js';
import { f32Edition } from '../../bench/webgpu/cases.js';
import { isSoftwareAdapter, skipNotice } from '../../bench/webgpu/adapter.js';
import { chainSource } from '../../bench/webgpu/weights.js';
import { Compiler } from '../../src/driver/index.js';

describe('bench:webgpu options', () => {
  it('defaults: every part, sizes left to the adapter', () => {
    const o = parseBenchOptions([]);
    expect(o.weights).toBe(false);
    expect(o.parts).toEqual(['stream', 'apps', 'strategies', 'weighting']);
    expect([o.streamN, o.flashN, o.mgN, o.programs]).toEqual([undefined, undefined, undefined, undefined]);
    // A GPU gets the sizes; a software adapter small ones, and no MG unless asked.
    const gpu = sizesFor(o, false);
    expect([gpu.streamN, gpu.flashN, gpu.mgN]).toEqual([100_000_000, 4096, 256]);
    expect(gpu.programs).toContain('mg');
    const soft = sizesFor(o, true);
    expect(soft.streamN).toBeLessThan(1e6);
    expect(soft.programs).not.toContain('mg');
    expect(soft.copyN).toBeLessThanOrEqual(soft.streamN);
  });

  it('reads --weights, parts, programs and sizes; sizes given win on any adapter', () => {
    const o = parseBenchOptions(['--weights', '--parts', 'stream,weighting', '--programs', 'mg, flash', '--stream-n', '1000', '--mg-n', '34', '--repetitions', '3']);
    expect([o.weights, o.parts, o.programs, o.repetitions]).toEqual([true, ['stream', 'weighting'], ['mg', 'flash'], 3]);
    const s = sizesFor(o, true);
    expect([s.streamN, s.copyN, s.mgN, s.programs]).toEqual([1000, 1000, 34, ['mg', 'flash']]);
  });

  it('refuses unknown parts, options and bad numbers', () => {
    expect(() => parseBenchOptions(['--parts', 'stream,speed'])).toThrow();
    expect(() => parseBenchOptions(['--bogus'])).toThrow();
    expect(() => parseBenchOptions(['--stream-n', '0'])).toThrow();
    expect(() => parseBenchOptions(['--repetitions', '1.5'])).toThrow();
  });

  it('skips with a notice (exit 0) without an adapter, and runs with one', () => {
    expect(skipNotice({ missing: 'no WebGPU adapter: …' })).toMatch(/^bench:webgpu SKIPPED: no WebGPU adapter here \(no WebGPU adapter: …\)/);
    expect(skipNotice({ name: 'nvidia hopper', software: false, description: '' })).toBeNull();
  });

  it('tells software adapters from GPUs', () => {
    expect(isSoftwareAdapter('google swiftshader', false)).toBe(true);
    expect(isSoftwareAdapter('mesa llvmpipe', false)).toBe(true);
    expect(isSoftwareAdapter('nvidia hopper', false)).toBe(false);
    expect(isSoftwareAdapter('nvidia hopper', true)).toBe(true);
  });
});

describe('bench:webgpu programs', () => {
  it('the f32 editions of FlashAttention and MG type-check in f32 (no f64 value left for the webgpu back end to refuse)', () => {
    const fa = f32Edition('def main(xs: f64[n], c: bool):\n  k = size(xs)\n  o = generate((k), lam i: 0.0)\n  m = generate((k), lam i: -inf)\n  return zipWith(lam x, y: x + y if c else -inf, map(lam x: f64(x), xs), zipWith(max, o, m))\n');
    expect(fa).not.toMatch(/f64/);
    expect(fa).toMatch(/lam i: f32\(0\.0\)/);
    expect(fa).toMatch(/lam i: f32\(-inf\)/);
    expect(fa).toMatch(/else f32\(-inf\)/);
    const c = new Compiler(fa);
    const lowered = c.lower({ xs: { kind: 'array', elem: 'f32', shape: [4] }, c: { kind: 'scalar', elem: 'bool' } });
    expect(JSON.stringify(lowered)).not.toMatch(/"f64"/);
  });

  it('the weights chain is k clusters of maps and a maximum, and refuses a bad length', () => {
    expect(chainSource(2)).toBe('def main(xs: f32[n]):\n  y1 = map(lam x: x + 1.0, xs)\n  y2 = map(lam x: x + 1.0, y1)\n  return fold(max, 0.0, y2)\n');
    expect(() => chainSource(0)).toThrow(RangeError);
  });
});
