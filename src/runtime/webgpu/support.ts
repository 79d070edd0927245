// What the WebGPU back end cannot run, said before anything is compiled: WGSL has no 64-bit
// floats and no 8-bit integers, so a program with an f64, u8 or i8 value anywhere — an entry
// parameter, an array, a scalar, an intermediate value inside a lambda — is rejected with E680
// at the first place the source shows one, suggesting f32 (i32 for bytes) or a CPU back end.

import { type SourceFile, type Span, userError } from '../../diagnostics/index.js';
import type { Expr, Lambda, Program, ScalarType } from '../../ir/types.js';
import { allStmts, combinatorLambdas, stmtDefs } from '../../ir/walk.js';
import { isCombinator } from '../../ir/types.js';

/** Throws E680 at the first f64, u8 or i8 value of `program`. */
export function checkWebgpuTypes(program: Program, file: SourceFile | undefined): void {
  const where = firstUnsupported(program);
  if (where === null) return;
  const t = where.type;
  const why = t === 'f64' ? 'WGSL has no 64-bit floats; give the program f32 inputs (float literals then take f32)' : `WGSL has no 8-bit integers; widen the data to i32 before the run`;
  throw userError('E680', `${where.what} is ${t}, which the webgpu back end cannot run: ${why} or run it on the js or multicore back end`, { file, span: where.span });
}

function firstUnsupported(program: Program): { readonly what: string; readonly span: Span | undefined; readonly type: ScalarType } | null {
  const at = (what: string, span: Span | undefined, types: readonly ScalarType[]) => {
    const type = types.find(isUnsupported);
    return type === undefined ? null : { what, span, type };
  };
  for (const p of program.params) {
    const found = at(`entry parameter '${p.name}'`, p.span, p.components.map((c) => c.elem));
    if (found !== null) return found;
  }
  for (const s of allStmts(program)) {
    if (s.kind === 'scalar') {
      const type = exprUnsupported(s.expr);
      if (type !== null) return { what: `scalar '${s.name}'`, span: s.span, type };
      continue;
    }
    const def = stmtDefs(s).find((v) => isUnsupported(v.elem));
    if (def !== undefined) return { what: `'${def.name}'`, span: s.span, type: def.elem };
    if (isCombinator(s)) {
      for (const l of combinatorLambdas(s)) {
        const type = lambdaUnsupported(l);
        if (type !== null) return { what: `a value computed by this ${s.kind}`, span: s.span, type };
      }
    }
    if (s.kind === 'if') {
      const type = exprUnsupported(s.cond);
      if (type !== null) return { what: 'a value in this condition', span: s.span, type };
    }
  }
  for (const r of program.results) {
    const found = at(`result '${r.name}'`, r.span, r.components.map((c) => c.elem));
    if (found !== null) return found;
  }
  return null;
}

/** The element types WGSL has no storage or value type for. */
const isUnsupported = (t: ScalarType): boolean => t === 'f64' || t === 'u8' || t === 'i8';

function lambdaUnsupported(l: Lambda): ScalarType | null {
  const param = l.params.find((p) => isUnsupported(p.type));
  if (param !== undefined) return param.type;
  for (const e of [...l.lets.map((b) => b.expr), ...l.results]) {
    const type = exprUnsupported(e);
    if (type !== null) return type;
  }
  return null;
}

/** The first unsupported type in `e`, its own type first. */
function exprUnsupported(e: Expr): ScalarType | null {
  if (isUnsupported(e.type)) return e.type;
  switch (e.kind) {
    case 'const':
    case 'var':
    case 'dim':
      return null;
    case 'unary':
    case 'call':
    case 'cast':
      return exprUnsupported(e.arg);
    case 'binary':
      return exprUnsupported(e.lhs) ?? exprUnsupported(e.rhs);
    case 'select':
      return exprUnsupported(e.cond) ?? exprUnsupported(e.then) ?? exprUnsupported(e.else);
    case 'index':
      return e.indices.reduce<ScalarType | null>((found, i) => found ?? exprUnsupported(i), null);
    default:
      return e satisfies never;
  }
}
