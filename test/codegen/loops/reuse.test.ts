// The reuse passes on hand-built loop nests shaped like the interior pass's output (no checks,
// row bases hoisted, loads at `base + k + c`): rotate.ts (loads carried across iterations) and
// block.ts (unroll-and-jam of a loop over outputs around a fold). Each legal case runs the
// original and the rewritten statements on the same inputs — extents 0 to 5 (not multiples of
// the block), NaN, -0 and infinities — and compares the outputs' bytes; each illegal case must
// come back unchanged.

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { assign, bin, call, constDecl, exprStmt, id, index, letDecl, mathCall, member, num, type JsExpr, type JsStmt } from '../../../src/codegen/jsast.js';
import { printProgramText } from '../../../src/codegen/printer.js';
import { blockLoop, blockPass } from '../../../src/codegen/loops/block.js';
import type { LoopContext } from '../../../src/codegen/loops/index.js';
import { rotatePass } from '../../../src/codegen/loops/rotate.js';

let counter = 1000;
const context = (counters = false): LoopContext => ({ fastMath: false, counters, fresh: (p) => `${p}${counter++}` });

const plus = (a: JsExpr, b: JsExpr): JsExpr => bin('+', a, b);
const times = (a: JsExpr, b: JsExpr): JsExpr => bin('*', a, b);
const at = (a: string, e: JsExpr): JsExpr => index(id(a), e);
const up = (i: string, from: JsExpr, to: JsExpr, body: JsStmt[]): JsStmt => ({ kind: 'for', index: i, from, to, down: false, body });
const fault = (): JsStmt => exprStmt(call(member(id('rt'), 'oob'), [num(1), id('k')]));

