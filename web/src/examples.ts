// The examples menu: the paper's examples (examples/*.fuse) and two case studies
// (bench/programs), read at build time, each with the inputs it runs well on.

import bundled from 'arrayfuse:examples';

export interface Example {
  readonly name: string;
  /** Its path in the repository, shown as the file name in diagnostics. */
  readonly path: string;
  readonly source: string;
  /** The size field: one size for every dimension, or one per dimension. */
  readonly size: string;
  /** The scalars field: scalar arguments that must not be random (block sizes, iteration counts). */
  readonly scalars: string;
}

/** Inputs an example needs beyond the default (size 100, random scalars). */
const presets: Readonly<Record<string, { readonly size: string; readonly scalars: string }>> = {
  // xs of n elements, `large` of n × m: a modest m keeps the interpreter quick.
  greedyBottomUpBad: { size: '100', scalars: 'm=50' },
  // Q, K, V of 64 × 16, key and query blocks of 16 rows (random block sizes could be 0).
  flashAttention: { size: '64, 16', scalars: 'br=16, bc=16' },
  // A 16³ grid (a power of two), one V-cycle iteration.
  mg: { size: '16, 16, 16', scalars: 'nit=1' },
};

export const examples: readonly Example[] = bundled.map((e) => ({
  ...e,
  ...(Object.hasOwn(presets, e.name) ? presets[e.name]! : { size: '100', scalars: '' }),
}));

/** The example shown first: the paper's opening example. */
export const firstExample: Example = examples.find((e) => e.name === 'singleLoop') ?? examples[0]!;
