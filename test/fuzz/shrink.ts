// Shrinking a failing program: drop statements, inline branches and loop bodies, drop
// results, then replace expressions by an operand of their type or a literal, as long as the
// program stays well scoped and fails in the same way (same class and key). Greedy and
// bounded: the first smaller program that still fails is kept.

import type { ArrOp, Combine, Elem, Expr, Lam, Prog, Stmt } from './ast.js';

function exprNames(e: Expr, locals: ReadonlySet<string>, out: string[]): void {
  switch (e.k) {
    case 'lit':
      return;
    case 'ref':
      if (!locals.has(e.name)) out.push(e.name);
      return;
    case 'size':
      out.push(e.arr);
      return;
    case 'read':
      out.push(e.arr);
      exprNames(e.idx, locals, out);
      return;
    case 'sel':
      exprNames(e.c, locals, out);
      exprNames(e.a, locals, out);
      exprNames(e.b, locals, out);
      return;
    case 'not':
    case 'neg':
    case 'bitnot':
    case 'bitcount':
    case 'cast':
      exprNames(e.a, locals, out);
      return;
    default:
      exprNames(e.a, locals, out);
      exprNames(e.b, locals, out);
  }
}

function lamNames(f: Lam, out: string[]): void {
  const locals = new Set(f.params);
  for (const b of f.body) exprNames(b, locals, out);
}

function combineNames(c: Combine, out: string[]): void {
  if (c.k === 'lam') lamNames(c.f, out);
}

const none: ReadonlySet<string> = new Set();

/** The names an array operation reads. */
function opNames(op: ArrOp): string[] {
  const out: string[] = [];
  switch (op.k) {
    case 'map':
      lamNames(op.f, out);
      out.push(...op.args);
      break;
    case 'generate':
      exprNames(op.size, none, out);
      lamNames(op.f, out);
      break;
    case 'gather':
      out.push(op.idx, op.src);
      break;
    case 'scatter':
      combineNames(op.op, out);
      out.push(op.dest, op.idx, op.vals);
      break;
    case 'scatterDrop':
      combineNames(op.op, out);
      out.push(op.dest, op.idx, op.vals);
      break;
    case 'hist':
      combineNames(op.op, out);
      exprNames(op.ne, none, out);
      exprNames(op.bins, none, out);
      out.push(op.idx, op.vals);
      break;
    case 'scanSeg':
      lamNames(op.flags, out);
      out.push(op.flagSrc, op.src);
      break;
    case 'foldSeg':
      exprNames(op.z, none, out);
      out.push(op.src, op.lens);
      break;
    case 'permute':
      combineNames(op.op, out);
      lamNames(op.f, out);
      out.push(op.dest, op.src);
      break;
    case 'filter':
      lamNames(op.p, out);
      out.push(op.src);
      break;
    case 'take':
    case 'drop':
    case 'replicate':
      exprNames(op.n, none, out);
      out.push(op.src);
      break;
    case 'scan':
      if (op.seed !== null) exprNames(op.seed, none, out);
      out.push(op.src);
      break;
    case 'backpermute':
      exprNames(op.size, none, out);
      lamNames(op.f, out);
      out.push(op.src);
      break;
    case 'unzipzip':
      out.push(op.a, op.b);
      break;
    case 'reverse':
    case 'transpose':
    case 'rowfold':
    case 'alias':
      out.push(op.src);
      break;
    default:
      op satisfies never;
  }
  return out;
}

