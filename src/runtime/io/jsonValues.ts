// Run-time values as JSON, for inputs and results.
//
// Read forms:
//   {"dtype": "f64", "shape": [2, 3], "data": [...]}   data flat or nested; shape optional
//   {"dtype": "u32", "value": 7}                        a scalar of a given type
//   [[1, 2], [3, 4]]                                    nested lists: bool if all booleans,
//                                                       f64 if any literal has a `.` or an
//                                                       exponent or is not an integer, else i32
//   2.5, 7, true                                        scalars, typed by the same rule
// Non-finite floats are the strings "inf", "-inf", "nan". Every problem is a UserError
// E510–E514 with the file and the path of the offending value (`data[1][0]`).
// Written form: the dtype object with nested data (scalars as {"dtype", "value"}).

import { SourceFile, userError } from '../../diagnostics/index.js';
import { jsonError, jsonPath, parseJson, tooDeepJson } from '../../diagnostics/checkedJson.js';
import { allocate, wrap } from '../../ir/scalarOps.js';
import { type ScalarType, scalarTypes } from '../../ir/types.js';
import { type ArrayValue, type RuntimeValue, type ScalarValue, sizeOf } from '../../ir/values.js';

interface Ctx {
  readonly file: SourceFile;
}

function fail(ctx: Ctx, code: 'E511' | 'E512' | 'E513' | 'E514', path: string, message: string): never {
  throw jsonError({ file: ctx.file, located: false, root: '' }, code, path, message);
}

function describe(j: unknown): string {
  if (j === null) return 'null';
  if (Array.isArray(j)) return 'a list';
  if (typeof j === 'string') return `the string ${JSON.stringify(j)}`;
  if (typeof j === 'object') return 'an object';
  return `${typeof j} ${String(j)}`;
}

/** Does the JSON text spell any number as a float (`2.0`, `1e3`)? Strings are skipped. */
function hasFloatLiteral(text: string): boolean {
  const outsideStrings = text.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  return /\d[.eE]/.test(outsideStrings) || /"(inf|-inf|nan)"/.test(text);
}

/** One element checked against (and brought into) its type. */
function element(ctx: Ctx, j: unknown, elem: ScalarType, path: string): number {
  if (elem === 'bool') {
    if (typeof j === 'boolean') return j ? 1 : 0;
    if (j === 0 || j === 1) return j;
    return fail(ctx, 'E514', path, `expected a bool (true, false, 0 or 1), got ${describe(j)}`);
  }
  if (typeof j === 'string' && (elem === 'f64' || elem === 'f32')) {
    const special: Readonly<Record<string, number>> = { inf: Infinity, '-inf': -Infinity, nan: NaN };
    if (j in special) return wrap(elem, special[j]!);
  }
  if (typeof j !== 'number') return fail(ctx, 'E511', path, `expected a number, got ${describe(j)}`);
  if (elem === 'f64' || elem === 'f32') return wrap(elem, j);
  if (!Number.isInteger(j) || wrap(elem, j) !== j) return fail(ctx, 'E514', path, `${j} is not a value of type ${elem}`);
  return j;
}

/** The shape of nested lists, checking that they are not ragged. */
function nestedShape(ctx: Ctx, j: unknown, path: string): number[] {
  if (!Array.isArray(j)) return [];
  if (j.length === 0) return [0];
  const inner = nestedShape(ctx, j[0], `${path}[0]`);
  // From the second element on: the first one's shape is `inner` (walking it again at every
  // level would make this exponential in the depth).
  // Index loops, not forEach: a JavaScript list given to the API may have holes, which forEach skips.
  for (let i = 1; i < j.length; i++) {
    const here = `${path}[${i}]`;
    const s = nestedShape(ctx, j[i], here);
    if (s.length !== inner.length || s.some((d, k) => d !== inner[k])) {
      const what = (t: number[]) => (t.length === 0 ? 'a single value' : `a list of shape [${t.join(', ')}]`);
      fail(ctx, 'E511', here, `ragged lists: expected ${what(inner)} like ${path}[0], got ${what(s)}`);
    }
  }
  return [j.length, ...inner];
}

