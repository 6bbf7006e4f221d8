/**
 * The deployment knobs: CDK context values (cdk.json, or `cdk synth -c key=value`), read and
 * checked once so a typo fails the synth instead of deploying a wrong retention. Values from
 * cdk.json arrive as JSON numbers, values from `-c` as strings; both are accepted.
 */
import { Duration } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/**
 * The epoch length E. docs/PROTOCOL.md (Merkle epochs) and docs/API.md §6 fix it at 5 minutes in
 * AWS; the EventBridge schedule and LEDGER_EPOCH_MS are both derived from this one value
 * so the sealer and the handlers can never disagree about window boundaries.
 */
export const EPOCH = Duration.minutes(5);

export interface LedgerSettings {
  /** Object Lock COMPLIANCE retention of the anchors bucket, in days. */
  readonly epochRetentionDays: number;
  /** RFC 3161 time-stamp authority; undefined means epochs are sealed without an anchor. */
  readonly tsaUrl: string | undefined;
  /** Grace after an epoch window closes before it is sealed (late, clock-skewed submissions). */
  readonly epochGraceMs: number;
  /** Per-organization request rate (docs/API.md §8 leaves the number open). */
  readonly rateLimitRps: number;
  /** New agent keys one member may register per UTC day (docs/API.md §8): bounds the key history. */
  readonly newKeysPerMemberPerDay: number;
  /** Refused attempts kept per agent and per organization per UTC day (docs/API.md §4.3 "Refused attempts"). */
  readonly attemptsPerAgentPerDay: number;
  readonly attemptsPerOrgPerDay: number;
  /** Largest accepted payload (docs/API.md §8 leaves it open; docs/PROTOCOL.md default 256 KiB). */
  readonly maxPayloadBytes: number;
  /**
   * Raw base64url public keys of retired receipt-signing keys, still published in the JWKS
   * (docs/PROTOCOL.md, Receipt). After replacing the signer key, list the old key's public half here.
   */
  readonly retiredServiceKeys: readonly string[];
  /**
   * How receipts are signed (SECURITY.md, "Receipt signing modes"): `kms`, a KMS `Sign` per
   * receipt with a key that never leaves KMS; `envelope`, an Ed25519 key whose seed is stored
   * encrypted under a KMS key only the signing functions may decrypt, decrypted once per
   * process and used in memory (no KMS request per receipt; docs/COST.md).
   */
  readonly receiptSigner: ReceiptSignerMode;
  /**
   * With `envelope`, the generation of the receipt key the signing functions use: raise it by
   * one to rotate (docs/DEPLOY.md, Rotating the receipt key). Every generation stays in the JWKS.
   */
  readonly receiptKeyGeneration: number;
  /** Where alarm notifications are mailed (an SNS e-mail subscription); undefined = the topic only. */
  readonly alarmEmail: string | undefined;
  /** The only role that may disable the receipt-signing key or schedule its deletion (keys.ts). */
  readonly breakGlassRoleArn: string | undefined;
  /** Days a replaced or deleted object version of the data bucket is kept before it expires. */
  readonly dataNoncurrentVersionDays: number;
  /** Daily AWS Backup of the table (backup.ts), on top of point-in-time recovery. */
  readonly tableBackup: boolean;
  /** Days each daily backup is kept. */
  readonly tableBackupRetentionDays: number;
  /** Vault Lock of the backup vault: none, governance (removable with IAM permission) or compliance (permanent after 3 days). */
  readonly tableBackupVaultLock: VaultLockMode;
  /**
   * API Gateway's throttle of POST /v1/operations (requests per second, and burst): every
   * submission asks KMS for one Sign, and KMS throttles asymmetric ECC requests above the
   * account's quota in the region (300 per second by default; docs/COST.md, KMS quota). Kept
   * below it, a burst is answered 429 by API Gateway instead of reaching KMS; raise both with
   * the quota.
   */
  readonly submitRateLimit: number;
  readonly submitBurstLimit: number;
}

export const RECEIPT_SIGNER_MODES = ['kms', 'envelope'] as const;
export type ReceiptSignerMode = (typeof RECEIPT_SIGNER_MODES)[number];

export const VAULT_LOCK_MODES = ['none', 'governance', 'compliance'] as const;
export type VaultLockMode = (typeof VAULT_LOCK_MODES)[number];

/** Defaults, mirrored in cdk.json so an operator sees every knob in one place. */
export const DEFAULT_SETTINGS: LedgerSettings = {
  epochRetentionDays: 365,
  tsaUrl: undefined,
  epochGraceMs: 60_000,
  rateLimitRps: 100,
  newKeysPerMemberPerDay: 2000,
  attemptsPerAgentPerDay: 1000,
  attemptsPerOrgPerDay: 10_000,
  maxPayloadBytes: 256 * 1024,
  retiredServiceKeys: [],
  receiptSigner: 'kms',
  receiptKeyGeneration: 1,
  alarmEmail: undefined,
  breakGlassRoleArn: undefined,
  dataNoncurrentVersionDays: 90,
  tableBackup: false,
  tableBackupRetentionDays: 35,
  tableBackupVaultLock: 'none',
  submitRateLimit: 250,
  submitBurstLimit: 250,
};

/** A context value, undefined when absent or empty (cdk.json lists every key, empty when unset). */
export function contextValue(scope: Construct, key: string): unknown {
  const raw: unknown = scope.node.tryGetContext(key);
  return raw === undefined || raw === null || raw === '' ? undefined : raw;
}

