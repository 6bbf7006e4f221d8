import { defineConfig } from 'vitest/config';

// One run covers every package: protocol unit tests and the service's unit,
// integration (DynamoDB Local + s3rver), e2e (HTTP against the local stack) and infra tests.
export default defineConfig({
  test: {
    include: ['protocol/test/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One DynamoDB Local and one s3rver for the whole run; each test file gets its own table and buckets.
    globalSetup: ['./test/global-setup.ts'],
    // Handlers log through Powertools; tests assert responses, not log lines.
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT' },
  },
});
