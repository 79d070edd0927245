// Random `.fuse` programs of the two loop shapes issue 13's loop passes rewrite, with their
// inputs: the shapes the general generator (gen.ts) never makes.
//
// - Stencils: every point of a 1-, 2- or 3-D grid combines neighbours read through index maps
//   that are affine except at the grid's edges: periodic wraps by comparison (`i + 1 if
//   i < n - 1 else 0`, NPB MG's `wrap`) or by `%`, clamps (`min(max(i + d, 0), n - 1)`, Rodinia
//   hotspot) with static or run-time bounds, one-sided clamps, stride-2 restriction (`2 * i + 1
//   + d`, wrapped), prolongation (`(i - 1) // 2 if i > 0 else n - 1`), and plain shifts that go
//   out of range at an edge only. Offsets −2..2 or a run-time scalar (sometimes near 2^31, so
//   the index arithmetic wraps in i32). Neighbours are read by `gather(map(…, points), u)` (MG),
//   by `gather(generate(…), u)` or by indexing inside one `generate`, and combined by weighted
//   maps that share partial sums; sometimes a second stencil reads the first one's result, a
//   row maximum or a sum follows, and the stencil runs inside a `while` whose grid changes size
//   every iteration, or inside an `if`.
// - Contractions: `fold(+, zipWith(*, gather(rows), gather(cols)))` matrix products (A·B, A·Bᵀ),
//   batched ones shaped as FlashAttention's blockScores/blockProduct, an indexing-generate form,
//   an operand cut into a clamped row block by run-time scalars, seeds, and epilogues (scale,
//   mask to −inf, row maximum, exp of the row-max difference), inside a `while` over blocks too.
//
// Element types f64, f32 and i32; extents 0, 1, 2, 3 (smaller than a stencil's reach), odd and
// a few larger; data with NaN, ±inf, −0, huge and tiny floats, and i32 near ±2^31. The oracle is
// the reference interpreter (loopCheck.ts): nothing here evaluates the programs, so the
// generator only has to produce well-typed text (a program the interpreter rejects at run time,
// say an index out of range at an edge, must be rejected by the fused code the same way).

import type { InterfaceValue } from '../../src/ir/values.js';
import type { Rng } from './rng.js';

export type LoopElem = 'f64' | 'f32' | 'i32';

/** One generated program and the input sets it runs on (each a full set of named inputs). */
export interface LoopCase {
  /** `stencil` or `contraction`, and the options that shaped it (for a failure's report). */
  readonly family: string;
  readonly source: string;
  readonly inputs: readonly Readonly<Record<string, InterfaceValue>>[];
}

// ---- data ----

const SPECIAL_FLOATS = [Number.NaN, Infinity, -Infinity, -0, 1e300, -1e300, 5e-324, 0.1];
const SPECIAL_INTS = [2147483647, -2147483648, 2147483000, -2147483000, 65536, -1];

/** One element of random data: mostly small exact values, sometimes a special one. */
function element(rng: Rng, elem: LoopElem, special: number): number {
  if (elem === 'i32') return rng.chance(special) ? rng.pick(SPECIAL_INTS) : rng.int(-9, 9);
  if (rng.chance(special)) return rng.pick(SPECIAL_FLOATS);
  // Halves are exact; tenths and thirds are not, so a regrouped sum rounds differently.
  return rng.int(-8, 8) * rng.pick([0.5, 0.5, 0.1, 1 / 3]);
}

function typed(elem: LoopElem, values: readonly number[]): Float64Array | Float32Array | Int32Array {
  switch (elem) {
    case 'f64':
      return Float64Array.from(values);
    case 'f32':
      return Float32Array.from(values);
    case 'i32':
      return Int32Array.from(values);
    default:
      return elem satisfies never;
  }
}

/** A random array of `shape`; `special`: the chance of each element being a special value. */
export function randomArray(rng: Rng, elem: LoopElem, shape: readonly number[], special: number): InterfaceValue {
  const count = shape.reduce((a, b) => a * b, 1);
  return { kind: 'array', elem, shape: [...shape], data: typed(elem, Array.from({ length: count }, () => element(rng, elem, special))) };
}

