/**
 * `npm run demo`: the ledger end to end against a running service (default the local stack
 * of `npm start`, or DEMO_URL), the way an agent and an auditor use it:
 *
 *   1. sign up, create a personal workspace, issue an API token (SPEC.md §4.1, §4.2);
 *   2. register an agent with a fresh Ed25519 key (§4.3);
 *   3. sign and submit three chained operation records (§4.5, PROTOCOL.md);
 *   4. check each receipt offline with only the JWKS document and @agent-ledger/protocol,
 *      then ask the service to verify each operation (signature, chain, receipt, merkle).
 *
 * Start the service with a short epoch to see inclusion proofs within seconds:
 *   LEDGER_EPOCH_MS=5000 LEDGER_EPOCH_GRACE_MS=1000 npm start   (then, in another shell)
 *   npm run demo
 */
import { randomBytes } from 'node:crypto';
import {
  GENESIS,
  OP_VERSION,
  generateKeyPair,
  payloadHash,
  signRecord,
  verifyInclusionProof,
  verifyReceipt,
  type Ed25519Jwk,
  type InclusionProof,
  type OperationRecord,
  type Receipt,
} from '@agent-ledger/protocol';
import { uuidv7 } from '../lambdas/domain/ledger/uuidv7.js';
import { apiToken, json } from '../test/support/http-client.js';

const baseUrl = (process.env.DEMO_URL ?? 'http://127.0.0.1:3000').replace(/\/$/, '');
const WAIT_FOR_EPOCH_MS = Number(process.env.DEMO_WAIT_MS ?? 15_000);

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function main(): Promise<void> {
  await json(baseUrl, 'GET', '/v1/health').catch((error: Error) => {
    throw new Error(`no ledger at ${baseUrl} (start it with npm start): ${error.message}`);
  });
  const { token, orgId, email } = await apiToken(baseUrl, 'Demo');
  log(`signed up ${email}, organization ${orgId}, API token issued`);

  const agentId = `demo-agent-${randomBytes(3).toString('hex')}`;
  const key = generateKeyPair();
  await json(baseUrl, 'POST', '/v1/agents/register', { agent_id: agentId, integration_type: 'sdk', keys: [{ kid: 'k1', public_key: key.publicKey, algorithm: 'ed25519' }] }, token);
  log(`registered agent ${agentId} with Ed25519 key k1`);

  const jwks = (await json(baseUrl, 'GET', '/.well-known/service/jwks.json')) as unknown as { keys: Ed25519Jwk[] };
  let head = GENESIS;
  const operations: string[] = [];
  for (const [index, command] of ['git status', 'npm test', 'git push'].entries()) {
    const payload = { command, cwd: '/work/demo' };
    const record: OperationRecord = signRecord(
      {
        op_version: OP_VERSION,
        operation_id: uuidv7(),
        org_id: orgId,
        agent_id: agentId,
        issued_at: Date.now(),
        ttl_ms: 60_000,
        nonce: randomBytes(16).toString('base64url'),
        operation_type: 'shell.exec',
        subject: { kind: 'repository', id: 'acme/demo' },
        action: { tool: 'Bash', step: index + 1 },
        payload,
        payload_hash: payloadHash(payload),
        prev_chain_hash: head,
        agent_pubkey_kid: 'k1',
      },
      key.privateKey,
    );
    const { receipt } = (await json(baseUrl, 'POST', '/v1/operations', record, token)) as unknown as { receipt: Receipt };
    head = receipt.chain_hash;
    operations.push(record.operation_id);
    log(`submitted "${command}": seq_no ${receipt.seq_no}, receipt ${verifyReceipt(receipt, jwks) ? 'verifies offline against the JWKS' : 'DOES NOT VERIFY'}`);
  }

  const deadline = Date.now() + WAIT_FOR_EPOCH_MS;
  for (const operationId of operations) {
    let result = (await json(baseUrl, 'POST', `/v1/operations/${operationId}/verify`, undefined, token)) as {
      valid: boolean;
      checks: Record<string, boolean>;
      proof?: InclusionProof;
    };
    while (!result.proof && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      result = (await json(baseUrl, 'POST', `/v1/operations/${operationId}/verify`, undefined, token)) as typeof result;
    }
    const operation = (await json(baseUrl, 'GET', `/v1/operations/${operationId}`, undefined, token)) as { operation: { chain_hash: string } };
    const proof = result.proof
      ? `inclusion proof in epoch ${result.proof.epoch_id} ${verifyInclusionProof(operation.operation.chain_hash, result.proof) ? 'checks out offline' : 'DOES NOT CHECK OUT'}`
      : 'no epoch covers it yet (epochs close every LEDGER_EPOCH_MS)';
    log(`verify ${operationId}: valid=${result.valid} ${JSON.stringify(result.checks)}; ${proof}`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
