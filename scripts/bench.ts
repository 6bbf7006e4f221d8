/**
 * `npm run bench`: how close the submission path comes to the table's own limit, and what it
 * costs per operation in AWS terms (docs/ARCHITECTURE.md, Performance budget; docs/COST.md).
 *
 * 1. Starts its own in-memory local stack on 127.0.0.1 (DynamoDB Local, s3rver, the HTTP
 *    server, the events outbox), with the request rate limit lifted: it measures the ledger,
 *    not the limiter. Instruments the SDK clients, the signer and the queue in process
 *    (bench-usage.ts).
 * 2. Signs up, onboards and takes an API token through the public API, and registers agents.
 * 3. For each chain count of BENCH_CHAINS (default 8 and 32), in one run, BENCH_ROUNDS
 *    rounds (default 3) of:
 *    - submits signed operations over HTTP, one sequential chain per agent, all agents in
 *      parallel, for BENCH_SECONDS / BENCH_ROUNDS or until BENCH_OPS / BENCH_ROUNDS
 *      operations are accepted, counting every SDK call they cause (the outbox forwarder's
 *      included);
 *    - runs the same number of parallel chains of raw three-item TransactWriteItems
 *      (operation put, head update, nonce put; the conditions of a real submission, and as
 *      the operation a copy of a row the submissions stored, so the same bytes and the same
 *      five index entries) against the same DynamoDB Local and table, bounded the same way.
 *    The phases take turns so that both see the same machine, after BENCH_WARMUP_SECONDS
 *    (default 30) of both, unmeasured, before the first chain count: from a cold start
 *    DynamoDB Local and this process ran at half their later rate for about 30 s, and one
 *    phase after the other measured the same code at 34% to 50% of the raw rate.
 * 4. Prints ops/s, p50 and p99 of both, their ratios (each round's too, to show the spread),
 *    and per accepted submission the calls by service and operation, the capacity units and
 *    the cost per million operations.
 *
 * Bounded and self-stopping; touches nothing but loopback. Settings (environment):
 * BENCH_CHAINS (default "8,32"), BENCH_SECONDS (default 15 per phase), BENCH_OPS (default
 * 5000 per phase), BENCH_ROUNDS (default 3), BENCH_WARMUP_SECONDS (default 30),
 * BENCH_PAYLOAD_BYTES (default 256).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { chainHash, GENESIS, generateKeyPair, provePossession, sha256B64u, type OperationRecord } from '@agent-ledger/protocol';
import { signOperation } from '@agent-ledger/client';
import { localDynamoClient } from '../local/dynamodb-local.js';
import { TABLE_NAME } from '../local/stack.js';
import { percentile, setting } from './bench-numbers.js';
import { benchApiToken, startBenchStack } from './bench-stack.js';
import { UsageMeter } from './bench-usage.js';
import { uuidv7 } from '../lambdas/domain/ledger/uuidv7.js';
import { ledgerKeys, type OperationItem } from '../lambdas/store/ledger-items.js';
import { INDEX_ATTRIBUTES, strip } from '../lambdas/store/dynamo.js';
import { submissionWrites } from '../lambdas/store/operations.js';
import { windowStart } from '../lambdas/domain/epochs/window.js';
import { config } from '../lambdas/config.js';
import { json } from '../test/support/http-client.js';

const CHAINS = (process.env.BENCH_CHAINS ?? '8,32').split(',').map((value) => {
  const chains = Number(value);
  if (!Number.isSafeInteger(chains) || chains <= 0) throw new Error(`BENCH_CHAINS must list positive integers, got "${process.env.BENCH_CHAINS}"`);
  return chains;
});
const SECONDS = setting('BENCH_SECONDS', 15);
const MAX_OPS = setting('BENCH_OPS', 5000);
const ROUNDS = setting('BENCH_ROUNDS', 3);
const WARMUP_SECONDS = setting('BENCH_WARMUP_SECONDS', 30);
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

/** How long one round runs: seconds, or attempts, whichever ends first. */
interface RoundLength {
  seconds: number;
  maxOps: number;
}

/** A measured round: its share of BENCH_SECONDS and of BENCH_OPS. */
const MEASURED: RoundLength = { seconds: SECONDS / ROUNDS, maxOps: Math.ceil(MAX_OPS / ROUNDS) };
/** A warm-up round: three of each phase fill BENCH_WARMUP_SECONDS. */
const WARMUP_ROUNDS = 3;
const WARMUP: RoundLength = { seconds: WARMUP_SECONDS / (2 * WARMUP_ROUNDS), maxOps: Number.MAX_SAFE_INTEGER };