function flatten(j: unknown, out: unknown[], path: string, paths: string[]): void {
  if (Array.isArray(j)) {
    for (let i = 0; i < j.length; i++) flatten(j[i], out, `${path}[${i}]`, paths);
  } else {
    out.push(j);
    paths.push(path);
  }
}

function buildArray(ctx: Ctx, elem: ScalarType, shape: readonly number[], flat: readonly unknown[], paths: readonly string[]): ArrayValue {
  const data = allocate(elem, flat.length);
  flat.forEach((x, i) => (data[i] = element(ctx, x, elem, paths[i]!)));
  return { kind: 'array', elem, shape, data };
}

function inferElem(j: unknown, text: string): ScalarType {
  const flat: unknown[] = [];
  flatten(j, flat, '', []);
  if (flat.length > 0 && flat.every((x) => typeof x === 'boolean')) return 'bool';
  if (hasFloatLiteral(text) || flat.some((x) => typeof x === 'number' && (!Number.isInteger(x) || wrap('i32', x) !== x))) return 'f64';
  return 'i32';
}

function dtypeObject(ctx: Ctx, o: Readonly<Record<string, unknown>>): RuntimeValue {
  for (const key of Object.keys(o)) {
    if (!['dtype', 'shape', 'data', 'value'].includes(key)) fail(ctx, 'E511', key, 'unknown field (expected dtype, shape, data or value)');
  }
  if (typeof o.dtype !== 'string' || !(scalarTypes as readonly string[]).includes(o.dtype)) {
    return fail(ctx, 'E512', 'dtype', `unknown dtype ${describe(o.dtype)} (one of ${scalarTypes.join(', ')})`);
  }
  const elem = o.dtype as ScalarType;
  if ('value' in o) {
    if ('data' in o || 'shape' in o) fail(ctx, 'E511', 'value', 'a scalar has a value, an array has shape and data: not both');
    return { kind: 'scalar', elem, value: element(ctx, o.value, elem, 'value') } satisfies ScalarValue;
  }
  if (!('data' in o)) return fail(ctx, 'E511', 'data', 'missing (an array needs data, a scalar a value)');
  const nested = nestedShape(ctx, o.data, 'data');
  const flat: unknown[] = [];
  const paths: string[] = [];
  flatten(o.data, flat, 'data', paths);
  let shape: readonly number[] = nested;
  if (o.shape !== undefined) {
    if (!Array.isArray(o.shape) || !o.shape.every((d) => typeof d === 'number' && Number.isSafeInteger(d) && d >= 0)) {
      return fail(ctx, 'E511', 'shape', `expected a list of non-negative integers, got ${JSON.stringify(o.shape)}`);
    }
    shape = o.shape as number[];
    const isFlat = nested.length <= 1;
    const matches = isFlat ? flat.length === sizeOf(shape) : nested.length === shape.length && nested.every((d, i) => d === shape[i]);
    if (!matches) {
      fail(ctx, 'E513', 'data', `shape [${shape.join(', ')}] needs ${sizeOf(shape)} elements${isFlat ? '' : ` nested as [${shape.join(', ')}]`}, the data has ${isFlat ? `${flat.length}` : `shape [${nested.join(', ')}]`}`);
    }
  } else if (!Array.isArray(o.data)) {
    shape = [];
  }
  return buildArray(ctx, elem, shape, flat, paths);
}

/**
 * Lists may nest at most this deep (an array of at most this rank). Reading recurses over the
 * nesting, so a 5,000-deep `[[[…]]]` is an error (E511) here instead of a stack overflow.
 */
export const maxJsonDepth = 64;

/** `[0][0]…[0]` of 65 levels as `[0][0][0]…[0]`: a path in a message need not be 300 characters. */
function shortPath(path: string): string {
  const parts = path.match(/\[\d+\]|[^[\].]+/g) ?? [];
  return parts.length <= 8 ? path : `${parts.slice(0, 4).join('')}…${parts[parts.length - 1]}`;
}

