/**
 * `agent-ledger doctor`'s checks of the CLI itself and of the CLI each hook runs, against what the
 * logged-in service hands out (docs/CLI.md "Installing the CLI from the service"):
 *
 * - the running CLI: an installed package carries its file-tree digest from pack time
 *   (package/digest.ts says why a tree digest and not the tarball's hash); doctor hashes the files
 *   it runs from again, and compares both with the digest /client/index.json lists for that
 *   version. A CLI without the digest (a build in a clone, or the copy `agent init` keeps) is
 *   compared by its one program file, dist/cli.cjs;
 * - each hook's CLI (install/hook-cli.ts): it exists and runs (`--version`), it is not a file inside
 *   a source tree, and for the version the service hands out it is that program, byte for byte.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DIGEST_FILE, digestPackage, sha256Hex, type PackageDigest } from '../package/digest.js';
import { CLIENT_INDEX_PATH, type ClientFile, type ClientIndex } from '../package/served-index.js';
import { send } from '../sdk/http.js';
import { hookProgram, isInstalledPackageFile, managedCliPath } from '../install/hook-cli.js';
import type { Check } from '../install/checks.js';
import type { InstallRecord } from '../install/install-record.js';
import { readIfExists } from '../local/files.js';
import { ledgerHome } from '../local/paths.js';
import { CLI_VERSION } from './version.js';

export type DoctorCheck = Check & { warn?: boolean };

/** The CLI's one program file inside the package. */
const PROGRAM = 'dist/cli.cjs';
const TIMEOUT_MS = 10_000;

/** What the service hands out: its npm file, or why there is none to compare with. */
export type Served = { ok: true; url: string; npm: ClientFile } | { ok: false; reason: string };

export async function servedClient(serviceUrl: string | undefined): Promise<Served> {
  if (!serviceUrl) return { ok: false, reason: 'no login for the service, so the CLI is not compared with what it hands out: run `agent-ledger login --url URL`' };
  const url = new URL(CLIENT_INDEX_PATH, serviceUrl);
  try {
    const response = await send({ method: 'GET', url, timeoutMs: TIMEOUT_MS });
    if (response.status !== 200) return { ok: false, reason: `the service at ${serviceUrl} does not hand out its client (GET ${url.pathname}: ${response.status}), so this CLI cannot be compared with it` };
    const npm = (JSON.parse(response.body.toString('utf8')) as ClientIndex).files.find((file) => file.kind === 'npm');
    if (!npm) return { ok: false, reason: `${url} lists no npm package` };
    return { ok: true, url: new URL(`/client/${npm.name}`, serviceUrl).href, npm };
  } catch (error) {
    return { ok: false, reason: `${url} cannot be read: ${(error as Error).message}` };
  }
}

const upgradeAdvice = (served: Extract<Served, { ok: true }>, version: string) =>
  `the service hands out version ${served.npm.version} and this is ${version}: \`npm install -g ${served.url}\` (SHA-256 ${served.npm.sha256})`;

/** Checks of the running CLI (`running`: its file). */
export function selfChecks(running: string, served: Served): DoctorCheck[] {
  const version = CLI_VERSION ?? 'dev';
  const root = dirname(dirname(running));
  const recordedText = readIfExists(join(root, DIGEST_FILE));
  const recorded = recordedText === undefined ? undefined : (JSON.parse(recordedText) as PackageDigest);
  const checks: DoctorCheck[] = [];
  if (recorded) {
    const now = digestPackage(root, recorded.package, recorded.version);
    if (now.tree_sha256 !== recorded.tree_sha256) {
      const changed = [...new Set([...Object.keys(now.contents), ...Object.keys(recorded.contents)])].filter((path) => now.contents[path] !== recorded.contents[path]);
      checks.push({ ok: false, message: `the files in ${root} are not the ones packed (${changed.join(', ')} differ): reinstall the CLI` });
    } else checks.push({ ok: true, message: `${root} holds the files it was packed with (tree digest ${recorded.tree_sha256})` });
  } else {
    checks.push({ ok: true, warn: true, message: `${running} was not installed from a package (no ${DIGEST_FILE}): only its program is compared` });
  }
  if (!served.ok) return [...checks, { ok: true, warn: true, message: served.reason }];
  if (served.npm.version !== version) return [...checks, { ok: true, warn: true, message: upgradeAdvice(served, version) }];
  if (recorded) {
    checks.push(
      recorded.tree_sha256 === served.npm.tree_sha256
        ? { ok: true, message: `the CLI is the package the service hands out, ${served.url} (tree digest matches)` }
        : { ok: false, message: `the CLI's files are not those of ${served.url}, the same version: reinstall it with \`npm install -g ${served.url}\`` },
    );
  } else {
    const same = sha256Hex(readFileSync(running)) === served.npm.contents?.[PROGRAM];
    checks.push(same ? { ok: true, message: `the CLI's program is that of ${served.url}` } : { ok: true, warn: true, message: `the CLI's program differs from that of ${served.url} (a local build?)` });
  }
  return checks;
}

/** Checks of the CLI an agent's hook runs. */
export function hookCliChecks(install: InstallRecord, served: Served, home = ledgerHome()): DoctorCheck[] {
  const program = hookProgram(install);
  if (!program) return [{ ok: true, warn: true, message: `the hook's command (${install.command}) does not say which CLI it runs, so it is not checked` }];
  const [node, cli] = program;
  let version: string;
  try {
    version = execFileSync(node, [cli, '--version'], { encoding: 'utf8', timeout: TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (error) {
    const why = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
    return [{ ok: false, message: `the hook's command does not run (\`${node} ${cli} --version\`: ${why.split('\n')[0]}): run \`agent-ledger agent init\` again` }];
  }
  const checks: DoctorCheck[] = [{ ok: true, message: `the hook runs ${cli} (version ${version}), and it starts` }];
  let real = cli;
  try {
    real = realpathSync(cli);
  } catch {
    // It ran, so it is there; a path that cannot be resolved is checked as written.
  }
  if (!isInstalledPackageFile(real) && cli !== managedCliPath(home)) {
    checks.push({ ok: true, warn: true, message: `${cli} is not an installed CLI (a file in a source tree moves or goes with it): run \`agent-ledger agent init\` again` });
  }
  if (served.ok && served.npm.version === version) {
    const same = sha256Hex(readFileSync(real)) === served.npm.contents?.[PROGRAM];
    checks.push(same ? { ok: true, message: `the hook's CLI is the program of ${served.url}` } : { ok: false, message: `the hook's CLI ${cli} is not the program of ${served.url}, the same version: reinstall it, then run \`agent-ledger agent init\` again` });
  } else if (served.ok) {
    checks.push({ ok: true, warn: true, message: `the hook's CLI: ${upgradeAdvice(served, version)}` });
  }
  return checks;
}
