/**
 * An AWS configuration for code that reads config.ts but touches no table, bucket, key or
 * queue (a bundle being loaded): every required variable with a placeholder value, KMS key
 * ids and SQS queue URLs as in AWS. Unit tests on the local configuration use
 * local-config.ts.
 */
export const AWS_PLACEHOLDER_ENV: Readonly<Record<string, string>> = {
  LEDGER_TABLE: 'placeholder',
  LEDGER_DATA_BUCKET: 'placeholder',
  LEDGER_ANCHORS_BUCKET: 'placeholder',
  LEDGER_SIGNER_KEY_ID: 'alias/placeholder',
  LEDGER_SECRETS_KEY_ID: 'alias/placeholder',
  LEDGER_EVENTS_QUEUE_URL: 'https://sqs.invalid/events',
  LEDGER_EXPORTS_QUEUE_URL: 'https://sqs.invalid/exports',
  LEDGER_DELIVERIES_QUEUE_URL: 'https://sqs.invalid/deliveries',
  LEDGER_DELIVERIES_DEAD_LETTER_QUEUE_URL: 'https://sqs.invalid/deliveries-dead-letters',
};
