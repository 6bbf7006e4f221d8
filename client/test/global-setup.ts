/**
 * Builds the published form of @agent-ledger/client (dist/cli.cjs, dist/index.js) once per
 * test run: the client tests run the CLI exactly as a coding tool does, as one bundled file.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL('../build.mjs', import.meta.url))], { stdio: 'inherit' });
}
