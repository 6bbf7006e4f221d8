import { defineConfig } from 'vitest/config';
import { UNIT_FILES, withModuleStateFiles } from './test/support/test-tiers.js';

// `npm run test:quick` (scripts/test-quick.ts, docs/TESTING.md "The quick tier"): the protocol's
// and the service's pure unit tests, the same files as the unit project of vitest.config.ts,
// without its global setup (no DynamoDB Local, no s3rver, no client build) and with a guard that
// fails any test starting a child process or opening a connection (test/support/quick-tier-guard.ts).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const shared = {
  testTimeout: 30_000,
  pool: 'forks' as const,
  setupFiles: ['./test/support/quick-tier-guard.ts'],
  env: { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' },
};
const alias = { '@agent-ledger/client': new URL('./client/src/index.ts', import.meta.url).pathname };

export default defineConfig({
  resolve: { alias },
  test: {
    maxWorkers: 2,
    projects: [
      {
        resolve: { alias },
        test: { ...shared, name: 'quick', include: UNIT_FILES, exclude: ['**/node_modules/**', ...withModuleStateFiles], isolate: false },
      },
      {
        resolve: { alias },
        test: { ...shared, name: 'quick-isolated', include: withModuleStateFiles },
      },
    ],
  },
});
