// The JSON form of the core IR: how another compiler hands us a program and takes a plan back.
//
// Writing is JSON.stringify of the IR (plain data by design) inside a small envelope
// `{"format": "arrayfuse-ir", "version": 1, "program": …}`; the only encoding is for numbers
// JSON cannot hold: a constant's value may be "inf", "-inf", "nan" or "-0".
//
// Reading treats the text as untrusted: every field is checked for presence, JSON type and
// allowed values, and unknown fields are rejected (a misspelt optional field would otherwise be
// silently ignored). Errors are UserErrors E290–E296 with the JSON path of the offending value,
// e.g. `body.stmts[3].fn.results[0]: expected an Expr, got a number`. The checked program then
// goes through the verifier; a broken invariant is the input's fault here, so it is a UserError
// (E294) too, never a CompilerBug and never a crash. Reading, verifying and every later pass
// recurse over nested expressions and blocks, so JSON nested more than maxIrJsonDepth levels
// is E296 (checked first, without recursion) rather than a stack overflow.

import { SourceFile, type Span, userError } from '../diagnostics/index.js';
import { jsonError, jsonPath, parseJson, tooDeepJson, type JsonObject } from '../diagnostics/checkedJson.js';
import { scalarTypes } from './types.js';
import type {
  ArrayVar,
  BinaryOp,
  Block,
  CombinatorNode,
  Expr,
  Interface,
  Lambda,
  MathFn,
  Program,
  ScalarType,
  Stmt,
  UnaryOp,
  Value,
} from './types.js';
import { findIrProblem } from './verify.js';

export const irJsonFormat = 'arrayfuse-ir';
export const irJsonVersion = 1;

/** Serialises a program (deterministically: field order follows the IR objects). */
export function programToJson(p: Program, indent = 0): string {
  const envelope = { format: irJsonFormat, version: irJsonVersion, program: p };
  return JSON.stringify(
    envelope,
    function encodeNonFinite(this: unknown, key: string, value: unknown) {
      if (key === 'value' && typeof value === 'number' && (this as { kind?: unknown }).kind === 'const') {
        if (Number.isNaN(value)) return 'nan';
        if (value === Infinity) return 'inf';
        if (value === -Infinity) return '-inf';
        if (Object.is(value, -0)) return '-0';
      }
      return value;
    },
    indent,
  );
}

// ---- reading -------------------------------------------------------------------------------

interface Reader {
  readonly file: SourceFile;
}

function describeJson(j: unknown): string {
  if (j === null) return 'null';
  if (Array.isArray(j)) return 'an array';
  switch (typeof j) {
    case 'object':
      return 'an object';
    case 'string':
      return `the string ${JSON.stringify(j).slice(0, 40)}`;
    case 'number':
      return `the number ${j}`;
    case 'boolean':
      return `${j}`;
    default:
      return typeof j;
  }
}

function fail(r: Reader, code: 'E291' | 'E292' | 'E293' | 'E294' | 'E295' | 'E296', path: string, message: string): never {
  throw jsonError({ file: r.file, located: false, root: '' }, code, path, message);
}

function expected(r: Reader, path: string, what: string, got: unknown): never {
  return fail(r, 'E291', path, `expected ${what}, got ${describeJson(got)}`);
}

const at = jsonPath;

/** An object with exactly the listed fields (optional ones marked with `?`). */
function object(r: Reader, j: unknown, path: string, what: string, fields: readonly string[]): JsonObject {
  if (typeof j !== 'object' || j === null || Array.isArray(j)) return expected(r, path, what, j);
  const o = j as JsonObject;
  const allowed = new Set(fields.map((f) => f.replace(/\?$/, '')));
  for (const key of Object.keys(o)) if (!allowed.has(key)) fail(r, 'E292', at(path, key), `unknown field in ${what}`);
  for (const f of fields) if (!f.endsWith('?') && !(f in o)) fail(r, 'E292', at(path, f), `missing field of ${what}`);
  return o;
}

function list<T>(r: Reader, j: unknown, path: string, item: (j: unknown, path: string) => T): T[] {
  if (!Array.isArray(j)) return expected(r, path, 'an array', j);
  return j.map((x, i) => item(x, at(path, i)));
}