export function i32Scalar(value: number): InterfaceValue {
  return { kind: 'scalar', elem: 'i32', value };
}

export function f64Scalar(value: number): InterfaceValue {
  return { kind: 'scalar', elem: 'f64', value };
}

/** An extent: the small ones (below a stencil's reach) often, odd ones, sometimes a larger one. */
function extent(rng: Rng, rank: number): number {
  // Large enough for an interior of several points past a reach of 2 and a block of 4.
  const big = rank === 1 ? [8, 13, 17, 33] : rank === 2 ? [6, 7, 9, 12, 16] : [4, 5, 6, 8];
  return rng.weighted<() => number>([
    [3, () => rng.pick([0, 1, 2, 3])],
    [4, () => rng.pick([4, 5, 7])],
    [2, () => rng.pick(big)],
  ])();
}

/** A run-time offset: small, or near the i32 limits (so `i + s` wraps). */
function offsetScalar(rng: Rng): number {
  return rng.weighted<() => number>([
    [6, () => rng.int(-3, 3)],
    [1, () => rng.pick([2147483647, -2147483648, 2147483646, 1073741824, -1073741825])],
  ])();
}

// ---- stencils ----

/** How one axis of the output grid relates to the source grid's axis. */
type AxisKind = 'same' | 'restrict' | 'prolong';

/** How a neighbour's index is written from the output index `i` on one axis. */
type MapKind = 'identity' | 'wrapCmp' | 'wrapMod' | 'wrapModN' | 'clamp' | 'clampLo' | 'clampOne' | 'shift' | 'scalarClamp' | 'scalarMod' | 'table';

/** Neighbour reading style. */
type Style = 'mapGather' | 'generateGather' | 'indexing';

function offsetText(d: number): string {
  return d === 0 ? '' : d > 0 ? ` + ${d}` : ` - ${-d}`;
}

/**
 * What a neighbour's index map may do at an edge: `never` fault (then `lo` is not below 0, so a
 * clamp to it is safe), or `may` fault (unguarded shifts, a clamp to a `lo` that may be below 0).
 */
type Edge = 'never' | 'may';

