/**
 * The console built from the sources under test, for the browser tests (*.browser.test.ts beside this folder):
 * one vite build per run, shared by every file that serves it (test/support/once-per-run.ts), in a directory
 * of its own, since console/dist is read by other test files (the CDK stack's, npm start's) at
 * the same time.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { oncePerRun } from '../../../test/support/once-per-run.js';

const CONSOLE = fileURLToPath(new URL('../../', import.meta.url));

/** The built console's directory; serve it, never write to it. */
export function builtConsole(): Promise<string> {
  return oncePerRun('console-dist', async (dir) => {
    await build({ root: CONSOLE, configLoader: 'runner', logLevel: 'warn', build: { outDir: dir, emptyOutDir: true } });
  });
}
