// Precedence as a property: random expression trees, printed with the FEWEST parentheses the
// documented precedence ladder allows, must parse back to the same tree. A mistake in any level,
// associativity or the lambda/conditional boundaries shows up as a different tree. (Comparison
// operands are always printed tighter than comparisons, so no chained comparison, an error by
// design, is ever produced.)

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BinaryOperator, Expr, Pattern } from '../../src/syntax/index.js';
import { exprToSexpr, parseExprSexpr } from './sexpr.js';

const span = { start: 0, end: 0 };

/** Binding strength, loosest first; mirrors the ladder in src/syntax/parser.ts. */
const Prec = {
  lambda: 0,
  ifexp: 1,
  or: 2,
  and: 3,
  not: 4,
  comparison: 5,
  bitOr: 6,
  bitXor: 7,
  bitAnd: 8,
  shift: 9,
  additive: 10,
  multiplicative: 11,
  unary: 12,
  power: 13,
  bang: 14,
  postfix: 15,
  atom: 16,
} as const;

function binaryPrec(op: BinaryOperator): number {
  switch (op) {
    case 'or':
      return Prec.or;
    case 'and':
      return Prec.and;
    case '==':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=':
      return Prec.comparison;
    case '+':
    case '-':
      return Prec.additive;
    case '*':
    case '/':
    case '//':
    case '%':
      return Prec.multiplicative;
    case '**':
      return Prec.power;
    case '|':
      return Prec.bitOr;
    case '^':
      return Prec.bitXor;
    case '&':
      return Prec.bitAnd;
    case '<<':
    case '>>':
      return Prec.shift;
    default:
      return op satisfies never;
  }
}

function precOf(e: Expr): number {
  switch (e.kind) {
    case 'lambda':
      return Prec.lambda;
    case 'ifexp':
      return Prec.ifexp;
    case 'binary':
      return binaryPrec(e.op);
    case 'unary':
      return e.op === 'not' ? Prec.not : Prec.unary;
    case 'bang':
      return Prec.bang;
    case 'call':
    case 'index':
      return Prec.postfix;
    case 'number':
    case 'bool':
    case 'name':
    case 'tuple':
    case 'opref':
      return Prec.atom;
    default:
      return e satisfies never;
  }
}

function printPattern(p: Pattern): string {
  if (p.kind === 'name') return p.name;
  return p.elems.length === 1 ? `(${printPattern(p.elems[0]!)},)` : `(${p.elems.map(printPattern).join(', ')})`;
}

/** Prints `e` so that it parses at precedence `min` or tighter, adding parentheses only when needed. */
function print(e: Expr, min: number): string {
  const text = printBare(e);
  return precOf(e) < min ? `(${text})` : text;
}

function printArg(e: Expr): string {
  return e.kind === 'opref' ? e.op : print(e, Prec.lambda);
}

function printBare(e: Expr): string {
  switch (e.kind) {
    case 'number':
      return e.text;
    case 'bool':
      return e.value ? 'True' : 'False';
    case 'name':
      return e.name;
    case 'opref':
      return `(${e.op})`;
    case 'tuple':
      return e.elems.length === 1 ? `(${printArg(e.elems[0]!)},)` : `(${e.elems.map(printArg).join(', ')})`;
    case 'binary': {
      const p = binaryPrec(e.op);
      if (e.op === '**') return `${print(e.lhs, Prec.bang)} ** ${print(e.rhs, Prec.unary)}`;
      if (p === Prec.comparison) return `${print(e.lhs, p + 1)} ${e.op} ${print(e.rhs, p + 1)}`;
      return `${print(e.lhs, p)} ${e.op} ${print(e.rhs, p + 1)}`;
    }
    case 'unary':
      return e.op === 'not' ? `not ${print(e.arg, Prec.not)}` : `${e.op}${print(e.arg, Prec.unary)}`;
    case 'ifexp':
      return `${print(e.then, Prec.or)} if ${print(e.cond, Prec.or)} else ${print(e.else, Prec.lambda)}`;
    case 'lambda': {
      // A lone tuple parameter needs its own parentheses: `lam (a, b): e` has two parameters.
      const params = e.params.map(printPattern).join(', ');
      const lone = e.params.length === 1 && e.params[0]!.kind === 'tuple';
      return lone ? `lam (${params}): ${print(e.body, Prec.lambda)}` : `lambda ${params}: ${print(e.body, Prec.lambda)}`;
    }
    case 'bang':
      return `${print(e.target, Prec.bang)} ! ${print(e.index, Prec.postfix)}`;
    case 'call':
      return `${print(e.callee, Prec.postfix)}(${e.args.map(printArg).join(', ')})`;
    case 'index':
      return `${print(e.target, Prec.postfix)}[${e.indices.map((i) => print(i, Prec.lambda)).join(', ')}]`;
    default:
      return e satisfies never;
  }
}

