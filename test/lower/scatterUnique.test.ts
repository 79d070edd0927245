// Distinct-index scatters (ScatterNode.unique): only the prelude can promise that a scatter's
// indices are distinct (`scatterUnique`, used by filter), the flag survives every stage that
// rebuilds IR (lowering's passes, inlining, the JSON form, the printer, the verifier), the
// interpreter ignores it unless asked to check it, and the check holds for filter on random data
// and catches a broken promise as a CompilerBug naming the node.

import { describe, expect, it } from 'vitest';
import { compile } from '../../src/index.js';
import { CompilerBug } from '../../src/diagnostics/index.js';
import { interpret } from '../../src/interp/index.js';
import { programFromJson, programToJson } from '../../src/ir/json.js';
import { printProgram } from '../../src/ir/printer.js';
import type { Program, ScatterNode } from '../../src/ir/types.js';
import { findIrProblem } from '../../src/ir/verify.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { arr, array, arrayParam, lam, nodes, program, v } from '../ir/builders.js';
import { seededRng } from '../util/rng.js';
import { f64s, lowerError, lowerText, statements } from './helpers.js';

function scatters(p: Program): ScatterNode[] {
  return statements(p).filter((s): s is ScatterNode => s.kind === 'scatter');
}

const filterSource = 'def main(xs: f64[n], t: f64):\n  return filter(lam x: x > t, xs)\n';

describe('lowering marks only the prelude’s distinct-index scatters', () => {
  it('filter’s scatter is unique; a user’s scatter and permute are not', () => {
    const p = lowerText(
      'def main(xs: f64[n], is: i32[n]):\n  a = filter(lam x: x > 0.0, xs)\n  b = scatter(+, xs, zip(is, xs))\n  c = permute(+, xs, lam i: i, xs)\n  return a, b, c\n',
    );
    const flags = scatters(p).map((s) => s.unique);
    expect(flags.filter((f) => f === true)).toHaveLength(1);
    expect(flags.filter((f) => f === undefined)).toHaveLength(2);
    // Absent, not false: the IR and its JSON stay as before for every other scatter.
    for (const s of scatters(p)) if (s.unique !== true) expect('unique' in s).toBe(false);
  });

  it('inlining keeps the flag: filter in a user def called twice and in a while body', () => {
    const p = lowerText(
      'def keep(xs):\n  return filter(lam x: x > 0.5, xs)\n\ndef main(xs: f64[n]):\n  a = keep(xs)\n  b = keep(a)\n  k = 0\n  while k < 2:\n    b = filter(lam x: x < 4.0, b)\n    k = k + 1\n  return b\n',
    );
    const all = scatters(p);
    expect(all.length).toBe(3);
    expect(all.every((s) => s.unique === true)).toBe(true);
  });

  it('the public API’s IR (after every lowering pass) keeps it', () => {
    const p = compile(filterSource).lower();
    expect(scatters(p).map((s) => s.unique)).toEqual([true]);
  });

  it('a user program that names scatterUnique gets E201 at the name, as for any unknown name', () => {
    const e = lowerError('def main(xs: f64[n], is: i32[n]):\n  return scatterUnique(lam o, n: n, xs, zip(is, xs))\n');
    expect(e).toEqual({ code: 'E201', message: "unknown name 'scatterUnique'", at: '2:10' });
  });

  it('a lambda the user passes into the prelude cannot name it either', () => {
    expect(() => lowerText('def main(xs: f64[n]):\n  return filter(lam x: scatterUnique > 0, xs)\n')).toThrow(/unknown name 'scatterUnique'/);
  });

  it('a user def of that name is the user’s own (a plain scatter)', () => {
    const p = lowerText('def scatterUnique(op, d, s):\n  return scatter(op, d, s)\n\ndef main(xs: f64[n], is: i32[n]):\n  return scatterUnique(+, xs, zip(is, xs))\n');
    expect(scatters(p).map((s) => s.unique)).toEqual([undefined]);
  });
});

