// The depth limit of expression trees, checked without recursion.
//
// The parser's own recursion is bounded (MAX_NESTING), but left-associative chains are built
// by loops: `1 + 1 + … + 1` with 10^5 terms, or `xs ! 0 ! 0 …`, parse into a tree as deep as
// the chain is long, and every later stage (lowering, the IR passes, the interpreter, code
// generation) walks expressions recursively. One limit here, on the whole tree, keeps all of
// them within the stack: deeper is E124 at the expression, not a RangeError.

import type { Diagnostic, SourceFile, Span } from '../diagnostics/index.js';
import type { Expr, Module, Stmt } from './ast.js';
import { SyntaxCode } from './codes.js';

/** Levels of operators, calls, indexing and lambdas one expression may nest. */
export const MAX_EXPRESSION_DEPTH = 1000;

function children(e: Expr): readonly Expr[] {
  switch (e.kind) {
    case 'number':
    case 'bool':
    case 'name':
    case 'opref':
      return [];
    case 'binary':
      return [e.lhs, e.rhs];
    case 'unary':
      return [e.arg];
    case 'ifexp':
      return [e.cond, e.then, e.else];
    case 'call':
      return [e.callee, ...e.args];
    case 'index':
      return [e.target, ...e.indices];
    case 'bang':
      return [e.target, e.index];
    case 'tuple':
      return e.elems;
    case 'lambda':
      return [e.body];
    default:
      return e satisfies never;
  }
}

/** The outermost node that lies deeper than the limit, or null: an explicit stack, no recursion. */
export function tooDeep(root: Expr, limit = MAX_EXPRESSION_DEPTH): Expr | null {
  const stack: [Expr, number][] = [[root, 1]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [e, depth] = top;
    if (depth > limit) return e;
    for (const c of children(e)) stack.push([c, depth + 1]);
  }
  return null;
}

function statementExprs(s: Stmt): readonly Expr[] {
  switch (s.kind) {
    case 'assign':
    case 'return':
      return [s.value];
    case 'if':
    case 'while':
      return [s.cond];
    case 'for':
      return s.range;
    case 'pass':
      return [];
    default:
      return s satisfies never;
  }
}

function nestedBlocks(s: Stmt): readonly (readonly Stmt[])[] {
  switch (s.kind) {
    case 'if':
      return s.orelse === null ? [s.then] : [s.then, s.orelse];
    case 'while':
    case 'for':
      return [s.body];
    default:
      return [];
  }
}

/** E124 for every statement expression of a module deeper than the limit (blocks walked without recursion). */
export function checkExpressionDepth(file: SourceFile, module: Module): Diagnostic[] {
  const out: Diagnostic[] = [];
  const blocks: (readonly Stmt[])[] = module.defs.map((d) => d.body);
  for (let block = blocks.pop(); block !== undefined; block = blocks.pop()) {
    for (const s of block) {
      for (const e of statementExprs(s)) {
        const deep = tooDeep(e);
        if (deep !== null) out.push(depthDiagnostic(file, e.span, deep.span));
      }
      blocks.push(...nestedBlocks(s));
    }
  }
  return out;
}

function depthDiagnostic(file: SourceFile, whole: Span, deep: Span): Diagnostic {
  return {
    code: SyntaxCode.nestingTooDeep,
    message: `expression nested more than ${MAX_EXPRESSION_DEPTH} levels deep (a chain of operators, '!' or calls counts one level per link); split it with intermediate names`,
    file,
    span: { start: whole.start, end: Math.min(whole.end, deep.end) },
  };
}
