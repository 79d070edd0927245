// The JavaScript back end follows a memory plan (issue 11): manifest arrays live in pooled slots,
// loop pairs, result buffers or other arrays' memory as the plan says; the pool persists across
// runs of one executable and is dropped by dispose(). Plans here are made by hand
// (memoryPlans.ts) so that every BufferRef and delivery kind runs; every run poisons the buffers
// it hands out (NaN / 0xDEADBEEF), runs each program several times on one executable with
// different data, with and without `out`, and compares with the reference interpreter.

import { describe, expect, test } from 'vitest';
import { Compiler } from '../../src/driver/index.js';
import { UserError } from '../../src/diagnostics/index.js';
import { interpret } from '../../src/interp/index.js';
import type { TypedArray } from '../../src/ir/scalarOps.js';
import type { Program } from '../../src/ir/types.js';
import type { ArrayValue, InterfaceValue, RuntimeValue } from '../../src/ir/values.js';
import type { MemoryPlan } from '../../src/memory/types.js';
import { planMemory } from '../../src/memory/index.js';
import type { Plan, Strategy } from '../../src/plan/types.js';
import { compileProgram, type CompiledProgram } from '../../src/runtime/index.js';
import { inputsChecked } from '../../src/runtime/backend.js';
import { array } from '../ir/builders.js';
import { expectSameValues } from './equal.js';
import { manifestNames, ownSlots } from './memoryPlans.js';

const lines = (...ls: string[]): string => `${ls.join('\n')}\n`;

type Inputs = Record<string, ArrayValue>;

interface Source {
  readonly name: string;
  readonly source: string;
  /** Inputs for run `r` (same shapes every run, different data). */
  readonly inputs: (r: number) => Inputs;
}

const f64s = (n: number, r: number, scale = 1): ArrayValue => array('f64', [n], Array.from({ length: n }, (_, i) => ((i * 7 + r * 3) % 11) * scale - 2 + r));

