// Hostile but valid JSON graphs: every graph the reader accepts (E610–E629 reject the rest)
// plans under every strategy without a CompilerBug, i.e. the checker's own graph of the JSON
// (src/check/jsonGraph.ts) agrees with the reader's (src/graph/fromJson.ts) on ids, orders and
// fusibility. The generator leans on what the two derive separately: tuples read in parts,
// scatters into tuple components, inputs and control-flow outputs (several destination edges
// each), `order` edges, stated infusibility, nested `if`/`while` blocks whose nodes take
// default ids (numbered in dependence order), explicit ids out of order, zero weights and sizes.
// Run locally with thousands of seeds it found nothing beyond the two shapes that
// test/check/graphJson.test.ts pins down (a scatter into one tuple component, and a scatter
// naming its destination in several edges), which need more structure than chance gives.

import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/diagnostics/index.js';
import { planGraph } from '../../src/driver/index.js';
import type { BlockJson, EdgeJson, GraphJson, InputJson, NodeJson } from '../../src/graph/jsonFormat.js';
import type { GraphNodeKind, GraphReadRole, InfusibleReason } from '../../src/graph/types.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import type { Strategy } from '../../src/plan/types.js';
import { seededRng, type Rng } from '../util/rng.js';

const solver = createSolverLoader();
const strategies: readonly Strategy[] = ['ilp', 'greedy-down', 'greedy-up', 'none'];
const costs = ['reads+writes+recompute', 'reads', 'bytes', 'fused-edges', 'everything'];

const ownRoles: { readonly [K in GraphNodeKind]: readonly GraphReadRole[] } = {
  generate: [],
  map: ['map-input'],
  gather: ['gather-indices', 'gather-source'],
  scatter: ['scatter-index', 'scatter-values'],
  fold: ['fold-input'],
  scanl: ['scanl-input'],
  scanr: ['scanr-input'],
  force: ['force-input'],
  if: ['control'],
  while: ['control', 'while-init'],
};
const reasons: readonly InfusibleReason[] = ['indexed', 'force-input', 'force-output', 'scatter-dest', 'scatter-output', 'control-flow', 'shape'];
const elemTypes = ['f64', 'i32', 'bool', 'f32'] as const;

/** What a block's nodes can read: an input (its components) or a node (its outputs). */
interface Source {
  readonly from: string;
  readonly arrays: readonly string[];
  readonly input: boolean;
}

class GraphGen {
  private names = 0;
  private readonly ids = new Set<number>();

  constructor(private readonly rng: Rng) {}

  private chance(p: number): boolean {
    return this.rng.int(0, 999) < p * 1000;
  }

  private pick<T>(xs: readonly T[]): T {
    return xs[this.rng.int(0, xs.length - 1)]!;
  }

  private fresh(prefix: string): string {
    return `${prefix}${this.names++}`;
  }

  private some<T>(xs: readonly T[]): T[] {
    const shuffled = this.shuffle(xs);
    return shuffled.slice(0, this.rng.int(1, shuffled.length));
  }

