/**
 * One Lambda function of the service, built the same way for every route and worker: Node.js
 * 22 on arm64, an ESM bundle made by the local esbuild (no Docker), active X-Ray tracing, its
 * own log group with a retention, and its own role that starts with nothing but permission to
 * write that log group. Everything else a function may do is added by grants.ts from the
 * `uses` of its route or worker (route-spec.ts), so the role is the route table's promise.
 */
import { Duration } from 'aws-cdk-lib';
import { ServicePrincipal, type Role } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import type { Resource } from '../lambdas/routes/route-spec.js';
import type { BundleAssets } from '../lambdas/workers/worker-spec.js';
import { BUNDLE_ALIASES, BUNDLE_SETTINGS, bundleDefines } from './bundling.js';
import { InlineRole } from './inline-role.js';
import { LOCK_FILE, PROJECT_ROOT } from './paths.js';
import { readSdkTracing } from './settings.js';

export const DEFAULT_MEMORY_MB = 512;
export const DEFAULT_TIMEOUT_SECONDS = 10;

export interface LedgerFunctionProps {
  /** Absolute path of the handler module; it exports `handler`. */
  readonly entry: string;
  readonly description: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly memorySize?: number;
  readonly timeoutSeconds?: number;
  /** Package files copied next to the bundle (worker-spec.ts BundleAssets). */
  readonly bundleAssets?: BundleAssets;
}

/** Shell commands that copy `assets` into the bundle's output directory (NodejsFunction commandHooks, run locally). */
export function assetCopyCommands(assets: BundleAssets, outputDir: string): string[] {
  const require = createRequire(join(PROJECT_ROOT, 'package.json'));
  const target = join(outputDir, assets.dir);
  return [`mkdir -p "${target}"`, ...assets.packageFiles.map((file) => `cp "${require.resolve(file)}" "${join(target, basename(file))}"`)];
}

export class LedgerFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: LedgerFunctionProps) {
    super(scope, id);

    // An explicit log group instead of the LogRetention custom resource: no extra helper
    // Lambda in the stack, and the write grant below can name this one group.
    this.logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_YEAR });

    // Our own role instead of the default one with AWSLambdaBasicExecutionRole: that managed
    // policy lets the function write to every log group in the account. Its grants stay inside
    // the role (inline-role.ts), one resource per function fewer.
    this.role = new InlineRole(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${this.node.path}: its log group plus the grants of its route or worker`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? DEFAULT_MEMORY_MB,
      timeout: Duration.seconds(props.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
      tracing: Tracing.ACTIVE,
      role: this.role,
      logGroup: this.logGroup,
      environment: { ...props.environment },
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: LOCK_FILE,
      // The esbuild settings of lib/bundling.ts, which the bundle-size check builds with too.
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        target: BUNDLE_SETTINGS.target,
        minify: BUNDLE_SETTINGS.minify,
        sourceMap: true,
        // Stack traces map back to file and line (NODE_OPTIONS=--enable-source-maps) without
        // shipping the sources themselves inside every bundle.
        sourcesContent: false,
        mainFields: [...BUNDLE_SETTINGS.mainFields],
        banner: BUNDLE_SETTINGS.banner,
        externalModules: [...BUNDLE_SETTINGS.external],
        define: bundleDefines({ sdkTracing: readSdkTracing(scope) }),
        esbuildArgs: Object.fromEntries(Object.entries(BUNDLE_ALIASES).map(([name, path]) => [`--alias:${name}`, path])),
        ...(props.bundleAssets
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (_inputDir: string, outputDir: string) => assetCopyCommands(props.bundleAssets as BundleAssets, outputDir),
              },
            }
          : {}),
      },
    });
  }
}

/** A function together with the resources its route or worker entry names. */
export interface FunctionUse {
  readonly function: LedgerFunction;
  readonly uses: readonly Resource[];
}
