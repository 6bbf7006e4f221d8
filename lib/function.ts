/**
 * One Lambda function of the service, built the same way for every route and worker: Node.js
 * 22 on arm64, its ESM bundle from the app's one esbuild run (function-code.ts), active X-Ray tracing, its
 * own log group with a retention, and its own role that starts with nothing but permission to
 * write that log group. Everything else a function may do is added by grants.ts from the
 * `uses` of its route or worker (route-spec.ts), so the role is the route table's promise.
 */
import { Duration } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Function as LambdaFunction, Runtime, Tracing, type Code } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Resource } from '../lambdas/routes/route-spec.js';

export const DEFAULT_MEMORY_MB = 512;
export const DEFAULT_TIMEOUT_SECONDS = 10;

export interface LedgerFunctionProps {
  /** The function's bundle (function-code.ts FunctionBundles): `index.mjs` exporting `handler`. */
  readonly code: Code;
  readonly description: string;
  readonly environment: Readonly<Record<string, string>>;
  readonly memorySize?: number;
  readonly timeoutSeconds?: number;
  /** Reserved concurrency (worker-spec.ts reservedConcurrency). */
  readonly reservedConcurrency?: number;
}

export class LedgerFunction extends Construct {
  readonly function: LambdaFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: LedgerFunctionProps) {
    super(scope, id);

    // An explicit log group instead of the LogRetention custom resource: no extra helper
    // Lambda in the stack, and the write grant below can name this one group.
    this.logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_YEAR });

    // Our own role instead of the default one with AWSLambdaBasicExecutionRole: that managed
    // policy lets the function write to every log group in the account.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${this.node.path}: its log group plus the grants of its route or worker`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new LambdaFunction(this, 'Function', {
      code: props.code,
      handler: 'index.handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? DEFAULT_MEMORY_MB,
      timeout: Duration.seconds(props.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
      tracing: Tracing.ACTIVE,
      role: this.role,
      logGroup: this.logGroup,
      environment: { ...props.environment },
      ...(props.reservedConcurrency === undefined ? {} : { reservedConcurrentExecutions: props.reservedConcurrency }),
    });
  }
}

/** A function together with the resources its route or worker entry names. */
export interface FunctionUse {
  readonly function: LedgerFunction;
  readonly uses: readonly Resource[];
}
