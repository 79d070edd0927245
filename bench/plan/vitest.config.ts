// Runs the planner benchmark: `npx vitest run --config bench/plan/vitest.config.ts`.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // src/lower/prelude.generated.ts (the embedded prelude) is generated, not committed.
  test: { include: ['bench/plan/*.test.ts'], testTimeout: 600_000, globalSetup: ['scripts/embed-prelude.mjs'] },
});
