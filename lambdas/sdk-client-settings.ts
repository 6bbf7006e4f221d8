/**
 * Timeouts and retries of every AWS SDK client the functions create (store/clients.ts and
 * the clients of runtime/: KMS, SQS, Cognito), so that a dependency that stops answering
 * fails its call well inside the Lambda timeout and the request ends as INTERNAL_ERROR
 * instead of hanging until Lambda kills it (docs/DEPLOY.md, What `cdk deploy` creates).
 *
 * The SDK's defaults wait forever for a connection and for a response (a `requestTimeout`
 * alone only logs a warning unless `throwOnRequestTimeout` is set). In AWS an attempt may take
 * a 1 s connection and then 2 s: in all for the small JSON calls of DynamoDB, KMS, SQS and
 * Cognito, which answer in milliseconds; without a byte for S3, whose object bodies may be
 * large and take longer to stream than to start. A call makes at most two attempts (one
 * retry covers a dropped connection or a throttle), so the worst case stays near 6 s, under
 * the 10 s of a route.
 *
 * The local stack's engines (DynamoDB Local, s3rver) share a small machine with the tests
 * and may take seconds to answer, so there the bounds are wide, but still bounds.
 *
 * The connection timeout also runs while a request waits for one of the client's sockets
 * (@smithy/node-http-handler starts it when the request is made), so a request queued behind
 * slow ones would fail as a connection timeout without ever being sent. Each client therefore
 * has sockets for the widest fan-out a function makes (MAX_SOCKETS), not the SDK's 50.
 */
import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { Stage } from './config.js';

/** The SDK's logger interface (every client's `logger` setting is this one type). */
type Logger = NonNullable<DynamoDBClientConfig['logger']>;

/** `api`: request-response calls with small bodies; `objects`: S3, whose bodies may be large. */
type SdkClientKind = 'api' | 'objects';

/**
 * Sockets per client: the sealer's fan-out, its organizations at once (domain/epochs/run-sealer.ts)
 * each reading windows with many queries at once (store/operation-windows.ts); a unit test holds
 * this at least their product.
 */
export const MAX_SOCKETS = 128;

interface AgentSettings {
  readonly maxSockets: number;
}

interface SdkClientSettings {
  readonly maxAttempts: number;
  readonly requestHandler: {
    /** The TCP (and TLS) connection, in ms. */
    readonly connectionTimeout: number;
    /** The whole request and response, in ms (thrown as TimeoutError with throwOnRequestTimeout). */
    readonly requestTimeout?: number;
    readonly throwOnRequestTimeout?: boolean;
    /** Time without a byte on the socket, in ms. */
    readonly socketTimeout?: number;
    /** Options of the keep-alive agents the SDK creates (http locally, https in AWS). */
    readonly httpAgent: AgentSettings;
    readonly httpsAgent: AgentSettings;
  };
}

const agents = { httpAgent: { maxSockets: MAX_SOCKETS }, httpsAgent: { maxSockets: MAX_SOCKETS } };
const api = (connection: number, request: number, maxAttempts: number): SdkClientSettings => ({
  maxAttempts,
  requestHandler: { connectionTimeout: connection, requestTimeout: request, throwOnRequestTimeout: true, ...agents },
});
const objects = (connection: number, idle: number, maxAttempts: number): SdkClientSettings => ({
  maxAttempts,
  requestHandler: { connectionTimeout: connection, socketTimeout: idle, ...agents },
});

export const SDK_CLIENT_SETTINGS: Readonly<Record<Stage, Readonly<Record<SdkClientKind, SdkClientSettings>>>> = {
  aws: { api: api(1_000, 2_000, 2), objects: objects(1_000, 2_000, 2) },
  local: { api: api(5_000, 30_000, 3), objects: objects(5_000, 30_000, 3) },
};

/**
 * The SDK's logger, silent as its default is, but without `info`. The default logger does
 * nothing, yet it has an `info`, and the SDK's logger middleware builds its entry whenever
 * `info` exists (`logger?.info?.({ input: filter(input), output: filter(output) })`): a copy
 * of every input and output, sensitive members masked, on every call, to be dropped. Without
 * `info` no copy is made, and no call pays for one. The functions log through Powertools,
 * never through the SDK.
 */
export const SDK_LOGGER = { debug() {}, warn() {}, error() {} } as unknown as Logger;

/** The settings of a client for `stage`, as SDK client configuration (a fresh copy per client). */
export function sdkClientSettings(stage: Stage, kind: SdkClientKind = 'api'): { maxAttempts: number; requestHandler: SdkClientSettings['requestHandler']; logger: Logger } {
  const { maxAttempts, requestHandler } = SDK_CLIENT_SETTINGS[stage][kind];
  return {
    maxAttempts,
    requestHandler: { ...requestHandler, httpAgent: { ...requestHandler.httpAgent }, httpsAgent: { ...requestHandler.httpsAgent } },
    logger: SDK_LOGGER,
  };
}

/**
 * The longest a call can take when its dependency accepts connections but never answers:
 * every attempt waits out the connection and the request (or idle) timeout, with the SDK's
 * retry delay (at most 2^n × 100 ms before retry n for a transient error) in between.
 */
export function worstCaseCallMs(settings: SdkClientSettings): number {
  const { maxAttempts, requestHandler } = settings;
  const attempt = requestHandler.connectionTimeout + (requestHandler.requestTimeout ?? requestHandler.socketTimeout ?? Infinity);
  let delays = 0;
  for (let retry = 1; retry < maxAttempts; retry++) delays += 2 ** retry * 100;
  return maxAttempts * attempt + delays;
}
