/**
 * Work that several test files need alike and that costs seconds of CPU (the console's vite
 * build, the client's packed tarball): done once per vitest run, by the first file that asks,
 * into a directory under the run's scratch directory (test/global-setup.ts `runScratch`, removed
 * when the run ends). Files run in separate processes, so the first claims the work with an
 * atomic mkdir; the others wait for its outcome: the directory, or the builder's error.
 * What is built must not depend on the file that asks, and readers must not change it.
 */
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inject } from 'vitest';

const POLL_MS = 200;

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * The directory `make` filled for `name` in this run; `make` runs in the first file that asks.
 * Waiting files give up after `timeoutMs` (a builder that died without a word).
 */
export async function oncePerRun(name: string, make: (dir: string) => Promise<void>, timeoutMs = 300_000): Promise<string> {
  const scratch = inject('runScratch');
  if (!scratch) throw new Error("no run scratch directory: vitest.config.ts must have test.globalSetup: ['./test/global-setup.ts']");
  const dir = join(scratch, name);
  const done = `${dir}.done`;
  const failed = `${dir}.failed`;
  let claimed = true;
  await mkdir(`${dir}.claim`).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
    claimed = false;
  });
  if (claimed) {
    try {
      await mkdir(dir, { recursive: true });
      await make(dir);
      await writeFile(done, '');
      return dir;
    } catch (error) {
      await writeFile(failed, error instanceof Error ? (error.stack ?? error.message) : String(error));
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, POLL_MS))) {
    if (await exists(done)) return dir;
    if (await exists(failed)) throw new Error(`${name}, built by another test file, failed:\n${await readFile(failed, 'utf8')}`);
  }
  throw new Error(`${name}: another test file claimed it and did not finish within ${timeoutMs} ms`);
}
