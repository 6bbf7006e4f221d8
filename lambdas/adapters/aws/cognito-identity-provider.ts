/**
 * The Cognito user pool as the identity provider (docs/ARCHITECTURE.md, Shape; lib/identity.ts builds
 * the pool and its app client).
 *
 * - Sign-up: AdminCreateUser (mail suppressed) + AdminSetUserPassword(permanent). A
 *   self-service SignUp would leave the user UNCONFIRMED, unable to sign in until they enter
 *   the mailed code, whereas docs/API.md §4.1 signs in right after sign-up with emailVerified
 *   false. Then Cognito mails the address-verification code (GetUserAttributeVerificationCode),
 *   which is the verification mail of docs/API.md §4.1.
 * - Email verification: the user is CONFIRMED (AdminCreateUser), so ConfirmSignUp does not
 *   apply; the mailed code is redeemed with VerifyUserAttribute, which needs the user's access
 *   token. That comes from the refresh token kept while the address is unverified
 *   (cognito-refresh-tokens.ts). AdminUpdateUserAttributes would mark the address verified
 *   without any proof, so it is not used. The token of GET /api/auth/verify-email is
 *   `<base64url of the email>.<code>` (verificationToken below): the application asks the
 *   signed-in user for the code and knows their email.
 * - Sign-in: InitiateAuth USER_PASSWORD_AUTH. The app client has PreventUserExistenceErrors,
 *   so an unknown email and a wrong password fail alike, in the same time.
 * - Social: the hosted UI's /oauth2/authorize with identity_provider=Google|GitHub, and the
 *   code redeemed at /oauth2/token (authorization code + PKCE, public client).
 *
 * ID tokens come straight from Cognito over TLS in answer to our own request, so their
 * claims are read without verifying the signature (OpenID Connect Core 1.0 §3.1.3.7, item 6).
 */
import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminSetUserPasswordCommand,
  GetUserAttributeVerificationCodeCommand,
  InitiateAuthCommand,
  RevokeTokenCommand,
  VerifyUserAttributeCommand,
  type CognitoIdentityProviderClient,
} from '@aws-sdk/client-cognito-identity-provider';
import { LedgerError, conflict } from '../../shared/errors.js';
import type { EmailConfirmation, IdentityProvider, ProviderIdentity, SocialProvider, VerificationFailure } from '../../domain/ports.js';
import { logger } from '../../logger.js';
import type { RefreshTokenStore } from './cognito-refresh-tokens.js';

export interface CognitoSettings {
  userPoolId: string;
  clientId: string;
  /** Hosted UI host name, e.g. `ledger-prod.auth.eu-west-1.amazoncognito.com`. */
  domain: string | undefined;
  socialProviders: readonly SocialProvider[];
}

/** Identity provider names as lib/identity.ts registers them in the pool. */
export const COGNITO_PROVIDER_NAMES: Record<SocialProvider, string> = { google: 'Google', github: 'GitHub' };

/** Failures that mean "these credentials do not sign in", all answered alike. */
const REJECTED_SIGN_IN = new Set([
  'NotAuthorizedException',
  // cognito-local (the rehearsal's Cognito) throws this for a wrong password where Cognito
  // throws NotAuthorizedException: a wrong password is 401 in the deployed shape either way.
  'InvalidPasswordException',
  'UserNotFoundException',
  'UserNotConfirmedException',
  'PasswordResetRequiredException',
]);

/** Failures of VerifyUserAttribute that mean "this code does not verify the address", and why. */
const REJECTED_CODE: Record<string, VerificationFailure> = { CodeMismatchException: 'unknown', ExpiredCodeException: 'expired' };

/** The token GET /api/auth/verify-email takes for a Cognito code: `<base64url of email>.<code>`. */
export function verificationToken(email: string, code: string): string {
  return `${Buffer.from(email.trim().toLowerCase(), 'utf8').toString('base64url')}.${code}`;
}

function parseVerificationToken(token: string): { email: string; code: string } | null {
  const dot = token.lastIndexOf('.');
  if (dot <= 0 || dot === token.length - 1) return null;
  const email = Buffer.from(token.slice(0, dot), 'base64url').toString('utf8');
  return email.includes('@') ? { email, code: token.slice(dot + 1) } : null;
}

type Fetch = typeof fetch;

/** The hosted UI's token endpoint answers in well under a second; a hang fails the sign-in inside the route's timeout. */
const TOKEN_ENDPOINT_TIMEOUT_MS = 5_000;

interface IdClaims {
  sub?: string;
  email?: string;
  name?: string;
  email_verified?: boolean | string;
  picture?: string;
}

export function idTokenClaims(idToken: string): IdClaims {
  const payload = idToken.split('.')[1];
  if (!payload) throw new Error('malformed ID token');
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as IdClaims;
}

