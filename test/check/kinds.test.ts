// The checker's facts per combinator (src/check/kinds.ts) are written down apart from the
// planner's rule table (src/ir/rules.ts) on purpose: the checker must not lean on the code it
// checks. Here, and only here, the two statements of the paper's rules are compared, so that a
// slip in either (say, a new combinator's output orders) shows as a disagreement.

import { describe, expect, it } from 'vitest';
import { freeOrders, kindFacts, type OutputOrders } from '../../src/check/kinds.js';
import { combinatorRules, type OutputOrderDomain } from '../../src/ir/rules.js';
import { combinatorKinds } from '../../src/ir/types.js';

const sameDomain: Readonly<Record<OutputOrders, OutputOrderDomain>> = { any: 'any', 'zero-or-one': 'linear', zero: 'zero', one: 'one' };

describe("the checker's kind facts", () => {
  it('name every combinator of the IR', () => {
    expect(Object.keys(kindFacts)).toEqual(combinatorKinds);
  });

  it.each(combinatorKinds)('agree with the planner rule table on %s', (kind) => {
    const facts = kindFacts[kind];
    const rule = combinatorRules[kind];
    expect(sameDomain[facts.outputOrders]).toBe(rule.outputOrder);
    expect(facts.unstreamedOutput !== null).toBe(rule.infusibleOutput !== null);
    expect(facts.updatesInPlace).toBe(rule.updatesInPlace?.role ?? null);
    expect(facts.labelled).toBe(rule.labelled);
  });

  it('give a free node of a scan its one order and any other node 0 or 1', () => {
    expect(combinatorKinds.map((k) => [k, freeOrders(kindFacts[k].outputOrders)])).toEqual([
      ['generate', [0, 1]], ['map', [0, 1]], ['gather', [0, 1]], ['scatter', [0, 1]],
      ['fold', [0, 1]], ['scanl', [0]], ['scanr', [1]], ['force', [0, 1]],
    ]);
  });
});
