// Builds the published form of @agent-ledger/client (run by `prepare` on every install and
// by `prepack` before `npm pack`):
//   dist/cli.cjs   the `agent-ledger` CLI with the hook in ONE file: a coding tool starts it on
//                  every tool use, so it must not resolve or read a tree of modules at startup;
//   dist/commands.cjs every other command, in one file that cli.cjs imports when one runs;
//   dist/index.js  the SDK (LedgerClient, verifyReceipt, ...) for `import '@agent-ledger/client'`;
//   dist/index.d.ts (with --types) the SDK's types, @agent-ledger/protocol's inlined, so the
//                  tarball needs nothing but Node 20+.
// Both bundles inline @agent-ledger/protocol and every library: the package has no runtime
// dependencies.
import { build } from 'esbuild';
import { chmod, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
const withTypes = process.argv.includes('--types');
const { version } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
// --outdir=DIR builds elsewhere (the package test stages a tarball without touching dist/).
const dist = process.argv.find((arg) => arg.startsWith('--outdir='))?.slice('--outdir='.length) ?? join(root, 'dist');

// Bundled CommonJS libraries call require() for Node built-ins; an ES module has none.
const requireShim = "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // jsonc-parser's CommonJS build loads its parts through a UMD wrapper esbuild cannot follow.
  mainFields: ['module', 'main'],
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
};

// dist is not emptied first: `npm pack` runs prepack (which writes dist/index.d.ts) before prepare.
await mkdir(dist, { recursive: true });
// Every command but the hook, as a module of its own that cli.cjs imports only when one of them
// runs (src/cli/main.ts): the hook's start-up then parses cli.cjs alone, a small part of the CLI.
const commandsFile = 'commands.cjs';
// In the CLI's bundle, main.ts's import of the commands names that shipped file instead.
const commandsAsShippedFile = {
  name: 'commands-as-shipped-file',
  setup(plugin) {
    plugin.onResolve({ filter: /^\.\/commands\/index\.js$/ }, (args) =>
      args.importer === join(root, 'src/cli/main.ts') ? { path: `./${commandsFile}`, external: true } : undefined,
    );
  },
};

await Promise.all([
  build({
    ...common,
    format: 'cjs',
    entryPoints: [join(root, 'src/cli/commands/index.ts')],
    outfile: join(dist, commandsFile),
    define: { AGENT_LEDGER_VERSION: JSON.stringify(version) },
  }),
  build({
    ...common,
    // CommonJS: Node starts a CommonJS entry a few ms sooner than an ES module one.
    format: 'cjs',
    entryPoints: [join(root, 'src/cli/main.ts')],
    outfile: join(dist, 'cli.cjs'),
    banner: { js: '#!/usr/bin/env node' },
    plugins: [commandsAsShippedFile],
    define: {
      AGENT_LEDGER_VERSION: JSON.stringify(version),
      // createRequire() takes a path as well as a file URL.
      'import.meta.url': '__filename',
    },
  }),
  build({
    ...common,
    minify: false,
    entryPoints: [join(root, 'src/index.ts')],
    outfile: join(dist, 'index.js'),
    banner: { js: requireShim },
  }),
]);
await chmod(join(dist, 'cli.cjs'), 0o755);

if (withTypes) {
  const { generateDtsBundle } = await import('dts-bundle-generator');
  const { writeFile } = await import('node:fs/promises');
  const [dts] = generateDtsBundle([{ filePath: join(root, 'src/index.ts'), output: { noBanner: true } }], {
    preferredConfigPath: join(root, 'tsconfig.types.json'),
  });
  await writeFile(join(dist, 'index.d.ts'), dts);
}
