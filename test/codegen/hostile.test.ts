// Generated code never splices user text: hostile VarNames and program names, and awkward
// number literals (NaN, ±Infinity, -0, extreme exponents), reach the code only as generated
// identifiers and re-printed numbers; the program still runs and equals the interpreter.

import { describe, expect, test } from 'vitest';
import { interpret } from '../../src/interp/index.js';
import { printNumber } from '../../src/codegen/index.js';
import { printExpr } from '../../src/codegen/printer.js';
import { id, member } from '../../src/codegen/jsast.js';
import { CompilerBug } from '../../src/diagnostics/index.js';
import { compileProgram, emitJs } from '../../src/runtime/index.js';
import { arr, array, arrayParam, bin, c, lam, nodes, opLam, program, v } from '../ir/builders.js';
import { planOf } from './paper.js';
import { expectSameValues } from '../runtime/equal.js';

const hostile = ['constructor', '__proto__', 'x\n;alert(1)', '"); process.exit(1); ("', 'toString', 'rt', 'Math', 'a0', 'i4'];

describe('hostile names and literals', () => {
  const n = nodes();
  const [inName, mid, out, param, acc] = [hostile[0]!, hostile[1]!, hostile[2]!, hostile[3]!, hostile[6]!];
  const consts = [Number.NaN, Infinity, -Infinity, -0, 1e300, 5e-324, -2.5e-7];
  const m = n.map(
    [arr(mid, 'f64', 1)],
    [inName],
    lam([[param, 'f64']], consts.reduce((e, k) => bin('max', e, c('f64', k)), bin('*', v(param, 'f64'), c('f64', -0)))),
  );
  const fo = n.fold([arr(out, 'f64', 0)], opLam('+', 'f64', acc, hostile[5]!), [c('f64', -0)], [mid]);
  const p = { ...program('x\n*/ evil', [arrayParam(inName, 'f64', 1)], [m, fo], [out]) };
  const fused = planOf([{ nodes: [0, 1], manifest: [out] }], { 0: 0, 1: 0 });
  const none = planOf([{ nodes: [0], manifest: [mid] }, { nodes: [1], manifest: [out] }], { 0: 0, 1: 0 });

  test.each([
    ['fused', fused],
    ['unfused', none],
  ])('%s: no user text in the code, and the results equal the interpreter', (_, plan) => {
    const text = emitJs(p, plan);
    for (const name of [...hostile.slice(0, 4), 'evil', 'alert', 'process']) expect(text).not.toContain(name);
    expect(text).not.toContain('NaN');
    expect(text).not.toContain('Infinity');
    const inputs = [array('f64', [3], [1, -2, Number.NaN])];
    const { results, stats } = compileProgram(p, plan).run(inputs, { counters: true });
    expectSameValues(results, interpret(p, inputs));
    // Counters keyed by the user's names, `__proto__` included.
    expect(Object.keys(stats.counters!)).toContain(inName);
    expect(stats.counters![out]!.writes).toBe(1);
  });

  test.each([
    [Number.NaN, '(0 / 0)'],
    [Infinity, '(1 / 0)'],
    [-Infinity, '(-1 / 0)'],
    [-0, '(-0)'],
    [0, '0'],
    [1e300, '1e+300'],
    [5e-324, '5e-324'],
    [-2.5, '(-2.5)'],
  ])('printNumber(%s) is %s and evaluates back to it', (x, printed) => {
    expect(printNumber(x)).toBe(printed);
    expect(Object.is(new Function(`return ${printed};`)(), x)).toBe(true);
  });

  test.each(['__proto__', 'constructor', 'x y', 'a\nb', 'NaN', 'this', ''])('the printer refuses the identifier %j', (name) => {
    expect(() => printExpr(id(name))).toThrow(CompilerBug);
    expect(() => printExpr(member(id('rt'), name))).toThrow(CompilerBug);
  });
});
