import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Decides once whether the PostgreSQL half of each dialect suite runs (and fails CI when it cannot).
    globalSetup: ['test/support/global-setup.ts'],
    // Real databases, real servers: generous, but a hung test still fails.
    testTimeout: 20_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
