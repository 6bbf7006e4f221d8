/**
 * Which CLI file a hook runs (docs/CLI.md "Which CLI the hook runs"): one that stays
 * where it is when the repository it came from moves or is deleted, and that an upgrade
 * replaces in place. In order:
 *
 * 1. `agent-ledger` on PATH, as `command -v agent-ledger` finds it, when it is an installed
 *    package (`npm install -g <origin>/client/agent-ledger-<version>.tgz`): the bin link stays,
 *    and each upgrade puts the new version behind it. Not an npm project's or npx's own
 *    node_modules/.bin (npm puts those on PATH only while it runs a script), and not a link into a
 *    source tree (`npm link`, a workspace): those move or vanish with the directory they are in.
 * 2. Otherwise a copy of the running CLI, `agent-ledger.cjs` in the `cli` folder of
 *    AGENT_LEDGER_HOME, which `agent init` writes and refreshes. The published CLI is two files
 *    (client/build.mjs): the hook's entry file and, beside it, the module of every other command,
 *    which it imports by a relative name; both are copied, so the copy is the whole program. It
 *    is never written into a source tree, and every agent's hook shares it:
 *    running a newer CLI's `agent init` upgrades them all.
 *
 * The hook command names Node by its absolute path (process.execPath) as before: coding tools
 * start hooks with their own PATH, where `node` may not be.
 */
import { accessSync, constants, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, delimiter, dirname, join, sep } from 'node:path';
import { CliError } from '../cli/errors.js';
import { CLI_VERSION } from '../cli/version.js';
import { readIfExists, writeFileAtomic } from '../local/files.js';

export const CLI_NAME = 'agent-ledger';

export interface HookCli {
  /** The CLI file the hook runs, absolute. */
  path: string;
  /** `path`: agent-ledger on PATH; `copy`: the copy under AGENT_LEDGER_HOME. */
  source: 'path' | 'copy';
}

/** Where the managed copy lives. */
export const managedCliPath = (ledgerHome: string) => join(ledgerHome, 'cli', `${CLI_NAME}.cjs`);
/** The module of every command but the hook, which the CLI's entry file imports from beside it (client/build.mjs). */
const COMMANDS_FILE = 'commands.cjs';

function copyIfChanged(from: string, to: string, mode: number): void {
  const program = readFileSync(from);
  if (readIfExists(to) !== program.toString('utf8')) writeFileAtomic(to, program, mode);
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** A project's (or npx's) own node_modules/.bin, which npm puts on PATH only while it runs something. */
const isProjectBin = (dir: string) => basename(dir) === '.bin' && basename(dirname(dir)) === 'node_modules';

/** True for a file npm installed from a package, not one linked into a source tree. */
export const isInstalledPackageFile = (path: string) => path.split(sep).includes('node_modules');

/** `command -v agent-ledger`, less the entries that would not last (see above); undefined when there is none. */
export function installedOnPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '' || !dir.startsWith('/') || isProjectBin(dir)) continue;
    const candidate = join(dir, CLI_NAME);
    if (!isExecutableFile(candidate)) continue;
    let real: string;
    try {
      real = realpathSync(candidate);
    } catch {
      continue;
    }
    if (isInstalledPackageFile(real)) return candidate;
  }
  return undefined;
}

/**
 * The CLI the hook will run; writes or refreshes the managed copy when that is the one.
 * `running` is the file of the CLI running now.
 */
export function hookCli(running: string, ledgerHome: string, env: NodeJS.ProcessEnv = process.env): HookCli {
  const onPath = installedOnPath(env);
  if (onPath !== undefined) return { path: onPath, source: 'path' };
  if (CLI_VERSION === undefined) {
    throw new CliError(`agent init runs from source (${running}), which a hook must not run: build the CLI (\`npm run build -w client\`) and run client/dist/cli.cjs, or install it from the service (docs/CLI.md)`);
  }
  const copy = managedCliPath(ledgerHome);
  // The commands' module first: a copy whose entry file is new must find its imports there.
  copyIfChanged(join(dirname(running), COMMANDS_FILE), join(dirname(copy), COMMANDS_FILE), 0o644);
  copyIfChanged(running, copy, 0o755);
  return { path: copy, source: 'copy' };
}

/** The words of a POSIX command line as `shellQuote` writes them: plain words, '…' quoting, backslash escapes. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (char === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? '') + line.slice(i + 1, end === -1 ? line.length : end);
      i = end === -1 ? line.length : end;
    } else if (char === '\\') word = (word ?? '') + (line[++i] ?? '');
    else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? '') + char;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/**
 * `[node, cli file]` the installed hook runs: recorded by `agent init` (InstallRecord.cli), or for
 * a record of an earlier version read back from its command line (`<node> <cli> hook …`, or the
 * hook script's `exec` line for the tools that run a script).
 */
export function hookProgram(install: { command: string; cli?: [string, string] }): [string, string] | undefined {
  if (install.cli) return install.cli;
  let line = install.command;
  if (line.startsWith('/') && !line.includes(' ')) {
    const exec = readIfExists(line)?.split('\n').find((text) => text.startsWith('exec '));
    if (exec === undefined) return undefined;
    line = exec.slice('exec '.length);
  }
  const words = shellWords(line);
  return words[2] === 'hook' ? [words[0]!, words[1]!] : undefined;
}
