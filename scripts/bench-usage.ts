/**
 * What submissions cost in AWS terms, measured in the bench run (docs/COST.md): the SDK
 * clients the handlers use are instrumented in process, so every call is counted by service
 * and operation, with the DynamoDB capacity units the engine reports for it (DynamoDB Local
 * returns ConsumedCapacity, table and index parts, when asked). Divided by the accepted
 * submissions, priced with the list prices of docs/COST.md.
 *
 * Locally the receipt signer is a key file and the queue is in process: each signature is
 * counted as one KMS Sign, each queue send as one SQS request (a batch of up to 10 as one
 * SendMessageBatch), as they are in AWS.
 *
 * DynamoDB Local reports a transaction's index entries at the transactional rate, like its
 * items (2 units per KB). DynamoDB bills them at the rate of the same index write outside a
 * transaction (1 per KB): the transactional factor applies to the table's items alone
 * (docs/COST.md, What the bench counts). The totals are priced at that rate, and DynamoDB
 * Local's own figure is printed beside them as an upper bound.
 */
import type { Signer } from '../lambdas/domain/ports.js';

/** US East (N. Virginia) list prices, USD per million of each unit; docs/COST.md cites the pages. */
export const PRICES = {
  dynamoWriteUnit: 0.625,
  dynamoReadUnit: 0.125,
  kmsAsymmetricRequest: 15,
  s3Put: 5,
  s3Get: 0.4,
  sqsRequest: 0.4,
  apiGatewayHttpRequest: 1,
  lambdaRequest: 0.2,
  /** Per GB-second, arm64, times a million. */
  lambdaArmGbSecond: 13.3334,
} as const;

/**
 * Lambda's part is not measured locally: docs/COST.md takes the submit function's 1024 MB for
 * LAMBDA_MS_ASSUMED of billed duration (one read, one KMS Sign, one transaction: ~10 ms each
 * in AWS, plus the Ed25519 verify and JSON work) with receiptSigner=kms.
 */
const LAMBDA_MS_ASSUMED = 40;
/**
 * With receiptSigner=envelope the signature is made in process (an Ed25519 signature takes well
 * under a millisecond) instead of a KMS round trip of about 10 ms: the assumed duration drops by it.
 */
const LAMBDA_MS_ASSUMED_ENVELOPE = 30;
/** A KMS symmetric request (the envelope key's Decrypt, once per container cold start): $0.03 per 10,000. */
const KMS_SYMMETRIC_REQUEST_PER_MILLION = 3;
const SUBMIT_MEMORY_GB = 1;

interface Tally {
  calls: number;
  readUnits: number;
  /** As DynamoDB bills them: a transaction's index entries at the non-transactional rate. */
  writeUnits: number;
  /** What DynamoDB Local's report adds to writeUnits: the second unit of each transactional index unit. */
  doubledIndexUnits: number;
}

const READS = new Set(['GetCommand', 'QueryCommand', 'BatchGetCommand', 'TransactGetCommand', 'ScanCommand']);
const REPORTS_CAPACITY = new Set([
  'GetCommand',
  'QueryCommand',
  'BatchGetCommand',
  'TransactGetCommand',
  'PutCommand',
  'UpdateCommand',
  'DeleteCommand',
  'TransactWriteCommand',
  'BatchWriteCommand',
]);

type Sendable = { send: (command: never, ...rest: never[]) => Promise<unknown> };
type Capacity = { CapacityUnits?: number; Table?: { CapacityUnits?: number }; GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }> };

/** A call's ConsumedCapacity: one entry, or one per table (BatchGet, transactions). */
const entriesOf = (consumed: Capacity | Capacity[] | undefined): Capacity[] => (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []);

function unitsOf(consumed: Capacity | Capacity[] | undefined): number {
  return entriesOf(consumed).reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
}

