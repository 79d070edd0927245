// The interior/boundary split on small hand-built ASTs (src/codegen/loops/affine.ts, hoist.ts,
// interior.ts): the affine reading of index code and its side conditions, the index bounds
// against brute force, and the rewritten loops run against the originals (same stores, same
// first error) over sizes where the interior is empty, partial and whole.

import { describe, expect, test } from 'vitest';
import type { JsExpr, JsStmt } from '../../src/codegen/jsast.js';
import { arr, assign, bin, call, cond, constDecl, exprStmt, id, index, letDecl, mathCall, member, num } from '../../src/codegen/jsast.js';
import { indexBound, readMono, type AffineScope, type Constraint, type Rel } from '../../src/codegen/loops/affine.js';
import { interiorPass } from '../../src/codegen/loops/interior.js';
import type { LoopContext } from '../../src/codegen/loops/index.js';
import { printProgramText } from '../../src/codegen/printer.js';

const scope = (indices: string[], written: string[] = []): AffineScope => ({
  isIndex: (n) => indices.includes(n),
  invariant: (e) => e.kind === 'num' || (e.kind === 'id' && !indices.includes(e.name) && !written.includes(e.name)),
  assumeInteger: () => false,
  local: () => null,
});

const or = (a: JsExpr, b: JsExpr): JsExpr => bin('||', a, b);
const outside = (e: JsExpr, n: JsExpr): JsExpr => bin('>=', bin('>>>', e, num(0)), n);
const i32 = (e: JsExpr): JsExpr => bin('|', e, num(0));
const oob = (site: number, ixs: JsExpr[], dims: JsExpr[], at: JsExpr): JsStmt =>
  exprStmt(call(member(id('rt'), 'oob'), [num(site), arr(ixs), arr(dims), at, arr([id('n')])]));
const check = (site: number, ixs: JsExpr[], dims: JsExpr[], at: JsExpr): JsStmt => ({
  kind: 'if',
  test: ixs.map((e, k) => outside(e, dims[k]!)).reduce(or),
  then: [oob(site, ixs, dims, at)],
  else: [],
});
const loop = (index: string, to: JsExpr, body: JsStmt[], down = false): JsStmt => ({ kind: 'for', index, from: num(0), to, down, body });

function context(counters = false): LoopContext {
  let k = 1000;
  return { fastMath: false, counters, fresh: (p) => `${p}${k++}` };
}

describe('affine reading of index code', () => {
  test('2·i + 1 in int32 is affine with its int32 side conditions', () => {
    const side: Constraint[] = [];
    const m = readMono(i32(bin('+', mathCall('imul', [num(2), id('i')]), num(1))), scope(['i']), side);
    expect(m).toEqual({ lin: { idx: 'i', a: 2, b: num(1) }, shift: 0 });
    // imul: i and 2i in int32; `| 0`: 2i + 1 in int32.
    expect(side.map((c) => `${c.a}·i+${JSON.stringify(c.b)} ${c.rel} ${JSON.stringify(c.rhs)}`)).toHaveLength(6);
  });

  test('(f − 1) >> 1 is ⌊(f − 1) / 2⌋', () => {
    const m = readMono(bin('>>', i32(bin('-', id('f'), num(1))), num(1)), scope(['f']), []);
    expect(m).toEqual({ lin: { idx: 'f', a: 1, b: num(-1) }, shift: 1 });
  });

  test('products of two names, two indices, and a `| 0` over a non-integer offset are not read', () => {
    expect(readMono(bin('*', id('i'), id('n')), scope(['i']), [])).toBeNull();
    expect(readMono(bin('+', id('i'), id('j')), scope(['i', 'j']), [])).toBeNull();
    expect(readMono(i32(bin('+', id('i'), num(0.5))), scope(['i']), [])).toBeNull();
    expect(readMono(i32(bin('+', id('i'), id('s'))), scope(['i']), [])).toBeNull();
    // A written name is not invariant.
    expect(readMono(bin('+', id('i'), id('t')), scope(['i'], ['t']), [])).toBeNull();
  });

  test('the bound of a constraint is exactly the integer solutions (brute force)', () => {
    const rels: Rel[] = ['<', '<=', '>', '>='];
    for (const a of [-3, -2, -1, 1, 2, 3]) {
      for (const b of [-4, 0, 2.5, 7]) {
        for (const rhs of [-5, 0, 1, 3.25, 10]) {
          for (const rel of rels) {
            const bound = indexBound({ idx: 'i', a, b: num(b), rel, rhs: num(rhs) });
            expect(bound.value.kind).toBe('num');
            const v = bound.value.kind === 'num' ? bound.value.value : NaN;
            for (let i = -40; i <= 40; i++) {
              const lhs = a * i + b;
              const holds = rel === '<' ? lhs < rhs : rel === '<=' ? lhs <= rhs : rel === '>' ? lhs > rhs : lhs >= rhs;
              expect(bound.side === 'lower' ? i >= v : i < v, `${a}·${i}+${b} ${rel} ${rhs}`).toBe(holds);
            }
          }
        }
      }
    }
  });
});

