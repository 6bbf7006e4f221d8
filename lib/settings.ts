/**
 * The deployment knobs: CDK context values (cdk.json, or `cdk synth -c key=value`), read and
 * checked once so a typo fails the synth instead of deploying a wrong retention. Values from
 * cdk.json arrive as JSON numbers, values from `-c` as strings; both are accepted.
 */
import { Duration } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/**
 * The epoch length E. PROTOCOL.md (Merkle epochs) and SPEC.md §6 fix it at 5 minutes in
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
  /** Per-organization request rate (SPEC.md §8 leaves the number open). */
  readonly rateLimitRps: number;
  /** Largest accepted payload (SPEC.md §8 leaves it open; PROTOCOL.md default 256 KiB). */
  readonly maxPayloadBytes: number;
  /**
   * Raw base64url public keys of retired receipt-signing keys, still published in the JWKS
   * (PROTOCOL.md, Receipt). After replacing the signer key, list the old key's public half here.
   */
  readonly retiredServiceKeys: readonly string[];
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

/** Defaults, mirrored in cdk.json so an operator sees every knob in one place. */
export const DEFAULT_SETTINGS: LedgerSettings = {
  epochRetentionDays: 365,
  tsaUrl: undefined,
  epochGraceMs: 60_000,
  rateLimitRps: 100,
  maxPayloadBytes: 256 * 1024,
  retiredServiceKeys: [],
  submitRateLimit: 250,
  submitBurstLimit: 250,
};

function integer(scope: Construct, key: string, fallback: number, min: number): number {
  const raw: unknown = scope.node.tryGetContext(key);
  if (raw === undefined || raw === null || raw === '') return fallback;
  const value = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new Error(`context ${key} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function url(scope: Construct, key: string): string | undefined {
  const raw: unknown = scope.node.tryGetContext(key);
  if (raw === undefined || raw === null || raw === '') return undefined;
  if (typeof raw !== 'string' || !/^https?:\/\/\S+$/.test(raw)) {
    throw new Error(`context ${key} must be an http(s) URL, got ${JSON.stringify(raw)}`);
  }
  return raw;
}

function publicKeys(scope: Construct, key: string): string[] {
  const raw: unknown = scope.node.tryGetContext(key);
  if (raw === undefined || raw === null || raw === '') return [];
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
 * (lambdas/tracer.ts, lib/bundling.ts). Off by default: it costs every function about 115 KB
 * and 35 ms of cold start, and active tracing records each invocation without it.
 */
export function readSdkTracing(scope: Construct): boolean {
  const raw: unknown = scope.node.tryGetContext('sdkTracing');
  if (raw === undefined || raw === null || raw === '' || raw === false || raw === 'false') return false;
  if (raw === true || raw === 'true') return true;
  throw new Error(`context sdkTracing must be true or false, got ${JSON.stringify(raw)}`);
}

export function readSettings(scope: Construct): LedgerSettings {
  return {
    // S3 Object Lock accepts 1 day up to 100 years of default retention.
    epochRetentionDays: integer(scope, 'epochRetentionDays', DEFAULT_SETTINGS.epochRetentionDays, 1),
    tsaUrl: url(scope, 'tsaUrl'),
    epochGraceMs: integer(scope, 'epochGraceMs', DEFAULT_SETTINGS.epochGraceMs, 0),
    rateLimitRps: integer(scope, 'rateLimitRps', DEFAULT_SETTINGS.rateLimitRps, 1),
    maxPayloadBytes: integer(scope, 'maxPayloadBytes', DEFAULT_SETTINGS.maxPayloadBytes, 1),
    retiredServiceKeys: publicKeys(scope, 'retiredServiceKeys'),
    submitRateLimit: integer(scope, 'submitRateLimit', DEFAULT_SETTINGS.submitRateLimit, 1),
    submitBurstLimit: integer(scope, 'submitBurstLimit', DEFAULT_SETTINGS.submitBurstLimit, 1),
  };
}