const sources: readonly Source[] = [
  {
    name: 'a chain of maps with an i32 array between f64 ones',
    source: lines(
      'def main(xs: f64[n]):',
      '  a = map(lam x: x + 1.0, xs)',
      '  b = map(lam x: i32(x * 2.0), reverse(a))',
      '  c = map(lam x: f64(x) - 3.0, b)',
      '  d = map(lam x, y: x / 4.0 + y, c, reverse(c))',
      '  return d',
    ),
    inputs: (r) => ({ xs: f64s(9, r) }),
  },
  {
    name: 'an input returned, and the same array returned twice',
    source: lines('def main(xs: f64[n]):', '  ys = map(lam x: x * 2.0, xs)', '  return xs, ys, ys'),
    inputs: (r) => ({ xs: f64s(5, r) }),
  },
  {
    name: 'if branches returning an input or an outer array',
    source: lines(
      'def main(xs: f64[n]):',
      '  a = map(lam x: x + 1.0, xs)',
      '  if xs[0] > 0.0:',
      '    r = a',
      '  else:',
      '    r = xs',
      '  return r, map(lam x: x * 3.0, a)',
    ),
    inputs: (r) => ({ xs: f64s(6, r, r === 1 ? -1 : 1) }),
  },
  {
    name: 'a while loop reading its carried array backwards',
    source: lines(
      'def main(xs: f64[n], k: i32[m]):',
      '  i = 0',
      '  while i < k[0]:',
      '    ys = map(lam x: x * 0.5, xs)',
      '    xs = zipWith(lam a, b: a + b, ys, reverse(xs))',
      '    i = i + 1',
      '  return xs',
    ),
    inputs: (r) => ({ xs: f64s(7, r), k: array('i32', [1], [[3, 0, 8][r % 3]!]) }),
  },
  {
    name: 'a while loop swapping its carried arrays',
    source: lines(
      'def main(xs: f64[n], ys: f64[n], k: i32[m]):',
      '  i = 0',
      '  while i < k[0]:',
      '    xs, ys = ys, map(lam a, b: a + b * 0.5, xs, ys)',
      '    i = i + 1',
      '  return xs, ys',
    ),
    inputs: (r) => ({ xs: f64s(4, r), ys: f64s(4, r + 1), k: array('i32', [1], [[5, 2, 0][r % 3]!]) }),
  },
  {
    name: 'a while loop whose size grows',
    source: lines('def main(xs: f64[n]):', '  while size(xs) < 40:', '    xs = generate(size(xs) * 2, lam i: xs[i // 2] + 1.0)', '  return xs'),
    inputs: (r) => ({ xs: f64s(5, r) }),
  },
  {
    name: 'nested while loops',
    source: lines(
      'def main(xs: f64[n], k: i32[m]):',
      '  i = 0',
      '  while i < k[0]:',
      '    j = 0',
      '    while j < 2:',
      '      xs = map(lam a, b: a + b, xs, reverse(xs))',
      '      j = j + 1',
      '    xs = map(lam x: x * 0.5, xs)',
      '    i = i + 1',
      '  return xs',
    ),
    inputs: (r) => ({ xs: f64s(5, r), k: array('i32', [1], [[3, 1, 0][r % 3]!]) }),
  },
  {
    name: 'a filter (a size known at run time) and a scatter into a computed array',
    source: lines(
      'def main(xs: f64[n]):',
      '  a = map(lam x: x + 1.0, xs)',
      '  ys = filter(lam x: x > 2.5, a)',
      '  s = scatter(+, a, zip(generate(2, lam i: i), generate(2, lam i: 100.0)))',
      '  return ys, s',
    ),
    inputs: (r) => ({ xs: f64s(8, r) }),
  },
  {
    name: 'tuples of arrays',
    source: lines('def main(xs: f64[n]):', '  a, b = map(lam x: (x, x * 10.0), xs)', '  return zip(map(lam x: x + 1.0, a), b), a'),
    inputs: (r) => ({ xs: f64s(6, r) }),
  },
  {
    name: 'a fold over a fused scanr (row buffers) inside a while',
    source: lines(
      'def main(m: f64[r, c], k: i32[q]):',
      '  i = 0',
      '  while i < k[0]:',
      '    a = fold(+, m)',
      '    ys = scanr(+, m)',
      '    b = fold(+, ys)',
      '    m = generate(shape(m), lam p, q: m[p, q] * 0.5 + a[p] - b[p] * 0.25)',
      '    i = i + 1',
      '  return m',
    ),
    inputs: (r) => ({ m: array('f64', [3, 4], Array.from({ length: 12 }, (_, i) => (i * 5 + r) % 7)), k: array('i32', [1], [[2, 3, 1][r % 3]!]) }),
  },
  {
    name: 'empty arrays',
    source: lines('def main(xs: f64[n]):', '  ys = map(lam x: x + 1.0, xs)', '  return ys, reverse(ys)'),
    inputs: () => ({ xs: array('f64', [0], []) }),
  },
];

const strategies: readonly Strategy[] = ['ilp', 'greedy-up', 'none'];

type Fixture = (program: Program, plan: Plan) => MemoryPlan;
const fixtures: readonly (readonly [string, Fixture])[] = [
  ['every array fresh (the placeholder planner)', (p, plan) => planMemory(p, plan)],
  ['own slots and loop pairs, results copied', (p, plan) => ownSlots(p, plan)],
  ['own slots and loop pairs, results written directly', (p, plan) => ownSlots(p, plan, { direct: true })],
];

function ordered(program: Program, inputs: Inputs): InterfaceValue[] {
  return program.params.map((p) => inputs[p.name]!);
}

function components(values: readonly InterfaceValue[]): RuntimeValue[] {
  return values.flatMap((v) => (Array.isArray(v) ? (v as RuntimeValue[]) : [v as RuntimeValue]));
}

function snapshot(inputs: readonly InterfaceValue[]): number[][] {
  return components(inputs).map((v) => (v.kind === 'array' ? Array.from(v.data) : [v.value]));
}

