// The memory planner on hand-checked programs: slots shared by arrays whose lives do not
// overlap and never by ones that do, loop-carried pairs and the loops a pair cannot hold,
// `if` outputs, how each result reaches the caller, peak bytes, run-time sizes.
import { describe, expect, it } from 'vitest';
import type { BufferRef, MemoryPlan } from '../../src/memory/index.js';
import { memoryProblems } from './check.js';
import { f64, i32v, planned, type Planned } from './helpers.js';

const n = 1000;
const xsOnly = { xs: f64(n) };
const withK = { xs: f64(n), k: i32v() };

function ok(p: Planned): MemoryPlan {
  expect(memoryProblems(p.program, p.plan, p.memory)).toEqual([]);
  return p.memory;
}

const slotOf = (m: MemoryPlan, name: string): number => {
  const ref = m.buffers[name];
  if (ref?.kind !== 'slot') throw new Error(`${name} is ${JSON.stringify(ref)}, not in a slot`);
  return ref.slot;
};
const kinds = (m: MemoryPlan): Record<string, BufferRef['kind']> => Object.fromEntries(Object.entries(m.buffers).map(([k, v]) => [k, v.kind]));

describe('slots', () => {
  it('a chain a → b → c → d without fusion takes two slots: a and c share one, the result d is direct', async () => {
    const src = `
def main(xs: f64[n]):
  a = map(lam x: x + 1.0, xs)
  b = map(lam x: x * 2.0, a)
  c = map(lam x: x - 3.0, b)
  d = map(lam x: x / 2.0, c)
  return d
`;
    const m = ok(await planned(src, xsOnly, 'none'));
    expect(m.buffers['d']).toEqual({ kind: 'result', component: 0 });
    expect(m.results).toEqual(['direct']);
    expect(slotOf(m, 'a')).toBe(slotOf(m, 'c'));
    expect(slotOf(m, 'b')).not.toBe(slotOf(m, 'a'));
    expect(m.slots).toHaveLength(2);
    expect(m.peakBytes).toBe(2 * n * 8);
    expect(m.dynamicSlots).toBe(0);
  });

  it('arrays live at once never share, and f64 and i32 arrays share byte slots (best fit by bytes)', async () => {
    const src = `
def main(xs: f64[n]):
  a = map(lam x: x + 1.0, xs)
  b = map(lam x: x * 2.0, xs)
  c = zipWith(lam x, y: x + y, a, b)
  i = map(lam x: i32(x), c)
  j = map(lam x: x + 1, i)
  return map(lam x: f64(x), j)
`;
    const m = ok(await planned(src, xsOnly, 'none'));
    expect(slotOf(m, 'a')).not.toBe(slotOf(m, 'b'));
    expect(new Set([slotOf(m, 'a'), slotOf(m, 'b'), slotOf(m, 'c')]).size).toBe(3);
    // i (4000 bytes) reuses a slot of a or b (8000 bytes), j the other one.
    expect([slotOf(m, 'a'), slotOf(m, 'b')]).toContain(slotOf(m, 'i'));
    expect(m.peakBytes).toBe(3 * n * 8);
  });

  it('an array read inside a while body lives until the loop ends', async () => {
    const src = `
def main(xs: f64[n], k: i32):
  a = map(lam x: x + 1.0, xs)
  ys = xs
  i = 0
  while i < k:
    ys = zipWith(lam x, y: x + y, ys, a)
    i = i + 1
  b = map(lam x: x * 2.0, ys)
  return map(lam x: x + 1.0, b)
`;
    const p = await planned(src, withK, 'none');
    const m = ok(p);
    const range = (name: string) => m.ranges.find((r) => r.array === name)!;
    const pair = m.buffers['ys_2'];
    expect(pair?.kind).toBe('pair');
    expect(range('a').end).toBeGreaterThanOrEqual(range('ys_2').start);
    if (pair?.kind === 'pair') expect(pair.slots).not.toContain(slotOf(m, 'a'));
  });

  it('an array indexed by a scalar statement lives until the first cluster using that scalar', async () => {
    const src = `
def main(xs: f64[n]):
  a = map(lam x: x + 1.0, xs)
  s = a[3]
  b = map(lam x: x * 2.0, xs)
  c = map(lam x: x - 1.0, b)
  return map(lam x: x + s, c)
`;
    const m = ok(await planned(src, xsOnly, 'none'));
    const range = (name: string) => m.ranges.find((r) => r.array === name)!;
    const last = Math.max(...m.ranges.map((r) => r.end));
    expect(range('a').end).toBe(last);
    expect(slotOf(m, 'a')).not.toBe(slotOf(m, 'c'));
  });

  it('a dim query reads no data: it does not keep an array alive', async () => {
    const src = `
def main(xs: f64[n]):
  a = map(lam x: x + 1.0, xs)
  b = map(lam x: x * 2.0, a)
  c = map(lam x: x - 1.0, b)
  return map(lam x: x + f64(size(a)), c)
`;
    const m = ok(await planned(src, xsOnly, 'none'));
    expect(slotOf(m, 'a')).toBe(slotOf(m, 'c'));
  });
});

