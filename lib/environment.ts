/**
 * The environment every function gets: exactly the variables lambdas/config.ts reads.
 *
 * config.ts checks the key ids and both queue URLs at cold start in every function, so every
 * function gets every identifier, whether or not its route uses the resource. An identifier
 * grants nothing by itself: what a function may do is decided only by grants.ts.
 */
import type { LedgerResources } from './resources.js';
import { EPOCH, type LedgerSettings } from './settings.js';

/** Powertools' service name: the `service` key of every log line and the metric dimension. */
export const SERVICE_NAME = 'agent-ledger';

export function functionEnvironment(resources: LedgerResources, settings: LedgerSettings): Record<string, string> {
  const environment: Record<string, string> = {
    LEDGER_TABLE: resources.table.tableName,
    LEDGER_DATA_BUCKET: resources.dataBucket.bucketName,
    LEDGER_ANCHORS_BUCKET: resources.anchorsBucket.bucketName,
    LEDGER_SECRETS_KEY_ID: resources.secretsKey.keyArn,
    LEDGER_EVENTS_QUEUE_URL: resources.queues.events.queueUrl,
    LEDGER_EXPORTS_QUEUE_URL: resources.queues.exports.queueUrl,
    LEDGER_DELIVERIES_QUEUE_URL: resources.queues.deliveries.queueUrl,
    // The delivery worker moves a delivery's message here itself after its last attempt (docs/WEBHOOKS.md).
    LEDGER_DELIVERIES_DEAD_LETTER_QUEUE_URL: resources.deadLetterQueues.deliveries.queueUrl,
    LEDGER_EPOCH_MS: String(EPOCH.toMilliseconds()),
    LEDGER_EPOCH_GRACE_MS: String(settings.epochGraceMs),
    LEDGER_RATE_LIMIT_RPS: String(settings.rateLimitRps),
    LEDGER_NEW_KEYS_PER_MEMBER_PER_DAY: String(settings.newKeysPerMemberPerDay),
    LEDGER_ATTEMPTS_PER_AGENT_PER_DAY: String(settings.attemptsPerAgentPerDay),
    LEDGER_ATTEMPTS_PER_ORG_PER_DAY: String(settings.attemptsPerOrgPerDay),
    LEDGER_MAX_PAYLOAD_BYTES: String(settings.maxPayloadBytes),
    // Stack traces of the minified bundles point at the TypeScript sources.
    NODE_OPTIONS: '--enable-source-maps',
    POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
  };
  // The receipt signer (lambdas/config.ts): the envelope key's wrapping key, attestation key and generation, or the KMS signing key.
  if (resources.receiptKey) {
    environment.LEDGER_RECEIPT_KEY_WRAP_KEY_ID = resources.receiptKey.wrapKey.keyArn;
    environment.LEDGER_RECEIPT_KEY_ATTEST_KEY_ID = resources.receiptKey.attestKey.keyArn;
    environment.LEDGER_RECEIPT_KEY_GENERATION = String(resources.receiptKey.generation);
  } else {
    environment.LEDGER_SIGNER_KEY_ID = resources.signerKey.keyArn;
  }
  // Unset means "seal without an RFC 3161 anchor" (docs/API.md §2.11: the anchor is optional);
  // config.ts treats a missing and an empty value alike, so the variable is simply left out.
  if (settings.tsaUrl !== undefined) environment.LEDGER_TSA_URL = settings.tsaUrl;
  if (settings.retiredServiceKeys.length > 0) environment.LEDGER_RETIRED_SERVICE_KEYS = settings.retiredServiceKeys.join(',');
  return environment;
}
