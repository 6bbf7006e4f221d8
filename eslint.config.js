// ESLint flat config. The import rules enforce DESIGN.md's dependency direction: protocol/
// is pure (no AWS, middy, zod or I/O), and the domain layer knows nothing of HTTP.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const ioModules = ['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'child_process', 'dgram', 'dns', 'tls', 'worker_threads', 'cluster', 'readline'];

export default tseslint.config(
  { ignores: ['client/dist/**', 'client/src/generated/**', 'node_modules/**', 'cdk.out/**', '.ledger/**', '.tmp/**', '.scratch*/**', 'coverage/**', '**/*.d.ts'] },
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
    files: ['protocol/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...ioModules.flatMap((name) => [
              { name, message: 'protocol/ is pure: no I/O (DESIGN.md, Layout).' },
              { name: `node:${name}`, message: 'protocol/ is pure: no I/O (DESIGN.md, Layout).' },
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
        { patterns: [{ group: ['**/http/**', '@middy/*', 'aws-lambda'], message: 'The domain layer has no HTTP or Lambda types (DESIGN.md, Layout).' }] },
      ],
    },
  },
);
