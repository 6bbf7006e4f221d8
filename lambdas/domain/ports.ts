/**
 * Ports: the boundaries where two implementations exist (docs/ARCHITECTURE.md, Conventions): one for
 * AWS (adapters/aws) and one for a single machine (adapters/local). DynamoDB and S3 have
 * one implementation each and are used directly.
 */
import type { Ed25519Jwk } from '@agent-ledger/protocol';

/**
 * The ports a use case may need, by name. A use case takes the ones it uses as its first
 * argument (`Pick<Ports, 'signer' | 'queue'>`); the handler or worker passes them from
 * lambdas/runtime/, the one place that picks the AWS or the local implementation.
 */
export interface Ports {
  signer: Signer;
  encryptor: Encryptor;
  queue: Queue;
  identity: IdentityProvider;
  tsa: TimestampAuthority | undefined;
  webhooks: WebhookTransport;
}

/** A dependency's health for GET /v1/health/deep. */
interface Pingable {
  /** Resolves when the dependency answers; rejects with the reason otherwise. */
  ping(): Promise<void>;
}

/**
 * The signer is at its request quota (KMS ThrottlingException after the SDK's retries): the
 * caller should come back later. Submissions answer RATE_LIMITED with Retry-After, and since
 * they sign before they commit, nothing was written (docs/COST.md, KMS quota).
 */
export class SignerBusyError extends Error {
  constructor(cause?: unknown) {
    super('the receipt signer is at its request quota', { cause });
    this.name = 'SignerBusyError';
  }
}

/**
 * The signer cannot sign at all for now: its key could not be loaded (the envelope key's KMS
 * Decrypt failed at cold start, or its item is missing or does not match its public half).
 * Submissions answer SERVICE_UNAVAILABLE with Retry-After and, signing before they commit,
 * write nothing (docs/API.md §7); the next call tries the load again.
 */
export class SignerUnavailableError extends Error {
  constructor(cause?: unknown) {
    super('the receipt signing key is unavailable', { cause });
    this.name = 'SignerUnavailableError';
  }
}

/**
 * Receipt signer (docs/PROTOCOL.md, Receipt): in AWS a KMS ECC_NIST_EDWARDS25519 key, or the
 * envelope key decrypted once per process (SECURITY.md, "Receipt signing modes"); a key file locally.
 */
export interface Signer extends Pingable {
  /** RFC 7638 thumbprint of the current signing key (the receipt's service_kid). */
  kid(): Promise<string>;
  /** Pure Ed25519 signature over `message`, 64 bytes. Rejects with SignerBusyError when throttled, SignerUnavailableError when the key cannot be loaded. */
  sign(message: Uint8Array): Promise<Uint8Array>;
  /** Every key a receipt may name, current first (retired keys stay listed). */
  jwks(): Promise<Ed25519Jwk[]>;
}

/** Envelope encryption of secrets (webhook secrets): KMS in AWS, AES-256-GCM key file locally. */
export interface Encryptor extends Pingable {
  encrypt(plaintext: string, context: Record<string, string>): Promise<string>;
  decrypt(ciphertext: string, context: Record<string, string>): Promise<string>;
}

/**
 * events: the facts webhooks announce (operation.accepted, epoch.created, agent.status_changed);
 * deliveries: one message per (event, webhook) delivery attempt, each on its own retry
 * schedule; exports: export jobs.
 */
export type QueueName = 'events' | 'deliveries' | 'exports';

/** SQS's largest DelaySeconds (15 minutes); longer waits are chained by the consumer. */
export const MAX_DELAY_SECONDS = 900;

export interface QueueMessage {
  /** JSON-serializable body. */
  body: unknown;
  /** Seconds before the message becomes visible (SQS DelaySeconds), 0 to MAX_DELAY_SECONDS; default 0. */
  delaySeconds?: number;
}

/** SQS in AWS, the in-process queue with SQS semantics locally. */
export interface Queue extends Pingable {
  /** Sends one message and returns its message id (SQS MessageId). */
  send(queue: QueueName, message: QueueMessage): Promise<string>;
  /**
   * Sends up to 10 messages in one request (SQS SendMessageBatch). Resolves with the indexes
   * of the messages that were not sent (an empty list when all were).
   */
  sendBatch(queue: QueueName, messages: readonly QueueMessage[]): Promise<number[]>;
  /**
   * Puts a message on `queue`'s dead-letter queue, where an operator can look at it and
   * redrive it: for a consumer that gave up on purpose (the last delivery attempt failed), as
   * SQS's redrive policy does for messages that keep failing.
   */
  sendToDeadLetters(queue: QueueName, message: QueueMessage): Promise<void>;
}

/** SendMessageBatch's limit of messages per request. */
export const MAX_QUEUE_BATCH = 10;

/** One delivered message as a worker sees it (the shape of an SQS record, trimmed). */
export interface ReceivedMessage {
  messageId: string;
  body: string;
  receiveCount: number;
}

/** A worker's answer for a batch: ids of failed messages go back to the queue (SQS partial batch response). */
export interface BatchResult {
  failedMessageIds: string[];
}

export type { SocialProvider } from '../shared/social-provider.js';
import type { SocialProvider } from '../shared/social-provider.js';

