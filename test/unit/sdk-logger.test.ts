/**
 * The SDK clients' logger (lambdas/sdk-client-settings.ts): silent, and without `info`, so the
 * SDK's logger middleware never builds its masked copy of a call's input and output. Checked
 * on a real client over a stubbed transport: the middleware reads the input's members only
 * when it builds that copy, besides the serializer.
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { SDK_LOGGER, sdkClientSettings } from '../../lambdas/sdk-client-settings.js';

/** A transport that answers every request with an empty item, as DynamoDB would for a missing one. */
const stubbed = { handle: async () => ({ response: { statusCode: 200, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: Buffer.from('{}') } }) };

/** How often the call's `TableName` is read while the client sends it. */
async function tableNameReads(logger: unknown): Promise<number> {
  const client = new DynamoDBClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    endpoint: 'http://127.0.0.1:9',
    maxAttempts: 1,
    requestHandler: stubbed,
    ...(logger === undefined ? {} : { logger: logger as typeof SDK_LOGGER }),
  });
  let reads = 0;
  const input = { Key: { pk: { S: 'a' } } } as { Key: Record<string, { S: string }>; TableName?: string };
  Object.defineProperty(input, 'TableName', { enumerable: true, get: () => (reads++, 't') });
  await client.send(new GetItemCommand(input as ConstructorParameters<typeof GetItemCommand>[0]));
  client.destroy();
  return reads;
}

describe('the SDK clients\' logger', () => {
  it('is every client setting\'s, for both stages and kinds, and has no info', () => {
    for (const stage of ['aws', 'local'] as const) for (const kind of ['api', 'objects'] as const) expect(sdkClientSettings(stage, kind).logger).toBe(SDK_LOGGER);
    expect('info' in SDK_LOGGER).toBe(false);
    expect(() => SDK_LOGGER.warn('x')).not.toThrow();
  });

  it('spares the masked copy of every input that the default logger has built', async () => {
    const byDefault = await tableNameReads(undefined);
    const withOurs = await tableNameReads(SDK_LOGGER);
    expect(withOurs).toBeLessThan(byDefault);
  });
});