/** The index on one axis of the neighbour at static offset `d`, for output index `i` and source extent `n`. */
function axisIndex(rng: Rng, kind: AxisKind, i: string, n: string, d: number, edge: Edge | 'shift', loSafe: boolean): string {
  // `shift`: the unguarded map, out of range at one edge (d is not 0).
  if (edge === 'shift') return kind === 'restrict' ? `2 * ${i} + 1${offsetText(d)}` : kind === 'prolong' ? `${i} // 2${offsetText(d)}` : `${i}${offsetText(d)}`;
  const allowFault = edge === 'may';
  if (kind === 'restrict') {
    const f = `2 * ${i} + 1${offsetText(d)}`;
    return rng.weighted<() => string>([
      [3, () => `(${f}) % ${n}`],
      // MG's strided `wrap`: only 2i + 2 can reach n.
      [d === 1 ? 3 : 0, () => `${f} if 2 * ${i} + 1 < ${n} - 1 else 0`],
      [2, () => `min(max(${f}, 0), ${n} - 1)`],
      [allowFault ? 3 : 0, () => f],
    ])();
  }
  if (kind === 'prolong') {
    // MG's `coarse` map (n is the coarse extent here), and its neighbours.
    return rng.weighted<() => string>([
      [3, () => `(${i} - 1) // 2 if ${i} > 0 else ${n} - 1`],
      [2, () => `${i} // 2`],
      [2, () => `(${i} // 2${offsetText(d)}) % ${n}`],
      [2, () => `min(max(${i} // 2${offsetText(d)}, 0), ${n} - 1)`],
    ])();
  }
  const kinds: (readonly [number, MapKind])[] = [
    [1, 'identity'],
    [Math.abs(d) === 1 ? 4 : 0, 'wrapCmp'],
    [3, 'wrapMod'],
    [1, 'wrapModN'],
    [4, 'clamp'],
    [allowFault || loSafe ? 2 : 0, 'clampLo'],
    [d !== 0 ? 2 : 0, 'clampOne'],
    [allowFault && d !== 0 ? 4 : 0, 'shift'],
    [1.5, 'scalarClamp'],
    [1, 'scalarMod'],
    // Not affine at all: read from the index table `ix` (never empty), wrapped into range.
    [0.7, 'table'],
  ];
  const map = rng.weighted(kinds);
  const f = `${i}${offsetText(d)}`;
  switch (map) {
    case 'identity':
      return i;
    case 'wrapCmp':
      return d === 1 ? `${i} + 1 if ${i} < ${n} - 1 else 0` : `${i} - 1 if ${i} > 0 else ${n} - 1`;
    case 'wrapMod':
      return `(${f}) % ${n}`;
    case 'wrapModN':
      return `(${f} + ${n}) % ${n}`;
    case 'clamp':
      return rng.chance(0.5) ? `min(max(${f}, 0), ${n} - 1)` : `max(min(${f}, ${n} - 1), 0)`;
    case 'clampLo':
      // A run-time lower bound: below 0 it faults at the low edge only.
      return `min(max(${f}, lo), ${n} - 1)`;
    case 'clampOne':
      // One-sided, as FlashAttention's `min(j * b + r, n - 1)`: the other edge cannot be crossed.
      return d > 0 ? `min(${f}, ${n} - 1)` : `max(${f}, 0)`;
    case 'shift':
      return f;
    case 'scalarClamp':
      return `min(max(${i} + s, 0), ${n} - 1)`;
    case 'scalarMod':
      return `(${i} + s) % ${n}`;
    case 'table':
      return `ix[(${f}) % size(ix)] % ${n}`;
    default:
      return map satisfies never;
  }
}

/** A weight for element type `elem`: literals, or the run-time scalar `w`. */
function weight(rng: Rng, elem: LoopElem): string {
  if (elem === 'i32') return rng.pick(['2', '-1', '3', '1', 'c']);
  const w = elem === 'f32' ? 'f32(w)' : 'w';
  return rng.pick(['0.5', '0.25', '-1.0', '2.0', '1.0 / 3.0', '-8.0 / 3.0', w]);
}

interface StencilOptions {
  readonly rank: 1 | 2 | 3;
  readonly elem: LoopElem;
  readonly style: Style;
  readonly kinds: readonly AxisKind[];
  readonly neighbours: number;
  readonly twoLevel: boolean;
  readonly epilogue: 'none' | 'rowmax' | 'sum';
  readonly control: 'none' | 'while' | 'whileShrink' | 'if';
  /**
   * The program may fault at an edge: then it is one stencil whose result is returned as it is
   * (every element demanded), and only one of its gathered neighbours (any of an indexing
   * generate's) can fault, so the first fault in the interpreter's order is the fused code's too.
   */
  readonly allowFault: boolean;
}

const AXES = ['i', 'j', 'k'] as const;

