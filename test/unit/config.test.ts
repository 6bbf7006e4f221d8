import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../lambdas/config.js';

const base = {
  LEDGER_TABLE: 't',
  LEDGER_DATA_BUCKET: 'd',
  LEDGER_ANCHORS_BUCKET: 'a',
  LEDGER_SIGNER_KEY_ID: 'arn:kms:sign',
  LEDGER_SECRETS_KEY_ID: 'arn:kms:sym',
  LEDGER_EVENTS_QUEUE_URL: 'https://sqs/events',
  LEDGER_EXPORTS_QUEUE_URL: 'https://sqs/exports',
  LEDGER_DELIVERIES_QUEUE_URL: 'https://sqs/deliveries',
  LEDGER_DELIVERIES_DEAD_LETTER_QUEUE_URL: 'https://sqs/deliveries-dlq',
};

describe('parseConfig', () => {
  it('reads the AWS configuration with documented defaults', () => {
    const config = parseConfig(base);
    expect(config).toMatchObject({
      stage: 'aws',
      signer: { kind: 'kms', keyId: 'arn:kms:sign' },
      queue: { kind: 'sqs', eventsUrl: 'https://sqs/events' },
      epochMs: 300_000,
      rateLimitRps: 100,
      maxPayloadBytes: 262_144,
      webhookAllowLoopback: false,
      tsaUrl: undefined,
    });
  });

  it('uses key files and the memory queue locally', () => {
    const config = parseConfig({
      LEDGER_STAGE: 'local',
      LEDGER_TABLE: 't',
      LEDGER_DATA_BUCKET: 'd',
      LEDGER_ANCHORS_BUCKET: 'a',
      LEDGER_SIGNER_KEY_FILE: '/k/sign.pem',
      LEDGER_SECRETS_KEY_FILE: '/k/aes.key',
      LEDGER_QUEUE: 'memory',
      LEDGER_EPOCH_MS: '2000',
      LEDGER_WEBHOOK_ALLOW_LOOPBACK: 'true',
    });
    expect(config).toMatchObject({ stage: 'local', signer: { kind: 'file', path: '/k/sign.pem' }, queue: { kind: 'memory' }, epochMs: 2000, webhookAllowLoopback: true });
  });

  it('signs with the envelope key when its wrapping key is named (receiptSigner=envelope), generation 1 unless set, never without its attestation key', () => {
    const wrap = 'arn:aws:kms:us-east-1:1:key/wrap';
    const attest = 'arn:aws:kms:us-east-1:1:key/attest';
    const envelope = { ...base, LEDGER_RECEIPT_KEY_WRAP_KEY_ID: wrap, LEDGER_RECEIPT_KEY_ATTEST_KEY_ID: attest };
    expect(parseConfig(envelope).signer).toEqual({ kind: 'envelope', wrapKeyId: wrap, attestKeyId: attest, generation: 1 });
    expect(parseConfig({ ...envelope, LEDGER_RECEIPT_KEY_GENERATION: '3' }).signer).toEqual({ kind: 'envelope', wrapKeyId: wrap, attestKeyId: attest, generation: 3 });
    expect(() => parseConfig({ ...envelope, LEDGER_RECEIPT_KEY_GENERATION: '0' })).toThrow(/LEDGER_RECEIPT_KEY_GENERATION/);
    expect(() => parseConfig({ ...base, LEDGER_RECEIPT_KEY_WRAP_KEY_ID: wrap })).toThrow(/LEDGER_RECEIPT_KEY_ATTEST_KEY_ID/);
  });

  it('reads retired receipt keys as a comma-separated list and rejects anything else', () => {
    const keys = ['11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', 'PUAXw-hDiVqStwqnTRt-vJyYLM8uxJaMwM1V8Sr0Zgw'];
    expect(parseConfig(base).retiredServiceKeys).toEqual([]);
    expect(parseConfig({ ...base, LEDGER_RETIRED_SERVICE_KEYS: ` ${keys[0]}, ${keys[1]} ` }).retiredServiceKeys).toEqual(keys);
    expect(() => parseConfig({ ...base, LEDGER_RETIRED_SERVICE_KEYS: `${keys[0]},abc` })).toThrow(/LEDGER_RETIRED_SERVICE_KEYS/);
  });

  it('names the missing variable', () => {
    const { LEDGER_TABLE: _omit, ...rest } = base;
    expect(() => parseConfig(rest)).toThrow(/LEDGER_TABLE/);
    const { LEDGER_SIGNER_KEY_ID: _s, ...noSigner } = base;
    expect(() => parseConfig(noSigner)).toThrow(/LEDGER_SIGNER_KEY_ID/);
  });

  it('rejects malformed numbers and booleans', () => {
    expect(() => parseConfig({ ...base, LEDGER_RATE_LIMIT_RPS: '0' })).toThrow(/LEDGER_RATE_LIMIT_RPS/);
    expect(() => parseConfig({ ...base, LEDGER_MAX_PAYLOAD_BYTES: '1.5' })).toThrow(/LEDGER_MAX_PAYLOAD_BYTES/);
    expect(() => parseConfig({ ...base, LEDGER_WEBHOOK_ALLOW_LOOPBACK: 'yes' })).toThrow(/LEDGER_WEBHOOK_ALLOW_LOOPBACK/);
  });
});
