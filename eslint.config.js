// ESLint flat config. The import rules enforce the dependency rule
// (docs/ARCHITECTURE.md, The dependency rule): protocol/ is pure (no AWS, middy, zod or I/O);
// domain/ uses store/, protocol and port types only; store/ never reaches up into domain/;
// shared/ uses nothing of ours. test/unit/dependency-rule.test.ts checks each rule fires,
// and test/unit/import-cycles.test.ts that no import cycle exists.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const ioModules = ['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'child_process', 'dgram', 'dns', 'tls', 'worker_threads', 'cluster', 'readline'];

export default tseslint.config(
  { ignores: ['client/dist/**', 'protocol/dist/**', 'console/dist/**', 'console/test-results/**', 'client/src/generated/**', 'node_modules/**', 'cdk.out/**', '.ledger/**', '.tmp/**', '.scratch*/**', 'coverage/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', performance: 'readonly', crypto: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The console runs in a browser: the protocol's browser modules (protocol/package.json `imports`, condition `browser`) and the API, nothing of the service's.
    files: ['console/src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'console/src runs in a browser.' },
            { group: ['**/lambdas/**', '**/local/**', '**/lib/**'], message: 'console/src talks to the service over its API only (client/src/generated/api.ts types).' },
          ],
        },
      ],
    },
  },
  {
    files: ['protocol/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...ioModules.flatMap((name) => [
              { name, message: 'protocol/ is pure: no I/O (docs/ARCHITECTURE.md, Layout).' },
              { name: `node:${name}`, message: 'protocol/ is pure: no I/O (docs/ARCHITECTURE.md, Layout).' },
            ]),
            { name: 'zod', message: 'protocol/ has no runtime dependencies.' },
          ],
          patterns: [
            { group: ['@aws-sdk/*', 'aws-sdk', '@aws-lambda-powertools/*', 'aws-cdk-lib', 'aws-cdk-lib/*'], message: 'protocol/ uses no AWS code.' },
            { group: ['@middy/*'], message: 'protocol/ knows nothing of Lambda middleware.' },
            { group: ['../../*', '**/lambdas/**', '**/client/**'], message: 'protocol/ uses nothing of ours.' },
          ],
        },
      ],
    },
  },
  {
    files: ['lambdas/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/http/**', '**/workers/**', '**/routes/**', '@middy/*', 'aws-lambda'], message: 'domain/ has no HTTP or Lambda types: handlers call the domain, not the other way (docs/ARCHITECTURE.md, The dependency rule).' },
            { group: ['**/adapters/**', '**/runtime/**'], message: 'domain/ takes ports as arguments (domain/ports.ts Ports); only the handlers and workers pick implementations from runtime/ (docs/ARCHITECTURE.md, The dependency rule).' },
            { group: ['@aws-sdk/*', '**/store/clients.js'], message: 'domain/ reads and writes through store/ functions, never SDK commands (docs/ARCHITECTURE.md, The dependency rule).' },
          ],
        },
      ],
    },
  },
  {
    files: ['lambdas/store/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/domain/**', '**/http/**', '**/workers/**', '**/routes/**', '**/adapters/**', '**/runtime/**'], message: 'store/ is the bottom layer: it uses shared/, config and protocol only, never the layers that use it (docs/ARCHITECTURE.md, The dependency rule).' },
            { group: ['@middy/*', 'aws-lambda'], message: 'store/ knows nothing of Lambda.' },
          ],
        },
      ],
    },
  },
  {
    files: ['lambdas/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../*', '@aws-sdk/*', '@middy/*', 'aws-lambda'], message: 'shared/ is vocabulary every layer uses: it imports nothing of ours but protocol (docs/ARCHITECTURE.md, The dependency rule).' }] },
      ],
    },
  },
  {
    files: ['lambdas/routes/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/http/**', '**/workers/**', '**/domain/**', '**/store/**', '**/adapters/**', '**/runtime/**', '@aws-sdk/*', '@middy/*'], message: 'The route table is data (lib/, local/ and the OpenAPI document read it): zod schemas and shared/ only.' },
          ],
        },
      ],
    },
  },
  {
    files: ['lambdas/http/**/*.ts', 'lambdas/workers/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@aws-sdk/*', '**/adapters/aws/**', '**/store/clients.js'], message: 'Handlers reach AWS through store/ and the ports of runtime/, so each bundle holds only what its route uses (docs/ARCHITECTURE.md, The dependency rule).' }] },
      ],
    },
  },
);
