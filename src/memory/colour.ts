// Interval colouring of live ranges onto pooled byte buffers (slots): a linear scan over the
// ranges by start with a free list. Slots are byte buffers every array views from byte 0, so
// arrays of any element types may share one. A range of known size takes the smallest free slot
// that is large enough, else grows the largest free one (growing by the difference never costs
// more than a new slot), else opens a new slot. A range of run-time size (bytes null) shares only
// with other run-time-sized ranges: such a slot grows at run time to the largest size it meets.

import { CompilerBug } from '../diagnostics/index.js';

export interface ColourRange {
  readonly array: string;
  readonly start: number;
  readonly end: number;
  readonly bytes: number | null;
}

export interface ColouredSlot {
  readonly bytes: number | null;
  readonly arrays: readonly string[];
}

export interface Colouring {
  /** The slot of each range, by its index in the input. */
  readonly slotOf: readonly number[];
  readonly slots: readonly ColouredSlot[];
}

interface MutableSlot {
  bytes: number | null;
  readonly arrays: string[];
}

/** Assigns slots so that no two ranges that intersect (inclusive bounds) share one. */
export function colour(ranges: readonly ColourRange[]): Colouring {
  const order = ranges.map((_, k) => k).sort((a, b) => ranges[a]!.start - ranges[b]!.start || a - b);
  const slots: MutableSlot[] = [];
  const slotOf: number[] = new Array<number>(ranges.length).fill(-1);
  let active: { readonly end: number; readonly slot: number }[] = [];
  const free = new Set<number>();
  for (const k of order) {
    const r = ranges[k]!;
    if (r.end < r.start) throw new CompilerBug('memory', `colour: range of ${r.array} ends before it starts`);
    active = active.filter((a) => {
      if (a.end >= r.start) return true;
      free.add(a.slot);
      return false;
    });
    const slot = pick(r.bytes, [...free], slots);
    free.delete(slot);
    if (slot === slots.length) slots.push({ bytes: r.bytes, arrays: [] });
    const s = slots[slot]!;
    if (r.bytes !== null && s.bytes !== null && s.bytes < r.bytes) s.bytes = r.bytes;
    s.arrays.push(r.array);
    slotOf[k] = slot;
    active.push({ end: r.end, slot });
  }
  return { slotOf, slots };
}

/** The slot a range of `bytes` takes among the free ones (`slots.length`: a new one). */
function pick(bytes: number | null, free: readonly number[], slots: readonly MutableSlot[]): number {
  const candidates = free.filter((f) => (slots[f]!.bytes === null) === (bytes === null)).sort((a, b) => a - b);
  if (candidates.length === 0) return slots.length;
  if (bytes === null) return candidates[0]!;
  const size = (f: number): number => slots[f]!.bytes!;
  const fitting = candidates.filter((f) => size(f) >= bytes);
  if (fitting.length > 0) return fitting.reduce((best, f) => (size(f) < size(best) ? f : best));
  return candidates.reduce((best, f) => (size(f) > size(best) ? f : best));
}