/** A caller's `out` array for every array result component, shaped like the interpreter's. */
function outsLike(expected: readonly InterfaceValue[]): (TypedArray | undefined)[] {
  return components(expected).map((v) => (v.kind === 'array' ? new (v.data.constructor as new (n: number) => TypedArray)(v.data.length).fill(7) : undefined));
}

async function planned(source: string, inputs: Inputs, strategy: Strategy): Promise<{ program: Program; plan: Plan }> {
  const execution = await new Compiler(source).execute(inputs, { strategy, timeLimitSeconds: 5 });
  if (execution.plan === undefined) throw new Error('no plan');
  return { program: execution.program, plan: execution.plan };
}

describe.each(sources)('$name', (s) => {
  test.each(strategies)('under %s, every fixture plan gives the interpreter\'s values on every run, with and without out', async (strategy) => {
    const { program, plan } = await planned(s.source, s.inputs(0), strategy);
    for (const [label, fixture] of fixtures) {
      const exe = compileProgram(program, plan, { memory: fixture(program, plan), poisonBuffers: true });
      for (let r = 0; r < 4; r++) {
        const inputs = ordered(program, s.inputs(r));
        const before = snapshot(inputs);
        const expected = interpret(program, inputs);
        const where = `${label}, run ${r}`;
        expectSameValues(exe.run(inputs).results, expected, where);
        expect(snapshot(inputs), `${where}: inputs unchanged`).toEqual(before);
        const out = outsLike(expected);
        const withOut = exe.run(inputs, { out }).results;
        expectSameValues(withOut, expected, `${where} with out`);
        components(withOut).forEach((v, k) => {
          if (v.kind === 'array') expect(v.data, `${where}: result component ${k} is its out`).toBe(out[k]);
        });
        expect(snapshot(inputs), `${where}: inputs unchanged`).toEqual(before);
      }
    }
  });
});

