/**
 * The acceptance set: the e2e files that test the API contract over HTTP alone, so they pass
 * against any running server (docs/TESTING.md, Acceptance set; `npm run test:acceptance`), `npm start`, the
 * deploy rehearsal or a deployed stack, in URL mode (test/support/ledger-url.ts). Each test
 * works in organizations of its own, so the files share one server.
 *
 * Every file of test/e2e/ is in one of the two lists (test/unit/acceptance-files.test.ts
 * checks it): a new e2e file says which it is.
 */

/** Files of test/e2e/ that run against a server at LEDGER_TEST_BASE_URL as they run in process. */
export const ACCEPTANCE_FILES = [
  'cross-site-writes.test.ts',
  'dev-sign-in-off.test.ts',
  'malformed-requests.test.ts',
  'members-assignments.test.ts',
  'members.test.ts',
  'onboarding.test.ts',
  'operation-access-roles-and-tenancy.test.ts',
  'receipt-offline-verify.test.ts',
  'record-nesting.test.ts',
  'require-key-proof.test.ts',
  'roles.test.ts',
  'token-management.test.ts',
  'v1-original-contract.test.ts',
  'weak-agent-keys.test.ts',
] as const;

/** Files of test/e2e/ that need the in-process stack, and why. */
export const IN_PROCESS_ONLY: Record<string, string> = {
  'activity-stats.test.ts': 'needs 1-second epochs (LEDGER_EPOCH_MS=1000) to see its operations sealed within the test',
  'agent-key-history.test.ts': "reads the organization's key events straight from the table",
  'audit-page-bytes.test.ts': 'needs a rate limit that lets 50 records of 64 KiB through at once (LEDGER_RATE_LIMIT_RPS=100000)',
  'webhook-cap.test.ts': 'registers its webhooks at a loopback address (LEDGER_WEBHOOK_ALLOW_LOOPBACK=1)',
  'agent-lifecycle.test.ts': 'watches the in-process queue for the events each change sends',
  'audit-query.test.ts': 'seeds backdated operations straight into the table (no API makes an operation of last month)',
  'auth-social.test.ts': "drives the local stack's development sign-in (LEDGER_DEV_OAUTH=1), never deployed",
  'auth-tokens.test.ts': 'needs a 2-second rotation grace (LEDGER_TOKEN_GRACE_SECONDS=2) to see the old token end',
  'auth-verify-email.test.ts': "checks the local identity provider's verification tokens and mail throttle from inside",
  'cli-export-verify.test.ts': 'seeds backdated operations straight into the table',
  'client-address-limit.test.ts': 'fills the per-address sign-in counters in the table',
  'console-serving.test.ts': 'serves a console directory of its own making (in AWS CloudFront serves the console from S3)',
  'destroyed-payload.test.ts': 'deletes and overwrites payloads straight in the data bucket and the table, as an insider with write access to them',
  'erase-running-export.test.ts': 'runs the exports worker itself, so that an erasure lands between two of its runs',
  'epoch-sealing-and-reading.test.ts': 'seals on demand through the in-process schedule and watches the queue',
  'erase-payload.test.ts': 'seals on demand through the in-process schedule',
  'events-outbox.test.ts': "restarts the stream poller and reads the table's stream",
  'export-during-seal.test.ts': 'runs the sealer from inside the DynamoDB client at chosen moments of an export',
  'export-fairness.test.ts': 'seeds operations straight into the table',
  'export-worker-crash.test.ts': 'kills an export worker process mid-export',
  'exports.test.ts': 'seeds backdated operations and seals on demand through the in-process schedule',
  'refused-attempts.test.ts': 'needs a bound of 5 kept attempts per agent and day (LEDGER_ATTEMPTS_PER_AGENT_PER_DAY=5), and a rate limit that lets 200 concurrent submissions through (LEDGER_RATE_LIMIT_RPS=100000)',
  'key-history-bounds.test.ts': 'needs a quota of 30 new agent keys per member and day (LEDGER_NEW_KEYS_PER_MEMBER_PER_DAY=30), and reads the key events from the table',
  'key-end-after-accepted.test.ts': "submits records from inside the server's table client, just before a key change's transaction goes out",
  'key-possession-shown.test.ts': 'removes and forges possession_proven straight in the table, as an insider with table write access',
  'invitation-expiry.test.ts': 'writes a week-old invitation straight into the table',
  'hot-path-caches.test.ts': 'spies on the caller lookup inside the server',
  'link-origin.test.ts': "checks the links of the local identity provider's mails (in AWS Cognito mails a code, not this link)",
  'local-engines-setup.test.ts': 'tests the local engines themselves',
  'local-queue-workers-and-schedule.test.ts': 'tests the in-process queue workers and schedule themselves',
  'local-server-events-and-responses.test.ts': "tests npm start's HTTP server itself",
  'npm-start.test.ts': 'starts npm start itself',
  'operation-read-and-verify.test.ts': 'tampers with stored operations in the table',
  'rate-limit.test.ts': 'needs a rate limit of 5 per second (LEDGER_RATE_LIMIT_RPS=5)',
  'refused-payloads.test.ts': 'reads the data bucket to check nothing was written',
  'served-client.test.ts': 'serves the client files this checkout builds (in AWS they are in the console bucket, lib/console.ts)',
  'request-hardening.test.ts': "reads the local identity provider's stored password hashes",
  'submission-concurrency.test.ts': 'spies on table writes inside the server',
  'submission-faults.test.ts': 'injects faults into the table, bucket and signer inside the server',
  'submission-rules.test.ts': 'watches the in-process queue and drains the stream poller',
  'test-stack-isolation.test.ts': 'tests the in-process test stack itself',
  'weak-stored-key.test.ts': 'writes a weak key straight into the table',
  'webhooks-delivery.test.ts': 'drives deliveries through the in-process queue and its retry timing',
  'webhooks-egress-and-input.test.ts': "resolves webhook hosts through a fake DNS inside the server",
};
