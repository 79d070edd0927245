// The checker's two graph builders agree: the BlockGraph of a program (src/check/reads.ts, from
// the IR) and the BlockGraph of that program's graph JSON (src/check/jsonGraph.ts, from what
// the planner's graph builder exported) have the same nodes, dependences, results and ordered
// reads. Three derivations meet here (the checker's from IR, the planner's from IR, the
// checker's from JSON), so a rule misread by one of them shows.
//
// What legitimately differs, and is compared the same way on both sides:
//  - an array read twice in one role (`gather((idx0, idx2, idx2), …)`) is one read in JSON;
//  - a scalar output of a control-flow node: the IR builder counts its use as an (infusible)
//    read of the node, the JSON as an `order` edge; both only order the two nodes, so
//    dependences are compared as pairs (fusible or not), reads only of arrays in ordered roles
//    and of arrays that both sides know.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonBlockGraph } from '../../src/check/jsonGraph.js';
import { programGraph, type BlockGraph } from '../../src/check/reads.js';
import { parseGraphJson } from '../../src/graph/fromJson.js';
import type { GraphJson } from '../../src/graph/jsonFormat.js';
import { graphToJson } from '../../src/graph/toJson.js';
import { programGraphs } from '../../src/graph/program.js';
import { arbitraryCase } from '../util/index.js';
import { randomProgram } from '../util/genProgram.js';

function summary(g: BlockGraph): unknown {
  const pairs = new Set(g.edges.map((e) => `${e.producer}->${e.consumer}`));
  return {
    path: g.path,
    nodes: g.nodes.map((n) => `${n.id} ${n.kind} ${n.outs.map((o) => `${o.name}:${o.elem}`).join(',')}`).sort(),
    dependences: [
      ...new Set([
        ...g.edges.map((e) => `${e.producer}->${e.consumer} ${e.infusible === null ? 'fusible' : 'infusible'}`),
        ...[...g.orderings].flatMap(([c, m]) => [...m.keys()].filter((p) => !pairs.has(`${p}->${c}`)).map((p) => `${p}->${c} infusible`)),
      ]),
    ].sort(),
    reads: [
      ...new Set(
        g.nodes.flatMap((n) =>
          n.reads.filter((r) => r.role !== 'control' && r.role !== 'while-init' && g.groupOf.has(r.name)).map((r) => `${n.id} ${r.name} ${JSON.stringify(r.order)}`),
        ),
      ),
    ].sort(),
    results: [...g.results].sort(),
    children: [...g.children].map(([id, blocks]) => [id, blocks.map(summary)]),
  };
}

/** A program's graph JSON as a user would hand it in; the reader accepts it (or this throws). */
function readBackJson(graphs: ReturnType<typeof programGraphs>): GraphJson {
  const json = JSON.parse(JSON.stringify(graphToJson(graphs))) as GraphJson;
  parseGraphJson(json);
  return json;
}

describe('the checker\'s graph of a program equals its graph of the program\'s graph JSON', () => {
  it('random programs with control flow, scatters and scans (300 cases)', () => {
    fc.assert(
      fc.property(arbitraryCase({ combinators: { min: 1, max: 14 } }), ({ program }) => {
        const json = readBackJson(programGraphs(program));
        expect(summary(jsonBlockGraph(json))).toEqual(summary(programGraph(program)));
      }),
      { numRuns: 300, seed: 3 },
    );
  });

  // Once a bug of src/graph/build.ts (a dangling `else` where element types are collected): a
  // control-flow node's scalar output that another control-flow node uses became a source group
  // of the first node, so graphToJson wrote an edge naming it (`arrays: ["c31"]`) though the
  // node's `outs` lists only arrays, and reading the JSON back failed with E617.
  it('a while\'s scalar used by a later while survives program → graph JSON → reader', () => {
    const { program } = randomProgram(499684040, { combinators: 12 });
    expect(() => readBackJson(programGraphs(program))).not.toThrow();
  });
});
