/**
 * File primitives for the client's state: atomic replacement (a crash or a concurrent reader
 * never sees half a file) and owner-only secrets (a key or token that others can read is
 * refused, with the command that fixes it).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CliError } from '../cli/errors.js';

/**
 * Writes `data` to `path` atomically: a temp file in the same directory, fsync, rename over
 * the target, fsync of the directory (POSIX rename is atomic within one file system).
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    let offset = 0;
    while (offset < bytes.byteLength) offset += writeSync(fd, bytes, offset, bytes.byteLength - offset);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temp);
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    unlinkSync(temp);
    throw error;
  }
  try {
    const dirFd = openSync(dir, constants.O_RDONLY);
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  } catch {
    // Some file systems refuse fsync on a directory; the rename itself is still atomic.
  }
}

/**
 * Reads a secret file (a key, the credentials) only when no one but its owner can read or
 * write it and the owner is the current user; otherwise throws a CliError that says how to
 * fix it.
 */
export function readOwnerOnly(path: string, what: string): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CliError(`${what} not found at ${path}`);
    if (code === 'ELOOP') throw new CliError(`${what} at ${path} is a symbolic link; refusing to follow it`);
    throw new CliError(`cannot read ${what} at ${path}: ${(error as Error).message}`);
  }
  try {
    const stat = fstatSync(fd);
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid) {
      throw new CliError(`${what} at ${path} belongs to another user (uid ${stat.uid}); it must be yours: chown $(id -u) ${shellQuote(path)}`);
    }
    if ((stat.mode & 0o077) !== 0) {
      throw new CliError(`${what} at ${path} can be read or changed by others (mode ${(stat.mode & 0o777).toString(8)}); fix it with: chmod 600 ${shellQuote(path)}`);
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/** Reads a file, or returns undefined when it does not exist. */
export function readIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Quotes a string for a POSIX shell command line. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}
