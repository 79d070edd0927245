// fast-check entry points of the program generator: Arbitraries of generated cases.
//
// `arbitraryCase` draws a node count and a seed and runs the seeded generator: cheap to
// generate and cheap to shrink (fast-check shrinks the node count towards the minimum, which
// keeps most of the program's early statements, and tries a few other seeds). A failing
// property on a medium program shrinks in well under a second.
//
// `arbitraryCaseDrawByDraw` records every integer the generator draws through `fc.gen()`, so a
// failure shrinks decision by decision (towards the first, simplest choice of each) and stays
// well-typed, since generation is constructive. The shrunk case is smaller, but shrinking a
// medium program can take tens of seconds: use it when hunting a bug, with a small numRuns.

import fc from 'fast-check';
import { printProgram } from '../../src/ir/printer.js';
import type { Rng } from './rng.js';
import { type GeneratedCase, type GeneratorOptions, generateCase, randomProgram } from './genProgram.js';

export function fastCheckRng(g: fc.GeneratorValue): Rng {
  return { int: (lo, hi) => g(fc.integer, { min: lo, max: hi }) };
}

function nodeRange(options: GeneratorOptions): { min: number; max: number } {
  const c = options.combinators ?? { min: 1, max: 7 };
  if (typeof c === 'number') return { min: Math.max(1, c), max: Math.max(1, c) };
  return { min: Math.max(1, c.min), max: Math.max(1, c.min, c.max) };
}

/** fast-check prints a counterexample through this: the summary and the program, not raw JSON. */
function printable(c: GeneratedCase): GeneratedCase {
  Object.defineProperty(c, fc.toStringMethod, { value: () => `${c.description}\n${printProgram(c.program)}`, enumerable: false });
  return c;
}

/** Random well-typed programs with matching inputs; see GeneratorOptions for the size knobs. */
export function arbitraryCase(options: GeneratorOptions = {}): fc.Arbitrary<GeneratedCase> {
  return fc
    .record({ nodes: fc.integer(nodeRange(options)), seed: fc.integer({ min: 0, max: 0x7fffffff }) })
    .map(({ nodes, seed }) => printable(randomProgram(seed, { ...options, combinators: nodes })));
}

/** Like `arbitraryCase`, but every decision shrinks on its own (slower; see the header). */
export function arbitraryCaseDrawByDraw(options: GeneratorOptions = {}): fc.Arbitrary<GeneratedCase> {
  return fc.gen().map((g) => printable(generateCase(fastCheckRng(g), options)));
}
