// Test utilities shared by every stage's tests: the random program generator and its parts.
//
// `arbitraryCase(options)` for property tests, `randomProgram(seed, options)` for deterministic
// cases (benchmarks use it through bench/lib/randomProgram.ts, without fast-check), and
// `printFuse(program)` for the parser/lowering round trip.

export { arbitraryCase, arbitraryCaseDrawByDraw, fastCheckRng } from './arbitrary.js';
export {
  type GeneratedCase, type GeneratorOptions, components, countNodes, generateCase, generatorSizes, randomProgram,
} from './genProgram.js';
export { type Rng, seededRng } from './rng.js';
export { randomArray, randomElement, randomScalar } from './inputs.js';
export { printFuse } from './printFuse.js';
