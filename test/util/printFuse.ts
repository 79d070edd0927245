// Prints a core IR Program as `.fuse` source text, for the parser/lowering round trip: parse
// and lower the text, run both programs, and the results must be equal.
//
// The text is fully parenthesised and spells out every type the IR fixed: u32 and f32
// constants are casts of literals, a cast to bool is `x != 0`, a cast from bool a conditional
// (the language has no bool casts), element-level lets are inlined, multi-component arrays are
// `zip`ped going in and `unzip`ped coming out, and a tuple lambda parameter is indexed
// (`acc[0]`). `while` loops re-bind their outputs' names (the language's loop-carried
// variables), so the loop's cond and body are printed with their params renamed to those.
// Names are printed as they are: the generator never makes one that is a builtin's (`i32`).

import type { Block, Expr, Lambda, Program, ScalarType, Stmt, VarName } from '../../src/ir/types.js';

/**
 * What printing needs to know: the text for a name (itself, an inlined let, a tuple component,
 * a renamed loop param) and every array's rank (`shape(xs)` is a scalar for rank 1, a tuple
 * `shape(xs)[k]` above).
 */
interface Env {
  readonly names: ReadonlyMap<VarName, string>;
  readonly ranks: ReadonlyMap<VarName, number>;
  /** Inside arithmetic on constants only: i32 constants are printed typed, see printExpr. */
  readonly typedConstants?: boolean;
}

function floatLiteral(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return `${v}.0`;
  return String(v).replace('e+', 'e');
}

function constant(type: ScalarType, v: number, typed = false): string {
  const paren = (s: string): string => (s.startsWith('-') ? `(${s})` : s);
  switch (type) {
    case 'f64':
      return paren(floatLiteral(v));
    case 'f32':
      return `f32(${floatLiteral(v)})`;
    case 'i32':
      if (typed) return `i32(${paren(String(v))})`;
      return v === -2147483648 ? '(-2147483647 - 1)' : paren(String(v));
    case 'u32':
      // Literals are i32: a u32 above 2^31 - 1 is the cast of the i32 with the same bits.
      return `u32(${paren(String(v | 0))})`;
    case 'u8':
    case 'i8':
      // The cast of the literal: every value of the type is a literal that fits it.
      return `${type}(${paren(String(v))})`;
    case 'bool':
      return v !== 0 ? 'true' : 'false';
    default:
      return type satisfies never;
  }
}

function zero(type: ScalarType): string {
  return constant(type, 0);
}

function constantsOnly(e: Expr): boolean {
  switch (e.kind) {
    case 'const':
      return true;
    case 'unary':
    case 'cast':
    case 'call':
      return constantsOnly(e.arg);
    case 'binary':
      return constantsOnly(e.lhs) && constantsOnly(e.rhs);
    case 'select':
      return constantsOnly(e.cond) && constantsOnly(e.then) && constantsOnly(e.else);
    default:
      return false;
  }
}

function printExpr(e: Expr, env: Env): string {
  const p = (x: Expr): string => printExpr(x, env);
  const name = (n: VarName): string => env.names.get(n) ?? n;
  // Arithmetic among bare literals is exact in .fuse (weak literals), but wraps on the IR's
  // typed constants: print those constants typed (`i32(7)`) so the text means what the IR does.
  if (!env.typedConstants && e.kind !== 'const' && constantsOnly(e)) return printExpr(e, { ...env, typedConstants: true });
  switch (e.kind) {
    case 'const':
      return constant(e.type, e.value, env.typedConstants);
    case 'var':
      return name(e.name);
    case 'unary':
      return e.op === 'neg' ? `(-${p(e.arg)})` : e.op === 'bitnot' ? `(~${p(e.arg)})` : `(not ${p(e.arg)})`;
    case 'binary':
      return e.op === 'min' || e.op === 'max' ? `${e.op}(${p(e.lhs)}, ${p(e.rhs)})` : `(${p(e.lhs)} ${e.op} ${p(e.rhs)})`;
    case 'call':
      return `${e.fn}(${p(e.arg)})`;
    case 'cast':
      if (e.to === 'bool') return `(${p(e.arg)} != ${zero(e.arg.type)})`;
      if (e.arg.type === 'bool') return `(${constant(e.to, 1)} if ${p(e.arg)} else ${zero(e.to)})`;
      return `${e.to}(${p(e.arg)})`;
    case 'select':
      return `(${p(e.then)} if ${p(e.cond)} else ${p(e.else)})`;
    case 'index':
      // A rank-0 array read as a scalar is just its name.
      return e.indices.length === 0 ? name(e.array) : `${name(e.array)}[${e.indices.map(p).join(', ')}]`;
    case 'dim':
      return (env.ranks.get(e.array) ?? 1) > 1 ? `shape(${name(e.array)})[${e.axis}]` : `shape(${name(e.array)})`;
    default:
      return e satisfies never;
  }
}