/** `def name(u, s, lo, c, w)`: one stencil over the rank-R grid `u`. */
function stencilDef(rng: Rng, name: string, o: StencilOptions, kinds: readonly AxisKind[], neighbours: number): string {
  const r = o.rank;
  const ns = AXES.slice(0, r).map((a) => `n${a}`);
  const lines: string[] = [`def ${name}(u, s, lo, c, w, ix):`];
  lines.push(r === 1 ? `  ni = size(u)` : `  ${ns.join(', ')} = shape(u)`);
  const outExtent = (a: number): string => (kinds[a] === 'restrict' ? `${ns[a]} // 2` : kinds[a] === 'prolong' ? `2 * ${ns[a]}` : ns[a]!);
  const outShape = r === 1 ? outExtent(0) : `(${AXES.slice(0, r).map((_, a) => outExtent(a)).join(', ')})`;
  const vars = AXES.slice(0, r);
  // Offsets of each neighbour (the first is often the centre).
  const offsets: number[][] = [];
  for (let q = 0; q < neighbours; q++) offsets.push(q === 0 && rng.chance(0.6) ? vars.map(() => 0) : vars.map(() => rng.int(-2, 2)));
  // The neighbour that faults (one axis of it shifted unguarded); in an indexing generate the
  // others may fault too (one element's reads run in the same order in every back end).
  const faultAt = rng.int(0, neighbours - 1);
  const faultAxis = rng.int(0, r - 1);
  if (o.allowFault) offsets[faultAt]![faultAxis] = rng.pick([-2, -1, 1, 2]);
  const edge = (q: number, a: number): Edge | 'shift' =>
    !o.allowFault ? 'never' : q === faultAt && a === faultAxis ? 'shift' : q === faultAt || o.style === 'indexing' ? 'may' : 'never';
  const indexOf = (q: number, names: readonly string[]): string[] =>
    vars.map((_, a) => axisIndex(rng, kinds[a]!, names[a]!, ns[a]!, offsets[q]![a]!, edge(q, a), !o.allowFault));
  const tuple = (parts: readonly string[]): string => (parts.length === 1 ? parts[0]! : `(${parts.join(', ')})`);
  const zero = o.elem === 'i32' ? '0' : '0.0';

  if (o.style === 'indexing') {
    // One generate that reads every neighbour by indexing: sometimes guarded by a select.
    const terms = offsets.map((_, q) => {
      const read = `u[${indexOf(q, vars).join(', ')}]`;
      if (!rng.chance(0.2)) return `${weight(rng, o.elem)} * ${read}`;
      const cond = vars.map((v, a) => `${v} + ${offsets[q]![a]!} < ${ns[a]}`).join(' and ');
      return `(${weight(rng, o.elem)} * ${read} if ${cond} else ${zero})`;
    });
    lines.push(`  return generate(${outShape}, lam ${vars.join(', ')}: ${terms.join(' + ')})`);
    return lines.join('\n');
  }
  const gathered: string[] = [];
  if (o.style === 'mapGather') {
    lines.push(`  at = generate(${outShape}, lam ${vars.join(', ')}: ${tuple([...vars])})`);
    const ps = r === 1 ? ['p'] : vars.map((_, a) => `p[${a}]`);
    offsets.forEach((_, q) => {
      lines.push(`  g${q} = gather(map(lam p: ${tuple(indexOf(q, ps))}, at), u)`);
      gathered.push(`g${q}`);
    });
  } else {
    offsets.forEach((_, q) => {
      lines.push(`  g${q} = gather(generate(${outShape}, lam ${vars.join(', ')}: ${tuple(indexOf(q, vars))}), u)`);
      gathered.push(`g${q}`);
    });
  }
  // Partial sums shared by the final weighted map (MG's faceSum/edgeSum shape).
  let pool = [...gathered];
  let sums = 0;
  while (pool.length > 2 && rng.chance(0.6)) {
    const take = rng.int(2, Math.min(4, pool.length));
    const start = rng.int(0, pool.length - take);
    const parts = pool.slice(start, start + take);
    const params = parts.map((_, x) => `a${x}`);
    const name = `t${sums++}`;
    lines.push(`  ${name} = map(lam ${params.join(', ')}: ${params.join(' + ')}, ${parts.join(', ')})`);
    pool = [...pool.slice(0, start), name, ...pool.slice(start + take)];
  }
  if (pool.length === 1) {
    lines.push(`  return map(lam a: ${weight(rng, o.elem)} * a, ${pool[0]})`);
  } else {
    const params = pool.map((_, x) => `a${x}`);
    const body = params.map((p) => `${weight(rng, o.elem)} * ${p}`).join(rng.chance(0.8) ? ' + ' : ' - ');
    lines.push(`  return map(lam ${params.join(', ')}: ${body}, ${pool.join(', ')})`);
  }
  return lines.join('\n');
}

