/**
 * Service configuration, read from the environment once at cold start (docs/ARCHITECTURE.md,
 * Conventions). A missing required variable throws naming it, so a misconfigured function
 * fails its first request loudly instead of misbehaving later.
 *
 * The CDK stack (lib/) and the local stack (local/) set the same variables; docs/CONFIGURATION.md lists
 * every variable (test/unit/configuration-doc.test.ts holds it to this file).
 */

export type Stage = 'aws' | 'local';

export type EncryptorConfig = { kind: 'kms'; keyId: string } | { kind: 'file'; path: string };
/**
 * The receipt signer (SECURITY.md, "Receipt signing modes"): a KMS signing key, or the envelope
 * key (an Ed25519 seed encrypted under the symmetric `wrapKeyId`, one per `generation`), or a
 * key file on one machine.
 */
export type SignerConfig = EncryptorConfig | { kind: 'envelope'; wrapKeyId: string; attestKeyId: string; generation: number };
export type QueueConfig =
  | { kind: 'sqs'; eventsUrl: string; deliveriesUrl: string; exportsUrl: string; deliveriesDeadLetterUrl: string }
  | { kind: 'memory' };
/**
 * Who checks passwords and runs social sign-in (docs/ARCHITECTURE.md, Cognito vs local identity
 * provider). Only functions whose route uses 'identity' get the Cognito variables, so the
 * rest see `none` in AWS and fail loudly if they ever ask for the provider.
 */
export type IdentityConfig =
  | {
      kind: 'cognito';
      userPoolId: string;
      clientId: string;
      /** Hosted UI domain (host name); social sign-in needs it. */
      domain: string | undefined;
      /** Federated providers the user pool has (lib/identity.ts sets this from what it created). */
      socialProviders: readonly ('google' | 'github')[];
    }
  | { kind: 'local' }
  | { kind: 'none' };

export interface Config {
  stage: Stage;
  version: string;
  region: string;
  tableName: string;
  /** Payloads, receipts and exports (prefixes payloads/, receipts/, exports/). */
  dataBucket: string;
  /** Epoch leaf lists; Object Lock in compliance mode in AWS. */
  anchorsBucket: string;
  /** Local endpoints (DynamoDB Local, s3rver); undefined in AWS. */
  dynamoEndpoint: string | undefined;
  s3Endpoint: string | undefined;
  signer: SignerConfig;
  /**
   * Raw public keys (base64url) of retired receipt-signing keys. docs/PROTOCOL.md (Receipt): a
   * retired service key stays listed in the JWKS so receipts it signed keep verifying.
   */
  retiredServiceKeys: string[];
  encryptor: EncryptorConfig;
  queue: QueueConfig;
  epochMs: number;
  epochGraceMs: number;
  tsaUrl: string | undefined;
  rateLimitRps: number;
  /** LEDGER_NEW_KEYS_PER_MEMBER_PER_DAY: agent keys one member may register per UTC day (docs/API.md §8). */
  newKeysPerMemberPerDay: number;
  /**
   * LEDGER_ATTEMPTS_PER_AGENT_PER_DAY and LEDGER_ATTEMPTS_PER_ORG_PER_DAY: refused attempts
   * kept per agent and per organization per UTC day (docs/API.md §4.3 "Refused attempts").
   */
  attemptsPerAgentPerDay: number;
  attemptsPerOrgPerDay: number;
  maxPayloadBytes: number;
  /**
   * LEDGER_INLINE_PAYLOAD_BYTES: canonical payloads up to this size are kept in the operation
   * row, larger ones in the data bucket (docs/COST.md, Payloads: where a write unit costs less
   * than an S3 PUT over the payload's life).
   */
  inlinePayloadBytes: number;
  /**
   * LEDGER_CALLER_CACHE_MS: how long a process trusts what it read about an API token and its
   * user (docs/COST.md, Caches): a revoked token, a removed member or a changed role takes
   * effect within this time. 0 reads them on every request.
   */
  callerCacheMs: number;
  /**
   * LEDGER_EPOCH_SETTLE_MS: how long the sealer waits after raising an organization's fence
   * before it reads the window, so that the time index shows every operation committed before
   * the fence (global secondary indexes are eventually consistent; DynamoDB's guide puts their
   * lag under a second). Default 1000 in AWS, 0 on the local stack, whose DynamoDB Local
   * updates indexes with the write.
   */
  epochSettleMs: number;
  webhookAllowLoopback: boolean;
  identity: IdentityConfig;
  /** How long a rotated API token keeps working (docs/API.md §4.1 previous_token_grace_until; default 1 hour, docs/CONFIGURATION.md). */
  tokenGraceSeconds: number;
  /** Origins social sign-in may redirect to (callbackURL); empty = any absolute http(s) URL. */
  authCallbackOrigins: readonly string[];
  /**
   * LEDGER_DEV_OAUTH=1: the development OAuth provider of the local stack, which signs in as
   * any address typed on its page (never as an account with a password). Off unless asked
   * for; refused outside the local stack, and its routes are never deployed (route-spec.ts
   * `localOnly`).
   */
  devOAuth: boolean;
  /**
   * LEDGER_PUBLIC_URL: the API's public base URL (no trailing slash). Every link the service
   * hands out (verification mails, the social sign-in redirect URI) is built from it, never
   * from the request's Host header, which the client chooses. The CDK stack sets it (context
   * publicUrl, else the API's own URL); the local stack sets http://127.0.0.1:$PORT unless
   * the variable is given. Undefined only where nothing builds links.
   */
  publicUrl: string | undefined;
  /**
   * LEDGER_SCRYPT_N: scrypt's cost N for new local password hashes (local identity provider
   * only; r=8, p=1). The default 2^17 is OWASP's; a test suite that signs up hundreds of
   * users may lower it, never below 2^14.
   */
  scryptN: number;
  /**
   * LEDGER_EXPORT_RUN_SECONDS: how long one run of the exports worker writes before it saves
   * and re-queues the rest (domain/exports/run-export.ts). Unset: until a margin before the
   * Lambda deadline. Short values make the continuation easy to watch and test locally.
   */
  exportRunSeconds: number | undefined;
  /** LEDGER_EXPORT_PART_MB: the multipart upload's part size, at least S3's minimum of 5 MiB (default 8). */
  exportPartBytes: number;
}

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function required(env: Env, name: string): string {
  const value = env[name];
  if (value === undefined || value === '') {
    throw new ConfigError(`missing required environment variable ${name}`);
  }
  return value;
}

function positiveInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new ConfigError(`${name} must be a positive integer, got "${raw}"`);
  }
  return value;
}

function nonNegativeInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ConfigError(`${name} must be a non-negative integer, got "${raw}"`);
  }
  return value;
}

function bool(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new ConfigError(`${name} must be true/false/1/0, got "${raw}"`);
}

/** A comma-separated list of base64url Ed25519 public keys (43 characters each). */
function publicKeyList(env: Env, name: string): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  const keys = raw.split(',').map((key) => key.trim());
  for (const key of keys) {
    if (!/^[A-Za-z0-9_-]{43}$/.test(key)) {
      throw new ConfigError(`${name} must list base64url Ed25519 public keys separated by commas, got "${key}"`);
    }
  }
  return keys;
}

/** The envelope key when its wrapping key is named (CDK context receiptSigner=envelope), else a KMS key or a key file. */
function signerSource(env: Env): SignerConfig {
  const wrapKeyId = env.LEDGER_RECEIPT_KEY_WRAP_KEY_ID;
  if (wrapKeyId) {
    // The generations' public halves are published only with this key's attestation (SECURITY.md, "Receipt signing modes").
    const attestKeyId = env.LEDGER_RECEIPT_KEY_ATTEST_KEY_ID;
    if (!attestKeyId) throw new ConfigError('LEDGER_RECEIPT_KEY_ATTEST_KEY_ID must name the receipt keys\' attestation key when LEDGER_RECEIPT_KEY_WRAP_KEY_ID is set');
    return { kind: 'envelope', wrapKeyId, attestKeyId, generation: positiveInt(env, 'LEDGER_RECEIPT_KEY_GENERATION', 1) };
  }
  return keySource(env, 'LEDGER_SIGNER_KEY_ID', 'LEDGER_SIGNER_KEY_FILE');
}