/**
 * `lam(a, b): e`. `groups` splits the IR params into tuple-valued surface params (fold and
 * scatter ops take (acc…, x…)): a group of one is the param itself, else `g[k]` components.
 */
/** One element-level expression as `.fuse` text; `ranks` gives the rank of arrays it mentions. */
export function printFuseExpr(e: Expr, ranks: ReadonlyMap<VarName, number> = new Map()): string {
  return printExpr(e, { names: new Map(), ranks });
}

function printLambda(l: Lambda, env: Env, groups: readonly number[] = l.params.map(() => 1)): string {
  const local = new Map(env.names);
  const inner: Env = { ...env, names: local };
  const surface: string[] = [];
  let next = 0;
  for (const size of groups) {
    const ps = l.params.slice(next, next + size);
    next += size;
    if (size === 1) surface.push(ps[0]!.name);
    else {
      const tuple = `${ps[0]!.name}_t`;
      surface.push(tuple);
      ps.forEach((q, k) => local.set(q.name, `${tuple}[${k}]`));
    }
  }
  // A let is inlined as text: one of constants alone is printed typed, since where it is used
  // (`t + 2147483647`) the text would otherwise be exact literal arithmetic, not the IR's wrap.
  for (const let_ of l.lets) local.set(let_.name, `(${printExpr(let_.expr, constantsOnly(let_.expr) ? { ...inner, typedConstants: true } : inner)})`);
  const results = l.results.map((r) => printExpr(r, inner));
  const body = results.length === 1 ? results[0]! : `(${results.join(', ')})`;
  return `lam(${surface.join(', ')}): ${body}`;
}

function arrays(ns: readonly VarName[], env: Env): string {
  const texts = ns.map((n) => env.names.get(n) ?? n);
  return texts.length === 1 ? texts[0]! : `zip(${texts.join(', ')})`;
}

function bind(outs: readonly { readonly name: VarName }[], rhs: string): string {
  return outs.length === 1 ? `${outs[0]!.name} = ${rhs}` : `${outs.map((o) => o.name).join(', ')} = unzip(${rhs})`;
}

