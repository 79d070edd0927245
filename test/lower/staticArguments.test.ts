// Static arguments in lowering: a scalar parameter whose value is in the signature is a
// compile-time constant (a `for` over it unrolls, a `generate` of it has a static shape); one
// without a value is a run-time scalar, and E204 then notes which parameters' values it needs
// (`--static NAME=VALUE`), looking through scalar bindings and inlined calls.

import { describe, expect, test } from 'vitest';
import { SourceFile, UserError } from '../../src/diagnostics/index.js';
import type { InputSignature } from '../../src/lower/index.js';
import { parseModule } from '../../src/syntax/index.js';
import { lowerModule, type LowerOptions } from '../../src/lower/index.js';
import { contents, f64s, kinds, lowerText, run, scalar } from './helpers.js';

const i32 = (value?: number): InputSignature => (value === undefined ? { kind: 'scalar', elem: 'i32' } : { kind: 'scalar', elem: 'i32', value });
const f64 = (...shape: number[]): InputSignature => ({ kind: 'array', elem: 'f64', shape });

/** The E204 (or other) diagnostic of lowering `text`: code, message and notes. */
function diagnostic(text: string, options: LowerOptions = {}): { code: string; message: string; notes: readonly string[] } {
  const file = new SourceFile('t.fuse', text);
  try {
    lowerModule(parseModule(file), file, options);
  } catch (e) {
    if (e instanceof UserError) {
      const d = e.diagnostics[0]!;
      return { code: d.code, message: d.message, notes: d.notes ?? [] };
    }
    throw e;
  }
  throw new Error('expected a lowering error');
}

const loop = (bound: string, params = 'xs: f64[n], k: i32'): string => `def main(${params}):\n  for t in range(${bound}):\n    xs = map(lam x: x + 1.0, xs)\n  return xs\n`;

describe('a scalar parameter with a value in the signature is static', () => {
  test('for unrolls over it; the interpreter agrees with k increments', () => {
    for (const k of [0, 1, 4]) {
      const p = lowerText(loop('k'), { signature: { k: i32(k) } });
      expect(kinds(p).map ?? 0).toBe(k);
      expect(kinds(p).while).toBeUndefined();
      expect(contents(run(p, [f64s([1, 2]), scalar('i32', k)])[0]!)).toEqual([1 + k, 2 + k]);
    }
  });

  test('arithmetic on it, through inlined defs and scalar bindings, stays static', () => {
    const src = 'def twice(n):\n  return n * 2\ndef main(xs: f64[n], k: i32):\n  m = twice(k) - 1\n  for t in range(m):\n    xs = map(lam x: x + 1.0, xs)\n  return xs\n';
    expect(kinds(lowerText(src, { signature: { k: i32(3) } })).map).toBe(5);
  });

  test('generate of it has a static shape that a static zip checks (E311)', () => {
    const src = 'def main(xs: f64[n], k: i32):\n  return zipWith(lam(a, b): a + b, xs, generate(k, lam i: f64(i)))\n';
    expect(diagnostic(src, { signature: { xs: f64(3), k: i32(4) } }).code).toBe('E311');
    const p = lowerText(src, { signature: { xs: f64(3), k: i32(3) } });
    expect(contents(run(p, [f64s([1, 1, 1]), scalar('i32', 3)])[0]!)).toEqual([1, 2, 3]);
  });
});

describe('without a value it is a run-time scalar: E204 notes the parameters it needs', () => {
  test('one parameter, annotated or inferred', () => {
    for (const params of ['xs: f64[n], k: i32', 'xs, k']) {
      const d = diagnostic(loop('k', params));
      expect(d.code).toBe('E204');
      expect(d.notes).toEqual([expect.stringMatching(/^the value of the scalar parameter 'k' is not known at compile time; give it, e\.g\. --static k=VALUE/)]);
    }
  });

  test('several parameters, through scalar bindings and an inlined def', () => {
    const src = 'def span(a, b):\n  return a * 2 + b\ndef main(xs: f64[n], a: i32, b: i32, c: i32):\n  m = span(a, b)\n  for t in range(m):\n    xs = map(lam x: x + f64(c), xs)\n  return xs\n';
    const d = diagnostic(src);
    expect(d.code).toBe('E204');
    expect(d.notes.join('\n')).toContain("the values of the scalar parameters 'a', 'b' are not known at compile time; give them, e.g. --static a=VALUE --static b=VALUE");
    expect(d.notes.join('\n')).not.toContain("'c'");
    // Given a value, that parameter leaves the note.
    expect(diagnostic(src, { signature: { a: i32(2) } }).notes.join('\n')).toContain("the value of the scalar parameter 'b' is not known");
    expect(kinds(lowerText(src, { signature: { a: i32(2), b: i32(1) } })).map).toBe(5);
  });

  test('a size and a parameter together give both notes', () => {
    const d = diagnostic(loop('size(xs) + k'));
    expect(d.code).toBe('E204');
    expect(d.notes).toHaveLength(2);
    expect(d.notes[0]).toContain('--shape xs=f64[...]');
    expect(d.notes[1]).toContain('--static k=VALUE');
  });

  test('a scalar computed at run time from no parameter gets no such note', () => {
    const src = 'def main(xs: f64[n], k: i32):\n  it = 0\n  while it < 3:\n    it = it + 1\n  for t in range(it):\n    xs = map(lam x: x + 1.0, xs)\n  return xs\n';
    const d = diagnostic(src, { signature: { xs: f64(2), k: i32(1) } });
    expect(d.code).toBe('E204');
    expect(d.notes.join('\n')).not.toContain('--static');
  });

  test('a parameter named __proto__ or constructor', () => {
    for (const name of ['__proto__', 'constructor']) {
      const d = diagnostic(loop(name, `xs: f64[n], ${name}: i32`));
      expect(d.notes.join('\n')).toContain(`--static ${name}=VALUE`);
      expect(kinds(lowerText(loop(name, `xs: f64[n], ${name}: i32`), { signature: Object.fromEntries([[name, i32(2)]]) })).map).toBe(2);
    }
  });
});
