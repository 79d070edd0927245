import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // src/lower/prelude.generated.ts (the embedded prelude) is generated, not committed.
    globalSetup: ['scripts/embed-prelude.mjs'],
    // One thread by default (the js back end): only the tests that ask for threads (the
    // multicore configurations) start workers, so parallel test files do not each start a pool
    // on a machine whose cores they already share. Child processes (the CLI's spawn tests) inherit it.
    // The roofline's cached machine rates (`run --stats`, src/cli/roofline.ts) go to a cache of
    // the suite's own, never the user's ~/.cache.
    env: { ARRAYFUSE_THREADS: '1', XDG_CACHE_HOME: join(tmpdir(), 'arrayfuse-test-cache') },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
