import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // src/lower/prelude.generated.ts (the embedded prelude) is generated, not committed.
    globalSetup: ['scripts/embed-prelude.mjs'],
    // One thread by default (the js back end): only the tests that ask for threads (the
    // multicore configurations) start workers, so parallel test files do not each start a pool
    // on a machine whose cores they already share. Child processes (the CLI's spawn tests) inherit it.
    env: { ARRAYFUSE_THREADS: '1' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