function identityFromClaims(claims: IdClaims): ProviderIdentity {
  if (!claims.sub || !claims.email) throw new LedgerError('UNAUTHORIZED', 'the identity provider returned no email address');
  return {
    subject: claims.sub,
    email: claims.email.toLowerCase(),
    name: claims.name ?? claims.email,
    emailVerified: claims.email_verified === true || claims.email_verified === 'true',
    image: claims.picture ?? null,
  };
}

/** Without a store (runtime/identity-provider.ts always passes one) no refresh token is kept; mails still go out. */
const noRefreshTokenStore: RefreshTokenStore = {
  save: () => Promise.reject(new Error('no refresh token store given to CognitoIdentityProvider')),
  load: () => Promise.resolve(undefined),
  remove: () => Promise.resolve(),
};

export class CognitoIdentityProvider implements IdentityProvider {
  constructor(
    private readonly client: CognitoIdentityProviderClient,
    private readonly settings: CognitoSettings,
    private readonly fetchFn: Fetch = fetch,
    private readonly refreshTokens: RefreshTokenStore = noRefreshTokenStore,
  ) {}

  async register(input: { email: string; password: string; name: string }): Promise<ProviderIdentity> {
    const { userPoolId } = this.settings;
    let subject: string | undefined;
    try {
      const created = await this.client.send(
        new AdminCreateUserCommand({
          UserPoolId: userPoolId,
          Username: input.email,
          MessageAction: 'SUPPRESS',
          UserAttributes: [
            { Name: 'email', Value: input.email },
            { Name: 'name', Value: input.name },
            { Name: 'email_verified', Value: 'false' },
          ],
        }),
      );
      subject = created.User?.Attributes?.find((attribute) => attribute.Name === 'sub')?.Value;
    } catch (error) {
      if ((error as Error).name === 'UsernameExistsException') throw conflict('an account with this email already exists');
      throw error;
    }
    try {
      await this.client.send(
        new AdminSetUserPasswordCommand({ UserPoolId: userPoolId, Username: input.email, Password: input.password, Permanent: true }),
      );
    } catch (error) {
      // Undo the half-made user so the email can sign up again with a better password.
      await this.client.send(new AdminDeleteUserCommand({ UserPoolId: userPoolId, Username: input.email }));
      if ((error as Error).name === 'InvalidPasswordException') {
        throw new LedgerError('VALIDATION_ERROR', `body.password: ${(error as Error).message}`);
      }
      throw error;
    }
    if (!subject) throw new Error('AdminCreateUser returned no sub');
    await this.sendVerificationMail(input.email, input.password);
    return { subject, email: input.email, name: input.name, emailVerified: false, image: null };
  }

  /** The account works without a verified address (docs/API.md §4.1), so a failed mail is logged, not fatal. */
  private async sendVerificationMail(email: string, password: string): Promise<void> {
    try {
      const auth = await this.initiate(email, password);
      if (!auth?.AccessToken) throw new Error('no access token after sign-up');
      await this.client.send(new GetUserAttributeVerificationCodeCommand({ AccessToken: auth.AccessToken, AttributeName: 'email' }));
      if (auth.RefreshToken) await this.refreshTokens.save(email, auth.RefreshToken);
    } catch (error) {
      logger.warn('verification mail not sent', { error: (error as Error).name });
    }
  }

  /** The user's access token from their kept refresh token; undefined when there is none or Cognito refuses it. */
  private async accessTokenFor(email: string): Promise<{ accessToken: string; refreshToken: string } | undefined> {
    const refreshToken = await this.refreshTokens.load(email);
    return refreshToken ? this.accessTokenFrom(email, refreshToken) : undefined;
  }

  private async accessTokenFrom(email: string, refreshToken: string): Promise<{ accessToken: string; refreshToken: string } | undefined> {
    try {
      const result = await this.client.send(
        new InitiateAuthCommand({ ClientId: this.settings.clientId, AuthFlow: 'REFRESH_TOKEN_AUTH', AuthParameters: { REFRESH_TOKEN: refreshToken } }),
      );
      const accessToken = result.AuthenticationResult?.AccessToken;
      return accessToken ? { accessToken, refreshToken } : undefined;
    } catch (error) {
      // Revoked or expired: useless from now on; the next sign-in keeps a fresh one.
      if ((error as Error).name === 'NotAuthorizedException') {
        await this.refreshTokens.remove(email);
        return undefined;
      }
      throw error;
    }
  }

  /**
   * A new code by mail. Failures are logged, never answered: POST
   * /api/auth/send-verification-email must answer alike whether or not the account exists.
   */
  async resendVerification(email: string): Promise<void> {
    try {
      const tokens = await this.accessTokenFor(email);
      if (!tokens) {
        logger.info('verification mail not re-sent: no kept refresh token; it is kept again at the next sign-in');
        return;
      }
      await this.client.send(new GetUserAttributeVerificationCodeCommand({ AccessToken: tokens.accessToken, AttributeName: 'email' }));
    } catch (error) {
      logger.warn('verification mail not re-sent', { error: (error as Error).name });
    }
  }