describe('empty arrays', () => {
  it('take slots of 0 bytes', async () => {
    const src = `
def main(xs: f64[n]):
  a = map(lam x: x + 1.0, xs)
  b = map(lam x: x * 2.0, reverse(a))
  return map(lam x: x - 3.0, reverse(b))
`;
    const m = ok(await planned(src, { xs: f64(0) }, 'none'));
    expect(m.peakBytes).toBe(0);
    expect(m.slots.length).toBeGreaterThan(0);
    expect(m.slots.every((s) => s.bytes === 0)).toBe(true);
  });
});

describe('scatter', () => {
  it('an in-place scatter output is its destination\'s memory', async () => {
    const src = `
def main(xs: f64[n]):
  hs = map(lam x: x + 1.0, xs)
  r = scatter(+, hs, zip(map(lam x: 0, xs), xs))
  return map(lam x: x * 2.0, r)
`;
    const m = ok(await planned(src, xsOnly, 'none'));
    expect(m.buffers['r']).toEqual({ kind: 'alias', of: 'hs' });
    expect(m.buffers['hs']?.kind).toBe('slot');
  });

  it('a scatter result is written into the result buffer by its destination\'s producer', async () => {
    const src = `
def main(xs: f64[n]):
  hs = map(lam x: x + 1.0, xs)
  return scatter(+, hs, zip(map(lam x: 0, xs), xs))
`;
    const p = await planned(src, xsOnly, 'none');
    const m = ok(p);
    expect(m.results).toEqual(['direct']);
    expect(m.buffers['hs']).toEqual({ kind: 'result', component: 0 });
  });
});

