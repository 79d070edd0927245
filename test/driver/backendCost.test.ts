// The cost a plan minimises per back end (issue 15, item 4): a back end may state a kernel
// launch's price (ExecutionBackend.cost), which the driver turns into the default cost for a
// signature (driver/backendCost.ts); the js and multicore back ends state none and keep the
// planner's default exactly; an explicit cost always wins; plans are cached under the cost text.
// Planning for webgpu needs no device: nothing here runs on one.

import { describe, expect, it } from 'vitest';
import { Compiler, signatureOf } from '../../src/driver/index.js';
import { backendCostText, typicalElements } from '../../src/driver/backendCost.js';
import { compile } from '../../src/index.js';
import { defaultCostText, launchWeightedCost, MAX_COEFFICIENT, parseCost } from '../../src/plan/cost.js';
import { backends } from '../../src/runtime/backends.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { defaultLaunchCost, launchCosts } from '../../src/runtime/webgpu/cost.js';

// Fusing the map into the gather recomputes it 10 times per element of xs (recompute 9), against
// writing ys once and reading it back (2): the CPU's default splits them into two clusters; a
// launch worth far more than 7 arrays of the gather's size fuses them into one kernel.
const recomputeOrLaunch = 'def main(xs: f32[n], is: i32[m]):\n  ys = map(lam x: x * 2.0, xs)\n  return gather(is, ys)\n';

const f32s = (n: number): InterfaceValue => ({ kind: 'array', elem: 'f32', shape: [n], data: new Float32Array(n) });
const i32s = (n: number): InterfaceValue => ({ kind: 'array', elem: 'i32', shape: [n], data: new Int32Array(n) });
const inputs = { xs: f32s(10), is: i32s(100) };

function signature(c: Compiler) {
  return signatureOf(c.entry, inputs, c.file);
}

describe('launchWeightedCost', () => {
  it('is the default cost plus K ÷ N per cluster, to three significant digits, and parses', () => {
    expect(launchWeightedCost(3.6e6, 100)).toBe(`${defaultCostText} + 36000*clusters`);
    expect(launchWeightedCost(1, 3)).toBe(`${defaultCostText} + 0.333*clusters`);
    expect(launchWeightedCost(300, 1e8)).toBe(`${defaultCostText} + 0.000003*clusters`);
    expect(launchWeightedCost(1, 1e12)).toBe(`${defaultCostText} + 1e-12*clusters`);
    for (const text of [launchWeightedCost(3.6e6, 100), launchWeightedCost(1, 1e12), launchWeightedCost(2, 7)]) {
      const spec = parseCost(text);
      expect(spec.terms.map((t) => t.term)).toEqual(['reads', 'intermediate-arrays', 'recompute', 'clusters']);
    }
  });

  it('caps the coefficient at the parser\'s largest (a launch on a one-element array)', () => {
    expect(launchWeightedCost(1e15, 1)).toBe(`${defaultCostText} + ${MAX_COEFFICIENT}*clusters`);
    expect(() => parseCost(launchWeightedCost(1e15, 1))).not.toThrow();
  });

  it('refuses a launch price or a size that is not a positive finite number', () => {
    for (const bad of [0, -1, NaN, Infinity]) {
      expect(() => launchWeightedCost(bad, 10)).toThrow(RangeError);
      expect(() => launchWeightedCost(10, bad)).toThrow(RangeError);
    }
  });
});

describe('typicalElements and backendCostText', () => {
  it('weighs a launch against the largest entry array; scalars do not count; empty arrays count as one element', () => {
    expect(typicalElements({ xs: [10], is: [4, 25], k: 7 })).toBe(100);
    expect(typicalElements({ xs: [0] })).toBe(1);
    expect(typicalElements({ xs: [] })).toBe(1); // rank 0: one element
    expect(typicalElements({ k: 1e9 })).toBeNull();
    expect(typicalElements({})).toBeNull();
    expect(typicalElements(undefined)).toBeNull();
  });

  it('gives the planner\'s default (undefined) without a back end cost or without entry arrays', () => {
    expect(backendCostText(undefined, { xs: [10] })).toBeUndefined();
    expect(backendCostText(defaultLaunchCost, undefined)).toBeUndefined();
    expect(backendCostText(defaultLaunchCost, { k: 3 })).toBeUndefined();
    expect(backendCostText({ launchElements: 500, source: 'test' }, { xs: [10], is: [100] })).toBe(`${defaultCostText} + 5*clusters`);
  });
});