  async confirmEmail(token: string): Promise<EmailConfirmation> {
    const parsed = parseVerificationToken(token);
    if (!parsed) return { failure: 'unknown' };
    const refreshToken = await this.refreshTokens.load(parsed.email);
    // The refresh token is kept from sign-up until the address is verified, then forgotten: none
    // kept means the code was redeemed already (a fabricated token for an address never signed
    // up answers the same, so the answer tells no accounts apart).
    if (!refreshToken) return { failure: 'used' };
    const tokens = await this.accessTokenFrom(parsed.email, refreshToken);
    // Kept, but Cognito no longer accepts it (it outlived the code it was kept for).
    if (!tokens) return { failure: 'expired' };
    try {
      await this.client.send(new VerifyUserAttributeCommand({ AccessToken: tokens.accessToken, AttributeName: 'email', Code: parsed.code }));
    } catch (error) {
      const failure = REJECTED_CODE[(error as Error).name];
      if (failure) return { failure };
      if ((error as Error).name === 'LimitExceededException' || (error as Error).name === 'TooManyFailedAttemptsException') {
        throw new LedgerError('RATE_LIMITED', 'too many verification attempts; retry later', { headers: { 'retry-after': '60' } });
      }
      throw error;
    }
    // Verified: the refresh token has served its purpose; keep it nowhere.
    await this.refreshTokens.remove(parsed.email);
    await this.client.send(new RevokeTokenCommand({ ClientId: this.settings.clientId, Token: tokens.refreshToken })).catch((error: unknown) => {
      logger.warn('refresh token not revoked', { error: (error as Error).name });
    });
    return { email: parsed.email };
  }

  private async initiate(email: string, password: string) {
    const result = await this.client.send(
      new InitiateAuthCommand({
        ClientId: this.settings.clientId,
        AuthFlow: 'USER_PASSWORD_AUTH',
        AuthParameters: { USERNAME: email, PASSWORD: password },
      }),
    );
    return result.AuthenticationResult;
  }

  async verifyPassword(email: string, password: string): Promise<ProviderIdentity | null> {
    let auth;
    try {
      auth = await this.initiate(email, password);
    } catch (error) {
      if (REJECTED_SIGN_IN.has((error as Error).name)) return null;
      throw error;
    }
    // A challenge (e.g. NEW_PASSWORD_REQUIRED for a user an administrator created) cannot
    // be answered through docs/API.md's sign-in; it does not sign in.
    if (!auth?.IdToken) return null;
    const identity = identityFromClaims(idTokenClaims(auth.IdToken));
    if (!identity.emailVerified && auth.RefreshToken) {
      // Still unverified: keep a fresh refresh token so the code can be redeemed or re-sent.
      await this.refreshTokens.save(identity.email, auth.RefreshToken).catch((error: unknown) => {
        logger.warn('refresh token for verification not kept', { error: (error as Error).name });
      });
    }
    return identity;
  }

  supportsSocial(provider: SocialProvider): boolean {
    return this.settings.domain !== undefined && this.settings.socialProviders.includes(provider);
  }

  private endpoint(path: string): URL {
    const domain = this.settings.domain;
    if (!domain) throw new LedgerError('VALIDATION_ERROR', 'social sign-in is not configured');
    return new URL(path, `https://${domain.replace(/^https:\/\//, '').replace(/\/$/, '')}`);
  }

  authorizationUrl(input: { provider: SocialProvider; state: string; redirectUri: string; codeChallenge: string }): string {
    const url = this.endpoint('/oauth2/authorize');
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: this.settings.clientId,
      redirect_uri: input.redirectUri,
      state: input.state,
      identity_provider: COGNITO_PROVIDER_NAMES[input.provider],
      scope: 'openid email profile',
      code_challenge: input.codeChallenge,
      code_challenge_method: 'S256',
    }).toString();
    return url.href;
  }

  async redeemCode(input: { provider: SocialProvider; code: string; redirectUri: string; codeVerifier: string }): Promise<ProviderIdentity> {
    const response = await this.fetchFn(this.endpoint('/oauth2/token'), {
      method: 'POST',
      // Connection, headers and body in one bound, like the SDK clients' (sdk-client-settings.ts).
      signal: AbortSignal.timeout(TOKEN_ENDPOINT_TIMEOUT_MS),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: this.settings.clientId,
        code: input.code,
        redirect_uri: input.redirectUri,
        code_verifier: input.codeVerifier,
      }).toString(),
    });
    if (!response.ok) {
      // 400 invalid_grant and the like: the code is not good (RFC 6749 §5.2).
      if (response.status >= 400 && response.status < 500) {
        throw new LedgerError('UNAUTHORIZED', 'the authorization code is invalid, expired or already used');
      }
      throw new Error(`Cognito token endpoint answered ${response.status}`);
    }
    const tokens = (await response.json()) as { id_token?: string };
    if (!tokens.id_token) throw new Error('Cognito token endpoint returned no id_token');
    return identityFromClaims(idTokenClaims(tokens.id_token));
  }
}