describe('the pool', () => {
  const chain = sources[0]!;

  test('a static program allocates exactly the plan\'s peak bytes once; later runs allocate only their results', async () => {
    const { program, plan } = await planned(chain.source, chain.inputs(0), 'none');
    // Under `none` the chain's arrays, in plan order, with the steps they live (def..last use):
    // inds_1 (reverse(c)'s indices) 0..6, inds 1..3, a 2..3, gather (reverse(a)) 3..4, b 4..5,
    // c 5..7, gather_1 (reverse(c)) 6..7, d 7.. (the result). Slots shared by dead arrays, i32
    // and f64 arrays in one slot.
    expect(manifestNames(program, plan)).toEqual(['inds_1', 'inds', 'a', 'gather', 'b', 'c', 'gather_1', 'd']);
    const n = 9;
    const members = [['inds_1'], ['inds', 'b', 'gather_1'], ['a', 'c'], ['gather', 'd']];
    const bytes = [n * 4, n * 8, n * 8, n * 8];
    const memory: MemoryPlan = {
      buffers: Object.fromEntries(members.flatMap((m, slot) => m.map((x) => [x, { kind: 'slot', slot }]))),
      slots: members.map((arrays, k) => ({ bytes: bytes[k]!, arrays })),
      results: ['copy'],
      ranges: [],
      peakBytes: bytes.reduce((a, b) => a + b, 0),
      dynamicSlots: 0,
    };
    const exe = compileProgram(program, plan, { memory, poisonBuffers: true });
    const first = exe.run(ordered(program, chain.inputs(0)));
    expectSameValues(first.results, interpret(program, ordered(program, chain.inputs(0))));
    expect(first.stats.peakBytes).toBe(memory.peakBytes);
    expect(first.stats.poolBytes).toBe(memory.peakBytes);
    // The pool, and the result's copy.
    expect(first.stats.bytesAllocated).toBe(memory.peakBytes + n * 8);
    for (let r = 1; r < 4; r++) {
      const run = exe.run(ordered(program, chain.inputs(r)));
      expectSameValues(run.results, interpret(program, ordered(program, chain.inputs(r))));
      expect(run.stats.bytesAllocated, `run ${r}`).toBe(n * 8);
      expect(run.stats.allocations.map((a) => [a.array, a.bytes])).toEqual([['d', n * 8]]);
      expect(run.stats.poolBytes).toBe(memory.peakBytes);
    }
    // With an out, nothing at all.
    const out = [new Float64Array(n)];
    const withOut = exe.run(ordered(program, chain.inputs(1)), { out });
    expect(withOut.stats.bytesAllocated).toBe(0);
    expectSameValues(withOut.results, interpret(program, ordered(program, chain.inputs(1))));
  });

  test('loop pairs in nested loops: each loop writes its own pair by its own iteration parity', async () => {
    // The inner loop's output is read by the outer body's map, whose result the outer loop
    // carries: neither loop carries the other's pair, so pairs everywhere are sound here.
    const nested = sources.find((x) => x.name === 'nested while loops')!;
    for (const strategy of strategies) {
      const { program, plan } = await planned(nested.source, nested.inputs(0), strategy);
      const memory = ownSlots(program, plan, { pairsEverywhere: true });
      expect(Object.values(memory.buffers).filter((b) => b.kind === 'pair').length, strategy).toBeGreaterThanOrEqual(2);
      const exe = compileProgram(program, plan, { memory, poisonBuffers: true });
      for (let r = 0; r < 4; r++) {
        const inputs = ordered(program, nested.inputs(r));
        expectSameValues(exe.run(inputs).results, interpret(program, inputs), `${strategy}, run ${r}`);
      }
    }
  });

  test('an alias: a map that writes over its dead input\'s memory, element for element', async () => {
    const src = lines('def main(xs: f64[n]):', '  a = map(lam x: x + 1.0, xs)', '  b = map(lam x: x * 2.0, a)', '  return b, xs');
    const { program, plan } = await planned(src, { xs: f64s(6, 0) }, 'none');
    expect(manifestNames(program, plan)).toEqual(['a', 'b']);
    const memory: MemoryPlan = {
      buffers: { a: { kind: 'slot', slot: 0 }, b: { kind: 'alias', of: 'a' } },
      slots: [{ bytes: null, arrays: ['a'] }],
      results: ['copy', 'copy'],
      ranges: [],
      peakBytes: 0,
      dynamicSlots: 1,
    };
    const exe = compileProgram(program, plan, { memory, poisonBuffers: true });
    expect(exe.source).toMatch(/const (a\d+) = rt\.take\(0, 0, n\d+\);\n[^]*const a\d+ = \1;/);
    for (let r = 0; r < 3; r++) {
      const inputs = ordered(program, { xs: f64s(6, r) });
      const run = exe.run(inputs);
      expectSameValues(run.results, interpret(program, inputs));
      // The result b and the returned input xs are copies, not the pool's buffer or the caller's input.
      const [b, xs] = components(run.results);
      if (b!.kind !== 'array' || xs!.kind !== 'array') throw new Error('array results expected');
      expect(xs.data).not.toBe((inputs[0] as ArrayValue).data);
      expect(b.data.buffer).not.toBe(xs.data.buffer);
      if (r > 0) expect(run.stats.bytesAllocated).toBe(2 * 6 * 8);
    }
  });

  test('a donated delivery hands its buffer over as is, or copies it into an out', async () => {
    const src = lines('def main(xs: f64[n]):', '  return map(lam x: x * 2.0, xs)');
    const { program, plan } = await planned(src, { xs: f64s(5, 0) }, 'none');
    const [name] = manifestNames(program, plan);
    const memory: MemoryPlan = { buffers: { [name!]: { kind: 'fresh', why: 'test' } }, slots: [], results: ['donated'], ranges: [], peakBytes: 0, dynamicSlots: 0 };
    const exe = compileProgram(program, plan, { memory, poisonBuffers: true });
    expect(exe.source).toMatch(/rt\.give\(0, a\d+\)/);
    const inputs = ordered(program, { xs: f64s(5, 1) });
    const plain = exe.run(inputs);
    expectSameValues(plain.results, interpret(program, inputs));
    expect(plain.stats.bytesAllocated).toBe(5 * 8);
    const out = [new Float64Array(5)];
    const into = exe.run(inputs, { out });
    expectSameValues(into.results, interpret(program, inputs));
    expect((into.results[0] as ArrayValue).data).toBe(out[0]);
  });

  test('views are reused across runs and remade when a dynamic slot grows', async () => {
    const grow = sources.find((x) => x.name === 'a while loop whose size grows')!;
    const { program, plan } = await planned(grow.source, grow.inputs(0), 'none');
    const exe = compileProgram(program, plan, { memory: ownSlots(program, plan), poisonBuffers: true });
    const first = exe.run(ordered(program, grow.inputs(0)));
    expectSameValues(first.results, interpret(program, ordered(program, grow.inputs(0))));
    const pool = first.stats.poolBytes;
    expect(pool).toBeGreaterThan(0);
    const second = exe.run(ordered(program, grow.inputs(1)));
    expectSameValues(second.results, interpret(program, ordered(program, grow.inputs(1))));
    expect(second.stats.poolBytes).toBe(pool);
    // Only the result's copy: the pair's slots already hold the largest size.
    expect(second.stats.bytesAllocated).toBe(40 * 8);
  });

  test('a run that throws midway leaves the pool valid for the next run', async () => {
    const src = lines('def main(xs: f64[n], is: i32[m]):', '  a = map(lam x: x + 1.0, xs)', '  b = gather(is, a)', '  return map(lam x: x * 2.0, b), a');
    const good = { xs: f64s(6, 0), is: array('i32', [3], [0, 5, 2]) };
    const bad = { xs: f64s(6, 1), is: array('i32', [3], [0, 9, 2]) };
    const { program, plan } = await planned(src, good, 'none');
    const exe = compileProgram(program, plan, { memory: ownSlots(program, plan, { direct: true }), poisonBuffers: true });
    expectSameValues(exe.run(ordered(program, good)).results, interpret(program, ordered(program, good)));
    expect(() => exe.run(ordered(program, bad))).toThrow(UserError);
    const other = { xs: f64s(6, 2), is: array('i32', [3], [5, 4, 3]) };
    expectSameValues(exe.run(ordered(program, other)).results, interpret(program, ordered(program, other)));
  });

  test('a run started from inside another (re-entrant) gets a pool of its own and leaves the outer one intact', async () => {
    const { program, plan } = await planned(chain.source, chain.inputs(0), 'none');
    const exe = compileProgram(program, plan, { memory: ownSlots(program, plan), poisonBuffers: true });
    exe.run(ordered(program, chain.inputs(0)));
    // An input whose `data` getter runs the same executable: the inner run happens while the
    // outer one holds the pool and the runtime.
    const inner = ordered(program, chain.inputs(1));
    let innerResult: InterfaceValue[] | null = null;
    const outerInput = chain.inputs(2).xs;
    const sneaky = {
      ...outerInput,
      get data() {
        if (innerResult === null) innerResult = exe.run(inner).results;
        return outerInput.data;
      },
    } as ArrayValue;
    const outer = exe.run([sneaky], { [inputsChecked]: true });
    expectSameValues(outer.results, interpret(program, [outerInput]));
    expectSameValues(innerResult!, interpret(program, inner));
    const again = exe.run(ordered(program, chain.inputs(3)));
    expectSameValues(again.results, interpret(program, ordered(program, chain.inputs(3))));
    expect(again.stats.bytesAllocated).toBe(9 * 8);
  });

  test('dispose drops the pool; a run afterwards is an ExecutableDisposedError', async () => {
    const { program, plan } = await planned(chain.source, chain.inputs(0), 'none');
    const exe = compileProgram(program, plan, { memory: ownSlots(program, plan) });
    exe.run(ordered(program, chain.inputs(0)));
    exe.dispose();
    expect(() => exe.run(ordered(program, chain.inputs(0)))).toThrow(/disposed/);
  });

  test('an out of the wrong element type or size is E421 / E422, naming the result and both sizes', async () => {
    const { program, plan } = await planned(chain.source, chain.inputs(0), 'none');
    for (const memory of [ownSlots(program, plan), ownSlots(program, plan, { direct: true })]) {
      const exe = compileProgram(program, plan, { memory });
      const inputs = ordered(program, chain.inputs(0));
      expect(() => exe.run(inputs, { out: [new Float32Array(9)] })).toThrow(/E421|Float32Array/);
      try {
        exe.run(inputs, { out: [new Float64Array(4)] });
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(UserError);
        expect((e as UserError).code).toBe('E422');
        // Both sizes, in either order (main's message says the result's first, as the driver's check does).
        expect((e as Error).message).toMatch(/result d.*(4 elements.* 9|9 elements.* 4 elements)/);
      }
      // And the executable still runs.
      expectSameValues(exe.run(inputs).results, interpret(program, inputs));
    }
  });
});

