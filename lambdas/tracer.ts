/**
 * X-Ray tracing (Powertools Tracer). The functions run with active tracing (lib/function.ts),
 * which records each invocation; `traced` adds a subsegment for every call an SDK client
 * makes, so a slow request shows which table, bucket, key or queue call it waited on.
 * Outside Lambda (tests, `npm start`) the tracer disables itself and clients stay as they are.
 */
import { Tracer } from '@aws-lambda-powertools/tracer';

export const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'agent-ledger' });

/** The client, instrumented: each of its calls becomes an X-Ray subsegment. */
export function traced<T>(client: T): T {
  return tracer.captureAWSv3Client(client);
}
