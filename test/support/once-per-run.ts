/**
 * Work that several test files need alike and that costs seconds of CPU (the console's vite
 * build, the client's packed tarball): done once per vitest run, by the first file that asks,
 * into a directory under the run's scratch directory (test/global-setup.ts `runScratch`, removed
 * when the run ends). Files run in separate processes, so the first claims the work by creating
 * a claim file exclusively, with its process id in it; the others wait for its outcome: the
 * directory, or the builder's error. A builder whose process ended without either (its file
 * timed out, and vitest ended the worker) leaves the work to the next file that asks, which
 * claims it afresh. What is built must not depend on the file that asks; readers must not change it.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inject } from 'vitest';

const POLL_MS = 200;

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Creates `path` only if no one has: true for the one caller that did. */
async function claim(path: string): Promise<boolean> {
  try {
    await writeFile(path, String(process.pid), { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Whether the process that wrote the claim is gone (an empty claim is one being written). */
async function claimantGone(path: string): Promise<boolean> {
  const pid = Number(await readFile(path, 'utf8').catch(() => ''));
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * The directory `make` filled for `name` in this run; `make` runs in the first file that asks.
 * Waiting files give up after `timeoutMs`.
 */
export async function oncePerRun(name: string, make: (dir: string) => Promise<void>, timeoutMs = 300_000): Promise<string> {
  const scratch = inject('runScratch');
  if (!scratch) throw new Error("no run scratch directory: vitest.config.ts must have test.globalSetup: ['./test/global-setup.ts']");
  const deadline = Date.now() + timeoutMs;
  // Attempt n builds into `name.n`; a later attempt only after attempt n's builder died.
  for (let attempt = 0; ; attempt++) {
    const dir = join(scratch, `${name}.${attempt}`);
    const [claimFile, done, failed] = [`${dir}.claim`, `${dir}.done`, `${dir}.failed`];
    if (await claim(claimFile)) {
      try {
        await mkdir(dir);
        await make(dir);
        await writeFile(done, '');
        return dir;
      } catch (error) {
        await writeFile(failed, error instanceof Error ? (error.stack ?? error.message) : String(error));
        throw error;
      }
    }
    for (;;) {
      if (await exists(done)) return dir;
      if (await exists(failed)) throw new Error(`${name}, built by another test file, failed:\n${await readFile(failed, 'utf8')}`);
      if ((await claimantGone(claimFile)) && !(await exists(done))) break;
      if (Date.now() > deadline) throw new Error(`${name}: another test file is building it and did not finish within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