/** A string context value matching `pattern` (described by `what` in the error). */
export function matching(scope: Construct, key: string, pattern: RegExp, what: string): string | undefined {
  const raw = contextValue(scope, key);
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !pattern.test(raw)) throw new Error(`context ${key} must be ${what}, got ${JSON.stringify(raw)}`);
  return raw;
}

/** An e-mail address as SES and SNS take it: one @, no spaces. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A true/false context value (`-c key=true` arrives as a string). */
export function flag(scope: Construct, key: string, fallback = false): boolean {
  const raw = contextValue(scope, key);
  if (raw === undefined) return fallback;
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw new Error(`context ${key} must be true or false, got ${JSON.stringify(raw)}`);
}

function oneOf<const T extends string>(scope: Construct, key: string, values: readonly T[], fallback: T): T {
  const raw = contextValue(scope, key);
  if (raw === undefined) return fallback;
  if (!values.includes(raw as T)) throw new Error(`context ${key} must be one of ${values.join(', ')}, got ${JSON.stringify(raw)}`);
  return raw as T;
}

function integer(scope: Construct, key: string, fallback: number, min: number): number {
  const raw = contextValue(scope, key);
  if (raw === undefined) return fallback;
  const value = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new Error(`context ${key} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function url(scope: Construct, key: string): string | undefined {
  return matching(scope, key, /^https?:\/\/\S+$/, 'an http(s) URL');
}

function publicKeys(scope: Construct, key: string): string[] {
  const raw = contextValue(scope, key);
  if (raw === undefined) return [];
  const keys = (Array.isArray(raw) ? raw : String(raw).split(',')).map((entry) => String(entry).trim());
  for (const entry of keys) {
    if (!/^[A-Za-z0-9_-]{43}$/.test(entry)) {
      throw new Error(`context ${key} must list base64url Ed25519 public keys, got ${JSON.stringify(entry)}`);
    }
  }
  return keys;
}

/**
 * Context `sdkTracing`: bundle the X-Ray SDK so every SDK call is an X-Ray subsegment
 * (lambdas/tracer.ts, lib/bundling.ts). Off by default: it adds the X-Ray SDK to every
 * function's bundle, and so to its cold start (docs/ARCHITECTURE.md, Logs and metrics), while
 * active tracing records each invocation without it; test/infra/bundle-size.test.ts holds the
 * bundles to leaving it out.
 */
export function readSdkTracing(scope: Construct): boolean {
  return flag(scope, 'sdkTracing');
}

export function readSettings(scope: Construct): LedgerSettings {
  return {
    // S3 Object Lock accepts 1 day up to 100 years of default retention.
    epochRetentionDays: integer(scope, 'epochRetentionDays', DEFAULT_SETTINGS.epochRetentionDays, 1),
    tsaUrl: url(scope, 'tsaUrl'),
    epochGraceMs: integer(scope, 'epochGraceMs', DEFAULT_SETTINGS.epochGraceMs, 0),
    rateLimitRps: integer(scope, 'rateLimitRps', DEFAULT_SETTINGS.rateLimitRps, 1),
    newKeysPerMemberPerDay: integer(scope, 'newKeysPerMemberPerDay', DEFAULT_SETTINGS.newKeysPerMemberPerDay, 1),
    attemptsPerAgentPerDay: integer(scope, 'attemptsPerAgentPerDay', DEFAULT_SETTINGS.attemptsPerAgentPerDay, 1),
    attemptsPerOrgPerDay: integer(scope, 'attemptsPerOrgPerDay', DEFAULT_SETTINGS.attemptsPerOrgPerDay, 1),
    maxPayloadBytes: integer(scope, 'maxPayloadBytes', DEFAULT_SETTINGS.maxPayloadBytes, 1),
    retiredServiceKeys: publicKeys(scope, 'retiredServiceKeys'),
    receiptSigner: oneOf(scope, 'receiptSigner', RECEIPT_SIGNER_MODES, DEFAULT_SETTINGS.receiptSigner),
    receiptKeyGeneration: integer(scope, 'receiptKeyGeneration', DEFAULT_SETTINGS.receiptKeyGeneration, 1),
    alarmEmail: matching(scope, 'alarmEmail', EMAIL_PATTERN, 'an e-mail address'),
    breakGlassRoleArn: matching(scope, 'breakGlassRoleArn', /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/, 'an IAM role ARN'),
    dataNoncurrentVersionDays: integer(scope, 'dataNoncurrentVersionDays', DEFAULT_SETTINGS.dataNoncurrentVersionDays, 1),
    tableBackup: flag(scope, 'tableBackup'),
    // AWS Backup keeps a recovery point at least 1 day.
    tableBackupRetentionDays: integer(scope, 'tableBackupRetentionDays', DEFAULT_SETTINGS.tableBackupRetentionDays, 1),
    tableBackupVaultLock: oneOf(scope, 'tableBackupVaultLock', VAULT_LOCK_MODES, DEFAULT_SETTINGS.tableBackupVaultLock),
    submitRateLimit: integer(scope, 'submitRateLimit', DEFAULT_SETTINGS.submitRateLimit, 1),
    submitBurstLimit: integer(scope, 'submitBurstLimit', DEFAULT_SETTINGS.submitBurstLimit, 1),
  };
}
