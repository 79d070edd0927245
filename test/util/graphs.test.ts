// src/util/graphs.ts against brute-force definitions on small random digraphs: a topological
// order respects every arc, 'smallest' is the lexicographically least one, a found cycle is a
// cycle, SCCs are the mutual-reachability classes numbered in reverse topological order.

import { describe, expect, it } from 'vitest';
import { compactSuccessors, findCycle, stronglyConnectedComponents, topologicalOrder, unionFind, type Successors } from '../../src/util/graphs.js';
import { seededRng, type Rng } from './rng.js';

/** A random digraph on n nodes; `acyclic` keeps arcs going from smaller to larger index. */
function randomDigraph(rng: Rng, n: number, acyclic: boolean): number[][] {
  const succ: number[][] = Array.from({ length: n }, () => []);
  const arcs = rng.int(0, 2 * n);
  for (let k = 0; k < arcs; k++) {
    const a = rng.int(0, n - 1);
    const b = rng.int(0, n - 1);
    if (acyclic && a >= b) continue;
    succ[a]!.push(b);
  }
  return succ;
}

/** reach[a][b]: a path of zero or more arcs from a to b. */
function reachability(succ: Successors): boolean[][] {
  const n = succ.length;
  const reach = Array.from({ length: n }, (_, a) => Array.from({ length: n }, (_, b) => a === b));
  for (let a = 0; a < n; a++) for (const b of succ[a]!) reach[a]![b] = true;
  for (let k = 0; k < n; k++) for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) if (reach[a]![k] && reach[k]![b]) reach[a]![b] = true;
  return reach;
}

/** The lexicographically least topological order by the definition: always the smallest ready node. */
function smallestFirstByScan(succ: Successors): number[] {
  const n = succ.length;
  const indegree = new Array<number>(n).fill(0);
  for (const out of succ) for (const j of out) indegree[j]!++;
  const done = new Array<boolean>(n).fill(false);
  const order: number[] = [];
  for (;;) {
    const i = indegree.findIndex((d, k) => d === 0 && !done[k]);
    if (i < 0) return order;
    done[i] = true;
    order.push(i);
    for (const j of succ[i]!) indegree[j]!--;
  }
}

const respectsArcs = (succ: Successors, order: readonly number[]): boolean => {
  const at = new Map(order.map((v, k) => [v, k]));
  return succ.every((out, a) => out.every((b) => at.get(a)! < at.get(b)!));
};

describe('topologicalOrder', () => {
  it('orders every node of a DAG, sources by index first (queue)', () => {
    expect(topologicalOrder([[2], [2], [], [0]])).toEqual([1, 3, 0, 2]);
    expect(topologicalOrder([[2], [2], [], [0]], 'smallest')).toEqual([1, 3, 0, 2]);
    expect(topologicalOrder([[3], [], [], []], 'smallest')).toEqual([0, 1, 2, 3]);
    expect(topologicalOrder([[3], [], [], []])).toEqual([0, 1, 2, 3]);
    expect(topologicalOrder([[2, 1], [], []])).toEqual([0, 2, 1]);
    expect(topologicalOrder([[2, 1], [], []], 'smallest')).toEqual([0, 1, 2]);
  });

  it('counts repeated arcs', () => {
    expect(topologicalOrder([[1, 1], []])).toEqual([0, 1]);
  });

  it('leaves out the nodes on and after a cycle', () => {
    expect(topologicalOrder([[1], [2], [1, 3], []])).toEqual([0]);
    expect(topologicalOrder([[1], [0], [], [2]], 'smallest')).toEqual([3, 2]);
  });

  it('on random digraphs: respects every arc, orders exactly the nodes no cycle reaches, smallest = by definition', () => {
    const rng = seededRng(10);
    for (let trial = 0; trial < 300; trial++) {
      const succ = randomDigraph(rng, rng.int(1, 12), trial % 2 === 0);
      const reach = reachability(succ);
      const onCycle = (v: number): boolean => succ.some((out, a) => out.some((b) => reach[b]![a]) && reach[a]![v]);
      for (const tie of ['queue', 'smallest'] as const) {
        const order = topologicalOrder(succ, tie);
        const sub = succ.map((out, a) => (order.includes(a) ? out.filter((b) => order.includes(b)) : []));
        expect(new Set(order).size).toBe(order.length);
        expect(respectsArcs(sub, order)).toBe(true);
        expect([...order].sort((a, b) => a - b)).toEqual(succ.map((_, v) => v).filter((v) => !onCycle(v)));
      }
      expect(topologicalOrder(succ, 'smallest')).toEqual(smallestFirstByScan(succ));
    }
  });
});

