// src/util/bitset.ts against a Set<number>, across word boundaries.

import { describe, expect, it } from 'vitest';
import { addBit, bitSetOf, emptyWords, hasBit, popCount, unionInto, wordCount } from '../../src/util/bitset.js';
import { seededRng } from './rng.js';

describe('bit sets', () => {
  it('sizes words for n elements', () => {
    expect([0, 1, 32, 33, 64, 65].map(wordCount)).toEqual([0, 1, 1, 2, 2, 3]);
    expect(emptyWords(70)).toEqual(new Uint32Array(3));
  });

  it('adds, tests, counts and unites like a Set, bit 31 included', () => {
    const rng = seededRng(13);
    for (let trial = 0; trial < 100; trial++) {
      const n = rng.int(1, 130);
      const [a, b] = [emptyWords(n), emptyWords(n)];
      const [sa, sb] = [new Set<number>(), new Set<number>()];
      for (let k = rng.int(0, n); k > 0; k--) {
        const [i, j] = [rng.int(0, n - 1), rng.int(0, n - 1)];
        addBit(a, i);
        sa.add(i);
        addBit(b, j);
        sb.add(j);
      }
      addBit(a, Math.min(31, n - 1));
      sa.add(Math.min(31, n - 1));
      expect(popCount(a)).toBe(sa.size);
      unionInto(a, b);
      const union = new Set([...sa, ...sb]);
      const view = bitSetOf(a);
      for (let i = 0; i < n; i++) {
        expect(hasBit(a, i)).toBe(union.has(i));
        expect(view.has(i)).toBe(union.has(i));
      }
      expect(popCount(view.words)).toBe(union.size);
    }
  });
});
