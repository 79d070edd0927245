// Compile-time knowledge through run-time control flow: a `while` loop whose body keeps the
// static shapes (and static scalars) of what it carries lets compile-time decisions inside and
// after it see them; a loop that changes them still lowers, knowing less. Also: the notes of
// E206/E204 say which input shape is unknown and which --shape would make it known.

import { describe, expect, test } from 'vitest';
import { UserError, diagnosticPosition } from '../../src/diagnostics/index.js';
import type { InputSignature } from '../../src/lower/index.js';
import type { Program } from '../../src/ir/types.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { contents, f64s, kinds, lowerError, lowerText, run, scalar, statements } from './helpers.js';

const f64 = (...shape: number[]): InputSignature => ({ kind: 'array', elem: 'f64', shape });
const i32: InputSignature = { kind: 'scalar', elem: 'i32' };

/** The program of the task's reproduction: a compile-time `if` on the size of a carried array. */
const bumpLoop = `
def bump(xs):
  if size(xs) > 1:
    return map(lam x: x + 1.0, xs)
  else:
    return xs
def main(xs: f64[n], k: i32):
  it = 0
  while it < k:
    xs = bump(xs)
    it = it + 1
  return xs
`;

function runOne(p: Program, inputs: readonly InterfaceValue[]): number[] {
  return contents(run(p, inputs)[0]!);
}

/** The block params of the program's only top-level while loop. */
function loopParams(p: Program): string[] {
  const w = p.body.stmts.find((s) => s.kind === 'while');
  if (w?.kind !== 'while') throw new Error('no while loop');
  return w.body.params.map((v) => `${v.kind}:${v.name}`);
}

/** All notes of a lowering error, with its code and position. */
function lowerNotes(text: string, signature?: Readonly<Record<string, InputSignature>>): { code: string; at: string; notes: readonly string[] } {
  try {
    lowerText(text, signature === undefined ? {} : { signature });
  } catch (e) {
    if (e instanceof UserError) {
      const d = e.diagnostics[0]!;
      return { code: d.code, at: diagnosticPosition(d), notes: d.notes ?? [] };
    }
    throw e;
  }
  throw new Error('expected a lowering error');
}

describe('a while loop keeps the static shapes its body preserves', () => {
  test('the reproduction lowers: the size test inside the loop is decided at compile time', () => {
    const p = lowerText(bumpLoop, { signature: { xs: f64(4), k: i32 } });
    expect(kinds(p)).toEqual({ while: 1, map: 1, scalar: 3 });
    expect(statements(p).some((s) => s.kind === 'if')).toBe(false);
  });

  test.each([
    [0, [1, 2, 3, 4]],
    [1, [2, 3, 4, 5]],
    [2, [3, 4, 5, 6]],
    [5, [6, 7, 8, 9]],
  ])('the reproduction with k=%i adds k to every element', (k, want) => {
    const p = lowerText(bumpLoop, { signature: { xs: f64(4), k: i32 } });
    expect(runOne(p, [f64s([1, 2, 3, 4]), scalar('i32', k)])).toEqual(want);
  });

  test('with a one-element input the static if takes the other branch: no map at all', () => {
    const p = lowerText(bumpLoop, { signature: { xs: f64(1), k: i32 } });
    expect(kinds(p).map).toBeUndefined();
    expect(runOne(p, [f64s([7]), scalar('i32', 3)])).toEqual([7]);
  });

  test('the loop output keeps the shape: a compile-time if after the loop is decided too', () => {
    const src = bumpLoop.replace(/ {2}return xs\n$/, '  return bump(xs)\n');
    expect(src).not.toBe(bumpLoop);
    const p = lowerText(src, { signature: { xs: f64(3), k: i32 } });
    expect(statements(p).some((s) => s.kind === 'if')).toBe(false);
    expect(runOne(p, [f64s([0, 0, 0]), scalar('i32', 2)])).toEqual([3, 3, 3]);
  });

  test('a loop that changes the shape still lowers and runs, with the shape unknown', () => {
    const src = `
def main(xs: f64[n], k: i32):
  while size(xs) < k:
    m = size(xs)
    xs = generate(2 * m, lam i: xs[i % m] * 2.0)
  return xs
`;
    const p = lowerText(src, { signature: { xs: f64(2), k: i32 } });
    expect(kinds(p)).toMatchObject({ while: 1, generate: 1 });
    expect(runOne(p, [f64s([1, 2]), scalar('i32', 5)])).toEqual([4, 8, 4, 8, 4, 8, 4, 8]);
    expect(runOne(p, [f64s([1, 2]), scalar('i32', 0)])).toEqual([1, 2]);
  });

  test('a compile-time if on a shape the loop changes is still an error (E206)', () => {
    const src = `
def bump(xs):
  if size(xs) > 1:
    return map(lam x: x + 1.0, xs)
  return xs
def main(xs: f64[n], k: i32):
  while size(xs) < k:
    xs = bump(generate(2 * size(xs), lam i: xs[i // 2]))
  return xs
`;
    const e = lowerNotes(src, { xs: f64(2), k: i32 });
    expect(e).toMatchObject({ code: 'E206', at: '3:6' });
    expect(e.notes.join('\n')).toContain("every input shape is known, but the size of generate is computed at run time");
  });

  test('nested loops each keep their shapes: k outer rounds of m inner bumps add k*m', () => {
    const src = `
def bump(xs):
  if size(xs) > 1:
    return map(lam x: x + 1.0, xs)
  return xs
def main(xs: f64[n], k: i32, m: i32):
  i = 0
  while i < k:
    j = 0
    while j < m:
      xs = bump(xs)
      j = j + 1
    xs = bump(xs)
    i = i + 1
  return xs
`;
    const p = lowerText(src, { signature: { xs: f64(3), k: i32, m: i32 } });
    expect(kinds(p)).toMatchObject({ while: 2, map: 2 });
    expect(statements(p).some((s) => s.kind === 'if')).toBe(false);
    expect(runOne(p, [f64s([0, 10, 20]), scalar('i32', 3), scalar('i32', 4)])).toEqual([15, 25, 35]);
  });

  test('an inner loop that changes the shape makes the outer loop forget it too', () => {
    const src = `
def main(xs: f64[n], k: i32):
  i = 0
  while i < k:
    while size(xs) < 4 * k:
      xs = generate(size(xs) + 1, lam j: 1.0 if j == 0 else xs[j - 1])
    i = i + 1
  return map(lam x: x * 2.0, xs)
`;
    const p = lowerText(src, { signature: { xs: f64(1), k: i32 } });
    expect(runOne(p, [f64s([3]), scalar('i32', 2)])).toEqual([2, 2, 2, 2, 2, 2, 2, 6]);
  });
});

