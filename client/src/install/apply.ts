/**
 * Writes an install plan and undoes it. Uninstall restores each file byte for byte when it
 * is as install left it; when the person has edited it since, only the agent-ledger entry
 * is taken out and their edits stay.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { readIfExists, writeFileAtomic } from '../local/files.js';
import type { InstalledFile, InstallRecord } from './install-record.js';
import { parseJsonFile, removeFromArray } from './json-config.js';
import { runsCommand, type InstallPlan } from './targets.js';
import { removeTomlHook } from './toml-config.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The permission bits of an existing file, so that rewriting it keeps them. */
const modeOf = (path: string) => statSync(path).mode & 0o777;

/** Writes the files that change; returns what was written (unchanged files are not recorded). */
export function applyPlan(plan: InstallPlan): InstalledFile[] {
  const written: InstalledFile[] = [];
  for (const file of plan.files) {
    if (file.before === file.after) continue;
    // mkdirSync answers the outermost folder it had to create (undefined when all existed).
    const createdDir = file.before === undefined ? mkdirSync(dirname(file.path), { recursive: true, mode: 0o700 }) : undefined;
    writeFileAtomic(file.path, file.after, file.before === undefined ? (file.mode ?? 0o644) : modeOf(file.path));
    if (file.before === undefined && file.mode !== undefined) chmodSync(file.path, file.mode); // umask-proof
    written.push({
      path: file.path,
      kind: file.kind,
      original: file.before ?? null,
      installed_sha256: sha256(file.after),
      ...(createdDir === undefined ? {} : { created_dir: createdDir }),
      ...(file.role === undefined ? {} : { role: file.role }),
    });
  }
  return written;
}

interface UndoResult {
  path: string;
  outcome: 'restored' | 'removed' | 'entry removed' | 'already gone' | 'left alone';
  detail?: string;
}

/** Undoes the files in the reverse order of install, so a folder install created is empty once its last file goes. */
export function undoInstall(record: InstallRecord, agentId: string): UndoResult[] {
  const results = [...record.files].reverse().map((file) => {
    const result = undoFile(file, record.command, agentId);
    if (result.outcome === 'removed' && file.created_dir !== undefined) removeEmptyFolders(dirname(file.path), file.created_dir);
    return result;
  });
  return results.reverse();
}

/** Removes `from` and its parents up to `upTo` while they are empty (a folder with anything in it stays, and so do its parents). */
function removeEmptyFolders(from: string, upTo: string): void {
  for (let dir = from; !relative(upTo, dir).startsWith('..'); dir = dirname(dir)) {
    try {
      rmdirSync(dir);
    } catch {
      return;
    }
    if (dir === upTo) return;
  }
}

function undoFile(file: InstalledFile, command: string, agentId: string): UndoResult {
  const current = readIfExists(file.path);
  if (current === undefined) return { path: file.path, outcome: 'already gone' };
  if (sha256(current) === file.installed_sha256) {
    if (file.original === null) {
      unlinkSync(file.path);
      return { path: file.path, outcome: 'removed' };
    }
    writeFileAtomic(file.path, file.original, modeOf(file.path));
    return { path: file.path, outcome: 'restored' };
  }
  // Changed since install: take out only our entry.
  try {
    if (file.kind === 'owned') {
      if (!current.includes(agentId)) return { path: file.path, outcome: 'left alone', detail: 'it no longer mentions this agent' };
      unlinkSync(file.path);
      return { path: file.path, outcome: 'removed' };
    }
    const after = file.kind === 'toml' ? removeTomlHook(current, agentId) : removeJsonHook(file.path, current, command);
    if (after === undefined || after === current) return { path: file.path, outcome: 'left alone', detail: 'the agent-ledger entry is no longer in it' };
    writeFileAtomic(file.path, after, modeOf(file.path));
    return { path: file.path, outcome: 'entry removed', detail: 'the file changed since install: only the agent-ledger entry was taken out' };
  } catch (error) {
    return { path: file.path, outcome: 'left alone', detail: (error as Error).message };
  }
}

/** Removes every hook entry running `command` from the known hook arrays of a JSON file. */
function removeJsonHook(path: string, text: string, command: string): string {
  const tree = parseJsonFile(path, text);
  const hooks = tree?.children?.find((pair) => pair.children?.[0]?.value === 'hooks')?.children?.[1];
  let result = text;
  for (const pair of hooks?.children ?? []) {
    const event = pair.children?.[0]?.value;
    if (typeof event === 'string') result = removeFromArray(path, result, ['hooks', event], (item) => runsCommand(item, command));
  }
  return result;
}
