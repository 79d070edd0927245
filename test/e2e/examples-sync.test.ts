// The bundled examples are copies of the shared conformance examples (../shared/examples, the
// paper's programs with their stated plans). This test keeps the copies in sync instead of
// trusting anyone to copy them by hand.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const repo = join(import.meta.dirname, '..', '..');
const shared = join(repo, '..', 'shared', 'examples');
const bundled = join(repo, 'examples');

describe.skipIf(!existsSync(shared))('examples/ mirrors ../shared/examples', () => {
  const sharedNames = existsSync(shared) ? readdirSync(shared).filter((f) => f.endsWith('.fuse')).sort() : [];

  it('has every shared example', () => {
    const bundledNames = readdirSync(bundled).filter((f) => f.endsWith('.fuse')).sort();
    expect(bundledNames).toEqual(expect.arrayContaining(sharedNames));
  });

  it.each(sharedNames)('%s is identical to the shared copy', (name) => {
    expect(readFileSync(join(bundled, name), 'utf8')).toBe(readFileSync(join(shared, name), 'utf8'));
  });
});

it.runIf(!existsSync(shared))('notice: ../shared/examples is absent, so the sync check is skipped', () => {
  console.warn('examples-sync: ../shared/examples not found; skipping the comparison');
});
