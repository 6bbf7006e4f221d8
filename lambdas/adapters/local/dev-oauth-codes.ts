/**
 * Authorization codes of the development OAuth provider (the local stand-in for Google and
 * GitHub). Its page (lambdas/http/auth/dev-oauth-*.ts) issues a code when the developer
 * presses "Continue"; the local identity provider redeems it once, checking what a real
 * provider checks (RFC 6749 §4.1.3, RFC 7636 §4.6): same provider, same redirect_uri, PKCE
 * verifier matching the challenge, not expired, not used before.
 *
 * The page vouches for whatever address is typed on it, so it never does for an address
 * that has a password account (SECURITY.md, Rules the service enforces): that account's owner signs in with the
 * password, and no one else can become them through this page. Checked when the code is
 * issued and again when it is redeemed (the account may have been made in between).
 */
import { createHash, randomBytes } from 'node:crypto';
import { sha256B64u } from '@agent-ledger/protocol';
import { LedgerError } from '../../shared/errors.js';
import type { SocialProvider } from '../../domain/ports.js';
import { hasCredential, putDevCode, takeDevCode, type DevCodeItem } from '../../store/local-identity.js';

const DEV_CODE_TTL_MS = 5 * 60 * 1000;

const codeHash = (code: string) => sha256B64u(new TextEncoder().encode(code));

interface DevGrant {
  provider: SocialProvider;
  email: string;
  name: string;
  redirectUri: string;
  codeChallenge: string;
}

export async function issueDevCode(grant: DevGrant, now = Date.now()): Promise<string> {
  if (await hasCredential(grant.email.trim())) {
    throw new LedgerError('VALIDATION_ERROR', 'query.email: this address has a password account; sign in with its password');
  }
  const code = randomBytes(32).toString('base64url');
  const item: DevCodeItem = {
    provider: grant.provider,
    email: grant.email.trim().toLowerCase(),
    name: grant.name,
    redirect_uri: grant.redirectUri,
    code_challenge: grant.codeChallenge,
    expires_at: now + DEV_CODE_TTL_MS,
    expires_at_s: Math.ceil((now + DEV_CODE_TTL_MS) / 1000),
  };
  await putDevCode(codeHash(code), item);
  return code;
}

const badCode = () => new LedgerError('UNAUTHORIZED', 'the authorization code is invalid, expired or already used');

function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export async function redeemDevCode(
  code: string,
  expected: { provider: SocialProvider; redirectUri: string; codeVerifier: string },
  now = Date.now(),
): Promise<{ email: string; name: string }> {
  // Taken (deleted and returned) at once, so the code is single-use even under concurrent redemption.
  const item = await takeDevCode(codeHash(code));
  if (!item || item.expires_at <= now) throw badCode();
  if (item.provider !== expected.provider || item.redirect_uri !== expected.redirectUri) throw badCode();
  if (item.code_challenge !== pkceChallenge(expected.codeVerifier)) throw badCode();
  if (await hasCredential(item.email)) throw badCode();
  return { email: item.email, name: item.name };
}
