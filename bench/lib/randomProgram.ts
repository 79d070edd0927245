// Deterministic random programs for planner benchmarks: the test generator behind a seed.
//
// No fast-check here: `randomProgram` draws from a small seeded PRNG, so a benchmark run is
// reproducible from its seeds. `benchmarkProgram(n, seed)` asks for exactly n graph nodes with
// larger arrays, so that size-weighted costs see realistic weights.

import { type GeneratedCase, type GeneratorOptions, randomProgram } from '../../test/util/genProgram.js';

export { type GeneratedCase, type GeneratorOptions, countNodes, randomProgram } from '../../test/util/genProgram.js';

/** A program of exactly `combinators` graph nodes; arrays of up to `maxElements` elements. */
export function benchmarkProgram(combinators: number, seed: number, options: GeneratorOptions = {}): GeneratedCase {
  return randomProgram(seed, { extents: { min: 16, max: 256 }, maxElements: 1 << 16, ...options, combinators });
}
