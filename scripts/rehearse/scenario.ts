/**
 * The rehearsal's scenario, over HTTP only, as a user and their tooling meet the service
 * (docs/API.md §4): sign up, verify the email with the mailed code, sign in, onboard, mint an
 * API token, register an agent, submit chained operations and check each receipt offline,
 * seal an epoch and verify an operation with its Merkle proof, an audit query, JSON and PDF
 * exports downloaded through their presigned URLs and then withdrawn by a payload's erasure,
 * a webhook delivery to a local receiver, and a frozen agent whose next submission is refused. The same steps run against the
 * rehearsal and, with `--against`, against a deployed stack.
 */
import { randomBytes } from 'node:crypto';
import { verifyExportBundle, verifyInclusionProof } from '@agent-ledger/protocol';
import { generateKeyPair, LedgerClient, newAgentKey, verifyReceipt, type SigningAgent } from '@agent-ledger/client';
import { http, type HttpResult } from '../../test/support/http-client.js';
import { signatureValid, startReceiver } from '../../test/support/webhook-receiver.js';

interface ScenarioHooks {
  /** The verification code mailed to `email`, or undefined where no mailbox is readable (a deployed stack). */
  mailedCode(email: string): string | undefined;
  /** Closes the current epoch: runs the schedule's target (rehearsal) or waits for the real schedule. */
  seal(): Promise<void>;
  /** Whether a webhook can reach this machine's loopback receiver (not from a deployed stack). */
  readonly webhooks: boolean;
  /** How long sealing may take: seconds in the rehearsal, the 5-minute schedule plus its grace in AWS. */
  readonly sealTimeoutMs: number;
  /** Where the sign-up mail goes: a test domain locally; SES's mailbox simulator against AWS, so no real mail bounces. */
  readonly emailAddress: (local: string) => string;
  readonly log: (line: string) => void;
}

class StepError extends Error {}