function paramType(elem: LoopElem, rank: number): string {
  return `${elem}[${['a', 'b', 'c'].slice(0, rank).join(', ')}]`;
}

/** Drops the last index of every axis (a grid one smaller, never below 0). */
function shrinkDef(rank: number): string {
  const vars = AXES.slice(0, rank);
  const ns = vars.map((a) => `n${a}`);
  const shape = rank === 1 ? `max(ni - 1, 0)` : `(${ns.map((n) => `max(${n} - 1, 0)`).join(', ')})`;
  return [
    'def shrink(u):',
    rank === 1 ? '  ni = size(u)' : `  ${ns.join(', ')} = shape(u)`,
    `  return gather(generate(${shape}, lam ${vars.join(', ')}: ${vars.length === 1 ? vars[0] : `(${vars.join(', ')})`}), u)`,
  ].join('\n');
}

export function stencilOptions(rng: Rng): StencilOptions {
  const rank = rng.weighted<1 | 2 | 3>([
    [3, 1],
    [4, 2],
    [3, 3],
  ]);
  const multiLevel = rng.chance(0.25);
  const kinds = Array.from({ length: rank }, () => (multiLevel ? rng.pick<AxisKind>(['same', 'restrict', 'prolong']) : 'same'));
  const o: StencilOptions = {
    rank,
    elem: rng.weighted<LoopElem>([
      [6, 'f64'],
      [2, 'f32'],
      [2, 'i32'],
    ]),
    style: rng.weighted<Style>([
      [4, 'mapGather'],
      [3, 'generateGather'],
      [3, 'indexing'],
    ]),
    kinds,
    neighbours: rng.int(1, rank === 3 ? 7 : 5),
    twoLevel: rng.chance(0.25),
    epilogue: rng.weighted([
      [6, 'none'],
      [2, 'rowmax'],
      [1, 'sum'],
    ] as const),
    control: rng.weighted([
      [5, 'none'],
      [2, 'while'],
      [1.5, 'whileShrink'],
      [1, 'if'],
    ] as const),
    allowFault: rng.chance(0.3),
  };
  return o.allowFault ? { ...o, twoLevel: false, control: 'none', epilogue: 'none' } : o;
}

/** The text of a stencil program: `main(u, s, lo, c, w, iters, ix)`. */
export function stencilSource(rng: Rng, o: StencilOptions): string {
  const same = o.kinds.map((): AxisKind => 'same');
  const defs: string[] = [stencilDef(rng, 'step', o, o.kinds, o.neighbours)];
  // A second stencil reads the first one's result (it keeps the grid's size: a while carries it).
  if (o.twoLevel) defs.push(stencilDef(rng, 'step2', { ...o, style: rng.pick<Style>(['mapGather', 'generateGather', 'indexing']) }, same, rng.int(1, 4)));
  const apply = (x: string): string => (o.twoLevel ? `step2(step(${x}, s, lo, c, w, ix), s, lo, c, w, ix)` : `step(${x}, s, lo, c, w, ix)`);
  if (o.control === 'whileShrink') defs.push(shrinkDef(o.rank));
  const body: string[] = [`def main(u: ${paramType(o.elem, o.rank)}, s: i32, lo: i32, c: i32, w: f64, iters: i32, ix: i32[p]):`];
  switch (o.control) {
    case 'none':
      body.push(`  r = ${apply('u')}`);
      break;
    case 'while':
    case 'whileShrink':
      body.push('  r = u', '  q = 0', '  while q < iters:', `    r = ${apply('r')}`);
      if (o.control === 'whileShrink') body.push('    r = shrink(r)');
      body.push('    q = q + 1');
      break;
    case 'if': {
      body.push('  if iters > 1:', `    r = ${apply('u')}`, '  else:', `    r = map(lam x: x + x, u)`);
      break;
    }
    default:
      o.control satisfies never;
  }
  switch (o.epilogue) {
    case 'none':
      body.push('  return r');
      break;
    case 'rowmax':
      body.push(o.elem === 'i32' ? '  return r, fold(max, r)' : '  return r, maximum(r)');
      break;
    case 'sum':
      body.push('  return r, sum(r)');
      break;
    default:
      o.epilogue satisfies never;
  }
  return [...defs, ...body].join('\n') + '\n';
}

