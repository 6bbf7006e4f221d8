/**
 * One part of a test run (`npm test`, scripts/test.ts; `npm run test:quick`, scripts/test-quick.ts):
 * a child process run from the repository's root with its node_modules/.bin on PATH, its wall
 * time, and the CPU its process tree spent (scripts/cpu-time.ts).
 */
import { spawn } from 'node:child_process';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { endedChildrenCpuSeconds } from './cpu-time.js';

export const root = fileURLToPath(new URL('..', import.meta.url));
export const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

export interface Result {
  name: string;
  code: number;
  ms: number;
  /** Held output of a part that did not stream. */
  output: string;
  /** CPU seconds the part's processes spent, all of them (undefined without /proc). */
  cpuSeconds: number | undefined;
}

/**
 * The ended children's CPU when last read. Parts run at once; each reads the counter as it ends
 * and takes the difference since the last reading, which is its own process tree's CPU (two
 * parts ending within the same instant would share one reading; the total stays right).
 */
let childrenCpuRead = endedChildrenCpuSeconds();

function cpuOfEndedChild(): number | undefined {
  const now = endedChildrenCpuSeconds();
  const spent = now === undefined || childrenCpuRead === undefined ? undefined : now - childrenCpuRead;
  childrenCpuRead = now;
  return spent;
}

/** Runs one part; `stream` passes its output through as it comes, otherwise it is held for later. */
export function run(name: string, command: string, args: string[], options: { stream: boolean; env?: NodeJS.ProcessEnv }): Promise<Result> {
  const start = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: root,
      env: { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`, ...options.env },
      stdio: options.stream ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk));
    let cpuSeconds: number | undefined;
    const done = (code: number) => resolve({ name, code, ms: performance.now() - start, output: Buffer.concat(chunks).toString(), cpuSeconds });
    child.on('error', (error) => {
      chunks.push(Buffer.from(`${error.message}\n`));
      done(1);
    });
    // Read at 'exit', right after the child was waited for, before another part may end.
    child.on('exit', () => (cpuSeconds = cpuOfEndedChild()));
    child.on('close', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

