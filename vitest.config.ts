import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/** Tests whose assertions are event-loop delays or wall-clock bounds. */
const TIMING_FILES = ['test/reliability/fair-latency.test.ts', 'test/reliability/fair-budget.test.ts', 'test/reliability/cheap-first.test.ts'];

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module). Node — and so every dependency — loads the CJS
    // build; Vite would hand our own files the ESM one, and two graphql instances cannot share a schema.
    alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }],
  },
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: TIMING_FILES,
          // A worker imports the app once and runs its files one after another in that module graph (about
          // 1.4 s of imports per file saved); on the embedded default its files also share one PGlite
          // (test/helpers/database.ts), as the files of a PostgreSQL run share one database. Files work in
          // shops of their own (uniqueShopId) and leave no process-wide state behind.
          isolate: false,
        },
      },
      {
        // Files that measure the event loop's delay run in a fresh process each: a heap grown by the files
        // before (a major GC of it) held the loop 524 ms inside the fair-sharing test.
        test: { name: 'timing', include: TIMING_FILES, isolate: true },
      },
    ],
  },
});
