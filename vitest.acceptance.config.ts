import { defineConfig } from 'vitest/config';
import { ACCEPTANCE_FILES } from './test/acceptance/files.js';

// The acceptance set (test/acceptance/files.ts) against the running server at LEDGER_TEST_BASE_URL
// (test/support/ledger-url.ts): no engines of its own, so no global setup. `npm run test:acceptance`
// (scripts/test-acceptance.ts) starts the server and sets the variables.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
if (!process.env.LEDGER_TEST_BASE_URL) throw new Error('vitest.acceptance.config.ts runs against LEDGER_TEST_BASE_URL: use npm run test:acceptance');

export default defineConfig({
  resolve: { alias: { '@agent-ledger/client': new URL('./client/src/index.ts', import.meta.url).pathname } },
  test: {
    include: ACCEPTANCE_FILES.map((file) => `test/e2e/${file}`),
    // A deployed-shape server answers from functions loaded from their bundles, on a busy machine: room above vitest.config.ts's 30 s.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: Number(process.env.LEDGER_TEST_WORKERS) || 2,
  },
});