function str(r: Reader, j: unknown, path: string): string {
  if (typeof j !== 'string' || j === '') return expected(r, path, 'a non-empty string', j);
  return j;
}

function int(r: Reader, j: unknown, path: string, min: number): number {
  if (typeof j !== 'number' || !Number.isSafeInteger(j) || j < min) return expected(r, path, `an integer ≥ ${min}`, j);
  return j;
}

function oneOf<T extends string>(r: Reader, j: unknown, path: string, values: readonly T[], what: string): T {
  if (typeof j !== 'string') return expected(r, path, what, j);
  if (!(values as readonly string[]).includes(j)) fail(r, 'E293', path, `unknown ${what} ${JSON.stringify(j)} (one of ${values.join(', ')})`);
  return j as T;
}

function optionalSpan(r: Reader, o: JsonObject, path: string): { span?: Span } {
  if (o.span === undefined) return {};
  return { span: span(r, o.span, at(path, 'span')) };
}

function span(r: Reader, j: unknown, path: string): Span {
  const o = object(r, j, path, 'a Span', ['start', 'end']);
  const start = int(r, o.start, at(path, 'start'), 0);
  const end = int(r, o.end, at(path, 'end'), start);
  return { start, end };
}

const scalarType = (r: Reader, j: unknown, path: string): ScalarType => oneOf(r, j, path, scalarTypes, 'element type');

const binaryOps: readonly BinaryOp[] = ['+', '-', '*', '/', '//', '%', '**', '==', '!=', '<', '<=', '>', '>=', '&', '|', '^', '<<', '>>', 'and', 'or', 'min', 'max'];
const unaryOps: readonly UnaryOp[] = ['neg', 'not', 'bitnot'];
const mathFns: readonly MathFn[] = ['sqrt', 'cbrt', 'exp', 'log', 'sin', 'cos', 'tan', 'tanh', 'abs', 'floor', 'ceil', 'popcount', 'clz'];
const exprKinds: readonly Expr['kind'][] = ['const', 'var', 'unary', 'binary', 'call', 'cast', 'select', 'index', 'dim'];
// A record, so that a new kind of statement fails to compile until the reader accepts it.
const stmtKindSet: { readonly [K in Stmt['kind']]: true } = {
  scalar: true, generate: true, map: true, gather: true, scatter: true, fold: true, scanl: true, scanr: true, force: true, if: true, while: true,
};
const stmtKinds = Object.keys(stmtKindSet) as readonly Stmt['kind'][];

function constValue(r: Reader, j: unknown, path: string): number {
  if (typeof j === 'number') return j;
  switch (j) {
    case 'inf':
      return Infinity;
    case '-inf':
      return -Infinity;
    case 'nan':
      return NaN;
    case '-0':
      return -0;
    default:
      return expected(r, path, 'a number (or "inf", "-inf", "nan", "-0")', j);
  }
}

function kindOf(r: Reader, j: unknown, path: string, what: string, kinds: readonly string[]): string {
  if (typeof j !== 'object' || j === null || Array.isArray(j)) return expected(r, path, what, j);
  const kind = (j as JsonObject).kind;
  if (kind === undefined) fail(r, 'E292', at(path, 'kind'), `missing field of ${what}`);
  return oneOf(r, kind, at(path, 'kind'), kinds, `${what} kind`);
}

