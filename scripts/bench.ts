/**
 * `npm run bench`: how close the submission path comes to the table's own limit (DESIGN.md,
 * Performance budget).
 *
 * 1. Starts its own in-memory local stack on 127.0.0.1 (DynamoDB Local, s3rver, the HTTP
 *    server), with the request rate limit lifted: it measures the ledger, not the limiter.
 * 2. Signs up, onboards and takes an API token through the public API, and registers
 *    BENCH_AGENTS agents.
 * 3. Submits signed operations over HTTP, one sequential chain per agent, all agents in
 *    parallel, until BENCH_SECONDS pass or BENCH_OPS operations are accepted.
 * 4. Runs the same number of parallel chains of raw three-item TransactWriteItems (operation
 *    put, head update, nonce put; the conditions and index attributes of a real submission)
 *    against the same DynamoDB Local and table, bounded the same way.
 * 5. Prints ops/s, p50 and p99 latency of both and the throughput ratio, stops the stack.
 *
 * Bounded and self-stopping; touches nothing but loopback. Settings (environment):
 * BENCH_AGENTS (default 8), BENCH_SECONDS (default 15 per phase), BENCH_OPS (default 5000
 * per phase), BENCH_PAYLOAD_BYTES (default 256).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { chainHash, GENESIS, generateKeyPair, sha256B64u, type OperationRecord } from '@agent-ledger/protocol';
import { signOperation } from '@agent-ledger/client';
import { localDynamoClient } from '../local/dynamodb-local.js';
import { TABLE_NAME } from '../local/stack.js';
import { percentile, setting } from './bench-numbers.js';
import { startBenchStack } from './bench-stack.js';
import { uuidv7 } from '../lambdas/domain/ledger/uuidv7.js';
import { apiToken, json } from '../test/support/http-client.js';

const AGENTS = setting('BENCH_AGENTS', 8);
const SECONDS = setting('BENCH_SECONDS', 15);
const MAX_OPS = setting('BENCH_OPS', 5000);
const PAYLOAD_BYTES = setting('BENCH_PAYLOAD_BYTES', 256);
const WARMUP_PER_AGENT = 5;

const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

interface PhaseResult {
  name: string;
  ok: number;
  failed: number;
  seconds: number;
  latenciesMs: number[];
}

/** Runs `workers` sequential loops of `step` until the deadline or `maxOps` successes in total. */
async function runPhase(name: string, workers: number, step: (worker: number) => Promise<boolean>): Promise<PhaseResult> {
  const latenciesMs: number[] = [];
  let ok = 0;
  let failed = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (performance.now() < deadline && ok + failed < MAX_OPS) {
        const t0 = performance.now();
        const success = await step(worker);
        latenciesMs.push(performance.now() - t0);
        if (success) ok += 1;
        else failed += 1;
      }
    }),
  );
  return { name, ok, failed, seconds: (performance.now() - started) / 1000, latenciesMs };
}

