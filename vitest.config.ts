import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'web/src/**/*.test.ts'],
    // better-sqlite3 is a native addon and several tests spawn server processes: forks isolate both.
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 60_000,
    // What a poll waits for does happen, but a busy 2-core machine (the suite runs its files in
    // parallel, the browser beside the servers) can take longer than the default second.
    expect: { poll: { timeout: 15_000 } },
    // Builds the console once for the browser tests when its sources changed.
    globalSetup: ['test/browser/global-setup.ts'],
    // Every test file gets an empty HOME and none of the person's Annotary or cloud variables.
    setupFiles: ['test/isolated-env.setup.ts'],
    reporters: ['default'],
  },
});
