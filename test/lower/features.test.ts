// Lowering as a partial evaluator: static evaluation, unrolling, compile-time recursion,
// run-time control flow, SSA names, tuples, prelude functions and spans — checked on the IR and,
// where it matters, by running it with the reference interpreter.

import { describe, expect, test } from 'vitest';
import { SourceFile } from '../../src/diagnostics/index.js';
import type { InputSignature } from '../../src/lower/index.js';
import { inferEntryTypes, preludeSource } from '../../src/lower/index.js';
import { parseModule } from '../../src/syntax/index.js';
import { contents, f64s, i32s, kinds, lowerText, nodeNames, run, scalar, statements } from './helpers.js';

const f64 = (...shape: number[]): InputSignature => ({ kind: 'array', elem: 'f64', shape });

describe('static evaluation', () => {
  test('arithmetic on literals folds, with Python semantics from scalarOps', () => {
    const p = lowerText(`
def main(xs):
  k = 7 // 2 + -7 % 3 + 2 ** 3
  return map(lam x: x * k, xs)
`);
    expect(kinds(p)).toEqual({ map: 1 });
    const m = p.body.stmts[0]!;
    expect(m.kind === 'map' && m.fn.results[0]).toMatchObject({ kind: 'binary', rhs: { kind: 'const', type: 'f64', value: 13 } });
  });

  test('integer / divides as f64 and int + float promotes', () => {
    const p = lowerText('def main(xs: i32[n]):\n  return map(lam x: x / 2 + 1, xs)\n');
    expect(p.results[0]!.components[0]).toMatchObject({ elem: 'f64' });
  });

  test('a static if on a signature size is resolved at compile time', () => {
    const src = 'def main(xs):\n  if size(xs) > 4:\n    return map(lam x: x + 1.0, xs)\n  else:\n    return reverse(xs)\n';
    expect(kinds(lowerText(src, { signature: { xs: f64(10) } }))).toEqual({ map: 1 });
    expect(kinds(lowerText(src, { signature: { xs: f64(3) } }))).toEqual({ generate: 1, gather: 1 });
  });

  test('a scalar input with a known value is a compile-time constant', () => {
    const src = 'def main(xs, k):\n  for i in range(k):\n    xs = map(lam x: x * 2.0, xs)\n  return xs\n';
    const p = lowerText(src, { signature: { xs: f64(4), k: { kind: 'scalar', elem: 'i32', value: 3 } } });
    expect(kinds(p)).toEqual({ map: 3 });
  });
});

describe('for loops unroll', () => {
  test('each iteration is a new SSA binding: xs_1, xs_2, xs_3', () => {
    const p = lowerText('def main(xs):\n  for i in range(3):\n    xs = map(lam x: x + f64(i), xs)\n  return xs\n');
    expect(nodeNames(p)).toEqual(['xs_1', 'xs_2', 'xs_3']);
    expect(contents(run(p, [f64s([1, 2])])[0]!)).toEqual([4, 5]);
  });

  test('range(a, b, step) counts down', () => {
    const p = lowerText('def main(xs):\n  s = 0\n  for i in range(5, 0, -2):\n    s = s * 10 + i\n  return map(lam x: x + s, xs)\n');
    // The loop counter is an i32, so `x + s` makes the inferred element type i32.
    expect(contents(run(p, [i32s([0])])[0]!)).toEqual([531]);
  });
});

describe('compile-time recursion over sizes', () => {
  const vcycle = `
def vcycle(xs):
  n = size(xs)
  if n <= 2:
    return map(lam x: x * 0.5, xs)
  coarse = backpermute(n // 2, lam i: 2 * i, xs)
  c = vcycle(coarse)
  fine = backpermute(n, lam i: i // 2, c)
  return zipWith(+, xs, fine)

def main(xs):
  return vcycle(xs)
`;
  test('recurses once per level when the size is known', () => {
    const p = lowerText(vcycle, { signature: { xs: f64(16) } });
    // levels 16, 8, 4 restrict and prolong; level 2 smooths.
    expect(kinds(p)).toEqual({ generate: 6, gather: 6, map: 4 });
    const out = contents(run(p, [f64s([...Array(16).keys()])])[0]!);
    expect(out).toHaveLength(16);
    expect(out[0]).toBe(0);
  });

  test('without shapes, the recursion needs a run-time size: a clear error', () => {
    expect(() => lowerText(vcycle)).toThrow(/depends on the size of xs, which is only known at run time/);
  });
});