describe('findCycle', () => {
  it('is null when every node was ordered', () => {
    const succ = [[1], []];
    expect(findCycle(succ, topologicalOrder(succ))).toBeNull();
  });

  it('names the cycle from its smallest node, not the nodes merely after it', () => {
    const succ = [[1], [2], [3], [1, 4], []];
    expect(findCycle(succ, topologicalOrder(succ))).toEqual([1, 2, 3]);
    expect(findCycle([[0]], [])).toEqual([0]);
  });

  it('on random cyclic digraphs: returns a cycle of distinct nodes, smallest first', () => {
    const rng = seededRng(11);
    let cyclic = 0;
    for (let trial = 0; trial < 300; trial++) {
      const succ = randomDigraph(rng, rng.int(1, 10), false);
      const order = topologicalOrder(succ);
      const cycle = findCycle(succ, order);
      if (order.length === succ.length) {
        expect(cycle).toBeNull();
        continue;
      }
      cyclic++;
      expect(cycle).not.toBeNull();
      const c = cycle!;
      expect(new Set(c).size).toBe(c.length);
      expect(c[0]).toBe(Math.min(...c));
      c.forEach((v, k) => expect(succ[v]).toContain(c[(k + 1) % c.length]));
    }
    expect(cyclic).toBeGreaterThan(50);
  });
});

describe('stronglyConnectedComponents', () => {
  it('numbers components in reverse topological order', () => {
    // 0 → 1 ⇄ 2 → 3
    const comp = stronglyConnectedComponents(4, compactSuccessors([[1], [2], [1, 3], []]));
    expect(comp[1]).toBe(comp[2]);
    expect(new Set(comp).size).toBe(3);
    expect(comp[0]! > comp[1]! && comp[1]! > comp[3]!).toBe(true);
  });

  it('on random digraphs: same component iff mutually reachable; arcs never go to a higher id', () => {
    const rng = seededRng(12);
    for (let trial = 0; trial < 300; trial++) {
      const succ = randomDigraph(rng, rng.int(1, 12), false);
      const n = succ.length;
      const reach = reachability(succ);
      const comp = stronglyConnectedComponents(n, compactSuccessors(succ));
      for (let a = 0; a < n; a++) {
        for (let b = 0; b < n; b++) expect(comp[a] === comp[b]).toBe(reach[a]![b]! && reach[b]![a]!);
        for (const b of succ[a]!) expect(comp[a]!).toBeGreaterThanOrEqual(comp[b]!);
      }
      expect(new Set(comp)).toEqual(new Set(Array.from({ length: new Set(comp).size }, (_, k) => k)));
    }
  });
});

describe('compactSuccessors', () => {
  it('keeps every arc in order', () => {
    const { starts, targets } = compactSuccessors([[2, 1], [], [0]]);
    expect([...starts]).toEqual([0, 2, 2, 3]);
    expect([...targets]).toEqual([2, 1, 0]);
  });
});

describe('unionFind', () => {
  it('joins classes, the smallest element representing each', () => {
    const uf = unionFind(6);
    uf.union(4, 2);
    uf.union(5, 4);
    uf.union(1, 3);
    expect([0, 1, 2, 3, 4, 5].map((i) => uf.find(i))).toEqual([0, 1, 2, 1, 2, 2]);
    uf.union(3, 5);
    expect([0, 1, 2, 3, 4, 5].map((i) => uf.find(i))).toEqual([0, 1, 1, 1, 1, 1]);
  });
});
