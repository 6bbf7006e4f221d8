/**
 * Where the code the stack deploys lives. `lib/` reads `lambdas/routes/routes.ts` as data
 * (docs/ARCHITECTURE.md, Layout) and bundles the handler modules next to it, so every path is
 * anchored at the repository root rather than at the process's working directory.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (the directory holding package.json and package-lock.json). */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The default `lambdas/` directory: `http/<handler>.ts` and `workers/<handler>.ts` live below it. */
export const LAMBDAS_DIR = join(PROJECT_ROOT, 'lambdas');

/** The built web console (`npm ci` builds it: the console workspace's prepare). */
export const CONSOLE_DIST = join(PROJECT_ROOT, 'console', 'dist');
