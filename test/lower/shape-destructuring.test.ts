// `n, m = shape(xs)` on an unannotated parameter: the number of names fixes the rank during
// type inference (before, inference committed the unknown rank to 1 and failed with E216).
import { describe, expect, it } from 'vitest';
import { SourceFile } from '../../src/diagnostics/index.js';
import { parseModule } from '../../src/syntax/index.js';
import { inferEntryTypes, lowerModule } from '../../src/lower/index.js';
import { interpret } from '../../src/interp/index.js';

const source = 'def main(xs):\n  n, m = shape(xs)\n  return generate((n, m), lam i, j: xs[i, j] * 2.0)\n';

describe('destructuring the shape of a parameter of unknown rank', () => {
  const file = new SourceFile('shape.fuse', source);
  const module = parseModule(file);

  it('infers rank 2 from two names', () => {
    expect(inferEntryTypes(module, file).xs).toMatchObject({ kind: 'array', elem: 'f64', rank: 2 });
  });

  it('lowers and runs', () => {
    const program = lowerModule(module, file);
    const [result] = interpret(program, [{ kind: 'array', elem: 'f64', shape: [2, 3], data: new Float64Array([1, 2, 3, 4, 5, 6]) }], { file });
    expect(result).toMatchObject({ shape: [2, 3], data: new Float64Array([2, 4, 6, 8, 10, 12]) });
  });

  it('still reports a rank that the destructuring contradicts', () => {
    const bad = new SourceFile('bad.fuse', 'def main(xs: f64[n]):\n  n, m = shape(xs)\n  return xs\n');
    expect(() => lowerModule(parseModule(bad), bad)).toThrow(/cannot destructure/);
  });
});

describe('a scalar re-bound to a rank-0 array (a fold of a vector) stays a scalar', () => {
  const run = (source: string, xs: readonly number[], k = 0): number => {
    const file = new SourceFile('rank0.fuse', source);
    const program = lowerModule(parseModule(file), file);
    const [m] = interpret(program, [{ kind: 'array', elem: 'f64', shape: [xs.length], data: Float64Array.from(xs) }, { kind: 'scalar', elem: 'i32', value: k }], { file });
    return (m as { value: number }).value;
  };

  it('across a while loop (found porting LULESH)', () => {
    const source = 'def main(xs: f64[n], k: i32):\n  m = 1.0e20\n  i = 0\n  while i < 2:\n    m = fold(min, 1.0e20, xs)\n    i = i + 1\n  return m\n';
    expect(run(source, [3, 1.5, 2])).toBe(1.5);
  });

  it('across the branches of a run-time if', () => {
    const source = 'def main(xs: f64[n], k: i32):\n  if k > 0:\n    m = sum(xs)\n  else:\n    m = 0.5\n  return m\n';
    expect(run(source, [3, 1.5, 2], 1)).toBe(6.5);
    expect(run(source, [3, 1.5, 2], 0)).toBe(0.5);
  });
});
