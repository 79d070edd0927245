// What the controls say, parsed: strategy, cost, input size, seed and scalar arguments.
// Pure functions; a bad field gives a message naming it, shown by the page instead of a run.

import { parseCost, UserError, type Strategy } from '../../src/index.js';

export const strategies: readonly Strategy[] = ['ilp', 'greedy-down', 'greedy-up', 'none'];

/** The named costs of README ("The command line") and docs/PLANNING.md; any weighted sum may be typed instead. */
export const namedCosts: readonly string[] = [
  'reads+writes+recompute', 'reads+writes', 'reads', 'writes', 'intermediate-arrays', 'recompute',
  'fused-edges', 'clusters', 'everything', 'bytes',
];

/** The largest size of one dimension the page accepts: random inputs are built in the page. */
export const maxDimension = 1 << 24;

/**
 * The most elements one input array may have in the page: the reference interpreter runs on
 * the page's thread too, and at 2^24 elements it held the page for 20 s. The API and the
 * command line have no such limit.
 */
export const maxElements = 1 << 21;

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

/** `100` or `64, 16`: one size for every dimension, or one per dimension. */
export function parseSize(text: string): Parsed<number | readonly number[]> {
  const parts = text.split(',').map((p) => p.trim());
  const sizes = parts.map(Number);
  if (parts.some((p) => !/^\d+$/.test(p)) || sizes.some((n) => n > maxDimension)) {
    return { ok: false, message: `size: expected a whole number from 0 to ${maxDimension}, or several separated by commas, not "${text}"` };
  }
  return { ok: true, value: sizes.length === 1 ? sizes[0]! : sizes };
}

/** A seed: a whole number from 0 to 2^32 - 1. */
export function parseSeed(text: string): Parsed<number> {
  const seed = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || seed > 0xffffffff) return { ok: false, message: `seed: expected a whole number from 0 to 4294967295, not "${text}"` };
  return { ok: true, value: seed };
}

/** `br=16, bc=16, flag=True`: scalar arguments that replace random ones, by parameter name. */
export function parseScalars(text: string): Parsed<ReadonlyMap<string, number | boolean>> {
  const values = new Map<string, number | boolean>();
  for (const item of text.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\S+)$/.exec(item);
    const raw = match?.[2];
    const value = raw === 'True' || raw === 'true' ? true : raw === 'False' || raw === 'false' ? false : Number(raw);
    if (match === null || (typeof value === 'number' && !Number.isFinite(value))) {
      return { ok: false, message: `scalars: expected name=number items separated by commas, not "${item}"` };
    }
    values.set(match[1]!, value);
  }
  return { ok: true, value: values };
}

/** The cost to plan with: the selected name, or the typed text when "other" is selected, checked by the cost parser. */
export function costOf(selected: string, typed: string): Parsed<string> {
  if (selected !== 'other') return { ok: true, value: selected };
  const text = typed.trim();
  if (text === '') return { ok: false, message: 'cost: type a cost such as "2*reads + writes"' };
  try {
    parseCost(text);
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    const d = e.diagnostics[0]!;
    const at = d.span === undefined ? '' : ` (at column ${d.span.start + 1})`;
    return { ok: false, message: `cost: ${d.message}${at}` };
  }
  return { ok: true, value: text };
}

/** The seed of the `k`th parameter's random values: two parameters of one type get different values. */
export function parameterSeed(seed: number, k: number): number {
  return (seed + Math.imul(k, 0x9e3779b9)) >>> 0;
}
