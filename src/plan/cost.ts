// Cost functions as text: the names of docs/PLANNING.md and their non-negative weighted sums.
//
// `parseCost` turns `reads+writes`, `2*reads + writes`, `0.5 * fused-edges`, `bytes` into a
// CostSpec: a list of canonical terms with coefficients. Every strategy (ILP, greedy), the
// evaluator and the brute force read the same CostSpec, so they agree on what a name means.
// Composite names expand here (`everything`, `bytes`) and `writes` is canonicalised to
// `intermediate-arrays`, so consumers only ever see the base terms; equal terms merge
// (`reads + reads` is `2*reads`).
//
// Errors are UserErrors E650–E659 pointing at the column of the cost text that is wrong.

import { SourceFile, userError, type Span } from '../diagnostics/index.js';

/** The base quantities a cost can weigh (PLANNING.md "Cost functions"). */
export type CostTerm = 'clusters' | 'fused-edges' | 'intermediate-arrays' | 'reads' | 'writes' | 'recompute';

export interface CostSpecTerm {
  readonly term: CostTerm;
  readonly coefficient: number;
  /** Weigh arrays by their size in bytes (the `bytes` cost) instead of the default weights. */
  readonly byteWeighted: boolean;
}

export interface CostSpec {
  /** The text the spec was parsed from, for plan output. */
  readonly text: string;
  /**
   * Canonical terms, at most one per (term, byteWeighted) pair, in order of first mention.
   * `parseCost` never emits `writes` (it becomes `intermediate-arrays`); a hand-built spec
   * may, and then it means the same thing.
   */
  readonly terms: readonly CostSpecTerm[];
}

// The weights a cost multiplies by are graph data (src/graph/weights.ts); the type is
// re-exported here for the checker, which may import this file but not the graph stage
// (test/check/imports.test.ts).
export type { CostWeights } from '../graph/weights.js';

interface NamedCost {
  readonly name: string;
  readonly help: string;
  readonly expansion: readonly Omit<CostSpecTerm, 'coefficient'>[];
}

const plain = (term: CostTerm): Omit<CostSpecTerm, 'coefficient'> => ({ term, byteWeighted: false });

const namedCosts: readonly NamedCost[] = [
  { name: 'clusters', help: 'clusters on the longest chain of the cluster order', expansion: [plain('clusters')] },
  { name: 'fused-edges', help: 'fusible edges left unfused', expansion: [plain('fused-edges')] },
  { name: 'intermediate-arrays', help: 'arrays written to memory', expansion: [plain('intermediate-arrays')] },
  { name: 'writes', help: 'alias of intermediate-arrays', expansion: [plain('intermediate-arrays')] },
  { name: 'reads', help: 'distinct memory read streams per array', expansion: [plain('reads')] },
  {
    name: 'recompute',
    help: 'work duplicated by fusing into a gather to a larger shape, in arrays recomputed',
    expansion: [plain('recompute')],
  },
  {
    name: 'reads+writes',
    help: 'reads + writes (the paper\'s cost)',
    expansion: [plain('reads'), plain('intermediate-arrays')],
  },
  {
    name: 'everything',
    help: 'clusters + fused-edges + intermediate-arrays + reads',
    expansion: [plain('clusters'), plain('fused-edges'), plain('intermediate-arrays'), plain('reads')],
  },
  {
    name: 'bytes',
    help: 'reads + writes, arrays weighted by their size in bytes',
    expansion: [
      { term: 'reads', byteWeighted: true },
      { term: 'intermediate-arrays', byteWeighted: true },
    ],
  },
];

/** The cost names a user may write, with one line of help each (for --help texts). */
export const costNames: readonly { readonly name: string; readonly help: string }[] = namedCosts.map(
  ({ name, help }) => ({ name, help }),
);

/**
 * The default: the paper's reads+writes plus recompute, which is exactly reads+writes where sizes
 * are unknown and otherwise only stops fusions that repeat work through a gather (naiveAttention's
 * reads+writes optimum runs 20× slower than this cost's plan; docs/EVALUATION.md).
 */
