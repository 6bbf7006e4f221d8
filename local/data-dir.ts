/**
 * The local data directory holds DynamoDB Local's database, s3rver's objects (payloads,
 * receipts, exports) and the key files: everything the service stores. Files are created
 * owner-only: the process umask gains 077 before anything is written (DynamoDB Local, a
 * child process, inherits it), where the default 022 left the database and objects 0644,
 * readable by every user under a 0755 LEDGER_DATA_DIR. A directory that other users can
 * enter or list (a copied, restored or hand-made one) gets a warning on stderr.
 */
import { mkdir, stat } from 'node:fs/promises';

/** Makes every file and directory this process (and its children) creates from now on owner-only. */
export function createOwnerOnly(): void {
  const previous = process.umask(0o077);
  process.umask(previous | 0o077);
}

/** A warning when `dir` is accessible to its group or to everyone, else undefined. */
async function exposureWarning(dir: string): Promise<string | undefined> {
  const mode = (await stat(dir)).mode & 0o777;
  if ((mode & 0o077) === 0) return undefined;
  return `ledger: warning: data directory ${dir} is accessible to other users (mode ${mode.toString(8)}); it holds every record, payload and key: chmod 700 it\n`;
}

/** Creates the data directory owner-only (or keeps the existing one) and warns when others can reach it. */
export async function prepareDataDir(dir: string): Promise<void> {
  createOwnerOnly();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const warning = await exposureWarning(dir);
  if (warning) process.stderr.write(warning);
}