function printStmt(s: Stmt, env: Env, indent: string, out: string[]): void {
  const { names } = env;
  const line = (text: string): void => void out.push(indent + text);
  const lam = (l: Lambda, groups?: readonly number[]): string => printLambda(l, env, groups);
  const e = (x: Expr): string => printExpr(x, env);
  switch (s.kind) {
    case 'scalar':
      return line(`${s.name} = ${e(s.expr)}`);
    case 'generate': {
      const shape = s.shape.length === 1 ? e(s.shape[0]!) : `(${s.shape.map(e).join(', ')})`;
      return line(bind(s.outs, `generate(${shape}, ${lam(s.fn)})`));
    }
    case 'map':
      return line(bind(s.outs, `map(${lam(s.fn)}, ${s.inputs.map((n) => names.get(n) ?? n).join(', ')})`));
    case 'gather':
      return line(bind(s.outs, `gather(${arrays(s.indices, env)}, ${arrays(s.source, env)})`));
    case 'scatter': {
      const k = s.dest.length;
      const src = `zip(${arrays(s.index, env)}, ${arrays(s.values, env)})`;
      return line(bind(s.outs, `${s.drop === true ? 'scatterDrop' : 'scatter'}(${lam(s.op, [k, k])}, ${arrays(s.dest, env)}, ${src})`));
    }
    case 'fold':
    case 'scanl':
    case 'scanr': {
      const k = s.input.length;
      const seed = s.init === null ? '' : `${s.init.length === 1 ? e(s.init[0]!) : `(${s.init.map(e).join(', ')})`}, `;
      return line(bind(s.outs, `${s.kind}(${lam(s.op, [k, k])}, ${seed}${arrays(s.input, env)})`));
    }
    case 'force':
      return line(bind(s.outs, `force(${arrays(s.input, env)})`));
    case 'if': {
      line(`if ${e(s.cond)}:`);
      for (const [branch, label] of [[s.then, 'then'], [s.else, 'else']] as const) {
        if (label === 'else') line('else:');
        printBlockStmts(branch, env, `${indent}  `, out);
        branch.results.forEach((r, k) => out.push(`${indent}  ${s.outs[k]!.name} = ${names.get(r) ?? r}`));
      }
      return;
    }
    case 'while': {
      // The outputs' names are the loop-carried variables: they start as `init` and the cond
      // and body see them where the IR has block params.
      s.outs.forEach((o, k) => line(`${o.name} = ${names.get(s.init[k]!) ?? s.init[k]!}`));
      const condNames = new Map(names);
      const condEnv: Env = { ...env, names: condNames };
      s.cond.params.forEach((q, k) => condNames.set(q.name, s.outs[k]!.name));
      for (const c of s.cond.stmts) {
        if (c.kind !== 'scalar') throw new Error('printFuse: a while condition with array statements');
        condNames.set(c.name, `(${printExpr(c.expr, condEnv)})`);
      }
      line(`while ${condNames.get(s.cond.results[0]!) ?? s.cond.results[0]!}:`);
      const bodyNames = new Map(names);
      s.body.params.forEach((q, k) => bodyNames.set(q.name, s.outs[k]!.name));
      printBlockStmts(s.body, { ...env, names: bodyNames }, `${indent}  `, out);
      s.body.results.forEach((r, k) => out.push(`${indent}  ${s.outs[k]!.name} = ${bodyNames.get(r) ?? r}`));
      return;
    }
    default:
      s satisfies never;
  }
}

function printBlockStmts(b: Block, env: Env, indent: string, out: string[]): void {
  for (const s of b.stmts) printStmt(s, env, indent, out);
}

/** The rank of every array the program binds (params, outputs, block params). */
function ranksOf(p: Program): Map<VarName, number> {
  const ranks = new Map<VarName, number>();
  const visit = (b: Block): void => {
    for (const v of b.params) if (v.kind === 'array') ranks.set(v.name, v.rank);
    for (const s of b.stmts) {
      if (s.kind === 'scalar') continue;
      for (const o of s.outs) if (!('kind' in o) || o.kind === 'array') ranks.set(o.name, o.rank);
      if (s.kind === 'if') [s.then, s.else].forEach(visit);
      if (s.kind === 'while') [s.cond, s.body].forEach(visit);
    }
  };
  visit(p.body);
  return ranks;
}

/** The program as `.fuse` text: one `def` with annotated parameters. */
export function printFuse(p: Program): string {
  const env: Env = { names: new Map(), ranks: ranksOf(p) };
  const out: string[] = [];
  const header = p.params.map((iface) => {
    const comps = iface.components;
    const first = comps[0]!;
    if (first.kind === 'scalar') return `${iface.name}: ${first.elem}`;
    const elem = comps.length === 1 ? first.elem : `(${comps.map((c) => c.elem).join(', ')})`;
    const dims = Array.from({ length: first.rank }, (_, k) => `n${k}`);
    return `${iface.name}: ${elem}[${dims.join(', ')}]`;
  });
  out.push(`def ${p.name}(${header.join(', ')}):`);
  for (const iface of p.params) {
    if (iface.components.length > 1) out.push(`  ${iface.components.map((c) => c.name).join(', ')} = unzip(${iface.name})`);
  }
  printBlockStmts(p.body, env, '  ', out);
  const results = p.results.map((r) => arrays(r.components.map((c) => c.name), env));
  out.push(`  return ${results.join(', ')}`);
  return `${out.join('\n')}\n`;
}
