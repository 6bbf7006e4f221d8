/**
 * Builds the published form of @agent-ledger/client (dist/cli.cjs, dist/index.js) once per
 * test run: the client tests run the CLI exactly as a coding tool does, as one bundled file.
 * Beside it, the files the service hands out under /client/ (lib/client-files/build.ts), into
 * their cache: every `npm start` of test/e2e/npm-start.test.ts would build them otherwise (a
 * fresh checkout's first build takes seconds of CPU next to the JVM's start), and the tests that
 * serve them find them there.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildClientFiles } from '../../local/client-files.js';
import { sharedAcrossProjects } from '../../test/support/shared-across-projects.js';

export default async function setup(): Promise<() => Promise<void>> {
  // Once for the projects that list this setup (test/support/shared-across-projects.ts).
  const build = async () => {
    const clientFiles = buildClientFiles((message) => process.stderr.write(`client files: ${message}\n`));
    execFileSync(process.execPath, [fileURLToPath(new URL('../build.mjs', import.meta.url))], { stdio: 'inherit' });
    await clientFiles.done;
  };
  const { release } = await sharedAcrossProjects('client-build', build, async () => {});
  return release;
}