function stencilInputs(rng: Rng, o: StencilOptions, sets: number): Record<string, InterfaceValue>[] {
  const special = rng.pick([0, 0.02, 0.1]);
  const out: Record<string, InterfaceValue>[] = [];
  for (let k = 0; k < sets; k++) {
    const shape = Array.from({ length: o.rank }, () => extent(rng, o.rank));
    out.push({
      u: randomArray(rng, o.elem, shape, special),
      s: i32Scalar(offsetScalar(rng)),
      lo: i32Scalar(rng.weighted<() => number>([
        [4, () => 0],
        [2, () => rng.int(o.allowFault ? -2 : 0, 3)],
        [o.allowFault ? 0.5 : 0, () => -2147483648],
      ])()),
      c: i32Scalar(rng.pick([1, -2, 3, 2147483647])),
      w: f64Scalar(rng.pick([0.5, -1.5, 3.0, Number.NaN, -0, 1e308])),
      iters: i32Scalar(rng.int(0, 3)),
      ix: randomArray(rng, 'i32', [rng.int(1, 4)], 0.2),
    });
  }
  return out;
}

export function randomStencil(rng: Rng, sets = 3): LoopCase {
  const o = stencilOptions(rng);
  const source = stencilSource(rng, o);
  return { family: `stencil ${JSON.stringify(o)}`, source, inputs: stencilInputs(rng, o, sets) };
}

// ---- contractions ----

interface ContractionOptions {
  readonly elem: LoopElem;
  /**
   * A·B, A·Bᵀ, batched A·B (FlashAttention's blockProduct), batched A·Bᵀ (its blockScores), or
   * the indexing-generate form.
   */
  readonly form: 'mm' | 'mmT' | 'batched' | 'batchedT' | 'indexing';
  /** B is first cut into a clamped block of `bc` rows from row `jb * bc` (FlashAttention's rowBlock). */
  readonly block: boolean;
  readonly seed: boolean;
  readonly product: 'op' | 'scaled' | 'lambda';
  readonly epilogue: 'none' | 'scale' | 'mask' | 'rowmax' | 'softmax' | 'chain';
  readonly control: 'none' | 'while';
}

export function contractionOptions(rng: Rng): ContractionOptions {
  const elem = rng.weighted<LoopElem>([
    [6, 'f64'],
    [2, 'f32'],
    [2, 'i32'],
  ]);
  const floatOnly = elem === 'i32' ? 0 : 1;
  const o: ContractionOptions = {
    elem,
    form: rng.weighted([
      [3, 'mm'],
      [2, 'mmT'],
      [2, 'batched'],
      [2, 'batchedT'],
      [1.5, 'indexing'],
    ] as const),
    block: rng.chance(0.3),
    seed: rng.chance(0.25),
    product: rng.weighted([
      [6, 'op'],
      [1, 'scaled'],
      [1, 'lambda'],
    ] as const),
    epilogue: rng.weighted([
      [3, 'none'],
      [2, 'scale'],
      [2 * floatOnly, 'mask'],
      [2, 'rowmax'],
      [1.5 * floatOnly, 'softmax'],
      [1.5, 'chain'],
    ] as const),
    control: rng.chance(0.2) ? 'while' : 'none',
  };
  // A·Bᵀ chained with (A·Bᵀ)·Bᵀ needs b's rows to be free (m equal to k): no row block there.
  return transposedForm(o.form) && o.epilogue === 'chain' ? { ...o, block: false } : o;
}

