/**
 * A lock file in the agent directory, so that several hook processes of one agent (parallel
 * tool calls; Codex runs matching hooks concurrently) sign and submit one at a time and each
 * builds on the head the previous one stored.
 *
 * Hand-written rather than a lockfile library: the hook must recover at once from a holder
 * that died (its pid is gone) instead of waiting out an mtime-based staleness period, and
 * must not keep timers alive to refresh an mtime. The service is what keeps the chain from
 * forking (its conditional write accepts one record per head; the loser gets
 * PREV_HASH_MISMATCH and resynchronises), so the lock saves retries, and correctness never
 * rests on it.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { sleep } from '../sdk/retry.js';

/** Older than this, a lock is stale whoever holds it: no hook legitimately runs this long. */
const STALE_AFTER_MS = 120_000;

interface Lock {
  release(): void;
}

interface Holder {
  pid: number;
  host: string;
  at: number;
  token: string;
}

function parse(text: string): Holder | undefined {
  try {
    const holder = JSON.parse(text) as Holder;
    return typeof holder.pid === 'number' && typeof holder.at === 'number' ? holder : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isStale(holder: Holder | undefined, now: number): boolean {
  if (holder === undefined) return true; // unreadable or half-written by a crashed holder
  if (now - holder.at > STALE_AFTER_MS) return true;
  return holder.host === hostname() && !alive(holder.pid);
}

/**
 * Takes the lock at `path`, waiting until `deadline` (Unix ms); throws when it passes.
 *
 * @example
 * const lock = await acquireLock(files.lock, Date.now() + 5000);
 * try { ... } finally { lock.release(); }
 */
export async function acquireLock(path: string, deadline: number): Promise<Lock> {
  const token = randomBytes(8).toString('hex');
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    try {
      const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
      try {
        writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now(), token }));
      } finally {
        closeSync(fd);
      }
      return { release: () => releaseIfOurs(path, token) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let text: string | undefined;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue; // released between our open and read: try again at once
    }
    // A holder that has just created the file may not have written it yet: give it a moment.
    if (isStale(parse(text), Date.now()) && (text !== '' || (await settledEmpty(path)))) breakStale(path, text);
    if (Date.now() >= deadline) throw new Error(`another hook process of this agent holds ${path}`);
    await sleep(wait + Math.random() * wait);
  }
}

async function settledEmpty(path: string): Promise<boolean> {
  await sleep(100);
  try {
    return readFileSync(path, 'utf8') === '';
  } catch {
    return false;
  }
}

/**
 * A breaker that has existed this long was left by a process that died while breaking (it
 * holds the breaker for two file operations): it is removed so that breaking can go on.
 */
const BREAKER_STALE_MS = 5_000;

/**
 * Deletes the stale lock, unless it changed since it was read. Breaking is itself exclusive
 * (`<lock>.break`, created with O_EXCL): two processes that read the same stale holder must
 * not both break, or the second removes the lock the first has just taken, and a third takes
 * it beside the first. The Python implementation (python/src/agent_ledger/state.py) breaks
 * the same way.
 */
function breakStale(path: string, staleText: string): void {
  const breaker = `${path}.break`;
  try {
    closeSync(openSync(breaker, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600));
  } catch {
    // Someone else is breaking (or died doing it): the next attempt sees what they left.
    removeIfOlder(breaker, BREAKER_STALE_MS);
    return;
  }
  try {
    if (readFileSync(path, 'utf8') === staleText) unlinkSync(path);
  } catch {
    // Gone already: the next attempt takes it.
  } finally {
    try {
      unlinkSync(breaker);
    } catch {
      // Removed as stale by another process: nothing left to do.
    }
  }
}

function removeIfOlder(path: string, ageMs: number): void {
  try {
    if (Date.now() - statSync(path).mtimeMs > ageMs) unlinkSync(path);
  } catch {
    // Gone already.
  }
}

function releaseIfOurs(path: string, token: string): void {
  try {
    if (parse(readFileSync(path, 'utf8'))?.token === token) unlinkSync(path);
  } catch {
    // Already gone.
  }
}