function expr(r: Reader, j: unknown, path: string): Expr {
  const kind = kindOf(r, j, path, 'an Expr', exprKinds) as Expr['kind'];
  const e = (fields: readonly string[]): JsonObject => object(r, j, path, `an Expr (${kind})`, ['kind', 'type', 'span?', ...fields]);
  const sub = (o: JsonObject, key: string): Expr => expr(r, o[key], at(path, key));
  switch (kind) {
    case 'const': {
      const o = e(['value']);
      return { kind, type: scalarType(r, o.type, at(path, 'type')), value: constValue(r, o.value, at(path, 'value')), ...optionalSpan(r, o, path) };
    }
    case 'var': {
      const o = e(['name']);
      return { kind, name: str(r, o.name, at(path, 'name')), type: scalarType(r, o.type, at(path, 'type')), ...optionalSpan(r, o, path) };
    }
    case 'unary': {
      const o = e(['op', 'arg']);
      return { kind, op: oneOf(r, o.op, at(path, 'op'), unaryOps, 'unary operator'), arg: sub(o, 'arg'), type: scalarType(r, o.type, at(path, 'type')), ...optionalSpan(r, o, path) };
    }
    case 'binary': {
      const o = e(['op', 'lhs', 'rhs']);
      return {
        kind,
        op: oneOf(r, o.op, at(path, 'op'), binaryOps, 'binary operator'),
        lhs: sub(o, 'lhs'),
        rhs: sub(o, 'rhs'),
        type: scalarType(r, o.type, at(path, 'type')),
        ...optionalSpan(r, o, path),
      };
    }
    case 'call': {
      const o = e(['fn', 'arg']);
      return { kind, fn: oneOf(r, o.fn, at(path, 'fn'), mathFns, 'math function'), arg: sub(o, 'arg'), type: scalarType(r, o.type, at(path, 'type')), ...optionalSpan(r, o, path) };
    }
    case 'cast': {
      const o = e(['to', 'arg']);
      return { kind, to: scalarType(r, o.to, at(path, 'to')), arg: sub(o, 'arg'), type: scalarType(r, o.type, at(path, 'type')), ...optionalSpan(r, o, path) };
    }
    case 'select': {
      const o = e(['cond', 'then', 'else']);
      return { kind, cond: sub(o, 'cond'), then: sub(o, 'then'), else: sub(o, 'else'), type: scalarType(r, o.type, at(path, 'type')), ...optionalSpan(r, o, path) };
    }
    case 'index': {
      const o = e(['array', 'indices']);
      return {
        kind,
        array: str(r, o.array, at(path, 'array')),
        indices: list(r, o.indices, at(path, 'indices'), (x, p) => expr(r, x, p)),
        type: scalarType(r, o.type, at(path, 'type')),
        ...optionalSpan(r, o, path),
      };
    }
    case 'dim': {
      const o = e(['array', 'axis']);
      if (o.type !== 'i32') expected(r, at(path, 'type'), '"i32" (a dim is an i32)', o.type);
      return { kind, array: str(r, o.array, at(path, 'array')), axis: int(r, o.axis, at(path, 'axis'), 0), type: 'i32', ...optionalSpan(r, o, path) };
    }
    default:
      return kind satisfies never;
  }
}

function lambda(r: Reader, j: unknown, path: string): Lambda {
  const o = object(r, j, path, 'a Lambda', ['params', 'lets', 'results']);
  return {
    params: list(r, o.params, at(path, 'params'), (x, p) => {
      const q = object(r, x, p, 'a Param', ['name', 'type']);
      return { name: str(r, q.name, at(p, 'name')), type: scalarType(r, q.type, at(p, 'type')) };
    }),
    lets: list(r, o.lets, at(path, 'lets'), (x, p) => {
      const q = object(r, x, p, 'a Let', ['name', 'expr']);
      return { name: str(r, q.name, at(p, 'name')), expr: expr(r, q.expr, at(p, 'expr')) };
    }),
    results: list(r, o.results, at(path, 'results'), (x, p) => expr(r, x, p)),
  };
}

function arrayVar(r: Reader, j: unknown, path: string): ArrayVar {
  const o = object(r, j, path, 'an ArrayVar', ['name', 'elem', 'rank']);
  return { name: str(r, o.name, at(path, 'name')), elem: scalarType(r, o.elem, at(path, 'elem')), rank: int(r, o.rank, at(path, 'rank'), 0) };
}

function value(r: Reader, j: unknown, path: string): Value {
  const kind = kindOf(r, j, path, 'a Value', ['array', 'scalar']);
  if (kind === 'array') {
    const o = object(r, j, path, 'a Value (array)', ['kind', 'name', 'elem', 'rank']);
    return { kind: 'array', name: str(r, o.name, at(path, 'name')), elem: scalarType(r, o.elem, at(path, 'elem')), rank: int(r, o.rank, at(path, 'rank'), 0) };
  }
  const o = object(r, j, path, 'a Value (scalar)', ['kind', 'name', 'elem']);
  return { kind: 'scalar', name: str(r, o.name, at(path, 'name')), elem: scalarType(r, o.elem, at(path, 'elem')) };
}

