// Prints a fuzz program as `.fuse` source text. Every compound element expression is
// parenthesised, so the printer never depends on the parser's precedence table.

import type { ArrOp, Combine, Expr, Lam, Prog, Stmt } from './ast.js';

export function printExpr(e: Expr): string {
  switch (e.k) {
    case 'lit':
      return e.text.startsWith('-') ? `(${e.text})` : e.text;
    case 'ref':
      return e.name;
    case 'arith':
    case 'cmp':
    case 'logic':
      return `(${printExpr(e.a)} ${e.op} ${printExpr(e.b)})`;
    case 'not':
      return `(not ${printExpr(e.a)})`;
    case 'neg':
      return `(-${printExpr(e.a)})`;
    case 'bitnot':
      return `(~${printExpr(e.a)})`;
    case 'bitcount':
      return `${e.fn}(${printExpr(e.a)})`;
    case 'sel':
      return `(${printExpr(e.a)} if ${printExpr(e.c)} else ${printExpr(e.b)})`;
    case 'cast':
      return `${e.t}(${printExpr(e.a)})`;
    case 'minmax':
      return `${e.op}(${printExpr(e.a)}, ${printExpr(e.b)})`;
    case 'read':
      return e.bang ? `(${e.arr} ! ${printExpr(e.idx)})` : `${e.arr}[${printExpr(e.idx)}]`;
    case 'size':
      return `size(${e.arr})`;
    default:
      return e satisfies never;
  }
}

function printLam(f: Lam): string {
  const body = f.body.length === 1 ? printExpr(f.body[0]!) : `(${f.body.map(printExpr).join(', ')})`;
  return f.params.length === 1 ? `lam ${f.params[0]}: ${body}` : `lam(${f.params.join(', ')}): ${body}`;
}

function printCombine(c: Combine): string {
  return c.k === 'op' ? c.op : printLam(c.f);
}

export function printOp(op: ArrOp): string {
  switch (op.k) {
    case 'map':
      return `${op.args.length === 2 ? 'zipWith' : 'map'}(${printLam(op.f)}, ${op.args.join(', ')})`;
    case 'generate':
      return `generate(${printExpr(op.size)}, ${printLam(op.f)})`;
    case 'gather':
      return `gather(${op.idx}, ${op.src})`;
    case 'scatter':
      return `scatter(${printCombine(op.op)}, ${op.dest}, zip(${op.idx}, ${op.vals}))`;
    case 'scatterDrop':
      return `scatterDrop(${printCombine(op.op)}, ${op.dest}, zip(${op.idx}, ${op.vals}))`;
    case 'hist':
      return `hist(${printCombine(op.op)}, ${printExpr(op.ne)}, ${printExpr(op.bins)}, ${op.idx}, ${op.vals})`;
    case 'scanSeg':
      return `scan${op.dir}Seg(${op.op}, map(${printLam(op.flags)}, ${op.flagSrc}), ${op.src})`;
    case 'foldSeg':
      return `foldSeg(${op.op}, ${printExpr(op.z)}, ${op.src}, ${op.lens})`;
    case 'permute':
      return `permute(${printCombine(op.op)}, ${op.dest}, ${printLam(op.f)}, ${op.src})`;
    case 'filter':
      return `filter(${printLam(op.p)}, ${op.src})`;
    case 'reverse':
      return `reverse(${op.src})`;
    case 'take':
    case 'drop':
      return `${op.k}(${printExpr(op.n)}, ${op.src})`;
    case 'scan':
      return `scan${op.dir}(${op.op}, ${op.seed === null ? '' : `${printExpr(op.seed)}, `}${op.src})`;
    case 'backpermute':
      return `backpermute(${printExpr(op.size)}, ${printLam(op.f)}, ${op.src})`;
    case 'replicate':
      return `replicate(${printExpr(op.n)}, ${op.src})`;
    case 'transpose':
      return `transpose(${op.src})`;
    case 'rowfold':
      return `fold(${op.op}, ${op.src})`;
    case 'unzipzip':
      return `unzip(zip(${op.a}, ${op.b}))`;
    case 'alias':
      return op.src;
    default:
      return op satisfies never;
  }
}

function printStmt(s: Stmt, indent: string, out: string[]): void {
  switch (s.k) {
    case 'let':
      out.push(`${indent}${s.names.join(', ')} = ${printOp(s.op)}`);
      return;
    case 'scalar':
      out.push(`${indent}${s.name} = ${printExpr(s.e)}`);
      return;
    case 'fold':
      out.push(
        s.via === 'fold'
          ? `${indent}${s.name} = fold(${s.op}, ${s.seed === null ? '' : `${printExpr(s.seed)}, `}${s.src})`
          : `${indent}${s.name} = ${s.via}(${s.src})`,
      );
      return;
    case 'if':
      out.push(`${indent}if ${printExpr(s.c)}:`);
      printBlock(s.then, indent + '  ', out);
      out.push(`${indent}else:`);
      printBlock(s.else, indent + '  ', out);
      return;
    case 'while':
      out.push(`${indent}${s.counter} = 0`);
      out.push(`${indent}while ${s.counter} < ${printExpr(s.bound)}:`);
      printBlock(s.body, indent + '  ', out);
      out.push(`${indent}  ${s.counter} = ${s.counter} + 1`);
      return;
    case 'for':
      out.push(`${indent}for ${s.iv} in range(${s.n}):`);
      printBlock(s.body, indent + '  ', out);
      return;
    default:
      s satisfies never;
  }
}

function printBlock(body: readonly Stmt[], indent: string, out: string[]): void {
  for (const s of body) printStmt(s, indent, out);
}

/** The whole program as one `def main` with annotated parameters. */
export function printProg(p: Prog): string {
  const params = p.params.map((q) => `${q.name}: ${q.elem}${q.rank === 1 ? `[${q.name === 'is' ? 'm' : 'n'}]` : ''}`);
  const out = [`def main(${params.join(', ')}):`];
  printBlock(p.body, '  ', out);
  out.push(`  return ${p.rets.join(', ')}`);
  return out.join('\n') + '\n';
}