describe('run-time control flow', () => {
  test('an if on a run-time scalar becomes one node whose outs are the names bound in both branches', () => {
    const src = `
def main(xs, t):
  if t > 0.0:
    ys = map(lam x: x + 1.0, xs)
    k = 1
  else:
    ys = reverse(xs)
    k = 2
  return map(lam y: y * f64(k), ys)
`;
    const p = lowerText(src);
    const node = p.body.stmts.find((s) => s.kind === 'if');
    expect(node?.kind === 'if' && node.outs.map((o) => o.name)).toEqual(['ys_2', 'k_2']);
    expect(node?.kind === 'if' && kinds({ ...p, body: node.else })).toEqual({ scalar: 2, generate: 1, gather: 1 });
    expect(contents(run(p, [f64s([1, 2, 3]), scalar('f64', 1)])[0]!)).toEqual([2, 3, 4]);
    expect(contents(run(p, [f64s([1, 2, 3]), scalar('f64', -1)])[0]!)).toEqual([6, 4, 2]);
  });

  test('a while loop carries the names its body re-binds', () => {
    const src = `
def main(xs):
  i = 0
  while i < 3:
    xs = map(lam x: x * 2.0, xs)
    i = i + 1
  return xs
`;
    const p = lowerText(src);
    const w = p.body.stmts.find((s) => s.kind === 'while');
    expect(w?.kind === 'while' && w.body.params.map((v) => v.kind)).toEqual(['array', 'scalar']);
    expect(w?.kind === 'while' && w.cond.results).toHaveLength(1);
    expect(contents(run(p, [f64s([1, 3])])[0]!)).toEqual([8, 24]);
  });
});

describe('SSA names', () => {
  test("the first binding keeps the user's name, later ones get suffixes", () => {
    const p = lowerText('def main(a):\n  x = map(lam v: v + 1.0, a)\n  x = map(lam v: v * 2.0, x)\n  x = map(lam v: v - 1.0, x)\n  return x\n');
    expect(nodeNames(p)).toEqual(['x', 'x_1', 'x_2']);
  });

  test('dead bindings are removed', () => {
    const p = lowerText('def main(a):\n  unused = map(lam v: v + 1.0, a)\n  n = size(a)\n  return map(lam v: v * 2.0, a)\n');
    expect(kinds(p)).toEqual({ map: 1 });
  });
});

describe('tuples', () => {
  test('a lambda of k params given one k-tuple element destructures it', () => {
    const p = lowerText('def main(a, b):\n  ps = zip(a, b)\n  return map(lam x, y: x * y, ps)\n');
    const m = statements(p).find((s) => s.kind === 'map');
    expect(m?.kind === 'map' && m.inputs).toEqual(['a', 'b']);
    expect(contents(run(p, [f64s([1, 2]), f64s([3, 4])])[0]!)).toEqual([3, 8]);
  });

  test('arrays of tuples are tuples of arrays; unzip and fst/snd are free', () => {
    const src = 'def main(xs):\n  ps = map(lam x: (x, x * 2.0), xs)\n  a, b = unzip(ps)\n  qs = map(lam p: fst(p) + snd(p) + p[1], ps)\n  return (a, b, qs)\n';
    const p = lowerText(src);
    expect(kinds(p)).toEqual({ map: 2 });
    expect(p.results.map((r) => r.name)).toEqual(['a', 'b', 'qs']);
    expect(run(p, [f64s([1])]).map(contents)).toEqual([[1], [2], [5]]);
  });

  test('an entry array of tuples has one component per element type', () => {
    const p = lowerText('def main(ps: (i32, f64)[n]):\n  return map(lam i, x: f64(i) + x, ps)\n');
    expect(p.params[0]!.components.map((c) => c.name)).toEqual(['ps.0', 'ps.1']);
  });
});

