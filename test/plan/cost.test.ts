// parseCost: the cost names of docs/PLANNING.md, weighted sums, and errors with columns.
import { describe, expect, it } from 'vitest';
import { diagnosticPosition, UserError } from '../../src/diagnostics/index.js';
import { coefficientOf, costNames, parseCost } from '../../src/plan/cost.js';

const summary = (text: string): string =>
  parseCost(text)
    .terms.map((t) => `${t.coefficient}*${t.term}${t.byteWeighted ? '(bytes)' : ''}`)
    .join(' + ');

describe('parseCost accepts', () => {
  it.each([
    ['reads+writes', '1*reads + 1*intermediate-arrays'],
    ['reads', '1*reads'],
    ['writes', '1*intermediate-arrays'],
    ['intermediate-arrays', '1*intermediate-arrays'],
    ['clusters', '1*clusters'],
    ['fused-edges', '1*fused-edges'],
    ['everything', '1*clusters + 1*fused-edges + 1*intermediate-arrays + 1*reads'],
    ['bytes', '1*reads(bytes) + 1*intermediate-arrays(bytes)'],
    ['2*reads + writes', '2*reads + 1*intermediate-arrays'],
    ['reads + 0.5 * fused-edges', '1*reads + 0.5*fused-edges'],
    ['  reads  +  reads ', '2*reads'],
    ['everything + 2*reads', '1*clusters + 1*fused-edges + 1*intermediate-arrays + 3*reads'],
    ['0*clusters+1e1*writes', '0*clusters + 10*intermediate-arrays'],
    ['.5*bytes + reads', '0.5*reads(bytes) + 0.5*intermediate-arrays(bytes) + 1*reads'],
  ])('%s', (text, expected) => {
    expect(summary(text)).toBe(expected);
  });

  it('keeps the text and answers coefficients, writes and intermediate-arrays being one term', () => {
    const spec = parseCost('2*reads + writes');
    expect(spec.text).toBe('2*reads + writes');
    expect(coefficientOf(spec, 'writes', false)).toBe(1);
    expect(coefficientOf(spec, 'intermediate-arrays', false)).toBe(1);
    expect(coefficientOf(spec, 'reads', true)).toBe(0);
  });

  it('every listed name parses', () => {
    for (const { name } of costNames) expect(() => parseCost(name)).not.toThrow();
  });
});

describe('parseCost rejects', () => {
  it.each([
    ['', 'E650', 'empty', '1:1'],
    ['   ', 'E650', 'empty', '1:1'],
    ['read', 'E651', 'unknown cost name `read`', '1:1'],
    ['reads + bites', 'E651', 'unknown cost name `bites`', '1:9'],
    ['reads-writes', 'E651', 'unknown cost name `reads-writes`', '1:1'],
    ['1.2.3*reads', 'E652', 'malformed coefficient `1.2.3`', '1:1'],
    ['reads + 2e*writes', 'E652', 'malformed coefficient', '1:9'],
    ['-1*reads', 'E653', 'negative', '1:1'],
    ['reads - writes', 'E653', 'subtraction', '1:7'],
    ['2reads', 'E654', 'missing `*`', '1:2'],
    ['2 reads', 'E654', 'expected `*`', '1:3'],
    ['reads +', 'E655', 'expected a cost name', '1:8'],
    ['2*', 'E655', 'expected a cost name', '1:3'],
    ['reads + *writes', 'E655', 'expected a cost name', '1:9'],
    ['1e999*reads', 'E656', 'too large', '1:1'],
    ['reads / 2', 'E657', 'unexpected character `/`', '1:7'],
    ['reads*2', 'E658', 'before the name', '1:6'],
    ['reads writes', 'E659', 'expected `+`', '1:7'],
  ])('%j → %s %s at %s', (text, code, fragment, position) => {
    let error: unknown;
    try {
      parseCost(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UserError);
    const d = (error as UserError).diagnostics[0]!;
    expect(d.code).toBe(code);
    expect(d.message).toContain(fragment);
    expect(diagnosticPosition(d)).toBe(position);
  });

  it('lists the valid names when a name is unknown', () => {
    try {
      parseCost('clustres');
      expect.unreachable();
    } catch (e) {
      const note = (e as UserError).diagnostics[0]!.notes!.join('\n');
      for (const { name } of costNames) expect(note).toContain(name);
    }
  });
});
