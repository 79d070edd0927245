// Golden plans for the paper's examples (examples/*.fuse headers), built by hand in IR.
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/index.js';
import { createSolverLoader } from '../../src/plan/ilp/solver.js';
import { paperExamples } from './fixtures.js';

const solver = createSolverLoader();

describe('ILP plans of the paper examples (reads+writes)', () => {
  it.each(paperExamples)('$name: $clusters cluster(s), manifest $manifest', async ({ build, clusters, manifest }) => {
    const p = await plan(build(), { solver });
    expect(p.stats.status).toBe('optimal');
    expect(p.root.clusters.length).toBe(clusters);
    expect(p.root.clusters.flatMap((c) => c.manifest).sort()).toEqual([...manifest].sort());
  });
});