/** The statements as a function of `params`, run with a runtime whose `oob` throws its arguments. */
function run(stmts: readonly JsStmt[], params: string[], args: unknown[]): unknown {
  const f = new Function('rt', ...params, printProgramText(stmts)) as (...a: unknown[]) => unknown;
  const rt = {
    oob: (...a: unknown[]): never => {
      throw new Error(`oob ${JSON.stringify(a)}`);
    },
  };
  try {
    f(rt, ...args);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

const bytes = (a: Float64Array | Int32Array): number[] => [...new Uint8Array(a.buffer)];
const specials = [NaN, -0, Infinity, -Infinity, 1.5, -2.25, 1e308, 3];
const fill = (n: number, seed: number): Float64Array => Float64Array.from({ length: n }, (_, i) => specials[(i * 7 + seed) % specials.length]! + (i % 3) * 0.1);
/** The rotated loop: inside the `if` that runs it only when it runs at least once. */
function rotatedLoop(stmts: readonly JsStmt[]): Extract<JsStmt, { kind: 'for' }> {
  const guarded = stmts.find((s) => s.kind === 'if');
  const loop = guarded?.kind === 'if' ? guarded.then.find((s) => s.kind === 'for') : undefined;
  if (loop?.kind !== 'for') throw new Error('no rotated loop');
  return loop;
}
const loadsIn = (stmts: readonly JsStmt[], array: string): number => (printProgramText(stmts).match(new RegExp(`\\b${array}\\[`, 'g')) ?? []).length;

// ---- rotate ------------------------------------------------------------------------------------

/** for (k = 1; k < n + 1; k++) { out[b + k] = a[b + k - 1] + 2 * a[b + k] + a[b + k + 1] (offsets chosen by the caller) } */
function stencil(options: { offsets?: number[]; store?: string; conditional?: boolean; faultAt?: boolean } = {}): JsStmt[] {
  const offsets = options.offsets ?? [-1, 0, 1];
  const body: JsStmt[] = [constDecl('p', plus(id('b'), id('k')))];
  if (options.faultAt === true) body.push({ kind: 'if', test: bin('===', id('k'), id('bad')), then: [fault()], else: [] });
  offsets.forEach((c, j) => {
    const ix = c === 0 ? id('p') : c > 0 ? plus(plus(id('b'), id('k')), num(c)) : bin('-', plus(id('b'), id('k')), num(-c));
    body.push(constDecl(`x${j}`, at('a', ix)));
  });
  let sum: JsExpr = id('x0');
  offsets.slice(1).forEach((_, j) => (sum = plus(sum, times(num(j + 2), id(`x${j + 1}`)))));
  if (options.conditional === true) {
    body.push({ kind: 'if', test: bin('>', id('k'), num(2)), then: [assign(at(options.store ?? 'out', id('p')), at('a', plus(id('p'), num(2))))], else: [] });
  }
  body.push(assign(at(options.store ?? 'out', id('p')), sum));
  return [constDecl('b', times(id('row'), num(2))), up('k', num(1), plus(id('n'), num(1)), body)];
}

function runStencil(stmts: readonly JsStmt[], n: number, bad = -1): { out: number[]; a: number[]; error: unknown } {
  const a = fill(2 * 3 + n + 8, 1);
  const out = new Float64Array(2 * 3 + n + 8);
  const error = run(stmts, ['a', 'out', 'n', 'row', 'bad'], [a, out, n, 3, bad]);
  return { out: bytes(out), a: bytes(a), error };
}

/** const h1 = row * 2, h2 = row * 2; for (k) { const m = k - 1 | 0, p = k + 1 | 0; out[h1 + k] = a[h1 + m] + a[h2 + k] * 2 + a[h2 + p] } */
function wrappedStencil(): JsStmt[] {
  const body: JsStmt[] = [
    constDecl('m', bin('|', bin('-', id('k'), num(1)), num(0))),
    constDecl('p', bin('|', plus(id('k'), num(1)), num(0))),
    assign(at('out', plus(id('h1'), id('k'))), plus(plus(at('a', plus(id('h1'), id('m'))), times(at('a', plus(id('h2'), id('k'))), num(2))), at('a', plus(id('h2'), id('p'))))),
  ];
  return [constDecl('h1', times(id('row'), num(2))), constDecl('h2', times(id('row'), num(2))), up('k', num(1), plus(id('n'), num(1)), body)];
}

describe('rotate: loads carried across iterations', () => {
  test('three offsets of one row: one load per iteration, the same bytes for 0..5 points', () => {
    const original = stencil();
    const rotated = rotatePass.run(original, context());
    expect(rotated).not.toEqual(original);
    expect(loadsIn(rotatedLoop(rotated).body, 'a')).toBe(1);
    for (let n = 0; n <= 5; n++) expect(runStencil(rotated, n)).toEqual(runStencil(original, n));
  });

  test('offsets with a gap (-2, +1) and a wide one (+3)', () => {
    for (const offsets of [[-2, 1], [0, 3], [3, -1, 0]]) {
      const original = stencil({ offsets });
      const rotated = rotatePass.run(original, context());
      expect(rotated).not.toEqual(original);
      for (let n = 0; n <= 5; n++) expect(runStencil(rotated, n)).toEqual(runStencil(original, n));
    }
  });

  test('a fault in the body: the same error at the same point', () => {
    const original = stencil({ faultAt: true });
    const rotated = rotatePass.run(original, context());
    expect(rotated).not.toEqual(original);
    for (let n = 0; n <= 5; n++) for (let bad = 0; bad <= n + 1; bad++) expect(runStencil(rotated, n, bad)).toEqual(runStencil(original, n, bad));
  });

  test('wrapped neighbours ((k ± 1) | 0) on two names of one row base, as the interior pass leaves them', () => {
    const original = wrappedStencil();
    const rotated = rotatePass.run(original, context());
    // Guarded: where k ± 1 cannot wrap (an integer start, int32 ends) the three offsets are one
    // row and one load remains; elsewhere the original loop runs.
    expect(loadsIn(rotatedLoop(rotated).body, 'a')).toBe(1);
    // Cluster functions see `Math` (and `Atomics`) as their only globals (program.ts freeIds).
    expect(printProgramText(rotated)).not.toMatch(/\b(Number|Object|globalThis)\b/);
    for (let n = 0; n <= 5; n++) expect(runStencil(rotated, n)).toEqual(runStencil(original, n));
    // Starts where the guard fails: not an integer, or past int32 (the wrap is then real).
    const [h1, h2, forLoop] = original;
    for (const from of [0.5, 2147483647, -2147483648]) {
      if (forLoop?.kind !== 'for') throw new Error('no loop');
      const moved: JsStmt[] = [h1!, h2!, { ...forLoop, from: num(from), to: plus(num(from), id('n')) }];
      const text = rotatePass.run(moved, context());
      for (let n = 0; n <= 3; n++) expect(runStencil(text, n)).toEqual(runStencil(moved, n));
    }
  });

  test('one base name declared twice with different values is not taken for the other base', () => {
    const [h1, h2, loop] = wrappedStencil();
    if (loop?.kind !== 'for' || h1 === undefined || h2 === undefined) throw new Error('no loop');
    // h2 is row * 2 in the scope of the loop, but row * 3 in another block: not the same as h1.
    const other: JsStmt = { kind: 'block', body: [constDecl('h2', times(id('row'), num(3)))] };
    const original: JsStmt[] = [other, h1, h2, loop];
    // h2's offsets 0 and +1 still rotate; h1's -1 stays its own load.
    expect(loadsIn(rotatedLoop(rotatePass.run(original, context())).body, 'a')).toBe(2);
    for (let n = 0; n <= 4; n++) expect(runStencil(rotatePass.run(original, context()), n)).toEqual(runStencil(original, n));
  });

  test('a store to the loaded array: unchanged', () => {
    const original = stencil({ store: 'a' });
    expect(rotatePass.run(original, context())).toEqual(original);
  });

  test('a load under a condition stays a load; the others still rotate', () => {
    const original = stencil({ conditional: true });
    const rotated = rotatePass.run(original, context());
    // The fresh load of offset +1 and the conditional one of offset +2.
    expect(loadsIn(rotatedLoop(rotated).body, 'a')).toBe(2);
    for (let n = 0; n <= 5; n++) expect(runStencil(rotated, n)).toEqual(runStencil(original, n));
  });

  test('one offset only, the counters variant, a downward loop: unchanged', () => {
    const single = stencil({ offsets: [1] });
    expect(rotatePass.run(single, context())).toEqual(single);
    const original = stencil();
    expect(rotatePass.run(original, context(true))).toEqual(original);
    const down = original.map((s) => (s.kind === 'for' ? { ...s, down: true } : s));
    expect(rotatePass.run(down, context())).toEqual(down);
  });

  test('a base the loop changes: unchanged', () => {
    const [, loop] = stencil();
    if (loop?.kind !== 'for') throw new Error('no loop');
    const changed: JsStmt[] = [letDecl('b', num(0)), { ...loop, body: [...loop.body, assign(id('b'), plus(id('b'), num(1)))] }];
    expect(rotatePass.run(changed, context())).toEqual(changed);
  });
});

// ---- block -------------------------------------------------------------------------------------

interface ContractionOptions {
  /** A fault call in pre, the fold or post. */
  fault?: 'pre' | 'fold' | 'post' | 'pre+post';
  /** The fold stores (into `out`). */
  foldStore?: boolean;
  /** Post stores into the array the fold loads (`q`). */
  postStoresLoaded?: boolean;
  /** The carried maximum is read in pre. */
  carriedInPre?: boolean;
  /** The fold's bound depends on the output index. */
  foldBoundOnC?: boolean;
  /** Both operands depend on the output index (nothing shared). */
  nothingShared?: boolean;
  /** i32 elements: products and sums wrap (Math.imul, | 0). */
  i32?: boolean;
}

/**
 * for (r < rows) { const qr = r * d; let mx = -inf;
 *   for (c < cols) { const kr = c * d; let acc = 0;
 *     for (k < d) { const x = q[qr + k]; const y = kk[kr + k]; acc = acc + x * y }
 *     out[r * cols + c] = acc * 0.5; mx = Math.max(mx, acc) }
 *   rowMax[r] = mx }
 */
function contraction(o: ContractionOptions = {}): JsStmt[] {
  const product = o.i32 === true ? mathCall('imul', [id('x'), id('y')]) : times(id('x'), id('y'));
  const sum = o.i32 === true ? bin('|', plus(id('acc'), product), num(0)) : plus(id('acc'), product);
  const fold: JsStmt[] = [
    constDecl('x', at('q', plus(id(o.nothingShared === true ? 'qc' : 'qr'), id('k')))),
    constDecl('y', at('kk', plus(id('kr'), id('k')))),
    assign(id('acc'), sum),
  ];
  if (o.fault === 'fold') fold.push({ kind: 'if', test: bin('===', id('k'), id('bad')), then: [fault()], else: [] });
  if (o.foldStore === true) fold.push(assign(at('out', id('k')), id('acc')));
  const pre: JsStmt[] = [constDecl('kr', times(id('c'), id('d'))), letDecl('acc', o.carriedInPre === true ? id('mx') : num(0))];
  if (o.nothingShared === true) pre.push(constDecl('qc', plus(id('qr'), times(id('c'), num(0)))));
  if (o.fault === 'pre' || o.fault === 'pre+post') pre.push({ kind: 'if', test: bin('===', id('c'), id('bad')), then: [fault()], else: [] });
  const post: JsStmt[] = [
    assign(at(o.postStoresLoaded === true ? 'q' : 'out', plus(times(id('r'), id('cols')), id('c'))), o.i32 === true ? id('acc') : times(id('acc'), num(0.5))),
    assign(id('mx'), mathCall('max', [id('mx'), id('acc')])),
  ];
  if (o.fault === 'post' || o.fault === 'pre+post') post.push({ kind: 'if', test: bin('===', id('c'), plus(id('bad'), num(1))), then: [fault()], else: [] });
  const foldTo = o.foldBoundOnC === true ? bin('-', id('d'), bin('%', id('c'), num(2))) : id('d');
  return [
    up('r', num(0), id('rows'), [
      constDecl('qr', times(id('r'), id('d'))),
      letDecl('mx', bin('/', num(-1), num(0))),
      up('c', num(0), id('cols'), [...pre, up('k', num(0), foldTo, fold), ...post]),
      assign(at('rowMax', id('r')), id('mx')),
    ]),
  ];
}

function runContraction(stmts: readonly JsStmt[], rows: number, cols: number, d: number, o: ContractionOptions = {}, bad = -1): unknown {
  const make = (n: number, seed: number): Float64Array | Int32Array =>
    o.i32 === true ? Int32Array.from({ length: n }, (_, i) => ((i + seed) * 0x3fffffff) | 0) : fill(n, seed);
  const q = make(rows * d + 1, 2);
  const kk = make(cols * d + 1, 5);
  const out = o.i32 === true ? new Int32Array(rows * cols + d + 1) : new Float64Array(rows * cols + d + 1);
  const rowMax = new Float64Array(rows);
  const error = run(stmts, ['q', 'kk', 'out', 'rowMax', 'rows', 'cols', 'd', 'bad'], [q, kk, out, rowMax, rows, cols, d, bad]);
  return { out: bytes(out), rowMax: bytes(rowMax), q: bytes(q), error };
}

/**
 * The interior pass's shape: the fold split into a general part [0, p), the interior [p, q) and
 * a general part [q, d), where p = q = d for outputs c ≥ inside (no interior) and the general
 * parts raise an error at k = bad; a check in pre whose test does not depend on c.
 */
function splitContraction(): JsStmt[] {
  const general = (from: JsExpr, to: JsExpr): JsStmt =>
    up('k', from, to, [
      { kind: 'if', test: bin('===', id('k'), id('bad')), then: [fault()], else: [] },
      constDecl('gx', at('q', plus(id('qr'), id('k')))),
      constDecl('gy', at('kk', plus(times(id('c'), id('d')), id('k')))),
      assign(id('acc'), plus(id('acc'), times(id('gx'), id('gy')))),
    ]);
  const inside = bin('<', id('c'), id('inside'));
  return [
    up('r', num(0), id('rows'), [
      constDecl('qr', times(id('r'), id('d'))),
      letDecl('mx', bin('/', num(-1), num(0))),
      up('c', num(0), id('cols'), [
        { kind: 'if', test: bin('===', id('r'), id('badRow')), then: [fault()], else: [] },
        letDecl('acc', num(0)),
        {
          kind: 'block',
          body: [
            constDecl('p', { kind: 'cond', test: inside, then: num(0), else: id('d') }),
            constDecl('pq', { kind: 'cond', test: inside, then: id('d'), else: id('d') }),
            general(num(0), id('p')),
            constDecl('hq', id('qr')),
            constDecl('hk', times(id('c'), id('d'))),
            up('k', id('p'), id('pq'), [
              constDecl('x', at('q', plus(id('hq'), id('k')))),
              constDecl('y', at('kk', plus(id('hk'), id('k')))),
              assign(id('acc'), plus(id('acc'), times(id('x'), id('y')))),
            ]),
            general(id('pq'), id('d')),
          ],
        },
        assign(at('out', plus(times(id('r'), id('cols')), id('c'))), id('acc')),
        assign(id('mx'), mathCall('max', [id('mx'), id('acc')])),
      ]),
      assign(at('rowMax', id('r')), id('mx')),
    ]),
  ];
}

describe('block: unroll-and-jam of contractions', () => {
  const variants: [string, ContractionOptions][] = [['f64', {}], ['i32 (wrapping)', { i32: true }], ['a fault in post', { fault: 'post' }]];
  test.each(variants)('%s: blocked by four, the same bytes for every extent 0..5 and a remainder', (_, o) => {
    const original = contraction(o);
    const blocked = blockPass.run(original, context());
    expect(blocked).not.toEqual(original);
    // The shared operand is loaded once per k for four outputs: one load of q in the jammed fold.
    const text = printProgramText(blocked);
    expect(text.match(/\bq\[/g)?.length).toBe(2);
    for (const rows of [0, 1, 2])
      for (let cols = 0; cols <= 9; cols++)
        for (const d of [0, 1, 3]) {
          const bads = o.fault === undefined ? [-1] : [-1, 0, 2, 4, 5, 8];
          for (const bad of bads) expect(runContraction(blocked, rows, cols, d, o, bad)).toEqual(runContraction(original, rows, cols, d, o, bad));
        }
  });

  const refused: [string, ContractionOptions][] = [
    ['a fault in the fold', { fault: 'fold' }],
    ['a fault in pre (it would run before earlier outputs\' stores)', { fault: 'pre' }],
    ['faults in both pre and post', { fault: 'pre+post' }],
    ['a store in the fold', { foldStore: true }],
    ['post stores into an array the fold loads', { postStoresLoaded: true }],
    ['a carried accumulator read in pre', { carriedInPre: true }],
    ['a fold bound that depends on the output', { foldBoundOnC: true }],
    ['no operand shared between outputs', { nothingShared: true }],
  ];
  test.each(refused)('%s: unchanged', (_, o) => {
    const original = contraction(o);
    expect(blockPass.run(original, context())).toEqual(original);
  });

  test("the interior pass's split fold: jammed where every copy is all interior, in order elsewhere; same bytes and first error", () => {
    const original = splitContraction();
    const blocked = blockPass.run(original, context());
    expect(blocked).not.toEqual(original);
    const text = printProgramText(blocked);
    expect(text).toContain('} else {');
    const runSplit = (stmts: readonly JsStmt[], rows: number, cols: number, d: number, inside: number, bad: number, badRow: number): unknown => {
      const q = fill(rows * d + 1, 2);
      const kk = fill(cols * d + 1, 5);
      const out = new Float64Array(rows * cols + 1);
      const rowMax = new Float64Array(rows);
      const error = run(stmts, ['q', 'kk', 'out', 'rowMax', 'rows', 'cols', 'd', 'inside', 'bad', 'badRow'], [q, kk, out, rowMax, rows, cols, d, inside, bad, badRow]);
      return { out: bytes(out), rowMax: bytes(rowMax), error };
    };
    for (const rows of [1, 2])
      for (let cols = 0; cols <= 9; cols++)
        for (const d of [0, 1, 3])
          for (const inside of [0, 2, 4, 5, 9])
            for (const bad of [-1, 0, 2])
              for (const badRow of [-1, 1]) expect(runSplit(blocked, rows, cols, d, inside, bad, badRow)).toEqual(runSplit(original, rows, cols, d, inside, bad, badRow));
  });

  test('the counters variant: unchanged', () => {
    const original = contraction();
    expect(blockPass.run(original, context(true))).toEqual(original);
  });

  test('a loop with no fold inside, or two loops inside: not blocked', () => {
    const flat = up('c', num(0), id('n'), [assign(at('out', id('c')), at('q', id('c')))]);
    expect(blockLoop(flat, context())).toBeNull();
    const [outer] = contraction();
    if (outer?.kind !== 'for') throw new Error('no loop');
    const two = up('z', num(0), id('n'), [outer, outer]);
    expect(blockLoop(two, context())).toBeNull();
  });
});

// Golden text of both rewrites on interior-shaped nests (the real programs' goldens change when
// the interior pass lands). Refresh with `UPDATE_GOLDEN=1 npx vitest run test/codegen/loops/reuse.test.ts`.
describe('golden rewrites', () => {
  const update = process.env['UPDATE_GOLDEN'] === '1';
  const golden = (name: string, before: readonly JsStmt[], after: readonly JsStmt[]): void => {
    const path = fileURLToPath(new URL(`./golden/${name}.js`, import.meta.url));
    const text = `// before\n${printProgramText(before)}// after\n${printProgramText(after)}`;
    if (update) writeFileSync(path, text);
    expect(text).toBe(readFileSync(path, 'utf8'));
  };
  test('a stencil row with wrapped neighbours (rotate)', () => {
    counter = 1000;
    const original = wrappedStencil();
    golden('stencil', original, rotatePass.run(original, context()));
  });
  test("a contraction split by the interior pass (block)", () => {
    counter = 1000;
    const original = splitContraction();
    golden('contraction', original, blockPass.run(original, context()));
  });
});
