// Prints core IR in the paper's notation: readable, deterministic, golden-testable.
//
//   def singleLoop(as: f64[_]):
//     inds = generate((dim(as, 0)), λ(i: i32): dim(as, 0) - i - 1)  # 0
//     bs = gather(inds, as)  # 1
//     return bs
//
// Array types print their rank, not their shape (`f64[_, _]`), since the IR knows only ranks;
// every graph node ends with `# id` so plans (which name node ids) can be read against it.
// Expressions print with the fewest parentheses Python's precedence allows. Tuple-valued
// statements print as `a, b = map(…)`.

import type { Block, Expr, Lambda, Program, ScalarType, Stmt, Value, VarName } from './types.js';

// Binding strength, Python's order: a larger number binds tighter.
const precedence = {
  select: 1,
  or: 2,
  and: 3,
  not: 4,
  compare: 5,
  bitOr: 6,
  bitXor: 7,
  bitAnd: 8,
  shift: 9,
  additive: 10,
  multiplicative: 11,
  unary: 12,
  power: 13,
  atom: 14,
} as const;

function binaryPrecedence(op: Expr & { kind: 'binary' }): number {
  switch (op.op) {
    case 'or':
      return precedence.or;
    case 'and':
      return precedence.and;
    case '==':
    case '!=':
    case '<':
    case '<=':
    case '>':
    case '>=':
      return precedence.compare;
    case '+':
    case '-':
      return precedence.additive;
    case '*':
    case '/':
    case '//':
    case '%':
      return precedence.multiplicative;
    case '**':
      return precedence.power;
    case '|':
      return precedence.bitOr;
    case '^':
      return precedence.bitXor;
    case '&':
      return precedence.bitAnd;
    case '<<':
    case '>>':
      return precedence.shift;
    case 'min':
    case 'max':
      return precedence.atom;
    default:
      return op.op satisfies never;
  }
}

function exprPrecedence(e: Expr): number {
  switch (e.kind) {
    case 'binary':
      return binaryPrecedence(e);
    case 'select':
      return precedence.select;
    case 'unary':
      return e.op === 'not' ? precedence.not : precedence.unary;
    case 'const':
      // A negative literal prints with a leading minus: as weak as unary minus.
      return e.value < 0 || Object.is(e.value, -0) ? precedence.unary : precedence.atom;
    case 'var':
    case 'call':
    case 'cast':
    case 'index':
    case 'dim':
      return precedence.atom;
    default:
      return e satisfies never;
  }
}

/** A float literal that reads back as a float: `2.0`, `0.5`, `1e+300`, `inf`, `nan`. */
function floatLiteral(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (Object.is(x, -0)) return '-0.0';
  const text = String(x);
  return /[.eE]/.test(text) ? text : `${text}.0`;
}

function constText(type: ScalarType, value: number): string {
  switch (type) {
    case 'f64':
      return floatLiteral(value);
    case 'f32':
      return `f32(${floatLiteral(value)})`;
    case 'i32':
      return String(value);
    case 'u32':
    case 'u8':
    case 'i8':
      return `${type}(${value})`;
    case 'bool':
      return value !== 0 ? 'true' : 'false';
    default:
      return type satisfies never;
  }
}

function wrapIf(text: string, cond: boolean): string {
  return cond ? `(${text})` : text;
}

export function printExpr(e: Expr): string {
  switch (e.kind) {
    case 'const':
      return constText(e.type, e.value);
    case 'var':
      return e.name;
    case 'unary': {
      const p = exprPrecedence(e);
      // `-(-1)`, not `--1`; `not` of a `not` needs none: `not not b`.
      const arg = wrapIf(printExpr(e.arg), e.op === 'neg' ? exprPrecedence(e.arg) <= p : exprPrecedence(e.arg) < p);
      return e.op === 'not' ? `not ${arg}` : e.op === 'bitnot' ? `~${arg}` : `-${arg}`;
    }
    case 'binary': {
      if (e.op === 'min' || e.op === 'max') return `${e.op}(${printExpr(e.lhs)}, ${printExpr(e.rhs)})`;
      const p = binaryPrecedence(e);
      // Left-associative except `**` (right-associative) and comparisons (non-associative in
      // the sense that Python chains them: `a < b < c` means something else, so parenthesise).
      const rightAssoc = e.op === '**';
      const isCompare = p === precedence.compare;
      const lhsTight = rightAssoc || isCompare ? exprPrecedence(e.lhs) <= p : exprPrecedence(e.lhs) < p;
      const rhsTight = rightAssoc ? exprPrecedence(e.rhs) < p : exprPrecedence(e.rhs) <= p;
      return `${wrapIf(printExpr(e.lhs), lhsTight)} ${e.op} ${wrapIf(printExpr(e.rhs), rhsTight)}`;
    }
    case 'call':
      return `${e.fn}(${printExpr(e.arg)})`;
    case 'cast':
      return `${e.to}(${printExpr(e.arg)})`;
    case 'select': {
      const p = precedence.select;
      const then = wrapIf(printExpr(e.then), exprPrecedence(e.then) <= p);
      const cond = wrapIf(printExpr(e.cond), exprPrecedence(e.cond) <= p);
      const other = wrapIf(printExpr(e.else), exprPrecedence(e.else) < p);
      return `${then} if ${cond} else ${other}`;
    }
    case 'index':
      return `${e.array}[${e.indices.map(printExpr).join(', ')}]`;
    case 'dim':
      return `dim(${e.array}, ${e.axis})`;
    default:
      return e satisfies never;
  }
}

