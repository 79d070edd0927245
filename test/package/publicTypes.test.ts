// The public type surface names no dependency's types: the declarations reachable from
// dist/index.d.ts (following relative imports) import nothing outside the package. In
// particular HiGHS' option and instance types stay inside src/plan/ilp/solver.ts, so a
// HiGHS upgrade cannot change arrayfuse's API. Needs `npm run build` (pretest runs it).

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dist = resolve(dirname(fileURLToPath(import.meta.url)), '../../dist');

/** Module specifiers a declaration file imports or re-exports, static and `import("…")` types. */
function specifiersOf(text: string): string[] {
  const found = [...text.matchAll(/\bfrom\s+['"]([^'"]+)['"]/g), ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)];
  return found.map((m) => m[1]!);
}

/** Every declaration file reachable from `entry`, and the non-relative specifiers they import. */
function declarationClosure(entry: string): { files: string[]; external: Map<string, string[]> } {
  const files: string[] = [];
  const external = new Map<string, string[]>();
  const pending = [entry];
  const seen = new Set(pending);
  while (pending.length > 0) {
    const file = pending.pop()!;
    files.push(file);
    for (const spec of specifiersOf(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) {
        external.set(spec, [...(external.get(spec) ?? []), file]);
        continue;
      }
      const target = join(dirname(file), spec.replace(/\.js$/, '.d.ts'));
      if (!seen.has(target)) {
        seen.add(target);
        pending.push(target);
      }
    }
  }
  return { files, external };
}

describe('public declarations', () => {
  it('name no other package (HiGHS included)', () => {
    const entry = join(dist, 'index.d.ts');
    expect(existsSync(entry), 'run `npm run build` first').toBe(true);
    const { files, external } = declarationClosure(entry);
    expect(files.length).toBeGreaterThan(10);
    expect(Object.fromEntries(external)).toEqual({});
  });
});

// The memory plan an Executable exposes and the `out` a run takes are named by the public entry
// point, so a user can type a variable holding them (a type error here fails `npm run typecheck`).
describe('public memory and out types', () => {
  it('are exported by the entry point', async () => {
    const api = await import('../../src/index.js');
    const out: import('../../src/index.js').OutArrays = { result: new Float64Array(3) };
    const options: import('../../src/index.js').RunOptions = { out, donate: ['xs'] };
    const exe = await api.compile('def main(xs: f64[n]):\n  return map(lam x: 2.0 * x, xs)\n').run({ xs: new Float64Array([1, 2, 3]) }, options);
    expect(exe['result']).toEqual({ data: out['result'], shape: [3] });
    type Exe = import('../../src/index.js').Executable;
    const sameMemoryPlan: Exe['memory'] extends import('../../src/index.js').MemoryPlan ? true : false = true;
    expect(sameMemoryPlan).toBe(true);
  });
});
