// Graph algorithms over dense node numbers 0 … n−1, shared by the graph reader, the planner's
// strategies and its ILP model (the checker in src/check keeps its own, deliberately). Pure
// functions of plain arrays: no IR, no diagnostics — a caller turns "no order" or "no cycle"
// into its own error. Where a caller runs one in a hot loop (greedy runs an SCC per candidate
// edge), the data is in typed arrays.

/** Successor lists: node v's arcs go to successors[v]; repeated arcs count as many times. */
export type Successors = readonly (readonly number[])[];

/** Successor lists in compressed form: v's successors are targets[starts[v]] … targets[starts[v + 1] − 1]. */
export interface CompactSuccessors {
  readonly starts: Int32Array;
  readonly targets: Int32Array;
}

/** Which ready node Kahn's algorithm takes next. */
export type TieBreak =
  /** First in, first out: the sources by index, then nodes in the order they become ready. */
  | 'queue'
  /** The smallest ready index: the lexicographically least topological order. */
  | 'smallest';

/**
 * Kahn's algorithm. Every node when the graph is acyclic; otherwise the order is shorter than
 * n, leaving out the nodes on a cycle and every node after one (`findCycle` names a cycle).
 */
export function topologicalOrder(successors: Successors, tieBreak: TieBreak = 'queue'): number[] {
  const n = successors.length;
  const indegree = new Int32Array(n);
  for (const out of successors) for (const j of out) indegree[j]!++;
  const order: number[] = [];
  if (tieBreak === 'queue') {
    for (let i = 0; i < n; i++) if (indegree[i] === 0) order.push(i);
    for (let head = 0; head < order.length; head++) {
      for (const j of successors[order[head]!]!) if (--indegree[j]! === 0) order.push(j);
    }
    return order;
  }
  const ready = new MinHeap();
  for (let i = 0; i < n; i++) if (indegree[i] === 0) ready.push(i);
  while (ready.size > 0) {
    const i = ready.pop();
    order.push(i);
    for (const j of successors[i]!) if (--indegree[j]! === 0) ready.push(j);
  }
  return order;
}

/**
 * A cycle among the nodes that `order` (Kahn's, from `topologicalOrder`) left out, as its nodes
 * in arc order starting at its smallest index; null when no node was left out. Walks
 * predecessors, not successors: a left-out node may lie downstream of a cycle and have no
 * left-out successor, but every left-out node has a left-out predecessor (its indegree never
 * reached zero), so the walk cannot end before a node repeats. Null also when `order` is not
 * such an order and the walk does end.
 */
export function findCycle(successors: Successors, order: readonly number[]): number[] | null {
  const n = successors.length;
  const stuck = new Uint8Array(n).fill(1);
  for (const i of order) stuck[i] = 0;
  // For each left-out node, its first left-out predecessor by index.
  const stuckPred = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    if (!stuck[i]) continue;
    for (const j of successors[i]!) if (stuck[j] && stuckPred[j] === -1) stuckPred[j] = i;
  }
  let current = stuck.indexOf(1);
  if (current < 0) return null;
  const seenAt = new Map<number, number>();
  const walk: number[] = [];
  while (!seenAt.has(current)) {
    seenAt.set(current, walk.length);
    walk.push(current);
    current = stuckPred[current]!;
    if (current < 0) return null;
  }
  // The walk went against the arcs: reverse it, and start at the cycle's smallest node.
  const cycle = walk.slice(seenAt.get(current)!).reverse();
  const first = cycle.indexOf(Math.min(...cycle));
  return [...cycle.slice(first), ...cycle.slice(0, first)];
}

/**
 * Strongly connected components (iterative Tarjan) of 0 … n−1: a component id per node, ids in
 * reverse topological order of the condensation (an arc between components goes from a higher
 * id to a lower one). Typed arrays throughout: a greedy walk over a thousand-node block runs it
 * a thousand times.
 */
export function stronglyConnectedComponents(n: number, adj: CompactSuccessors): number[] {
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const comp = new Array<number>(n).fill(-1);
  const stack = new Int32Array(n);
  let stackTop = 0;
  // The DFS path: node and position in its successor list.
  const workNode = new Int32Array(n);
  const workNext = new Int32Array(n);
  let counter = 0;
  let comps = 0;
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    let depth = 0;
    workNode[0] = root;
    workNext[0] = adj.starts[root]!;
    index[root] = low[root] = counter++;
    stack[stackTop++] = root;
    onStack[root] = 1;
    while (depth >= 0) {
      const v = workNode[depth]!;
      if (workNext[depth]! < adj.starts[v + 1]!) {
        const next = adj.targets[workNext[depth]++]!;
        if (index[next] === -1) {
          index[next] = low[next] = counter++;
          stack[stackTop++] = next;
          onStack[next] = 1;
          depth++;
          workNode[depth] = next;
          workNext[depth] = adj.starts[next]!;
        } else if (onStack[next]) low[v] = Math.min(low[v]!, index[next]!);
        continue;
      }
      depth--;
      if (depth >= 0) low[workNode[depth]!] = Math.min(low[workNode[depth]!]!, low[v]!);
      if (low[v] === index[v]) {
        for (;;) {
          const w = stack[--stackTop]!;
          onStack[w] = 0;
          comp[w] = comps;
          if (w === v) break;
        }
        comps++;
      }
    }
  }
  return comp;
}

/** Successor lists in compressed form (the arcs in the same order). */
export function compactSuccessors(successors: Successors): CompactSuccessors {
  const n = successors.length;
  const starts = new Int32Array(n + 1);
  for (let v = 0; v < n; v++) starts[v + 1] = starts[v]! + successors[v]!.length;
  const targets = new Int32Array(starts[n]!);
  let k = 0;
  for (const out of successors) for (const w of out) targets[k++] = w;
  return { starts, targets };
}

/** A union-find over 0 … size−1 (the smaller root becomes the representative). */
export interface UnionFind {
  find(i: number): number;
  union(a: number, b: number): void;
}

/** A fresh union-find, local to one call (a typed array: greedy runs one per candidate edge). */
export function unionFind(size: number): UnionFind {
  const parent = new Int32Array(size);
  for (let i = 0; i < size; i++) parent[i] = i;
  const find = (i: number): number => {
    let r = i;
    while (parent[r] !== r) r = parent[r]!;
    // Path compression: point every node on the way at the root.
    while (parent[i] !== r) {
      const next = parent[i]!;
      parent[i] = r;
      i = next;
    }
    return r;
  };
  return {
    find,
    union(a, b) {
      const ra = find(a);
      const rb = find(b);
      if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
    },
  };
}

/** A binary min-heap of numbers (Kahn's 'smallest' tie break). */
class MinHeap {
  private readonly items: number[] = [];

  get size(): number {
    return this.items.length;
  }

  push(x: number): void {
    const a = this.items;
    let i = a.length;
    a.push(x);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent]! <= x) break;
      a[i] = a[parent]!;
      i = parent;
    }
    a[i] = x;
  }

  /** Removes and returns the smallest item (the heap must not be empty). */
  pop(): number {
    const a = this.items;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= a.length) break;
        const c = l + 1 < a.length && a[l + 1]! < a[l]! ? l + 1 : l;
        if (a[c]! >= last) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}
