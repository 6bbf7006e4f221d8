/**
 * The SDK's connection timeout starts when a request is made, not when it gets a socket
 * (lambdas/sdk-client-settings.ts). With the SDK's default of 50 sockets, the 51st of many
 * calls to a slow but healthy dependency would wait for a socket past that timeout and be
 * retried, or fail, without having been sent. Each client has MAX_SOCKETS, at least the
 * widest fan-out a function makes (the sealer's).
 */
import { createServer, type Server } from 'node:http';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ORG_CONCURRENCY } from '../../lambdas/domain/epochs/run-sealer.js';
import { MAX_SOCKETS, SDK_CLIENT_SETTINGS, sdkClientSettings } from '../../lambdas/sdk-client-settings.js';
import { QUERY_CONCURRENCY } from '../../lambdas/store/operation-windows.js';

/** Longer than the AWS connection timeout, shorter than its request timeout. */
const ANSWER_AFTER_MS = 1_300;

let server: Server;
let endpoint: string;
let inFlight = 0;
let mostInFlight = 0;

beforeAll(async () => {
  // A DynamoDB that answers every GetItem, slowly: "no such item".
  server = createServer((request, response) => {
    request.resume();
    inFlight += 1;
    mostInFlight = Math.max(mostInFlight, inFlight);
    setTimeout(() => {
      inFlight -= 1;
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'slow' }).end('{}');
    }, ANSWER_AFTER_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

it('has sockets for the sealer: organizations at once × window queries at once', () => {
  expect(MAX_SOCKETS).toBeGreaterThanOrEqual(ORG_CONCURRENCY * QUERY_CONCURRENCY);
});

it('sends every call of the widest fan-out at once, each in one attempt, with the AWS timeouts', async () => {
  expect(SDK_CLIENT_SETTINGS.aws.api.requestHandler.connectionTimeout).toBeLessThan(ANSWER_AFTER_MS);
  const client = new DynamoDBClient({
    region: 'eu-west-1',
    endpoint,
    credentials: { accessKeyId: 'slow', secretAccessKey: 'slow' },
    ...sdkClientSettings('aws'),
  });
  try {
    const calls = ORG_CONCURRENCY * QUERY_CONCURRENCY;
    const answers = await Promise.all(
      Array.from({ length: calls }, (_, i) => client.send(new GetItemCommand({ TableName: 'slow', Key: { pk: { S: `k${i}` } } }))),
    );
    expect(answers.map((answer) => answer.$metadata.attempts)).toEqual(Array.from({ length: calls }, () => 1));
    expect(mostInFlight).toBe(calls);
  } finally {
    client.destroy();
  }
});
