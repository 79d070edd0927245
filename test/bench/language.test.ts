// The language benchmark (bench/language): its command line, its inputs and hand loops against
// values computed here, its output checks failing on a wrong answer, and one tiny interleaved
// run of every contender (outputs verified by the harness). No timing is asserted.

import { describe, expect, it } from 'vitest';
import { interleave } from '../../bench/compute/harness.js';
import { closeRows, csrInput, histogramInput, histogramLoop, sameCounts, spmvLoop } from '../../bench/language/programs.js';
import { histogramContenders, parseLanguageArgs, spmvContenders, table } from '../../bench/language/suite.js';

const g = globalThis as { gc?: () => void };
g.gc ??= () => {};

describe('bench:language', () => {
  it('defaults to the issue sizes; bad values are usage errors', () => {
    expect(parseLanguageArgs([])).toMatchObject({ n: 10_000_000, rows: 1_000_000, perRow: 10, threads: 2, repetitions: 7 });
    expect(parseLanguageArgs(['--n', '5', '--threads', '3'])).toMatchObject({ n: 5, threads: 3 });
    expect(() => parseLanguageArgs(['--n', '0'])).toThrow();
  });

  it('inputs and hand loops: counts add up (out-of-range values skipped), CSR rows as their lengths say', () => {
    const xs = histogramInput(5000);
    const counts = histogramLoop(xs);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(xs.filter((x) => x >= 0 && x < 1).length);
    const m = csrInput(50, 3);
    expect(m.rowPtr[50]).toBe(m.vals.length);
    m.lens.forEach((l, i) => expect(m.rowPtr[i + 1]! - m.rowPtr[i]!).toBe(l));
    const y = spmvLoop(m);
    let row0 = 0;
    for (let k = 0; k < m.lens[0]!; k++) row0 += m.vals[k]! * m.x[m.cols[k]!]!;
    expect(y[0]).toBe(row0);
  });

  it('the checks catch a wrong answer', () => {
    const want = Int32Array.from([1, 2, 3]);
    expect(sameCounts({ data: Int32Array.from([1, 2, 3]), shape: [3] }, want)).toBeNull();
    expect(sameCounts({ data: Int32Array.from([1, 2, 4]), shape: [3] }, want)).toMatch(/bin 2/);
    const m = csrInput(10, 2);
    const y = spmvLoop(m);
    const wrong = Float64Array.from(y, (v, i) => (i === 3 ? v + 1e-3 : v));
    expect(closeRows({ data: y, shape: [10] }, y, m)).toBeNull();
    expect(closeRows({ data: wrong, shape: [10] }, y, m)).toMatch(/row 3/);
  });

  it('a tiny interleaved run: every contender verified, the plans printed', async () => {
    const o = parseLanguageArgs(['--n', '3000', '--rows', '300', '--per-row', '3', '--repetitions', '1']);
    const h = await histogramContenders(o);
    expect(h.plan).toMatch(/cluster 2/);
    const s = await spmvContenders(o);
    for (const [what, contenders] of [['histogram', h.contenders], ['spmv', s.contenders]] as const) {
      const timings = await interleave(contenders, { repetitions: 1, what, warmUp: false });
      expect(timings.map((t) => t.verified)).toEqual(['verified', 'verified', 'verified']);
      expect(table(what, timings)).toMatch(/÷ loop/);
    }
  }, 60_000);
});
