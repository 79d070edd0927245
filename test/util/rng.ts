// The source of randomness the program generator draws from, and choices built on it.
//
// The generator only ever asks for an integer in an inclusive range, so that the same code runs
// on a seeded PRNG (benchmarks: deterministic, no fast-check) and on fast-check's `fc.gen()`
// (property tests: every draw is recorded, so failures shrink). Everything else (picking from
// a list, weighted choice, coin flips) is derived here from that one primitive.

/** An inclusive-range integer source. Draws near `lo` should be the "simplest" choice. */
export interface Rng {
  int(lo: number, hi: number): number;
}

/**
 * A small seeded PRNG (mulberry32): doubles in [0, 1) from 32 bits of state, fast, good enough
 * for test programs and inputs. Deterministic across platforms since it uses only 32-bit integer
 * arithmetic.
 */
export function uniform(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An Rng over `uniform(seed)`. */
export function seededRng(seed: number): Rng {
  const next = uniform(seed);
  return {
    int(lo: number, hi: number): number {
      if (hi < lo) throw new Error(`seededRng.int: empty range [${lo}, ${hi}]`);
      return lo + Math.floor(next() * (hi - lo + 1));
    },
  };
}

/** True with probability `p` (granularity 1/1000). */
export function chance(rng: Rng, p: number): boolean {
  if (p <= 0) return false;
  if (p >= 1) return true;
  return rng.int(0, 999) < p * 1000;
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  if (items.length === 0) throw new Error('pick from an empty list');
  return items[rng.int(0, items.length - 1)]!;
}

/** Picks by positive weights; entries with weight 0 are never chosen. The first entry is the "simplest". */
export function weighted<T>(rng: Rng, items: readonly (readonly [T, number])[]): T {
  const live = items.filter(([, w]) => w > 0);
  if (live.length === 0) throw new Error('weighted choice with no positive weight');
  const total = live.reduce((s, [, w]) => s + w, 0);
  // Integer weights keep the draw exact; fractional ones are scaled to thousandths.
  const scale = live.every(([, w]) => Number.isInteger(w)) ? 1 : 1000;
  let r = rng.int(0, Math.round(total * scale) - 1);
  for (const [item, w] of live) {
    r -= Math.round(w * scale);
    if (r < 0) return item;
  }
  return live[live.length - 1]![0];
}

/** Picks one of the last few items most of the time (chains), sometimes any (fan-out). */
export function pickRecent<T>(rng: Rng, items: readonly T[]): T {
  if (items.length === 0) throw new Error('pickRecent from an empty list');
  if (chance(rng, 0.65)) {
    const window = Math.min(3, items.length);
    return items[items.length - 1 - rng.int(0, window - 1)]!;
  }
  return pick(rng, items);
}

/** A random subset of `k` distinct items, in their original order. */
export function sample<T>(rng: Rng, items: readonly T[], k: number): T[] {
  const pool = items.map((item, i) => ({ item, i }));
  const chosen: { item: T; i: number }[] = [];
  for (let n = 0; n < k && pool.length > 0; n++) chosen.push(pool.splice(rng.int(0, pool.length - 1), 1)[0]!);
  return chosen.sort((a, b) => a.i - b.i).map((c) => c.item);
}