/** Every name is bound before it is read, and no block that must hold a statement is empty. */
export function wellScoped(p: Prog): boolean {
  const block = (body: readonly Stmt[], bound: Set<string>): boolean => {
    for (const s of body) {
      const reads: string[] = [];
      switch (s.k) {
        case 'let':
          reads.push(...opNames(s.op));
          if (!reads.every((n) => bound.has(n))) return false;
          s.names.forEach((n) => bound.add(n));
          break;
        case 'scalar':
        case 'fold':
          if (s.k === 'scalar') exprNames(s.e, none, reads);
          else {
            if (s.seed !== null) exprNames(s.seed, none, reads);
            reads.push(s.src);
          }
          if (!reads.every((n) => bound.has(n))) return false;
          bound.add(s.name);
          break;
        case 'if':
          exprNames(s.c, none, reads);
          if (!reads.every((n) => bound.has(n)) || s.then.length === 0 || s.else.length === 0) return false;
          if (!block(s.then, new Set(bound)) || !block(s.else, new Set(bound))) return false;
          break;
        case 'while': {
          exprNames(s.bound, none, reads);
          if (!reads.every((n) => bound.has(n))) return false;
          if (!block(s.body, new Set([...bound, s.counter]))) return false;
          break;
        }
        case 'for':
          if (s.body.length === 0 || !block(s.body, new Set([...bound, s.iv]))) return false;
          break;
        default:
          s satisfies never;
      }
    }
    return true;
  };
  const bound = new Set(p.params.map((q) => q.name));
  if (!block(p.body, bound)) return false;
  return p.rets.length > 0 && p.rets.every((r) => bound.has(r));
}

/** Every way to make a block one step smaller. */
function smallerBlocks(body: readonly Stmt[]): Stmt[][] {
  const out: Stmt[][] = [];
  body.forEach((s, k) => {
    const before = body.slice(0, k);
    const after = body.slice(k + 1);
    out.push([...before, ...after]);
    const inline = (inner: readonly Stmt[]): void => {
      out.push([...before, ...inner, ...after]);
    };
    switch (s.k) {
      case 'if':
        inline(s.then);
        inline(s.else);
        for (const t of smallerBlocks(s.then)) out.push([...before, { ...s, then: t }, ...after]);
        for (const e of smallerBlocks(s.else)) out.push([...before, { ...s, else: e }, ...after]);
        break;
      case 'while':
        for (const b of smallerBlocks(s.body)) out.push([...before, { ...s, body: b }, ...after]);
        break;
      case 'for':
        inline(s.body);
        if (s.n > 1) out.push([...before, { ...s, n: 1 }, ...after]);
        for (const b of smallerBlocks(s.body)) out.push([...before, { ...s, body: b }, ...after]);
        break;
      default:
        break;
    }
  });
  return out;
}

function plainLiteral(t: Elem): Expr {
  return t === 'f64' ? { k: 'lit', t, text: '1.0', value: 1 } : t === 'i32' ? { k: 'lit', t, text: '1', value: 1 } : { k: 'cmp', t: 'bool', op: '<', a: plainLiteral('i32'), b: plainLiteral('i32') };
}

/** Every expression one step simpler than `e`: a same-typed operand, a literal, or a simpler part. */
function simplerExprs(e: Expr): Expr[] {
  const out: Expr[] = [];
  const isPlain = e.k === 'lit' || e.k === 'ref' || (e.k === 'cmp' && e.a.k === 'lit' && e.b.k === 'lit');
  if (!isPlain) out.push(plainLiteral(e.t));
  const parts: [string, Expr][] = [];
  if ('a' in e) parts.push(['a', e.a]);
  if ('b' in e) parts.push(['b', e.b]);
  if (e.k === 'sel') parts.push(['c', e.c]);
  if (e.k === 'read') parts.push(['idx', e.idx]);
  for (const [, part] of parts) if (part.t === e.t && e.k !== 'cmp') out.push(part);
  for (const [field, part] of parts) for (const smaller of simplerExprs(part)) out.push({ ...e, [field]: smaller } as Expr);
  return out;
}

function lamVariants(f: Lam): Lam[] {
  return f.body.flatMap((b, k) => simplerExprs(b).map((s) => ({ ...f, body: f.body.map((x, i) => (i === k ? s : x)) })));
}

function combineVariants(c: Combine): Combine[] {
  return c.k === 'lam' ? lamVariants(c.f).map((f) => ({ k: 'lam', f })) : [];
}