describe('while', () => {
  const pingPong = `
def main(xs: f64[n], k: i32):
  ys = xs
  i = 0
  while i < k:
    zs = map(lam x: x * 0.5, ys)
    ys = zipWith(lam a, b: a + b, zs, reverse(ys))
    i = i + 1
  return ys
`;
  it.each(['none', 'greedy-down', 'ilp'] as const)('a body result computed afresh gets a pair of slots (%s); the loop output is copied out', async (strategy) => {
    const m = ok(await planned(pingPong, withK, strategy));
    const ref = m.buffers['ys_2'];
    expect(ref?.kind).toBe('pair');
    if (ref?.kind === 'pair') expect(ref.slots[0]).not.toBe(ref.slots[1]);
    expect(m.results).toEqual(['copy']);
    expect(m.dynamicSlots).toBe(0); // the loop keeps the shape it carries
  });

  it('a permutation of the carried values leaves the array carried into it fresh', async () => {
    const src = `
def main(xs: f64[n], k: i32):
  x = map(lam v: v + 1.0, xs)
  y = map(lam v: v * 2.0, xs)
  i = 0
  while i < k:
    x, y = y, map(lam v: v * 3.0, x)
    i = i + 1
  return x, y
`;
    const m = ok(await planned(src, withK, 'none'));
    expect(m.buffers['y_3']).toMatchObject({ kind: 'fresh' });
    expect((m.buffers['y_3'] as { why: string }).why).toContain('carried into another position');
    expect(m.results).toEqual(['copy', 'copy']);
  });

  it('a swap writes nothing; the same array carried twice is fresh', async () => {
    const swap = `
def main(xs: f64[n], k: i32):
  x = map(lam v: v + 1.0, xs)
  y = map(lam v: v * 2.0, xs)
  i = 0
  while i < k:
    x, y = y, x
    i = i + 1
  return x, y
`;
    const s = ok(await planned(swap, withK, 'none'));
    expect(kinds(s)).toEqual({ x: 'slot', y: 'slot' });
    expect(slotOf(s, 'x')).not.toBe(slotOf(s, 'y'));
    const twice = swap.replace('x, y = y, x', 'z = map(lam v: v * 3.0, x)\n    x, y = z, z');
    const t = ok(await planned(twice, withK, 'none'));
    expect(t.buffers['z']).toMatchObject({ kind: 'fresh' });
    expect((t.buffers['z'] as { why: string }).why).toContain('two positions');
  });

  it('a scatter into a loop-owned carried array: one buffer, the init\'s, no pair', async () => {
    const src = `
def main(xs: f64[n], k: i32):
  hs = map(lam x: 0.0, xs)
  i = 0
  while i < k:
    hs = scatter(+, hs, zip(map(lam x: 0, xs), xs))
    i = i + 1
  return hs
`;
    const p = await planned(src, withK, 'none');
    const m = ok(p);
    expect(Object.values(m.buffers).filter((r) => r.kind === 'pair')).toEqual([]);
    // The scatter writes the carried parameter's memory, which is the init's slot.
    const aliases = Object.entries(m.buffers).filter(([, r]) => r.kind === 'alias');
    expect(aliases).toHaveLength(1);
    const hs = Object.entries(m.buffers).find(([name]) => name === 'hs');
    expect(hs?.[1].kind).toBe('slot');
    expect(m.results).toEqual(['copy']);
  });

  it('nested loops: the inner pair lives within one outer iteration, the outer pair across', async () => {
    const src = `
def main(xs: f64[n], k: i32):
  ys = xs
  i = 0
  while i < k:
    zs = map(lam x: x + 1.0, ys)
    j = 0
    while j < k:
      zs = map(lam x: x * 0.5, reverse(zs))
      j = j + 1
    ys = map(lam x: x - 1.0, zs)
    i = i + 1
  return ys
`;
    const m = ok(await planned(src, withK, 'none'));
    const pairs = Object.entries(m.buffers).filter(([, r]) => r.kind === 'pair').map(([k]) => k);
    expect(pairs.length).toBe(2);
    expect(m.dynamicSlots).toBe(0);
  });

  it('an if inside a body that may return the parameter leaves its arrays fresh', async () => {
    const src = `
def main(xs: f64[n], k: i32):
  ys = xs
  i = 0
  while i < k:
    if i % 2 == 0:
      ys = map(lam x: x + 1.0, ys)
    i = i + 1
  return ys
`;
    const m = ok(await planned(src, withK, 'none'));
    const fresh = Object.entries(m.buffers).filter(([, r]) => r.kind === 'fresh');
    expect(fresh).toHaveLength(1);
  });

  it('a loop that changes the shape it carries has run-time sizes', async () => {
    const src = `
def main(xs: f64[n], k: i32):
  ys = xs
  i = 0
  while i < k:
    ys = generate((size(ys) + 1), lam j: ys[j // 2])
    i = i + 1
  return ys
`;
    const m = ok(await planned(src, withK, 'none'));
    expect(m.dynamicSlots).toBeGreaterThan(0);
  });
});