describe('static scalars through a loop', () => {
  test('a scalar the body re-binds to the same static value stays static (not carried)', () => {
    const src = `
def main(xs: f64[n], k: i32):
  m = size(xs)
  it = 0
  while it < k:
    m = size(xs)
    xs = map(lam x: x + f64(m), xs)
    it = it + 1
  for r in range(m):
    xs = map(lam x: x * 2.0, xs)
  return xs
`;
    const p = lowerText(src, { signature: { xs: f64(2), k: i32 } });
    // m is not a loop param; the for loop after the while is unrolled m = 2 times.
    expect(loopParams(p)).toEqual(['array:xs_2', 'scalar:it_2']);
    expect(kinds(p).map).toBe(3);
    expect(runOne(p, [f64s([1, 2]), scalar('i32', 1)])).toEqual([12, 16]);
  });

  test('a carried scalar the body changes is dynamic: a for loop over it is E204', () => {
    const src = 'def main(xs: f64[n], k: i32):\n  it = 0\n  while it < k:\n    it = it + 1\n  for r in range(it):\n    xs = map(lam x: x, xs)\n  return xs\n';
    expect(lowerError(src, { signature: { xs: f64(2), k: i32 } })).toMatchObject({ code: 'E204', message: expect.stringContaining('depends on values only known at run time'), at: '5:18' });
  });

  test('knowledge lost in one round is lost by what depends on it in the next (a = b; b = c; c += 1)', () => {
    const src = `
def main(k: i32):
  a = 0
  b = 0
  c = 0
  while c < k:
    a = b
    b = c
    c = c + 1
  return a, b, c
`;
    const p = lowerText(src, { signature: { k: i32 } });
    expect(loopParams(p)).toHaveLength(3);
    expect(run(p, [scalar('i32', 5)])).toEqual([scalar('i32', 3), scalar('i32', 4), scalar('i32', 5)]);
  });

  test('a static if on an unchanged carried scalar is decided inside the loop', () => {
    const src = `
def main(xs: f64[n], k: i32):
  mode = 1
  it = 0
  while it < k:
    if mode == 1:
      xs = map(lam x: x + 1.0, xs)
    else:
      xs = reverse(xs)
    mode = 1
    it = it + 1
  return xs
`;
    const p = lowerText(src, { signature: { xs: f64(2), k: i32 } });
    expect(statements(p).some((s) => s.kind === 'if')).toBe(false);
    expect(runOne(p, [f64s([1, 2]), scalar('i32', 3)])).toEqual([4, 5]);
  });
});