/**
 * The text of a contraction program: `main(a, b, jb, bc, w, iters)`, a: [n, k] (batched: [t, n,
 * k]), b: [k, m] (A·Bᵀ: [m, k]); with `block`, b's rows are first cut to the clamped block.
 */
export function contractionSource(rng: Rng, o: ContractionOptions): string {
  const e = o.elem;
  const w = e === 'i32' ? 'c' : e === 'f32' ? 'f32(w)' : 'w';
  const seed = o.seed ? `${rng.pick(e === 'i32' ? ['1', 'c', '-3'] : ['1.5', '-0.0', w])}, ` : '';
  const product = o.product === 'op' ? '*' : o.product === 'scaled' ? `lam x, y: x * y * ${w}` : `lam x, y: (x + ${e === 'i32' ? '1' : '0.5'}) * y`;
  const lines: string[] = [];
  // rowBlock: rows [jb * bc, jb * bc + bc) of x, the rows past the end repeating the last one.
  lines.push(
    'def rowBlock(x, jb, bc):',
    '  nr, nc = shape(x)',
    '  return gather(generate((bc, nc), lam r, q: (min(jb * bc + r, nr - 1), q)), x)',
  );
  const transposed = transposedForm(o.form);
  const batched = o.form === 'batched' || o.form === 'batchedT';
  // The contraction of a ([n, k] or [t, n, k]) with b ([k, m], or [m, k] when transposed).
  lines.push('def contract(a, b, c, w):');
  if (batched) lines.push('  t, n, k = shape(a)');
  else lines.push('  n, k = shape(a)');
  lines.push(transposed ? '  m, k2 = shape(b)' : '  k2, m = shape(b)');
  const bIndex = transposed ? '(j, l)' : '(l, j)';
  switch (o.form) {
    case 'mm':
    case 'mmT':
      lines.push(
        `  as = gather(generate((n, m, k), lam i, j, l: (i, l)), a)`,
        `  bs = gather(generate((n, m, k), lam i, j, l: ${bIndex}), b)`,
        `  return fold(+, ${seed}zipWith(${product}, as, bs))`,
      );
      break;
    case 'batched':
    case 'batchedT':
      lines.push(
        `  as = gather(generate((t, n, m, k), lam h, i, j, l: (h, i, l)), a)`,
        `  bs = gather(generate((t, n, m, k), lam h, i, j, l: ${bIndex}), b)`,
        `  return fold(+, ${seed}zipWith(${product}, as, bs))`,
      );
      break;
    case 'indexing': {
      const term = o.product === 'op' ? 'a[i, l] * b[l, j]' : o.product === 'scaled' ? `a[i, l] * b[l, j] * ${w}` : `(a[i, l] + ${e === 'i32' ? '1' : '0.5'}) * b[l, j]`;
      lines.push(`  return fold(+, ${seed}generate((n, m, k), lam i, j, l: ${term}))`);
      break;
    }
    default:
      o.form satisfies never;
  }
  lines.push(`def main(a: ${paramType(e, batched ? 3 : 2)}, b: ${paramType(e, 2)}, jb: i32, bc: i32, c: i32, w: f64, iters: i32):`);
  const operand = o.block ? 'rowBlock(b, jb, bc)' : 'b';
  if (o.control === 'while') {
    // FlashAttention's loop over key blocks: a running sum of the block products.
    lines.push(`  p = contract(a, ${operand}, c, w)`, '  q = 0', '  while q < iters:', `    p = zipWith(+, p, contract(a, ${o.block ? 'rowBlock(b, jb + q, bc)' : 'b'}, c, w))`, '    q = q + 1');
  } else {
    lines.push(`  p = contract(a, ${operand}, c, w)`);
  }
  const rank = batched ? 3 : 2;
  const vars = rank === 3 ? 'h, i, j' : 'i, j';
  const pShape = rank === 3 ? 'ph, pi, pj' : 'pi, pj';
  switch (o.epilogue) {
    case 'none':
      lines.push('  return p');
      break;
    case 'scale':
      lines.push(`  return map(lam x: x * ${w}, p)`);
      break;
    case 'mask':
      // FlashAttention's mask of padding keys: columns at or past `bc` become −inf.
      lines.push(`  ${pShape} = shape(p)`, `  real = generate((${pShape}), lam ${vars}: j < bc)`, `  return zipWith(lam x, isReal: x * ${w} if isReal else -inf, p, real)`);
      break;
    case 'rowmax':
      lines.push(e === 'i32' ? '  return p, fold(max, p)' : '  return p, maximum(p)');
      break;
    case 'softmax': {
      lines.push(
        `  ${pShape} = shape(p)`,
        '  mx = maximum(p)',
        `  spread = gather(generate((${pShape}), lam ${vars}: ${rank === 3 ? '(h, i)' : 'i'}), mx)`,
        '  return zipWith(lam x, m: exp(x - m), p, spread), mx',
      );
      break;
    }
    case 'chain':
      // P·V after Q·Kᵀ: the product's result is the next contraction's left operand.
      lines.push(`  return contract(p, ${transposed ? 'b' : 'transpose(b)'}, c, w)`);
      break;
    default:
      o.epilogue satisfies never;
  }
  return lines.join('\n') + '\n';
}