describe('the flag through the printer, the JSON form and the verifier', () => {
  const p = lowerText(filterSource);

  it('the printer shows it only where it is set', () => {
    const text = printProgram(p);
    expect(text.split('\n').filter((l) => l.includes('= scatter(')).map((l) => /  # \d+ unique$/.test(l))).toEqual([true]);
    const plain = printProgram(lowerText('def main(xs: f64[n], is: i32[n]):\n  return scatter(+, xs, zip(is, xs))\n'));
    expect(plain).not.toContain('unique');
  });

  it('JSON writes it when set and reads it back; files without it read as before', () => {
    const json = programToJson(p);
    expect(json).toContain('"unique":true');
    const back = programFromJson(json, 'p.json');
    expect(scatters(back).map((s) => s.unique)).toEqual([true]);
    expect(printProgram(back)).toBe(printProgram(p));
    const without = programFromJson(json.replace(',"unique":true', ''), 'p.json');
    expect(scatters(without).map((s) => s.unique)).toEqual([undefined]);
  });

  it('JSON `false` reads as no promise; another value is E291 at its path', () => {
    const json = programToJson(p);
    const no = programFromJson(json.replace('"unique":true', '"unique":false'), 'p.json');
    expect('unique' in scatters(no)[0]!).toBe(false);
    expect(() => programFromJson(json.replace('"unique":true', '"unique":1'), 'p.json')).toThrow(/unique: expected a boolean/);
  });

  it('the verifier accepts true and rejects any other value', () => {
    expect(findIrProblem(p)).toBeNull();
    const s = scatters(p)[0]!;
    const broken = { ...p, body: { ...p.body, stmts: p.body.stmts.map((x) => (x === s ? { ...s, unique: false as unknown as true } : x)) } };
    expect(findIrProblem(broken)).toMatch(/unique must be true or absent/);
  });
});

describe('the interpreter’s test-mode check of unique scatters', () => {
  const program1 = lowerText(filterSource);

  /** filter by a plain loop: the expected values, never from the interpreter. */
  function expected(xs: readonly number[], t: number): number[] {
    return xs.filter((x) => x > t);
  }

  const cases: [string, number[], number][] = [
    ['empty', [], 0],
    ['one kept', [1], 0],
    ['one dropped', [1], 2],
    ['all kept', [1, 2, 3, 4, 5], 0],
    ['none kept', [1, 2, 3, 4, 5], 9],
    ['NaN never kept', [NaN, 1, NaN, 3], 0],
  ];
  it.each(cases)('filter passes the check: %s', (_, xs, t) => {
    const [out] = interpret(program1, [f64s(xs), { kind: 'scalar', elem: 'f64', value: t }], { checkUniqueScatters: true });
    expect(Array.from((out as { data: Float64Array }).data)).toEqual(expected(xs, t));
  });

  it('filter passes the check on random inputs', () => {
    const rng = seededRng(12);
    for (let trial = 0; trial < 60; trial++) {
      const n = rng.int(0, 200);
      const xs = Array.from({ length: n }, () => rng.int(-1000, 1000) / 100);
      const t = rng.int(-1200, 1200) / 100;
      const [out] = interpret(program1, [f64s(xs), { kind: 'scalar', elem: 'f64', value: t }], { checkUniqueScatters: true });
      expect(Array.from((out as { data: Float64Array }).data)).toEqual(expected(xs, t));
    }
  });

  it('filter of tuples and filter in a loop pass it', () => {
    const p = lowerText(
      'def main(xs: f64[n], ys: i32[n]):\n  a, b = unzip(filter(lam p: fst(p) > 0.0, zip(xs, ys)))\n  k = 0\n  while k < 3:\n    a = filter(lam x: x < 5.0 - k, a)\n    k = k + 1\n  return a, b\n',
    );
    const [a, b] = interpret(p, [f64s([1, -1, 7, 2, 4.5, 0]), array('i32', [6], [1, 2, 3, 4, 5, 6])], { checkUniqueScatters: true });
    expect(Array.from((a as { data: Float64Array }).data)).toEqual([1, 2]);
    expect(Array.from((b as { data: Int32Array }).data)).toEqual([1, 3, 4, 5]);
  });

  /** A scatter that claims distinct indices: `out = scatter(new, d, is, vs)`, unique. */
  function claimed(): Program {
    const n = nodes(7);
    const d = n.map([arr('d', 'f64', 1)], ['dest'], lam([['x', 'f64']], v('x', 'f64')));
    const s = n.scatter([arr('out', 'f64', 1)], lam([['old', 'f64'], ['new', 'f64']], v('new', 'f64')), ['d'], ['is'], ['vs']);
    return program('claimed', [arrayParam('dest', 'f64', 1), arrayParam('is', 'i32', 1), arrayParam('vs', 'f64', 1)], [d, { ...s, unique: true }], ['out']);
  }
  const inputs = (is: number[]): InterfaceValue[] => [array('f64', [4], [0, 0, 0, 0]), array('i32', [is.length], is), array('f64', [is.length], is.map((i) => i * 10))];

  it('a broken promise is a CompilerBug naming the node and both positions', () => {
    const p = claimed();
    expect(() => interpret(p, inputs([3, 1, 0, 1]), { checkUniqueScatters: true })).toThrow(CompilerBug);
    expect(() => interpret(p, inputs([3, 1, 0, 1]), { checkUniqueScatters: true })).toThrow(/scatter #8 is marked unique, but source positions 1 and 3 both update index 1/);
  });

  it('without the option the flag is ignored (same results as an unmarked scatter)', () => {
    const [out] = interpret(claimed(), inputs([3, 1, 0, 1]));
    expect(Array.from((out as { data: Float64Array }).data)).toEqual([0, 10, 0, 30]);
  });

  it('distinct indices pass; repeated out-of-range indices are the scatter’s own E402, not the check’s', () => {
    const [out] = interpret(claimed(), inputs([3, 0, 2]), { checkUniqueScatters: true });
    expect(Array.from((out as { data: Float64Array }).data)).toEqual([0, 0, 20, 30]);
    expect(() => interpret(claimed(), inputs([9, 0, 9]), { checkUniqueScatters: true })).toThrow(expect.objectContaining({ code: 'E402' }) as unknown as Error);
  });
});