  private shuffle<T>(xs: readonly T[]): T[] {
    const out = [...xs];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.rng.int(0, i);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  private input(): InputJson {
    const name = this.fresh('in');
    const components = this.chance(0.3) ? Array.from({ length: this.rng.int(1, 3) }, () => this.fresh('c')) : undefined;
    return {
      name,
      ...(components === undefined ? {} : { components }),
      ...(this.chance(0.3) ? { elems: (components ?? [name]).map(() => this.pick(elemTypes)) } : {}),
      ...(this.chance(0.4) ? { size: this.pick([0, 1, 7, 1e6]) } : {}),
      ...(this.chance(0.4) ? { weight: this.pick([0, 0.5, 3]) } : {}),
    };
  }

  block(depth: number, maxNodes: number): BlockJson {
    const inputs = Array.from({ length: this.rng.int(0, 3) }, () => this.input());
    const sources: Source[] = inputs.map((i) => ({ from: i.name, arrays: i.components ?? [i.name], input: true }));
    const nodes: NodeJson[] = [];
    const edges: EdgeJson[] = [];
    const kinds: readonly GraphNodeKind[] =
      depth < 3
        ? ['generate', 'map', 'map', 'gather', 'scatter', 'scatter', 'fold', 'scanl', 'scanr', 'force', 'if', 'while', 'if']
        : ['generate', 'map', 'gather', 'scatter', 'fold', 'scanl', 'scanr', 'force'];
    const count = this.rng.int(0, maxNodes);
    for (let i = 0; i < count; i++) {
      const kind = this.pick(kinds);
      const control = kind === 'if' || kind === 'while';
      const name = this.fresh(kind.slice(0, 2));
      const usable = sources.filter((s) => s.arrays.length > 0);
      if (kind === 'scatter' && usable.length === 0) continue;
      let outs: string[];
      if (control) outs = Array.from({ length: this.rng.int(0, 3) }, () => this.fresh('o'));
      else if (this.chance(0.4)) outs = Array.from({ length: this.rng.int(1, 3) }, () => this.fresh('t'));
      else outs = [name];
      let id: number | undefined;
      if (this.chance(0.15)) {
        do id = this.rng.int(0, 60);
        while (this.ids.has(id));
        this.ids.add(id);
      }
      nodes.push({
        name,
        kind,
        ...(id === undefined ? {} : { id }),
        ...(outs.length > 0 && (control || outs[0] !== name || this.chance(0.2)) ? { outs } : {}),
        ...(outs.length > 0 && this.chance(0.3) ? { elems: outs.map(() => this.pick(elemTypes)) } : {}),
        ...(!control && this.chance(0.3) ? { size: this.pick([0, 1, 100]) } : {}),
        ...(!control && this.chance(0.3) ? { weight: this.pick([0, 1, 2.5]) } : {}),
        ...(control ? { blocks: [this.block(depth + 1, Math.max(1, maxNodes - 2)), this.block(depth + 1, Math.max(1, maxNodes - 2))] } : {}),
      });
      const pairWeights = new Map<string, number>();
      const read = (s: Source, role: GraphReadRole): void => {
        const arrays = s.arrays.length > 1 && this.chance(0.6) ? (this.chance(0.5) ? [this.pick(s.arrays)] : this.some(s.arrays)) : undefined;
        const infusible = !s.input && this.chance(0.15);
        let weight: number | undefined;
        if (!s.input && this.chance(0.2)) {
          weight = pairWeights.get(s.from) ?? this.pick([0, 1, 7]);
          pairWeights.set(s.from, weight);
        }
        edges.push({
          from: s.from,
          to: name,
          role,
          ...(arrays === undefined ? {} : { arrays }),
          ...(infusible ? { fusible: false, reason: this.chance(0.5) ? this.pick(reasons) : this.some(reasons) } : {}),
          ...(weight === undefined ? {} : { weight }),
        });
      };
      if (kind === 'scatter') {
        // Prefer a tuple or a control-flow node's outputs, named one array per edge at times.
        const tuples = usable.filter((s) => s.arrays.length > 1);
        const dest = tuples.length > 0 && this.chance(0.7) ? this.pick(tuples) : this.pick(usable);
        if (dest.arrays.length > 1 && this.chance(0.5)) {
          for (const a of this.some(dest.arrays)) edges.push({ from: dest.from, to: name, role: 'scatter-dest', arrays: [a] });
        } else {
          read(dest, 'scatter-dest');
        }
      }
      const roles = control ? ownRoles[kind] : [...ownRoles[kind], 'indexed' as const];
      const reads = kind === 'generate' ? this.rng.int(0, 1) : this.rng.int(1, 3);
      for (let r = 0; r < reads && usable.length > 0; r++) read(this.pick(usable), this.pick(roles));
      const producers = sources.filter((s) => !s.input);
      if (producers.length > 0 && this.chance(0.2)) {
        edges.push({ from: this.pick(producers).from, to: name, role: 'order', reason: this.pick<InfusibleReason | readonly InfusibleReason[]>(['control-flow', 'shape', ['shape', 'control-flow']]) });
      }
      sources.push({ from: name, arrays: outs, input: false });
    }
    const names = [...new Set([...sources.map((s) => s.from), ...sources.flatMap((s) => s.arrays)])];
    return {
      inputs,
      nodes: this.shuffle(nodes),
      edges: this.shuffle(edges),
      results: names.filter(() => this.chance(0.25)),
    };
  }
}

describe('hostile JSON graphs the reader accepts plan without a CompilerBug', () => {
  it('60 seeded graphs, every strategy', async () => {
    let accepted = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const rng = seededRng(seed);
      const graph: GraphJson = { format: 'arrayfuse-graph', version: 1, ...new GraphGen(rng).block(0, rng.int(2, 8)) };
      const text = JSON.stringify(graph);
      for (const strategy of strategies) {
        const cost = costs[(seed + strategies.indexOf(strategy)) % costs.length]!;
        try {
          await planGraph(text, { solver, strategy, cost, timeLimitSeconds: 5 });
          if (strategy === 'ilp') accepted++;
        } catch (e) {
          // Rejected by the reader (a cycle through scatter precedences, two scatters on one
          // array): fine. Anything else is a finding.
          if (e instanceof UserError) break;
          throw new Error(`seed ${seed}, ${strategy}, ${cost}: ${String(e)}\n${text}`);
        }
      }
    }
    // Most graphs are accepted, so the property is not vacuous.
    expect(accepted).toBeGreaterThan(40);
  }, 60_000);
});