describe('what a loop cannot carry is still an error', () => {
  test.each([
    ['a function', '  f = lam x: x\n  while xs[0] > 0.0:\n    f = lam x: x + 1.0\n    xs = map(f, xs)\n  return xs\n', 'E219', "'f' is a function", '3:3'],
    ['an array that becomes a scalar', '  while xs[0] > 0.0:\n    xs = xs[0]\n  return xs\n', 'E308', "the loop-carried 'xs' is an array of f64", '2:3'],
  ])('%s', (_, body, code, message, at) => {
    expect(lowerError(`def main(xs: f64[n]):\n${body}`, { signature: { xs: f64(3) } })).toMatchObject({ code, message: expect.stringContaining(message), at });
  });
});

describe('falling back to a loop that knows nothing', () => {
  test('a static mismatch under the kept shapes falls back to the run-time check (lowered as before)', () => {
    // With the shapes kept, map(+, xs, ys) is a compile-time E311; the loop may run zero times.
    const src = 'def main(xs: f64[n], ys: f64[m], k: i32):\n  it = 0\n  while it < k:\n    xs = map(lam a, b: a + b, xs, ys)\n    it = it + 1\n  return xs\n';
    const p = lowerText(src, { signature: { xs: f64(3), ys: f64(4), k: i32 } });
    expect(runOne(p, [f64s([1, 2, 3]), f64s([1, 1, 1, 1]), scalar('i32', 0)])).toEqual([1, 2, 3]);
  });

  test('an entry parameter first used inside the loop is inferred once, whatever the attempts', () => {
    const src = 'def main(xs, ys, k):\n  it = 0\n  while it < k:\n    xs = map(lam a, b: a + b * 2.0, xs, ys)\n    it = it + 1\n  return xs\n';
    const p = lowerText(src);
    expect(p.params.map((q) => q.components.map((c) => `${c.kind}:${c.elem}`).join())).toEqual(['array:f64', 'array:f64', 'scalar:i32']);
    expect(runOne(p, [f64s([1, 2]), f64s([10, 20]), scalar('i32', 2)])).toEqual([41, 82]);
  });
});

describe('a run-time if whose branches agree on a static shape keeps it', () => {
  const src = (other: string): string => `
def bump(xs):
  if size(xs) > 1:
    return map(lam x: x + 1.0, xs)
  return xs
def main(xs: f64[n], c: f64):
  if c > 0.0:
    ys = map(lam x: x * 2.0, xs)
  else:
    ys = ${other}
  return bump(ys)
`;

  test('both branches of shape [3]: the size test after the if is static', () => {
    const p = lowerText(src('reverse(xs)'), { signature: { xs: f64(3), c: { kind: 'scalar', elem: 'f64' } } });
    expect(kinds(p)).toMatchObject({ if: 1 });
    expect(runOne(p, [f64s([1, 2, 3]), scalar('f64', 1)])).toEqual([3, 5, 7]);
    expect(runOne(p, [f64s([1, 2, 3]), scalar('f64', -1)])).toEqual([4, 3, 2]);
  });

  test('branches of different shapes: the size is a run-time one (E206, and no --shape helps)', () => {
    const e = lowerNotes(src('take(2, xs)'), { xs: f64(3), c: { kind: 'scalar', elem: 'f64' } });
    expect(e).toMatchObject({ code: 'E206', at: '3:6' });
    expect(e.notes.join('\n')).toContain('every input shape is known');
  });
});

describe('E206/E204 notes name the unknown input shape and the --shape that gives it', () => {
  test.each([
    ['the reproduction without shapes', bumpLoop, "the shape of 'xs' is not known at compile time; give it, e.g. --shape xs=f64[...]"],
    [
      'a size derived from an input',
      'def bump(xs):\n  n, m = shape(xs)\n  if n > 1:\n    return xs\n  return xs\ndef main(zs: i32[a, b]):\n  return bump(map(lam z: z + 1, zs))\n',
      "the size of map comes from the inputs 'zs', whose shapes are not known at compile time; give them, e.g. --shape zs=i32[...,...]",
    ],
    [
      'recursion over a size',
      'def main(xs: f64[n]):\n  return g(xs)\ndef g(ys):\n  if size(ys) < 2:\n    return ys\n  return g(take(size(ys) // 2, ys))\n',
      "the shape of 'xs' is not known at compile time; give it, e.g. --shape xs=f64[...]",
    ],
    [
      'a for loop over a size (E204)',
      'def main(xs: f64[n]):\n  for i in range(size(xs)):\n    xs = map(lam x: x, xs)\n  return xs\n',
      "the shape of 'xs' is not known at compile time; give it, e.g. --shape xs=f64[...]",
    ],
  ])('%s', (_, text, note) => {
    expect(lowerNotes(text).notes.join('\n')).toContain(note);
  });
});
