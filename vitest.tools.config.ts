import { defineConfig } from 'vitest/config';

// `npm run test:tools`: the hook inside the real coding tools (test/tools/), apart from `npm test`:
// it installs each tool's pinned npm package into a cache once (test/tools/versions.json) and
// drives it against the local stack. One tool at a time: each run is a tool process tree of its own.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export default defineConfig({
  test: {
    name: 'tools',
    include: ['test/tools/**/*.test.ts'],
    globalSetup: ['./test/global-setup.ts', './client/test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 240_000,
    hookTimeout: 900_000,
    env: { POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' },
  },
});
