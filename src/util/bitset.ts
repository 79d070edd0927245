// Bit sets of small integers (node indices) as Uint32Array words: element i is bit i & 31 of
// word i >>> 5. The planner's reachability sets over blocks of a thousand nodes are unions of
// such words in tight loops, so the words stay visible (no copying wrapper), and the helpers
// are tiny functions V8 inlines.

/** A read-only view of a bit set, with its words for tight loops. */
export interface BitSet {
  has(i: number): boolean;
  /** The bits, 32 elements a word (element i is bit i & 31 of word i >>> 5). */
  readonly words: Uint32Array;
}

/** The number of words that hold elements 0 … n−1. */
export function wordCount(n: number): number {
  return (n + 31) >>> 5;
}

/** An empty bit set's words for elements 0 … n−1. */
export function emptyWords(n: number): Uint32Array {
  return new Uint32Array(wordCount(n));
}

/** Whether element i is in the words. */
export function hasBit(words: Uint32Array, i: number): boolean {
  return (words[i >>> 5]! & (1 << (i & 31))) !== 0;
}

/** Adds element i to the words, in place. */
export function addBit(words: Uint32Array, i: number): void {
  words[i >>> 5]! |= 1 << (i & 31);
}

/** Adds every element of `source` to `target`, in place (equal lengths). */
export function unionInto(target: Uint32Array, source: Uint32Array): void {
  for (let w = 0; w < target.length; w++) target[w]! |= source[w]!;
}

/** The number of elements in the words. */
export function popCount(words: Uint32Array): number {
  let count = 0;
  for (let w of words) {
    for (; w !== 0; w &= w - 1) count++;
  }
  return count;
}

/** A BitSet view of the words (shared, not copied). */
export function bitSetOf(words: Uint32Array): BitSet {
  return { has: (i) => hasBit(words, i), words };
}