/** Key signer: a KMS key id in AWS, a key file on one machine. */
function keySource(env: Env, kmsVar: string, fileVar: string): EncryptorConfig {
  const keyId = env[kmsVar];
  if (keyId) return { kind: 'kms', keyId };
  const path = env[fileVar];
  if (path) return { kind: 'file', path };
  throw new ConfigError(`missing required environment variable ${kmsVar} (or ${fileVar} locally)`);
}

function identitySource(env: Env, stage: Stage): IdentityConfig {
  const kind = env.LEDGER_IDENTITY || (stage === 'local' ? 'local' : 'none');
  if (kind === 'local') return { kind: 'local' };
  if (kind === 'none') return { kind: 'none' };
  if (kind !== 'cognito') throw new ConfigError(`LEDGER_IDENTITY must be cognito or local, got "${kind}"`);
  return {
    kind: 'cognito',
    userPoolId: required(env, 'LEDGER_USER_POOL_ID'),
    clientId: required(env, 'LEDGER_USER_POOL_CLIENT_ID'),
    // The hosted UI domain; without it social sign-in is off (email and password still work).
    domain: env.LEDGER_USER_POOL_DOMAIN || undefined,
    socialProviders: (env.LEDGER_SOCIAL_PROVIDERS ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '')
      .map((name) => {
        if (name !== 'google' && name !== 'github') throw new ConfigError(`LEDGER_SOCIAL_PROVIDERS lists google and github only, got "${name}"`);
        return name;
      }),
  };
}

/** Comma-separated origins, each checked to be one (scheme://host[:port], nothing else). */
function origins(env: Env, name: string): string[] {
  const raw = env[name];
  if (!raw) return [];
  return raw.split(',').map((entry) => {
    const value = entry.trim();
    let origin: string;
    try {
      origin = new URL(value).origin;
    } catch {
      throw new ConfigError(`${name} must list origins like https://app.example.com, got "${value}"`);
    }
    if (origin !== value.replace(/\/$/, '')) throw new ConfigError(`${name} must list origins only, got "${value}"`);
    return origin;
  });
}

/** An http(s) base URL without credentials, query or fragment; returned without a trailing slash. */
function baseUrl(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL like https://ledger.example.com, got "${raw}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.search || url.hash) {
    throw new ConfigError(`${name} must be an http(s) URL without credentials, query or fragment, got "${raw}"`);
  }
  return url.href.replace(/\/+$/, '');
}

/** LEDGER_SCRYPT_N: a power of two from 2^14 to 2^20. */
function scryptCost(env: Env, name: string): number {
  const value = positiveInt(env, name, 2 ** 17);
  if (value < 2 ** 14 || value > 2 ** 20 || (value & (value - 1)) !== 0) {
    throw new ConfigError(`${name} must be a power of two from 16384 to 1048576, got "${env[name]}"`);
  }
  return value;
}

/** S3 refuses parts under 5 MiB (all but the last), and 10,000 parts must hold the largest export. */
function exportPartBytes(env: Env, name: string): number {
  const mib = positiveInt(env, name, 8);
  if (mib < 5 || mib > 512) throw new ConfigError(`${name} must be 5 to 512 (MiB), got "${env[name]}"`);
  return mib * 1024 * 1024;
}

/** LEDGER_DEV_OAUTH: only the local stack with the local identity provider may turn it on. */
function devOAuth(env: Env, stage: Stage, identity: IdentityConfig): boolean {
  if (!bool(env, 'LEDGER_DEV_OAUTH')) return false;
  if (stage !== 'local' || identity.kind !== 'local') {
    throw new ConfigError('LEDGER_DEV_OAUTH is for the local stack only (npm start); it signs in as anyone');
  }
  return true;
}