describe('the back ends\' costs', () => {
  it('js and multicore state none (their plans are exactly the planner default\'s); webgpu states its table\'s default', () => {
    expect(backends.js).not.toHaveProperty('cost');
    expect(backends.multicore).not.toHaveProperty('cost');
    expect(backends.webgpu.cost).toBe(defaultLaunchCost);
  });

  it('every row of the webgpu table says where its K comes from, and K is positive', () => {
    for (const row of Object.values(launchCosts)) {
      expect(row.launchElements).toBeGreaterThan(0);
      expect(Number.isFinite(row.launchElements)).toBe(true);
      expect(row.source).toMatch(/measured|published/);
    }
    // SwiftShader is a CPU emulation: its row must say so and must not be the default.
    expect(launchCosts.swiftshader.device).toMatch(/swiftshader.*CPU/i);
    expect(defaultLaunchCost).not.toBe(launchCosts.swiftshader);
  });
});

describe('the driver picks the back end\'s default cost', () => {
  it('js: the planner default, as before (no cost text of its own)', async () => {
    const c = new Compiler(recomputeOrLaunch, { backend: 'js' });
    expect(c.costFor(signature(c))).toBeUndefined();
    const plan = await c.plan(signature(c));
    expect(plan.cost).toBe(defaultCostText);
    expect(plan.root.clusters.length).toBe(2);
  });

  it('multicore: the planner default too', async () => {
    const c = new Compiler(recomputeOrLaunch, { backend: 'multicore', threads: 2 });
    expect(c.costFor(signature(c))).toBeUndefined();
    expect((await c.plan(signature(c))).cost).toBe(defaultCostText);
  });

  it('webgpu: the launch-weighted cost for the entry sizes, which fuses the map into the gather', async () => {
    const c = new Compiler(recomputeOrLaunch, { backend: 'webgpu' });
    const want = launchWeightedCost(defaultLaunchCost.launchElements, 100);
    expect(c.costFor(signature(c))).toBe(want);
    const plan = await c.plan(signature(c));
    expect(plan.cost).toBe(want);
    expect(plan.root.clusters.length).toBe(1);
    // Without a signature nothing weighs a launch: the planner's default.
    expect(c.costFor(undefined)).toBeUndefined();
  });

  it('an explicit cost wins on every back end', async () => {
    const gpu = new Compiler(recomputeOrLaunch, { backend: 'webgpu' });
    expect(gpu.costFor(signature(gpu), { cost: 'reads+writes' })).toBe('reads+writes');
    const plan = await gpu.plan(signature(gpu), { cost: defaultCostText });
    expect(plan.cost).toBe(defaultCostText);
    expect(plan.root.clusters.length).toBe(2);
    const cpu = new Compiler(recomputeOrLaunch, { backend: 'js' });
    expect((await cpu.plan(signature(cpu), { cost: '1e6*clusters + reads' })).root.clusters.length).toBe(1);
  });

  it('plans are cached under the cost text: the default and another cost never share an entry; the same text does', async () => {
    const c = new Compiler(recomputeOrLaunch, { backend: 'webgpu' });
    const sig = signature(c);
    const byDefault = await c.plan(sig);
    expect(await c.plan(sig)).toBe(byDefault);
    const cpuWeighted = await c.plan(sig, { cost: defaultCostText });
    expect(cpuWeighted).not.toBe(byDefault);
    // The default's text given explicitly is the same plan, from the same cache entry.
    expect(await c.plan(sig, { cost: c.costFor(sig) })).toBe(byDefault);
    // Another signature, another typical size, another default text and plan.
    const bigger = signatureOf(c.entry, { xs: f32s(10), is: i32s(1000) }, c.file);
    expect(c.costFor(bigger)).not.toBe(c.costFor(sig));
    expect(await c.plan(bigger)).not.toBe(byDefault);
  });

  it('the public API plans with the back end\'s default, and names the cost in the plan', async () => {
    const xs = new Float32Array(10);
    const is = new Int32Array(100);
    const gpu = await compile(recomputeOrLaunch, { backend: 'webgpu' }).plan({ xs, is });
    const cpu = await compile(recomputeOrLaunch, { backend: 'js' }).plan({ xs, is });
    expect(gpu.cost).toBe(launchWeightedCost(defaultLaunchCost.launchElements, 100));
    expect(cpu.cost).toBe(defaultCostText);
    // The compile-level cost applies to every plan of that program.
    expect((await compile(recomputeOrLaunch, { backend: 'webgpu', cost: 'reads+writes' }).plan({ xs, is })).cost).toBe('reads+writes');
  });
});
