/**
 * How every Lambda function is bundled, in one place: `cdk synth` (function.ts, through
 * NodejsFunction) and the bundle-size check (test/infra/bundle-size.test.ts) use these same
 * esbuild options, so what the check measures is what AWS runs. `bundleFunctions` builds many
 * entries in ONE esbuild run (shared parse and resolve work), which is what makes checking
 * every route's bundle take seconds rather than a minute.
 */
import { join, relative } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { isDeployed, type RouteSpec } from '../lambdas/routes/route-spec.js';
import type { WorkerSpec } from '../lambdas/workers/worker-spec.js';
import { LAMBDAS_DIR, PROJECT_ROOT } from './paths.js';

/**
 * esbuild emits ESM (the project is `"type": "module"`); some dependencies are CommonJS and
 * call `require` for Node built-ins, which does not exist in an ES module. Defining it from
 * `createRequire` at the top of the bundle makes those calls work. The alias avoids clashing
 * with any bundled `createRequire` import.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __ledgerCreateRequire } from 'node:module'; const require = __ledgerCreateRequire(import.meta.url);";

/**
 * Package substitutions inside the bundles: the SDK's credential chain becomes its first link,
 * the environment, which is where Lambda puts the execution role's credentials (the file says
 * why; it saves about 90 KB of every function that talks to AWS).
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': join(LAMBDAS_DIR, 'shims', 'aws-credentials-from-env.ts'),
};

/**
 * Build-time constants. `sdkTracing` (CDK context, README) decides whether the X-Ray SDK is
 * bundled so that every SDK call becomes a subsegment (lambdas/tracer.ts); off, the tracer's
 * code is dropped from the bundles (about 115 KB and 35 ms of cold start per function) and
 * X-Ray still records each invocation through the functions' active tracing.
 */
export function bundleDefines(options: { sdkTracing: boolean }): Record<string, string> {
  return { 'process.env.LEDGER_SDK_TRACING': JSON.stringify(options.sdkTracing ? 'true' : 'false') };
}

/** The esbuild settings of every function (NodejsFunction's `bundling` maps onto these one to one). */
export const BUNDLE_SETTINGS = {
  target: 'node22',
  format: 'esm',
  minify: true,
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  // Bundle the AWS SDK instead of using the runtime's copy: the functions then run the exact
  // SDK versions package-lock.json pins and the tests exercised.
  external: [] as string[],
} as const;

/** One function to bundle: its name (the CDK construct id) and its handler module. */
export interface FunctionEntry {
  readonly name: string;
  readonly entry: string;
}

/** The handler module of a route (`lambdas/http/<handler>.ts`). */
export function routeEntry(handler: string, lambdasDir = LAMBDAS_DIR): string {
  return join(lambdasDir, 'http', `${handler}.ts`);
}

/** The handler module of a worker (`lambdas/workers/<handler>.ts`). */
export function workerEntry(handler: string, lambdasDir = LAMBDAS_DIR): string {
  return join(lambdasDir, 'workers', `${handler}.ts`);
}

/** Every function the stack deploys: one per deployed route, the `$default` route's, one per worker. */
export function functionEntries(routes: readonly RouteSpec[], notFoundHandler: string, workers: readonly WorkerSpec[]): FunctionEntry[] {
  return [
    ...routes.filter(isDeployed).map((route) => ({ name: route.id, entry: routeEntry(route.handler) })),
    { name: 'NotFound', entry: routeEntry(notFoundHandler) },
    ...workers.map((worker) => ({ name: worker.id, entry: workerEntry(worker.handler) })),
  ];
}

export interface BundledFunction {
  readonly name: string;
  /** Path of the bundle (`<outdir>/<name>/index.mjs`). */
  readonly file: string;
  /** Minified size in bytes. */
  readonly bytes: number;
  /** Repository-relative paths of the input modules the bundle holds. */
  readonly inputs: readonly string[];
}

/**
 * Bundles `functions` as `cdk synth` does, in one esbuild run, into `<outdir>/<name>/index.mjs`.
 * No source maps: sizes are compared without them, as Lambda loads the code, not the map.
 */
export async function bundleFunctions(
  functions: readonly FunctionEntry[],
  outdir: string,
  options: { sdkTracing: boolean } = { sdkTracing: false },
): Promise<BundledFunction[]> {
  const result = await build({
    ...BUNDLE_SETTINGS,
    external: [...BUNDLE_SETTINGS.external],
    mainFields: [...BUNDLE_SETTINGS.mainFields],
    banner: { js: BUNDLE_SETTINGS.banner },
    alias: { ...BUNDLE_ALIASES },
    define: bundleDefines(options),
    entryPoints: functions.map(({ name, entry }) => ({ in: entry, out: join(name, 'index') })),
    outExtension: { '.js': '.mjs' },
    outdir,
    bundle: true,
    platform: 'node',
    metafile: true,
    logLevel: 'error',
    absWorkingDir: PROJECT_ROOT,
  });
  return functions.map(({ name }) => {
    const file = join(outdir, name, 'index.mjs');
    const output = outputOf(result.metafile, file);
    return { name, file, bytes: output.bytes, inputs: Object.keys(output.inputs) };
  });
}

function outputOf(metafile: Metafile, file: string): Metafile['outputs'][string] {
  const key = relative(PROJECT_ROOT, file).split('\\').join('/');
  const output = metafile.outputs[key];
  if (!output) throw new Error(`esbuild produced no ${key}`);
  return output;
}
