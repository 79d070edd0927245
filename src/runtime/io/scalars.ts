// Scalars from command-line text: `--arg m=1000`, `--arg x=2.5`, `--arg flag=true`.
//
// Without a target type the literal decides, as in the language: `true`/`false` are bool, an
// integer literal that fits is i32, anything else numeric (`2.5`, `1e3`, `inf`, `nan`) is f64.
// With a target type (the entry parameter's, when the program declares it) the text must be
// a value of that type (E520).

import { userError } from '../../diagnostics/index.js';
import { integerRange, isFloat, wrap } from '../../ir/scalarOps.js';
import type { ScalarType } from '../../ir/types.js';
import type { ScalarValue } from '../../ir/values.js';

const integerLiteral = /^[+-]?\d+$/;
const floatLiteral = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(inf|nan)$/;

function numberOf(text: string): number {
  const t = text.replace(/^\+/, '');
  if (t === 'inf') return Infinity;
  if (t === '-inf') return -Infinity;
  if (t === 'nan' || t === '-nan') return NaN;
  return Number(t);
}

/** Parses one scalar; `what` names it in errors (e.g. `--arg m`). */
export function parseScalar(text: string, what: string, elem?: ScalarType): ScalarValue {
  const t = text.trim();
  const bad = (expected: string): never => {
    throw userError('E520', `${what}: ${JSON.stringify(text)} is not ${expected}`);
  };
  if (elem === undefined) {
    if (t === 'true' || t === 'false') return { kind: 'scalar', elem: 'bool', value: t === 'true' ? 1 : 0 };
    if (integerLiteral.test(t) && wrap('i32', Number(t)) === Number(t)) return { kind: 'scalar', elem: 'i32', value: Number(t) };
    if (floatLiteral.test(t) || integerLiteral.test(t)) return { kind: 'scalar', elem: 'f64', value: numberOf(t) };
    return bad('a number or a bool (true, false)');
  }
  if (elem === 'bool') {
    if (t === 'true' || t === '1') return { kind: 'scalar', elem, value: 1 };
    if (t === 'false' || t === '0') return { kind: 'scalar', elem, value: 0 };
    return bad('a bool (true, false, 1, 0)');
  }
  if (isFloat(elem)) {
    if (!floatLiteral.test(t)) return bad(`a number of type ${elem}`);
    return { kind: 'scalar', elem, value: wrap(elem, numberOf(t)) };
  }
  const x = Number(t);
  if (!integerLiteral.test(t) || wrap(elem, x) !== x) {
    const [lo, hi] = integerRange(elem);
    return bad(`a value of type ${elem} (an integer in ${lo}..${hi})`);
  }
  return { kind: 'scalar', elem, value: x };
}

/** Splits `name=value` (the form of `--arg` and `--static`; `flag` names it in errors); the value is parsed by parseScalar. */
export function parseArgAssignment(
  text: string,
  elemOf?: (name: string) => ScalarType | undefined,
  flag = '--arg',
): { readonly name: string; readonly value: ScalarValue } {
  const eq = text.indexOf('=');
  const name = eq < 0 ? '' : text.slice(0, eq).trim();
  if (eq < 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw userError('E520', `${flag} ${JSON.stringify(text)}: expected name=value, e.g. ${flag} m=1000`);
  }
  return { name, value: parseScalar(text.slice(eq + 1), `${flag} ${name}`, elemOf?.(name)) };
}
