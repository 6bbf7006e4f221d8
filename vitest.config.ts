import { defineConfig } from 'vitest/config';

// The AWS SDK's Node 20 deprecation notice would repeat in every worker; Lambda runs Node 22.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// One run covers every package: protocol unit tests, the client (SDK, built CLI, hooks) and the service's unit,
// integration (DynamoDB Local + s3rver), e2e (HTTP against the local stack) and infra tests.
export default defineConfig({
  // In-repo code (scripts, test fixtures) uses the SDK's source, like tsconfig.json's paths;
  // the published form is client/dist, which the client tests run as a user would.
  resolve: { alias: { '@agent-ledger/client': new URL('./client/src/index.ts', import.meta.url).pathname } },
  test: {
    include: ['protocol/test/**/*.test.ts', 'client/test/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One DynamoDB Local and one s3rver for the whole run; each test file gets its own table and buckets.
    // The client's global setup builds client/dist once, so its tests run the bundled CLI.
    globalSetup: ['./test/global-setup.ts', './client/test/global-setup.ts'],
    // Handlers log through Powertools; tests assert responses, not log lines.
    // Set POWERTOOLS_LOG_LEVEL=ERROR (or lower) to see the handlers' logs while debugging.
    // Metrics likewise: recorded (tests may spy on them), not printed.
    env: { POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' },
  },
});
