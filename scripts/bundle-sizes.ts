/**
 * Every function's bundle as `cdk synth` builds it (lib/bundling.ts, one esbuild run), with
 * its minified size: each function, then the median, the largest, Health and SubmitOperation.
 * test/infra/bundle-size.test.ts holds the budgets these sizes must stay under.
 *
 *   npm run bundle-sizes [-- --keep <dir>] [-- --sdk-tracing]
 *
 * `--keep` leaves the bundles in <dir> (for scripts/cold-start.ts); `--sdk-tracing` bundles
 * as with the `sdkTracing` CDK context (the X-Ray SDK included).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bundleFunctions, functionEntries, type BundledFunction } from '../lib/bundling.js';
import { PROJECT_ROOT } from '../lib/paths.js';
import { notFoundHandler, routeList } from '../lambdas/routes/routes.js';
import { workerList } from '../lambdas/workers/worker-table.js';

const args = process.argv.slice(2);
const keepAt = args.indexOf('--keep');
const keep = keepAt >= 0 ? resolve(args[keepAt + 1] ?? '') : undefined;
const sdkTracing = args.includes('--sdk-tracing');

mkdirSync(join(PROJECT_ROOT, '.tmp'), { recursive: true });
const outdir = keep ?? mkdtempSync(join(PROJECT_ROOT, '.tmp', 'bundle-sizes-'));
try {
  const started = performance.now();
  const bundles = await bundleFunctions(functionEntries(routeList, notFoundHandler, workerList), outdir, { sdkTracing });
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
  for (const bundle of [...bundles].sort((a, b) => a.bytes - b.bytes)) console.log(`${bundle.name.padEnd(28)} ${kb(bundle.bytes).padStart(8)}`);
  const named = (name: string) => bundles.find((bundle) => bundle.name === name) as BundledFunction;
  const sizes = bundles.map((bundle) => bundle.bytes).sort((a, b) => a - b);
  console.log(
    `\n${bundles.length} functions in ${((performance.now() - started) / 1000).toFixed(1)} s${sdkTracing ? ' (sdkTracing)' : ''}: ` +
      `median ${kb(sizes[Math.floor(sizes.length / 2)]!)}, largest ${kb(sizes.at(-1)!)}, ` +
      `Health ${kb(named('Health').bytes)}, SubmitOperation ${kb(named('SubmitOperation').bytes)}`,
  );
  if (keep) console.log(`bundles kept in ${outdir}`);
} finally {
  if (!keep) rmSync(outdir, { recursive: true, force: true });
}