/** Runs a cluster body as a function of (rt, n, m, s, a, out) and returns its stores or its first error. */
function runBody(stmts: readonly JsStmt[], n: number, m: number, s: number): string {
  const text = printProgramText(stmts);
  const fn = new Function('rt', 'n', 'm', 's', 'a', 'out', text) as (...args: unknown[]) => void;
  const stores: string[] = [];
  const out = new Proxy([] as number[], {
    set(_t, key, value) {
      stores.push(`${String(key)}=${String(value)}`);
      return true;
    },
  });
  const rt = {
    oob(site: number, ixs: number[], dims: number[], at: number) {
      throw new Error(`oob ${site} [${ixs.join(',')}] [${dims.join(',')}] at ${at}`);
    },
  };
  const a = Float64Array.from({ length: Math.max(m, 0) }, (_, k) => k * 1.5 + 1);
  try {
    fn(rt, n, m, s, a, out);
    return stores.join(' ');
  } catch (err) {
    return `${stores.join(' ')} | ${(err as Error).message}`;
  }
}

// out[i] = a[wrap(i − 1)] + a[clamp(i + s)] + a[⌊(i − 1) / 2⌋ or m − 1], each read checked against m.
function stencil(down: boolean): JsStmt[] {
  const i = id('i');
  return [
    loop('i', id('n'), [
      constDecl('g1', cond(cond(bin('>', i, num(0)), num(1), num(0)), i32(bin('-', i, num(1))), i32(bin('-', id('m'), num(1))))),
      check(1, [id('g1')], [id('m')], i),
      constDecl('g2', mathCall('min', [mathCall('max', [i32(bin('+', i, id('s'))), num(0)]), i32(bin('-', id('m'), num(1)))])),
      check(2, [id('g2')], [id('m')], i),
      constDecl('g3', cond(bin('>', i, num(0)), bin('>>', i32(bin('-', i, num(1))), num(1)), i32(bin('-', id('m'), num(1))))),
      check(3, [id('g3')], [id('m')], i),
      assign(index(id('out'), i), bin('+', bin('+', index(id('a'), id('g1')), index(id('a'), id('g2'))), index(id('a'), id('g3')))),
    ], down),
  ];
}

