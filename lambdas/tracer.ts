/**
 * X-Ray tracing of SDK calls (Powertools Tracer). The functions always run with active
 * tracing (lib/function.ts), which records each invocation. With `sdkTracing` on (CDK
 * context, docs/CONFIGURATION.md) `traced` also makes every call of an SDK client a subsegment, so a slow
 * request shows which table, bucket, key or queue call it waited on. That costs the X-Ray SDK
 * in every bundle and its cold start (docs/ARCHITECTURE.md, Logs and metrics), so it is off
 * unless asked for:
 * lib/bundling.ts then defines LEDGER_SDK_TRACING as 'false', and esbuild drops the import
 * below together with the branch that holds it.
 *
 * Outside Lambda (`npm start`, the tests, the benches) the tracer would disable itself, but
 * loading it is not free: the X-Ray SDK's context tracking installs an async hook with a destroy
 * callback, which makes every promise of the process register for garbage collection tracking,
 * a cost paid on every promise. So it is not loaded at all there.
 */
import type { Tracer } from '@aws-lambda-powertools/tracer';

const tracer: Tracer | undefined =
  process.env.LEDGER_SDK_TRACING === 'false' || process.env.AWS_LAMBDA_FUNCTION_NAME === undefined
    ? undefined
    : new (await import('@aws-lambda-powertools/tracer')).Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'agent-ledger' });

/** The client, instrumented when tracing is on: each of its calls becomes an X-Ray subsegment. */
export function traced<T>(client: T): T {
  return tracer ? tracer.captureAWSv3Client(client) : client;
}
