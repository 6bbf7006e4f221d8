/**
 * The service's own client on the local stack (docs/CLI.md "Installing the CLI from the service"):
 * `npm start` builds the files (or finds them cached, lib/client-files/build.ts) in a child
 * process, without holding up its start (the first build of a checkout takes seconds), and GET
 * and HEAD of /client/<name> serve them, as CloudFront serves them from the console's bucket in
 * AWS (lib/console.ts). Until the build is done they answer 503 with Retry-After.
 */
import { execFile } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, extname, join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { CLIENT_FILES_PREFIX, cacheControl, SECURITY_HEADERS } from '../console/serving.js';
import { PROJECT_ROOT } from '../lib/paths.js';
import { fileIn, send, TYPES } from './console-assets.js';

/** Where the files are now: their directory, `building`, or undefined (none: the build failed, or none was asked for). */
export type ClientFilesSource = () => string | 'building' | undefined;

export interface ClientFilesBuild {
  source: ClientFilesSource;
  /** Resolves with the directory, or undefined when the build failed (its reason went to `warn`). */
  done: Promise<string | undefined>;
  /** Ends a build still running. */
  stop(): void;
}

/** Starts building the client files in a child process. */
export function buildClientFiles(warn: (message: string) => void): ClientFilesBuild {
  let state: string | 'building' | undefined = 'building';
  let settle: (dir: string | undefined) => void = () => {};
  const done = new Promise<string | undefined>((resolve) => (settle = resolve));
  const child = execFile(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'lib', 'client-files', 'main.ts'), '--wheel', 'optional'], { cwd: PROJECT_ROOT, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
    if (stderr.trim() !== '' && !error) process.stderr.write(stderr);
    state = error ? undefined : stdout.trim();
    if (error) warn(`the client is not served under ${CLIENT_FILES_PREFIX}: ${stderr.trim() || error.message}`);
    settle(state);
  });
  child.stdin?.end();
  return { source: () => state, done, stop: () => child.exitCode === null && child.kill() };
}

/** Answers GET and HEAD under /client/ (true), or leaves the request alone (false). */
export async function serveClientFiles(req: IncomingMessage, res: ServerResponse, source: ClientFilesSource): Promise<boolean> {
  const method = req.method ?? 'GET';
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if ((method !== 'GET' && method !== 'HEAD') || !path.startsWith(CLIENT_FILES_PREFIX)) return false;
  const dir = source();
  if (dir === 'building') {
    res.writeHead(503, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'retry-after': '5' });
    res.end(method === 'HEAD' ? undefined : 'the client files are being built; try again in a few seconds\n');
    return true;
  }
  const name = path.slice(CLIENT_FILES_PREFIX.length);
  // Names only: the directory is flat, and nothing else of the machine is reachable through it.
  const file = dir !== undefined && name !== '' && basename(name) === name ? await fileIn(dir, name) : null;
  if (!file) {
    send(res, method, 404, 'text/plain; charset=utf-8', 'not found\n', 'no-store');
    return true;
  }
  send(res, method, 200, TYPES[extname(file)] ?? 'application/octet-stream', await readFile(file), cacheControl(path));
  return true;
}