describe('run options and stats', () => {
  test('counters count the same traffic whatever memory the plan gives (result copies are delivery, not traffic)', async () => {
    for (const src of sources) {
      const { program, plan } = await planned(src.source, src.inputs(0), 'greedy-up');
      const inputs = ordered(program, src.inputs(0));
      const counted = ([, fixture]: (typeof fixtures)[number]) =>
        compileProgram(program, plan, { memory: fixture(program, plan), poisonBuffers: true }).run(inputs, { counters: true }).stats.counters;
      const reference = counted(fixtures[0]!);
      for (const f of fixtures.slice(1)) expect(counted(f), `${src.name}: ${f[0]}`).toEqual(reference);
    }
  });

  test('stats read after a later run are still their own run\'s', async () => {
    const loop = sources.find((x) => x.name === 'a while loop reading its carried array backwards')!;
    const { program, plan } = await planned(loop.source, loop.inputs(0), 'none');
    const exe: CompiledProgram = compileProgram(program, plan);
    const three = exe.run(ordered(program, loop.inputs(0))); // 3 iterations
    const eight = exe.run(ordered(program, loop.inputs(2))); // 8 iterations
    const read = exe.run(ordered(program, loop.inputs(1))); // 0 iterations
    void read.stats;
    const calls = (r: typeof three): number => Math.max(...r.stats.clusters.map((c) => c.runs));
    expect(calls(eight)).toBe(8);
    expect(calls(three)).toBe(3);
    expect(calls(read)).toBe(0);
  });

  test('cluster times are measured only with timing; calls are counted either way', async () => {
    const { program, plan } = await planned(sources[0]!.source, sources[0]!.inputs(0), 'none');
    const exe = compileProgram(program, plan);
    const plain = exe.run(ordered(program, sources[0]!.inputs(0))).stats;
    expect(plain.clusters.every((c) => c.timeMs === 0 && c.runs === 1)).toBe(true);
    const timed = exe.run(ordered(program, sources[0]!.inputs(0)), { timing: true }).stats;
    expect(timed.clusters.every((c) => c.timeMs >= 0 && c.runs === 1)).toBe(true);
    expect(timed.clusters.some((c) => c.timeMs > 0)).toBe(true);
  });

  test('trusted inputs skip the entry checks; untrusted ones are checked', async () => {
    const { program, plan } = await planned(sources[0]!.source, sources[0]!.inputs(0), 'none');
    const exe = compileProgram(program, plan);
    const inputs = ordered(program, sources[0]!.inputs(0));
    expectSameValues(exe.run(inputs, { [inputsChecked]: true }).results, interpret(program, inputs));
    expect(() => exe.run([])).toThrow(/E410|takes 1 input/);
  });
});