/** Reads a value (array or scalar) from JSON text; errors name `fileName` and the JSON path. */
export function readJsonValue(text: string, fileName: string): RuntimeValue {
  const ctx: Ctx = { file: new SourceFile(fileName, text) };
  const parsed = parseJson(text);
  if (!parsed.ok) throw userError('E510', `not valid JSON: ${parsed.message}`, { file: ctx.file });
  const j = parsed.value;
  const deep = tooDeepJson(j, maxJsonDepth, 'lists');
  if (deep !== null) fail(ctx, 'E511', shortPath(deep.reduce<string>(jsonPath, '')), `lists nested more than ${maxJsonDepth} levels deep (an array has at most ${maxJsonDepth} dimensions)`);
  if (typeof j === 'object' && j !== null && !Array.isArray(j)) return dtypeObject(ctx, j as Record<string, unknown>);
  const elem = inferElem(j, text);
  if (!Array.isArray(j)) return { kind: 'scalar', elem, value: element(ctx, j, elem, '') };
  const shape = nestedShape(ctx, j, '');
  const flat: unknown[] = [];
  const paths: string[] = [];
  flatten(j, flat, '', paths);
  return buildArray(ctx, elem, shape, flat, paths);
}

/** The most elements a plain JavaScript list may give an array (typed arrays are the way for more). */
export const MAX_LIST_ELEMENTS = 2 ** 27;

/**
 * A JavaScript list of numbers or booleans (nested for more dimensions) as an array of `elem`
 * (default: bool when every element is a boolean, else f64), checked as JSON lists are: E511
 * (ragged, too deep, not a number), E514 (a value outside `elem`); messages name `what`.
 */
export function listToArray(list: readonly unknown[], what: string, elem?: ScalarType): ArrayValue {
  const ctx: Ctx = { file: new SourceFile(what, '') };
  // The elements the shape of the first elements promises, before any walk over all of them:
  // a sparse `new Array(2e9)` is refused at once instead of being walked (and allocated).
  let promised = 1;
  for (let level: unknown = list, depth = 0; Array.isArray(level) && depth <= maxJsonDepth; level = (level as unknown[])[0], depth++) promised *= level.length;
  if (promised > MAX_LIST_ELEMENTS) {
    throw userError('E414', `${what}: a list of ${promised} elements; pass a typed array instead (a plain list holds at most ${MAX_LIST_ELEMENTS})`, { file: ctx.file });
  }
  const deep = tooDeepJson(list, maxJsonDepth, 'lists');
  if (deep !== null) fail(ctx, 'E511', shortPath(deep.reduce<string>(jsonPath, '')), `lists nested more than ${maxJsonDepth} levels deep (an array has at most ${maxJsonDepth} dimensions)`);
  const shape = nestedShape(ctx, list, '');
  const flat: unknown[] = [];
  const paths: string[] = [];
  flatten(list, flat, '', paths);
  const type = elem ?? (flat.length > 0 && flat.every((x) => typeof x === 'boolean') ? 'bool' : 'f64');
  return buildArray(ctx, type, shape, flat, paths);
}

function jsonNumber(elem: ScalarType, x: number): unknown {
  if (elem === 'bool') return x !== 0;
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  return x;
}

function nest(elem: ScalarType, data: ArrayLike<number>, shape: readonly number[], offset: number): unknown {
  if (shape.length === 0) return jsonNumber(elem, data[offset]!);
  const [n, ...rest] = shape;
  const stride = sizeOf(rest);
  return Array.from({ length: n! }, (_, i) => nest(elem, data, rest, offset + i * stride));
}

/** The JSON text of a value: `{"dtype", "shape", "data"}` with nested data, or `{"dtype", "value"}`. */
export function valueToJson(v: RuntimeValue): string {
  if (v.kind === 'scalar') return JSON.stringify({ dtype: v.elem, value: jsonNumber(v.elem, v.value) });
  // The dtype travels with the data, so integral floats may print as `2`.
  const data = JSON.stringify(nest(v.elem, v.data, v.shape, 0));
  return `{"dtype": "${v.elem}", "shape": [${v.shape.join(', ')}], "data": ${data}}`;
}
