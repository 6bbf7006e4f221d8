/**
 * Configurations for code that reads config.ts but touches no table, bucket, key or queue:
 * every required variable of config.ts with a placeholder value (nothing is ever called).
 */

/** As in AWS: KMS key ids and SQS queue URLs. */
export const AWS_PLACEHOLDER_ENV: Readonly<Record<string, string>> = {
  LEDGER_TABLE: 'placeholder',
  LEDGER_DATA_BUCKET: 'placeholder',
  LEDGER_ANCHORS_BUCKET: 'placeholder',
  LEDGER_SIGNER_KEY_ID: 'alias/placeholder',
  LEDGER_SECRETS_KEY_ID: 'alias/placeholder',
  LEDGER_EVENTS_QUEUE_URL: 'https://sqs.invalid/events',
  LEDGER_EXPORTS_QUEUE_URL: 'https://sqs.invalid/exports',
};

/** As on the local stack: key files (never read) and the in-process queue. */
export const LOCAL_PLACEHOLDER_ENV: Readonly<Record<string, string>> = {
  LEDGER_STAGE: 'local',
  LEDGER_TABLE: 'placeholder',
  LEDGER_DATA_BUCKET: 'placeholder',
  LEDGER_ANCHORS_BUCKET: 'placeholder',
  LEDGER_SIGNER_KEY_FILE: '/nonexistent/signer.key',
  LEDGER_SECRETS_KEY_FILE: '/nonexistent/secrets.key',
  LEDGER_QUEUE: 'memory',
};