/** The units of `consumed` that its global secondary indexes account for. */
function indexUnitsOf(consumed: Capacity | Capacity[] | undefined): number {
  return entriesOf(consumed).reduce((sum, entry) => sum + Object.values(entry.GlobalSecondaryIndexes ?? {}).reduce((n, index) => n + (index.CapacityUnits ?? 0), 0), 0);
}

export class UsageMeter {
  private readonly tallies = new Map<string, Tally>();
  private accepted = 0;
  private paused = false;

  private tally(key: string): Tally {
    // Paused, calls are counted into a tally no report reads.
    if (this.paused) return { calls: 0, readUnits: 0, writeUnits: 0, doubledIndexUnits: 0 };
    let tally = this.tallies.get(key);
    if (!tally) this.tallies.set(key, (tally = { calls: 0, readUnits: 0, writeUnits: 0, doubledIndexUnits: 0 }));
    return tally;
  }

  reset(): void {
    this.tallies.clear();
    this.accepted = 0;
  }

  /** Stops counting (the bench's raw rounds, whose calls are not the submissions'), until `resume`. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
  }

  countAccepted(n = 1): void {
    this.accepted += n;
  }

  /** Counts every DynamoDB command `client` sends, asking for and adding up its consumed capacity. */
  instrumentDynamo(client: Sendable): void {
    const original = client.send.bind(client) as (command: { constructor: { name: string }; input: Record<string, unknown> }, ...rest: unknown[]) => Promise<{ ConsumedCapacity?: Capacity | Capacity[] }>;
    (client as { send: unknown }).send = async (command: { constructor: { name: string }; input: Record<string, unknown> }, ...rest: unknown[]) => {
      const name = command.constructor.name;
      if (REPORTS_CAPACITY.has(name)) command.input.ReturnConsumedCapacity = 'INDEXES';
      const out = await original(command, ...rest);
      const tally = this.tally(`DynamoDB ${name.replace(/Command$/, '')}`);
      tally.calls += 1;
      if (READS.has(name)) tally.readUnits += unitsOf(out?.ConsumedCapacity);
      else {
        const doubled = name === 'TransactWriteCommand' ? indexUnitsOf(out?.ConsumedCapacity) / 2 : 0;
        tally.writeUnits += unitsOf(out?.ConsumedCapacity) - doubled;
        tally.doubledIndexUnits += doubled;
      }
      return out;
    };
  }

  /** Counts every S3 command `client` sends. */
  instrumentS3(client: Sendable): void {
    const original = client.send.bind(client) as (command: { constructor: { name: string } }, ...rest: unknown[]) => Promise<unknown>;
    (client as { send: unknown }).send = async (command: { constructor: { name: string } }, ...rest: unknown[]) => {
      this.tally(`S3 ${command.constructor.name.replace(/Command$/, '')}`).calls += 1;
      return original(command, ...rest);
    };
  }

  /** Counts each receipt signature as one KMS Sign. */
  instrumentSigner(signer: Signer): void {
    const original = signer.sign.bind(signer);
    signer.sign = async (message) => {
      this.tally('KMS Sign').calls += 1;
      return original(message);
    };
  }

  /** Counts queue sends as SQS requests. */
  instrumentQueue(queue: { send: (...args: never[]) => Promise<unknown>; sendBatch?: (queue: never, messages: readonly unknown[]) => Promise<unknown> }): void {
    const send = queue.send.bind(queue) as (...args: unknown[]) => Promise<unknown>;
    if (!queue.sendBatch) throw new Error('the queue has no sendBatch');
    const sendBatch = queue.sendBatch.bind(queue) as (name: unknown, messages: readonly unknown[]) => Promise<unknown>;
    let inBatch = false;
    (queue as { send: unknown }).send = async (...args: unknown[]) => {
      if (!inBatch) this.tally('SQS SendMessage').calls += 1;
      return send(...args);
    };
    (queue as { sendBatch: unknown }).sendBatch = async (name: unknown, messages: readonly unknown[]) => {
      this.tally('SQS SendMessageBatch').calls += 1;
      inBatch = true;
      try {
        return await sendBatch(name, messages);
      } finally {
        inBatch = false;
      }
    };
  }

