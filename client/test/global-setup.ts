/**
 * Builds the published form of @agent-ledger/client (dist/cli.cjs, dist/index.js) once per
 * test run: the client tests run the CLI exactly as a coding tool does, as one bundled file.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sharedAcrossProjects } from '../../test/support/shared-across-projects.js';

export default async function setup(): Promise<() => Promise<void>> {
  // Once for the projects that list this setup (test/support/shared-across-projects.ts).
  const build = async () => execFileSync(process.execPath, [fileURLToPath(new URL('../build.mjs', import.meta.url))], { stdio: 'inherit' });
  const { release } = await sharedAcrossProjects('client-build', build, async () => {});
  return release;
}
