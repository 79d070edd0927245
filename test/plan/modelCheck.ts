// Helpers the ILP model tests share: every block of a program's graph tree, and the rows and
// bounds a candidate solution breaks.
import type { BlockGraphs } from '../../src/graph/program.js';
import type { IlpModel } from '../../src/plan/ilp/model.js';

/** A block's graphs and those of every block nested in it, root first. */
export function allBlocks(bg: BlockGraphs): BlockGraphs[] {
  return [bg, ...Object.values(bg.children).flatMap((bs) => bs.flatMap(allBlocks))];
}

/** Names of the rows and bounds the values break (with a tolerance of 1e-9). */
export function violations(model: IlpModel, values: Float64Array): string[] {
  const out: string[] = [];
  model.columns.forEach((c, i) => {
    if (values[i]! < c.lower - 1e-9 || values[i]! > c.upper + 1e-9) out.push(`bound ${c.name} = ${values[i]}`);
  });
  for (const row of model.rows) {
    const activity = row.cols.reduce((s, c, i) => s + row.coefs[i]! * values[c]!, 0);
    if (activity < row.lower - 1e-9 || activity > row.upper + 1e-9) out.push(`row ${row.name} = ${activity}`);
  }
  return out;
}