  /** Per accepted submission: calls and units of each service operation, and the cost per million submissions. */
  report(): { lines: string[]; totalPerMillion: number; measuredPerMillion: number; envelopePerMillion: number; asDynamoLocalReportsPerMillion: number } {
    const per = (value: number) => (this.accepted === 0 ? 0 : value / this.accepted);
    const rows = [...this.tallies.entries()].sort(([a], [b]) => a.localeCompare(b));
    const lines: string[] = [];
    let measured = 0;
    const line = (cells: string[]) => lines.push(cells.map((cell, i) => (i === 0 ? cell.padEnd(32) : cell.padStart(12))).join(' '));
    line(['per accepted submission', 'calls', 'RRU', 'WRU', '$ / million']);
    for (const [key, tally] of rows) {
      let dollars = per(tally.readUnits) * PRICES.dynamoReadUnit + per(tally.writeUnits) * PRICES.dynamoWriteUnit;
      if (key === 'KMS Sign') dollars = per(tally.calls) * PRICES.kmsAsymmetricRequest;
      else if (key.startsWith('SQS ')) dollars = per(tally.calls) * PRICES.sqsRequest;
      else if (key === 'S3 PutObject') dollars = per(tally.calls) * PRICES.s3Put;
      else if (key.startsWith('S3 ')) dollars = per(tally.calls) * PRICES.s3Get;
      measured += dollars;
      line([key, per(tally.calls).toFixed(3), per(tally.readUnits).toFixed(2), per(tally.writeUnits).toFixed(2), dollars.toFixed(2)]);
    }
    const apiGateway = PRICES.apiGatewayHttpRequest;
    const lambda = (ms: number) => PRICES.lambdaRequest + (ms / 1000) * SUBMIT_MEMORY_GB * PRICES.lambdaArmGbSecond;
    line(['API Gateway HTTP API (1 request)', '1.000', '', '', apiGateway.toFixed(2)]);
    line([`Lambda (assumed ${LAMBDA_MS_ASSUMED} ms at 1 GB)`, '1.000', '', '', lambda(LAMBDA_MS_ASSUMED).toFixed(2)]);
    const total = measured + apiGateway + lambda(LAMBDA_MS_ASSUMED);
    line(['total (receiptSigner=kms)', '', '', '', total.toFixed(2)]);
    // receiptSigner=envelope: the same calls without the KMS Sign, a shorter Lambda, and one KMS
    // Decrypt per container cold start, which is per million operations a few cents at most.
    const signing = per(this.tallies.get('KMS Sign')?.calls ?? 0) * PRICES.kmsAsymmetricRequest;
    const envelope = measured - signing + apiGateway + lambda(LAMBDA_MS_ASSUMED_ENVELOPE);
    line([`total (receiptSigner=envelope)`, '', '', '', envelope.toFixed(2)]);
    lines.push(
      `  envelope: no KMS request per receipt (-$${signing.toFixed(2)}), Lambda assumed ${LAMBDA_MS_ASSUMED_ENVELOPE} ms, ` +
        `plus one KMS Decrypt per cold start ($${KMS_SYMMETRIC_REQUEST_PER_MILLION} per million cold starts)`,
    );
    const doubled = per([...this.tallies.values()].reduce((sum, tally) => sum + tally.doubledIndexUnits, 0));
    lines.push(
      `  WRU: a transaction's index entries at DynamoDB's rate for an index write (1 per KB); DynamoDB Local reports ${doubled.toFixed(2)} more ` +
        `per submission (2 per KB): at that count, +$${(doubled * PRICES.dynamoWriteUnit).toFixed(2)} on either total (docs/COST.md, What the bench counts)`,
    );
    return { lines, totalPerMillion: total, measuredPerMillion: measured, envelopePerMillion: envelope, asDynamoLocalReportsPerMillion: doubled * PRICES.dynamoWriteUnit };
  }
}
