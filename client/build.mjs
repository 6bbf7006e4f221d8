// Builds the published form of @agent-ledger/client (run by `prepare` on every install and
// by `prepack` before `npm pack`):
//   dist/cli.cjs   the whole `agent-ledger` CLI in ONE file: a coding tool starts it on every
//                  tool use, so it must not resolve or read a tree of modules at startup;
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

// dist is not emptied first: `npm pack` runs prepack (which writes index.d.ts) before prepare.
await mkdir(dist, { recursive: true });
// Every command but the hook, as CommonJS text that cli.js compiles only when one of them
// runs (src/cli/main.ts): the hook's start-up then parses ~30 KB instead of ~650 KB.
const commands = await build({
  ...common,
  format: 'cjs',
  entryPoints: [join(root, 'src/cli/commands/index.ts')],
  define: { AGENT_LEDGER_VERSION: JSON.stringify(version) },
  write: false,
  outfile: 'commands.cjs',
});
const commandsSource = commands.outputFiles[0].text;

await Promise.all([
  build({
    ...common,
    // CommonJS: Node starts a CommonJS entry a few ms sooner than an ES module one.
    format: 'cjs',
    entryPoints: [join(root, 'src/cli/main.ts')],
    outfile: join(dist, 'cli.cjs'),
    banner: { js: '#!/usr/bin/env node' },
    define: {
      AGENT_LEDGER_COMMANDS: JSON.stringify(commandsSource),
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
