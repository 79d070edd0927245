// A loop-shape fuzz campaign (loopGen.ts, loopCheck.ts): program k of seed S comes from its own
// random stream, so any program can be regenerated from (S, k) alone, and findings are grouped
// by where they were seen (the configuration and lowering) with the smallest program kept.

import type { SolverLoader } from '../../src/plan/ilp/solver.js';
import type { BackendConfig } from '../runtime/backends.js';
import { checkLoopCase, type LoopFinding } from './loopCheck.js';
import { randomLoopCase, type LoopCase } from './loopGen.js';
import { Rng } from './rng.js';

/** Input sets per program: all run on the one executable lowered without inputs. */
export const LOOP_INPUT_SETS = 3;

/** Program `k` of a seed, with its input sets. */
export function loopCase(seed: number, k: number): LoopCase {
  const rng = new Rng((Math.imul(seed, 0x9e3779b1) ^ Math.imul(k + 1, 0x27d4eb2f)) >>> 0);
  return randomLoopCase(rng, LOOP_INPUT_SETS);
}

export interface LoopScanResult {
  readonly programs: number;
  /** Programs with at least one finding. */
  readonly failed: number;
  /** One per place a finding was seen: how many programs, and the smallest one's number and finding. */
  readonly groups: readonly { readonly where: string; count: number; k: number; size: number; finding: LoopFinding }[];
}

export interface LoopScanOptions {
  readonly seed: number;
  readonly count: number;
  readonly solver: SolverLoader;
  readonly configs: readonly BackendConfig[];
  /** Check only programs k with k % of === index. */
  readonly slice?: { readonly index: number; readonly of: number };
  readonly log?: (line: string) => void;
}

export async function scanLoops(o: LoopScanOptions): Promise<LoopScanResult> {
  const { index, of } = o.slice ?? { index: 0, of: 1 };
  const groups = new Map<string, { where: string; count: number; k: number; size: number; finding: LoopFinding }>();
  let programs = 0;
  let failed = 0;
  for (let k = index; k < o.count; k += of) {
    const c = loopCase(o.seed, k);
    const findings = await checkLoopCase(c, { solver: o.solver, configs: o.configs });
    programs++;
    if (findings.length > 0) failed++;
    for (const f of findings) {
      const where = f.where.replace(/@\d+/, '@N');
      const g = groups.get(where);
      const size = c.source.length;
      if (g === undefined) groups.set(where, { where, count: 1, k, size, finding: f });
      else {
        g.count++;
        if (size < g.size) Object.assign(g, { k, size, finding: f });
      }
    }
    if (o.log !== undefined && programs % 100 === 0) o.log(`${programs} loop programs: ${failed} with findings, ${groups.size} groups`);
  }
  return { programs, failed, groups: [...groups.values()] };
}

/** The counts and each group's smallest program, as `npm run test:fuzz -- --loops N` prints them. */
export function loopReport(seed: number, r: LoopScanResult, seconds: number): string {
  const lines = [`loops seed ${seed}: ${r.programs} programs in ${seconds.toFixed(1)} s, ${r.failed} with findings`];
  for (const g of r.groups) lines.push('', `=== ${g.where} x${g.count} (smallest: program ${g.k} of seed ${seed})`, g.finding.detail);
  return lines.join('\n');
}