function contractionInputs(rng: Rng, o: ContractionOptions, sets: number): Record<string, InterfaceValue>[] {
  const special = rng.pick([0, 0, 0.03, 0.1]);
  const out: Record<string, InterfaceValue>[] = [];
  for (let k = 0; k < sets; k++) {
    const small = (): number => rng.weighted<() => number>([
      [3, () => rng.pick([0, 1, 2, 3])],
      [4, () => rng.pick([4, 5, 7])],
      [1, () => rng.pick([8, 9, 12, 13])],
    ])();
    const n = small();
    const kk = small();
    // The chain multiplies p ([.., n, m]) by bᵀ ([m, k]), or (A·Bᵀ) p by bᵀ again, which needs m = k.
    const m = o.epilogue === 'chain' && transposedForm(o.form) ? kk : small();
    const t = rng.pick([1, 2, 3]);
    const aShape = o.form === 'batched' || o.form === 'batchedT' ? [t, n, kk] : [n, kk];
    const bc = o.block ? rng.pick([0, 1, 2, 3, 5]) : 0;
    // With a row block, b's rows are cut to bc rows: contract over bc (or b's columns, A·Bᵀ).
    const transposed = transposedForm(o.form);
    let bShape = transposed ? [m, kk] : [kk, m];
    if (o.block && !transposed) bShape = [rng.pick([1, 2, 4, 7]), m];
    const aShapeFixed = o.block && !transposed ? [...aShape.slice(0, -1), bc] : aShape;
    if (o.block && transposed) bShape = [rng.pick([1, 2, 4, 7]), kk];
    out.push({
      a: randomArray(rng, o.elem, aShapeFixed, special),
      b: randomArray(rng, o.elem, bShape, special),
      jb: i32Scalar(rng.pick([0, 1, 2, 5])),
      bc: i32Scalar(bc),
      c: i32Scalar(rng.pick([1, -2, 3, 2147483647])),
      w: f64Scalar(rng.pick([0.5, -1.5, 3.0, Number.NaN, -0])),
      iters: i32Scalar(rng.int(0, 2)),
    });
  }
  return out;
}

function transposedForm(form: ContractionOptions['form']): boolean {
  return form === 'mmT' || form === 'batchedT';
}

export function randomContraction(rng: Rng, sets = 3): LoopCase {
  const o = contractionOptions(rng);
  return { family: `contraction ${JSON.stringify(o)}`, source: contractionSource(rng, o), inputs: contractionInputs(rng, o, sets) };
}

/** Program `k` of a seed: a stencil or a contraction, with `sets` input sets. */
export function randomLoopCase(rng: Rng, sets = 3): LoopCase {
  return rng.chance(0.6) ? randomStencil(rng, sets) : randomContraction(rng, sets);
}
