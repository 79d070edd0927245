// Golden generated code for the paper's programs under their optimal plans: the loops must
// read like the paper's listings (§1 singleLoop, §3.2 simple1…simple5, §3.3 scatterExample).
// Refresh with `UPDATE_GOLDEN=1 npx vitest run test/codegen/golden.test.ts` (a test-only switch).

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { emitJs } from '../../src/runtime/index.js';
import { paperCases } from './paper.js';

const update = process.env['UPDATE_GOLDEN'] === '1';

describe('golden generated code', () => {
  test.each(paperCases.map((c) => c()))('$name', ({ name, program, plan }) => {
    const path = fileURLToPath(new URL(`./golden/${name}.js`, import.meta.url));
    const text = emitJs(program, plan);
    if (update) writeFileSync(path, text);
    expect(text).toBe(readFileSync(path, 'utf8'));
  });

  test('simple4 computes only the selected rows: its inner loop is inside the loop over is', () => {
    const text = readFileSync(fileURLToPath(new URL('./golden/simple4.js', import.meta.url)), 'utf8');
    const cluster = text.slice(0, text.indexOf('function main'));
    // Four selected rows at a time (jam.ts), then the rows left over one at a time.
    expect(cluster.match(/for \(/g)).toHaveLength(4);
    const rest = cluster.slice(cluster.lastIndexOf('for (let i'));
    // Per selected row: read its index, check it inline, find the row's start, fold the row.
    expect(rest).toMatch(
      /for \(let i\d+ = q\d+ \* 4; i\d+ < n1; i\d+\+\+\) \{\n.*\n\s+if \(x\d+ >>> 0 >= n\d+\) \{\n\s+rt\.oob[^\n]*\n\s+\}\n\s+const b\d+ = x\d+ \* n\d+;\n\s+let acc\d+ = 0;\n\s+for \(/,
    );
    const jammed = cluster.slice(cluster.indexOf('for (let k'), cluster.lastIndexOf('for (let i'));
    expect(jammed.match(/rt\.oob/g)).toHaveLength(4);
    expect(jammed.match(/acc\d+ = r\d+;/g)).toHaveLength(4);
  });

  test('simple5 reads xs twice, in order 0 and in the gather order; singleLoop has no intermediate allocation', () => {
    const s5 = emitJs(paperCases[5]!().program, paperCases[5]!().plan);
    expect(s5.match(/= a2\[/g)).toHaveLength(2);
    // The memory plan writes singleLoop's one manifest array straight into its result buffer:
    // nothing is allocated from the pool or fresh, only the result is taken.
    const sl = emitJs(paperCases[0]!().program, paperCases[0]!().plan);
    expect(sl).not.toMatch(/rt\.(alloc|take|pair)\(/);
    expect(sl.match(/rt\.result\(/g)).toHaveLength(1);
  });
});
