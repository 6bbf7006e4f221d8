/**
 * The files the service hands out under /client/ (docs/CLI.md "Installing the CLI from the
 * service"), built from this repository's packages: the CLI's npm tarball (npm-package.ts), the
 * Python package's wheel (wheel.ts) and index.json, which lists each with its version and SHA-256.
 * `npm start` serves the directory (local/client-files.ts); `cdk synth` puts it in the console's
 * bucket under client/ (lib/console.ts).
 *
 * The build takes seconds (two esbuild runs and a type bundle), so its output is kept under
 * node_modules/.cache, keyed by a SHA-256 of every file it is built from: a second start with
 * the same sources finds it there. A build goes to a temporary directory renamed into place, so
 * two processes building at once (npm start beside a test) never see half a directory.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../../client/src/package/digest.js';
import type { ClientFile, ClientIndex } from '../../client/src/package/served-index.js';
import { PROJECT_ROOT } from '../paths.js';
import { packClient } from './npm-package.js';
import { buildWheel, NoPythonError } from './wheel.js';

export type { ClientFile, ClientIndex };

export const INDEX_FILE = 'index.json';

/** Everything the files are built from, relative to the repository root; directories are walked. */
const SOURCES = [
  'package-lock.json',
  'client/package.json',
  'client/build.mjs',
  'client/LICENSE',
  'client/tsconfig.json',
  'client/tsconfig.types.json',
  'client/src',
  'protocol/package.json',
  'protocol/src',
  'python/pyproject.toml',
  'python/README.md',
  'python/LICENSE',
  'python/build_wheel.py',
  'python/src',
  'lib/client-files',
];

function sourceFiles(path: string): string[] {
  const full = join(PROJECT_ROOT, path);
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full)
    .filter((name) => name !== '__pycache__')
    .sort()
    .flatMap((name) => sourceFiles(`${path}/${name}`));
}

/** SHA-256 over every source file's path and bytes. */
export function sourceHash(): string {
  const hash = createHash('sha256');
  for (const path of SOURCES.flatMap(sourceFiles)) hash.update(`${path}\0${sha256Hex(readFileSync(join(PROJECT_ROOT, path)))}\n`);
  return hash.digest('hex');
}

export const CACHE_DIR = join(PROJECT_ROOT, 'node_modules', '.cache', 'agent-ledger', 'client-files');

export interface ClientFilesOptions {
  /** Without a Python 3.11+ the wheel is left out (with `warn` told why) rather than failing; a deploy requires it. */
  wheel: 'required' | 'optional';
  warn?: (message: string) => void;
  cacheDir?: string;
}

function fileEntry(dir: string, name: string, kind: ClientFile['kind'], pkg: string, version: string): ClientFile {
  const bytes = readFileSync(join(dir, name));
  return { name, kind, package: pkg, version, sha256: sha256Hex(bytes), bytes: bytes.length };
}

function build(dir: string, source: string, options: ClientFilesOptions): void {
  const npm = packClient(dir);
  const files: ClientFile[] = [
    { ...fileEntry(dir, npm.filename, 'npm', npm.digest.package, npm.digest.version), tree_sha256: npm.digest.tree_sha256, contents: npm.digest.contents },
  ];
  try {
    const wheel = buildWheel(dir);
    const version = /^[^-]+-([^-]+)-/.exec(wheel)![1]!;
    files.push(fileEntry(dir, wheel, 'wheel', 'agent-ledger', version));
  } catch (error) {
    if (!(error instanceof NoPythonError) || options.wheel === 'required') throw error;
    options.warn?.(`the Python wheel is not served: ${error.message}`);
  }
  const index: ClientIndex = { format: 'agent-ledger-client-files/1', source_sha256: source, files };
  writeFileSync(join(dir, INDEX_FILE), `${JSON.stringify(index, null, 2)}\n`);
}

/** The directory holding the files for the current sources: from the cache, or built now. */
export function clientFiles(options: ClientFilesOptions): string {
  const cache = options.cacheDir ?? CACHE_DIR;
  const source = sourceHash();
  const dir = join(cache, source);
  const complete = (path: string) => existsSync(join(path, INDEX_FILE));
  // A cached build without the wheel (built where no Python was) does not do for a deploy.
  const hasWheel = (path: string) => (JSON.parse(readFileSync(join(path, INDEX_FILE), 'utf8')) as ClientIndex).files.some((file) => file.kind === 'wheel');
  if (complete(dir) && (options.wheel === 'optional' || hasWheel(dir))) return dir;
  mkdirSync(cache, { recursive: true });
  const temp = join(cache, `.${source}.${process.pid}.${Date.now()}`);
  try {
    build(temp, source, options);
    rmSync(dir, { recursive: true, force: true });
    try {
      renameSync(temp, dir);
    } catch (error) {
      // Another process put the same build in place first: theirs is as good.
      if (!complete(dir)) throw error;
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  // Builds of earlier sources are not needed again, nor what a killed build left.
  for (const name of readdirSync(cache)) if (name !== source && (!name.startsWith('.') || !builderAlive(name))) rmSync(join(cache, name), { recursive: true, force: true });
  return dir;
}

/** Whether the process that names a temporary build directory (`.<source>.<pid>.<time>`) still runs. */
function builderAlive(name: string): boolean {
  const pid = Number(name.split('.')[2]);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