export const defaultCostText = 'reads+writes+recompute';

/**
 * The default cost plus a launch price: `reads+writes+recompute + c*clusters` with c = K ÷ N,
 * a kernel launch (one cluster on the longest chain) weighed in arrays of N elements — the unit
 * of the unit-weight reads and writes it is added to, when an array has N elements. c is printed
 * to three significant digits (a stable cache key, no spurious precision) and is at most
 * MAX_COEFFICIENT. A RangeError for K or N that is not a positive finite number.
 */
export function launchWeightedCost(launchElements: number, typicalElements: number): string {
  if (!(Number.isFinite(launchElements) && launchElements > 0)) throw new RangeError(`launch cost: expected a positive finite number of elements, got ${String(launchElements)}`);
  if (!(Number.isFinite(typicalElements) && typicalElements > 0)) throw new RangeError(`typical array: expected a positive finite number of elements, got ${String(typicalElements)}`);
  const c = Math.min(MAX_COEFFICIENT, Number((launchElements / typicalElements).toPrecision(3)));
  return `${defaultCostText} + ${String(c)}*clusters`;
}

const validNamesNote = `valid names: ${namedCosts.map((c) => c.name).join(', ')}; combine them as in \`2*reads + writes\``;

type Token =
  | { readonly kind: 'number'; readonly value: number; readonly span: Span }
  | { readonly kind: 'name'; readonly text: string; readonly span: Span }
  | { readonly kind: 'op'; readonly op: '+' | '-' | '*'; readonly span: Span }
  | { readonly kind: 'end'; readonly span: Span };

const numberPattern = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const namePattern = /[A-Za-z_][A-Za-z0-9_-]*/y;

function tokenize(text: string, file: SourceFile): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  while (pos < text.length) {
    const ch = text[pos]!;
    if (/\s/.test(ch)) {
      pos++;
      continue;
    }
    if (ch === '+' || ch === '-' || ch === '*') {
      tokens.push({ kind: 'op', op: ch, span: { start: pos, end: pos + 1 } });
      pos++;
      continue;
    }
    if (/[0-9.]/.test(ch)) {
      numberPattern.lastIndex = pos;
      const m = numberPattern.exec(text);
      // The run of number-like characters, to show all of a malformed coefficient.
      let runEnd = pos;
      while (runEnd < text.length && /[0-9.eE]/.test(text[runEnd]!)) runEnd++;
      const after = text.slice(pos + (m?.[0].length ?? 0));
      // `1.2.3`, `2e*` (an exponent without digits): not a number; `2reads` is a missing `*`.
      if (m === null || /^[0-9.]/.test(after) || /^[eE](?![A-Za-z_])/.test(after)) {
        throw userError('E652', `malformed coefficient \`${text.slice(pos, Math.max(runEnd, pos + 1))}\``, {
          file,
          span: { start: pos, end: Math.max(runEnd, pos + 1) },
        }, ['a coefficient is a non-negative decimal number such as 2, 0.5 or 1e3']);
      }
      const end = pos + m[0].length;
      if (/[A-Za-z_]/.test(text[end] ?? '')) {
        throw userError('E654', `missing \`*\` between the coefficient \`${m[0]}\` and the cost name`, {
          file,
          span: { start: end, end: end + 1 },
        }, [`write \`${m[0]}*${text.slice(end).match(/^[A-Za-z0-9_-]*/)![0]}\``]);
      }
      const value = Number(m[0]);
      // Beyond 1e9 a coefficient times a large weight (an array's bytes) leaves the range HiGHS
      // computes in (it takes 1e20 as infinite), and no cost needs such ratios.
      if (!(value <= MAX_COEFFICIENT)) {
        throw userError('E656', `coefficient \`${m[0]}\` is too large (at most ${MAX_COEFFICIENT.toExponential()})`, { file, span: { start: pos, end } });
      }
      tokens.push({ kind: 'number', value, span: { start: pos, end } });
      pos = end;
      continue;
    }
    namePattern.lastIndex = pos;
    const m = namePattern.exec(text);
    if (m !== null) {
      tokens.push({ kind: 'name', text: m[0], span: { start: pos, end: pos + m[0].length } });
      pos += m[0].length;
      continue;
    }
    throw userError('E657', `unexpected character \`${ch}\` in the cost`, { file, span: { start: pos, end: pos + 1 } }, [
      validNamesNote,
    ]);
  }
  tokens.push({ kind: 'end', span: { start: text.length, end: text.length } });
  return tokens;
}

