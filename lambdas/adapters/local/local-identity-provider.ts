/**
 * The local identity provider (docs/ARCHITECTURE.md, Local stack: "users and scrypt hashes in
 * DynamoDB; mails written to the log"): what Cognito does in AWS, on one machine. Social
 * sign-in, when LEDGER_DEV_OAUTH=1 turns it on, goes to the development OAuth page served
 * under /api/auth/dev-oauth/, which stands in for Google and GitHub.
 */
import { config } from '../../config.js';
import { conflict } from '../../shared/errors.js';
import type { EmailConfirmation, IdentityProvider, ProviderIdentity, SocialProvider, VerificationUrl } from '../../domain/ports.js';
import { logger, readableInTerminal } from '../../logger.js';
import { mailNotice } from './mail-notice.js';
import { redeemDevCode } from './dev-oauth-codes.js';
import { getCredential, markCredentialVerified, putCredential, replacePasswordHash, type CredentialItem } from '../../store/local-identity.js';
import { dummyHash, hashPassword, needsRehash, verifyPassword } from './password-hash.js';
import { issueVerificationToken, redeemVerificationToken, sentVerificationLinks } from './verification-tokens.js';

/** Path of the development provider's authorization page (routes/route-table/auth.ts). */
const DEV_OAUTH_AUTHORIZE_PATH = '/api/auth/dev-oauth/authorize';

function identityOf(item: CredentialItem): ProviderIdentity {
  // Verified once the owner followed the link of the verification mail (confirmEmail).
  return { subject: item.subject, email: item.email, name: item.name, emailVerified: item.email_verified === true, image: null };
}

export class LocalIdentityProvider implements IdentityProvider {
  async register(input: { email: string; password: string; name: string; verificationUrl: VerificationUrl }): Promise<ProviderIdentity> {
    const item: CredentialItem = {
      subject: crypto.randomUUID(),
      email: input.email.toLowerCase(),
      name: input.name,
      password_hash: await hashPassword(input.password),
      created_at: Date.now(),
    };
    if (!(await putCredential(item))) throw conflict('an account with this email already exists');
    await this.resendVerification(item.email, input.verificationUrl);
    return identityOf(item);
  }

  /**
   * The verification mail of docs/API.md §4.1, "sent" to the log (docs/ARCHITECTURE.md, Local stack) with a
   * fresh single-use link (verification-tokens.ts); earlier links stay good until used or expired.
   */
  async resendVerification(email: string, verificationUrl: VerificationUrl): Promise<void> {
    const link = verificationUrl(await issueVerificationToken(email));
    sentVerificationLinks.set(email.toLowerCase(), link);
    const mail = { to: email, subject: 'Verify your email address for agent-ledger', link };
    if (readableInTerminal()) process.stdout.write(mailNotice(mail, { color: !process.env.NO_COLOR }));
    else logger.info('mail sent (local identity provider)', { mail });
  }

  async confirmEmail(token: string): Promise<EmailConfirmation> {
    const confirmation = await redeemVerificationToken(token);
    // No credential (a social-only user cannot get a link, but be safe): nothing to record there.
    if ('email' in confirmation) await markCredentialVerified(confirmation.email);
    return confirmation;
  }

  async verifyPassword(email: string, password: string): Promise<ProviderIdentity | null> {
    const item = await getCredential(email);
    if (!item) {
      await verifyPassword(password, await dummyHash());
      return null;
    }
    if (!(await verifyPassword(password, item.password_hash))) return null;
    if (needsRehash(item.password_hash)) await this.rehash(item, password);
    return identityOf(item);
  }

  /**
   * Replaces a hash made with weaker parameters (password-hash.ts) now that the password is
   * known. Conditional on the old hash, so a concurrent change of the password wins.
   */
  private async rehash(item: CredentialItem, password: string): Promise<void> {
    await replacePasswordHash(item.email, item.password_hash, await hashPassword(password));
  }

  /** Only with the development provider turned on (LEDGER_DEV_OAUTH=1): it signs in as anyone. */
  supportsSocial(): boolean {
    return config().devOAuth;
  }

  /** The development page on this same server: the callback's origin is ours. */
  authorizationUrl(input: { provider: SocialProvider; state: string; redirectUri: string; codeChallenge: string }): string {
    const url = new URL(DEV_OAUTH_AUTHORIZE_PATH, new URL(input.redirectUri).origin);
    url.search = new URLSearchParams({
      provider: input.provider,
      response_type: 'code',
      redirect_uri: input.redirectUri,
      state: input.state,
      code_challenge: input.codeChallenge,
      code_challenge_method: 'S256',
    }).toString();
    return url.href;
  }

  async redeemCode(input: { provider: SocialProvider; code: string; redirectUri: string; codeVerifier: string }): Promise<ProviderIdentity> {
    const person = await redeemDevCode(input.code, input);
    // Like Google and GitHub, the development provider vouches for the address it returns.
    return { subject: `dev-${input.provider}|${person.email}`, email: person.email, name: person.name, emailVerified: true, image: null };
  }
}