/** Runs `workers` sequential loops of `step` for one round. */
async function runPhase(name: string, workers: number, step: (worker: number) => Promise<boolean>, length: RoundLength): Promise<PhaseResult> {
  const latenciesMs: number[] = [];
  let ok = 0;
  let failed = 0;
  const started = performance.now();
  const deadline = started + length.seconds * 1000;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (performance.now() < deadline && ok + failed < length.maxOps) {
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

/** The rounds of one phase as one result. */
function merged(rounds: PhaseResult[]): PhaseResult {
  return {
    name: rounds[0]!.name,
    ok: rounds.reduce((sum, round) => sum + round.ok, 0),
    failed: rounds.reduce((sum, round) => sum + round.failed, 0),
    seconds: rounds.reduce((sum, round) => sum + round.seconds, 0),
    latenciesMs: rounds.flatMap((round) => round.latenciesMs),
  };
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

/** Warms the agents' chains up, then returns one round of submissions and an operation the warm-up stored. */
async function submissionRounds(
  baseUrl: string,
  token: string,
  orgId: string,
  agents: BenchAgent[],
  meter: UsageMeter,
  drainEvents: () => Promise<void>,
): Promise<{ round: (length: RoundLength) => Promise<PhaseResult>; storedOperationId: string }> {
  let lastOperationId = '';
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
    lastOperationId = record.operation_id;
    return true;
  };
  for (let i = 0; i < WARMUP_PER_AGENT; i++) await Promise.all(agents.map((_, worker) => submit(worker)));
  // Count from here: the warm-up's calls (and its events) are not the measured submissions'.
  await drainEvents();
  meter.reset();
  const round = (length: RoundLength) =>
    runPhase(
      'POST /v1/operations',
      agents.length,
      async (worker) => {
        const accepted = await submit(worker);
        if (accepted) meter.countAccepted();
        return accepted;
      },
      length,
    );
  return { round, storedOperationId: lastOperationId };
}

/**
 * The three writes of a submission (store/operations.ts submissionWrites), sent straight to the
 * table: returns one round of them, and `close` for the client.
 */
async function rawTransactionRounds(
  dynamoEndpoint: string,
  workers: number,
  template: { orgId: string; operationId: string },
): Promise<{ round: (length: RoundLength) => Promise<PhaseResult>; close: () => void }> {
  const client = DynamoDBDocumentClient.from(localDynamoClient(dynamoEndpoint));
  const org = `bench-raw-${randomUUID()}`;
  // A stored row of the submissions: its receipt, payload and fields, so the raw put writes as many bytes and index entries.
  const stored = (await client.send(new GetCommand({ TableName: TABLE_NAME, Key: ledgerKeys.operation(template.orgId, template.operationId) }))).Item;
  if (!stored) throw new Error(`no stored row for operation ${template.operationId}`);
  const row = strip<OperationItem>(stored, INDEX_ATTRIBUTES);
  const heads = Array.from({ length: workers }, (_, i) => ({ agentId: `raw-${i}`, seqNo: 0, hash: GENESIS }));
  await Promise.all(
    heads.map((head) =>
      client.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: { TableName: TABLE_NAME, Item: { ...ledgerKeys.agent(org, head.agentId), seq_no: 0, chain_hash: GENESIS, status: 'active', keys_version: 0 } } }],
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
    const writes = submissionWrites(
      { ...row, org_id: org, agent_id: head.agentId, operation_id: operationId, seq_no: seq, chain_hash: next, created_at: now, nonce: randomBytes(16).toString('base64url') },
      { seqNo: head.seqNo, chainHash: head.hash, keysVersion: 0, activeWindow: windowStart(now, config().epochMs) },
    );
    // Not an event: the outbox forwarder's filter passes these by, as it does nothing else of a raw write.
    writes[0]!.Put!.Item!.type = 'bench_raw_operation';
    try {
      await client.send(new TransactWriteCommand({ ClientRequestToken: randomUUID(), TransactItems: writes }));
      head.seqNo = seq;
      head.hash = next;
      return true;
    } catch (error) {
      log(`raw transaction failed: ${(error as Error).name}`);
      return false;
    }
  };
  return { round: (length) => runPhase('raw TransactWriteItems (3 items)', workers, step, length), close: () => client.destroy() };
}

function line(cells: string[]): string {
  return cells.map((cell, i) => (i === 0 ? cell.padEnd(34) : cell.padStart(10))).join(' ');
}

function phaseLine(result: PhaseResult, chains: number): string {
  const stats = summary(result);
  return line([result.name, String(chains), String(result.ok), String(result.failed), stats.opsPerSecond.toFixed(1), stats.p50.toFixed(1), stats.p99.toFixed(1)]);
}

async function registerAgents(url: string, token: string, orgId: string, count: number, prefix: string): Promise<BenchAgent[]> {
  const agents: BenchAgent[] = [];
  for (let i = 0; i < count; i++) {
    const { publicKey, privateKey } = generateKeyPair();
    const agentId = `${prefix}-${i}`;
    await json(url, 'POST', '/v1/agents/register', { agent_id: agentId, integration_type: 'sdk', keys: [{ kid: 'k1', public_key: publicKey, algorithm: 'ed25519', proof: provePossession(privateKey, { org_id: orgId, agent_id: agentId, kid: 'k1', registered_at: Date.now() }) }] }, token);
    agents.push({ agentId, privateKey, head: GENESIS });
  }
  return agents;
}

async function main(): Promise<void> {
  log(`starting an in-memory local stack (chains ${CHAINS.join(', ')}; up to ${SECONDS}s or ${MAX_OPS} operations per phase)`);
  const stack = await startBenchStack();
  const meter = new UsageMeter();
  try {
    // The clients and ports the handlers use are these same process-wide instances.
    const [{ dynamo, s3 }, { signer }, { queue }] = await Promise.all([
      import('../lambdas/store/clients.js'),
      import('../lambdas/runtime/signer.js'),
      import('../lambdas/runtime/queue.js'),
    ]);
    meter.instrumentDynamo(dynamo() as never);
    meter.instrumentS3(s3() as never);
    meter.instrumentSigner(signer());
    meter.instrumentQueue(queue() as never);

    const { token, orgId } = await benchApiToken(stack.url, 'Bench');
    const out: string[] = [line(['phase', 'chains', 'ok', 'failed', 'ops/s', 'p50 ms', 'p99 ms'])];
    const ratios: string[] = [];
    let usage: ReturnType<UsageMeter['report']> | undefined;
    for (const chains of CHAINS) {
      const agents = await registerAgents(stack.url, token, orgId, chains, `bench-${chains}`);
      const submissions = await submissionRounds(stack.url, token, orgId, agents, meter, () => stack.drainEvents());
      const raw = await rawTransactionRounds(stack.dynamoEndpoint, chains, { orgId, operationId: submissions.storedOperationId });
      /** One round of each phase; the meter counts the submissions' round and its events only. */
      const turn = async (length: RoundLength) => {
        meter.resume();
        const http = await submissions.round(length);
        // The outbox forwarder's sends belong to these submissions.
        await stack.drainEvents();
        meter.pause();
        return { http, raw: await raw.round(length) };
      };
      const httpRounds: PhaseResult[] = [];
      const rawRounds: PhaseResult[] = [];
      try {
        if (chains === CHAINS[0] && WARMUP_SECONDS > 0) {
          // DynamoDB Local's JVM and this process compile their hot paths under load: from a cold
          // start both phases ran at half their later rate for about 30 s (rounds of 5 s:
          // submissions 44, 74, 143, 171 ops/s; raw 104, 160, 197, 186), so whichever went first
          // was measured slow. Both warm up here, unmeasured; later chain counts run warm.
          log(`${chains} chains: warming up for ${WARMUP_SECONDS} s (both phases, unmeasured)`);
          for (let round = 1; round <= WARMUP_ROUNDS; round++) await turn(WARMUP);
          meter.reset();
        }
        for (let round = 1; round <= ROUNDS; round++) {
          log(`${chains} chains, round ${round} of ${ROUNDS}: submitting over HTTP, then raw TransactWriteItems against the same DynamoDB Local`);
          const both = await turn(MEASURED);
          httpRounds.push(both.http);
          rawRounds.push(both.raw);
          log(`round ${round}: submissions ${summary(both.http).opsPerSecond.toFixed(1)} ops/s, raw ${summary(both.raw).opsPerSecond.toFixed(1)} ops/s`);
        }
      } finally {
        raw.close();
      }
      if (!usage) usage = meter.report();
      const [http, rawTotal] = [merged(httpRounds), merged(rawRounds)];
      out.push(phaseLine(http, chains), phaseLine(rawTotal, chains));
      const [h, r] = [summary(http), summary(rawTotal)];
      const perRound = httpRounds.map((round, i) => `${((summary(round).opsPerSecond / summary(rawRounds[i]!).opsPerSecond) * 100).toFixed(1)}%`);
      ratios.push(
        `ratio (${chains} chains, ${PAYLOAD_BYTES}-byte payloads): submissions reach ${((h.opsPerSecond / r.opsPerSecond) * 100).toFixed(1)}% ` +
          `of raw transaction throughput (rounds: ${perRound.join(', ')}); p99 ${(h.p99 / r.p99).toFixed(2)}x raw p99`,
      );
    }
    console.log([...out, ...ratios].join('\n'));
    if (usage) {
      console.log(`\nin AWS terms, counted in the ${CHAINS[0]}-chain run (docs/COST.md has the prices and their sources):`);
      console.log(usage.lines.join('\n'));
      const upper = (total: number) => `as DynamoDB Local counts index units: $${(total + usage.asDynamoLocalReportsPerMillion).toFixed(2)}`;
      console.log(
        `cost: $${usage.totalPerMillion.toFixed(2)} per million operations with receiptSigner=kms (of it measured from SDK calls: $${usage.measuredPerMillion.toFixed(2)}; ${upper(usage.totalPerMillion)}; target $25)`,
      );
      console.log(`cost: $${usage.envelopePerMillion.toFixed(2)} per million operations with receiptSigner=envelope (${upper(usage.envelopePerMillion)}; target $11)`);
    }
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