describe('prelude', () => {
  test('ships as .fuse source', () => {
    expect(preludeSource()).toMatch(/def backpermute\(s, f, xs\)/);
  });

  test.each([
    ['reverse(xs)', [3, 2, 1]],
    ['map(lam x: x * 2.0, take(2, xs))', [2, 4]],
    ['drop(1, xs)', [2, 3]],
    ['sum(xs)', [6]],
    ['product(xs)', [6]],
    ['maximum(xs)', [3]],
    ['minimum(xs)', [1]],
    ['zipWith(*, xs, xs)', [1, 4, 9]],
    ['zipWith3(lam a, b, c: a + b * c, xs, xs, xs)', [2, 6, 12]],
    ['fold(max, xs)', [3]],
    ['scanl(+, xs)', [1, 3, 6]],
    ['scanr(+, 0.0, xs)', [5, 3, 0]],
    ['map(lam i: f64(i), iota(size(xs)))', [0, 1, 2]],
    ['fill(2, 5.0)', [5, 5]],
    ['filter(lam x: x != 2.0, xs)', [1, 3]],
    ['permute(+, fill(3, 0.0), lam i: 2 - i, xs)', [3, 2, 1]],
    ['backpermute(2, lam i: i + 1, xs)', [2, 3]],
  ])('%s', (expr, expected) => {
    const p = lowerText(`def main(xs):\n  return ${expr}\n`);
    expect(contents(run(p, [f64s([1, 2, 3])])[0]!)).toEqual(expected);
  });

  test('filter on data: flags, an exclusive scan, a scatter, and a generate sized at run time', () => {
    const p = lowerText('def main(xs):\n  return filter(lam x: x > 0.0, xs)\n');
    expect(kinds(p)).toMatchObject({ scanl: 1, scatter: 1, fold: 1 });
    expect(contents(run(p, [f64s([-1, 5, 0, 7, -2, 9])])[0]!)).toEqual([5, 7, 9]);
  });

  test('transpose and replicate (rank 2)', () => {
    const p = lowerText('def main(xs):\n  return sum(transpose(replicate(3, xs)))\n');
    expect(contents(run(p, [f64s([1, 2])])[0]!)).toEqual([3, 6]);
  });

  test('gather with rank-2 indices into a rank-2 source', () => {
    const p = lowerText('def main(xs: f64[n, m], is: (i32, i32)[k]):\n  return gather(is, xs)\n');
    const g = statements(p).find((s) => s.kind === 'gather');
    expect(g?.kind === 'gather' && g.indices).toEqual(['is.0', 'is.1']);
  });
});

describe('spans', () => {
  const src = 'def main(as):\n  bs = reverse(as)\n  return map(lam b: b + 1.0, bs)\n';
  const file = new SourceFile('t.fuse', src);

  test("nodes inlined from the prelude carry the user's call", () => {
    const p = lowerText(src);
    const at = (s: { span: { start: number } }): string => {
      const { line, col } = file.lineCol(s.span.start);
      return `${line}:${col}`;
    };
    const gather = statements(p).find((s) => s.kind === 'gather')!;
    const generate = statements(p).find((s) => s.kind === 'generate')!;
    expect(at(gather as { span: { start: number } })).toBe('2:8');
    expect(at(generate as { span: { start: number } })).toBe('2:8');
    expect(at(statements(p).find((s) => s.kind === 'map') as { span: { start: number } })).toBe('3:10');
  });

  test('an index expression points at the user\'s indexing', () => {
    const p = lowerText('def main(xs):\n  ys = map(lam x: x + 1.0, xs)\n  return generate(3, lam i: ys[i])\n');
    const g = statements(p).find((s) => s.kind === 'generate');
    const e = g?.kind === 'generate' ? g.fn.results[0] : undefined;
    expect(e?.kind).toBe('index');
    expect(file && e?.span && new SourceFile('x', 'def main(xs):\n  ys = map(lam x: x + 1.0, xs)\n  return generate(3, lam i: ys[i])\n').lineCol(e.span.start)).toEqual({ line: 3, col: 29 });
  });
});