/** A person as the identity provider knows them. */
export interface ProviderIdentity {
  /** The provider's stable id of the person (Cognito `sub`; local: a UUID). */
  subject: string;
  email: string;
  name: string;
  emailVerified: boolean;
  image: string | null;
}

/**
 * Checks credentials and runs social sign-in (docs/ARCHITECTURE.md: Cognito in AWS, users and scrypt
 * hashes in DynamoDB locally). It knows nothing of organizations, roles or our sessions: the
 * service keeps its own user item and issues its own tokens once the provider vouches for a
 * person.
 */
/**
 * Where a verification mail leads (docs/API.md §4.1 "a verification email is sent"): the URL of
 * GET /api/auth/verify-email carrying `token`. The domain builds it (origin, callbackURL); a
 * provider that mails links (local) uses it, one that mails codes (Cognito) does not.
 */
export type VerificationUrl = (token: string) => string;

/** Why a verification token verified nothing. */
export type VerificationFailure = 'expired' | 'used' | 'unknown';

/** What redeeming a verification token gave: the proven email, or why not. */
export type EmailConfirmation = { email: string } | { failure: VerificationFailure };

export interface IdentityProvider {
  /**
   * Creates an email/password identity and sends the verification mail. An email it already
   * knows is VALIDATION_ERROR 409.
   */
  register(input: { email: string; password: string; name: string; verificationUrl: VerificationUrl }): Promise<ProviderIdentity>;
  /**
   * Sends the verification mail again. The domain calls it only for a user it knows to be
   * unverified; when the provider cannot send (nothing to send with), it does nothing.
   */
  resendVerification(email: string, verificationUrl: VerificationUrl): Promise<void>;
  /**
   * Redeems the token of a verification mail, once: the email whose ownership it proves, or
   * why it proves nothing (unknown, expired or already used; the console tells the person
   * which). The provider records the address as verified too, so its later identities say
   * emailVerified true.
   */
  confirmEmail(token: string): Promise<EmailConfirmation>;
  /**
   * The identity for a correct email and password, else null. Unknown email and wrong
   * password are indistinguishable, in result and (as far as possible) in time.
   */
  verifyPassword(email: string, password: string): Promise<ProviderIdentity | null>;
  /** Whether social sign-in with `provider` is configured. */
  supportsSocial(provider: SocialProvider): boolean;
  /** The provider authorization URL the browser is sent to (OAuth 2.0 code flow with PKCE, RFC 7636). */
  authorizationUrl(input: { provider: SocialProvider; state: string; redirectUri: string; codeChallenge: string }): string;
  /** Redeems the authorization code the callback received. Throws UNAUTHORIZED when the code is not good. */
  redeemCode(input: { provider: SocialProvider; code: string; redirectUri: string; codeVerifier: string }): Promise<ProviderIdentity>;
}

/** A webhook delivery as it goes out (docs/API.md §6.2): the endpoint, the signed headers and the raw body. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * How one delivery attempt ended. `response`: the endpoint answered (any status; the caller
 * decides what counts as success). `error`: no answer (timeout, connection failure, TLS) or
 * the egress policy refused the address the URL led to (`refused`).
 */
export type WebhookOutcome =
  | { kind: 'response'; status: number; latencyMs: number; /** The start of the response body (UTF-8, bounded). */ excerpt: string }
  | { kind: 'error'; error: string; latencyMs: number; refused: boolean };

/** The egress policy's answer for an endpoint URL (docs/WEBHOOKS.md). */
export type EgressVerdict = { allowed: true; url: string } | { allowed: false; reason: string };

/**
 * Outbound webhook HTTP under the egress policy (docs/WEBHOOKS.md: https only, no internal
 * addresses in any spelling, checked against the address actually connected to, no
 * redirects, bounded time and response size).
 */
export interface WebhookTransport {
  /** Checks an endpoint URL now (registration): its form, and every address its host resolves to. */
  check(url: string): Promise<EgressVerdict>;
  /** POSTs one delivery, checking the address it connects to; never throws for the endpoint's failures. */
  post(request: WebhookRequest): Promise<WebhookOutcome>;
}

/** An RFC 3161 time-stamp token as the authority returned it (docs/PROTOCOL.md, RFC 3161 anchor). */
export interface TimeStamp {
  /** DER of the TimeStampToken: a CMS ContentInfo holding SignedData over TSTInfo (RFC 3161 §2.4.2). */
  token: Uint8Array;
  /** TSTInfo.genTime in Unix ms: the time the authority attests. */
  genTime: number;
}

/** An RFC 3161 time-stamping authority over HTTP (RFC 3161 §3.4), when LEDGER_TSA_URL is set. */
export interface TimestampAuthority {
  /** Stored with each anchor (docs/API.md §2.11 tsa_url). */
  readonly url: string;
  /**
   * Time-stamps a SHA-256 digest. Resolves only with a response that was checked: status
   * granted, message imprint and nonce as requested, signature valid under the certificate
   * the token carries. Rejects otherwise, and after the request timeout.
   */
  timestamp(sha256Digest: Uint8Array): Promise<TimeStamp>;
}
