// Golden generated code of the interior/boundary split (src/codegen/loops/interior.ts): a
// periodic 1-D stencil (gathers of wrapped index maps), a periodic 2-D one read by indexing, and
// a clamped (Rodinia hotspot) 2-D one. Each innermost loop reads as [from, p) general code,
// the row-invariant index arithmetic, [p, q) interior code without wraps, clamps or checks, and
// [q, to) general code, after the interior's bounds computed once before the nest.
// Refresh with `UPDATE_GOLDEN=1 npx vitest run test/codegen/goldenInterior.test.ts` (a test-only switch).

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { Compiler } from '../../src/driver/index.js';
import type { InterfaceValue } from '../../src/ir/values.js';
import { emitJs } from '../../src/runtime/index.js';
import { array } from '../ir/builders.js';

const update = process.env['UPDATE_GOLDEN'] === '1';

const cases: { name: string; source: string; inputs: Readonly<Record<string, InterfaceValue>> }[] = [
  {
    name: 'interiorPeriodic1',
    source: `
def main(a):
  n = size(a)
  l = gather(generate(n, lam i: i - 1 if i > 0 else n - 1), a)
  r = gather(generate(n, lam i: i + 1 if i < n - 1 else 0), a)
  return zipWith(lam x, y: x + 2.0 * y, l, r)
`,
    inputs: { a: array('f64', [4], [1, 2, 3, 4]) },
  },
  {
    name: 'interiorPeriodic2',
    source: `
def main(u: f64[p, q]):
  n0, n1 = shape(u)
  return generate((n0, n1), lam i, j: u[i - 1 if i > 0 else n0 - 1, j] + u[i + 1 if i < n0 - 1 else 0, j] + u[i, j - 1 if j > 0 else n1 - 1] + u[i, j + 1 if j < n1 - 1 else 0] - 4.0 * u[i, j])
`,
    inputs: { u: array('f64', [6, 5], Array.from({ length: 30 }, (_, k) => k)) },
  },
  {
    name: 'interiorHotspot',
    source: `
def main(u: f64[p, q]):
  n0, n1 = shape(u)
  return generate((n0, n1), lam i, j: u[min(max(i - 1, 0), n0 - 1), j] + u[min(max(i + 1, 0), n0 - 1), j] + u[i, min(max(j - 1, 0), n1 - 1)] + u[i, min(max(j + 1, 0), n1 - 1)] - 4.0 * u[i, j])
`,
    inputs: { u: array('f64', [6, 5], Array.from({ length: 30 }, (_, k) => k)) },
  },
];

describe('golden generated code of the interior split', () => {
  test.each(cases)('$name', async ({ name, source, inputs }) => {
    const compiler = new Compiler(source, { fileName: `${name}.fuse` });
    const execution = await compiler.execute(inputs);
    await compiler.dispose();
    const text = emitJs(execution.program, execution.plan!);
    const path = fileURLToPath(new URL(`./golden/${name}.js`, import.meta.url));
    if (update) writeFileSync(path, text);
    expect(text).toBe(readFileSync(path, 'utf8'));
    // The interior loop has neither a check nor a conditional.
    const interior = /for \(let (\w+) = (p\d+); \1 < (q\d+); \1\+\+\) \{\n([^]*?)\n {2,}\}\n/.exec(text);
    expect(interior).not.toBeNull();
    expect(interior![4]).not.toMatch(/rt\.|\?|Math\.(min|max)/);
  });
});
