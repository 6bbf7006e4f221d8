/**
 * Email verification tokens of the local identity provider (docs/API.md §4.1 "a verification
 * email is sent"; Cognito mails its own codes in AWS). A token is 32 random bytes, valid 24
 * hours, redeemable once; the table keeps only its SHA-256, so reading the table does not
 * let anyone verify an address they do not own.
 *
 * `sentVerificationLinks` is a local-development aid: the local provider's "mail" is a log
 * line, so the last link per email is also kept in this process-local map for tests and
 * developers to follow. It exists only in this adapter, which never runs in AWS.
 */
import { randomBytes } from 'node:crypto';
import { sha256B64u } from '@agent-ledger/protocol';
import type { EmailConfirmation } from '../../domain/ports.js';
import { putVerificationToken, useVerificationToken, type VerificationTokenItem } from '../../store/local-identity.js';

export const VERIFICATION_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;

/** email (lower-cased) → the URL of the last verification mail "sent" to it in this process. */
export const sentVerificationLinks = new Map<string, string>();

const tokenHash = (token: string) => sha256B64u(new TextEncoder().encode(token));

export async function issueVerificationToken(email: string, now = Date.now()): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const item: VerificationTokenItem = {
    email: email.toLowerCase(),
    expires_at: now + VERIFICATION_TOKEN_TTL_MS,
    expires_at_s: Math.ceil((now + VERIFICATION_TOKEN_TTL_MS) / 1000),
  };
  await putVerificationToken(tokenHash(token), item);
  return token;
}

/** The email a token was issued for, if it is known, unused and unexpired, else why not; the token is used up either way. */
export async function redeemVerificationToken(token: string, now = Date.now()): Promise<EmailConfirmation> {
  const item = await useVerificationToken(tokenHash(token), now);
  if (item === 'used' || item === 'unknown') return { failure: item };
  return item.expires_at > now ? { email: item.email } : { failure: 'expired' };
}
