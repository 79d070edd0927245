// `plan`, `run` and `emit` report a long planning call on stderr (PlanOptions.onProgress), so
// that a solve of seconds is not silent; stdout stays the command's output alone.

import type { PlanProgress, PlanStage } from '../plan/progress.js';

const stageWords: Readonly<Record<PlanStage, string>> = { greedy: 'greedy walks', model: 'building the ILP', solve: 'solving' };

/** A number as the plan's summary line prints costs: integers whole, others to 4 significant digits. */
function costText(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toPrecision(4);
}

/** One stderr line: `planning 1.2 s: block 2 of 3, solving: incumbent 368, bound 358, gap 2.7 %, 12 nodes`. */
export function progressLine(p: PlanProgress): string {
  const parts = [
    `incumbent ${p.incumbent === null ? 'none yet' : costText(p.incumbent)}`,
    `bound ${p.bound === null ? 'none yet' : costText(p.bound)}`,
    ...(p.gap === null ? [] : [`gap ${(100 * p.gap).toFixed(1)} %`]),
    `${p.nodes} ${p.nodes === 1 ? 'node' : 'nodes'}`,
  ];
  return `planning ${(p.elapsedMs / 1000).toFixed(1)} s: block ${p.block} of ${p.blocks}, ${stageWords[p.stage]}: ${parts.join(', ')}`;
}
