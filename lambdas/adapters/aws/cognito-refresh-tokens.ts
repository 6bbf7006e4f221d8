/**
 * Cognito refresh tokens kept for email verification (cognito-identity-provider.ts). Cognito
 * redeems the code of its verification mail only through VerifyUserAttribute, and re-sends it
 * only through GetUserAttributeVerificationCode; both want the user's own access token, which
 * the service otherwise never keeps (it issues its own sessions). So, while an address is
 * unverified, the refresh token Cognito returned at sign-up or sign-in is kept here,
 * envelope-encrypted with the secrets key (as webhook secrets are), and removed once the
 * address is verified. It lives no longer than Cognito's default refresh token (30 days).
 * The items are stored by store/cognito-refresh-tokens.ts.
 */
import { sha256B64u } from '@agent-ledger/protocol';
import type { Encryptor } from '../../domain/ports.js';
import { deleteRefreshCiphertext, getRefreshCiphertext, putRefreshCiphertext } from '../../store/cognito-refresh-tokens.js';

const REFRESH_TOKEN_KEEP_SECONDS = 30 * 24 * 60 * 60;

/** Where the Cognito adapter keeps a user's refresh token until their address is verified. */
export interface RefreshTokenStore {
  save(email: string, refreshToken: string): Promise<void>;
  load(email: string): Promise<string | undefined>;
  remove(email: string): Promise<void>;
}

const emailHash = (email: string) => sha256B64u(new TextEncoder().encode(email.trim().toLowerCase()));
/** KMS encryption context: a ciphertext only decrypts for the email it was stored under. */
const contextOf = (email: string) => ({ purpose: 'cognito-refresh-token', email_hash: emailHash(email) });

/** The refresh tokens in the table, encrypted with `encryptor` (the secrets key). */
export function tableRefreshTokenStore(encryptor: () => Encryptor): RefreshTokenStore {
  return {
    async save(email, refreshToken) {
      const ciphertext = await encryptor().encrypt(refreshToken, contextOf(email));
      await putRefreshCiphertext(emailHash(email), { ciphertext, expires_at_s: Math.floor(Date.now() / 1000) + REFRESH_TOKEN_KEEP_SECONDS });
    },
    async load(email) {
      const item = await getRefreshCiphertext(emailHash(email));
      // DynamoDB TTL deletes lazily; an item past its time is gone as far as we are concerned.
      if (!item || item.expires_at_s * 1000 <= Date.now()) return undefined;
      return encryptor().decrypt(item.ciphertext, contextOf(email));
    },
    async remove(email) {
      await deleteRefreshCiphertext(emailHash(email));
    },
  };
}
