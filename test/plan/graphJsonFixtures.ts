// Hand-written JSON graphs shared by the reader's tests (test/plan/graphJson) and the
// checker's (test/check/graphJson).

import type { GraphJson } from '../../src/graph/jsonFormat.js';

/** The graph JSON of simple1 (paper §3.2), written by hand as another compiler would; ids left to the reader: as = 0, bs = 1. */
export const simple1: GraphJson = {
  format: 'arrayfuse-graph',
  version: 1,
  name: 'simple1',
  inputs: [{ name: 'is', elems: ['i32'] }, { name: 'xs' }],
  nodes: [
    { name: 'as', kind: 'map' },
    { name: 'bs', kind: 'gather' },
  ],
  edges: [
    { from: 'xs', to: 'as', role: 'map-input' },
    { from: 'is', to: 'bs', role: 'gather-indices' },
    { from: 'as', to: 'bs', role: 'gather-source' },
  ],
  results: ['bs'],
};