test('inferEntryTypes reports what inference found', () => {
  const src = 'def main(is, xs, m):\n  g = generate((m, 2), lam i, j: xs[is[i], j])\n  return g\n';
  const file = new SourceFile('t.fuse', src);
  expect(inferEntryTypes(parseModule(file), file)).toEqual({
    is: { kind: 'array', elem: 'i32', rank: 1, shape: null },
    xs: { kind: 'array', elem: 'f64', rank: 2, shape: null },
    m: { kind: 'scalar', elem: 'i32', value: null },
  });
});

test('a scatter into an entry input, or into an array read later, scatters into a copy', () => {
  const p = lowerText('def main(xs, is):\n  ys = scatter(+, xs, zip(is, xs))\n  return (ys, xs)\n', { signature: { xs: f64(2), is: { kind: 'array', elem: 'i32', shape: [2] } } });
  expect(kinds(p)).toEqual({ map: 1, scatter: 1 });
  const s = statements(p).find((x) => x.kind === 'scatter');
  expect(s?.kind === 'scatter' && s.dest).toEqual(['copy']);
  expect(run(p, [f64s([1, 2]), i32s([1, 1])]).map(contents)).toEqual([[1, 5], [1, 2]]);
});

describe('scatter destinations: copied exactly when the in-place update could be observed', () => {
  /** How many identity copies lowering inserted (maps named copy…). */
  // Static shapes, so `zip` is free and the scatter sees the arrays it was written with (a zip
  // of shapes known only at run time is an identity map that checks them).
  const signature = { xs: f64(4), is: { kind: 'array', elem: 'i32', shape: [4] } } as const;
  const copies = (src: string): number =>
    statements(lowerText(src, { signature })).filter((s) => s.kind === 'map' && s.outs[0]!.name.startsWith('copy')).length;
  const head = 'def main(xs: f64[n], is: i32[m]):\n  a = map(lam x: x + 1.0, xs)\n';
  test.each([
    ['nothing else reads it', '  return scatter(+, a, zip(is, xs))\n', 0],
    ['a reader before it (ordered by the graph)', '  b = map(lam x: x * 2.0, a)\n  return scatter(+, a, zip(is, b))\n', 0],
    ['its values are the destination', '  return scatter(+, a, zip(is, a))\n', 1],
    ['its op indexes the destination', '  return scatter(lam o, v: o + a[0] + v, a, zip(is, xs))\n', 1],
    ['its op reads the destination through a scalar', '  t = a[0] * 2.0\n  return scatter(lam o, v: o + t + v, a, zip(is, xs))\n', 1],
    ['a result scalar read the destination before it', '  t = a[0]\n  return scatter(+, a, zip(is, xs)), t\n', 1],
    ['a later map uses a scalar that read the destination', '  t = a[0]\n  r = scatter(+, a, zip(is, xs))\n  return map(lam x: x + t, r)\n', 1],
    ['it is read after the update', '  r = scatter(+, a, zip(is, xs))\n  return r, a\n', 1],
    ['two scatters update it (the first gets the copy)', '  r = scatter(+, a, zip(is, xs))\n  q = scatter(max, a, zip(is, xs))\n  return r, q\n', 1],
    ['a filter of a map (filter scatters xs into xs)', '  return filter(lam x: x > 0.0, a)\n', 1],
    ['an if output may share its memory', '  if xs[0] > 0.0:\n    r = a\n  else:\n    r = xs\n  return scatter(+, a, zip(is, xs)), r\n', 1],
    ['a scatter into one tuple component, the other read later', '  p, q = map(lam x: (x, x * 2.0), xs)\n  r = scatter(+, p, zip(is, xs))\n  return map(lam x: x + q[0], r)\n', 0],
  ])('%s', (_name, body, expected) => {
    expect(copies(head + body)).toBe(expected);
  });
  test('a scatter in a while body into the loop-carried array updates it in place: the loop owns it (no copy)', () => {
    const src = 'def main(xs: f64[n], is: i32[m]):\n  ys = map(lam x: x + 1.0, xs)\n  k = 0\n  while k < 2:\n    ys = scatter(+, ys, zip(is, xs))\n    k = k + 1\n  return ys\n';
    expect(copies(src)).toBe(0);
  });
  test('a loop-carried array whose init is read after the loop: one copy, before the loop', () => {
    const src = 'def main(xs: f64[n], is: i32[m]):\n  ys = map(lam x: x + 1.0, xs)\n  zs = ys\n  k = 0\n  while k < 2:\n    zs = scatter(+, zs, zip(is, xs))\n    k = k + 1\n  return zs, ys\n';
    expect(copies(src)).toBe(1);
    const w = lowerText(src).body.stmts.find((s) => s.kind === 'while');
    expect(w?.kind === 'while' && w.body.stmts.some((s) => s.kind === 'map' && s.outs[0]!.name.startsWith('copy'))).toBe(false);
  });
});

