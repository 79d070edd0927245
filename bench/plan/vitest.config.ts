// Runs the planner benchmark: `npx vitest run --config bench/plan/vitest.config.ts`.
import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { include: ['bench/plan/*.test.ts'], testTimeout: 600_000 } });
