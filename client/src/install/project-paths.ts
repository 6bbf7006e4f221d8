/**
 * `agent init --scope project` writes into a repository, which may be hostile: a
 * `.claude/settings.json` that is a symbolic link to `~/.aws/credentials` would have its
 * target's content read, merged with the hook and written back into the repository as a
 * regular file, ready to be committed. So every path the installer writes must lie inside
 * the project directory, and neither it nor any folder between it and the project may be a
 * symbolic link (checked with lstat, which does not follow links).
 */
import { lstatSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';

/**
 * Why the installer may not write `path` for the project at `projectDir`, or null when it may.
 *
 * @example
 * projectPathProblem('/repo', '/repo/.claude/settings.json'); // null for plain folders and files
 */
export function projectPathProblem(projectDir: string, path: string): string | null {
  const inside = relative(projectDir, path);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) return `${path} is outside the project directory ${projectDir}`;
  let at = projectDir;
  for (const part of inside.split(sep)) {
    at = join(at, part);
    let stats;
    try {
      stats = lstatSync(at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null; // created by the installer from here down
      return `cannot inspect ${at}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
    }
    if (stats.isSymbolicLink()) return `${at} is a symbolic link; the installer writes only regular files and folders inside the project (remove the link, or use --scope user)`;
  }
  return null;
}