describe('user definitions', () => {
  test('a def passed as an element function becomes a lambda with lets', () => {
    const src = 'def sq1(x):\n  y = x * x\n  return y + 1.0\n\ndef main(xs):\n  return map(sq1, xs)\n';
    const p = lowerText(src);
    const m = statements(p).find((s) => s.kind === 'map');
    expect(m?.kind === 'map' && m.fn.lets.map((l) => l.name)).toEqual(['y']);
    expect(contents(run(p, [f64s([2, 3])])[0]!)).toEqual([5, 10]);
  });

  test('a def inlined twice names its nodes after each call site', () => {
    const src = 'def twice(v):\n  w = map(lam x: x * 2.0, v)\n  return w\n\ndef main(xs):\n  a = twice(xs)\n  b = twice(a)\n  return b\n';
    expect(nodeNames(lowerText(src))).toEqual(['a', 'b']);
  });

  test('user definitions shadow the prelude', () => {
    const src = 'def reverse(v):\n  return map(lam x: -x, v)\n\ndef main(xs):\n  return reverse(xs)\n';
    expect(kinds(lowerText(src))).toEqual({ map: 1 });
  });

  test('a run-time while inside an inlined def', () => {
    const src = 'def halve(v, t):\n  while v[0] > t:\n    v = map(lam x: x / 2.0, v)\n  return v\n\ndef main(xs):\n  return halve(xs, 1.0)\n';
    const p = lowerText(src);
    expect(kinds(p)).toMatchObject({ while: 1, map: 1 });
    expect(contents(run(p, [f64s([8, 4])])[0]!)).toEqual([1, 0.5]);
  });
});

test('an if whose else branch keeps the old value merges it with the new one', () => {
  const src = 'def main(xs, t):\n  ys = xs\n  if t > 0.0:\n    ys = reverse(xs)\n  return map(lam y: y + 0.5, ys)\n';
  const p = lowerText(src);
  const node = p.body.stmts.find((s) => s.kind === 'if');
  expect(node?.kind === 'if' && node.else.results).toEqual(['xs']);
  expect(contents(run(p, [f64s([1, 2]), scalar('f64', 1)])[0]!)).toEqual([2.5, 1.5]);
  expect(contents(run(p, [f64s([1, 2]), scalar('f64', 0)])[0]!)).toEqual([1.5, 2.5]);
});

test('static recursion on a scalar argument unrolls', () => {
  const src = 'def apply(n, v):\n  if n == 0:\n    return v\n  return apply(n - 1, map(lam x: x + 1.0, v))\n\ndef main(xs):\n  return apply(5, xs)\n';
  const p = lowerText(src);
  expect(kinds(p)).toEqual({ map: 5 });
  expect(contents(run(p, [f64s([0])])[0]!)).toEqual([5]);
});

test('recursion under a run-time if that depends on a size is explained', () => {
  const src = 'def g(ys):\n  if size(ys) < 2:\n    r = ys\n  else:\n    r = g(ys)\n  return r\n\ndef main(xs):\n  return g(xs)\n';
  expect(() => lowerText(src)).toThrow(/stop the recursion of 'g', but it depends on the size of xs/);
});
