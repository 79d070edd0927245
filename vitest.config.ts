import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // src/lower/prelude.generated.ts (the embedded prelude) is generated, not committed.
    globalSetup: ['scripts/embed-prelude.mjs'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
