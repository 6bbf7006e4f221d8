/**
 * The Python package's wheel as the service hands it out: python/build_wheel.py, standard library
 * only, run by the first Python 3.11+ found ($PYTHON, then every python3 on PATH in PATH order,
 * then Debian's /usr/bin/python3), so building it needs no pip, build or hatchling.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { PROJECT_ROOT } from '../paths.js';

export class NoPythonError extends Error {}

function candidates(env: NodeJS.ProcessEnv): string[] {
  const onPath = (env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, 'python3'));
  return [...new Set([env.PYTHON, ...onPath, '/usr/bin/python3'].filter((path): path is string => !!path))].filter((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return path === env.PYTHON;
    }
  });
}

/** Builds the wheel into `out`; answers its file name. */
export function buildWheel(out: string, env: NodeJS.ProcessEnv = process.env): string {
  const script = join(PROJECT_ROOT, 'python', 'build_wheel.py');
  const tried: string[] = [];
  for (const python of candidates(env)) {
    try {
      execFileSync(python, ['-c', 'import sys; sys.exit(sys.version_info < (3, 11))'], { stdio: 'ignore', timeout: 30_000 });
    } catch {
      tried.push(python);
      continue;
    }
    return execFileSync(python, [script, '--outdir', out], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 }).trim();
  }
  throw new NoPythonError(`no Python 3.11+ to build the wheel with (tried ${tried.length > 0 ? tried.join(', ') : 'python3 on PATH and /usr/bin/python3'}); install python3 or set PYTHON`);
}