const names = (r: Reader, j: unknown, path: string): string[] => list(r, j, path, (x, p) => str(r, x, p));
const exprs = (r: Reader, j: unknown, path: string): Expr[] => list(r, j, path, (x, p) => expr(r, x, p));

function stmt(r: Reader, j: unknown, path: string): Stmt {
  const kind = kindOf(r, j, path, 'a Stmt', stmtKinds) as Stmt['kind'];
  const fieldsOf = (fields: readonly string[]): JsonObject => object(r, j, path, `a Stmt (${kind})`, ['kind', ...fields]);
  if (kind === 'scalar') {
    const o = fieldsOf(['name', 'expr', 'span']);
    return { kind, name: str(r, o.name, at(path, 'name')), expr: expr(r, o.expr, at(path, 'expr')), span: span(r, o.span, at(path, 'span')) };
  }
  if (kind === 'if') {
    const o = fieldsOf(['id', 'cond', 'then', 'else', 'outs', 'span']);
    return {
      kind,
      id: int(r, o.id, at(path, 'id'), 0),
      cond: expr(r, o.cond, at(path, 'cond')),
      then: block(r, o.then, at(path, 'then')),
      else: block(r, o.else, at(path, 'else')),
      outs: list(r, o.outs, at(path, 'outs'), (x, p) => value(r, x, p)),
      span: span(r, o.span, at(path, 'span')),
    };
  }
  if (kind === 'while') {
    const o = fieldsOf(['id', 'init', 'cond', 'body', 'outs', 'span']);
    return {
      kind,
      id: int(r, o.id, at(path, 'id'), 0),
      init: names(r, o.init, at(path, 'init')),
      cond: block(r, o.cond, at(path, 'cond')),
      body: block(r, o.body, at(path, 'body')),
      outs: list(r, o.outs, at(path, 'outs'), (x, p) => value(r, x, p)),
      span: span(r, o.span, at(path, 'span')),
    };
  }
  return combinator(r, kind, fieldsOf, path);
}

function combinator(
  r: Reader,
  kind: CombinatorNode['kind'],
  fieldsOf: (fields: readonly string[]) => JsonObject,
  path: string,
): CombinatorNode {
  const base = (o: JsonObject) => ({
    id: int(r, o.id, at(path, 'id'), 0),
    outs: list(r, o.outs, at(path, 'outs'), (x, p) => arrayVar(r, x, p)),
    span: span(r, o.span, at(path, 'span')),
  });
  const common = ['id', 'outs', 'span'];
  switch (kind) {
    case 'generate': {
      const o = fieldsOf([...common, 'shape', 'fn']);
      return { kind, ...base(o), shape: exprs(r, o.shape, at(path, 'shape')), fn: lambda(r, o.fn, at(path, 'fn')) };
    }
    case 'map': {
      const o = fieldsOf([...common, 'inputs', 'fn']);
      return { kind, ...base(o), inputs: names(r, o.inputs, at(path, 'inputs')), fn: lambda(r, o.fn, at(path, 'fn')) };
    }
    case 'gather': {
      const o = fieldsOf([...common, 'indices', 'source']);
      return { kind, ...base(o), indices: names(r, o.indices, at(path, 'indices')), source: names(r, o.source, at(path, 'source')) };
    }
    case 'scatter': {
      const o = fieldsOf([...common, 'op', 'dest', 'index', 'values', 'unique?', 'drop?']);
      return {
        kind,
        ...base(o),
        op: lambda(r, o.op, at(path, 'op')),
        dest: names(r, o.dest, at(path, 'dest')),
        index: names(r, o.index, at(path, 'index')),
        values: names(r, o.values, at(path, 'values')),
        ...(flag(r, o.unique, at(path, 'unique')) ? { unique: true as const } : {}),
        ...(flag(r, o.drop, at(path, 'drop')) ? { drop: true as const } : {}),
      };
    }
    case 'fold': {
      const o = fieldsOf([...common, 'op', 'init', 'input']);
      return { kind, ...base(o), op: lambda(r, o.op, at(path, 'op')), init: exprs(r, o.init, at(path, 'init')), input: names(r, o.input, at(path, 'input')) };
    }
    case 'scanl':
    case 'scanr': {
      const o = fieldsOf([...common, 'op', 'init', 'input']);
      const init = o.init === null ? null : exprs(r, o.init, at(path, 'init'));
      return { kind, ...base(o), op: lambda(r, o.op, at(path, 'op')), init, input: names(r, o.input, at(path, 'input')) };
    }
    case 'force': {
      const o = fieldsOf([...common, 'input']);
      return { kind, ...base(o), input: names(r, o.input, at(path, 'input')) };
    }
    default:
      return kind satisfies never;
  }
}

