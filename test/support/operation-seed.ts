/**
 * Operations written straight into the table and the data bucket, with the created_at a test
 * or benchmark chooses, each exactly as a submission stores it (store/operations.ts
 * operationItem; the payload inline up to LEDGER_INLINE_PAYLOAD_BYTES, else an object):
 * signed by the agent's key, chained, with the receipt signed by the service key in the row,
 * so that exports of them verify. Thousands per second
 * instead of the hot path's few hundred. Uses the process's configured table, bucket and
 * signer (the test or bench stack sets them).
 *
 * The agents must exist (registered over HTTP): their chain head is moved to the last
 * seeded operation, so later submissions continue the chain, and their activity entry to its
 * window, so the sealer seals the seeded windows (domain/epochs/seal-organization.ts).
 */
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, UpdateCommand, type BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import { canonicalBytes, chainHash, canonicalize, type OperationRecord } from '@agent-ledger/protocol';
import { signOperation } from '@agent-ledger/client';
import { config } from '../../lambdas/config.js';
import { forEachBounded } from '../../lambdas/shared/bounded.js';
import { dynamo } from '../../lambdas/store/clients.js';
import { ledgerKeys, type OperationItem } from '../../lambdas/store/ledger-items.js';
import { putJsonObject } from '../../lambdas/store/objects.js';
import { operationItem } from '../../lambdas/store/operations.js';
import { readAgent } from '../../lambdas/store/agents.js';
import { signReceipt, withReceipt } from '../../lambdas/domain/ledger/receipt-builder.js';
import { payloadKeyOf } from '../../lambdas/domain/ledger/operation-row.js';
import { windowStart } from '../../lambdas/domain/epochs/window.js';
import { uuidv7 } from '../../lambdas/domain/ledger/uuidv7.js';
import { signer } from '../../lambdas/runtime/signer.js';
import type { TestKey } from './ledger-fixtures.js';
import { backdateKeyRegistrations } from './key-history-seed.js';

export interface SeedAgent {
  agentId: string;
  key: TestKey;
}

export interface SeedOperation {
  agent: SeedAgent;
  createdAt: number;
  operationType?: string;
  subject?: Record<string, unknown>;
  action?: Record<string, unknown>;
  payload?: OperationRecord['payload'];
}

const WRITE_CONCURRENCY = 16;

/**
 * Writes `operations` (each agent's in the order given: their seq_no) and returns the rows.
 * With `objects: false` no payload object is written (enough for the audit query).
 */
export async function seedOperations(orgId: string, operations: readonly SeedOperation[], options: { objects?: boolean } = {}): Promise<OperationItem[]> {
  const heads = new Map<string, { seq: number; hash: string; opId: string | null }>();
  for (const agentId of new Set(operations.map((op) => op.agent.agentId))) {
    const agent = await readAgent(orgId, agentId);
    if (!agent) throw new Error(`seed: agent ${agentId} is not registered`);
    heads.set(agentId, { seq: agent.seq_no, hash: agent.chain_hash, opId: agent.head_operation_id });
  }
  const earliest = new Map<string, { key: TestKey; at: number }>();
  for (const op of operations) {
    const known = earliest.get(op.agent.agentId);
    if (known === undefined || op.createdAt < known.at) earliest.set(op.agent.agentId, { key: op.agent.key, at: op.createdAt });
  }
  await backdateKeyRegistrations(orgId, earliest);
  const rows: OperationItem[] = [];
  const objects: { key: string; body: string | Uint8Array }[] = [];
  for (const op of operations) {
    const head = heads.get(op.agent.agentId) as { seq: number; hash: string; opId: string | null };
    const payload = op.payload === undefined ? { n: head.seq + 1 } : op.payload;
    const record = signOperation(
      {
        operation_id: uuidv7(op.createdAt),
        org_id: orgId,
        agent_id: op.agent.agentId,
        issued_at: op.createdAt,
        agent_pubkey_kid: op.agent.key.kid,
        prev_chain_hash: head.hash,
        operation_type: op.operationType ?? 'test.run',
        subject: op.subject ?? { path: `src/file-${head.seq + 1}.ts` },
        action: op.action ?? { verb: 'edit' },
        payload,
      },
      op.agent.key.privateKey,
    );
    const payloadBytes = canonicalBytes(payload);
    const inline = payloadBytes.byteLength <= config().inlinePayloadBytes;
    const unsigned: OperationItem = {
      operation_id: record.operation_id,
      org_id: orgId,
      agent_id: record.agent_id,
      seq_no: head.seq + 1,
      operation_type: record.operation_type,
      issued_at: record.issued_at,
      ttl_ms: record.ttl_ms,
      nonce: record.nonce,
      subject: canonicalize(record.subject),
      action: canonicalize(record.action),
      payload_hash: record.payload_hash,
      prev_chain_hash: record.prev_chain_hash,
      chain_hash: chainHash(record.prev_chain_hash, record),
      agent_pubkey_kid: record.agent_pubkey_kid,
      signature: record.signature,
      created_at: op.createdAt,
      op_version: record.op_version,
      receipt_id: uuidv7(op.createdAt),
      prev_operation_id: head.opId,
      agent_public_key: op.agent.key.publicKey,
      queue_message_id: randomUUID(),
      ...(inline ? { payload_json: new TextDecoder().decode(payloadBytes) } : {}),
    };
    const row = withReceipt(unsigned, await signReceipt(signer(), unsigned));
    if (!inline && options.objects !== false) objects.push({ key: payloadKeyOf(row), body: payloadBytes });
    rows.push(row);
    heads.set(op.agent.agentId, { seq: row.seq_no, hash: row.chain_hash, opId: row.operation_id });
  }
  const batches: OperationItem[][] = [];
  for (let i = 0; i < rows.length; i += 25) batches.push(rows.slice(i, i + 25));
  await Promise.all([
    forEachBounded(batches, WRITE_CONCURRENCY, writeBatch),
    forEachBounded(objects, WRITE_CONCURRENCY * 2, ({ key, body }) => putJsonObject(key, body)),
  ]);
  const lastAt = new Map(rows.map((row) => [row.agent_id, row.created_at]));
  for (const [agentId, head] of heads) {
    const activity = ledgerKeys.activity(orgId, agentId, windowStart(lastAt.get(agentId) ?? Date.now(), config().epochMs));
    await dynamo().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: ledgerKeys.agent(orgId, agentId),
        UpdateExpression: 'SET seq_no = :seq, chain_hash = :hash, head_operation_id = :op, gsi3pk = :apk, gsi3sk = :ask',
        ExpressionAttributeValues: { ':seq': head.seq, ':hash': head.hash, ':op': head.opId, ':apk': activity.gsi3pk, ':ask': activity.gsi3sk },
      }),
    );
  }
  return rows;
}

async function writeBatch(rows: OperationItem[]): Promise<void> {
  const table = config().tableName;
  let requests: NonNullable<BatchWriteCommandOutput['UnprocessedItems']>[string] | undefined = rows.map((row) => ({ PutRequest: { Item: operationItem(row) } }));
  while (requests && requests.length > 0) {
    const out: BatchWriteCommandOutput = await dynamo().send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
    requests = out.UnprocessedItems?.[table];
  }
}