describe('the rewrite', () => {
  test.each([false, true])('a wrapped, clamped and halved stencil stores the same values in the same order, down = %s', (down) => {
    const original = stencil(down);
    const rewritten = interiorPass.run(original, context());
    const text = printProgramText(rewritten);
    // General, interior, general.
    expect(text.match(/for \(let i = /g)).toHaveLength(3);
    for (const n of [0, 1, 2, 3, 4, 5, 9, 16]) {
      for (const m of [0, 1, 2, 3, 5, 9, 16]) {
        for (const s of [0, 1, -1, 3, 2147483647, -2147483648]) {
          expect(runBody(rewritten, n, m, s), `n=${n} m=${m} s=${s}\n${text}`).toBe(runBody(original, n, m, s));
        }
      }
    }
  });

  test('a fault where the interior would be (an unchecked fall-through) is raised at the same point', () => {
    // out[i] = a[i + 2] checked against m: faults from i = m − 2 on, inside the row.
    const i = id('i');
    const original: JsStmt[] = [
      loop('i', id('n'), [constDecl('g', i32(bin('+', i, num(2)))), check(7, [id('g')], [id('m')], i), assign(index(id('out'), i), index(id('a'), id('g')))]),
    ];
    const rewritten = interiorPass.run(original, context());
    expect(printProgramText(rewritten)).toContain('rt.oob(7');
    for (const n of [0, 1, 3, 6, 10]) for (const m of [0, 2, 5, 12]) expect(runBody(rewritten, n, m, 0)).toBe(runBody(original, n, m, 0));
  });

  test('the interior copy hoists the row-invariant flat index and keeps the innermost one', () => {
    // for i { for k { const r = (i > 0 ? i − 1 : n − 1); check r, k; out[(r * n + k)] = a[r * n + k] } }
    const i = id('i');
    const k = id('k');
    const original: JsStmt[] = [
      loop('i', id('n'), [
        loop('k', id('n'), [
          constDecl('r', cond(bin('>', i, num(0)), i32(bin('-', i, num(1))), i32(bin('-', id('n'), num(1))))),
          check(1, [id('r'), k], [id('n'), id('n')], k),
          constDecl('j', bin('+', bin('*', id('r'), id('n')), k)),
          assign(index(id('out'), bin('+', bin('*', i, id('n')), k)), index(id('a'), id('j'))),
        ]),
      ]),
    ];
    const text = printProgramText(interiorPass.run(original, context()));
    const interior = /for \(let k = p\d+; k < q\d+; k\+\+\) \{\n([^]*?)\n {4}\}/.exec(text)![1]!;
    expect(interior).not.toContain('rt.oob');
    expect(interior).not.toContain('?');
    expect(interior).toMatch(/const j\d+ = h\d+ \+ k;/);
    for (const n of [0, 1, 2, 3, 4]) {
      expect(runBody(interiorPass.run(original, context()), n, n * n, 0)).toBe(runBody(original, n, n * n, 0));
    }
  });

  test('two innermost loops of one nest, with statements between them, each get their own interior', () => {
    // for i { const w = wrap(i + 1); out[w] = 0; for k { out[i·n + k] = a[clamp(k − 1)] + a[w] }; for k { out[k] = a[k + s] } }
    const i = id('i');
    const k = id('k');
    const original: JsStmt[] = [
      loop('i', id('n'), [
        constDecl('w', cond(bin('<', i, i32(bin('-', id('m'), num(1)))), i32(bin('+', i, num(1))), num(0))),
        check(1, [id('w')], [id('m')], i),
        loop('k', id('n'), [
          constDecl('c', mathCall('max', [i32(bin('-', k, num(1))), num(0)])),
          check(2, [id('c')], [id('m')], k),
          check(3, [id('w')], [id('m')], k),
          assign(index(id('out'), bin('+', bin('*', i, id('n')), k)), bin('+', index(id('a'), id('c')), index(id('a'), id('w')))),
        ]),
        loop('k', id('n'), [
          constDecl('e', i32(bin('+', k, id('s')))),
          check(4, [id('e')], [id('m')], k),
          assign(index(id('out'), k), index(id('a'), id('e'))),
        ]),
      ]),
    ];
    const rewritten = interiorPass.run(original, { ...context(), fresh: context().fresh });
    const text = printProgramText(rewritten);
    expect(text.match(/for \(let k = p\d+; k < q\d+; k\+\+\)/g)).toHaveLength(2);
    for (const n of [0, 1, 2, 3, 5, 8]) {
      for (const m of [0, 1, 3, 8, 70]) {
        for (const s of [0, 2, -1, 2147483647]) expect(runBody(rewritten, n, m, s), `n=${n} m=${m} s=${s}`).toBe(runBody(original, n, m, s));
      }
    }
  });

  test('a clamp against −0 folds only where the sign of a zero cannot differ', () => {
    // out[i] = 1 / Math.min(i − 1 | 0, −0): −∞ at i = 1 (min(+0, −0) is −0), where E alone is +0.
    const i = id('i');
    for (const bound of [num(-0), num(0), i32(bin('-', id('m'), num(1)))]) {
      const original: JsStmt[] = [
        loop('i', id('n'), [assign(index(id('out'), i), bin('/', num(1), mathCall('min', [i32(bin('-', i, num(1))), bound])))]),
        loop('i', id('n'), [assign(index(id('out'), i), bin('/', num(1), mathCall('max', [i32(bin('-', num(1), i)), bound])))]),
      ];
      const rewritten = interiorPass.run(original, context());
      expect(printProgramText(rewritten)).toMatch(/for \(let i = p\d+; i < q\d+; i\+\+\)/);
      for (const n of [0, 1, 2, 3, 6]) for (const m of [0, 1, 4]) expect(runBody(rewritten, n, m, 0)).toBe(runBody(original, n, m, 0));
    }
  });

  test('code it does not recognise, bodies that break, and the counters variant are left as they are', () => {
    const i = id('i');
    const plain: JsStmt[] = [loop('i', id('n'), [assign(index(id('out'), i), index(id('a'), bin('*', i, id('n'))))])];
    expect(interiorPass.run(plain, context())).toEqual(plain);
    const breaks: JsStmt[] = [
      loop('i', id('n'), [constDecl('g', i32(bin('+', i, num(1)))), check(1, [id('g')], [id('m')], i), { kind: 'break' }]),
    ];
    expect(interiorPass.run(breaks, context())).toEqual(breaks);
    expect(interiorPass.run(stencil(false), context(true))).toEqual(stencil(false));
    // A loop whose bound the body writes.
    const moving: JsStmt[] = [
      letDecl('t', id('n')),
      loop('i', id('t'), [constDecl('g', i32(bin('+', i, num(1)))), check(1, [id('g')], [id('m')], i), assign(id('t'), bin('-', id('t'), num(1)))]),
    ];
    expect(interiorPass.run(moving, context())).toEqual(moving);
  });
});
