/**
 * The service's own client on the local stack (docs/CLI.md "Installing the CLI from the service"):
 * `npm start` builds the files (or finds them cached, lib/client-files/build.ts) in a child
 * process while the storage engines start, and GET and HEAD of /client/<name> serve them, as
 * CloudFront serves them from the console's bucket in AWS (lib/console.ts).
 */
import { execFile } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, extname, join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { CLIENT_FILES_PREFIX, cacheControl } from '../console/serving.js';
import { PROJECT_ROOT } from '../lib/paths.js';
import { fileIn, send, TYPES } from './console-assets.js';

/** Builds the client files in a child process; resolves with their directory. Its warnings go to stderr. */
export function buildClientFiles(): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'lib', 'client-files', 'main.ts'), '--wheel', 'optional'], { cwd: PROJECT_ROOT, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`could not build the client files: ${stderr.trim() || error.message}`));
      else {
        if (stderr.trim() !== '') process.stderr.write(stderr);
        resolve(stdout.trim());
      }
    });
    child.stdin?.end();
  });
}

/** Answers GET and HEAD under /client/ from `dir` (true), or leaves the request alone (false). */
export async function serveClientFiles(req: IncomingMessage, res: ServerResponse, dir: string): Promise<boolean> {
  const method = req.method ?? 'GET';
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if ((method !== 'GET' && method !== 'HEAD') || !path.startsWith(CLIENT_FILES_PREFIX)) return false;
  const name = path.slice(CLIENT_FILES_PREFIX.length);
  // Names only: the directory is flat, and nothing else of the machine is reachable through it.
  const file = name !== '' && basename(name) === name ? await fileIn(dir, name) : null;
  if (!file) {
    send(res, method, 404, 'text/plain; charset=utf-8', 'not found\n', 'no-store');
    return true;
  }
  send(res, method, 200, TYPES[extname(file)] ?? 'application/octet-stream', await readFile(file), cacheControl(path));
  return true;
}
