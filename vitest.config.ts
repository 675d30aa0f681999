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
    // Node loads GraphQL Inspector's ESM build with graphql's CommonJS entry, while Vite gives src graphql's ESM one:
    // two graphql realms, whose type objects fail each other's instanceof. Inlined, it shares src's graphql (as in dist, where both are CommonJS).
    server: { deps: { inline: ['@graphql-inspector/core'] } },
  },
});