/** Parses and checks a configuration from an environment. Pure, so tests can feed it maps. */
export function parseConfig(env: Env): Config {
  const stage: Stage = env.LEDGER_STAGE === 'local' ? 'local' : 'aws';
  const queue: QueueConfig =
    env.LEDGER_QUEUE === 'memory'
      ? { kind: 'memory' }
      : {
          kind: 'sqs',
          eventsUrl: required(env, 'LEDGER_EVENTS_QUEUE_URL'),
          deliveriesUrl: required(env, 'LEDGER_DELIVERIES_QUEUE_URL'),
          exportsUrl: required(env, 'LEDGER_EXPORTS_QUEUE_URL'),
          deliveriesDeadLetterUrl: required(env, 'LEDGER_DELIVERIES_DEAD_LETTER_QUEUE_URL'),
        };
  const identity = identitySource(env, stage);
  return {
    stage,
    version: env.LEDGER_VERSION ?? '0.1.0',
    region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
    tableName: required(env, 'LEDGER_TABLE'),
    dataBucket: required(env, 'LEDGER_DATA_BUCKET'),
    anchorsBucket: required(env, 'LEDGER_ANCHORS_BUCKET'),
    dynamoEndpoint: env.LEDGER_DYNAMODB_ENDPOINT || undefined,
    s3Endpoint: env.LEDGER_S3_ENDPOINT || undefined,
    signer: signerSource(env),
    retiredServiceKeys: publicKeyList(env, 'LEDGER_RETIRED_SERVICE_KEYS'),
    encryptor: keySource(env, 'LEDGER_SECRETS_KEY_ID', 'LEDGER_SECRETS_KEY_FILE'),
    queue,
    // docs/PROTOCOL.md, Merkle epochs: E is 5 minutes in AWS; the local stack may shorten it.
    epochMs: positiveInt(env, 'LEDGER_EPOCH_MS', 300_000),
    epochGraceMs: nonNegativeInt(env, 'LEDGER_EPOCH_GRACE_MS', 60_000),
    tsaUrl: env.LEDGER_TSA_URL || undefined,
    rateLimitRps: positiveInt(env, 'LEDGER_RATE_LIMIT_RPS', 100),
    newKeysPerMemberPerDay: positiveInt(env, 'LEDGER_NEW_KEYS_PER_MEMBER_PER_DAY', 2000),
    attemptsPerAgentPerDay: positiveInt(env, 'LEDGER_ATTEMPTS_PER_AGENT_PER_DAY', 1000),
    attemptsPerOrgPerDay: positiveInt(env, 'LEDGER_ATTEMPTS_PER_ORG_PER_DAY', 10_000),
    // docs/API.md §8 leaves the maximum payload size open; docs/PROTOCOL.md fixes the default at 256 KiB.
    maxPayloadBytes: positiveInt(env, 'LEDGER_MAX_PAYLOAD_BYTES', 256 * 1024),
    inlinePayloadBytes: nonNegativeInt(env, 'LEDGER_INLINE_PAYLOAD_BYTES', 1024),
    callerCacheMs: nonNegativeInt(env, 'LEDGER_CALLER_CACHE_MS', 5000),
    epochSettleMs: nonNegativeInt(env, 'LEDGER_EPOCH_SETTLE_MS', stage === 'local' ? 0 : 1000),
    webhookAllowLoopback: bool(env, 'LEDGER_WEBHOOK_ALLOW_LOOPBACK'),
    identity,
    tokenGraceSeconds: nonNegativeInt(env, 'LEDGER_TOKEN_GRACE_SECONDS', 3600),
    authCallbackOrigins: origins(env, 'LEDGER_AUTH_CALLBACK_ORIGINS'),
    devOAuth: devOAuth(env, stage, identity),
    publicUrl: baseUrl(env, 'LEDGER_PUBLIC_URL'),
    scryptN: scryptCost(env, 'LEDGER_SCRYPT_N'),
    exportRunSeconds: env.LEDGER_EXPORT_RUN_SECONDS ? positiveInt(env, 'LEDGER_EXPORT_RUN_SECONDS', 1) : undefined,
    exportPartBytes: exportPartBytes(env, 'LEDGER_EXPORT_PART_MB'),
  };
}

let cached: Config | undefined;

/** The process configuration, parsed on first use (cold start) and cached. */
export function config(): Config {
  cached ??= parseConfig(process.env);
  return cached;
}

/** LEDGER_PUBLIC_URL, for code that builds links; throws naming the variable when it is unset. */
export function publicUrl(): string {
  const url = config().publicUrl;
  if (url === undefined) throw new ConfigError('missing required environment variable LEDGER_PUBLIC_URL');
  return url;
}

/** Drops the cached configuration; for tests that change the environment. */
export function resetConfigForTests(): void {
  cached = undefined;
}