function expectStatus(step: string, result: HttpResult, ...statuses: number[]): HttpResult {
  if (!statuses.includes(result.status)) throw new StepError(`${step}: expected ${statuses.join(' or ')}, got ${result.status} ${result.text.slice(0, 400)}`);
  return result;
}

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new StepError(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export async function runScenario(baseUrl: string, hooks: ScenarioHooks): Promise<void> {
  const call = (method: string, path: string, options: { token?: string; body?: unknown } = {}) => http(baseUrl, method, path, options);
  const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const started = Date.now();
    const value = await run();
    hooks.log(`  ok  ${name} (${Date.now() - started} ms)`);
    return value;
  };

  await step('health', async () => expectStatus('GET /v1/health', await call('GET', '/v1/health'), 200));
  const email = hooks.emailAddress(`rehearsal-${randomBytes(4).toString('hex')}`);
  const password = `Rehearsal-${randomBytes(9).toString('base64url')}`;
  await step('sign up (Cognito AdminCreateUser, AdminSetUserPassword; the verification code is mailed)', async () =>
    expectStatus('sign-up', await call('POST', '/api/auth/sign-up/email', { body: { name: 'Rehearsal Owner', email, password } }), 200),
  );
  const code = hooks.mailedCode(email);
  if (code === undefined) {
    hooks.log('  --  verify email: skipped (no mailbox to read the code from on a deployed stack)');
  } else {
    await step('verify email with the mailed code (Cognito VerifyUserAttribute)', async () => {
      const { verificationToken } = await import('../../lambdas/adapters/aws/cognito-identity-provider.js');
      expectStatus('verify-email', await call('GET', `/api/auth/verify-email?token=${encodeURIComponent(verificationToken(email, code))}`), 200);
    });
  }
  const session = await step('sign in (Cognito USER_PASSWORD_AUTH)', async () => {
    const res = expectStatus('sign-in', await call('POST', '/api/auth/sign-in/email', { body: { email, password } }), 200);
    if (code !== undefined && res.json.user?.emailVerified !== true) throw new StepError(`sign-in: the verified address reads emailVerified=${String(res.json.user?.emailVerified)}`);
    return res.json.token as string;
  });
  const orgId = await step('onboard an organization', async () => (expectStatus('onboarding', await call('POST', '/v1/onboarding/organization', { token: session, body: { org_name: 'Rehearsal Org' } }), 201)).json.org_id as string);
  const token = await step('mint an API token', async () => (expectStatus('token', await call('POST', '/v1/auth/token', { token: session, body: {} }), 200, 201)).json.token as string);

  const ledger = new LedgerClient({ url: baseUrl, token });
  const agentId = `rehearsal-agent-${randomBytes(3).toString('hex')}`;
  const key = generateKeyPair();
  await step('register an agent', () => ledger.registerAgent({ agent_id: agentId, integration_type: 'sdk', keys: [newAgentKey(key.privateKey, { orgId, agentId, kid: 'k1' })] }));
  const agent: SigningAgent = { orgId, agentId, kid: 'k1', privateKey: key.privateKey };

  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  const secret = `whsec-${randomBytes(12).toString('hex')}`;
  if (hooks.webhooks) {
    receiver = await startReceiver();
    await step('register a webhook to a local receiver', async () =>
      expectStatus('webhook', await call('POST', '/v1/webhooks', { token, body: { endpoint_url: `${receiver!.origin}/hook`, events: ['operation.accepted', 'agent.status_changed'], secret } }), 201),
    );
  }
  try {
    const start = Date.now() - 1_000;
    let jwks = await ledger.jwks();
    const operations: string[] = [];
    await step('submit three chained operations; each receipt verifies offline against the JWKS (KMS Sign)', async () => {
      for (const [index, command] of ['git status', 'npm test', 'git push'].entries()) {
        const { record, receipt } = await ledger.submit(agent, { operation_type: 'shell.exec', subject: { kind: 'repository', id: 'acme/rehearsal' }, action: { tool: 'Bash', step: index + 1 }, payload: { command } });
        // An unknown kid sends a verifier to the JWKS again (SECURITY.md, "Receipt signing
        // modes": with receiptSigner=envelope the key joins it with its first receipt).
        if (!jwks.keys.some((jwk) => jwk.kid === receipt.service_kid)) jwks = await ledger.jwks();
        if (!verifyReceipt(receipt, jwks, { record, agentPublicKey: key.publicKey }).valid) throw new StepError(`receipt of ${record.operation_id} does not verify offline`);
        operations.push(record.operation_id);
      }
    });
    await step('seal the epoch (the schedule) and verify an operation with its Merkle proof', async () => {
      const target = operations[0]!;
      const proof = await until('an inclusion proof', hooks.sealTimeoutMs, async () => {
        await hooks.seal();
        const result = await ledger.verifyOperation(target);
        return result.proof ? result : undefined;
      });
      const operation = await ledger.getOperation(target);
      if (!proof.valid || !verifyInclusionProof(operation.operation.chain_hash, proof.proof!)) throw new StepError(`verify ${target}: ${JSON.stringify(proof.checks)}`);
    });
    await step('audit query', async () => {
      const res = expectStatus('audit query', await call('POST', '/v1/audit/query', { token, body: { agent_id: agentId, start_time: start } }), 200);
      const found = (res.json.operations as { operation_id: string }[]).map((operation) => operation.operation_id);
      if (!operations.every((id) => found.includes(id))) throw new StepError(`audit query found ${found.length} of the ${operations.length} operations`);
    });
    for (const format of ['json', 'pdf'] as const) {
      await step(`${format.toUpperCase()} export, downloaded through its presigned URL (SQS → the exports worker → S3)`, async () => {
        const created = expectStatus('export', await call('POST', '/v1/exports', { token, body: { start_time: start, end_time: Date.now() + 1_000, format } }), 201);
        const exportId = created.json.export.export_id as string;
        await until(`export ${exportId} done`, 120_000, async () => {
          const res = expectStatus('export status', await call('GET', `/v1/exports/${exportId}`, { token }), 200);
          if (res.json.export.status === 'failed') throw new StepError(`export ${exportId} failed: ${res.text}`);
          return res.json.export.status === 'done' ? true : undefined;
        });
        const redirect = expectStatus('download', await call('GET', `/v1/exports/${exportId}/download`, { token }), 302);
        const file = await fetch(redirect.headers.get('location')!);
        if (file.status !== 200) throw new StepError(`presigned download answered ${file.status}`);
        const bytes = new Uint8Array(await file.arrayBuffer());
        if (format === 'json') {
          const report = verifyExportBundle(bytes);
          if (!report.valid) throw new StepError(`the JSON export does not verify: ${JSON.stringify(report.findings.filter((finding) => finding.status === 'failed'))}`);
        } else if (Buffer.from(bytes.subarray(0, 5)).toString('latin1') !== '%PDF-') {
          throw new StepError('the PDF export is not a PDF');
        }
      });
    }
    await step('erase a payload the exports held: they are withdrawn, their files destroyed (ListObjectVersions, DeleteObjectVersion)', async () => {
      const erased = operations[0]!;
      expectStatus('erase', await call('POST', `/v1/operations/${erased}/erase-payload`, { token, body: { reason: 'rehearsal' } }), 200);
      const listed = expectStatus('exports', await call('GET', '/v1/exports', { token }), 200).json.exports as { export_id: string; withdrawn?: { operation_id: string } }[];
      const withdrawn = listed.filter((item) => item.withdrawn?.operation_id === erased);
      if (withdrawn.length !== 2) throw new StepError(`${withdrawn.length} of the 2 exports withdrawn: ${JSON.stringify(listed)}`);
      const refused = await call('GET', `/v1/exports/${withdrawn[0]!.export_id}/download`, { token });
      if (refused.status !== 410 || refused.json.error?.code !== 'EXPORT_WITHDRAWN') throw new StepError(`the download of a withdrawn export answered ${refused.status}: ${refused.text}`);
    });
    if (receiver) {
      await step('webhook deliveries arrive signed (stream → events queue → fan-out → deliveries queue → delivery)', async () => {
        await until('three operation.accepted deliveries', 120_000, async () => {
          const accepted = receiver!.received.filter((delivery) => JSON.parse(delivery.body).event === 'operation.accepted');
          return accepted.length >= operations.length ? accepted : undefined;
        });
        if (!receiver!.received.every((delivery) => signatureValid(secret, delivery))) throw new StepError('a delivery carries a bad signature');
      });
    }
    await step('freeze the agent; its next submission is refused', async () => {
      expectStatus('freeze', await call('POST', `/v1/agents/${agentId}/freeze`, { token, body: { reason: 'rehearsal' } }), 200);
      const refused = await ledger.submit(agent, { operation_type: 'shell.exec', subject: { kind: 'repository', id: 'acme/rehearsal' }, action: { tool: 'Bash' }, payload: { command: 'rm -rf /' } }).then(
        () => undefined,
        (error: Error) => error,
      );
      if (!refused) throw new StepError('a frozen agent submitted an operation');
      if (!/AGENT_FROZEN|frozen|403|409|423/i.test(refused.message)) throw new StepError(`refused for another reason: ${refused.message}`);
    });
  } finally {
    await receiver?.close();
  }
}
