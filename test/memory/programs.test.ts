// Memory plans of the shared examples (every strategy) and of NAS MG class W: the invariants of
// ./check.ts, nothing left unplanned, and the pooled bytes against what a run allocates today.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InputSignature } from '../../src/lower/index.js';
import { memoryProblems } from './check.js';
import { f64, planned } from './helpers.js';

const repo = join(import.meta.dirname, '..', '..');
const i32s = (n: number): InputSignature => ({ kind: 'array', elem: 'i32', shape: [n] });

const examples: Readonly<Record<string, Readonly<Record<string, InputSignature>>>> = {
  backpermute: { xs: f64(7) },
  gather: { is: i32s(4), xs: f64(7) },
  greedyBottomUpBad: { xs: f64(7), m: { kind: 'scalar', elem: 'i32', value: 3 } },
  greedyTopDownBad: { as: f64(7) },
  reverse: { xs: f64(7) },
  scatterExample: { xs: f64(7) },
  simple1: { is: i32s(5), xs: f64(7) },
  simple2: { is1: i32s(7), is2: i32s(4), xs: f64(7) },
  simple3: { is: i32s(5), xs: f64(7) },
  simple4: { is: i32s(5), xs: f64(7, 4) },
  simple5: { is: i32s(7), xs: f64(7) },
  singleLoop: { as: f64(7) },
};

describe('every example, every strategy', () => {
  const cases = Object.keys(examples).flatMap((name) => (['ilp', 'greedy-down', 'greedy-up', 'none'] as const).map((strategy) => ({ name, strategy })));
  it.each(cases)('$name, $strategy', async ({ name, strategy }) => {
    const src = readFileSync(join(repo, 'examples', `${name}.fuse`), 'utf8');
    const p = await planned(src, examples[name]!, strategy);
    expect(memoryProblems(p.program, p.plan, p.memory)).toEqual([]);
    expect(Object.values(p.memory.buffers).filter((b) => b.kind === 'fresh')).toEqual([]);
    expect(p.memory.dynamicSlots).toBe(0);
    expect(p.memory.results.every((r) => r === 'direct')).toBe(true);
  });
});

describe('NAS MG class W (n = 128, nit = 4), the ILP plan', () => {
  it('pools a few finest grids instead of the 325 MiB a run allocates today; nothing fresh, nothing sized at run time', async () => {
    const src = readFileSync(join(repo, 'bench', 'programs', 'mg.fuse'), 'utf8');
    const signature = { v: f64(128, 128, 128), nit: { kind: 'scalar', elem: 'i32', value: 4 } as InputSignature };
    const p = await planned(src, signature, 'ilp', true, 120);
    const m = p.memory;
    expect(memoryProblems(p.program, p.plan, m)).toEqual([]);
    expect(m.results).toEqual(['scalar']);
    expect(m.dynamicSlots).toBe(0);
    expect(Object.values(m.buffers).filter((b) => b.kind === 'fresh')).toEqual([]);
    // The V-cycle's carried u and r are ping-ponged; every grid of the loop body is static.
    expect(Object.values(m.buffers).filter((b) => b.kind === 'pair')).toHaveLength(2);
    const finest = 128 ** 3 * 8;
    expect(m.slots.filter((s) => s.bytes === finest).length).toBeLessThanOrEqual(8);
    expect(m.peakBytes).toBeLessThan(140 * 2 ** 20);
  }, 300_000);
});
