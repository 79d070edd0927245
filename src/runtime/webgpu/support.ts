// What the WebGPU back end cannot run, said before anything is compiled: WGSL has no 64-bit
// floats, so a program with an f64 value anywhere — an entry parameter, an array, a scalar, an
// intermediate value inside a lambda — is rejected with E680 at the first place the source
// shows one, suggesting f32 or a CPU back end.

import { type SourceFile, type Span, userError } from '../../diagnostics/index.js';
import type { Expr, Lambda, Program, ScalarType } from '../../ir/types.js';
import { allStmts, combinatorLambdas, stmtDefs } from '../../ir/walk.js';
import { isCombinator } from '../../ir/types.js';

/** Throws E680 at the first f64 value of `program`. */
export function checkWebgpuTypes(program: Program, file: SourceFile | undefined): void {
  const where = firstF64(program);
  if (where === null) return;
  throw userError(
    'E680',
    `${where.what} is f64, which the webgpu back end cannot run: WGSL has no 64-bit floats; give the program f32 inputs (float literals then take f32) or run it on the js or multicore back end`,
    { file, span: where.span },
  );
}

function firstF64(program: Program): { readonly what: string; readonly span: Span | undefined } | null {
  for (const p of program.params) {
    if (p.components.some((c) => c.elem === 'f64')) return { what: `entry parameter '${p.name}'`, span: p.span };
  }
  for (const s of allStmts(program)) {
    if (s.kind === 'scalar') {
      if (exprHasF64(s.expr)) return { what: `scalar '${s.name}'`, span: s.span };
      continue;
    }
    const def = stmtDefs(s).find((v) => v.elem === 'f64');
    if (def !== undefined) return { what: `'${def.name}'`, span: s.span };
    if (isCombinator(s) && combinatorLambdas(s).some(lambdaHasF64)) return { what: `a value computed by this ${s.kind}`, span: s.span };
    if (s.kind === 'if' && exprHasF64(s.cond)) return { what: 'a value in this condition', span: s.span };
  }
  for (const r of program.results) {
    if (r.components.some((c) => c.elem === 'f64')) return { what: `result '${r.name}'`, span: r.span };
  }
  return null;
}

const isF64 = (t: ScalarType): boolean => t === 'f64';

function lambdaHasF64(l: Lambda): boolean {
  return l.params.some((p) => isF64(p.type)) || l.lets.some((b) => exprHasF64(b.expr)) || l.results.some(exprHasF64);
}

function exprHasF64(e: Expr): boolean {
  if (isF64(e.type)) return true;
  switch (e.kind) {
    case 'const':
    case 'var':
    case 'dim':
      return false;
    case 'unary':
    case 'call':
    case 'cast':
      return exprHasF64(e.arg);
    case 'binary':
      return exprHasF64(e.lhs) || exprHasF64(e.rhs);
    case 'select':
      return exprHasF64(e.cond) || exprHasF64(e.then) || exprHasF64(e.else);
    case 'index':
      return e.indices.some(exprHasF64);
    default:
      return e satisfies never;
  }
}
