/**
 * The bench's cost meter (scripts/bench-usage.ts): a transaction's index entries are priced at
 * DynamoDB's rate for an index write, half what DynamoDB Local reports for them, and the
 * difference is reported as the upper bound (docs/COST.md, What the bench counts); paused, it
 * counts nothing.
 */
import { describe, expect, it } from 'vitest';
import { PRICES, UsageMeter } from '../../scripts/bench-usage.js';

/** Commands are told apart by their class name, as the SDK's are. */
class TransactWriteCommand {
  constructor(readonly input: Record<string, unknown>) {}
}
class PutCommand {
  constructor(readonly input: Record<string, unknown>) {}
}

/** A submission's transaction as DynamoDB Local reports it: 6 units for three items, 2 for each of five index entries. */
const transaction = { CapacityUnits: 16, Table: { CapacityUnits: 6 }, GlobalSecondaryIndexes: Object.fromEntries(['gsi2', 'a', 'b', 'c', 'd'].map((name) => [name, { CapacityUnits: 2 }])) };
/** A single put with one index entry: no transactional factor anywhere. */
const put = { CapacityUnits: 2, Table: { CapacityUnits: 1 }, GlobalSecondaryIndexes: { gsi2: { CapacityUnits: 1 } } };

function meteredClient(meter: UsageMeter) {
  const asked: unknown[] = [];
  const client = {
    send: async (command: TransactWriteCommand | PutCommand) => {
      asked.push(command.input.ReturnConsumedCapacity);
      return { ConsumedCapacity: command instanceof TransactWriteCommand ? [transaction] : put };
    },
  };
  meter.instrumentDynamo(client as never);
  return { client, asked };
}

describe('the bench cost meter', () => {
  it('prices a transaction\'s index entries at the rate of an index write, and keeps DynamoDB Local\'s count as the upper bound', async () => {
    const meter = new UsageMeter();
    const { client, asked } = meteredClient(meter);
    for (let i = 0; i < 4; i++) {
      await client.send(new TransactWriteCommand({}));
      meter.countAccepted();
    }
    await client.send(new PutCommand({}));
    expect(asked.every((mode) => mode === 'INDEXES')).toBe(true);
    const report = meter.report();
    const row = (name: string) => report.lines.find((line) => line.startsWith(name))!.trim().split(/\s+/);
    // 6 table units and 5 index units per transaction; the put's 2 units over 4 submissions are not halved.
    expect(row('DynamoDB TransactWrite').slice(-3)).toEqual(['0.00', '11.00', (11 * PRICES.dynamoWriteUnit).toFixed(2)]);
    expect(row('DynamoDB Put').slice(-3)).toEqual(['0.00', '0.50', (0.5 * PRICES.dynamoWriteUnit).toFixed(2)]);
    expect(report.asDynamoLocalReportsPerMillion).toBeCloseTo(5 * PRICES.dynamoWriteUnit, 10);
  });

  it('counts nothing while paused (the raw rounds), and counts again once resumed', async () => {
    const meter = new UsageMeter();
    const { client } = meteredClient(meter);
    await client.send(new TransactWriteCommand({}));
    meter.countAccepted();
    meter.pause();
    for (let i = 0; i < 3; i++) await client.send(new PutCommand({}));
    meter.resume();
    await client.send(new TransactWriteCommand({}));
    meter.countAccepted();
    const lines = meter.report().lines;
    expect(lines.some((line) => line.startsWith('DynamoDB Put'))).toBe(false);
    expect(lines.find((line) => line.startsWith('DynamoDB TransactWrite'))!.trim().split(/\s+/)[2]).toBe('1.000');
  });
});