describe('if', () => {
  it('results computed in both branches are written straight into the result', async () => {
    const src = `
def main(xs: f64[n], k: i32):
  if k > 1:
    q = map(lam v: v + 1.0, xs)
  else:
    q = map(lam v: v * 2.0, xs)
  return q
`;
    const m = ok(await planned(src, withK, 'none'));
    expect(m.results).toEqual(['direct']);
    expect(Object.values(m.buffers)).toEqual([{ kind: 'result', component: 0 }, { kind: 'result', component: 0 }]);
  });

  it('a branch that returns an outer array: both keep their own slots, the result is copied', async () => {
    const src = `
def main(xs: f64[n], k: i32):
  r = map(lam v: v + 1.0, xs)
  if k > 1:
    q = map(lam v: v * 2.0, reverse(r))
  else:
    q = r
  return map(lam v: v - 1.0, q)
`;
    const m = ok(await planned(src, withK, 'none'));
    const inThen = Object.entries(m.buffers).find(([name, ref]) => name !== 'r' && ref.kind === 'slot' && name.startsWith('q'));
    expect(inThen).toBeDefined();
    expect(slotOf(m, inThen![0])).not.toBe(slotOf(m, 'r'));
    const ret = ok(await planned(src.replace('return map(lam v: v - 1.0, q)', 'return q'), withK, 'none'));
    expect(ret.results).toEqual(['copy']);
  });

  it('an if output that may be an input is copied', async () => {
    const src = `
def main(xs: f64[n], k: i32):
  if k > 1:
    q = map(lam v: v + 1.0, xs)
  else:
    q = xs
  return q
`;
    const m = ok(await planned(src, withK, 'none'));
    expect(m.results).toEqual(['copy']);
    expect(Object.values(m.buffers).map((r) => r.kind)).toEqual(['slot']);
  });
});

describe('results', () => {
  it('an input returned, the same array twice, a scalar', async () => {
    const src = `
def main(xs: f64[n]):
  a = map(lam x: x + 1.0, xs)
  return xs, a, a, a[0]
`;
    const m = ok(await planned(src, xsOnly, 'none'));
    expect(m.results).toEqual(['copy', 'direct', 'copy', 'scalar']);
    expect(m.buffers['a']).toEqual({ kind: 'result', component: 1 });
  });

  it('tuples of arrays: one delivery per component', async () => {
    const src = `
def main(xs: f64[n]):
  return map(lam x: (x + 1.0, i32(x)), xs)
`;
    const m = ok(await planned(src, xsOnly, 'none'));
    expect(m.results).toEqual(['direct', 'direct']);
    expect(Object.values(m.buffers).map((r) => r.kind === 'result' && r.component).sort()).toEqual([0, 1]);
  });
});

describe('sizes', () => {
  it('singleLoop at n = 10^7: everything fused into the result, nothing pooled', async () => {
    const { readFileSync } = await import('node:fs');
    const src = readFileSync('examples/singleLoop.fuse', 'utf8');
    const m = ok(await planned(src, { as: f64(10 ** 7) }, 'ilp'));
    expect(m.results).toEqual(['direct']);
    expect(m.peakBytes).toBe(0);
    expect(m.slots).toEqual([]);
  });

  it('without entry sizes every slot is sized at run time', async () => {
    const src = `
def main(xs):
  a = map(lam x: x + 1.0, xs)
  b = map(lam x: x * 2.0, a)
  c = map(lam x: x - 3.0, b)
  return map(lam x: x / 2.0, c)
`;
    const m = ok(await planned(src, { xs: f64(n) }, 'none', false));
    expect(m.peakBytes).toBe(0);
    expect(m.dynamicSlots).toBe(2);
  });

  it('a filter\'s result has a run-time size', async () => {
    const src = `
def main(xs: f64[n]):
  ys = filter(lam x: x > 0.5, xs)
  zs = map(lam x: x * 2.0, ys)
  return map(lam x: x + 1.0, zs)
`;
    const m = ok(await planned(src, xsOnly, 'none'));
    expect(m.dynamicSlots).toBeGreaterThan(0);
  });
});
