// The checker's independence, enforced on the import specifiers of the source files
// (docs/DESIGN.md "The checker is independent"):
//  - nothing in src/plan or src/memory imports src/check (the planners must not lean on their own
//    cross-check);
//  - src/check imports only its own files, src/util, src/diagnostics, src/ir but not its rule
//    table (src/ir/rules.ts: the checker states the rules again in src/check/kinds.ts) nor the
//    in-place rule (src/ir/updates.ts: the memory validator states it again), the Plan and
//    CostSpec data types (src/plan/types.ts, src/plan/cost.ts), the memory plan's format
//    (src/memory/types.ts, not the memory planner), the shared facts about values
//    (src/graph/orderings.ts, src/graph/sizes.ts) and the graph JSON format's types
//    (src/graph/jsonFormat.ts) — no strategy, no ILP, no graph builder or reader.
// Specifiers come from test/util/sources.ts and are resolved against the importing file.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSpecifiers, repoRoot as root, resolveSpecifier, sourceFiles as tsFiles } from '../util/sources.js';

const checkerMayImport: readonly ((target: string) => boolean)[] = [
  (t) => t.startsWith('src/check/'),
  (t) => t.startsWith('src/util/'),
  (t) => t.startsWith('src/diagnostics/'),
  (t) => t.startsWith('src/ir/') && t !== 'src/ir/rules.ts' && t !== 'src/ir/updates.ts',
  (t) => t === 'src/plan/types.ts' || t === 'src/plan/cost.ts',
  (t) => t === 'src/memory/types.ts',
  (t) => t === 'src/graph/orderings.ts' || t === 'src/graph/sizes.ts' || t === 'src/graph/jsonFormat.ts',
];

/** Every import breaking the checker's independence, as `file: specifier (why)`. */
function independenceViolations(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, text] of files) {
    for (const specifier of importSpecifiers(text)) {
      const target = resolveSpecifier(file, specifier);
      for (const planner of ['src/plan/', 'src/memory/']) {
        if (file.startsWith(planner) && target.startsWith('src/check/')) {
          out.push(`${file}: ${specifier} (${planner.slice(0, -1)} must not import the checker)`);
        }
      }
      if (file.startsWith('src/check/') && !checkerMayImport.some((ok) => ok(target))) {
        out.push(`${file}: ${specifier} (the checker may not import ${target})`);
      }
    }
  }
  return out;
}

function sources(): Map<string, string> {
  return new Map([...tsFiles('src/plan'), ...tsFiles('src/memory'), ...tsFiles('src/check')].map((f) => [f, readFileSync(join(root, f), 'utf8')]));
}

describe('the checker is independent of the planner', () => {
  it('no file of src/plan or src/memory imports src/check, and src/check imports only what it may', () => {
    const files = sources();
    expect([...files.keys()].some((f) => f.startsWith('src/check/'))).toBe(true);
    expect(files.has('src/check/memory.ts') && files.has('src/memory/index.ts')).toBe(true);
    expect([...files.keys()].some((f) => f.startsWith('src/plan/ilp/'))).toBe(true);
    expect(independenceViolations(files)).toEqual([]);
  });

  it('the rule catches each kind of bad import (checked on edited copies of the real files)', () => {
    const files = sources();
    const edited = (file: string, line: string): Map<string, string> => new Map([...files, [file, `${line}\n${files.get(file)!}`]]);
    expect(independenceViolations(edited('src/plan/greedy.ts', "import { validatePlan } from '../check/validate.js';"))).toEqual([
      'src/plan/greedy.ts: ../check/validate.js (src/plan must not import the checker)',
    ]);
    expect(independenceViolations(edited('src/plan/ilp/model.ts', "export * from '../../check/index.js';"))).toHaveLength(1);
    expect(independenceViolations(edited('src/check/validate.ts', "import type { DependenceGraph } from '../graph/types.js';"))).toEqual([
      'src/check/validate.ts: ../graph/types.js (the checker may not import src/graph/types.ts)',
    ]);
    expect(independenceViolations(edited('src/check/reads.ts', "import { plan } from '../plan/index.js';"))).toHaveLength(1);
    expect(independenceViolations(edited('src/check/kinds.ts', "import { combinatorRules } from '../ir/rules.js';"))).toEqual([
      'src/check/kinds.ts: ../ir/rules.js (the checker may not import src/ir/rules.ts)',
    ]);
    expect(independenceViolations(edited('src/check/evaluate.ts', "const fs = await import('node:fs');"))).toHaveLength(1);
    expect(independenceViolations(edited('src/memory/index.ts', "import { validateMemoryPlan } from '../check/memory.js';"))).toEqual([
      'src/memory/index.ts: ../check/memory.js (src/memory must not import the checker)',
    ]);
    expect(independenceViolations(edited('src/check/memory.ts', "import { planMemory } from '../memory/index.js';"))).toEqual([
      'src/check/memory.ts: ../memory/index.js (the checker may not import src/memory/index.ts)',
    ]);
    expect(independenceViolations(edited('src/check/memory.ts', "import { mayAlias } from '../ir/updates.js';"))).toEqual([
      'src/check/memory.ts: ../ir/updates.js (the checker may not import src/ir/updates.ts)',
    ]);
    expect(independenceViolations(edited('src/check/memory.ts', "import type { MemoryPlan } from '../memory/types.js';"))).toEqual([]);
    expect(independenceViolations(edited('src/check/jsonGraph.ts', "import {\n  parseGraphJson,\n} from '../graph/fromJson.js';"))).toHaveLength(1);
  });

  it('reads every form of import specifier', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "import * as c from 'c';",
      "import './d.js';",
      "export { e } from './e.js';",
      "export type { F } from './f.js';",
      "export * from './g.js';",
      "const h = await import('./h.js');",
      "// import { no } from './comment.js';",
    ].join('\n');
    expect(importSpecifiers(text).sort()).toEqual(['../b.js', './a.js', './d.js', './e.js', './f.js', './g.js', './h.js', 'c']);
  });
});
