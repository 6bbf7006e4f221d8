/**
 * How every Lambda function is bundled, in one place: `cdk synth` (function-code.ts), the
 * bundle-size check (test/infra/bundle-size.test.ts) and `npm run bundle-sizes` all run
 * `bundleFunctions`, so what the check measures is what AWS runs. It builds every entry in
 * ONE esbuild run (multiple entry points share the parse and resolve work), which is what
 * makes bundling 50-odd functions take seconds rather than a minute and a half.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, relative } from 'node:path';
import { build, buildSync, type BuildOptions, type BuildResult, type Metafile } from 'esbuild';
import { isDeployed, type RouteSpec } from '../lambdas/routes/route-spec.js';
import type { BundleAssets, WorkerSpec } from '../lambdas/workers/worker-spec.js';
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
 * Build-time constants. `sdkTracing` (CDK context, docs/CONFIGURATION.md) decides whether the X-Ray SDK is
 * bundled so that every SDK call becomes a subsegment (lambdas/tracer.ts); off, the tracer's
 * code is dropped from the bundles (about 115 KB and 35 ms of cold start per function) and
 * X-Ray still records each invocation through the functions' active tracing.
 */
export function bundleDefines(options: { sdkTracing: boolean }): Record<string, string> {
  return { 'process.env.LEDGER_SDK_TRACING': JSON.stringify(options.sdkTracing ? 'true' : 'false') };
}

/** One function to bundle: its name (the CDK construct id), its handler module and the package files it reads at run time. */
export interface FunctionEntry {
  readonly name: string;
  readonly entry: string;
  readonly assets?: BundleAssets;
}

/** The handler module of a route (`lambdas/http/<handler>.ts`). */
export function routeEntry(handler: string, lambdasDir = LAMBDAS_DIR): string {
  return join(lambdasDir, 'http', `${handler}.ts`);
}

/** The handler module of a worker (`lambdas/workers/<handler>.ts`). */
export function workerEntry(handler: string, lambdasDir = LAMBDAS_DIR): string {
  return join(lambdasDir, 'workers', `${handler}.ts`);
}

/** The construct id (and bundle name) of the `$default` route's function. */
export const NOT_FOUND_FUNCTION = 'NotFound';

/** Every function the stack deploys: one per deployed route, the `$default` route's, one per worker. */
export function functionEntries(
  routes: readonly RouteSpec[],
  notFoundHandler: string,
  workers: readonly WorkerSpec[],
  lambdasDir = LAMBDAS_DIR,
): FunctionEntry[] {
  return [
    ...routes.filter(isDeployed).map((route) => ({ name: route.id, entry: routeEntry(route.handler, lambdasDir) })),
    { name: NOT_FOUND_FUNCTION, entry: routeEntry(notFoundHandler, lambdasDir) },
    ...workers.map((worker) => ({
      name: worker.id,
      entry: workerEntry(worker.handler, lambdasDir),
      ...(worker.bundleAssets ? { assets: worker.bundleAssets } : {}),
    })),
  ];
}

export interface BundleOptions {
  readonly sdkTracing: boolean;
  /** Prefix of each function's directory under the output directory (`<outdir>/<prefix><name>/`). */
  readonly dirPrefix?: string;
}

export interface BundledFunction {
  readonly name: string;
  /** The function's own directory: `index.mjs`, its source map and its assets' directory, nothing else. */
  readonly dir: string;
  /** Path of the bundle (`<dir>/index.mjs`). */
  readonly file: string;
  /** Minified size of `index.mjs` in bytes (the source map is not loaded by Lambda, so not counted). */
  readonly bytes: number;
  /** Repository-relative paths of the input modules the bundle holds. */
  readonly inputs: readonly string[];
  /** The package files copied next to `index.mjs` (FunctionEntry `assets`), as paths inside `dir`. */
  readonly assets: readonly string[];
}

/**
 * The esbuild options of the one build. These are the settings `cdk synth` used when each
 * function was a NodejsFunction, so the code is byte for byte what it was: ESM for Node 22,
 * minified, a source map without the sources (stack traces map back to file and line through
 * NODE_OPTIONS=--enable-source-maps without shipping the sources in every bundle), and the
 * AWS SDK bundled rather than taken from the runtime, so functions run the exact SDK
 * versions package-lock.json pins and the tests exercised.
 */
function buildOptions(functions: readonly FunctionEntry[], outdir: string, options: BundleOptions): BuildOptions & { metafile: true } {
  return {
    entryPoints: functions.map(({ name, entry }) => ({ in: entry, out: join(`${options.dirPrefix ?? ''}${name}`, 'index') })),
    outExtension: { '.js': '.mjs' },
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'esm',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: ['module', 'main'],
    banner: { js: ESM_REQUIRE_BANNER },
    external: [],
    alias: { ...BUNDLE_ALIASES },
    define: bundleDefines(options),
    metafile: true,
    logLevel: 'error',
    absWorkingDir: PROJECT_ROOT,
  };
}

/** Bundles `functions` in one esbuild run into `<outdir>/<prefix><name>/index.mjs` (+ `.map`). */
export async function bundleFunctions(
  functions: readonly FunctionEntry[],
  outdir: string,
  options: BundleOptions = { sdkTracing: false },
): Promise<BundledFunction[]> {
  return describeBuild(functions, outdir, options, await build(buildOptions(functions, outdir, options)));
}

/**
 * The same build, synchronously: CDK stages an asset inside a construct's constructor, which
 * cannot wait for a promise (function-code.ts).
 */
export function bundleFunctionsSync(functions: readonly FunctionEntry[], outdir: string, options: BundleOptions): BundledFunction[] {
  return describeBuild(functions, outdir, options, buildSync(buildOptions(functions, outdir, options)));
}

function describeBuild(
  functions: readonly FunctionEntry[],
  outdir: string,
  options: BundleOptions,
  result: BuildResult<{ metafile: true }>,
): BundledFunction[] {
  return functions.map(({ name, assets }) => {
    const dir = join(outdir, `${options.dirPrefix ?? ''}${name}`);
    const file = join(dir, 'index.mjs');
    const output = outputOf(result.metafile, file);
    return { name, dir, file, bytes: output.bytes, inputs: Object.keys(output.inputs), assets: assets ? copyAssets(assets, dir) : [] };
  });
}

/**
 * Copies the package files of `assets` into `<dir>/<assets.dir>/`: data a function reads at
 * run time (the PDF fonts, shared/pdf-fonts.ts) stays a file next to the bundle instead of
 * being inlined into it, and the code finds it relative to its own `index.mjs`.
 */
function copyAssets(assets: BundleAssets, dir: string): string[] {
  const resolve = createRequire(join(PROJECT_ROOT, 'package.json')).resolve;
  mkdirSync(join(dir, assets.dir), { recursive: true });
  return assets.packageFiles.map((file) => {
    const target = join(assets.dir, basename(file));
    copyFileSync(resolve(file), join(dir, target));
    return target;
  });
}

function outputOf(metafile: Metafile, file: string): Metafile['outputs'][string] {
  const key = relative(PROJECT_ROOT, file).split('\\').join('/');
  const output = metafile.outputs[key];
  if (!output) throw new Error(`esbuild produced no ${key}`);
  return output;
}
