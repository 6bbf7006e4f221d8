import { defineConfig } from 'vitest/config';
import { UNIT_FILES, WITH_MODULE_STATE, withModuleStateFiles } from './test/support/test-tiers.js';

// The AWS SDK's Node 20 deprecation notice would repeat in every worker; Lambda runs Node 22.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// One run covers every package: protocol unit tests, the client (SDK, built CLI, hooks), the service's unit,
// integration (DynamoDB Local + s3rver), e2e (HTTP against the local stack) and infra tests, and the console in
// a real browser; then the protocol's tests again on its browser build.
// Projects do not inherit the root's test options; each takes these.
const common = { testTimeout: 30_000, hookTimeout: 60_000, pool: 'forks' } as const;


// What the ledger and unit projects share.
const ledgerBase = {
  // In-repo code (scripts, test fixtures) uses the SDK's source, like tsconfig.json's paths;
  // the published form is client/dist, which the client tests run as a user would.
  resolve: { alias: { '@agent-ledger/client': new URL('./client/src/index.ts', import.meta.url).pathname } },
  test: {
    ...common,
    // One DynamoDB Local and one s3rver for the whole run; each test file gets its own table and buckets.
    // The client's global setup builds client/dist once, so its tests run the bundled CLI.
    globalSetup: ['./test/global-setup.ts', './client/test/global-setup.ts'],
    // Handlers log through Powertools; tests assert responses, not log lines.
    // Set POWERTOOLS_LOG_LEVEL=ERROR (or lower) to see the handlers' logs while debugging.
    // Metrics likewise: recorded (tests may spy on them), not printed.
    env: { POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' },
  },
};

export default defineConfig({
  test: {
    // Two test files at a time. Vitest's default is one fewer than the cores, one file at a time on the
    // 2-core machines this runs on, while most files spend their time waiting on DynamoDB Local, s3rver,
    // Chromium and timers: two at a time take 0.7x as long (355 s against 500 s for the same files).
    // LEDGER_TEST_WORKERS overrides it, to measure another count on another machine.
    maxWorkers: Number(process.env.LEDGER_TEST_WORKERS) || 2,
    projects: [
      {
        ...ledgerBase,
        test: {
          ...ledgerBase.test,
          name: 'ledger',
          include: ['client/test/**/*.test.ts', 'console/test/**/*.test.ts', 'test/**/*.test.ts'],
          // The CDK tests run in the infra project; the real coding tools apart, in `npm run test:tools`
          // (vitest.tools.config.ts); the unit tests in the unit project, but those with a module state of their own.
          exclude: ['**/node_modules/**', 'test/infra/**', 'test/tools/**', `test/unit/!(${WITH_MODULE_STATE.join('|')}).test.ts`],
        },
      },
      {
        // The protocol's and the service's unit tests: none starts a local stack (the client's files
        // do, and stay in the ledger project), and none depends on what another file leaves in the
        // modules or the environment (those that read config() set it first: test/support/local-config.ts).
        // So each worker runs them one after the other in one process (isolate: false) instead of a
        // fresh process per file, which loaded the same modules again for each of 53 files; for
        // these with the client's, 0.8x the time of the same files isolated (102 s against 137 s
        // here). A file that replaces a module (vi.mock) stays in the ledger project (WITH_MODULE_STATE).
        ...ledgerBase,
        test: {
          ...ledgerBase.test,
          name: 'unit',
          include: UNIT_FILES,
          exclude: ['**/node_modules/**', ...withModuleStateFiles],
          isolate: false,
        },
      },
      {
        // The CDK stack's tests, one file after the other in one process (isolate: false), so that they share
        // aws-cdk-lib's loading and the default stack's synthesis (test/infra/support.ts defaultSynth): seconds of
        // CPU each, which every file paid again in a fresh process. They need no local engine.
        test: {
          ...common,
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          isolate: false,
          fileParallelism: false,
          // One file at a time is another worker count than the other projects', which vitest runs as a group
          // of its own: after them, while DynamoDB Local and Chromium are done with the two cores.
          sequence: { groupOrder: 1 },
          // A file's beforeAll synthesizes (CPU only, the process's first synthesis several times the rest): room for a loaded machine.
          hookTimeout: 180_000,
        },
      },
      {
        // The console verifies in the browser with protocol/'s browser modules: the tests of every module
        // that reaches `#platform/...` (protocol/package.json `imports`), resolved under the `browser`
        // condition as the console's Vite build resolves them, so the @noble twins stand in for node:crypto.
        ssr: { resolve: { conditions: ['browser'] } },
        test: {
          ...common,
          name: 'protocol-browser',
          root: new URL('./protocol', import.meta.url).pathname,
          include: [
            'test/encoding/base64url.test.ts',
            'test/crypto/curve.test.ts',
            'test/crypto/ed25519.test.ts',
            'test/crypto/hash.test.ts',
            'test/crypto/jwk.test.ts',
            'test/merkle/merkle.test.ts',
            'test/ledger/receipt.test.ts',
            'test/ledger/record.test.ts',
            'test/ledger/uuid.test.ts',
          ],
          // Pure-JS hashing: the capacity tests (a 10,000-key cache, a 100,000-leaf tree) take seconds here.
          testTimeout: 60_000,
        },
      },
    ],
  },
});