/**
 * Parses a cost function: `term ('+' term)*` where `term` is `[coefficient '*'] name`.
 * `sourceName` names the text in diagnostics (the option it came from).
 */
/** The largest coefficient a cost may have (E656). */
export const MAX_COEFFICIENT = 1e9;

export function parseCost(text: string, sourceName = '--cost'): CostSpec {
  const file = new SourceFile(sourceName, text);
  const tokens = tokenize(text, file);
  if (tokens.length === 1) {
    throw userError('E650', 'the cost function is empty', { file, span: { start: 0, end: 0 } }, [validNamesNote]);
  }
  const merged: CostSpecTerm[] = [];
  const add = (term: CostTerm, byteWeighted: boolean, coefficient: number): void => {
    const i = merged.findIndex((t) => t.term === term && t.byteWeighted === byteWeighted);
    if (i < 0) merged.push({ term, byteWeighted, coefficient });
    else merged[i] = { ...merged[i]!, coefficient: merged[i]!.coefficient + coefficient };
  };

  let i = 0;
  for (;;) {
    // One term.
    let tok = tokens[i]!;
    if (tok.kind === 'op' && tok.op === '-') {
      throw userError('E653', 'negative coefficients are not allowed: costs are minimised sums of non-negative terms', {
        file,
        span: tok.span,
      });
    }
    let coefficient = 1;
    if (tok.kind === 'number') {
      coefficient = tok.value;
      const star = tokens[i + 1]!;
      if (!(star.kind === 'op' && star.op === '*')) {
        throw userError('E654', `expected \`*\` and a cost name after the coefficient \`${text.slice(tok.span.start, tok.span.end)}\``, {
          file,
          span: star.span,
        }, [validNamesNote]);
      }
      i += 2;
      tok = tokens[i]!;
    }
    if (tok.kind !== 'name') {
      throw userError('E655', 'expected a cost name here', { file, span: tok.span }, [validNamesNote]);
    }
    const named = namedCosts.find((c) => c.name === tok.text);
    if (named === undefined) {
      throw userError('E651', `unknown cost name \`${tok.text}\``, { file, span: tok.span }, [validNamesNote]);
    }
    // `reads+writes` lexes as three tokens; it means reads + writes, which is what the sum gives.
    for (const part of named.expansion) add(part.term, part.byteWeighted, coefficient);
    i++;

    const next = tokens[i]!;
    if (next.kind === 'end') break;
    if (next.kind === 'op' && next.op === '+') {
      i++;
      continue;
    }
    if (next.kind === 'op' && next.op === '-') {
      throw userError('E653', 'subtraction is not allowed: costs are minimised sums of non-negative terms', {
        file,
        span: next.span,
      });
    }
    if (next.kind === 'op' && next.op === '*') {
      throw userError('E658', `write the coefficient before the name, as in \`2*${tok.text}\``, { file, span: next.span });
    }
    throw userError('E659', 'expected `+` between two cost terms', { file, span: next.span }, [validNamesNote]);
  }
  return { text, terms: merged };
}

/** The coefficient of a term in a spec (0 if absent); `writes` and `intermediate-arrays` are one term. */
export function coefficientOf(spec: CostSpec, term: CostTerm, byteWeighted: boolean): number {
  const canonical = term === 'writes' ? 'intermediate-arrays' : term;
  return spec.terms
    .filter((t) => (t.term === 'writes' ? 'intermediate-arrays' : t.term) === canonical && t.byteWeighted === byteWeighted)
    .reduce((sum, t) => sum + t.coefficient, 0);
}
