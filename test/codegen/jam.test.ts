// Unroll-and-jam of loops over rows (codegen/jam.ts): when it applies, and that jammed code
// computes what the interpreter computes, raising the same first error, for every row count
// (multiples of four and the rows left over).

import { describe, expect, test } from 'vitest';
import { UserError } from '../../src/diagnostics/index.js';
import { Compiler, type Execution } from '../../src/driver/index.js';
import { jamRows } from '../../src/codegen/jam.js';
import { assign, bin, call, constDecl, exprStmt, id, index, letDecl, member, num, type JsStmt } from '../../src/codegen/jsast.js';
import { printProgramText } from '../../src/codegen/printer.js';
import { array } from '../ir/builders.js';
import { expectSameValues } from '../runtime/equal.js';

let counter = 100;
const fresh = (p: string): string => `${p}${counter++}`;

/** for (i < n) { let acc = 0; for (j < m) { acc = acc + src[i * m + j] } ; dst[i] = acc } */
function foldNest(options: { innerCall?: boolean; dst?: string; innerTo?: string } = {}): JsStmt {
  const load = index(id('src'), bin('+', bin('*', id('i'), id('m')), id('j')));
  const inner: JsStmt[] = [assign(id('acc'), bin('+', id('acc'), load))];
  if (options.innerCall === true) inner.push(exprStmt(call(member(id('rt'), 'count'), [num(0), num(0)])));
  return {
    kind: 'for',
    index: 'i',
    from: num(0),
    to: id('n'),
    down: false,
    body: [
      constDecl('w', bin('*', id('i'), num(2))),
      letDecl('acc', num(0)),
      { kind: 'for', index: 'j', from: num(0), to: id(options.innerTo ?? 'm'), down: false, body: inner },
      assign(index(id(options.dst ?? 'dst'), id('i')), id('acc')),
    ],
  };
}

describe('when rows are jammed', () => {
  test('a fold nest: four rows per iteration, the rest in the original loop', () => {
    const jammed = jamRows(foldNest(), fresh);
    expect(jammed).not.toBeNull();
    const text = printProgramText(jammed!);
    expect(text).toMatch(/^const q\d+ = \(n - n % 4\) \/ 4;\nfor \(let k\d+ = 0; k\d+ < q\d+; k\d+\+\+\) \{\n\s+const i = k\d+ \* 4;/);
    expect(text.match(/acc\d* = acc\d* \+ src\[/g)).toHaveLength(5);
    expect(text).toMatch(/for \(let i = q\d+ \* 4; i < n; i\+\+\)/);
  });

  test.each([
    ['the inner loop calls the runtime (an error site or a counter)', foldNest({ innerCall: true })],
    ['an array is written and read in the nest (a scatter updates in place)', foldNest({ dst: 'src' })],
    ['the inner bound depends on the row', foldNest({ innerTo: 'w' })],
    ['there is no inner loop', { kind: 'for', index: 'i', from: num(0), to: id('n'), down: false, body: [assign(index(id('dst'), id('i')), num(1))] } as JsStmt],
  ])('not when %s', (_, nest) => {
    expect(jamRows(nest, fresh)).toBeNull();
  });
});

describe('jammed folds against the interpreter', () => {
  const source = ['def f(xs, n, m):', '  is = generate((n, m), lam(i, j): i)', '  large = gather(is, xs)', '  ys = fold(+, large)', '  zs = fold(*, large)', '  return zipWith(+, ys, zs)', ''].join('\n');
  const compiler = new Compiler(source, { fileName: 'jam.fuse' });
  const inputs = (n: number, m: number, xs: readonly number[]) => ({
    xs: array('f64', [xs.length], xs),
    n: { kind: 'scalar', elem: 'i32', value: n } as const,
    m: { kind: 'scalar', elem: 'i32', value: m } as const,
  });
  const settle = (p: Promise<Execution>): Promise<Execution | UserError> => p.then((e) => e, (e: unknown) => {
    if (e instanceof UserError) return e;
    throw e;
  });

  test('every row count from 0 to 9 and short rows give the interpreter values', async () => {
    const xs = Array.from({ length: 9 }, (_, i) => 1 + i / 7);
    for (let n = 0; n <= 9; n++) {
      for (const m of [0, 1, 3]) {
        const fused = await settle(compiler.execute(inputs(n, m, xs), { strategy: 'ilp' }));
        const reference = await settle(compiler.execute(inputs(n, m, xs), { interpret: true }));
        expect(fused).not.toBeInstanceOf(UserError);
        expectSameValues((fused as Execution).results, (reference as Execution).results, `n=${n} m=${m}`);
        if (n === 9 && m === 3) expect((fused as Execution).run!.stats.clusters.length).toBeGreaterThan(0);
      }
    }
  });

  test('the first bad row inside a group of four is the one reported', async () => {
    // Rows 6 and 7 are out of range; both lie in the second group of four rows.
    const fused = await settle(compiler.execute(inputs(9, 2, [1, 2, 3, 4, 5, 6]), { strategy: 'ilp' }));
    const reference = await settle(compiler.execute(inputs(9, 2, [1, 2, 3, 4, 5, 6]), { interpret: true }));
    expect(fused).toBeInstanceOf(UserError);
    expect((fused as UserError).diagnostics[0]!.message).toContain('index 6 is out of range');
    expect((fused as UserError).diagnostics).toEqual((reference as UserError).diagnostics);
  });

  test('the plan fuses the folds with the gather, so the jammed nest is what ran', async () => {
    const exe = await compiler.execute(inputs(8, 2, [1, 2, 3, 4, 5, 6, 7, 8]), { strategy: 'ilp' });
    expect(exe.plan!.root.clusters.some((c) => c.manifest.length === 1 && c.nodes.length >= 3)).toBe(true);
  });
});
