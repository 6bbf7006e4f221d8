/**
 * `npm run demo`: the ledger end to end against a running service (default the local stack
 * of `npm start`, or DEMO_URL), the way an agent and an auditor use it:
 *
 *   1. sign up, create a personal workspace, issue an API token (docs/API.md §4.1, §4.2);
 *   2. register an agent with a fresh Ed25519 key (§4.3);
 *   3. sign and submit three chained operation records through the SDK (§2.1, §4.5);
 *   4. check each receipt offline with only the JWKS document and @agent-ledger/protocol,
 *      then ask the service to verify each operation (signature, chain, receipt, merkle).
 *
 * Start the service with a short epoch to see inclusion proofs within seconds:
 *   LEDGER_EPOCH_MS=5000 LEDGER_EPOCH_GRACE_MS=1000 npm start   (then, in another shell)
 *   npm run demo
 */
import { randomBytes } from 'node:crypto';
import { verifyInclusionProof } from '@agent-ledger/protocol';
import { generateKeyPair, LedgerClient, newAgentKey, verifyReceipt, type SigningAgent } from '@agent-ledger/client';
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

  const ledger = new LedgerClient({ url: baseUrl, token });
  const agentId = `demo-agent-${randomBytes(3).toString('hex')}`;
  const key = generateKeyPair();
  await ledger.registerAgent({ agent_id: agentId, integration_type: 'sdk', keys: [newAgentKey(key.privateKey, { orgId, agentId, kid: 'k1' })] });
  log(`registered agent ${agentId} with Ed25519 key k1`);

  // The SDK fills in operation_id, issued_at, nonce, payload_hash, prev_chain_hash and the
  // signature, and keeps the agent's chain head (docs/API.md §2.1).
  const agent: SigningAgent = { orgId, agentId, kid: 'k1', privateKey: key.privateKey };
  const jwks = await ledger.jwks();
  const operations: string[] = [];
  for (const [index, command] of ['git status', 'npm test', 'git push'].entries()) {
    const { record, receipt } = await ledger.submit(agent, {
      operation_type: 'shell.exec',
      subject: { kind: 'repository', id: 'acme/demo' },
      action: { tool: 'Bash', step: index + 1 },
      payload: { command, cwd: '/home/dev/demo' },
    });
    operations.push(record.operation_id);
    const offline = verifyReceipt(receipt, jwks, { record, agentPublicKey: key.publicKey }).valid;
    log(`submitted "${command}": seq_no ${receipt.seq_no}, receipt ${offline ? 'verifies offline against the JWKS' : 'DOES NOT VERIFY'}`);
  }

  const deadline = Date.now() + WAIT_FOR_EPOCH_MS;
  for (const operationId of operations) {
    let result = await ledger.verifyOperation(operationId);
    while (!result.proof && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      result = await ledger.verifyOperation(operationId);
    }
    const operation = await ledger.getOperation(operationId);
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
