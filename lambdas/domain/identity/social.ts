/**
 * Social sign-in (docs/API.md §4.1 sign-in/social): the OAuth 2.0
 * authorization code flow with PKCE (RFC 6749 §4.1, RFC 7636) through the identity
 * provider (Cognito's hosted UI with Google or GitHub; locally the development page).
 *
 * 1. start: remember {provider, callbackURL, redirect_uri, PKCE verifier} under a random
 *    `state` for 10 minutes, answer the provider URL. The state is also set as a cookie, so
 *    the callback only completes in the browser that started it (login CSRF, RFC 6749 §10.12).
 * 2. complete: take the state (once), redeem the code, find or create the user, create a
 *    session. An existing user is linked by email only when the provider vouches for the
 *    address (else anyone could claim an account by naming its email at a provider that
 *    does not check addresses) and the existing account's email is verified (else its
 *    password may belong to someone who signed up with another person's address).
 */
import { createHash, randomBytes } from 'node:crypto';
import { putOAuthState, takeOAuthState } from '../../store/oauth-states.js';
import type { UserItem } from '../../store/identity-items.js';
import { findUserByEmail } from '../../store/users.js';
import { LedgerError, isLedgerError } from '../../shared/errors.js';
import type { Ports, SocialProvider } from '../ports.js';
import { checkCallbackUrl, withError } from './callback-url.js';
import { createSession, type IssuedSession } from './tokens.js';
import { userForIdentity } from './users.js';

export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;

interface StartedSocialSignIn {
  url: string;
  /** For the state cookie. */
  state: string;
}

export async function startSocialSignIn(
  { identity }: Pick<Ports, 'identity'>,
  input: { provider: SocialProvider; callbackURL: string; redirectUri: string },
  now = Date.now(),
): Promise<StartedSocialSignIn> {
  const provider = identity;
  if (!provider.supportsSocial(input.provider)) {
    throw new LedgerError('VALIDATION_ERROR', `body.provider: ${input.provider} sign-in is not configured`);
  }
  const callbackUrl = checkCallbackUrl(input.callbackURL);
  const state = randomBytes(32).toString('base64url');
  const codeVerifier = randomBytes(32).toString('base64url');
  await putOAuthState(state, {
    provider: input.provider,
    callback_url: callbackUrl,
    redirect_uri: input.redirectUri,
    code_verifier: codeVerifier,
    expires_at: now + OAUTH_STATE_TTL_MS,
    expires_at_s: Math.ceil((now + OAUTH_STATE_TTL_MS) / 1000),
  });
  const codeChallenge = createHash('sha256').update(codeVerifier).digest('base64url');
  return { url: provider.authorizationUrl({ provider: input.provider, state, redirectUri: input.redirectUri, codeChallenge }), state };
}

interface CallbackInput {
  provider: SocialProvider;
  state: string;
  /** The state cookie the browser sent back. */
  boundState: string | undefined;
  code?: string;
  /** The provider's `error` (e.g. access_denied when the person declined). */
  error?: string;
}

/** Where to send the browser, and the session when sign-in succeeded. */
interface CallbackOutcome {
  location: string;
  session?: IssuedSession;
  user?: UserItem;
}

const notStarted = () => new LedgerError('UNAUTHORIZED', 'unknown, expired or already used sign-in state');

export async function completeSocialSignIn({ identity: provider }: Pick<Ports, 'identity'>, input: CallbackInput, now = Date.now()): Promise<CallbackOutcome> {
  if (!input.boundState || input.boundState !== input.state) throw notStarted();
  const started = await takeOAuthState(input.state);
  if (!started || started.expires_at <= now || started.provider !== input.provider) throw notStarted();
  // From here on the browser goes back to the application, with an error if need be.
  if (input.error || !input.code) return { location: withError(started.callback_url, input.error ? 'access_denied' : 'invalid_request') };
  let identity;
  try {
    identity = await provider.redeemCode({
      provider: input.provider,
      code: input.code,
      redirectUri: started.redirect_uri,
      codeVerifier: started.code_verifier,
    });
  } catch (error) {
    if (isLedgerError(error) && error.code === 'UNAUTHORIZED') return { location: withError(started.callback_url, 'invalid_code') };
    throw error;
  }
  const existing = await findUserByEmail(identity.email);
  if (existing && !identity.emailVerified) {
    return { location: withError(started.callback_url, 'email_not_verified') };
  }
  // Never link into a password account whose owner has not proven the address: whoever
  // signed it up knows its password, so linking would hand the provider's (verified) user an
  // account someone else controls. The owner verifies the email first, then links.
  if (existing && !existing.email_verified) {
    return { location: withError(started.callback_url, 'account_not_verified') };
  }
  const user = await userForIdentity(identity, now);
  return { location: started.callback_url, session: await createSession(user.user_id, now), user };
}