/** `λ(x: f64, y: f64): let t = x * y; t + 1.0`; several results print as a tuple. */
export function printLambda(l: Lambda): string {
  const params = l.params.map((p) => `${p.name}: ${p.type}`).join(', ');
  const lets = l.lets.map((b) => `let ${b.name} = ${printExpr(b.expr)}; `).join('');
  const results = l.results.length === 1 ? printExpr(l.results[0]!) : `(${l.results.map(printExpr).join(', ')})`;
  return `λ(${params}): ${lets}${results}`;
}

function rankText(rank: number): string {
  return Array.from({ length: rank }, () => '_').join(', ');
}

function valueType(v: Value): string {
  return v.kind === 'array' ? `${v.elem}[${rankText(v.rank)}]` : v.elem;
}

function typedValue(v: Value): string {
  return `${v.name}: ${valueType(v)}`;
}

/** One name, or a parenthesised tuple of names: `xs`, `(xs0, xs1)`. */
function names(list: readonly VarName[]): string {
  return list.length === 1 ? list[0]! : `(${list.join(', ')})`;
}

/** A shape: always parenthesised, `(n)`, `(n, m)`, `()`. */
function shapeText(shape: readonly Expr[]): string {
  return `(${shape.map(printExpr).join(', ')})`;
}

function lhs(defs: readonly { readonly name: VarName }[]): string {
  return defs.map((d) => d.name).join(', ');
}

function printStmt(s: Stmt, indent: string, out: string[]): void {
  const line = (text: string): void => {
    out.push(indent + text);
  };
  switch (s.kind) {
    case 'scalar':
      line(`${s.name} = ${printExpr(s.expr)}`);
      return;
    case 'generate':
      line(`${lhs(s.outs)} = generate(${shapeText(s.shape)}, ${printLambda(s.fn)})  # ${s.id}`);
      return;
    case 'map':
      line(`${lhs(s.outs)} = map(${printLambda(s.fn)}, ${s.inputs.join(', ')})  # ${s.id}`);
      return;
    case 'gather':
      line(`${lhs(s.outs)} = gather(${names(s.indices)}, ${names(s.source)})  # ${s.id}`);
      return;
    case 'scatter':
      // `unique` (distinct indices, the prelude's promise) and `drop` (out-of-range updates
      // skipped) only where set, after the node id.
      line(`${lhs(s.outs)} = scatter(${printLambda(s.op)}, ${names(s.dest)}, ${names(s.index)}, ${names(s.values)})  # ${s.id}${s.unique === true ? ' unique' : ''}${s.drop === true ? ' drop' : ''}`);
      return;
    case 'fold':
      line(`${lhs(s.outs)} = fold(${printLambda(s.op)}, ${seeds(s.init)}, ${names(s.input)})  # ${s.id}`);
      return;
    case 'scanl':
    case 'scanr': {
      const seed = s.init === null ? '' : `${seeds(s.init)}, `;
      line(`${lhs(s.outs)} = ${s.kind}(${printLambda(s.op)}, ${seed}${names(s.input)})  # ${s.id}`);
      return;
    }
    case 'force':
      line(`${lhs(s.outs)} = force(${names(s.input)})  # ${s.id}`);
      return;
    case 'if':
      line(`${lhs(s.outs)} = if ${printExpr(s.cond)}:  # ${s.id}`);
      printBlockBody(s.then, indent + '  ', out);
      line('else:');
      printBlockBody(s.else, indent + '  ', out);
      return;
    case 'while':
      line(`${lhs(s.outs)} = while ${s.init.join(', ')}:  # ${s.id}`);
      line(`  cond(${s.cond.params.map(typedValue).join(', ')}):`);
      printBlockBody(s.cond, indent + '    ', out);
      line(`  body(${s.body.params.map(typedValue).join(', ')}):`);
      printBlockBody(s.body, indent + '    ', out);
      return;
    default:
      s satisfies never;
  }
}

function seeds(init: readonly Expr[]): string {
  return init.length === 1 ? printExpr(init[0]!) : `(${init.map(printExpr).join(', ')})`;
}

/** The statements of a nested block, then `yield` of its results. */
function printBlockBody(b: Block, indent: string, out: string[]): void {
  for (const s of b.stmts) printStmt(s, indent, out);
  out.push(`${indent}yield ${b.results.join(', ')}`);
}

/** Prints one block's statements (no header), for debugging dumps of a single block. */
export function printBlock(b: Block, indent = ''): string {
  const out: string[] = [];
  printBlockBody(b, indent, out);
  return out.join('\n');
}

export function printProgram(p: Program): string {
  const out: string[] = [];
  out.push(`def ${p.name}(${p.body.params.map(typedValue).join(', ')}):`);
  // Arrays of tuples are several components; say how they group into what the user wrote.
  for (const iface of p.params) {
    const comps = iface.components.map((c) => c.name);
    if (comps.length !== 1 || comps[0] !== iface.name) out.push(`  # param ${iface.name} = ${names(comps)}`);
  }
  for (const s of p.body.stmts) printStmt(s, '  ', out);
  for (const iface of p.results) {
    const comps = iface.components.map((c) => c.name);
    if (comps.length !== 1 || comps[0] !== iface.name) out.push(`  # result ${iface.name} = ${names(comps)}`);
  }
  out.push(`  return ${p.body.results.join(', ')}`);
  return out.join('\n') + '\n';
}