/**
 * A scatter's optional flags, `unique` (its in-range indices are distinct) and `drop` (out-of-range
 * updates are skipped): written only when true, so version 1 files without them read as before.
 * `false` reads as absent.
 */
function flag(r: Reader, j: unknown, path: string): boolean {
  if (j === undefined) return false;
  if (typeof j !== 'boolean') return expected(r, path, 'a boolean', j);
  return j;
}

function block(r: Reader, j: unknown, path: string): Block {
  const o = object(r, j, path, 'a Block', ['params', 'stmts', 'results']);
  return {
    params: list(r, o.params, at(path, 'params'), (x, p) => value(r, x, p)),
    stmts: list(r, o.stmts, at(path, 'stmts'), (x, p) => stmt(r, x, p)),
    results: names(r, o.results, at(path, 'results')),
  };
}

function iface(r: Reader, j: unknown, path: string): Interface {
  const o = object(r, j, path, 'an Interface', ['name', 'components', 'span?']);
  return {
    name: str(r, o.name, at(path, 'name')),
    components: list(r, o.components, at(path, 'components'), (x, p) => value(r, x, p)),
    ...optionalSpan(r, o, path),
  };
}

function program(r: Reader, j: unknown): Program {
  const o = object(r, j, '', 'a Program', ['name', 'params', 'body', 'results']);
  return {
    name: str(r, o.name, 'name'),
    params: list(r, o.params, 'params', (x, p) => iface(r, x, p)),
    body: block(r, o.body, 'body'),
    results: list(r, o.results, 'results', (x, p) => iface(r, x, p)),
  };
}

/**
 * Reads a program from JSON text: the envelope written by programToJson, or a bare Program
 * object. Every problem is a UserError with a code in E290–E296 naming the JSON path.
 */
/** JSON nesting (objects and lists) a program may have: lowering builds expressions of at most
 * 2,000 levels (lower/scalar.ts), each one JSON level, with a few more for blocks around them. */
export const maxIrJsonDepth = 2500;

/** Path segments a too-deep error names (then `…`): enough to find the spot, not 2,500 of them. */
const shownDepth = 8;

export function programFromJson(text: string, fileName: string): Program {
  const r: Reader = { file: new SourceFile(fileName, text) };
  const parsed = parseJson(text);
  if (!parsed.ok) throw userError('E290', `not valid JSON: ${parsed.message}`, { file: r.file, span: { start: parsed.offset, end: parsed.offset + 1 } });
  const j = parsed.value;
  const deep = tooDeepJson(j, maxIrJsonDepth, 'containers');
  if (deep !== null) fail(r, 'E296', `${deep.slice(0, shownDepth).reduce<string>(at, '')}…`, `nested more than ${maxIrJsonDepth} levels deep`);
  let body: unknown = j;
  if (typeof j === 'object' && j !== null && !Array.isArray(j) && 'format' in j) {
    const env = object(r, j, '', 'an IR envelope', ['format', 'version', 'program']);
    if (env.format !== irJsonFormat) fail(r, 'E295', 'format', `expected "${irJsonFormat}", got ${describeJson(env.format)}`);
    if (env.version !== irJsonVersion) fail(r, 'E295', 'version', `unsupported IR format version ${describeJson(env.version)} (this arrayfuse reads version ${irJsonVersion})`);
    body = env.program;
  }
  const p = program(r, body);
  const problem = findIrProblem(p);
  if (problem !== null) fail(r, 'E294', '', `the program breaks an IR invariant: ${problem}`);
  return p;
}
