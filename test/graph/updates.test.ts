// The dependence graph around in-place updates and scalars (issue 9, C2 and C3): scatter
// precedences are per destination array, not per array group; arrays that result scalars and a
// `while`'s scalar initial values index are read (results, and control reads).
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/diagnostics/index.js';
import { programGraphs } from '../../src/graph/program.js';
import { nodeById } from '../../src/graph/types.js';
import { lowerText } from '../lower/helpers.js';
import { arr, arrayParam, lam, nodes, opLam, program, v, bin, f64 } from '../ir/builders.js';

const graphOf = (src: string) => programGraphs(lowerText(src)).graph;
const name = (g: ReturnType<typeof graphOf>, id: number): string => nodeById(g, id).name;

describe('scatter precedences are per destination array', () => {
  it('a reader of the other component of a tuple-producing map is not ordered before the scatter (C3)', () => {
    const g = graphOf(
      'def main(xs: f64[n], is: i32[m]):\n  a, b = map(lam x: (x, x + 1.0), xs)\n  r = scatter(+, a, zip(is, xs))\n  return map(lam x: x + b[0], r)\n',
    );
    expect(g.precedences.map((p) => `${name(g, p.before)} before ${name(g, p.scatter)}`)).toEqual([]);
  });

  it('a reader of the destination itself is', () => {
    const g = graphOf('def main(xs: f64[n], is: i32[m]):\n  a, b = map(lam x: (x, x + 1.0), xs)\n  c = map(lam x: x * 2.0, a)\n  r = scatter(+, a, zip(is, c))\n  return r, b\n');
    expect(g.precedences.map((p) => `${name(g, p.before)} before ${name(g, p.scatter)}`)).toEqual(['c before r']);
  });

  it('scatters into the two components of one map are no E601 (C3)', () => {
    expect(() =>
      graphOf('def main(xs: f64[n], is: i32[m]):\n  a, b = map(lam x: (x, x + 1.0), xs)\n  r = scatter(+, a, zip(is, xs))\n  q = scatter(+, b, zip(is, xs))\n  return r, q\n'),
    ).not.toThrow();
  });

  it('two scatters into one array of hand-built IR are E601, naming that array', () => {
    const n = nodes();
    const p = program('s', [arrayParam('xs', 'f64', 1), arrayParam('is', 'i32', 1)], [
      n.map([arr('a', 'f64', 1), arr('b', 'f64', 1)], ['xs'], lam([['x', 'f64']], [v('x', 'f64'), bin('+', v('x', 'f64'), f64(1))])),
      n.scatter([arr('r1', 'f64', 1)], opLam('+', 'f64'), ['b'], ['is'], ['xs']),
      n.scatter([arr('r2', 'f64', 1)], opLam('+', 'f64', 'c', 'd'), ['b'], ['is'], ['xs']),
    ], ['r1', 'r2']);
    const err = (() => {
      try {
        programGraphs(p);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(UserError);
    expect((err as UserError).code).toBe('E601');
    expect((err as UserError).message).toContain('`b` is the destination of two scatters');
  });
});

describe('scalars that index arrays', () => {
  it('an array a result scalar indexes is a result group (C2: it must stay in memory)', () => {
    const g = graphOf('def main(xs: f64[n]):\n  a = map(lam x: x + 1.0, xs)\n  s = a[0]\n  b = map(lam x: x * 2.0, a)\n  return b, s\n');
    expect(g.resultGroups.map((k) => g.groups[k]!.name).sort()).toEqual(['a', 'b']);
  });

  it("a while loop's scalar initial value reads the array it indexes (an edge into the loop)", () => {
    const g = graphOf(
      'def main(xs: f64[n]):\n  a = map(lam x: x + 1.0, xs)\n  s = a[0]\n  b = map(lam x: x * 2.0, a)\n  k = 0\n  while k < 3:\n    s = s + 1.0\n    k = k + 1\n  return b, s\n',
    );
    const loop = g.nodes.find((x) => x.kind === 'while')!;
    const into = g.edges.filter((e) => e.to === loop.id).map((e) => `${name(g, e.from)} ${e.reasons.join('+')}`);
    expect(into).toEqual(['a control-flow']);
  });
});