/** One array operation with one of its expressions simplified. */
function opVariants(op: ArrOp): ArrOp[] {
  switch (op.k) {
    case 'map':
      return lamVariants(op.f).map((f) => ({ ...op, f }));
    case 'generate':
    case 'backpermute':
      return [...simplerExprs(op.size).map((size) => ({ ...op, size })), ...lamVariants(op.f).map((f) => ({ ...op, f }))];
    case 'scatter':
    case 'scatterDrop':
      return combineVariants(op.op).map((c) => ({ ...op, op: c }));
    case 'hist':
      return [
        ...combineVariants(op.op).map((c) => ({ ...op, op: c })),
        ...simplerExprs(op.ne).map((ne) => ({ ...op, ne })),
        ...simplerExprs(op.bins).map((bins) => ({ ...op, bins })),
      ];
    case 'scanSeg':
      return lamVariants(op.flags).map((flags) => ({ ...op, flags }));
    case 'foldSeg':
      return simplerExprs(op.z).map((z) => ({ ...op, z }));
    case 'permute':
      return [...combineVariants(op.op).map((c) => ({ ...op, op: c })), ...lamVariants(op.f).map((f) => ({ ...op, f }))];
    case 'filter':
      return lamVariants(op.p).map((p) => ({ ...op, p }));
    case 'take':
    case 'drop':
    case 'replicate':
      return simplerExprs(op.n).map((n) => ({ ...op, n }));
    case 'scan':
      return op.seed === null ? [] : simplerExprs(op.seed).map((seed) => ({ ...op, seed }));
    default:
      return [];
  }
}

/** Every block with one expression (anywhere inside it) simplified. */
function simplerExprBlocks(body: readonly Stmt[]): Stmt[][] {
  const out: Stmt[][] = [];
  body.forEach((s, k) => {
    const put = (t: Stmt): void => {
      out.push(body.map((x, i) => (i === k ? t : x)));
    };
    switch (s.k) {
      case 'let':
        for (const op of opVariants(s.op)) put({ ...s, op });
        break;
      case 'scalar':
        for (const e of simplerExprs(s.e)) put({ ...s, e });
        break;
      case 'fold':
        if (s.seed !== null) for (const seed of simplerExprs(s.seed)) put({ ...s, seed });
        break;
      case 'if':
        for (const c of simplerExprs(s.c)) put({ ...s, c });
        for (const t of simplerExprBlocks(s.then)) put({ ...s, then: t });
        for (const e of simplerExprBlocks(s.else)) put({ ...s, else: e });
        break;
      case 'while':
        for (const bound of simplerExprs(s.bound)) put({ ...s, bound });
        for (const b of simplerExprBlocks(s.body)) put({ ...s, body: b });
        break;
      case 'for':
        for (const b of simplerExprBlocks(s.body)) put({ ...s, body: b });
        break;
      default:
        s satisfies never;
    }
  });
  return out;
}

/** Programs one step smaller: statements first (they shrink most), then expressions. */
export function smallerPrograms(p: Prog): Prog[] {
  const out: Prog[] = smallerBlocks(p.body).map((body) => ({ ...p, body }));
  if (p.rets.length > 1) p.rets.forEach((_, k) => out.push({ ...p, rets: p.rets.filter((__, i) => i !== k) }));
  const statements = out.filter(wellScoped);
  return [...statements, ...simplerExprBlocks(p.body).map((body) => ({ ...p, body }))];
}

/** Shrinks while `stillFails` holds, trying at most `budget` candidates. */
export async function shrink(p: Prog, stillFails: (q: Prog) => Promise<boolean>, budget = 400): Promise<Prog> {
  let current = p;
  let tries = 0;
  for (;;) {
    let improved = false;
    for (const candidate of smallerPrograms(current)) {
      if (++tries > budget) return current;
      if (await stillFails(candidate)) {
        current = candidate;
        improved = true;
        break;
      }
    }
    if (!improved) return current;
  }
}
