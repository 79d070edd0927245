// fast-check entry point of the program generator: an Arbitrary of generated cases.
//
// Built on `fc.gen()`, so every integer the generator draws is recorded by fast-check and a
// failing case shrinks draw by draw (towards the first, simplest choice of each decision and
// towards fewer nodes) while staying well-typed: generation is constructive, so any sequence
// of draws gives a valid program.

import fc from 'fast-check';
import type { Rng } from './rng.js';
import { type GeneratedCase, type GeneratorOptions, generateCase } from './genProgram.js';

export function fastCheckRng(g: fc.GeneratorValue): Rng {
  return { int: (lo, hi) => g(fc.integer, { min: lo, max: hi }) };
}

/** Random well-typed programs with matching inputs; see GeneratorOptions for the size knobs. */
export function arbitraryCase(options: GeneratorOptions = {}): fc.Arbitrary<GeneratedCase> {
  return fc.gen().map((g) => generateCase(fastCheckRng(g), options));
}
