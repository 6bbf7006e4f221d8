/**
 * The protocol's tests on their own (`npm test -w protocol`, and the fresh-clone test in
 * test/system/fresh-clone.test.ts): they need nothing but this package, so no DynamoDB Local,
 * s3rver or client build. The repository's vitest.config.ts runs the same files in its
 * `ledger` project.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('.', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // The files keep no state in the modules they share (zero I/O, no mocks): one process per
    // worker runs them one after the other, instead of loading the package again for each
    // file (half the CPU time of isolated runs).
    isolate: false,
    // A loaded machine: the 100,000-leaf Merkle cases take seconds.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
