// Builds the published form of @agent-ledger/protocol into dist/, which is a complete
// package of its own: `npm pack ./protocol/dist` (or `npm publish ./protocol/dist`).
//   dist/**/*.js, *.d.ts   src/ compiled by tsc (tsconfig.build.json): ES modules, the same
//                          code and imports as src/, so still no I/O (test/package.test.ts);
//   dist/package.json      this package.json with `exports` and `imports` (the `#platform/...`
//                          seam between the node: modules and their browser twins) on the
//                          JavaScript, and the scripts dropped; LICENSE and README.md are
//                          copied when present.
//
// Why a separate package root rather than conditions in this package.json: everything in the
// repository (tsx, vitest, the esbuild bundles of the lambdas and the CLI, the console's Vite
// build, tsc) resolves `@agent-ledger/protocol` to src/*.ts through the
// `exports` below and needs no flag, alias or build step to see a change. A custom condition
// would have to be passed to each of those tools (and to every child process a test starts), a
// tsconfig `paths` entry only reaches tools that read that tsconfig, and rewriting package.json
// in prepack leaves it rewritten when a pack fails. So the source package keeps pointing at
// src/, its `prepack` refuses to pack it, and the package users install is dist/.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
// --outdir=DIR builds elsewhere (the pack-and-install test stages a tarball without touching dist/).
const dist = process.argv.find((arg) => arg.startsWith('--outdir='))?.slice('--outdir='.length) ?? join(root, 'dist');
const source = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', dist], { stdio: 'inherit' });

const entry = (name) => ({ types: `./${name}.d.ts`, default: `./${name}.js` });
// A source path under ./src/ in this package.json names its built .js (and .d.ts) beside it in dist/.
const built = (path, ext) => path.replace(/^\.\/src\//, './').replace(/\.ts$/, ext);
const platform = Object.fromEntries(
  Object.entries(source.imports).map(([name, { browser, default: node }]) => [name, { types: built(node, '.d.ts'), browser: built(browser, '.js'), default: built(node, '.js') }]),
);
const published = {
  name: source.name,
  version: source.version,
  description: source.description,
  ...(source.license === undefined ? {} : { license: source.license }),
  type: 'module',
  sideEffects: false,
  main: './index.js',
  types: './index.d.ts',
  exports: { '.': entry('index'), './core': entry('core'), './package.json': './package.json' },
  imports: platform,
  engines: { node: '>=20.19' },
  dependencies: source.dependencies,
};
writeFileSync(join(dist, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);
for (const file of ['LICENSE', 'README.md']) {
  if (existsSync(join(root, file))) copyFileSync(join(root, file), join(dist, file));
}