function summary(result: PhaseResult) {
  const sorted = [...result.latenciesMs].sort((a, b) => a - b);
  return {
    opsPerSecond: result.ok / result.seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}

interface BenchAgent {
  agentId: string;
  privateKey: ReturnType<typeof generateKeyPair>['privateKey'];
  head: string;
}

function nextRecord(orgId: string, agent: BenchAgent, payload: string): OperationRecord {
  return signOperation(
    {
      org_id: orgId,
      agent_id: agent.agentId,
      agent_pubkey_kid: 'k1',
      prev_chain_hash: agent.head,
      operation_type: 'bench.submit',
      subject: { kind: 'bench' },
      action: { verb: 'submit' },
      payload,
    },
    agent.privateKey,
  );
}

async function submissionPhase(baseUrl: string, token: string, orgId: string, agents: BenchAgent[]): Promise<PhaseResult> {
  const payload = 'x'.repeat(PAYLOAD_BYTES);
  const submit = async (worker: number): Promise<boolean> => {
    const agent = agents[worker]!;
    const record = nextRecord(orgId, agent, payload);
    const res = await fetch(`${baseUrl}/v1/operations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(record),
    });
    const body = (await res.json()) as { receipt?: { chain_hash: string }; error?: { code: string } };
    if (res.status !== 200) {
      log(`submission refused: ${res.status} ${body.error?.code}`);
      return false;
    }
    agent.head = chainHash(agent.head, record);
    return true;
  };
  for (let i = 0; i < WARMUP_PER_AGENT; i++) await Promise.all(agents.map((_, worker) => submit(worker)));
  return runPhase('POST /v1/operations', agents.length, submit);
}

/** The three items of a submission (store/operations.ts), written straight to the table. */
async function rawTransactionPhase(dynamoEndpoint: string, workers: number): Promise<PhaseResult> {
  const client = DynamoDBDocumentClient.from(localDynamoClient(dynamoEndpoint));
  const org = `bench-raw-${randomUUID()}`;
  const heads = Array.from({ length: workers }, (_, i) => ({ agentId: `raw-${i}`, seqNo: 0, hash: GENESIS }));
  await Promise.all(
    heads.map((head) =>
      client.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: { TableName: TABLE_NAME, Item: { pk: `ORG#${org}`, sk: `AGENT#${head.agentId}`, seq_no: 0, chain_hash: GENESIS, status: 'active', keys_version: 0 } } }],
        }),
      ),
    ),
  );
  const step = async (worker: number): Promise<boolean> => {
    const head = heads[worker]!;
    const operationId = uuidv7();
    const now = Date.now();
    const next = sha256B64u(new TextEncoder().encode(`${head.hash}${operationId}`));
    const seq = head.seqNo + 1;
    try {
      await client.send(
        new TransactWriteCommand({
          ClientRequestToken: randomUUID(),
          TransactItems: [
            {
              Put: {
                TableName: TABLE_NAME,
                Item: {
                  pk: `ORG#${org}#OP#${operationId}`,
                  sk: 'OP',
                  gsi1pk: `ORG#${org}#AGENT#${head.agentId}#SEQ`,
                  gsi1sk: String(seq).padStart(12, '0'),
                  gsi2pk: `ORG#${org}#OPS`,
                  gsi2sk: `${String(now).padStart(13, '0')}#${operationId}`,
                  gsi3pk: 'UNSEALED#0',
                  gsi3sk: `${org}#${String(now).padStart(13, '0')}#${operationId}`,
                  operation_id: operationId,
                  seq_no: seq,
                  chain_hash: next,
                  created_at: now,
                },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Update: {
                TableName: TABLE_NAME,
                Key: { pk: `ORG#${org}`, sk: `AGENT#${head.agentId}` },
                UpdateExpression: 'SET seq_no = :seq, chain_hash = :next',
                ConditionExpression: 'chain_hash = :prev AND seq_no = :prevSeq AND #status = :active AND keys_version = :kv',
                ExpressionAttributeNames: { '#status': 'status' },
                ExpressionAttributeValues: { ':seq': seq, ':next': next, ':prev': head.hash, ':prevSeq': head.seqNo, ':active': 'active', ':kv': 0 },
              },
            },
            {
              Put: {
                TableName: TABLE_NAME,
                Item: { pk: `ORG#${org}#AGENT#${head.agentId}#NONCE#${randomBytes(16).toString('base64url')}`, sk: 'NONCE', operation_id: operationId },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
      head.seqNo = seq;
      head.hash = next;
      return true;
    } catch (error) {
      log(`raw transaction failed: ${(error as Error).name}`);
      return false;
    }
  };
  try {
    return await runPhase('raw TransactWriteItems (3 items)', workers, step);
  } finally {
    client.destroy();
  }
}

function report(results: PhaseResult[]): void {
  const rows = results.map((result) => ({ result, stats: summary(result) }));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(34) : cell.padStart(10))).join(' ');
  console.log(line(['phase', 'ok', 'failed', 'ops/s', 'p50 ms', 'p99 ms']));
  for (const { result, stats } of rows) {
    console.log(line([result.name, String(result.ok), String(result.failed), stats.opsPerSecond.toFixed(1), stats.p50.toFixed(1), stats.p99.toFixed(1)]));
  }
  const [http, raw] = rows;
  if (http && raw) {
    console.log(`ratio: submissions reach ${((http.stats.opsPerSecond / raw.stats.opsPerSecond) * 100).toFixed(1)}% of raw transaction throughput (${AGENTS} parallel chains, ${PAYLOAD_BYTES}-byte payloads)`);
  }
}

async function main(): Promise<void> {
  log(`starting an in-memory local stack (${AGENTS} agents, up to ${SECONDS}s or ${MAX_OPS} operations per phase)`);
  const stack = await startBenchStack();
  try {
    const { token, orgId } = await apiToken(stack.url, 'Bench');
    const agents: BenchAgent[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const { publicKey, privateKey } = generateKeyPair();
      const agentId = `bench-${i}`;
      await json(stack.url, 'POST', '/v1/agents/register', { agent_id: agentId, integration_type: 'sdk', keys: [{ kid: 'k1', public_key: publicKey, algorithm: 'ed25519' }] }, token);
      agents.push({ agentId, privateKey, head: GENESIS });
    }
    log('submitting over HTTP');
    const http = await submissionPhase(stack.url, token, orgId, agents);
    log('raw TransactWriteItems against the same DynamoDB Local');
    const raw = await rawTransactionPhase(stack.dynamoEndpoint, AGENTS);
    report([http, raw]);
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
