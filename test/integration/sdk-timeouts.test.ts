/**
 * A dependency that accepts connections and never answers (a "blackhole") must not hold a
 * request until Lambda kills it: every AWS SDK client gives up within its bounds
 * (lambdas/sdk-client-settings.ts) and the route answers INTERNAL_ERROR inside its Lambda
 * timeout. The functions run with the configuration they have in AWS; AWS_ENDPOINT_URL
 * points every SDK client at the blackhole.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { DEFAULT_TIMEOUT_SECONDS } from '../../lib/function.js';
import { SDK_CLIENT_SETTINGS, worstCaseCallMs } from '../../lambdas/sdk-client-settings.js';
import { AWS_PLACEHOLDER_ENV } from '../support/placeholder-env.js';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

const LAMBDA_TIMEOUT_MS = DEFAULT_TIMEOUT_SECONDS * 1000;
const BOUND_MS = Math.max(worstCaseCallMs(SDK_CLIENT_SETTINGS.aws.api), worstCaseCallMs(SDK_CLIENT_SETTINGS.aws.objects));
/** The shortest an attempt waits at a blackhole before giving up. */
const FIRST_TIMEOUT_MS = 2_000;

let blackhole: Server;
const sockets: Socket[] = [];

beforeAll(async () => {
  blackhole = createServer((socket) => sockets.push(socket)); // accepts, reads, never answers
  await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
  const { port } = blackhole.address() as { port: number };
  Object.assign(process.env, AWS_PLACEHOLDER_ENV, {
    AWS_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIDBLACKHOLE',
    AWS_SECRET_ACCESS_KEY: 'blackhole',
    AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`,
    // SQS sends to the host of the queue URL.
    LEDGER_EVENTS_QUEUE_URL: `http://127.0.0.1:${port}/123456789012/events`,
    LEDGER_EXPORTS_QUEUE_URL: `http://127.0.0.1:${port}/123456789012/exports`,
    LEDGER_IDENTITY: 'cognito',
    LEDGER_USER_POOL_ID: 'eu-west-1_blackhole',
    LEDGER_USER_POOL_CLIENT_ID: 'blackhole',
  });
  delete process.env.LEDGER_STAGE;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => blackhole.close(resolve));
});

/** A Lambda context whose remaining time counts down from the function's timeout, as Lambda's does. */
function lambdaContext(requestId: string): Context {
  const deadline = Date.now() + LAMBDA_TIMEOUT_MS;
  return { awsRequestId: requestId, functionName: 'blackhole', getRemainingTimeInMillis: () => deadline - Date.now() } as unknown as Context;
}

function get(path: string, headers: Record<string, string> = {}): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: `GET ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers,
    isBase64Encoded: false,
    requestContext: { requestId: `blackhole-${path}`, http: { method: 'GET', path, sourceIp: '192.0.2.1' } } as APIGatewayProxyEventV2['requestContext'],
  };
}

async function timed<T>(run: () => Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const started = performance.now();
  try {
    const value = await run();
    return { ms: performance.now() - started, value };
  } catch (error) {
    return { ms: performance.now() - started, error };
  }
}

describe('against a dependency that never answers', () => {
  it('bounds each call well inside the Lambda timeout', () => {
    expect(BOUND_MS).toBeLessThan(LAMBDA_TIMEOUT_MS * 0.75);
  });

  it('answers INTERNAL_ERROR inside the Lambda timeout: a table route, the JWKS (KMS)', async () => {
    const agents = (await import('../../lambdas/http/agents/list.js')) as { handler: Handler };
    const jwks = (await import('../../lambdas/http/public/jwks.js')) as { handler: Handler };
    const token = `alt_${'A'.repeat(43)}`;
    const results = await Promise.all([
      timed(() => agents.handler(get('/v1/agents', { authorization: `Bearer ${token}` }), lambdaContext('agents'))),
      timed(() => jwks.handler(get('/.well-known/service/jwks.json'), lambdaContext('jwks'))),
    ]);
    for (const { ms, value, error } of results) {
      expect(error).toBeUndefined();
      expect(value?.statusCode).toBe(500);
      expect(JSON.parse(value!.body as string).error.code).toBe('INTERNAL_ERROR');
      // The SDK waited out its timeouts (at least one request timeout) and gave up within its bound.
      expect(ms).toBeGreaterThanOrEqual(FIRST_TIMEOUT_MS);
      expect(ms).toBeLessThan(LAMBDA_TIMEOUT_MS);
    }
  }, 30_000);

  it('gives up with a timeout on every client: DynamoDB, S3, KMS, SQS and Cognito', async () => {
    const { dynamo, s3 } = await import('../../lambdas/store/clients.js');
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const { HeadBucketCommand } = await import('@aws-sdk/client-s3');
    const { signer } = await import('../../lambdas/runtime/signer.js');
    const { queue } = await import('../../lambdas/runtime/queue.js');
    const { identityProvider } = await import('../../lambdas/runtime/identity-provider.js');
    const calls: Record<string, () => Promise<unknown>> = {
      dynamodb: () => dynamo().send(new GetCommand({ TableName: 'placeholder', Key: { pk: 'a', sk: 'b' } })),
      s3: () => s3().send(new HeadBucketCommand({ Bucket: 'placeholder' })),
      kms: () => signer().ping(),
      sqs: () => queue().ping(),
      cognito: () => identityProvider().register({ email: 'blackhole@example.com', password: 'correct horse', name: 'Blackhole', verificationUrl: (token) => token }),
    };
    const results = await Promise.all(Object.entries(calls).map(async ([name, call]) => ({ name, ...(await timed(call)) })));
    for (const { name, ms, error } of results) {
      expect(error, name).toBeDefined();
      expect(`${(error as Error).name}: ${(error as Error).message}`, name).toMatch(/timeout|timed out/i);
      expect(ms, name).toBeGreaterThanOrEqual(FIRST_TIMEOUT_MS);
      expect(ms, name).toBeLessThan(BOUND_MS + 1_000);
    }
  }, 30_000);
});