const names = ['a', 'b', 'xs', 'is', 'as', 'f', 'x1', 'min'];
const binaryOps: BinaryOperator[] = ['+', '-', '*', '/', '//', '%', '**', '==', '!=', '<', '<=', '>', '>=', '&', '|', '^', '<<', '>>', 'and', 'or'];

const pattern: fc.Arbitrary<Pattern> = fc.letrec<{ pattern: Pattern }>((tie) => ({
  pattern: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...names).map((name): Pattern => ({ kind: 'name', name, span })),
    fc.array(tie('pattern'), { minLength: 1, maxLength: 3 }).map((elems): Pattern => ({ kind: 'tuple', elems, span })),
  ),
})).pattern;

const expr: fc.Arbitrary<Expr> = fc.letrec<{ expr: Expr; arg: Expr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...names).map((name): Expr => ({ kind: 'name', name, span })),
    fc
      .constantFrom(['0', false], ['42', false], ['1.5', true], ['.5', true], ['2.', true], ['1e-3', true])
      .map(([text, isFloat]): Expr => ({ kind: 'number', text: text as string, isFloat: isFloat as boolean, span })),
    fc.boolean().map((value): Expr => ({ kind: 'bool', value, span })),
    fc.constantFrom(...binaryOps).map((op): Expr => ({ kind: 'opref', op, span })),
    fc
      .tuple(fc.constantFrom(...binaryOps), tie('expr'), tie('expr'))
      .map(([op, lhs, rhs]): Expr => ({ kind: 'binary', op, lhs, rhs, span })),
    fc.tuple(fc.constantFrom('-' as const, '+' as const, '~' as const, 'not' as const), tie('expr')).map(([op, arg]): Expr => ({ kind: 'unary', op, arg, span })),
    fc.tuple(tie('expr'), tie('expr'), tie('expr')).map(([cond, then, otherwise]): Expr => ({ kind: 'ifexp', cond, then, else: otherwise, span })),
    fc.tuple(tie('expr'), fc.array(tie('arg'), { maxLength: 3 })).map(([callee, args]): Expr => ({ kind: 'call', callee, args, span })),
    fc.tuple(tie('expr'), fc.array(tie('expr'), { minLength: 1, maxLength: 2 })).map(([target, indices]): Expr => ({ kind: 'index', target, indices, span })),
    fc.tuple(tie('expr'), tie('expr')).map(([target, index]): Expr => ({ kind: 'bang', target, index, span })),
    fc.array(tie('arg'), { maxLength: 3 }).map((elems): Expr => ({ kind: 'tuple', elems, span })),
    fc
      .tuple(fc.array(pattern, { minLength: 1, maxLength: 3 }), tie('expr'))
      .filter(([params]) => distinctNames(params)) // a parameter named twice is E125
      .map(([params, body]): Expr => ({ kind: 'lambda', params, body, span })),
  ),
  arg: tie('expr'),
})).expr;

describe('printing with minimal parentheses and parsing back', () => {
  it('gives back the same tree', () => {
    fc.assert(
      fc.property(expr, (e) => {
        const source = print(e, Prec.lambda);
        expect(parseExprSexpr(source), source).toBe(exprToSexpr(e));
      }),
      { numRuns: 1500 },
    );
  });

  it('prints with few parentheses (the property would be weak if it parenthesised everything)', () => {
    const a: Expr = { kind: 'name', name: 'a', span };
    const b: Expr = { kind: 'name', name: 'b', span };
    const sum: Expr = { kind: 'binary', op: '+', lhs: a, rhs: b, span };
    const product: Expr = { kind: 'binary', op: '*', lhs: sum, rhs: { kind: 'bang', target: a, index: b, span }, span };
    expect(print(product, Prec.lambda)).toBe('(a + b) * a ! b');
    expect(print({ kind: 'unary', op: '-', arg: { kind: 'binary', op: '**', lhs: a, rhs: b, span }, span }, Prec.lambda)).toBe('-a ** b');
  });
});

function distinctNames(params: readonly Pattern[]): boolean {
  const names = (p: Pattern): string[] => (p.kind === 'name' ? [p.name] : p.elems.flatMap(names));
  const all = params.flatMap(names);
  return new Set(all).size === all.length;
}
